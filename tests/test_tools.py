#!/usr/bin/env python3
"""The tools users run on contactsim's output: tools/plot.py on a run's CSV and on a compare
--out-dir, and tools/make_bench_scenes.py producing the committed benchmark scenes byte for byte.
Usage: test_tools.py PATH/TO/contactsim"""
import filecmp
import os
import subprocess
import sys
import tempfile

EXE = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"  # Debian's, which has python3-matplotlib
results = []


def case(fn):
    try:
        fn()
        results.append(None)
        print(f"ok: {fn.__name__}")
    except Exception as e:  # a failed check or a crash of the test itself
        results.append(e)
        print(f"FAIL: {fn.__name__}: {e!r}")
    return fn


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 10000


@case
def plot_columns_of_a_run():
    d = tempfile.mkdtemp()
    csv_path, png = os.path.join(d, "run.csv"), os.path.join(d, "run.png")
    p = subprocess.run([EXE, "run", "scenes/pendulum.json", "-o", csv_path, "-q",
                        "--duration", "2"], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    p = subprocess.run([PYTHON, "tools/plot.py", csv_path, "-y", "arm.q0,ke", "-o", png],
                       cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    check(is_png(png), "no PNG written")
    p = subprocess.run([PYTHON, "tools/plot.py", csv_path, "-y", "no_such_column", "-o", png],
                       cwd=ROOT, capture_output=True, text=True)
    check(p.returncode != 0 and "no_such_column" in p.stderr, "a bad column must be named")


@case
def plot_compare_overlay():
    d = tempfile.mkdtemp()
    p = subprocess.run([EXE, "compare", "scenes/bench/incline_slide.json", "--models",
                        "exponential_spring,compliant_point", "--duration", "0.5",
                        "--out-dir", d, "--quiet"], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    png = os.path.join(d, "overlay")
    p = subprocess.run([PYTHON, "tools/plot.py", "--compare", d, "-o", png], cwd=ROOT,
                       capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    check(is_png(png + ".png"), "no overlay PNG written")


@case
def bench_scenes_are_generated():
    d = tempfile.mkdtemp()
    p = subprocess.run([sys.executable, "tools/make_bench_scenes.py", "--out", d], cwd=ROOT,
                       capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    committed = os.path.join(ROOT, "scenes", "bench")
    names = sorted(n for n in os.listdir(committed) if n.endswith(".json"))
    check(names == sorted(n for n in os.listdir(d) if n.endswith(".json")), "scene lists differ")
    for n in names:
        check(filecmp.cmp(os.path.join(d, n), os.path.join(committed, n), shallow=False),
              f"{n} differs from what tools/make_bench_scenes.py writes")


failed = sum(1 for e in results if e)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
