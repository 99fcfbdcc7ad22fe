#!/usr/bin/env bash
# Install contactsim's build and test dependencies from Debian's packages (run as root, or with
# sudo available), and the replay viewer's npm packages from viewer/package-lock.json. Packages
# already present are left alone, so a second run is quick.
#
#   build:          compiler, meson, ninja, SUNDIALS, cJSON
#   tests:          cmocka, Python with numpy/scipy/matplotlib/pytest (Debian's /usr/bin/python3)
#   library:        help2man (man pages), pkg-config
#   Python module:  python3-dev, numpy, meson-python (and patchelf, which its wheels of a
#                   project with a shared library need), pip
#   sweeps:         slurm-wlm and munge (a one-node cluster on localhost for the Slurm test)
#   replay:         node and npm (three, esbuild, puppeteer-core from the lock file), chromium
#   peers, fuzzing: libsimbody-dev, libmujoco-dev, g++ (bench/); clang and its runtime
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential g++ pkg-config meson ninja-build libsundials-dev libcjson-dev
          libcmocka-dev libsuitesparse-dev help2man
          python3 python3-dev python3-numpy python3-scipy python3-matplotlib python3-pytest
          python3-mesonpy patchelf python3-pip python3-venv
          slurm-wlm munge chromium locales
          libsimbody-dev libmujoco-dev clang libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm: the machine's own when present (a newer Node.js), else Debian's
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# the replay viewer's build and test packages, exactly as locked
if [ -f viewer/package-lock.json ] && [ ! -d viewer/node_modules ]; then
  (cd viewer && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
