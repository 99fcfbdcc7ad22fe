#!/usr/bin/env bash
# Install the dependencies, build contactsim and run a bundled scene to a CSV file.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
./build/contactsim run scenes/pendulum.json -o pendulum.csv
echo "wrote pendulum.csv ($(wc -l < pendulum.csv) lines)"
