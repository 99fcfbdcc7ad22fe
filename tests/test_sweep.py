#!/usr/bin/env python3
"""`contactsim sweep`: the study file's kinds of axes (explicit lists, grids, linear and log
ranges, seeded random samples checked against an independent implementation of the generator and
against the distributions' moments), the results against `compare` run by hand on the same
scene edited to each point, determinism across -j, resume after a killed sweep, failures
recorded without stopping the study, a changed study refused, task ranges and gather with a
missing task, the Slurm batch script (dry run), trajectories, bad input, and the sweep figures of
tools/plot.py. Usage: test_sweep.py PATH/TO/contactsim"""
import csv
import io
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from casekit import case, check, finish, nohup

EXE = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENE = os.path.join(ROOT, "scenes", "bench", "incline_slide.json")
PYTHON = "/usr/bin/python3"  # Debian's, which has matplotlib
# columns that hold times measured on the machine, not results of the study
TIME_COLUMNS = {"cpu_seconds", "cpu_per_sim_second", "run_cpu_seconds", "wall_seconds"}


def run(*args, timeout=300, **kw):
    p = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                       **kw)
    return p.returncode, p.stdout, p.stderr


def write_study(obj, d=None):
    d = d or tempfile.mkdtemp()
    path = os.path.join(d, "study.json")
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
    return path


def plan(study):
    code, out, err = run("sweep", study, "--dry-run")
    check(code == 0, f"dry run: exit {code}: {err}")
    return list(csv.DictReader(io.StringIO(out)))


def table(d):
    with open(os.path.join(d, "results.csv")) as f:
        return list(csv.DictReader(f))


def finished_sweep(study=None):
    """A study (small_study() unless given) swept to the end in a directory of its own: the
    directory, the study file and the sweep's --out."""
    d = tempfile.mkdtemp()
    path = write_study(study or small_study(), d)
    out = os.path.join(d, "out")
    check(run("sweep", path, "--out", out, "-q")[0] == 0, "sweep")
    return d, path, out


def without_times(rows):
    return [{k: v for k, v in r.items() if k not in TIME_COLUMNS} for r in rows]


def small_study(duration=0.1, max_step=None, **extra):
    """12 short runs of the sliding block: 2 friction values x 3 masses x 2 models (runs of
    `duration` simulated seconds, steps of at most `max_step` where given: longer runs)"""
    s = {"scene": SCENE, "models": ["exponential_spring", "compliant_point"],
         "set": {"simulation.duration": duration},
         "parameters": [
             {"key": "contact_models.exponential_spring.mu_static", "values": [0.5, 0.9]},
             {"key": "bodies.block.mass", "range": {"from": 1, "to": 100, "n": 3,
                                                    "scale": "log"}}]}
    if max_step is not None:
        s["set"]["simulation.max_step"] = max_step
    s.update(extra)
    return s


# ---------------------------------------------------------------------------------------------
# the generator, written again here from the published algorithms (splitmix64, xoshiro256**)

M64 = (1 << 64) - 1


class Xoshiro:
    def __init__(self, seed):
        x = seed
        self.s = []
        for _ in range(4):
            x = (x + 0x9e3779b97f4a7c15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
            z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
            self.s.append(z ^ (z >> 31))

    @staticmethod
    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    def next(self):
        s = self.s
        result = (self.rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self.rotl(s[3], 45)
        return result

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53


# ---------------------------------------------------------------------------------------------
# the kinds of axes, through the plan (--dry-run runs nothing)

@case
def grid_is_the_product_of_the_axes():
    study = write_study({
        "scene": SCENE, "models": ["exponential_spring", "compliant_point"], "repeats": 2,
        "parameters": [
            {"key": "bodies.block.mass", "values": [1, 2, 3]},
            {"key": "simulation.rtol", "range": {"from": 1e-6, "to": 1e-3, "n": 4}},
            {"keys": ["simulation.integrator", "contact_models.compliant_point.mu_static"],
             "values": [["bdf", 0.5], ["adams", 0.7]]}]})
    rows = plan(study)
    check(len(rows) == 3 * 4 * 2 * 2 * 2, f"{len(rows)} runs, expected 96")
    check([int(r["index"]) for r in rows] == list(range(96)), "indices 0..95 in order")
    # every combination once per model and repeat
    combos = {(r["bodies.block.mass"], r["simulation.rtol"], r["simulation.integrator"],
               r["contact_models.compliant_point.mu_static"], r["model"], r["repeat"])
              for r in rows}
    check(len(combos) == 96, f"{len(combos)} distinct runs")
    # the keys of one "keys" axis vary together; the first axis varies slowest
    check(all((r["simulation.integrator"], r["contact_models.compliant_point.mu_static"])
              in (("bdf", "0.5"), ("adams", "0.7")) for r in rows), "zipped keys stay paired")
    check([r["bodies.block.mass"] for r in rows[:32]] == ["1"] * 32, "first axis slowest")
    check(rows[0]["model"] == "exponential_spring" and rows[2]["model"] == "compliant_point"
          and rows[1]["repeat"] == "1", "model, then repeat, vary fastest")
    # (the range gives no scale: linear is the default)
    rtol = sorted({float(r["simulation.rtol"]) for r in rows})
    steps = [b - a for a, b in zip(rtol, rtol[1:])]
    check(rtol[0] == 1e-6 and rtol[-1] == 1e-3, f"linear range ends {rtol}")
    check(max(steps) - min(steps) < 1e-15, f"equal linear steps {steps}")


@case
def log_range_endpoints_and_ratios():
    study = write_study({"scene": SCENE, "models": ["compliant_point"], "parameters": [
        {"key": "contact_models.compliant_point.penalty_stiffness",
         "range": {"from": 1e3, "to": 1e9, "n": 7, "scale": "log"}}]})
    rows = plan(study)
    k = [float(r["contact_models.compliant_point.penalty_stiffness"]) for r in rows]
    check(len(k) == 7 and k[0] == 1e3 and k[-1] == 1e9, f"endpoints exact: {k}")
    for i, x in enumerate(k):
        check(abs(x / 10 ** (3 + i) - 1) < 1e-12, f"point {i}: {x} is not 1e{3 + i}")


@case
def linear_range_whose_span_overflows():
    # every point of -1e308 .. 1e308 is finite, though the span is not: the range was refused
    # as overflowing
    study = write_study({"scene": SCENE, "models": ["compliant_point"], "parameters": [
        {"key": "bodies.block.mass", "range": {"from": -1e308, "to": 1e308, "n": 5}}]})
    rows = plan(study)
    m = [float(r["bodies.block.mass"]) for r in rows]
    check(m == [-1e308, -5e307, 0.0, 5e307, 1e308], f"points: {m}")


@case
def a_scene_named_dash_is_a_file_next_to_the_study():
    # "scene": "-" was standard input in a dry run and a file named "-" in a sweep; it is the
    # file next to the study in both
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "study.json"), "w") as f:
        json.dump({"scene": "-"}, f)
    for args in (["--dry-run"], ["--out", "out", "-q"]):
        with open(SCENE) as scene:
            p = subprocess.run([EXE, "sweep", "study.json", *args], stdin=scene, cwd=d,
                               capture_output=True, text=True, timeout=60)
        check(p.returncode == 2 and "cannot open './-'" in p.stderr, f"{args}: {p.stderr}")
    shutil.copy(SCENE, os.path.join(d, "-"))
    p = subprocess.run([EXE, "sweep", "study.json", "--dry-run"], stdin=subprocess.DEVNULL,
                       cwd=d, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and p.stdout.startswith("index,"), p.stderr)


@case
def random_samples_are_the_published_generator():
    # uniform samples: x = min + (max - min) u, u from xoshiro256** seeded by splitmix64
    params = [{"key": "bodies.block.mass", "distribution": "uniform", "min": 2, "max": 5},
              {"key": "simulation.rtol", "distribution": "uniform", "min": -1, "max": 1}]
    study = write_study({"scene": SCENE, "models": ["compliant_point"], "seed": 12345,
                         "parameters": [{"random": {"n": 50, "parameters": params}}]})
    rows = plan(study)
    g = Xoshiro(12345)
    for r in rows:
        a = 2 + (5 - 2) * g.uniform()
        b = -1 + (1 - -1) * g.uniform()
        check(float(r["bodies.block.mass"]) == a and float(r["simulation.rtol"]) == b,
              f"run {r['index']}: {r['bodies.block.mass']}, {r['simulation.rtol']} "
              f"vs {a!r}, {b!r}")
    # the same seed gives the same samples; another seed other samples
    check(plan(study) == rows, "a second expansion differs")
    other = write_study({"scene": SCENE, "models": ["compliant_point"], "seed": 12346,
                         "parameters": [{"random": {"n": 50, "parameters": params}}]})
    check(plan(other)[0]["bodies.block.mass"] != rows[0]["bodies.block.mass"],
          "another seed gives the same samples")


@case
def random_samples_have_the_distributions_moments():
    n = 4000
    U, L, G = ("bodies.block.mass",
               "contact_models.compliant_point.body_material.penalty_stiffness",
               "simulation.rtol")
    study = write_study({"scene": SCENE, "models": ["compliant_point"], "seed": 7,
                         "parameters": [{"random": {"n": n, "parameters": [
                             {"key": U, "distribution": "uniform", "min": 2, "max": 5},
                             {"key": L, "distribution": "log_uniform", "min": 1e-3,
                              "max": 1e3},
                             {"key": G, "distribution": "normal", "mean": 1.5,
                              "std": 0.2}]}}]})
    rows = plan(study)
    check(len(rows) == n, f"{len(rows)} samples")

    def moments(xs):
        m = sum(xs) / len(xs)
        return m, sum((x - m) ** 2 for x in xs) / (len(xs) - 1)

    u = [float(r[U]) for r in rows]
    lg = [math.log(float(r[L])) for r in rows]
    g = [float(r[G]) for r in rows]
    check(min(u) >= 2 and max(u) < 5, "uniform samples outside [min, max)")
    check(min(lg) >= math.log(1e-3) - 1e-12 and max(lg) <= math.log(1e3) + 1e-12,
          "log-uniform samples outside [min, max]")
    # means within 4 standard errors, variances within 10 %
    for name, xs, mean, var in (("uniform", u, 3.5, 9 / 12),
                                ("log of log-uniform", lg, 0.0, (2 * math.log(1e3)) ** 2 / 12),
                                ("normal", g, 1.5, 0.04)):
        m, v = moments(xs)
        check(abs(m - mean) < 4 * math.sqrt(var / n), f"{name}: mean {m} vs {mean}")
        check(abs(v / var - 1) < 0.1, f"{name}: variance {v} vs {var}")
    # the normal's tails: about 95.4 % within two standard deviations
    inside = sum(abs(x - 1.5) < 0.4 for x in g) / n
    check(abs(inside - 0.9545) < 0.015, f"normal: {inside} within 2 std")


@case
def values_are_the_shortest_text_that_reads_back():
    # as the trajectory CSV writes its numbers: subnormals too (5e-324 was written
    # 4.94065645841247e-324, which reads back the same but is not the shortest)
    values = [5e-324, 1e-320, 0.1, 1e300, -0.0, 10.000000000000002, 1e5]
    texts = ["5e-324", "1e-320", "0.1", "1e+300", "-0", "10.000000000000002", "1e+05"]
    study = write_study({"scene": SCENE, "models": ["compliant_point"],
                         "parameters": [{"key": "simulation.duration", "values": values}]})
    rows = plan(study)
    got = [r["simulation.duration"] for r in rows]
    check(got == texts, f"{got}")
    check([float(t) for t in got] == values and math.copysign(1, float(got[4])) == -1,
          "the texts do not read back to the values")



