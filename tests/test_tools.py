#!/usr/bin/env python3
"""The tools users run on contactsim's output: tools/plot.py on a run's CSV and on a compare
--out-dir, and tools/make_bench_scenes.py producing the committed benchmark scenes byte for byte.
Usage: test_tools.py PATH/TO/contactsim"""
import csv
import filecmp
import json
import os
import subprocess
import sys
import tempfile

from casekit import case, check, finish

EXE = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"  # Debian's, which has python3-matplotlib


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
    # a figure that cannot be written is an error naming the file, not a traceback
    bad = os.path.join(d, "no_such_dir", "run.png")
    p = subprocess.run([PYTHON, "tools/plot.py", csv_path, "-y", "arm.q0", "-o", bad],
                       cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 1 and p.stderr == f"plot.py: cannot write {bad}: No such file or "
          "directory\n", p.stderr)


@case
def plot_takes_what_users_give_it():
    """a CSV cut short by a killed run is drawn without its cut row (it was a traceback); a file
    that is not a run's CSV, a directory or a missing file is named in a message, not a
    traceback; -o without .png names the file written (matplotlib adds .png); options of two
    kinds of figure together are refused (the others were ignored); a figure of a scene without
    a free body says so, not a flat line of a pinned body"""
    d = tempfile.mkdtemp()
    csv_path = os.path.join(d, "run.csv")
    p = subprocess.run([EXE, "run", "scenes/pendulum.json", "-o", csv_path, "-q",
                        "--duration", "1"], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    text = open(csv_path).read()
    cut = os.path.join(d, "cut.csv")
    with open(cut, "w") as f:
        f.write(text[:len(text) // 2 + 7])  # ends inside a row
    p = subprocess.run([PYTHON, "tools/plot.py", cut, "-y", "arm.q0", "-o",
                        os.path.join(d, "cut")], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout == os.path.join(d, "cut.png") + "\n" and
          is_png(os.path.join(d, "cut.png")) and "last line has no line break" in p.stderr,
          (p.stdout, p.stderr))
    # a format matplotlib writes is kept (-o fig.svg wrote fig.svg before, and still does)
    svg = os.path.join(d, "fig.svg")
    p = subprocess.run([PYTHON, "tools/plot.py", csv_path, "-y", "arm.q0", "-o", svg],
                       cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout == svg + "\n" and
          open(svg).read(200).lstrip().startswith("<?xml"), (p.stdout, p.stderr))
    for bad in (os.path.join(d, "none.csv"), d, os.devnull):
        p = subprocess.run([PYTHON, "tools/plot.py", bad, "-y", "t"], cwd=ROOT,
                           capture_output=True, text=True)
        check(p.returncode == 1 and p.stderr.startswith("plot.py: ") and
              "Traceback" not in p.stderr, (bad, p.stderr))
    for args in ([csv_path, "--compare", d], ["--sweep", d, "-y", "t"],
                 [csv_path, "-y", "t", "--metric", "steps"], [csv_path, "-y", "t", "-o", d]):
        p = subprocess.run([PYTHON, "tools/plot.py", *args], cwd=ROOT, capture_output=True,
                           text=True)
        check(p.returncode != 0 and "Traceback" not in p.stderr, (args, p.stderr))
    out = os.path.join(d, "pinned")
    p = subprocess.run([EXE, "compare", "scenes/double_pendulum.json", "--duration", "0.2",
                        "--out-dir", out, "-q"], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import importlib
    plot = importlib.import_module("plot")
    _, _, header = plot.load_run(os.path.join(out, "scene.csv"))
    check(plot.first_free_body(header) is None, header[:20])


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


# a figure of tools/plot.py described as JSON by Debian's Python (which has matplotlib): per axis
# its labels and, per line, its label and data
INSPECT = r"""
import json, sys
sys.path.insert(0, "tools")
import plot
mode, arg, cols = sys.argv[1], sys.argv[2], [c for c in sys.argv[3].split(",") if c]
if mode == "compare":
    runs = plot.load_compare(arg, cols)
    fig = plot.columns_figure(runs, cols, "t") if cols else plot.compare_figure(runs, "t")
else:
    fig = plot.columns_figure([plot.load_run(arg, cols)], cols, "t")
axes = []
for ax in fig.axes:
    axes.append({"x": ax.get_xlabel(), "y": ax.get_ylabel(),
                 "lines": [{"label": l.get_label(), "y": [float(v) for v in l.get_ydata()]}
                           for l in ax.get_lines()]})
print(json.dumps(axes))
"""


def inspect(mode, arg, cols=""):
    p = subprocess.run([PYTHON, "-c", INSPECT, mode, arg, cols], cwd=ROOT, capture_output=True,
                       text=True)
    check(p.returncode == 0, p.stderr)
    return json.loads(p.stdout)


def read_columns(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return {h: [float(r[i]) for r in rows[1:]] for i, h in enumerate(rows[0])}


# two blocks on one floor, each on its own contact set: the light one placed, the heavy one
# dropped 25 cm, so one set sees an impact the other does not
TWO_BLOCKS = {
    "name": "two_blocks", "gravity": [0, 0, -9.81],
    "bodies": [
        {"name": "light", "mass": 1, "inertia": {"box": [0.05, 0.05, 0.05]},
         "joint": {"type": "free", "initial": {"position": [0, 0, 0.06]}}},
        {"name": "heavy", "mass": 4, "inertia": {"box": [0.05, 0.05, 0.05]},
         "joint": {"type": "free", "initial": {"position": [1, 0, 0.3]}}}],
    "planes": [{"name": "floor"}],
    "contacts": [
        {"name": name, "body": body, "plane": "floor",
         "points": [[-0.05, -0.05, -0.05], [0.05, -0.05, -0.05], [-0.05, 0.05, -0.05],
                    [0.05, 0.05, -0.05]]}
        for name, body in (("light_feet", "light"), ("heavy_feet", "heavy"))],
    "contact_models": {
        "exponential_spring": {"cz": 10},
        "compliant_point": {"penalty_stiffness": 2e5, "dissipation": 5, "mu_static": 0.7,
                            "mu_dynamic": 0.5}},
    "simulation": {"duration": 1.5, "report_interval": 0.002}}


def two_blocks_compare():
    d = tempfile.mkdtemp()
    scene = os.path.join(d, "two_blocks.json")
    with open(scene, "w") as f:
        json.dump(TWO_BLOCKS, f)
    out = os.path.join(d, "out")
    p = subprocess.run([EXE, "compare", scene, "--out-dir", out, "--quiet"], cwd=ROOT,
                       capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    return out


@case
def every_axis_has_a_unit():
    d = tempfile.mkdtemp()
    csv_path = os.path.join(d, "run.csv")
    p = subprocess.run([EXE, "run", "scenes/pendulum_stop.json", "-o", csv_path, "-q",
                        "--duration", "1", "--forces"], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    out = two_blocks_compare()
    figures = [inspect("run", csv_path, "arm.q0,arm.u0,ke,stop.generalized_force,stop.pe"),
               inspect("compare", out), inspect("compare", out, "light.pz,heavy.vz,e_total")]
    for axes in figures:
        for ax in axes:
            check(ax["y"].endswith(")") and "(" in ax["y"] and "(?)" not in ax["y"],
                  f"y axis without a unit: {ax['y']!r}")
        # the bottom axes carry the time axis with its unit
        check(any(ax["x"] == "t (s)" for ax in axes), f"no 't (s)' axis: {axes}")
    run_units = {ax["y"].rsplit("(", 1)[1] for ax in figures[0]}
    check({"m or rad)", "m/s or rad/s)", "J)", "N or N m)"} <= run_units, run_units)


@case
def normal_force_of_every_contact_set():
    out = two_blocks_compare()
    axes = inspect("compare", out)
    panel = [ax for ax in axes if ax["y"].startswith("normal force")]
    check(len(panel) == 1, [ax["y"] for ax in axes])
    lines = {ln["label"]: ln["y"] for ln in panel[0]["lines"]}
    for model in ("exponential_spring", "compliant_point"):
        data = read_columns(os.path.join(out, model + ".csv"))
        for s, mass in (("light_feet", 1.0), ("heavy_feet", 4.0)):
            line = lines.get(f"{model}: {s}")
            check(line is not None, f"no line for {model}: {s} in {sorted(lines)}")
            # the plotted force is the sum of the set's elements' normal forces
            total = [sum(v) for v in zip(*(data[f"{s}.{i}.normal_force"] for i in range(4)))]
            check(max(abs(a - b) for a, b in zip(line, total)) < 1e-9, f"{model}: {s} sum")
            # resting at the end: the floor carries the block's weight
            check(abs(line[-1] - mass * 9.81) < 0.01 * mass * 9.81,
                  f"{model}: {s} ends at {line[-1]} N, weight {mass * 9.81} N")
        # the heavy block's landing is shown, not hidden behind the light block's set
        check(max(lines[f"{model}: heavy_feet"]) > 20 * 4 * 9.81,
              f"{model}: the impact of the heavy block is missing")


@case
def path_and_slip_are_not_both_sliding_distance():
    out = two_blocks_compare()
    labels = [ax["y"] for ax in inspect("compare", out)]
    check(not any("sliding" in lb for lb in labels), labels)
    check(any("path of light's origin (m)" in lb for lb in labels), labels)
    with open(os.path.join(ROOT, "tools", "plot.py")) as f:
        check("sliding distance" not in f.read(), "plot.py still says sliding distance")


@case
def columns_with_compare():
    out = two_blocks_compare()
    png = os.path.join(out, "columns")
    p = subprocess.run([PYTHON, "tools/plot.py", "--compare", out, "-y", "heavy.pz,heavy.vz",
                        "-o", png], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    check(is_png(png + ".png"), "no PNG written")
    axes = inspect("compare", out, "heavy.pz,heavy.vz")
    check([ax["y"] for ax in axes] == ["heavy.pz (m)", "heavy.vz (m/s)"],
          [ax["y"] for ax in axes])
    labels = {ln["label"] for ax in axes for ln in ax["lines"]}
    check({"exponential_spring: heavy.pz", "compliant_point: heavy.vz"} <= labels, labels)
    # the heavy block falls freely first: pz(t) = 0.3 - g t^2 / 2 at the first reports
    pz = axes[0]["lines"][0]["y"]
    check(abs(pz[50] - (0.3 - 0.5 * 9.81 * 0.1 ** 2)) < 1e-6, pz[50])
    p = subprocess.run([PYTHON, "tools/plot.py", "--compare", out, "-y", "nope", "-o", png],
                       cwd=ROOT, capture_output=True, text=True)
    check(p.returncode != 0 and "nope" in p.stderr, "a bad column must be named")


@case
def compare_overlay_draws_only_the_models_of_its_comparison():
    # a second comparison in the same directory runs one model with a heavier block: the other
    # model's CSV, left there by the first, was drawn as if it belonged to the second
    out = two_blocks_compare()
    scene = os.path.join(os.path.dirname(out), "two_blocks.json")
    p = subprocess.run([EXE, "compare", scene, "--out-dir", out, "--quiet", "--models",
                        "compliant_point", "--set", "bodies.heavy.mass=8"], cwd=ROOT,
                       capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    # compare says the earlier model's CSV is there and is not this comparison's
    check("exponential_spring.csv from an earlier comparison" in p.stderr, p.stderr)
    panel = [ax for ax in inspect("compare", out) if ax["y"].startswith("normal force")][0]
    lines = {ln["label"]: ln["y"] for ln in panel["lines"]}
    check(sorted(lines) == ["compliant_point: heavy_feet", "compliant_point: light_feet"],
          sorted(lines))
    # the heavy block of this comparison: 8 kg at rest at the end
    check(abs(lines["compliant_point: heavy_feet"][-1] - 8 * 9.81) < 0.01 * 8 * 9.81,
          lines["compliant_point: heavy_feet"][-1])
    # a listed CSV written after compare.json (a later comparison stopped before its tables)
    # is drawn with a warning naming it
    later = os.path.join(out, "compliant_point.csv")
    st = os.stat(os.path.join(out, "compare.json"))
    os.utime(later, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    p = subprocess.run([PYTHON, "tools/plot.py", "--compare", out, "-o",
                        os.path.join(out, "later")], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0 and "warning: " + later + " was written after" in p.stderr,
          (p.returncode, p.stderr))
    # without compare.json the directory is not a comparison's: said, nothing drawn
    os.remove(os.path.join(out, "compare.json"))
    p = subprocess.run([PYTHON, "tools/plot.py", "--compare", out, "-o",
                        os.path.join(out, "none")], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode != 0 and "compare.json" in p.stderr and "Traceback" not in p.stderr,
          (p.returncode, p.stderr))


@case
def missing_matplotlib_says_what_to_install():
    d = tempfile.mkdtemp()
    csv_path = os.path.join(d, "run.csv")
    with open(csv_path, "w") as f:
        f.write("t,ke\n0,1\n1,2\n")
    hide = ("import runpy, sys; sys.modules['matplotlib'] = None; "
            "sys.argv = ['plot.py', sys.argv[1], '-y', 'ke']; "
            "runpy.run_path('tools/plot.py', run_name='__main__')")
    p = subprocess.run([PYTHON, "-c", hide, csv_path], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode != 0, "plot.py must fail without matplotlib")
    check("python3-matplotlib" in p.stderr and "Traceback" not in p.stderr, p.stderr)


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


finish()
