#!/usr/bin/env bash
# Install contactsim's build and test dependencies from Debian's packages (run as root, or with
# sudo available). Packages already present are left alone, so a second run is quick.
set -euo pipefail

packages=(build-essential pkg-config meson ninja-build libsundials-dev libcjson-dev
          libcmocka-dev libsuitesparse-dev python3 python3-matplotlib help2man)
# the Python module (python/) and its tests: headers, numpy, meson-python (which needs patchelf
# for a project that installs a shared library), pytest, scipy, venv for installing with pip
packages+=(python3-dev python3-numpy python3-mesonpy patchelf python3-pytest python3-scipy
           python3-venv)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "installing: ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