@case
def records_of_earlier_versions_still_count():
    # earlier builds wrote a number with the fewest of 15, 16 or 17 significant digits that
    # read it back (0.0001, 100000), now as the shortest text (1e-04, 1e+05): a study directory
    # made then keeps its records, the rerun runs none of them again and its table writes the
    # values the new way
    study = small_study(parameters=[{"key": "simulation.rtol", "values": [0.0001, 1e-6]},
                                    {"key": "bodies.block.mass", "values": [100000, 2]}])
    d, path, out = finished_sweep(study)
    new_table = table(out)
    runs = os.path.join(out, "runs")
    old = {"1e-04,": "0.0001,", "1e-06,": "9.9999999999999995e-07,", "1e+05,": "100000,"}
    check(repr(1e-6) == "1e-06" and "%.15g" % 1e-6 == "1e-06", "the legacy texts assumed")
    old["1e-06,"] = "1e-06,"  # 15 digits read 1e-6 back: unchanged
    changed = 0
    for name in sorted(os.listdir(runs)):
        p = os.path.join(runs, name)
        with open(p) as f:
            status, identity, row, rest = f.read().split("\n", 3)
        cells = row.split(",")
        # index, point, model, repeat, then the two parameters
        for k in (4, 5):
            text = cells[k] + ","
            cells[k] = old.get(text, text)[:-1]
        if ",".join(cells) != row:
            changed += 1
        with open(p, "w") as f:
            f.write("\n".join([status, identity, ",".join(cells), rest]))
    # 8 runs (2 models), 6 of them with a value whose text changed
    check(len(os.listdir(runs)) == 8 and changed == 6, f"{changed} records rewritten")
    code, _, err = run("sweep", path, "--out", out)
    check(code == 0 and "8 done already" in err, f"exit {code}: {err}")
    check(without_times(table(out)) == without_times(new_table),
          "the table made from the earlier records differs")
    check({r["simulation.rtol"] for r in table(out)} == {"1e-04", "1e-06"}
          and {r["bodies.block.mass"] for r in table(out)} == {"1e+05", "2"}, "the values' text")


@case
def results_json_keeps_the_values_types_the_csv_cannot():
    # a string and a number or array written the same way share their CSV text; results.json
    # keeps them apart, as docs/sweep-format.md says (the number and array fail their runs:
    # a scene's name is a string)
    values = ["1", 1, "-0", -0.0, "[0,0,1]", [0, 0, 1], 'a"b']
    d = tempfile.mkdtemp()
    study = write_study({"scene": SCENE, "models": ["compliant_point"],
                         "set": {"simulation.duration": 0.01},
                         "parameters": [{"key": "name", "values": values}]}, d)
    out = os.path.join(d, "out")
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 1, f"exit {code}: {err}")
    cells = [r["name"] for r in table(out)]
    check(cells == ["1", "1", "-0", "-0", "[0,0,1]", "[0,0,1]", '"a\\"b"'], f"{cells}")
    text = open(os.path.join(out, "results.json")).read()
    for v in ('"1"', "1", '"-0"', "-0", '"[0,0,1]"', "[0,0,1]"):
        check('"parameters": {"name": %s}' % v in text, f"results.json lacks {v}")
    runs = json.loads(text)["runs"]
    check([r["parameters"]["name"] for r in runs] == values, "results.json values")



@case
def a_plan_read_in_part_ends_quietly():
    # `sweep --dry-run | head`: the plan meets a closed pipe; no error message, exit 0
    study = write_study({"scene": SCENE, "parameters": [
        {"key": "bodies.block.mass", "range": {"from": 1, "to": 2, "n": 20000}}]})
    p = subprocess.Popen([EXE, "sweep", study, "--dry-run"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    code = p.wait(timeout=60)
    check(first.startswith("index,point,model,repeat") and code == 0 and err == "",
          f"exit {code}: {err}")



# ---------------------------------------------------------------------------------------------
# running

@case
def results_are_compares_numbers():
    # every run against `compare` on the scene edited to that point by hand
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "out")
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 0, f"exit {code}: {err}")
    rows = table(out)
    check(len(rows) == 12 and all(r["status"] == "ok" for r in rows), "12 ok runs")
    with open(SCENE) as f:
        base = json.load(f)
    for r in (rows[0], rows[7], rows[11]):
        scene = json.loads(json.dumps(base))
        scene["simulation"]["duration"] = 0.1
        scene["contact_models"]["exponential_spring"]["mu_static"] = float(
            r["contact_models.exponential_spring.mu_static"])
        scene["bodies"][0]["mass"] = float(r["bodies.block.mass"])
        path = os.path.join(d, "edited.json")
        with open(path, "w") as f:
            json.dump(scene, f)
        code, cout, err = run("compare", path, "--models", r["model"], "--format", "csv", "-q")
        check(code == 0, f"compare: {err}")
        c = next(csv.DictReader(io.StringIO(cout)))
        for key in ("steps", "rhs_evals", "rhs_total", "max_penetration", "peak_normal_force",
                    "block.px", "block.qz", "sliding_distance", "stuck_drift", "energy_error"):
            check(c[key] == r[key], f"run {r['index']}: {key} {r[key]} vs compare's {c[key]}")
    # the JSON has the same runs, each with compare's entry
    with open(os.path.join(out, "results.json")) as f:
        doc = json.load(f)
    check(len(doc["runs"]) == 12 and doc["summary"]["ok"] == 12, "results.json runs")
    check(doc["runs"][3]["result"]["steps"] == int(rows[3]["steps"]), "JSON steps")
    check(doc["sweep"]["study_hash"].startswith("fnv1a64:") and doc["sweep"]["runs"] == 12,
          "provenance")


@case
def every_free_body_has_its_pose_columns():
    # 70 balls falling from rest, each at its own height: the table has the final pose of every
    # one (the first 64 had columns, and the rest were left out without a word), and each
    # height is the fall's, z0 - g t^2 / 2
    d = tempfile.mkdtemp()
    n, t, g = 70, 0.1, 9.81
    scene = {"name": "balls", "gravity": [0, 0, -g],
             "bodies": [{"name": f"ball{i}", "mass": 1, "inertia": {"sphere": 0.1},
                         "joint": {"type": "free", "q": [1, 0, 0, 0, i, 0, 10 + i]}}
                        for i in range(n)],
             "simulation": {"duration": t, "report_interval": t, "rtol": 1e-10,
                            "atol": 1e-12}}
    with open(os.path.join(d, "balls.json"), "w") as f:
        json.dump(scene, f)
    study = write_study({"scene": "balls.json"}, d)
    out = os.path.join(d, "out")
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 0, f"exit {code}: {err}")
    row = table(out)[0]
    for i in range(n):
        z = row.get(f"ball{i}.pz")
        check(z is not None and abs(float(z) - (10 + i - g * t * t / 2)) < 1e-7,
              f"ball{i}.pz: {z}")
        check(float(row[f"ball{i}.px"]) == i and float(row[f"ball{i}.qw"]) == 1,
              f"ball{i}'s pose")


@case
def the_study_and_the_scene_are_never_the_sweeps_own_files():
    # a scene saved as DIR/results.json was removed by --new and the table written over it; a
    # study named sweep.json swept into its own directory became the manifest
    with open(os.path.join(ROOT, SCENE)) as f:
        scene_text = f.read()
    base = tempfile.mkdtemp()
    cases = []
    # the scene where the table goes
    d = os.path.join(base, "a")
    os.makedirs(d)
    with open(os.path.join(d, "results.json"), "w") as f:
        f.write(scene_text)
    cases.append((write_study(small_study(scene="results.json"), d), d, ["--new"],
                  "scene", "its file"))
    # the study where the manifest goes
    d = os.path.join(base, "b")
    os.makedirs(d)
    study = os.path.join(d, "sweep.json")
    with open(study, "w") as f:
        json.dump(small_study(scene=os.path.join(ROOT, SCENE)), f)
    cases.append((study, d, [], "study", "its file"))
    # the study among the records
    d = os.path.join(base, "c")
    os.makedirs(os.path.join(d, "runs"))
    cases.append((write_study(small_study(scene=os.path.join(ROOT, SCENE)),
                              os.path.join(d, "runs")), d, ["--new"], "study", "in its directory"))
    for study, out, extra, what, where in cases:
        before = {n: open(os.path.join(out, n), "rb").read() for n in os.listdir(out)
                  if os.path.isfile(os.path.join(out, n))}
        code, _, err = run("sweep", study, "--out", out, "-q", *extra)
        check(code == 2 and f"the {what} " in err and where in err and "keep the" in err,
              (study, code, err))
        after = {n: open(os.path.join(out, n), "rb").read() for n in os.listdir(out)
                 if os.path.isfile(os.path.join(out, n))}
        check(after == before, (study, sorted(before), sorted(after)))


@case
def a_scene_removed_or_changed_mid_sweep_stops_it_saying_so():
    # the runs after the scene went were told as failed "(no message recorded)", then as records
    # that are not whole; now the sweep stops with the reason, and once the scene is back a
    # rerun completes the table
    import shutil
    import time
    for how in ("removed", "changed"):
        d = tempfile.mkdtemp()
        scene = os.path.join(d, "pile.json")
        shutil.copy(os.path.join(ROOT, "scenes", "bench", "pile_100.json"), scene)
        study = write_study({"scene": "pile.json", "set": {"simulation.duration": 0.3},
                             "parameters": [{"key": "bodies.b0.mass",
                                             "range": {"from": 1, "to": 10, "n": 10}}]}, d)
        out = os.path.join(d, "out")
        p = subprocess.Popen([EXE, "sweep", study, "--out", out, "-j", "2", "-q"],
                             stderr=subprocess.PIPE, text=True, cwd=ROOT)
        runs = os.path.join(out, "runs")
        deadline = time.monotonic() + 120
        while p.poll() is None and time.monotonic() < deadline and \
                not (os.path.isdir(runs) and any(n.endswith(".rec") for n in os.listdir(runs))):
            time.sleep(0.01)
        saved = open(scene).read()
        if how == "removed":
            os.remove(scene)
        else:
            with open(scene, "a") as f:
                f.write(" ")
        err = p.communicate(timeout=300)[1]
        check(p.poll() is not None and p.returncode == 1, (how, p.returncode, err))
        said = "cannot be read since the sweep started" if how == "removed" \
            else "has changed since the sweep started"
        check(said in err and "no message recorded" not in err and "not a whole record" not in err,
              (how, err))
        with open(scene, "w") as f:
            f.write(saved)
        code, _, err = run("sweep", study, "--out", out, "-q")
        check(code == 0 and [r["status"] for r in table(out)] == ["ok"] * 10, (how, code, err))


@case
def same_table_whatever_the_workers():
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    tables = []
    for j in ("1", "2", "5"):
        out = os.path.join(d, "out" + j)
        code, _, err = run("sweep", study, "--out", out, "-j", j, "-q")
        check(code == 0, f"-j {j}: exit {code}: {err}")
        tables.append(without_times(table(out)))
    check(tables[0] == tables[1] == tables[2], "tables differ between -j 1, 2 and 5")


@case
def progress_bar_only_on_a_terminal():
    import pty
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    master, slave = pty.openpty()
    p = subprocess.Popen([EXE, "sweep", study, "--out", os.path.join(d, "tty"), "-j", "2"],
                         stderr=slave, stdout=subprocess.DEVNULL, cwd=ROOT)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    check(p.wait() == 0, "sweep on a terminal")
    text = data.decode(errors="replace")
    check("0/12 runs" in text and "12/12 runs, 0 failed" in text and "ETA" in text, text)
    code, _, err = run("sweep", study, "--out", os.path.join(d, "pipe"), "-j", "2")
    check(code == 0 and "ETA" not in err and "12 runs: 12 ok" in err, err)


