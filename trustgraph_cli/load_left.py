"""What a load cut short leaves on the server, and what to do about it: after a Ctrl-C, or
when the gateway is lost (the stack stopped or killed) while tg-load-document follows."""

from __future__ import annotations


def interrupted(state: dict[str, str]) -> str:
    """What a Ctrl-C left behind on the server, and what to do about it."""
    doc, stage = state["id"], state["stage"]
    if stage == "uploading":
        return (
            f"Interrupted during the upload: nothing will be processed. The server drops "
            f"the unfinished upload of {doc} after an hour without a part; loading the "
            f"file again starts it over."
        )
    if stage == "storing":
        return (
            f"Interrupted: the server may have stored {doc} and started processing it. "
            f"Check with 'tg-list-documents'; remove it with 'tg-remove-document {doc}'."
        )
    return f"Interrupted: the server goes on processing {doc}. {follow_it(doc)}"


def lost(error: str, state: dict[str, str]) -> str:
    """``error`` (the gateway lost, in one line) with what the server keeps of the load."""
    doc, stage = state["id"], state["stage"]
    cause = error.split(". ")[0].rstrip(".")  # the cause, without its "start it" advice
    if stage == "uploading":
        return (
            f"{cause}; the upload of {doc} did not finish: nothing will be processed, and "
            f"loading the file again starts it over."
        )
    if stage == "storing":
        return (
            f"{cause}; the server may have stored {doc} and started processing it: check "
            f"with 'tg-list-documents' once the gateway is back; remove it with "
            f"'tg-remove-document {doc}'."
        )
    return (
        f"{cause}; {doc} is stored: its processing goes on, or resumes when the stack runs "
        f"again. {follow_it(doc)}"
    )


def follow_it(doc: str) -> str:
    return (
        f"Follow it with 'tg-list-documents' (or 'tg-show-document-hierarchy {doc}'); "
        f"remove it with 'tg-remove-document {doc}'."
    )
