#!/usr/bin/env bash
# Install the Debian packages the product and its tests use, waiting for another install's
# lock instead of failing: OCR (tesseract with the catalog's languages) and, with --browser,
# Chromium for the browser tests. Says what it does; without root it says what to run instead.
set -euo pipefail
packages=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-fra)
if [ "${1:-}" = "--browser" ]; then
  packages+=(chromium fonts-dejavu-core)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present (${packages[*]})"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "system packages missing: ${missing[*]}; OCR is off until they are installed:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 0
fi
echo "system packages: installing ${missing[*]} (waits for the package manager's lock)"
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
apt_get update -qq
DEBIAN_FRONTEND=noninteractive apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "system packages: installed"