@case
def a_failing_run_is_recorded_and_the_study_goes_on():
    d = tempfile.mkdtemp()
    study = write_study({
        "scene": SCENE, "models": ["compliant_point"], "set": {"simulation.duration": 0.05},
        "parameters": [{"key": "bodies.block.mass", "values": [1, -2, 3]},
                       {"key": "simulation.max_steps", "values": [100000, 3]}]}, d)
    out = os.path.join(d, "out")
    code, _, err = run("sweep", study, "--out", out, "-j", "2")
    check(code == 1, f"exit {code}, expected 1: {err}")
    rows = table(out)
    check(len(rows) == 6, f"{len(rows)} rows")
    status = [r["status"] for r in rows]
    # mass -2 fails at load; 3 steps cannot reach 0.05 s
    check(status == ["ok", "failed", "failed", "failed", "ok", "failed"], f"statuses {status}")
    check("mass" in rows[2]["error"] and "run 2 failed" in err, f"message: {rows[2]['error']}")
    # a run that never started has no outcome: its columns from simulated on are empty
    never = rows[2]
    outcome = list(never)[list(never).index("simulated"):list(never).index("error")]
    check(all(never[k] == "" for k in outcome), f"a run that never started: {never}")
    check("too much work: more than 3 steps since the last report" in rows[1]["error"] and
          float(rows[1]["simulated"]) < 0.05, f"step limit: {rows[1]}")
    check(rows[0]["error"] == "" and float(rows[0]["simulated"]) == 0.05, "ok run")
    # a rerun leaves the failures alone; --retry-failed runs them (and only them) again
    code, _, err = run("sweep", study, "--out", out, "-q")
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(code == 1 and summary["executed"] == 0, f"rerun: {summary}")
    code, _, err = run("sweep", study, "--out", out, "-q", "--retry-failed")
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(code == 1 and summary["executed"] == 4 and summary["failed"] == 4, f"retry: {summary}")
    check(without_times(table(out)) == without_times(rows), "a retried failure changed")


def children_of(pid):
    """The processes whose parent is pid, from /proc/*/stat"""
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.append(int(entry))
    return kids


def running(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@case
def a_killed_worker_fails_only_its_run():
    d = tempfile.mkdtemp()
    # runs of about 0.3 s (the scene's own steps take a few milliseconds: run 0 could end
    # before the poll below saw it)
    s = small_study(duration=3.0, max_step=5e-5)
    study = write_study(s, d)
    out = os.path.join(d, "out")
    p = subprocess.Popen([EXE, "sweep", study, "--out", out, "-j", "1", "-q", "--trajectories"],
                         cwd=ROOT, stderr=subprocess.PIPE, text=True)
    # the worker (the sweep's only child) once it has run 0 in hand: the run's trajectory is
    # open under its temporary name
    victim = None
    t0 = time.time()
    traj = os.path.join(out, "trajectories")
    while victim is None and time.time() - t0 < 30:
        started = os.path.isdir(traj) and any(f.startswith(".00000000.csv")
                                              for f in os.listdir(traj))
        kids = children_of(p.pid)
        victim = kids[0] if kids and started else None
    check(victim is not None, "no worker process seen")
    os.kill(victim, signal.SIGKILL)
    _, err = p.communicate(timeout=120)
    check(p.returncode == 1, f"exit {p.returncode}: {err}")
    rows = table(out)
    bad = [r for r in rows if r["status"] != "ok"]
    check(len(bad) == 1 and bad[0]["index"] == "0" and "signal 9" in bad[0]["error"],
          f"failed runs: {bad}")
    check(len(rows) == 12, "the other runs went on")


def slow_sweep_started(records, preexec_fn=None):
    """A sweep of small_study()'s 12 runs of about 0.1 s each (so that a signal comes while runs
    are in progress: at the scene's own steps the whole sweep could end between two polls), on
    two workers, once `records` of them are recorded: the study, DIR and the process"""
    d = tempfile.mkdtemp()
    s = small_study(duration=1.0, max_step=5e-5)
    study = write_study(s, d)
    out = os.path.join(d, "out")
    runs = os.path.join(out, "runs")
    p = subprocess.Popen([EXE, "sweep", study, "--out", out, "-j", "2"], cwd=ROOT,
                         stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn)
    t0 = time.time()
    while time.time() - t0 < 60:
        if os.path.isdir(runs) and len(os.listdir(runs)) >= records:
            break
        time.sleep(0.005)
    return study, out, p


@case
def a_stop_signal_leaves_interrupted_runs_to_the_rerun():
    study, out, p = slow_sweep_started(3)
    runs = os.path.join(out, "runs")
    # SIGINT to the sweep alone (not its process group): it stops its workers itself
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    check(p.returncode == 130 and "SIGINT" in err and "run the same command again" in err,
          f"exit {p.returncode}: {err}")
    recs = [f for f in os.listdir(runs) if f.endswith(".rec")]
    texts = [open(os.path.join(runs, f)).read() for f in recs]
    check(all(t.startswith("ok\n") for t in texts), "an interrupted run was recorded as failed")
    check(not os.path.exists(os.path.join(out, "results.csv")), "tables of a stopped sweep")
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 0, err)
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(summary["reused"] == len(recs) and summary["ok"] == 12, f"{summary}")


@case
def a_sweep_killed_outright_takes_its_workers_along():
    # kill -9 of the sweep left its workers running their runs to the end, holding DIR's lock:
    # a rerun was refused as "another sweep is running" all that while. Runs of a minute each:
    # the workers must stop within seconds, not end their runs. Also for a sweep started with
    # SIGTERM ignored (which its workers keep ignoring)
    import fcntl
    for ignore_term in (False, True):
        d = tempfile.mkdtemp()
        s = small_study(duration=60.0, max_step=1e-5)
        study = write_study(s, d)
        out = os.path.join(d, "out")

        def start():
            if ignore_term:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # (standard error not a pipe: a worker whose stderr reader is gone ends on its next
        # message)
        p = subprocess.Popen([EXE, "sweep", study, "--out", out, "-j", "2", "-q"], cwd=ROOT,
                             stderr=subprocess.DEVNULL, preexec_fn=start)
        workers = []
        t0 = time.time()
        while time.time() - t0 < 30 and len(workers) < 2:
            workers = children_of(p.pid)
            time.sleep(0.01)
        check(len(workers) == 2, f"workers: {workers}")
        time.sleep(0.5)
        # the lock is the sweep's alone: a worker holding a copy of it kept it locked after the
        # sweep was killed until the worker had ended, and a rerun started at once was refused
        # as "another sweep is running"
        lock_path = os.path.realpath(os.path.join(out, ".lock"))
        for w in workers:
            fds = os.path.join("/proc", str(w), "fd")
            held = [os.readlink(os.path.join(fds, n)) for n in os.listdir(fds)]
            check(lock_path not in held, f"worker {w} holds {lock_path}")
        p.kill()
        p.wait(timeout=60)
        t0 = time.time()
        while time.time() - t0 < 5 and any(running(w) for w in workers):
            time.sleep(0.01)
        alive = [w for w in workers if running(w)]
        for w in alive:
            os.kill(w, signal.SIGKILL)
        check(not alive, f"workers still running 5 s after the sweep was killed "
              f"(SIGTERM ignored: {ignore_term}): {alive}")
        # and the directory is free for the rerun at once: its lock can be taken
        with open(os.path.join(out, ".lock")) as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                free = True
            except OSError:
                free = False
        check(free, "DIR/.lock is still held")


@case
def a_stop_signal_while_the_records_are_looked_for_stops_cleanly():
    # a study of 400,000 runs: the look for their records takes a second or more before any
    # run starts, and a SIGTERM then killed the sweep outright, with no word
    d = tempfile.mkdtemp()
    study = write_study({"scene": SCENE, "models": ["exponential_spring"], "parameters": [
        {"key": "bodies.block.mass", "range": {"from": 1, "to": 2, "n": 400000}}]}, d)
    out = os.path.join(d, "out")
    p = subprocess.Popen([EXE, "sweep", study, "--out", out], cwd=ROOT, stderr=subprocess.PIPE,
                         text=True)
    line = p.stderr.readline()
    check("looking for the records of 400000 runs" in line, line)
    p.send_signal(signal.SIGTERM)
    err = line + p.stderr.read()
    p.wait(timeout=60)
    check(p.returncode == 143 and "SIGTERM: stopped before any run started" in err,
          f"exit {p.returncode}: {err}")
    check(not os.path.isdir(os.path.join(out, "runs")) or
          not os.listdir(os.path.join(out, "runs")), "runs were recorded")


@case
def a_signal_ignored_at_start_stays_ignored():
    """A sweep started under nohup (SIGHUP ignored) goes on through a hangup, its workers too,
    and ends with every run recorded"""
    _, out, p = slow_sweep_started(2, nohup(own_group=True))
    # (a hangup held off while the tables are written is the gather case's, below)
    os.killpg(p.pid, signal.SIGHUP)
    _, err = p.communicate(timeout=300)
    check(p.returncode == 0, f"exit {p.returncode}: {err}")
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(summary["ok"] == 12, f"{summary}")


def lock_released(out, limit=10.0):
    """wait until no process holds DIR/.lock (a killed worker exits a moment after the signal)"""
    import fcntl

    t0 = time.time()
    with open(os.path.join(out, ".lock")) as f:
        while time.time() - t0 < limit:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(f, fcntl.LOCK_UN)
                return
            except BlockingIOError:
                time.sleep(0.01)
    raise AssertionError(f"{out}/.lock still held {limit} s after the kill")


@case
def resume_runs_only_what_is_missing():
    d = tempfile.mkdtemp()
    # about 0.1 s a run (20,000 steps), so that the poll below sees the first five records
    # long before the last: at the scene's own steps a run took 2 ms, and a loaded machine let
    # the whole sweep finish between two polls
    s = small_study(duration=1.0, max_step=5e-5)
    s["parameters"][0]["values"] = [0.5, 0.6, 0.7, 0.9]
    study = write_study(s, d)          # 24 runs
    out = os.path.join(d, "out")
    runs = os.path.join(out, "runs")
    p = subprocess.Popen([EXE, "sweep", study, "--out", out, "-j", "1", "-q"], cwd=ROOT,
                         start_new_session=True, stderr=subprocess.DEVNULL)
    # kill the sweep and its worker once some runs are recorded
    t0 = time.time()
    while time.time() - t0 < 60:
        done = [f for f in os.listdir(runs) if f.endswith(".rec")] if os.path.isdir(runs) else []
        if len(done) >= 5:
            break
        time.sleep(0.01)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    # its worker too has exited (it shares the directory's lock until it does)
    lock_released(out)
    before = {f: open(os.path.join(runs, f)).read() for f in os.listdir(runs)
              if f.endswith(".rec")}
    check(5 <= len(before) < 24, f"{len(before)} runs recorded before the kill")
    check(not os.path.exists(os.path.join(out, "results.csv")), "results of a killed sweep")
    code, _, err = run("sweep", study, "--out", out, "-j", "2", "-q")
    check(code == 0, f"rerun: exit {code}: {err}")
    with open(os.path.join(out, "results.json")) as f:
        doc = json.load(f)
    check(doc["summary"]["executed"] == 24 - len(before) and
          doc["summary"]["reused"] == len(before),
          f"executed {doc['summary']['executed']}, reused {doc['summary']['reused']}, "
          f"{len(before)} were done")
    # the records from before are untouched (same worker pid, same bytes)
    for f, text in before.items():
        check(open(os.path.join(runs, f)).read() == text, f"{f} was run again")
    # and the table is the one an uninterrupted sweep gives
    clean = os.path.join(d, "clean")
    code, _, err = run("sweep", study, "--out", clean, "-q")
    check(code == 0, err)
    check(without_times(table(out)) == without_times(table(clean)), "resumed table differs")
    # a third run has nothing to do
    code, _, err = run("sweep", study, "--out", out)
    check(code == 0 and "0 to run, 24 done already" in err, err)


