"""The vector index: per user, collection and kind, persisted atomically on disk."""

import os

# pymilvus talks gRPC, whose fork handlers restart its poller in a forked child; a child
# that then closes its descriptors before exec (every subprocess does) can die of that
# poller's "epoll_wait error: Bad file descriptor" (grpc/grpc#43055: 4 of 300 spawns here,
# one by SIGABRT). We fork only to exec, so gRPC's fork support is of no use to us. Read
# when gRPC starts, so it is set before any pymilvus import (submodules import after this).
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
