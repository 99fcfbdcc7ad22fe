#!/usr/bin/env bash
# Install the dependencies, build contactsim, install it to a prefix (default ~/.local, so that
# no root is needed: CONTACTSIM_PREFIX=/usr/local tools/quickstart.sh to change it) and run a
# bundled scene to a CSV file.
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX="${CONTACTSIM_PREFIX:-$HOME/.local}"
bash tools/install-deps.sh
# the build directory keeps its prefix; an existing one is pointed at this one
if [ -d build ]; then
  meson configure build --prefix "$PREFIX" >/dev/null
else
  meson setup build --prefix "$PREFIX" >/dev/null
fi
ninja -C build >/dev/null
# the built binary is build/contactsim; meson install copies it to $PREFIX/bin
meson install -C build --quiet >/dev/null
./build/contactsim run scenes/pendulum.json -o pendulum.csv
echo "wrote pendulum.csv ($(wc -l < pendulum.csv) lines)"
echo "contactsim is installed as $PREFIX/bin/contactsim (and built as build/contactsim)"
# say how to reach it by name when the prefix's bin is not on the PATH yet
if [ "$(command -v contactsim || true)" != "$PREFIX/bin/contactsim" ]; then
  echo "to run it as 'contactsim', add its directory to your PATH (e.g. in ~/.bashrc):"
  echo "  export PATH=\"$PREFIX/bin:\$PATH\""
fi
# and how Python finds the module, when the prefix is not one Debian's python3 searches
PYDIR=$(dirname "$(find "$PREFIX" -path '*contactsim/__init__.py' | head -n 1)")
PYDIR=$(dirname "$PYDIR")
if [ "$PYDIR" != "." ] && ! /usr/bin/python3 -c 'import contactsim' 2>/dev/null; then
  echo "to import contactsim in Debian's python3 (e.g. in ~/.bashrc):"
  echo "  export PYTHONPATH=\"$PYDIR:\$PYTHONPATH\""
fi
# and how programs find the library, when the prefix is not one the system searches
LIBDIR=$(dirname "$(find "$PREFIX" -name contactsim.pc -path '*pkgconfig*' | head -n 1)")
if [ -n "$LIBDIR" ] && ! pkg-config --exists contactsim 2>/dev/null; then
  echo "to build programs against libcontactsim (pkg-config) and run them (e.g. in ~/.bashrc):"
  echo "  export PKG_CONFIG_PATH=\"$LIBDIR:\$PKG_CONFIG_PATH\""
  echo "  export LD_LIBRARY_PATH=\"$(dirname "$LIBDIR"):\$LD_LIBRARY_PATH\""
fi