@case
def a_changed_study_is_refused():
    d, study, out = finished_sweep()
    s = small_study()
    s["parameters"][0]["values"] = [0.5, 0.8]
    write_study(s, d)
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 2 and "study file has changed" in err and "--new" in err, f"{code}: {err}")
    # a gather, which takes no --new, says what it can do (it said "Use --new")
    code, _, err = run("sweep", "--gather", out)
    check(code == 2 and "study file has changed" in err and "Use --new" not in err and
          "back as they were to gather these records" in err, f"{code}: {err}")
    # another study file given for the directory: the directory is said to be that study's
    other = os.path.join(d, "other")
    os.mkdir(other)
    s3 = small_study()
    s3["parameters"][0]["values"] = [0.5, 0.7]
    study3 = write_study(s3, other)
    code, _, err = run("sweep", study3, "--out", out, "-q")
    check(code == 2 and f"belongs to another study file, {os.path.realpath(study)}" in err and
          "has changed" not in err and "--new" in err, f"{code}: {err}")
    # a study moved with its directory and then edited is the same study changed: the file the
    # manifest names is gone, and the message does not name it
    moved = d + "-moved"
    shutil.move(d, moved)
    s["parameters"][0]["values"] = [0.5, 0.6]
    moved_study = write_study(s, moved)
    code, _, err = run("sweep", moved_study, "--out", os.path.join(moved, "out"), "-q")
    check(code == 2 and "study file has changed" in err and "belongs to" not in err,
          f"{code}: {err}")
    shutil.move(moved, d)
    s["parameters"][0]["values"] = [0.5, 0.8]
    write_study(s, d)
    # a changed scene too
    scene = json.load(open(SCENE))
    scene["name"] = "incline_slide_copy"
    scene_path = os.path.join(d, "scene.json")
    json.dump(scene, open(scene_path, "w"))
    s2 = small_study(scene="scene.json")   # relative to the study's folder
    sub = os.path.join(d, "b")
    os.mkdir(sub)
    os.rename(scene_path, os.path.join(sub, "scene.json"))
    study2 = write_study(s2, sub)
    out2 = os.path.join(d, "out2")
    check(run("sweep", study2, "--out", out2, "-q")[0] == 0, "sweep of the copy")
    scene["gravity"] = [0, 0, -9.8]
    json.dump(scene, open(os.path.join(sub, "scene.json"), "w"))
    code, _, err = run("sweep", study2, "--out", out2, "-q")
    check(code == 2 and "scene file has changed" in err, f"{code}: {err}")
    # --new starts over
    code, _, err = run("sweep", study, "--out", out, "--new", "-q")
    check(code == 0, f"--new: {err}")
    rows = table(out)
    check({r["contact_models.exponential_spring.mu_static"] for r in rows} == {"0.5", "0.8"},
          "--new did not run the new study")


@case
def task_ranges_and_gather_with_a_missing_task():
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "out")
    for r in ("0:4", "8:100"):
        code, _, err = run("sweep", study, "--out", out, "--task-range", r, "-q")
        check(code == 0, f"--task-range {r}: {err}")
    check(not os.path.exists(os.path.join(out, "results.csv")),
          "results written before every task ran")
    # a range with no run of the study runs nothing and says so (it said "runs 12 to 11")
    for r, said in (("50:60", "this task: no runs (--task-range 50:60 starts past the last "
                              "run, 11)"),
                    ("3:3", "this task: no runs (--task-range 3:3 is empty)")):
        code, _, err = run("sweep", study, "--out", out, "--task-range", r)
        check(code == 0 and said in err and "0 to run" in err, f"--task-range {r}: {err}")
    code, _, err = run("sweep", "--gather", out)
    check(code == 1 and "4 of 12 runs are missing: 4-7" in err, f"gather: {code}: {err}")
    rows = table(out)
    check([r["status"] for r in rows[4:8]] == ["missing"] * 4 and rows[3]["status"] == "ok",
          "missing rows")
    check(rows[5]["bodies.block.mass"] != "", "a missing row keeps its parameters")
    # the last task completes the set and merges by itself: it ran 4 runs and took the other
    # tasks' 8 records
    # (with an end beyond a 64-bit index, clamped to the runs as any end past them; it was
    # refused as not A <= B; and A <= B judged on the digits: two such indices, B < A, are
    # refused)
    code, _, err = run("sweep", study, "--out", out, "--task-range",
                       "18446744073709551617:18446744073709551616", "-q")
    check(code == 2 and "0 <= A <= B" in err, f"{code}: {err}")
    code, _, err = run("sweep", study, "--out", out, "--task-range", "4:18446744073709551616",
                       "-q")
    check(code == 0, err)
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(summary["executed"] == 4 and summary["reused"] == 8 and summary["missing"] == 0,
          f"{summary}")
    clean = os.path.join(d, "clean")
    check(run("sweep", study, "--out", clean, "-q")[0] == 0, "clean sweep")
    check(without_times(table(out)) == without_times(table(clean)), "gathered table differs")
    code, _, err = run("sweep", "--gather", out)
    check(code == 0 and "12 ok, 0 failed, 0 missing" in err, err)


@case
def the_documented_xargs_recipe():
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "out")
    # docs/sweep-format.md, with 5 runs per job
    script = (f"n=$('{EXE}' sweep '{study}' --dry-run | tail -n +2 | wc -l)\n"
              f"seq 0 5 $((n - 1)) | xargs -P 2 -I{{}} \\\n"
              f"  sh -c '\"{EXE}\" sweep {study} --out {out} --task-range {{}}:$(({{}} + 5)) "
              f"-j 1 -q'\n"
              f"'{EXE}' sweep --gather '{out}'\n")
    p = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and "12 ok, 0 failed, 0 missing" in p.stderr, p.stderr)
    clean = os.path.join(d, "clean")
    check(run("sweep", study, "--out", clean, "-q")[0] == 0, "clean sweep")
    check(without_times(table(out)) == without_times(table(clean)), "xargs table differs")


@case
def slurm_dry_run_writes_the_batch_script():
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "out")
    code, _, err = run("sweep", study, "--out", out, "--slurm", "--runs-per-task", "5",
                       "--slurm-opt=--partition=debug", "--dry-run")
    check(code == 0, err)
    script = open(os.path.join(out, "slurm", "sweep.sbatch")).read()
    check("--array=0-2" in err and "--partition=debug" in err, err)
    check("R=5\nN=12\n" in script and "--task-range \"$A:$B\"" in script, script)
    # run the script's ranges by hand, as array tasks would, and compare with a local sweep
    for t in range(3):
        env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(t))
        p = subprocess.run(["sh", os.path.join(out, "slurm", "sweep.sbatch")], env=env,
                           capture_output=True, text=True)
        check(p.returncode == 0, p.stderr)
    clean = os.path.join(d, "clean")
    check(run("sweep", study, "--out", clean, "-q")[0] == 0, "clean sweep")
    check(without_times(table(out)) == without_times(table(clean)), "task table differs")
    # nothing left to submit
    code, _, err = run("sweep", study, "--out", out, "--slurm", "--dry-run")
    check(code == 0 and "nothing to submit" in err, err)
    # a dry run ties no directory to the study: edited after one, the study is taken (it was
    # refused as another study's, the dry run having written the manifest)
    fresh = os.path.join(d, "fresh")
    check(run("sweep", study, "--out", fresh, "--slurm", "--dry-run")[0] == 0, "dry run")
    check(sorted(os.listdir(fresh)) == ["slurm"], os.listdir(fresh))
    with open(study, "a") as f:
        f.write("\n")
    code, _, err = run("sweep", study, "--out", fresh, "--slurm", "--dry-run")
    check(code == 0, (code, err))


@case
def control_characters_of_a_directory_reach_no_terminal():
    # a directory named with an escape sequence or a tab was printed raw in the dry run's and the
    # tables' lines (the first could recolour the terminal); now as escapes, as elsewhere
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "esc\x1b[31mred\tx")
    for args in (["--slurm", "--dry-run"], ["-j", "2"], ["--gather"]):
        cmd = ["sweep", study, "--out", out, *args] if args != ["--gather"] else \
            ["sweep", "--gather", out]
        code, _, err = run(*cmd)
        check(code in (0, 1) and "\x1b" not in err and "\t" not in err and "\\x1b[31mred\\tx" in err,
              (args, code, err))


@case
def slurm_refuses_what_the_tasks_would_ignore_or_break():
    # -j was accepted and ignored (a task's workers are its CPUs); an --array of the user's
    # replaced the sweep's and ran tasks past the last run, which failed
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "out")
    for args, said in ((["-j", "2"], "--cpus-per-task"),
                       (["--slurm-opt=--array=0-50"], "makes the job array itself"),
                       (["--slurm-opt", "-a0-3"], "makes the job array itself"),
                       # sbatch's abbreviations and short options bundled before -a (--hold)
                       # set the array too, silently replacing the sweep's
                       (["--slurm-opt=--arr=0-1"], "makes the job array itself"),
                       (["--slurm-opt", "--ar"], "makes the job array itself"),
                       (["--slurm-opt=-Ha0-1"], "makes the job array itself"),
                       (["--slurm-opt=-vHa", "--slurm-opt=0-1"], "makes the job array itself")):
        code, _, err = run("sweep", study, "--out", out, "--slurm", "--dry-run", *args)
        check(code == 2 and said in err and not os.path.exists(out), (args, code, err))
    # options that only look alike are passed on: a job name with an a in it, --account
    for args in (["--slurm-opt=-Jab"], ["--slurm-opt=--account=lab"], ["--slurm-opt=-H"]):
        code, _, err = run("sweep", study, "--out", out, "--slurm", "--dry-run", *args)
        check(code == 0, (args, code, err))


@case
def slurm_output_under_a_backslash_is_refused():
    """Slurm drops a backslash in #SBATCH --output and then leaves %A and %a unreplaced: every
    task failed to start, silently; such a directory is refused before anything is written"""
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "a\\b")
    code, _, err = run("sweep", study, "--out", out, "--slurm", "--dry-run")
    check(code == 2 and "backslash" in err and "another --out directory" in err, (code, err))
    check(not os.path.exists(out), "the refused directory was made (a manifest, runs/, .lock)")


