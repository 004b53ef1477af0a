"""Browser tests skip, with the reason, where Playwright or chromium is not installed."""

from __future__ import annotations

import pytest

from tests.browser.support import missing


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing()
    if reason is None:
        return
    for item in items:
        if "tests/browser/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.skip(reason=reason))
