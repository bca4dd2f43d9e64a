"""Render docs/inspect-<method>.png: the warranty policy's inspect page under each method.

Needs Debian's chromium and the playwright package (the `browser` extra); it launches the
system's chromium by path, so never run `playwright install`. Run from anywhere:

    .venv/bin/python scripts/screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from policy_assistant.chunk import CHUNKERS, DEFAULT_CHUNKER, make_chunker
from policy_assistant.inspect import inspect_document, write_document_page

ROOT = Path(__file__).resolve().parent.parent
# One definition of how the system chromium is found and launched: the browser tests' own.
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from browser_support import CHROMIUM_ARGS, chromium_path  # noqa: E402

CORPUS = ROOT / "corpus"
DOCS = ROOT / "docs"
SOURCE = "policies/warranty-policy.pdf"
SHOWN_CHUNK = 3
"""The chunk clicked before each screenshot, so its record shows beside the document."""
WIDTH, HEIGHT = 1280, 1700
"""The window: wide enough for the record panel, tall enough for the table and page break."""


def chromium() -> str:
    found = chromium_path()
    if not found:
        sys.exit("no chromium on PATH (Debian: apt-get install chromium)")
    return found


def main() -> None:
    inspection = inspect_document(SOURCE, make_chunker(DEFAULT_CHUNKER), CORPUS)
    DOCS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as driver:
        page_file = write_document_page(inspection, Path(folder) / "warranty.html")
        browser = driver.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.goto(page_file.as_uri())
        page.wait_for_selector("body[data-ready=true]")
        for method in CHUNKERS:
            page.get_by_role("radio", name=method, exact=True).click()
            page.locator(f'#view button.ms[data-chunk="{SHOWN_CHUNK}"]').click()
            page.evaluate("window.scrollTo(0, 0)")
            target = DOCS / f"inspect-{method}.png"
            page.screenshot(path=str(target))
            print(f"wrote {target.relative_to(ROOT)}")
        browser.close()


if __name__ == "__main__":
    main()