def hangup_behind_the_tables_lock(out, args, ready):
    """`contactsim sweep ARGS` started under nohup while this process holds OUT/.tables.lock; once
    ready() and a moment more, it must still be waiting for the lock: then a hangup, then the
    lock released. Its exit status and standard error."""
    import fcntl
    with open(os.path.join(out, ".tables.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = subprocess.Popen([EXE, "sweep", *args], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                             preexec_fn=nohup())
        try:
            t0 = time.time()
            while time.time() - t0 < 60 and not ready():
                time.sleep(0.01)
            time.sleep(0.3)
            check(p.poll() is None, "the sweep did not wait for the tables' lock")
            p.send_signal(signal.SIGHUP)
            time.sleep(0.1)
            fcntl.flock(lock, fcntl.LOCK_UN)
            _, err = p.communicate(timeout=60)
        finally:
            p.kill()
    return p.returncode, err


@case
def gather_and_tasks_merge_in_turn():
    """Reading the records and renaming the tables is one step under DIR/.tables.lock: a gather
    waits while another writer (an array task) holds it, so that it cannot put tables read
    before the task's last record over the task's complete ones"""
    _, _, out = finished_sweep()
    # under nohup: a hangup meanwhile is ignored. (The stop signals are held off while the
    # tables are written; an ignored one held off stayed pending and stopped the gather.)
    code, err = hangup_behind_the_tables_lock(out, ["--gather", out], lambda: True)
    check(code == 0 and "12 ok" in err, (code, err))
    # a sweep whose runs are over waits for the lock too, with its stop signals held off: a
    # hangup ignored under nohup must not be held off with them (it stayed pending, and stopped
    # the sweep once the tables were written)
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "out")
    os.mkdir(out)
    runs = os.path.join(out, "runs")
    code, err = hangup_behind_the_tables_lock(
        out, [study, "--out", out, "-j", "1"],
        lambda: os.path.isdir(runs) and sum(f.endswith(".rec") for f in os.listdir(runs)) == 12)
    check(code == 0 and os.path.exists(os.path.join(out, "results.csv")), (code, err))


@case
def trajectories_on_request():
    s = small_study()
    s["parameters"] = s["parameters"][:1]
    d, study, out = finished_sweep(s)
    check(not os.path.exists(os.path.join(out, "trajectories")), "trajectories unasked")
    out = os.path.join(d, "out2")
    check(run("sweep", study, "--out", out, "--trajectories", "-q")[0] == 0, "sweep")
    files = sorted(os.listdir(os.path.join(out, "trajectories")))
    check(files == [f"{i:08d}.csv" for i in range(4)], f"{files}")
    rows = list(csv.DictReader(open(os.path.join(out, "trajectories", files[3]))))
    check(abs(float(rows[-1]["t"]) - 0.1) < 1e-12 and "block.px" in rows[0], "trajectory CSV")


@case
def bad_studies_exit_2_naming_the_path():
    d = tempfile.mkdtemp()
    cases = [
        ({"scene": SCENE, "parameters": [{"key": "a", "range": {"from": 0, "to": 1, "n": 3,
                                                               "scale": "cubic"}}]},
         "parameters[0].range.scale"),
        ({"scene": SCENE, "parameters": [{"key": "a", "range": {"from": 0, "to": 1, "n": 3,
                                                               "scale": "log"}}]},
         "parameters[0].range"),
        ({"scene": SCENE, "parameters": [{"key": "a", "values": []}]}, "parameters[0].values"),
        ({"scene": SCENE, "parameters": [{"key": "a", "values": [1]},
                                         {"key": "a", "values": [2]}]}, "parameters[1].key"),
        ({"scene": SCENE, "seed": 1.5}, "seed"),
        # above 2^53 - 1 a seed is read rounded (9007199254740993 as 2^53): another seed
        ({"scene": SCENE, "seed": 9007199254740993}, "seed"),
        ({"scene": SCENE, "parameters": [{"random": {"n": 3, "parameters": [
            {"key": "a", "distribution": "normal", "mean": 0, "max": 1}]}}]},
         "parameters[0].random.parameters[0].max"),
        ({"scene": SCENE, "models": ["no_such_model"]}, "models[0]"),
        ({"scene": "missing.json"}, "study.json: scene: the study's scene"),
        ({"scene": SCENE, "paramters": []}, "paramters"),
        ({"scene": SCENE, "description": 5}, "study.json: description: expected a string"),
        ({"scene": SCENE, "description": {"text": "x"}}, "study.json: description:"),
        ({"scene": SCENE, "parameters": [{"key": "bodies.blok.mass", "values": [1]}]},
         "parameter 'bodies.blok.mass': the scene has no body named 'blok'"),
        # one scene value varied or set under two spellings
        ({"scene": SCENE, "set": {"bodies[0].mass": 1}, "parameters": [
            {"key": "bodies.block.mass", "values": [1, 2]}]},
         "parameters[0].key: parameter 'bodies.block.mass': sets bodies[0].mass, and "
         "'bodies[0].mass' sets bodies[0].mass"),
        ({"scene": SCENE, "parameters": [{"keys": ["bodies.block.mass", "bodies[0].mass"],
                                          "values": [[1, 2]]}]}, "parameters[0].keys[1]"),
        # an object varied over a member set before it: the member's value would be lost
        ({"scene": SCENE, "set": {"contact_models.exponential_spring.mu_static": 0.6},
          "parameters": [{"key": "contact_models.exponential_spring",
                          "values": [{"mu_static": 0.5, "mu_dynamic": 0.4}]}]},
         "sets contact_models.exponential_spring, and "
         "'contact_models.exponential_spring.mu_static' sets"),
        # draws that overflow a double where the parameters do not
        ({"scene": SCENE, "seed": 1, "parameters": [{"random": {"n": 50, "parameters": [
            {"key": "bodies.block.mass", "distribution": "normal", "mean": 0, "std": 1e308}]}}]},
         "parameters[0].random.parameters[0]: gives the value"),
    ]
    for obj, where in cases:
        study = write_study(obj, d)
        code, _, err = run("sweep", study, "--out", os.path.join(d, "out"), "-q")
        check(code == 2 and where in err and "error" in err, f"{obj}: exit {code}: {err}")
    with open(os.path.join(d, "study.json"), "w") as f:
        f.write('{"scene": "x",\n "models": [}')
    code, _, err = run("sweep", os.path.join(d, "study.json"), "--out", d)
    check(code == 2 and ":2:" in err, f"malformed: {err}")
    code, _, err = run("sweep", "--gather", d)
    check(code == 2 and "not a sweep directory" in err, err)
    code, _, err = run("sweep", os.path.join(d, "study.json"))
    check(code == 2 and "--out" in err, err)


@case
def plot_sweep_figures():
    d = tempfile.mkdtemp()
    study = write_study({
        "scene": SCENE, "models": ["exponential_spring", "compliant_point"],
        "set": {"simulation.duration": 0.05},
        "parameters": [{"key": "bodies.block.mass", "values": [1, 10, -1]},
                       {"key": "contact_models.compliant_point.penalty_stiffness",
                        "range": {"from": 1e5, "to": 1e7, "n": 3, "scale": "log"}}]}, d)
    out = os.path.join(d, "out")
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 1, f"a failed run must give exit 1: {err}")
    figs = os.path.join(d, "figs")
    p = subprocess.run([PYTHON, "tools/plot.py", "--sweep", out, "--metric", "max_penetration",
                        "-o", figs], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    pngs = sorted(f for f in os.listdir(figs) if f.endswith(".png"))
    check(len(pngs) >= 3, f"figures: {pngs}")
    for f in pngs:
        with open(os.path.join(figs, f), "rb") as g:
            check(g.read(8) == b"\x89PNG\r\n\x1a\n", f"{f} is not a PNG")
    check("failed" in p.stdout, f"the failed runs are reported: {p.stdout}")


@case
def plot_sweep_takes_an_axis_of_several_keys_as_one_parameter():
    # both models' friction set together is one axis: one figure per metric for it, and the
    # heat map over it and the mass; a parameter of lists is named, not dropped unsaid
    d = tempfile.mkdtemp()
    study = write_study({
        "scene": SCENE, "models": ["exponential_spring", "compliant_point"],
        "set": {"simulation.duration": 0.05},
        "parameters": [
            {"keys": ["contact_models.exponential_spring.mu_static",
                      "contact_models.compliant_point.body_material.mu_static"],
             "values": [[0.6, 0.7], [0.9, 1.0]]},
            {"key": "bodies.block.mass", "values": [5, 10]},
            {"key": "gravity", "values": [[0, 0, -9.81], [0, 0, -9.7]]}]}, d)
    out = os.path.join(d, "out")
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 0, err)
    figs = os.path.join(d, "figs")
    p = subprocess.run([PYTHON, "tools/plot.py", "--sweep", out, "--metric", "sliding_distance",
                        "-o", figs], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    pngs = sorted(f for f in os.listdir(figs) if f.endswith(".png"))
    check(pngs == ["sweep_sliding_distance_map.png",
                   "sweep_sliding_distance_vs_bodies.block.mass.png",
                   "sweep_sliding_distance_vs_contact_models.exponential_spring.mu_static.png"],
          pngs)
    check("parameter gravity is not a number" in p.stderr, p.stderr)
    # the axis's keys hold different values (0.6 and 0.7): still one axis, as the study says
    # (each key was an axis of its own, and the map plotted one against the other), and each
    # model's panel of the map shows its own key of it
    probe = ("import sys; sys.path.insert(0, 'tools'); import plot; seen = []\n"
             "plot.save = lambda fig, out, dpi=110: seen.append([(a.get_xlabel(), a.get_ylabel())"
             " for a in fig.axes if a.get_title()])\n"
             "plot.plot_sweep(sys.argv[1], ['sliding_distance'], sys.argv[2], 't')\n"
             "print(seen[-1])")
    p = subprocess.run([PYTHON, "-c", probe, out, figs], cwd=ROOT, capture_output=True, text=True)
    check(p.returncode == 0 and
          "('exponential_spring.mu_static (1) (and 1 more key of its axis)'" not in p.stdout and
          "exponential_spring.mu_static" in p.stdout.split("),")[0] and
          "body_material.mu_static" in p.stdout.split("),")[1] and "block.mass" in p.stdout,
          (p.stdout, p.stderr))


# ---------------------------------------------------------------------------------------------
# hardening: sizes, damaged directories, worker limits, paths

@case
def huge_studies_are_refused_at_once():
    # 1000 x 1000 x 1000 points, and 10^7 x 10^7: refused before any point is computed (each
    # axis of 10^7 points alone took ten seconds and half a gigabyte to expand)
    d = tempfile.mkdtemp()
    rng = {"from": 1, "to": 2, "n": 1000}
    cases = [
        ([{"key": "bodies.block.mass", "range": rng},
          {"key": "simulation.rtol", "range": rng},
          {"random": {"n": 1000, "parameters": [{"key": "simulation.atol",
                                                 "distribution": "uniform", "min": 1,
                                                 "max": 2}]}}], "parameters[2]", 1e9),
        ([{"key": "bodies.block.mass", "range": dict(rng, n=10 ** 7)},
          {"key": "simulation.rtol", "range": dict(rng, n=10 ** 7)}], "parameters[1]", 1e14),
    ]
    for axes, where, runs in cases:
        study = write_study({"scene": SCENE, "models": ["compliant_point"], "parameters": axes},
                            d)
        t0 = time.time()
        code, _, err = run("sweep", study, "--out", os.path.join(d, "out"), timeout=30)
        took = time.time() - t0
        check(code == 2 and where in err and f"{runs:.3g}" in err and "at most 10000000" in err,
              f"exit {code}: {err}")
        check(took < 2, f"refused after {took:.1f} s")
        check(not os.path.exists(os.path.join(d, "out")), "a refused study made its directory")
    # 2500 x 2000 points are allowed, but times the scene's 4 models they are 2 x 10^7 runs
    study = write_study({"scene": SCENE, "parameters": [
        {"key": "bodies.block.mass", "range": dict(rng, n=2500)},
        {"key": "simulation.rtol", "range": dict(rng, n=2000)}]}, d)
    code, _, err = run("sweep", study, "--out", os.path.join(d, "out"), timeout=30)
    check(code == 2 and "20000000 runs" in err and "4 models" in err, f"exit {code}: {err}")


@case
def gather_takes_no_running_options():
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "out")
    check(run("sweep", study, "--out", out, "-q", "--task-range", "0:2")[0] == 0, "task")
    for extra in (["--dry-run"], ["-j", "2"], ["--new"], ["--retry-failed"]):
        code, _, err = run("sweep", "--gather", out, *extra)
        check(code == 2 and "--gather DIR takes no study" in err, f"{extra}: exit {code}: {err}")
    code, _, err = run("sweep", "--gather", out)
    check(code == 1 and "10 of 12 runs are missing" in err, f"plain gather: {code}: {err}")
    # nor does the plan (--dry-run without --slurm), which ignored them unsaid
    for extra in (["--out", out], ["--trajectories"], ["-j", "2"], ["--task-range", "0:2"],
                  ["--new"], ["--retry-failed"]):
        code, stdout, err = run("sweep", study, "--dry-run", *extra)
        check(code == 2 and "--dry-run prints the plan and runs nothing" in err and stdout == "",
              f"{extra}: exit {code}: {err}")


