#!/usr/bin/env bash
# Generate one man page with help2man from `contactsim --help` or `contactsim SUB --help`.
# usage: make-man.sh HELP2MAN CONTACTSIM OUTPUT VERSION [SUBCOMMAND]
# help2man runs a program with --help; for a subcommand it runs a two-line wrapper named
# contactsim-SUB (the page's name, git-style), so the page documents `contactsim SUB`. The
# wrappers put a blank line after the usage line, which help2man otherwise runs into the
# description below it ("usage: contactsim run SCENE.json [OPTIONS] simulate a scene ...").
set -euo pipefail
help2man=$1 exe=$(realpath "$2") out=$3 version=$4 sub=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$sub" ]; then
  prog="$tmp/contactsim"
  name="simulate rigid bodies with contact models"
  printf '#!/bin/sh\n"%s" "$@" | sed "1{/^usage:/G}"\n' "$exe" > "$prog"
else
  prog="$tmp/contactsim-$sub"
  case $sub in
    run) name="simulate a scene and write its trajectory as CSV" ;;
    validate) name="load and check a scene without running it" ;;
    compare) name="run a scene once per contact model and tabulate the results" ;;
    sweep) name="run a parameter study on local cores or as a Slurm job array" ;;
    replay) name="write a 3D replay page of runs already made" ;;
    *) name="the $sub command of contactsim" ;;
  esac
  printf '#!/bin/sh\n"%s" %s "$@" | sed "1{/^usage:/G}"\n' "$exe" "$sub" > "$prog"
fi
chmod +x "$prog"
# the help text is the program's own; sanitizer reports must not end up in the page
ASAN_OPTIONS=detect_leaks=0 "$help2man" --no-info \
  --version-string="$version" --name="$name" --section=1 --output="$out" "$prog"
