"""A process holding the Milvus index starts children that live (gRPC's fork handlers off).

pymilvus's gRPC poller, restarted in a forked child, died of "epoll_wait error: Bad file
descriptor" when the child closed its descriptors before exec: 4 spawns in 300 here (one
SIGABRT), which is how a ``tg-load-document`` started by a test ended before its first line.
The scenario runs in a fresh interpreter, so nothing this test process set counts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCENARIO = """
import subprocess, sys
from pathlib import Path
from trustgraph_base.process import die_with_parent
from trustgraph_base.schema import VectorItem
from trustgraph_flow.vectors.milvus import MilvusVectors

index = MilvusVectors.open("", Path(sys.argv[1]))
index.upsert("alice", "docs", "chunk", [VectorItem(id="urn:c:1", vector=[1.0, 0.0, 0.0])])
bad = []
for _ in range(int(sys.argv[2])):
    child = subprocess.run(  # as the launcher starts a service: close_fds, a preexec_fn
        [sys.executable, "-c", "print('up')"], capture_output=True, preexec_fn=die_with_parent()
    )
    if child.returncode or child.stdout != b"up\\n" or child.stderr:
        bad.append((child.returncode, child.stderr.decode(errors="replace")[:200]))
index.close()
print(len(bad), bad[:2])
"""


def test_children_of_a_process_with_the_milvus_index_start_cleanly(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRPC_")}
    done = subprocess.run(
        [sys.executable, "-c", SCENARIO, str(tmp_path), "300"],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "0 []", done.stdout