@case
def damaged_records_count_as_missing_and_run_again():
    d, study, out = finished_sweep()
    runs = os.path.join(out, "runs")
    good = {f: open(os.path.join(runs, f)).read() for f in sorted(os.listdir(runs))}
    # an empty file (a node that lost power), one cut in its JSON entry, one without its entry
    open(os.path.join(runs, "00000001.rec"), "w").close()
    text = good["00000004.rec"]
    open(os.path.join(runs, "00000004.rec"), "w").write(text[:len(text) - 40])
    open(os.path.join(runs, "00000007.rec"), "w").write(
        "\n".join(good["00000007.rec"].split("\n")[:2]) + "\n")
    # another run's record under this run's name
    open(os.path.join(runs, "00000009.rec"), "w").write(good["00000008.rec"])
    # a whole record followed by zero bytes (a lost write; read as whole, it counted as ok), and
    # a FIFO (the look for records waited for its writer, deaf to stop signals)
    open(os.path.join(runs, "00000010.rec"), "w").write(good["00000010.rec"] + "\0" * 4096)
    os.remove(os.path.join(runs, "00000011.rec"))
    os.mkfifo(os.path.join(runs, "00000011.rec"))
    code, _, err = run("sweep", "--gather", out, timeout=30)
    check(code == 1 and "6 of 12 runs are missing: 1, 4, 7, 9-11" in err,
          f"gather: {code}: {err}")
    doc = json.load(open(os.path.join(out, "results.json")))   # valid JSON whatever the records
    check([r["index"] for r in doc["runs"] if r["status"] == "missing"] == [1, 4, 7, 9, 10, 11],
          "missing runs in results.json")
    # the rerun runs exactly those, and the table is whole again
    code, _, err = run("sweep", study, "--out", out, "-q", timeout=120)
    check(code == 0, f"rerun: {err}")
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(summary["executed"] == 6 and summary["reused"] == 6 and summary["ok"] == 12,
          f"{summary}")
    clean = os.path.join(d, "clean")
    check(run("sweep", study, "--out", clean, "-q")[0] == 0, "clean sweep")
    check(without_times(table(out)) == without_times(table(clean)), "repaired table differs")


@case
def another_studys_records_are_not_taken():
    # the same run index of another study (other masses): its record copied in counts as
    # missing, as a damaged one does
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    other = small_study()
    other["parameters"][1]["range"] = {"from": 2, "to": 200, "n": 3, "scale": "log"}
    other_dir = os.path.join(d, "other")
    os.mkdir(other_dir)
    other_study = write_study(other, other_dir)
    out, out_other = os.path.join(d, "out"), os.path.join(d, "out_other")
    check(run("sweep", study, "--out", out, "-q")[0] == 0, "sweep")
    check(run("sweep", other_study, "--out", out_other, "-q")[0] == 0, "other sweep")
    rec = "00000005.rec"
    open(os.path.join(out, "runs", rec), "w").write(
        open(os.path.join(out_other, "runs", rec)).read())
    code, _, err = run("sweep", "--gather", out)
    check(code == 1 and "1 of 12 runs are missing: 5" in err, f"gather: {code}: {err}")
    # two studies started on one new directory at the same moment: one of them gets it, the
    # other is refused, and what is there is the first one's alone
    for k in range(4):
        both = os.path.join(d, "both%d" % k)
        ps = [subprocess.Popen([EXE, "sweep", s_, "--out", both, "-q"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for s_ in (study, other_study)]
        results = [(p.wait(timeout=300), p.stderr.read()) for p in ps]
        codes = sorted(c for c, _ in results)
        check(codes == [0, 2], f"round {k}: exits {results}")
        winner = (study, other_study)[[c for c, _ in results].index(0)]
        code, _, err = run("sweep", winner, "--out", both, "-q")
        check(code == 0 and json.load(open(os.path.join(both, "results.json")))["summary"][
            "executed"] == 0, f"round {k}: the winner's rerun: {code}: {err}")


@case
def an_object_set_and_a_member_varied():
    # a member varied on an axis after its object is set in "set" refines it: nothing is lost,
    # and the study runs (the reverse order, an object set over a member, is refused above)
    d = tempfile.mkdtemp()
    s = {"scene": SCENE, "models": ["exponential_spring"],
         "set": {"simulation.duration": 0.1,
                 "contact_models.exponential_spring": {"mu_static": 0.6, "mu_dynamic": 0.4}},
         "parameters": [{"key": "contact_models.exponential_spring.mu_static",
                         "values": [0.5, 0.9]}]}
    study = write_study(s, d)
    code, _, err = run("sweep", study, "--out", os.path.join(d, "out"), "-q")
    check(code == 0, f"{code}: {err}")
    rows = table(os.path.join(d, "out"))
    check([r["contact_models.exponential_spring.mu_static"] for r in rows] == ["0.5", "0.9"],
          f"{rows}")


@case
def a_study_too_large_counts_its_models_truly():
    # refused as the axes are read, before any point is made; a study that lists no models runs
    # the scene's, not known then: the message said "1 models" of a scene with four
    axis = lambda key: {"key": key, "range": {"from": 1, "to": 2, "n": 100000}}
    for models, says in ((None, "times 1 repeats and one model, before the scene's models"),
                         (["exponential_spring", "hunt_crossley"], "times 1 repeats and 2 models")):
        s = {"scene": SCENE, "parameters": [axis("bodies.block.mass"), axis("simulation.rtol")]}
        if models:
            s["models"] = models
        code, _, err = run("sweep", write_study(s), "--dry-run")
        check(code == 2 and "parameters[1]" in err and says in err, f"{code}: {err}")


@case
def a_failure_line_escapes_once():
    # the loader escapes a name's bytes as \xNN in its message; the sweep's failure line keeps
    # that escape as it is, as run prints it, where it escaped its backslash again (\\x09)
    d = tempfile.mkdtemp()
    s = {"scene": os.path.join(ROOT, "scenes", "free_fall.json"),
         "set": {"simulation.duration": 0.01},
         "parameters": [{"key": "bodies.box.name", "values": ["tab\tx"]}]}
    code, _, err = run("sweep", write_study(s, d), "--out", os.path.join(d, "out"), "-q")
    check(code == 1 and "the name 'tab\\x09x' may contain" in err and "\\\\x09" not in err,
          f"{code}: {err}")


@case
def gather_that_cannot_write_counts_nothing():
    d, study, out = finished_sweep()
    os.remove(os.path.join(out, "results.csv"))
    os.mkdir(os.path.join(out, "results.csv"))   # a directory where the table goes
    code, _, err = run("sweep", "--gather", out)
    check(code == 1 and "results.csv" in err and "gathered" not in err, f"{code}: {err}")


@case
def a_moved_study_is_given_again():
    # the study and its directory moved: gather says where the manifest looked and what to run;
    # the sweep command with the study where it is now runs nothing and writes the tables
    import shutil
    d = tempfile.mkdtemp()
    a = os.path.join(d, "a")
    os.mkdir(a)
    study = write_study(small_study(), a)
    check(run("sweep", study, "--out", os.path.join(a, "out"), "-q")[0] == 0, "sweep")
    b = os.path.join(d, "b")
    shutil.move(a, b)
    code, _, err = run("sweep", "--gather", os.path.join(b, "out"))
    check(code == 2 and "which is not there" in err and "contactsim sweep STUDY.json --out" in err,
          f"{code}: {err}")
    code, _, err = run("sweep", os.path.join(b, "study.json"), "--out", os.path.join(b, "out"))
    check(code == 0 and "0 to run, 12 done already" in err, f"{code}: {err}")
    # which puts the study's new place in the manifest: --gather finds it from then on
    code, _, err = run("sweep", "--gather", os.path.join(b, "out"))
    check(code == 0, f"{code}: {err}")


@case
def more_workers_than_open_files_allow():
    import resource

    def few_files():
        resource.setrlimit(resource.RLIMIT_NOFILE, (24, 24))

    d = tempfile.mkdtemp()
    s = small_study()
    s["set"]["simulation.duration"] = 0.01
    s["parameters"][0]["values"] = [0.5, 0.6, 0.7, 0.8, 0.9]   # 30 runs
    study = write_study(s, d)
    out = os.path.join(d, "out")
    # each worker holds two pipe ends in the parent: 30 workers need more than 24 files
    code, _, err = run("sweep", study, "--out", out, "-j", "30", preexec_fn=few_files)
    check(code == 0 and "going on with the" in err, f"exit {code}: {err}")
    # the sweep goes on: a warning, not an error
    check("contactsim: sweep: warning: cannot start another worker (Too many open files)" in err
          and "error:" not in err, err)
    rows = table(out)
    check(len(rows) == 30 and all(r["status"] == "ok" for r in rows), "30 ok runs")


@case
def worker_counts_and_bundle_sizes_are_whole_numbers():
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "out")
    for j in ("0", "-1", "1.5", "1e3", "4097", "x"):
        code, _, err = run("sweep", study, "--out", out, "-j", j, "-q")
        check(code == 2 and err.count("error:") == 1 and f"not '{j}'" in err,
              f"-j {j}: exit {code}: {err}")
    for n in ("0", "1.5", "1e300"):
        code, _, err = run("sweep", study, "--out", out, "--slurm", "--dry-run",
                           "--runs-per-task", n)
        check(code == 2 and "--runs-per-task needs a whole number" in err,
              f"--runs-per-task {n}: exit {code}: {err}")


def sbatch_arguments(line):
    """the arguments of an #SBATCH line as sbatch's script parser splits them: white space
    separates, single or double quotes group, a backslash escapes the next character"""
    args, cur, quote, escape, started = [], "", None, False, False
    for ch in line[len("#SBATCH"):]:
        if escape:
            cur, escape, started = cur + ch, False, True
        elif ch == "\\":
            escape, started = True, True
        elif quote:
            if ch == quote:
                quote = None
            else:
                cur += ch
        elif ch in "\"'":
            quote, started = ch, True
        elif ch.isspace():
            if started:
                args.append(cur)
            cur, started = "", False
        else:
            cur, started = cur + ch, True
    if started:
        args.append(cur)
    return args


@case
def slurm_script_with_spaces_and_percent_in_paths():
    base = tempfile.mkdtemp()
    d = os.path.join(base, "my studies 100%", "ü 'x'")
    os.makedirs(d)
    study = write_study(small_study(), d)
    out = os.path.join(d, "out dir")
    code, _, err = run("sweep", study, "--out", out, "--slurm", "--runs-per-task", "5",
                       "--dry-run", "--slurm-opt=--comment=a b")
    check(code == 0, err)
    # the sbatch command printed is one a shell reads back as the arguments it has
    import shlex
    command = [ln.strip() for ln in err.split("\n") if ln.strip().startswith("sbatch ")]
    check(len(command) == 1 and shlex.split(command[0]) ==
          ["sbatch", "--parsable", "--array=0-2", "--comment=a b",
           os.path.join(out, "slurm", "sweep.sbatch")], err)
    script = open(os.path.join(out, "slurm", "sweep.sbatch")).read()
    lines = [ln for ln in script.split("\n") if ln.startswith("#SBATCH --output")]
    check(len(lines) == 1, script)
    # Slurm replaces %A and %a in the file name, and %% by a literal %
    args = sbatch_arguments(lines[0])
    want = ("--output=" + os.path.realpath(out).replace("%", "%%") +
            "/slurm/task-%A_%a.out")
    check(args == [want], f"sbatch reads {args}, expected [{want!r}]")
    # and the script's command runs the bundles from that directory
    env = dict(os.environ, SLURM_ARRAY_TASK_ID="2")
    p = subprocess.run(["sh", os.path.join(out, "slurm", "sweep.sbatch")], env=env,
                       capture_output=True, text=True)
    check(p.returncode == 0 and sorted(os.listdir(os.path.join(out, "runs"))) ==
          ["00000010.rec", "00000011.rec"], p.stderr)
    # a line break in a path would end the #SBATCH line and turn the rest into a command
    nl = os.path.join(base, "a\nb")
    os.makedirs(nl)
    code, _, err = run("sweep", write_study(small_study(), nl), "--out",
                       os.path.join(nl, "out"), "--slurm", "--dry-run")
    check(code == 2 and "line break" in err, f"exit {code}: {err}")
    check(not os.path.exists(os.path.join(nl, "out")), "the refused directory was made")


@case
def stopped_and_killed_workers_leave_no_temporary_files():
    d = tempfile.mkdtemp()
    s = small_study(duration=40.0, max_step=1e-4)  # runs of seconds: two surely in progress
    study = write_study(s, d)
    out = os.path.join(d, "out")
    runs, traj = os.path.join(out, "runs"), os.path.join(out, "trajectories")
    p = subprocess.Popen([EXE, "sweep", study, "--out", out, "-j", "2", "-q", "--trajectories"],
                         cwd=ROOT, stderr=subprocess.PIPE, text=True)
    # wait for two runs in progress (their trajectories open under temporary names)
    t0 = time.time()
    while time.time() - t0 < 60:
        if os.path.isdir(traj) and sum(".tmp" in f for f in os.listdir(traj)) >= 2:
            break
        time.sleep(0.005)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    check(p.returncode == 143 and "2 interrupted" in err, f"exit {p.returncode}: {err}")
    left = [f for f in os.listdir(traj) + os.listdir(runs) if ".tmp" in f]
    check(left == [], f"temporary files left: {left}")


@case
def a_directory_of_other_results_is_not_overwritten():
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    # someone's results.csv in a directory that is no sweep's
    other = os.path.join(d, "other")
    os.mkdir(other)
    open(os.path.join(other, "results.csv"), "w").write("mine\n")
    code, _, err = run("sweep", study, "--out", other, "-q")
    check(code == 2 and "no manifest" in err, f"exit {code}: {err}")
    check(open(os.path.join(other, "results.csv")).read() == "mine\n", "results.csv replaced")
    # records whose manifest is lost: their study is unknown, so they are not reused
    out = os.path.join(d, "out")
    check(run("sweep", study, "--out", out, "-q", "--task-range", "0:6")[0] == 0, "task")
    os.remove(os.path.join(out, "sweep.json"))
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 2 and "records in runs/" in err and "--new" in err, f"exit {code}: {err}")
    code, _, err = run("sweep", study, "--out", out, "-q", "--new")
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(code == 0 and summary["executed"] == 12, f"--new: {code}: {err} {summary}")
    # a file, not a directory
    code, _, err = run("sweep", study, "--out", study, "-q")
    check(code == 2 and "Not a directory" in err, f"exit {code}: {err}")


