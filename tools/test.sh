#!/usr/bin/env bash
# Install the dependencies, build, and run the whole test suite twice: in the normal build and
# in a build with AddressSanitizer and UndefinedBehaviorSanitizer (first report fails). Ends with
# the line "N passed, N failed", counting individual test cases.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh || { echo "dependency installation failed"; echo "0 passed, 1 failed"; exit 1; }

status=0
for variant in build build-sanitize; do
  if [ ! -d "$variant" ]; then
    if [ "$variant" = build-sanitize ]; then
      meson setup "$variant" -Db_sanitize=address,undefined -Dwerror=true \
        -Dc_args=-fno-sanitize-recover=all >/dev/null || status=1
    else
      meson setup "$variant" -Dwerror=true >/dev/null || status=1
    fi
  fi
  if ! ninja -C "$variant" >"$variant.ninja.log" 2>&1; then
    cat "$variant.ninja.log"
    echo "build of $variant failed"
    status=1
    continue
  fi
  # the tests of whole external systems (a real Slurm, a real browser, a real Python importing
  # the module) run once, in the normal build: under the sanitizers they would test the
  # sanitizer's interplay with Python and node rather than contactsim
  skip=()
  [ "$variant" = build-sanitize ] && skip=(--no-suite external)
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    meson test -C "$variant" --print-errorlogs --num-processes 2 "${skip[@]}" \
    >"$variant.test.log" 2>&1 || status=1
  tail -n 12 "$variant.test.log"
done

# count test cases: cmocka prints "[ PASSED ] N test(s)." and "[ FAILED ] N test(s)"; the
# command-line tests print their own "N passed, N failed"; pytest ends with a summary such as
# "==== 2 failed, 40 passed in 3.1s ===="; an executable that crashed before reporting counts as
# one failure
python3 - build build-sanitize <<'PY'
import json, re, sys
passed = failed = 0
for variant in sys.argv[1:]:
    try:
        lines = open(f"{variant}/meson-logs/testlog.json").read().splitlines()
    except OSError:
        failed += 1
        continue
    for line in lines:
        r = json.loads(line)
        out = (r.get("stdout") or "") + "\n" + (r.get("stderr") or "")
        # cmocka: one "[       OK ] name" per passing case, "[  FAILED  ] name" per failing one
        ok = set(re.findall(r"^\[       OK \] (\S+)", out, re.M))
        bad = set(re.findall(r"^\[  FAILED  \] (\w+)$", out, re.M))
        p, f = len(ok), len(bad)
        # the Python command-line tests print their own "N passed, N failed"
        m = re.findall(r"^(\d+) passed, (\d+) failed", out, re.M)
        if m:
            p += int(m[-1][0]); f += int(m[-1][1])
        # pytest's closing summary line
        s = re.findall(r"^=+ (.*\d+ (?:passed|failed|errors?).*) in [\d.]+s", out, re.M)
        if s and not m:
            counts = dict((k, int(n)) for n, k in re.findall(r"(\d+) (passed|failed|errors?)", s[-1]))
            p += counts.get("passed", 0)
            f += counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
        if r.get("result") != "OK" and f == 0:
            f = 1  # crashed, timed out or failed before reporting
        passed += p
        failed += f
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
count=$?
[ $status -eq 0 ] && [ $count -eq 0 ]
