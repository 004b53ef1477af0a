"""What is removed and why: document deletion and erasure, trace deletion, retention."""
