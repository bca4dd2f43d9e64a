#!/usr/bin/env bash
# Ingest a corpus with the local pool and with a local Ray, and check the two index folders hold
# the same files with the same bytes (the lock file, which names its writer's pid, aside).
# Usage: scripts/ray_identity.sh [CORPUS]   (needs the ray extra; CI runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-corpus}"
bin="${BIN:-.venv/bin}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# each index in a folder of its own: the parse cache lives beside the index, and a shared one
# would leave the Ray run nothing to parse
mkdir -p "$work/l" "$work/r"
"$bin/policy-assistant" ingest "$corpus" --index "$work/l/index" --quiet >/dev/null
"$bin/policy-assistant" ingest "$corpus" --index "$work/r/index" --engine ray --quiet --json \
    >"$work/ray.json"
grep -q '"batches": *[1-9]' "$work/ray.json" || { echo "ray_identity: Ray parsed nothing" >&2; exit 1; }
digests() { (cd "$1" && find . -type f ! -name .lock -print0 | sort -z | xargs -0 sha256sum); }
if diff <(digests "$work/l/index") <(digests "$work/r/index") >"$work/diff"; then
    echo "ray_identity: $(digests "$work/l/index" | wc -l) files, the same bytes from both engines"
else
    echo "ray_identity: the index folders differ:" >&2
    cat "$work/diff" >&2
    exit 1
fi
