#!/usr/bin/env bash
# Install contactsim's build and test dependencies from Debian's packages (run as root, or with
# sudo available). Packages already present are left alone, so a second run is quick.
set -euo pipefail

packages=(build-essential pkg-config meson ninja-build libsundials-dev libcjson-dev
          libcmocka-dev libsuitesparse-dev python3 python3-matplotlib)

# the replay viewer: node (and npm) bundle it, Debian's chromium tests it in a real browser
packages+=(nodejs chromium)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# some node packages bring npm with them; Debian's nodejs does not
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
  fi
  echo "installing: ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# the viewer's npm packages, exactly as viewer/package-lock.json pins them (again when it changed)
viewer="$(cd "$(dirname "$0")/../viewer" && pwd)"
if [ ! -f "$viewer/node_modules/.package-lock.json" ] ||
   [ "$viewer/package-lock.json" -nt "$viewer/node_modules/.package-lock.json" ]; then
  echo "installing the viewer's npm packages (npm ci in viewer/)" >&2
  (cd "$viewer" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
