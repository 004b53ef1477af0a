"""The tg-* commands. They talk only to the gateway."""
