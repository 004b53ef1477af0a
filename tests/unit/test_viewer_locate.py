"""The viewer's locate.js finds a claim's sentence where trustgraph_base.spans.locate does
(tg-show-evidence's), run in node on the same cases."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from trustgraph_base.spans import locate

LOCATE_JS = Path(__file__).resolve().parents[2] / "trustgraph_flow/gateway/static/locate.js"
CASES = [
    ("Paris is the capital of France.", "Cities. Paris is the capital of France. More."),
    (
        "It rises in the Black Forest and flows",
        "long river. It rises in the Black Forest and\nflows",
    ),
    ("the capital of France", "Paris is the capi-\ntal of France"),
    ("a well-known city", "Paris is a well-\nknown city"),
    # a PDF's hyphenated line end quoted with the break as a space (libtasn1.pdf, page 7)
    ("for an ASN.1 iden- tifier.", "allowed for an ASN.1 iden-\ntifier.\n"),
    ("Rome is the capital", "Paris is the capital of France."),
    ("  spaced   quote ", "a spaced\n\n  quote here"),
    ("Paris is the capital", "𝔸𝔹 Paris\tis the\u00a0capital"),
    ("café au lait", "un café\nau lait"),
    ("", "anything"),
]


def test_the_viewer_finds_what_the_commands_find() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = (
        f"import {{ locate }} from {json.dumps(LOCATE_JS.as_uri())};\n"
        f"const cases = {json.dumps(CASES)};\n"
        "console.log(JSON.stringify(cases.map(([q, t]) => locate(q, t))));\n"
    )
    ran = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    found = [tuple(x) if x else None for x in json.loads(ran.stdout)]
    assert found == [locate(q, t) for q, t in CASES]
    assert found[1] is not None and found[5] is None  # the cases hold both outcomes
    assert found[4] == (8, 26)
