"""The configuration and flow services (the reference's ``config`` and ``flow``)."""
