"""Output helpers for the tg-* commands: styles, trees, tables, JSON, text fitting.

Plain Python with no third-party imports, so that rendering adds nothing to a
command's start-up time (``rich`` is only imported for the upload progress bar).
"""
