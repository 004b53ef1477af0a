"""The processors of the system, each its own entry point, and the gateway."""
