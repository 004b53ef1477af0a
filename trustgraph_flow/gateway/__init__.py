"""The gateway: WebSocket and REST in front of the Pulsar services."""
