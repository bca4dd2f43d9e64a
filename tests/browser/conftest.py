"""A headless Chromium for the page tests.

Without chromium or the playwright package the tests skip, saying why; on CI (CI=true) they fail
instead, so a CI machine that lacks them cannot pass without running them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, NoReturn

import pytest
from support.browser import CHROMIUM_ARGS, Tab, chromium_path


def unavailable(reason: str) -> NoReturn:
    """Skip the browser tests here; fail them on CI, where they must run."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"browser tests cannot run on CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from playwright import sync_api
    except ImportError:
        unavailable("the playwright package is not installed: pip install -e '.[browser]'")
    executable = chromium_path()
    if executable is None:
        unavailable("no chromium ($CHROMIUM, or on PATH): apt-get install chromium")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def tab(browser: Any) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = Tab(context.new_page())
    opened.page.on("pageerror", lambda exc: opened.errors.append(str(exc)))
    opened.page.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    opened.page.on("request", lambda r: opened.requests.append(r.url))
    yield opened
    context.close()
