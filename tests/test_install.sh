#!/usr/bin/env bash
# Install the build into a temporary directory and use it the way a user would: build the C API
# example against the installed headers and library with nothing but pkg-config (shared, then
# static with the private dependencies pkg-config lists), run it, and check the executable and
# the man pages are there (when the build makes them: MAN is "man", else "no-man"). Prints
# "N passed, N failed".
# usage: test_install.sh BUILD_DIR SOURCE_DIR [MAN]
set -uo pipefail
build=$(realpath "$1") src=$(realpath "$2") man=${3:-man}
tmp=$(mktemp -d)
# meson install records what it installed in the build's install log, which `ninja uninstall`
# reads: the log of the user's own install of this build is put back as it was
log=$build/meson-logs/install-log.txt
restore_log() {
  if [ -f "$tmp/install-log.txt" ]; then
    cp -p "$tmp/install-log.txt" "$log"
  else
    rm -f "$log"
  fi
}
[ -f "$log" ] && cp -p "$log" "$tmp/install-log.txt"
trap 'restore_log; rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@" >"$tmp/out.log" 2>&1; then
    echo "ok   $what"
    passed=$((passed + 1))
  else
    echo "FAIL $what"
    sed 's/^/     /' "$tmp/out.log" | tail -20
    failed=$((failed + 1))
  fi
}

dest=$tmp/dest
check "meson install --destdir" meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
# where meson put things under the prefix
pc=$(find "$dest" -name contactsim.pc | head -n 1)
libdir=$(dirname "$(dirname "$pc")")
prefix_dir=$(find "$dest" -type d -name include -path '*/include' | head -n 1 | xargs dirname)
# the installed tree is under $dest: the sysroot prefixes every path the .pc file gives
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest

check "pkg-config file installed" test -f "$pc"
check "pkg-config knows the version" bash -c '[ "$(pkg-config --modversion contactsim)" = "$0" ]' \
  "$(sed -n "s/^ *version : '\(.*\)',/\1/p" "$src/meson.build" | head -n 1)"
for h in contactsim.h simulation.h types.h math.h version.h; do
  check "header contactsim/$h installed" test -f "$prefix_dir/include/contactsim/$h"
done
check "shared library installed" bash -c "ls '$libdir'/libcontactsim.so.* >/dev/null"
check "static library installed" test -f "$libdir/libcontactsim.a"
check "executable installed and runs" "$prefix_dir/bin/contactsim" --version
# one page for the command and one for each command its --help lists (a command added later
# without a page in meson.build's man_commands fails here)
commands=$("$prefix_dir/bin/contactsim" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
check "contactsim --help lists commands" test -n "$commands"
if [ "$man" = man ]; then
  for page in contactsim $(for c in $commands; do echo "contactsim-$c"; done); do
    check "man page $page.1 installed" grep -q "^\.TH" "$prefix_dir/share/man/man1/$page.1"
  done
  check "man page of run documents its options" grep -qF 'output\fR FILE' \
    "$prefix_dir/share/man/man1/contactsim-run.1"
else
  check "no man pages installed (the build makes none)" test ! -d "$prefix_dir/share/man/man1"
fi

# only CS_API symbols leave the shared library
check "shared library exports only cs_/csu_ symbols" bash -c \
  "! nm -D --defined-only '$libdir'/libcontactsim.so | awk '{print \$3}' | grep -v '^cs_\|^csu_' | grep ."

# the example, as a user builds it
cd "$tmp"
check "example compiles with pkg-config (shared)" bash -c \
  "cc -std=c11 -Wall -Wextra -Werror '$src/examples/c/bounce.c' \$(pkg-config --cflags --libs contactsim) -o bounce"
check "example runs against the installed shared library" env LD_LIBRARY_PATH="$libdir" ./bounce
check "the example's binary uses the shared library" bash -c \
  "LD_LIBRARY_PATH='$libdir' ldd ./bounce | grep -q libcontactsim.so"
# the first program of docs/c-api.md, as printed there
awk '/^```c$/ {on = 1; next} /^```$/ {if (on) exit} on' "$src/docs/c-api.md" > first.c
check "docs/c-api.md's first program is there" test -s first.c
check "docs/c-api.md's first program compiles with pkg-config" bash -c \
  "cc -std=c11 -Wall -Wextra -Werror first.c \$(pkg-config --cflags --libs contactsim) -o first"
check "docs/c-api.md's first program runs and finds the analytic fall" \
  env LD_LIBRARY_PATH="$libdir" ./first
# the public headers in a C++ program (extern "C", no C-only constructs)
printf '#include <contactsim/contactsim.h>\nint main() { return cs_version() == CS_VERSION ? 0 : 1; }\n' > cxx.cpp
check "the public headers compile as C++ and link" bash -c \
  "c++ -std=c++17 -Wall -Wextra -Werror cxx.cpp \$(pkg-config --cflags --libs contactsim) -o cxx"
check "the C++ program runs" env LD_LIBRARY_PATH="$libdir" ./cxx
# static, as docs/c-api.md says: the archive by its path (-lcontactsim would take the shared
# library beside it) and the private dependencies from pkg-config --static
check "example links statically with pkg-config --static" bash -c \
  "cc -std=c11 '$src/examples/c/bounce.c' \$(pkg-config --cflags contactsim) \
   \$(pkg-config --static --libs contactsim | \
      sed \"s|-lcontactsim|\$(pkg-config --variable=libdir contactsim)/libcontactsim.a|\") \
   -o bounce_static"
check "statically linked example runs" bash -c "! ldd ./bounce_static | grep -q libcontactsim && ./bounce_static"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