@case
def records_of_another_study_or_scene_count_as_missing():
    # Two studies that differ only in "set" give the same rows (index, point, model, values): a
    # record copied from one to the other was taken as the other's, with the other duration.
    # Records now carry the hashes of the study and of the scene they were made from.
    d = tempfile.mkdtemp()
    scene = os.path.join(d, "scene.json")
    shutil.copy(SCENE, scene)
    base = {"scene": scene, "models": ["compliant_point"],
            "parameters": [{"key": "bodies.block.mass", "values": [1, 2]}]}
    os.makedirs(os.path.join(d, "a"))
    os.makedirs(os.path.join(d, "b"))
    qa = write_study(dict(base, set={"simulation.duration": 0.1}), os.path.join(d, "a"))
    qb = write_study(dict(base, set={"simulation.duration": 0.2}), os.path.join(d, "b"))
    outa, outb = os.path.join(d, "outa"), os.path.join(d, "outb")
    for study, out in ((qa, outa), (qb, outb)):
        code, _, err = run("sweep", study, "--out", out, "-q")
        check(code == 0, err)
    shutil.copy(os.path.join(outa, "runs", "00000000.rec"), os.path.join(outb, "runs"))
    code, _, err = run("sweep", "--gather", outb)
    rows = table(outb)
    check(code == 1 and rows[0]["status"] == "missing" and rows[1]["status"] == "ok", (code, err))
    # the rerun makes run 0 again, with this study's duration
    code, _, err = run("sweep", qb, "--out", outb, "-q")
    check(code == 0 and float(table(outb)[0]["simulated"]) == 0.2, (code, err))
    # a record made from the scene edited (here: in another directory, then copied in) is not
    # this study's either: the table does not mix two scenes
    with open(scene) as f:
        text = f.read()
    with open(scene, "w") as f:
        f.write(text.replace("-9.81", "-1.62", 1))
    outc = os.path.join(d, "outc")
    code, _, err = run("sweep", qb, "--out", outc, "-q")
    check(code == 0, err)
    shutil.copy(os.path.join(outc, "runs", "00000001.rec"), os.path.join(outb, "runs"))
    with open(scene, "w") as f:
        f.write(text)
    code, _, err = run("sweep", "--gather", outb)
    check(code == 1 and table(outb)[1]["status"] == "missing", (code, err))


@case
def resumes_make_what_is_missing_and_tasks_answer_for_their_runs():
    d = tempfile.mkdtemp()
    study = write_study({"scene": SCENE, "models": ["compliant_point"],
                         "set": {"simulation.duration": 0.05},
                         "parameters": [{"key": "bodies.block.mass", "values": [-1, 2]}]}, d)
    out = os.path.join(d, "out")
    # run 0 fails (a negative mass); the task of run 1 alone succeeds, and says so even though
    # it is the task that completes the set and writes tables that hold a failure
    code, _, err = run("sweep", study, "--out", out, "-q", "--task-range", "0:1")
    check(code == 1, (code, err))
    code, _, err = run("sweep", study, "--out", out, "-q", "--task-range", "1:2")
    check(code == 0 and [r["status"] for r in table(out)] == ["failed", "ok"], (code, err))
    # --trajectories given on a rerun: the run recorded ok without a trajectory runs again to
    # make it; the failed run (its scene did not load: it never has one) is left alone, rerun
    # after rerun, as without the option
    code, _, err = run("sweep", study, "--out", out, "--trajectories")
    trajectories = os.path.join(out, "trajectories")
    check(os.path.exists(os.path.join(trajectories, "00000001.csv")) and
          "1 to run, 1 done already" in err, (code, err, os.listdir(out)))
    code, _, err = run("sweep", study, "--out", out, "--trajectories")
    check("0 to run, 2 done already" in err, (code, err))
    # a temporary file left by a sweep killed outright: removed once its run has a record
    stale = os.path.join(trajectories, ".00000001.csv.tmp999999")
    open(stale, "w").close()
    stale_rec = os.path.join(out, "runs", ".00000001.rec.tmp999999")
    open(stale_rec, "w").close()
    # the failed run's too, by a sweep of the whole study (it was left for good), not by a
    # gather, which cannot tell whether a task with --retry-failed is writing it
    failed_rec = os.path.join(out, "runs", ".00000000.rec.tmp999998")
    open(failed_rec, "w").close()
    code, _, err = run("sweep", "--gather", out)
    check(not os.path.exists(stale) and not os.path.exists(stale_rec), os.listdir(trajectories))
    check(os.path.exists(failed_rec), os.listdir(os.path.join(out, "runs")))
    for retry in ([], ["--retry-failed"]):
        open(failed_rec, "w").close()
        code, _, err = run("sweep", study, "--out", out, "-q", "--trajectories", *retry)
        check(code == 1 and not os.path.exists(failed_rec),
              (retry, code, err, os.listdir(os.path.join(out, "runs"))))


@case
def a_second_sweep_on_a_busy_directory_is_refused():
    # two sweeps of one study started on one directory both ran every run; the second is now
    # refused while the first runs, and runs what is left once it has ended
    d = tempfile.mkdtemp()
    study = write_study({"scene": SCENE, "models": ["compliant_point"],
                         "set": {"simulation.duration": 30.0, "simulation.rtol": 1e-10,
                                 "simulation.atol": 1e-10},
                         "parameters": [{"key": "bodies.block.mass", "values": [1, 2, 3, 4]}]}, d)
    out = os.path.join(d, "out")
    first = subprocess.Popen([EXE, "sweep", study, "--out", out, "-q", "-j", "1"], cwd=ROOT,
                             stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while not os.path.exists(os.path.join(out, "sweep.json")) and time.time() - t0 < 30:
        time.sleep(0.05)
    code, _, err = run("sweep", study, "--out", out, "-q")
    still = first.poll() is None
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=60)
    if still:
        check(code == 2 and "another sweep is running" in err, (code, err))
    check(still, "the first sweep ended before the second started: make its runs longer")
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 0 and len(table(out)) == 4, (code, err))


