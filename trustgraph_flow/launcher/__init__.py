"""tg-start / tg-stop: the embedded stack (broker, processors, gateway) in one data directory."""
