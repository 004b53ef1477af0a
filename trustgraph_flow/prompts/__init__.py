"""The prompts the processors send to the LLM: their templates (defaults here, a user's own in
the configuration service), how they are filled, and which one each LLM step used."""