@case
def messages_name_the_study_path_and_the_run():
    d = tempfile.mkdtemp()
    # a key the scene cannot have, in a "keys" axis and among random parameters
    for axes, where in (
            ([{"key": "simulation.rtol", "values": [1e-6]},
              {"keys": ["bodies.block.mass", "bodies.blok.mass"], "values": [[1, 2]]}],
             "parameters[1].keys[1]: parameter 'bodies.blok.mass'"),
            ([{"random": {"n": 2, "parameters": [
                {"key": "bodies.block.mass", "distribution": "uniform", "min": 1, "max": 2},
                {"key": "bodies.x.mass", "distribution": "uniform", "min": 1, "max": 2}]}}],
             "parameters[0].random.parameters[1].key: parameter 'bodies.x.mass'")):
        study = write_study({"scene": SCENE, "parameters": axes}, d)
        code, _, err = run("sweep", study, "--out", os.path.join(d, "out"), "-q")
        check(code == 2 and f"{study}: {where}" in err, f"exit {code}: {err}")
    study = write_study({"scene": SCENE, "set": {"bodies.blok.mass": 1}}, d)
    code, _, err = run("sweep", study, "--out", os.path.join(d, "out"), "-q")
    check(code == 2 and f"{study}: set.bodies.blok.mass:" in err, f"exit {code}: {err}")
    # a scene that does not load at all, in a study without "set": the scene is blamed
    bad = os.path.join(d, "bad.json")
    with open(bad, "w") as f:
        f.write('{"bodies": 3}')
    study = write_study({"scene": bad, "parameters": [{"key": "simulation.rtol",
                                                       "values": [1e-5]}]}, d)
    code, _, err = run("sweep", study, "--out", os.path.join(d, "out3"), "-q")
    check(code == 2 and f"{bad}: bodies: expected an array" in err
          and f"{study}: scene: the study's scene does not load" in err and "set" not in err,
          f"exit {code}: {err}")
    # a value the scene refuses fails its run; the message names the study, the run, its values
    study = write_study({"scene": SCENE, "models": ["compliant_point"],
                         "set": {"simulation.duration": 0.01},
                         "parameters": [{"key": "bodies.block.mass", "values": [1, -2]}]}, d)
    code, _, err = run("sweep", study, "--out", os.path.join(d, "out2"))
    check(code == 1 and f"{study}: run 1 failed (model compliant_point, bodies.block.mass=-2): "
          f"{SCENE}: bodies[0].mass: must be > 0" in err, f"exit {code}: {err}")
    # counts of one in the singular
    check("2 runs (2 points x 1 model x 1 repeat)" in err and "; 1 worker\n" not in err and
          "ran 2 runs (1 failed)" in err, err)
    code, _, err = run("sweep", study, "--out", os.path.join(d, "out2"), "--task-range", "1:2",
                       "-j", "1", "--retry-failed")
    check("this task: run 1; 1 to run, 0 done already; 1 worker\n" in err and
          "ran 1 run (1 failed)" in err, err)
    # -q silences the progress and the summaries, not the failures
    code, _, err = run("sweep", study, "--out", os.path.join(d, "out4"), "-q")
    check(code == 1 and f"{study}: run 1 failed (model compliant_point, bodies.block.mass=-2): "
          f"{SCENE}: bodies[0].mass: must be > 0" in err and "ran 2 runs" not in err,
          f"-q: exit {code}: {err}")
    # a message with quotes in it is told as written, not as its JSON record escapes it
    # (anchor_rule \"limit\")
    study = write_study({"scene": os.path.join(ROOT, "scenes", "bench", "incline_slide.json"),
                         "models": ["exponential_spring"],
                         "set": {"simulation.duration": 0.5, "simulation.max_steps": 20,
                                 "simulation.integrator": "bdf"},
                         "parameters": [{"key": "simulation.rtol", "values": [1e-6]}]}, d)
    code, _, err = run("sweep", study, "--out", os.path.join(d, "out5"), "-q")
    check(code == 1 and 'or anchor_rule "limit" (docs/contact-models.md, "The anchor rule")'
          in err and '\\"' not in err, f"exit {code}: {err}")


@case
def a_run_with_too_many_report_rows_fails_up_front():
    # the limit run and compare apply: a run that would write more rows than max_rows is
    # recorded as failed at once (it ran for many minutes at 100 % CPU before), the others run
    d = tempfile.mkdtemp()
    study = write_study({
        "scene": SCENE, "models": ["compliant_point"],
        "set": {"simulation.duration": 0.2, "simulation.integrator": "rk"},
        "parameters": [{"key": "simulation.report_interval", "values": [1e-9, 0.01]}]}, d)
    out = os.path.join(d, "out")
    t0 = time.time()
    code, _, err = run("sweep", study, "--out", out, "-j", "1", "-q", timeout=120)
    rows = table(out)
    check(code == 1 and [r["status"] for r in rows] == ["failed", "ok"], (code, err))
    check("simulation.max_rows: the run would write 200000001 report rows" in rows[0]["error"]
          and rows[0]["simulated"] == "", rows[0])
    check(time.time() - t0 < 60, "the refused run took long")
    # its JSON entry: the run's own options, and no simulated time (null, as the CSV's cell)
    runs = json.load(open(os.path.join(out, "results.json")))["runs"]
    refused, ran = runs[0]["result"], runs[1]["result"]
    check(refused["integrator"] == ran["integrator"] == "rk" and
          refused["linear_solver"] == ran["linear_solver"] == "none" and
          refused["simulated"] is None and ran["simulated"] == 0.2, (refused, ran))


@case
def a_reader_of_its_messages_that_goes_away_does_not_stop_the_tables():
    # `sweep ... 2>&1 | head -1`: the progress lines meet a closed pipe; the sweep still writes
    # results.csv and results.json and ends with its own status, not killed by SIGPIPE
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    out = os.path.join(d, "out")
    # the pipe's reading end is closed before the sweep starts: every message meets EPIPE
    r, w = os.pipe()
    os.close(r)
    p = subprocess.Popen([EXE, "sweep", study, "--out", out, "-j", "2"], cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=w)
    os.close(w)
    code = p.wait(timeout=300)
    check(code == 0, f"exit {code}")
    check(len(table(out)) == 12 and os.path.exists(os.path.join(out, "results.json")),
          os.listdir(out))


@case
def a_renamed_body_has_its_pose_in_results_json():
    # the pose columns are named by the scene's bodies: a run that renames the block has them
    # empty (as sweep-format.md says), and its pose under the new name in results.json
    d = tempfile.mkdtemp()
    study = write_study({"scene": SCENE, "models": ["compliant_point"],
                         "set": {"simulation.duration": 0.01},
                         "parameters": [{"keys": ["bodies.block.name", "contacts[0].body"],
                                         "values": [["block", "block"], ["brick", "brick"]]}]},
                        d)
    out = os.path.join(d, "out")
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 0, f"exit {code}: {err}")
    rows = table(out)
    check(rows[0]["block.px"] != "" and rows[1]["status"] == "ok" and
          all(rows[1]["block." + c] == "" for c in ("px", "py", "pz", "qw", "qx", "qy", "qz"))
          and "brick.px" not in rows[1], f"{rows}")
    runs = json.load(open(os.path.join(out, "results.json")))["runs"]
    poses = [r["result"]["final_pose"] for r in runs]
    check(list(poses[0]) == ["block"] and list(poses[1]) == ["brick"] and
          poses[1]["brick"]["position"] == poses[0]["block"]["position"], f"{poses}")


@case
def a_record_that_cannot_be_written_stops_the_sweep_cleanly():
    # a file size limit between a failed run's record (about 1.5 kB) and an ok run's (about
    # 2.2 kB) stands for a full disk: run 0's record is written, run 1's is not; the sweep
    # starts no more runs, says what it recorded and what it did not start, writes no tables,
    # and exits 1; the rerun runs the rest
    import resource

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))

    d = tempfile.mkdtemp()
    study = write_study({"scene": SCENE, "models": ["compliant_point"],
                         "set": {"simulation.duration": 0.05},
                         "parameters": [{"key": "bodies.block.mass",
                                         "values": [-1, 2, -3, 4, 5]}]}, d)
    out = os.path.join(d, "out")
    runs = os.path.join(out, "runs")
    code, _, err = run("sweep", study, "--out", out, "-j", "1", "-q", preexec_fn=small_files)
    check(code == 1 and "cannot write the record of run 1" in err and "File too large" in err,
          f"exit {code}: {err}")
    check("ran 2 runs" in err and "1 recorded (1 failed) and 1 not; 3 not started; no tables "
          "written" in err and "run the same command again" in err, err)
    check(sorted(os.listdir(runs)) == ["00000000.rec"], os.listdir(runs))
    check(not os.path.exists(os.path.join(out, "results.csv")), "tables of a stopped sweep")
    code, _, err = run("sweep", study, "--out", out, "-q")
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(code == 1 and summary["executed"] == 4 and summary["failed"] == 2 and
          summary["ok"] == 3, f"rerun: exit {code}: {summary} {err}")


@case
def the_tables_are_replaced_together_or_not_at_all():
    # results.csv and results.json describe the same sweep: a file size limit that holds the
    # new CSV but not the new JSON (standing for a full disk) replaced the CSV and kept the old
    # JSON, which then disagreed. And a sweep killed while it wrote them left their temporary
    # files (.results.csv.tmpPID) for good; the next whole sweep removes them.
    import resource
    d = tempfile.mkdtemp()
    study = write_study(small_study(), d)
    _, _, clean = finished_sweep(small_study())
    csv_size = os.path.getsize(os.path.join(clean, "results.csv"))
    json_size = os.path.getsize(os.path.join(clean, "results.json"))
    limit = (csv_size + json_size) // 2
    check(csv_size < limit < json_size, f"sizes {csv_size} {json_size}")

    def between():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    out = os.path.join(d, "out")
    check(run("sweep", study, "--out", out, "--task-range", "0:6", "-q")[0] == 0, "task")
    check(run("sweep", "--gather", out, "-q")[0] == 1, "gather with 6 missing")
    code, _, err = run("sweep", study, "--out", out, "-q", preexec_fn=between)
    check(code == 1 and "could not write" in err and "results.json: File too large" in err,
          f"exit {code}: {err}")
    statuses = [r["status"] for r in table(out)]
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(statuses.count("missing") == 6 and summary["missing"] == 6,
          f"the tables disagree: {statuses} against {summary}")
    left = [f for f in os.listdir(out) if ".tmp" in f]
    check(left == [], f"temporary files left: {left}")
    for name in (".results.csv.tmp99999", ".results.json.tmp99999"):
        with open(os.path.join(out, name), "w") as f:
            f.write("half a table")
    code, _, err = run("sweep", study, "--out", out, "-q")
    check(code == 0 and without_times(table(out)) == without_times(table(clean)),
          f"exit {code}: {err}")
    left = [f for f in os.listdir(out) if ".tmp" in f]
    check(left == [], f"temporary files left: {left}")


@case
def a_trajectory_that_cannot_be_written_stops_the_sweep_like_a_record():
    # a file size limit (SIGXFSZ ignored: the write fails with EFBIG) above a failed run's
    # trajectory and record (about 3.9 kB and 3 kB) and below an ok run's trajectory (about
    # 54 kB) stands for a full disk: run 0 fails in the integrator and is recorded failed with
    # its trajectory; run 1's trajectory cannot be written, so run 1 is left without a record
    # and without a trajectory (its temporary file removed, not renamed into place) and the
    # sweep stops as for a record; the rerun without the limit runs runs 1 and 2
    import resource

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (10000, 10000))

    d = tempfile.mkdtemp()
    study = write_study({"scene": SCENE, "models": ["compliant_point"],
                         "set": {"simulation.duration": 0.5},
                         "parameters": [{"key": "simulation.max_steps",
                                         "values": [3, 100000, 100000]}]}, d)
    out = os.path.join(d, "out")
    runs, traj = os.path.join(out, "runs"), os.path.join(out, "trajectories")
    code, _, err = run("sweep", study, "--out", out, "-j", "1", "-q", "--trajectories",
                       preexec_fn=small_files)
    check(code == 1 and "cannot write the trajectory of run 1 in" in err and
          "File too large" in err and "run 0 failed" in err and "run 1 failed" not in err,
          f"exit {code}: {err}")
    check("ran 2 runs" in err and "1 recorded (1 failed) and 1 not; 1 not started; no tables "
          "written" in err and "run the same command again" in err, err)
    check(sorted(os.listdir(runs)) == ["00000000.rec"], os.listdir(runs))
    check(sorted(os.listdir(traj)) == ["00000000.csv"], os.listdir(traj))
    check(open(os.path.join(runs, "00000000.rec")).readline() == "failed\n", "run 0's record")
    code, _, err = run("sweep", study, "--out", out, "-q", "--trajectories")
    summary = json.load(open(os.path.join(out, "results.json")))["summary"]
    check(code == 1 and summary["executed"] == 2 and summary["failed"] == 1 and
          summary["ok"] == 2, f"rerun: exit {code}: {summary} {err}")
    check(sorted(os.listdir(traj)) == [f"{i:08d}.csv" for i in range(3)], os.listdir(traj))
    rows = list(csv.DictReader(open(os.path.join(traj, "00000001.csv"))))
    check(abs(float(rows[-1]["t"]) - 0.5) < 1e-12, "run 1's trajectory is whole")


finish()
