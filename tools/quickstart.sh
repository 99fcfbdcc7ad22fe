#!/usr/bin/env bash
# Install the dependencies, build contactsim, install it to a prefix (default ~/.local, so that
# no root is needed: CONTACTSIM_PREFIX=/usr/local tools/quickstart.sh to change it) and run a
# bundled scene to a CSV file.
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX="${CONTACTSIM_PREFIX:-$HOME/.local}"
bash tools/install-deps.sh
# the Python module goes where Debian's python3 looks under the prefix (its user site for
# ~/.local, PREFIX/lib/python3.X/dist-packages for /usr/local), not where Meson would put it
# (PREFIX/lib/python3/dist-packages, which it searches under no prefix but /usr)
PYSITE=$(/usr/bin/python3 - "$PREFIX" <<'EOF_PY' 2>/dev/null || true
import os, site, sys
prefix = os.path.realpath(sys.argv[1])
for p in site.getsitepackages() + [site.getusersitepackages()]:
    # PREFIX/lib/...: not a prefix nested in this one (/usr/local's under /usr)
    if os.path.relpath(os.path.realpath(p), prefix).startswith("lib" + os.sep):
        print(p)
        break
EOF_PY
)
# (elsewhere Meson's own choice, given explicitly: a build directory set up before keeps the
# directory given then, and an empty one reads as ".")
PYSITE=${PYSITE:-$PREFIX/lib/python3/dist-packages}
PYOPTS=(-Dpython.purelibdir="$PYSITE" -Dpython.platlibdir="$PYSITE")
# the build directory keeps its prefix; an existing one is pointed at this one
if [ -d build ]; then
  meson configure build --prefix "$PREFIX" "${PYOPTS[@]}" >/dev/null
else
  meson setup build --prefix "$PREFIX" "${PYOPTS[@]}" >/dev/null
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
# and how Python finds the module, when Debian's python3 does not find it there (or finds
# another install's first)
# (the directory it was installed to: an older install's copy elsewhere under the prefix, such
# as PREFIX/lib/python3/dist-packages, is not this one)
PYDIR=$PYSITE
[ -f "$PYDIR/contactsim/__init__.py" ] || PYDIR=.
FOUND=$(cd / && /usr/bin/python3 -c 'import contactsim, os
print(os.path.dirname(os.path.dirname(os.path.realpath(contactsim.__file__))))' 2>/dev/null || true)
if [ "$PYDIR" != "." ] && [ "$FOUND" != "$(realpath "$PYDIR")" ]; then
  if [ -n "$FOUND" ]; then
    echo "Debian's python3 finds another contactsim first, in $FOUND"
  fi
  echo "to import this contactsim in Debian's python3 (e.g. in ~/.bashrc):"
  echo "  export PYTHONPATH=\"$PYDIR:\$PYTHONPATH\""
fi
# and how programs find the library: pkg-config must find this install's, and the loader its
# library (as root the loader's cache is refreshed, for a prefix it searches such as /usr/local)
PCDIR=$(dirname "$(find "$PREFIX" -name contactsim.pc -path '*pkgconfig*' | head -n 1)")
LIBDIR=$(dirname "$PCDIR")
if [ "$(id -u)" = 0 ]; then
  /sbin/ldconfig 2>/dev/null || true
fi
if [ "$PCDIR" != "." ]; then
  PCPREFIX=$(pkg-config --variable=prefix contactsim 2>/dev/null || true)
  if [ "$PCPREFIX" != "$PREFIX" ]; then
    if [ -n "$PCPREFIX" ]; then
      echo "pkg-config finds another libcontactsim first, under $PCPREFIX"
    fi
    echo "to build programs against this libcontactsim (pkg-config) and run them (e.g. in ~/.bashrc):"
    echo "  export PKG_CONFIG_PATH=\"$PCDIR:\$PKG_CONFIG_PATH\""
    echo "  export LD_LIBRARY_PATH=\"$LIBDIR:\$LD_LIBRARY_PATH\""
  elif ! /sbin/ldconfig -p 2>/dev/null | grep -qF "=> $LIBDIR/libcontactsim.so" &&
       [[ ":${LD_LIBRARY_PATH:-}:" != *":$LIBDIR:"* ]]; then
    echo "to run programs built against libcontactsim, refresh the loader's cache:"
    echo "  sudo ldconfig"
    echo "(or: export LD_LIBRARY_PATH=\"$LIBDIR:\$LD_LIBRARY_PATH\")"
  fi
fi
