"""Import time and find_tables() cost of whichever PyMuPDF this interpreter has, on corpus/ PDFs.

Run it from the repository root under environments holding different PyMuPDF versions (for
example one made with `pip install 'pymupdf<2'` and one with `pip install pymupdf`) to compare
them on the same pages; the table in bench/RESULTS.md came from this script.
"""

from __future__ import annotations

import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    """Print the version, its import time, and the best of three find_tables() passes."""
    start = time.perf_counter()
    import pymupdf

    imported = time.perf_counter() - start
    files = sorted((ROOT / "corpus").rglob("*.pdf"))
    best, pages, tables = float("inf"), 0, 0
    for _ in range(3):
        start = time.perf_counter()
        pages = tables = 0
        for path in files:
            with pymupdf.open(path) as doc:
                for page in doc:
                    tables += len(page.find_tables().tables)
                    pages += 1
        best = min(best, time.perf_counter() - start)
    print(
        f"pymupdf {pymupdf.__version__}: import {imported:.2f} s; "
        f"find_tables on {pages} pages: {best:.2f} s (best of 3); {tables} tables"
    )


if __name__ == "__main__":
    main()
