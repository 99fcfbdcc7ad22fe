#!/bin/sh
# Run by `meson install`: when root installs for real (not into a staging directory, as
# --destdir, DESTDIR or pip's build do), refresh the dynamic loader's cache, so that programs
# linked against libcontactsim find it under a prefix the loader searches (/usr/local), as they
# do after a Debian package's install. Debian's Meson 1.0 does not do it itself.
if [ "${MESON_INSTALL_DESTDIR_PREFIX:-}" = "${MESON_INSTALL_PREFIX:-}" ] && [ "$(id -u)" = 0 ] &&
  [ -x /sbin/ldconfig ]; then
  /sbin/ldconfig || true
fi
