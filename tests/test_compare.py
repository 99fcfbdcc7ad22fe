#!/usr/bin/env python3
"""`contactsim compare` and `run --stats`: one row per model, the JSON keys tools rely on, the
output directory, failures of one model, determinism, exit codes, and the contact metrics
checked against answers computed here from the force laws (static and elastic-impact
penetration, peak normal force, creep of an under-damped exponential-spring block) and the
plain-word diagnostics. Usage: test_compare.py PATH/TO/contactsim"""
import csv
import io
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from casekit import as_nobody, case, check, finish, nobody_scene, replay_env

EXE = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")
G = 9.81

MODEL_KEYS = ["model", "status", "error", "cpu_seconds", "cpu_per_sim_second", "simulated",
              "steps", "rhs_evals", "rhs_evals_jacobian", "rhs_total", "error_test_failures",
              "linear_solver", "max_penetration", "peak_normal_force", "final_pose",
              "sliding_distance", "stuck_drift", "energy_error", "convergence", "diagnostics"]
CPU_KEYS = ("cpu_seconds", "cpu_per_sim_second", "statistics_cpu_seconds")


def run(*args, timeout=300, env=None):
    p = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def close(a, b, rel, what):
    check(abs(a - b) <= rel * abs(b), f"{what}: {a} vs {b} (rel {abs(a - b) / abs(b):.3g} > {rel})")


def data(name):
    return os.path.join("tests", "data", name)


def load(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def write_scene(obj, name="scene.json"):
    d = tempfile.mkdtemp()
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(obj, f)
    return path


def compare_json(path, *args):
    code, out, err = run("compare", path, "--format", "json", "-q", *args)
    check(code in (0, 1), f"exit {code}: {err}")
    return code, json.loads(out), err


def interrupted_compare(scene, *args, quiet=True):
    """A comparison of a 50,000 s run of scene (a minute of CPU or more, however fast the build:
    1000 s took about 1.6 s and sometimes ended before the signal), stopped by SIGINT in its
    first model after 1.5 s; it must exit 130. Returns its standard output and error (bytes)."""
    p = subprocess.Popen([EXE, "compare", scene, *(["-q"] if quiet else []), "--duration", "5e4",
                          *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    time.sleep(1.5)
    check(p.poll() is None, "the comparison ended before it could be interrupted")
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()  # the signal was not handled: do not leave a long run behind
        p.communicate()
        raise
    check(p.returncode == 130, (p.returncode, err))
    return out, err


def model(doc, name):
    for m in doc["models"]:
        if m["model"] == name:
            return m
    raise AssertionError(f"no row for {name}: {[m['model'] for m in doc['models']]}")


# -------------------------------------------------------------------------------------------
# the command

@case
def table_has_one_row_per_model():
    code, out, err = run("compare", data("compare_sphere_rest.json"), "-q")
    check(code == 0, (code, err))
    lines = out.splitlines()
    header = [i for i, l in enumerate(lines) if l.startswith("model ")]
    check(len(header) == 1, out)
    rows = [l.split() for l in lines[header[0] + 1:header[0] + 3]]
    check([r[0] for r in rows] == ["hunt_crossley", "smooth_sphere_half_space"], out)
    check(all(r[-1] == "ok" for r in rows), out)
    check(lines[header[0]].split() == ["model", "cpu_s", "steps", "pen_m", "peak_N", "slip_m",
                                       "drift_m", "E_err", "status"], lines[header[0]])


@case
def json_has_every_key():
    code, doc, _ = compare_json(data("compare_sphere_rest.json"))
    check(code == 0, code)
    check(doc["scene"] == "compare_sphere_rest"
          and doc["file"].endswith("compare_sphere_rest.json"), (doc["scene"], doc["file"]))
    check([m["model"] for m in doc["models"]] == ["hunt_crossley", "smooth_sphere_half_space"],
          doc["models"])
    for m in doc["models"]:
        missing = [k for k in MODEL_KEYS if k not in m]
        check(not missing, f"{m['model']}: missing {missing}")
        check(m["status"] == "ok" and m["error"] is None, m)
        check(m["linear_solver"] in ("dense", "band", "gmres"), m["linear_solver"])
        check(m["rhs_total"] == m["rhs_evals"] + m["rhs_evals_jacobian"], m)
        check(m["steps"] > 0 and m["rhs_evals"] >= m["steps"], m)
        check(abs(m["simulated"] - 0.5) < 1e-12, m["simulated"])
        check(m["cpu_seconds"] >= 0 and isinstance(m["diagnostics"], list), m)
        pose = m["final_pose"]["ball"]
        check(len(pose["position"]) == 3 and len(pose["quaternion"]) == 4, pose)
        check(abs(math.hypot(*pose["quaternion"]) - 1) < 1e-9, pose)


@case
def out_dir_writes_model_csvs_and_table():
    d = os.path.join(tempfile.mkdtemp(), "new", "dir")
    code, out, err = run("compare", data("compare_sphere_rest.json"), "--out-dir", d, "-q",
                         "--format", "csv")
    check(code == 0, (code, err))
    for name in ("hunt_crossley.csv", "smooth_sphere_half_space.csv", "compare.csv",
                 "compare.json"):
        check(os.path.exists(os.path.join(d, name)), f"{name} not written")
    # compare.csv is the table printed with --format csv: a header and one row per model
    with open(os.path.join(d, "compare.csv")) as f:
        table = f.read()
    check(table == out, "compare.csv differs from the printed CSV table")
    rows = list(csv.reader(io.StringIO(table)))
    check([r[0] for r in rows[1:]] == ["hunt_crossley", "smooth_sphere_half_space"], rows)
    check(all(len(r) == len(rows[0]) for r in rows), "ragged table")
    with open(os.path.join(d, "compare.json")) as f:
        check(len(json.load(f)["models"]) == 2, "compare.json")
    # each model's CSV is what `run --forces --contact-model` writes
    for name in ("hunt_crossley", "smooth_sphere_half_space"):
        ref = os.path.join(tempfile.mkdtemp(), "ref.csv")
        code, _, err = run("run", data("compare_sphere_rest.json"), "--forces", "-q",
                           "--contact-model", name, "-o", ref)
        check(code == 0, err)
        with open(ref) as a, open(os.path.join(d, name + ".csv")) as b:
            check(a.read() == b.read(), f"{name}.csv differs from run --forces")


@case
def outputs_linked_to_one_file_are_refused():
    # a model's CSV linked to another output (hard link, or a symbolic link to a table, there or
    # not yet): refused before anything runs; the second model's run was written over the
    # first's, or the table over a trajectory, with exit 0
    cases = (("hard", lambda d: os.link(os.path.join(d, "smooth_sphere_half_space.csv"),
                                        os.path.join(d, "hunt_crossley.csv")), True),
             ("to a table", lambda d: os.symlink("compare.csv",
                                                 os.path.join(d, "hunt_crossley.csv")), True),
             ("to a table not there", lambda d: os.symlink("compare.csv",
                                                           os.path.join(d, "hunt_crossley.csv")),
              False))
    for what, link, touch in cases:
        d = tempfile.mkdtemp()
        if touch:
            for name in ("smooth_sphere_half_space.csv", "compare.csv"):
                open(os.path.join(d, name), "w").close()
        link(d)
        code, _, err = run("compare", data("compare_sphere_rest.json"), "--out-dir", d, "-q")
        check(code == 2 and "are the same file" in err and "hunt_crossley.csv" in err,
              (what, code, err))
        check(not os.path.exists(os.path.join(d, "compare.json")), (what, "it ran"))
    # a link to a name of its own that is not there yet is written through, as run -o writes
    # it, and the file it makes is no earlier comparison's
    d = tempfile.mkdtemp()
    os.symlink("mine.csv", os.path.join(d, "hunt_crossley.csv"))
    code, _, err = run("compare", data("compare_sphere_rest.json"), "--out-dir", d, "-q")
    check(code == 0 and "earlier comparison" not in err, (code, err))
    with open(os.path.join(d, "mine.csv")) as f:
        check(f.readline().startswith("t,") and len(f.readlines()) > 10, "mine.csv not written")


@case
def a_long_out_dir_is_taken():
    # 3,000 bytes of path (the system takes 4,095): refused from 1,024 on, as "File name too
    # long", though run -o wrote there
    part = "c" * 200
    d = os.path.join(tempfile.mkdtemp(), *([part] * 15))
    code, _, err = run("compare", data("compare_sphere_rest.json"), "--out-dir", d, "-q")
    check(code == 0 and os.path.exists(os.path.join(d, "compare.json")), (code, err))


@case
def failed_model_is_reported_and_the_other_runs():
    path = data("compare_fail.json")
    code, doc, err = compare_json(path)
    check(code == 1, (code, err))
    bad, good = model(doc, "smooth_sphere_half_space"), model(doc, "hunt_crossley")
    check(bad["status"] == "failed" and "too much work" in bad["error"], bad["error"])
    check(bad["simulated"] < 0.5, bad["simulated"])
    # the failing model runs first; the one after it still runs to the end
    check(doc["models"][0]["model"] == "smooth_sphere_half_space", "order")
    check(good["status"] == "ok" and good["error"] is None and good["simulated"] == 0.5, good)
    check("too much work" in err, err)
    code, out, _ = run("compare", path, "-q")
    check(code == 1 and "FAILED" in out and "failures:" in out, out)


@case
def two_runs_give_identical_numbers():
    docs = []
    for _ in range(2):
        code, doc, _ = compare_json(data("compare_incline.json"))
        check(code == 0, code)
        for m in doc["models"]:
            for k in CPU_KEYS:
                m.pop(k)
        docs.append(json.dumps(doc, sort_keys=True))
    check(docs[0] == docs[1], "two comparisons of one scene differ beyond the CPU times")


@case
def bad_usage_exits_2():
    code, _, err = run("compare", data("compare_sphere_rest.json"), "--models",
                       "hunt_crossley,nosuch_model")
    check(code == 2 and "nosuch_model" in err, (code, err))
    code, _, err = run("compare", data("compare_sphere_rest.json"), "--format", "xml")
    check(code == 2 and "format" in err, (code, err))
    code, _, err = run("compare", "no/such/scene.json")
    check(code == 2 and "no/such/scene.json" in err, (code, err))
    code, _, err = run("compare")
    check(code == 2, (code, err))


@case
def models_option_picks_and_orders():
    code, doc, _ = compare_json(data("compare_sphere_rest.json"), "--models",
                                "smooth_sphere_half_space", "--duration", "0.1")
    check(code == 0 and [m["model"] for m in doc["models"]] == ["smooth_sphere_half_space"], doc)
    check(abs(doc["models"][0]["simulated"] - 0.1) < 1e-12, doc["models"][0]["simulated"])


@case
def scene_without_contact_models_runs_as_scene():
    # a frictionless pendulum: nothing touches; KE + PE is conserved to the tolerance
    scene = {
        "name": "pendulum", "gravity": [0, 0, -9.81],
        "bodies": [{"name": "arm", "mass": 1.0, "com": [0, 1, 0],
                    "inertia": {"diag": [1e-3, 1e-3, 1e-3]},
                    "joint": {"type": "pin", "parent": "ground", "q": [1.0], "u": [0.0],
                              "parent_frame": {"rotation": {"axis": [1, 0, 0],
                                                            "angle_deg": -90}}}}],
        "simulation": {"duration": 1.0, "report_interval": 0.01, "rtol": 1e-9, "atol": 1e-11},
    }
    code, doc, _ = compare_json(write_scene(scene))
    check(code == 0 and [m["model"] for m in doc["models"]] == ["scene"], doc)
    m = doc["models"][0]
    check(m["max_penetration"] == 0 and m["peak_normal_force"] == 0, m)
    check(m["final_pose"] == {}, m["final_pose"])
    check(m["energy_error"] < 1e-6, m["energy_error"])


@case
def run_stats_writes_the_same_json():
    d = tempfile.mkdtemp()
    stats = os.path.join(d, "stats.json")
    code, _, err = run("run", data("compare_sphere_rest.json"), "-o", os.path.join(d, "o.csv"),
                       "--stats", stats)
    check(code == 0, err)
    with open(stats) as f:
        m = json.load(f)
    # one entry of compare's "models", with the scene and the file
    check(m["scene"] == "compare_sphere_rest" and m["file"].endswith("compare_sphere_rest.json"),
          m)
    check(m["model"] == "hunt_crossley", m["model"])  # the scene's default
    check(not [k for k in MODEL_KEYS if k not in m], m)
    _, doc, _ = compare_json(data("compare_sphere_rest.json"), "--models", "hunt_crossley")
    same = doc["models"][0]
    for k in CPU_KEYS:
        same.pop(k)
        m.pop(k)
    check({k: v for k, v in m.items() if k not in ("scene", "file")} == same,
          "run --stats and compare disagree")
    check("max penetration" in err and "peak normal force" in err, err)
    code, _, err = run("run", data("compare_sphere_rest.json"), "-o", os.path.join(d, "o.csv"),
                       "-q", "--stats", stats, "--contact-model", "smooth_sphere_half_space")
    check(code == 0 and err == "", err)
    with open(stats) as f:
        check(json.load(f)["model"] == "smooth_sphere_half_space", "model name")
    code, _, err = run("run", data("compare_sphere_rest.json"), "-q", "-o",
                       os.path.join(d, "o.csv"), "--stats", "/nonexistent-dir/s.json")
    check(code == 2 and "/nonexistent-dir/s.json" in err, (code, err))


# -------------------------------------------------------------------------------------------
# the metrics against the force laws

@case
def static_penetration_of_hunt_crossley_ball():
    # (4/3) E sqrt(R) x^1.5 = m g at rest
    scene = load("compare_sphere_rest.json")
    block = scene["contact_models"]["hunt_crossley"]
    # each surface has the plane-strain modulus Es; the pair's Hertz modulus is Es / 2^1.5
    Es, R, m = block["plane_strain_modulus"], scene["contacts"][0]["radius"], scene["bodies"][0]["mass"]
    E = Es / 2 ** 1.5
    x = (3 * m * G / (4 * E * math.sqrt(R))) ** (2 / 3)
    code, doc, _ = compare_json(data("compare_sphere_rest.json"), "--models", "hunt_crossley")
    check(code == 0, code)
    close(doc["models"][0]["max_penetration"], x, 0.03, "max penetration")
    # the ball settles at that depth: its centre sits at R - x
    close(doc["models"][0]["final_pose"]["ball"]["position"][2], R - x, 1e-4, "final height")


@case
def static_penetration_of_compliant_point():
    # k x = m g at rest
    scene = load("compare_point_rest.json")
    k = scene["contact_models"]["compliant_point"]["penalty_stiffness"]
    x = scene["bodies"][0]["mass"] * G / k
    code, doc, _ = compare_json(data("compare_point_rest.json"), "--models", "compliant_point")
    check(code == 0, code)
    close(doc["models"][0]["max_penetration"], x, 0.03, "max penetration")


@case
def elastic_drop_peak_force_and_penetration():
    # an undamped, frictionless compliant point dropped from height h: at the deepest point
    # m g (h + x) = k x^2 / 2, and the normal force there is k x
    scene = load("compare_point_rest.json")
    h, k, m = 0.05, 1e5, 1.0
    scene["contact_models"] = {"compliant_point": {"penalty_stiffness": k, "dissipation": 0}}
    scene["bodies"][0]["joint"]["initial"]["position"] = [0, 0, 0.1 + h]
    scene["simulation"].update({"duration": 0.2, "report_interval": 0.001})
    x = (m * G + math.sqrt((m * G) ** 2 + 2 * k * m * G * h)) / k
    code, doc, _ = compare_json(write_scene(scene))
    check(code == 0, code)
    r = doc["models"][0]
    close(r["max_penetration"], x, 0.01, "max penetration")
    close(r["peak_normal_force"], k * x, 0.01, "peak normal force")
    close(r["peak_normal_force_sets"]["bottom"], k * x, 0.01, "peak of the set")
    check(r["energy_error"] < 1e-4, r["energy_error"])


def incline(cxy=None, mid_plane=False, speed=None):
    """compare_incline.json with the exponential springs' cxy, the contact points moved to the
    height of the centre of mass (no tipping moment from friction), an initial downhill speed"""
    scene = load("compare_incline.json")
    scene["contact_models"] = {"exponential_spring": scene["contact_models"]["exponential_spring"]}
    if cxy is not None:
        scene["contact_models"]["exponential_spring"]["cxy"] = cxy
    th = math.radians(20)
    if mid_plane:
        pts = scene["contacts"][0]["points"]
        for p in pts:
            p[2] = 0.0
        # the stations float where each carries a quarter of m g cos(theta): d1 exp(-d2 (z-d0))
        z = 0.0065905 - math.log(G * math.cos(th) / 4 / 0.5336) / 1150
        scene["bodies"][0]["joint"]["initial"]["position"] = [z * math.sin(th), 0, z * math.cos(th)]
    if speed is not None:
        scene["bodies"][0]["joint"]["initial"]["velocity"] = [speed * math.cos(th), 0,
                                                              -speed * math.sin(th)]
    return scene


@case
def creep_diagnostic_for_low_friction_damping():
    # 1 kg on four springs: critical damping for a quarter of the mass is 2 sqrt(kxy m/4)
    critical = 2 * math.sqrt(20000 * 0.25)
    creep = 1.0 * G * math.sin(math.radians(20)) / (4 * 10)
    path = write_scene(incline(cxy=10))
    code, _, err = run("run", path, "-o", os.devnull, "--duration", "0.2")
    check(code == 0, err)
    notes = [l for l in err.splitlines() if "creeps downhill" in l]
    check(len(notes) == 1, err)
    check(f"{critical:.3g}" in notes[0] and f"{creep:.3g}" in notes[0] and "cxy = 10" in notes[0],
          notes[0])
    code, doc, _ = compare_json(path, "--duration", "0.2")
    check(any("creeps downhill" in n for n in doc["models"][0]["diagnostics"]), doc)
    code, out, _ = run("compare", path, "--duration", "0.2", "-q")
    check("notes:" in out and "creeps downhill" in out, out)
    # the default friction damping (critical for 1 kg) leaves nothing to say
    path = write_scene(incline())
    code, _, err = run("run", path, "-o", os.devnull, "--duration", "0.2")
    check(code == 0 and "creeps" not in err and "warning" not in err, err)
    code, doc, _ = compare_json(path, "--duration", "0.2")
    check(doc["models"][0]["diagnostics"] == [], doc["models"][0]["diagnostics"])


@case
def a_ball_rolling_without_slipping_does_not_slide():
    # a Hunt-Crossley ball (R = 0.1 m) pressed 0.14 mm into the floor by its weight, rolling at
    # 1 m/s: its contact point does not slip. Taking the sphere's lowest point instead, 0.14 mm
    # below the surface, made it slip at omega delta / 2 and slide 0.7 mm in the second.
    with open(os.path.join(ROOT, "scenes", "sphere_drop.json")) as f:
        scene = json.load(f)
    scene["bodies"][0]["joint"]["initial"] = {"position": [0, 0, 0.1], "velocity": [0, 0, 0]}
    scene["simulation"]["duration"] = 2.0
    code, doc, _ = compare_json(write_scene(scene, "settle.json"), "--models", "hunt_crossley")
    z = doc["models"][0]["final_pose"]["ball"]["position"][2]
    check(0.0998 < z < 0.1, z)
    scene["bodies"][0]["joint"]["initial"] = {"position": [0, 0, z], "velocity": [1, 0, 0],
                                              "angular_velocity": [0, 1 / z, 0]}
    scene["simulation"]["duration"] = 1.0
    code, doc, _ = compare_json(write_scene(scene, "roll.json"), "--models", "hunt_crossley")
    row = doc["models"][0]
    check(code == 0 and row["sliding_distance"] < 5e-5 and row["stuck_drift"] < 5e-5,
          (row["sliding_distance"], row["stuck_drift"]))


@case
def sliding_and_stuck_drift_of_a_creeping_block():
    # pure friction damping (Sliding = 1) on a plate whose contacts sit at the height of its
    # centre of mass: launched at the creep speed v = m g sin(theta) / (4 cxy) it keeps it, so
    # it slides v T in T seconds, none of it stuck (v > v_settle)
    v = 1.0 * G * math.sin(math.radians(20)) / (4 * 10)
    T = 1.0
    code, doc, _ = compare_json(write_scene(incline(cxy=10, mid_plane=True, speed=v)),
                                "--duration", str(T))
    check(code == 0, code)
    r = doc["models"][0]
    close(r["sliding_distance"], v * T, 0.02, "sliding distance")
    check(r["stuck_drift"] == 0, r["stuck_drift"])
    # with the default damping the anchors catch it within a few millimetres (far less than
    # the creep would cover), after which it no longer moves: as far at 2 s as at 0.5 s
    dist = []
    for T in (0.5, 2.0):
        code, doc, _ = compare_json(write_scene(incline(mid_plane=True, speed=v)), "--duration",
                                    str(T))
        check(code == 0, code)
        dist.append(doc["models"][0]["sliding_distance"])
        check(doc["models"][0]["stuck_drift"] <= dist[-1], doc["models"][0])
    check(dist[1] < 0.05 * v * 2.0, dist)
    check(abs(dist[1] - dist[0]) < 1e-5, f"the caught block still moves: {dist}")


@case
def limit_anchor_rule_neither_creeps_nor_warns():
    # the same plate with the low damping and anchor_rule "limit": its sliding friction is
    # mu_k m g cos(theta) at any speed (> m g sin(theta) on this 20 degree slope), so launched at
    # the blended rule's creep speed it stops after v^2 / (2 g (mu_k cos - sin)) (2.8 mm) and
    # stays; and the creep diagnostic, which is about the blended rule, says nothing
    v = 1.0 * G * math.sin(math.radians(20)) / (4 * 10)
    th = math.radians(20)
    stop = v * v / (2 * G * (0.5 * math.cos(th) - math.sin(th)))
    scene = incline(cxy=10, mid_plane=True, speed=v)
    scene["contact_models"]["exponential_spring"]["anchor_rule"] = "limit"
    path = write_scene(scene)
    code, doc, _ = compare_json(path, "--duration", "0.5")
    check(code == 0 and doc["models"][0]["diagnostics"] == [], doc["models"][0]["diagnostics"])
    out = os.path.join(tempfile.mkdtemp(), "run.csv")
    code, _, err = run("run", path, "-q", "-o", out, "--duration", "2", "--report-interval", "0.5")
    check(code == 0, err)
    with open(out) as f:
        rows = [[float(x) for x in line.split(",")[:4]] for line in f.read().splitlines()[1:]]
    along = [r[1] * math.cos(th) - r[3] * math.sin(th) for r in rows]  # down the slope, m
    close(along[-1] - along[0], stop, 0.1, "stopping distance")
    check(abs(along[-1] - along[1]) < 1e-6, f"the block still moves: {along}")
    print(f"  slid {along[-1] - along[0]:.6g} m (Coulomb {stop:.6g} m), then "
          f"{along[-1] - along[1]:.3g} m from 0.5 s to 2 s")


@case
def stuck_drift_of_stribeck_creep():
    # compliant points hold the block on the slope with Stribeck friction, mu(v) = us step5(v/vt)
    # below vt: the block creeps at the slip speed v where mu(v) m g cos(theta) = m g sin(theta)
    # (the normal loads shift between the corners, but their sum is m g cos(theta) and every
    # corner slips at v), so once the landing is over the drift while stuck grows at v
    scene = load("compare_incline.json")
    block = scene["contact_models"]["compliant_point"]
    vt, us = 0.005, block["mu_static"]
    block["transition_velocity"] = vt
    target = math.tan(math.radians(20)) / us
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        step5 = mid ** 3 * (10 - 15 * mid + 6 * mid * mid)
        lo, hi = (mid, hi) if step5 < target else (lo, mid)
    v = lo * vt
    path = write_scene(scene)
    drift = []
    for T in (1.0, 2.0):
        code, doc, _ = compare_json(path, "--models", "compliant_point", "--duration", str(T))
        check(code == 0, code)
        r = doc["models"][0]
        drift.append(r["stuck_drift"])
        check(r["stuck_drift"] <= r["sliding_distance"], r)
    print(f"  creep {v:.6g} m/s, drift over one second {drift[1] - drift[0]:.6g} m")
    close(drift[1] - drift[0], v * 1.0, 0.01, "drift while stuck over one second")


# -------------------------------------------------------------------------------------------
# the convergence check

def origin_distances(csv_a, csv_b, body):
    """Largest and last distance between the body's origin in two runs' CSVs, row by row."""
    rows = []
    for path in (csv_a, csv_b):
        with open(path) as f:
            rows.append([[float(r[f"{body}.p{k}"]) for k in "xyz"] for r in csv.DictReader(f)])
    check(len(rows[0]) == len(rows[1]), "the runs report at different times")
    d = [math.dist(a, b) for a, b in zip(*rows)]
    return max(d), d[-1]


@case
def convergence_check_sees_a_body_whose_origin_never_moves():
    # a pendulum's origin sits on its pin: compared by origins, a run at rtol 0.1 read as
    # converged. Its centre of mass ends 0.13 m from the tighter run's.
    code, doc, _ = compare_json(os.path.join(ROOT, "scenes", "pendulum.json"), "--convergence",
                                "--rtol", "0.1", "--atol", "0.1")
    m = doc["models"][0]
    c = m["convergence"]
    check(c["tighter_max_distance"] > 0.05 and
          any("not converged" in n for n in m["diagnostics"]), (c, m["diagnostics"]))


@case
def convergence_verdict_follows_a_full_list_of_notes():
    # ten soft blocks, each sinking 3 cm: ten penetration notes and more fill the list (eight
    # places); the verdict on convergence was the note dropped, so that a loose run read as
    # converged. The list now says how many it leaves out, and the verdict follows it.
    scene = json.load(open(os.path.join(ROOT, "scenes", "bench", "pile_10.json")))
    soft = {"penalty_stiffness": 200, "dissipation": 5, "mu_static": 0.7, "mu_dynamic": 0.5}
    scene["contact_models"] = {"compliant_point": {"body_material": soft, "plane_material": soft,
                                                   "transition_velocity": 0.01}}
    code, doc, _ = compare_json(write_scene(scene), "--convergence", "--rtol", "1e-2",
                                "--atol", "1e-2")
    notes = doc["models"][0]["diagnostics"]
    deep = [n for n in notes if "deeper than 1 cm" in n]
    more = re.fullmatch(r"(\d+) more diagnostics of this run are not listed \(the first 7 are\)",
                        notes[7]) if len(notes) > 7 else None
    check(len(notes) == 9 and len(deep) == 7 and more and len(deep) + int(more[1]) >= 10,
          notes)
    check(doc["models"][0]["convergence"]["tighter_max_distance"] > 1e-3 and
          "this run is not converged" in notes[8], notes)


@case
def convergence_check_finds_a_loose_tolerance():
    # the incline at rtol = atol = 1e-2 is far from converged; the distances must be those
    # between separate runs at 1e-2 and 1e-4, and a 1e-9 change of the initial speeds must
    # barely matter on this well-posed scene, so the note blames the tolerance
    code, doc, _ = compare_json(data("compare_incline.json"), "--models", "exponential_spring",
                                "--convergence", "--rtol", "1e-2", "--atol", "1e-2")
    check(code == 0, code)
    m = doc["models"][0]
    c = m["convergence"]
    check(c is not None and c["factor"] == 100 and c["perturbation"] == 1e-9, c)
    d = tempfile.mkdtemp()
    outs = []
    for tol in ("1e-2", "1e-4"):
        out = os.path.join(d, f"run_{tol}.csv")
        code, _, err = run("run", data("compare_incline.json"), "--contact-model",
                           "exponential_spring", "--rtol", tol, "--atol", tol, "-q", "-o", out)
        check(code == 0, err)
        outs.append(out)
    largest, last = origin_distances(*outs, "block")
    close(c["tighter_max_distance"], largest, 1e-12, "largest distance")
    close(c["tighter_final_distance"], last, 1e-12, "final distance")
    check(largest > 1e-3, f"expected a loose run, got {largest} m")
    check(c["perturbed_max_distance"] < 1e-3 and c["perturbed_horizon"] is None, c)
    check(any("not converged" in n and "tighten rtol and atol" in n for n in m["diagnostics"]),
          m["diagnostics"])
    # the table gets the tighter run's distance (the notes say the rest), the CSV all five
    code, out, _ = run("compare", data("compare_incline.json"), "--models", "exponential_spring",
                       "--convergence", "-q", "--rtol", "1e-2", "--atol", "1e-2")
    check(code == 0 and "tight_m" in out, out)
    code, out, _ = run("compare", data("compare_incline.json"), "--models", "exponential_spring",
                       "--convergence", "-q", "--format", "csv", "--rtol", "1e-2")
    row = next(csv.DictReader(io.StringIO(out)))
    check(float(row["tighter_max_distance"]) > 0 and row["perturbed_horizon"] == "", row)


@case
def convergence_check_finds_a_sensitive_motion():
    # block_spin_slide with exponential springs at the seed's normal damping rocks on its edges:
    # a 1e-9 m/s change of the initial speeds moves it by millimetres within a few seconds, so
    # the note must say that no tolerance helps, rather than ask for a tighter one
    code, doc, _ = compare_json(os.path.join("scenes", "bench", "block_spin_slide.json"),
                                "--models", "exponential_spring", "--convergence",
                                "--duration", "6")
    check(code == 0, code)
    m = doc["models"][0]
    c = m["convergence"]
    check(c["perturbed_max_distance"] > 1e-3, c)
    check(1.0 < c["perturbed_horizon"] < 6.0, c)
    check(any("no tolerance pins the motion down" in n for n in m["diagnostics"]),
          m["diagnostics"])
    # without the option there is no check
    code, doc, _ = compare_json(data("compare_incline.json"), "--models", "exponential_spring")
    check(doc["models"][0]["convergence"] is None, doc["models"][0])


def table_lines(out):
    """The header and the rows of the table in compare's text output."""
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("model "))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


@case
def table_fits_100_columns():
    # the longest model names, the convergence column, and a failed model
    for args in ((data("compare_sphere_rest.json"), "--convergence"), (data("compare_fail.json"),),
                 (os.path.join("scenes", "bench", "block_spin_slide.json"),)):
        code, out, err = run("compare", *args, "-q")
        check(code in (0, 1), err)
        rows = table_lines(out)
        check(len(rows) >= 2, out)
        wide = [l for l in rows if len(l) > 100]
        check(not wide, f"{len(wide[0]) if wide else 0} columns: {wide}")
        head = rows[0].split()
        check(head[0] == "model" and head[-1] == "status" and "cpu_s" in head and "steps" in head
              and "pen_m" in head and "peak_N" in head and "slip_m" in head and "drift_m" in head
              and "E_err" in head, head)
    # every model name is whole when they fit
    code, out, _ = run("compare", data("compare_sphere_rest.json"), "-q")
    check("smooth_sphere_half_space " in out, out)


def stale_outputs(outdir):
    """An earlier comparison of another scene in outdir; returns its compare.csv and .json."""
    code, _, err = run("compare", data("compare_sphere_rest.json"), "-q", "--out-dir", outdir)
    check(code == 0, err)
    return (open(os.path.join(outdir, "compare.csv")).read(),
            open(os.path.join(outdir, "compare.json")).read())


@case
def an_interrupted_comparison_counts_the_models_that_ran_to_the_end():
    # the model the signal stopped was counted as one that ran ("1 of 2 models ran")
    _, err = interrupted_compare(os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json"),
                                 "--format", "csv", quiet=False)
    check(b"interrupted by SIGINT; 0 of 2 models ran to the end" in err, err)


@case
def interrupted_compare_writes_whole_consistent_tables():
    outdir = tempfile.mkdtemp()
    stale_outputs(outdir)
    # a comparison long enough to interrupt in its first model
    scene = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
    out, err = interrupted_compare(scene, "--out-dir", outdir)
    # the table names the interrupted model; the files in the directory are this comparison's,
    # whole, and agree with each other
    check("STOPPED" in out.decode(), out)
    doc = json.load(open(os.path.join(outdir, "compare.json")))
    check(doc["scene"] == "block_spin_slide", doc["scene"])
    check([m["status"] for m in doc["models"]] == ["interrupted"], [m["status"] for m in doc["models"]])
    check("interrupted by SIGINT" in doc["models"][0]["error"], doc["models"][0]["error"])
    with open(os.path.join(outdir, "compare.csv")) as f:
        rows = list(csv.DictReader(f))
    check([(r["model"], r["status"]) for r in rows] == [(m["model"], m["status"]) for m in doc["models"]], rows)
    check(not [n for n in os.listdir(outdir) if n.endswith(".tmp")], os.listdir(outdir))
    # the earlier comparison's model CSVs, still there, are named as not this comparison's
    check(b"hunt_crossley.csv" in err and b"from an earlier comparison" in err, err)
    # the model's trajectory holds whole rows
    data_ = open(os.path.join(outdir, doc["models"][0]["model"] + ".csv"), "rb").read()
    check(data_.endswith(b"\n"), "torn last row")
    lines = data_.decode().splitlines()
    check(all(len(l.split(",")) == len(lines[0].split(",")) for l in lines), "ragged rows")


@case
def failing_compare_output_leaves_earlier_tables_whole():
    outdir = tempfile.mkdtemp()
    old_csv, old_json = stale_outputs(outdir)
    # compare.json cannot be replaced: a directory takes its name while the models run, so the
    # failure comes only when the tables are written (exit 1); neither table changes
    p = subprocess.Popen([EXE, "compare", data("compare_incline.json"), "--duration", "50",
                          "--out-dir", outdir], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=ROOT)
    first = p.stderr.readline()
    os.remove(os.path.join(outdir, "compare.json"))
    os.mkdir(os.path.join(outdir, "compare.json"))
    _, err = p.communicate(timeout=300)
    check("(1 of 2)" in first and p.poll() is not None, first)
    check(p.returncode == 1 and "compare.json" in err and "contactsim: error:" in err,
          (p.returncode, err))
    check(open(os.path.join(outdir, "compare.csv")).read() == old_csv, "compare.csv was replaced alone")
    check(not [n for n in os.listdir(outdir) if n.endswith(".tmp")], os.listdir(outdir))


@case
def unwritable_tables_are_refused_before_any_run():
    # compare.json, compare.csv or (with --replay) replay.html that cannot be written were found
    # only after every model had run (exit 1, the time spent for nothing): now exit 2 before
    for name, extra in (("compare.json", []), ("compare.csv", []), ("replay.html", ["--replay"])):
        outdir = tempfile.mkdtemp()
        os.mkdir(os.path.join(outdir, name))
        code, out, err = run("compare", data("compare_sphere_rest.json"), "--out-dir", outdir,
                             *extra, env=replay_env())
        check(code == 2 and err.startswith("contactsim: error: cannot write ")
              and name in err and "(1 of" not in err and out == "", (name, code, err))
        check(os.listdir(outdir) == [name], (name, os.listdir(outdir)))
    # a table that is a link is refused as it would be at the end (the tables are renamed over
    # regular files only)
    outdir = tempfile.mkdtemp()
    os.symlink("elsewhere.json", os.path.join(outdir, "compare.json"))
    code, _, err = run("compare", data("compare_sphere_rest.json"), "-q", "--out-dir", outdir)
    check(code == 2 and "compare.json: it is not a regular file" in err, (code, err))


@case
def files_of_an_earlier_comparison_are_named():
    # a comparison of one model in a directory that holds both models' CSVs and a replay page
    # from before: they stay, and are named, so that they are not taken for this comparison's
    outdir = tempfile.mkdtemp()
    stale_outputs(outdir)
    with open(os.path.join(outdir, "replay.html"), "w") as f:
        f.write("<html></html>\n")
    code, _, err = run("compare", data("compare_sphere_rest.json"), "-q", "--out-dir", outdir,
                       "--models", "hunt_crossley")
    check(code == 0, err)
    check("from an earlier comparison" in err and "smooth_sphere_half_space.csv" in err
          and "replay.html" in err and "hunt_crossley.csv" not in err, err)
    doc = json.load(open(os.path.join(outdir, "compare.json")))
    check([m["model"] for m in doc["models"]] == ["hunt_crossley"], doc["models"])
    # every model run again, and no page: nothing to name
    os.remove(os.path.join(outdir, "replay.html"))
    code, _, err = run("compare", data("compare_sphere_rest.json"), "-q", "--out-dir", outdir)
    check(code == 0 and err == "", err)


@case
def compare_never_writes_over_its_scene():
    # a scene named as one of the files the comparison writes: the tables, or the page
    with open(os.path.join(DATA, "compare_sphere_rest.json")) as f:
        text = f.read()
    for name, extra in (("compare.json", []), ("replay.html", ["--replay"])):
        outdir = tempfile.mkdtemp()
        scene = os.path.join(outdir, name)
        with open(scene, "w") as f:
            f.write(text)
        code, _, err = run("compare", scene, "-q", "--out-dir", outdir, *extra, env=replay_env())
        check(code == 2 and "is the scene file" in err and err.startswith("contactsim: error:"),
              (name, code, err))
        check(open(scene).read() == text, "the scene %s was overwritten" % name)

@case
def unwritable_model_csv_is_refused_before_any_run():
    # the second model's CSV cannot be written (a directory has its name): found only at that
    # model's turn, the comparison ended with exit 2 and nothing tabulated, the first model's
    # run thrown away; now nothing runs
    outdir = tempfile.mkdtemp()
    os.mkdir(os.path.join(outdir, "smooth_sphere_half_space.csv"))
    code, out, err = run("compare", data("compare_sphere_rest.json"), "--out-dir", outdir)
    check(code == 2 and "smooth_sphere_half_space.csv" in err and "directory" in err, (code, err))
    check("finished" not in err and out == "", f"a model ran: {err}")
    check(os.listdir(outdir) == ["smooth_sphere_half_space.csv"], os.listdir(outdir))
    # an earlier CSV of a model is kept as it was by the check (it is replaced when its model
    # runs)
    os.rmdir(os.path.join(outdir, "smooth_sphere_half_space.csv"))
    with open(os.path.join(outdir, "hunt_crossley.csv"), "w") as f:
        f.write("old\n")
    code, _, err = run("compare", data("compare_sphere_rest.json"), "-q", "--out-dir", outdir,
                       "--models", "smooth_sphere_half_space")
    check(code == 0, err)
    check(open(os.path.join(outdir, "hunt_crossley.csv")).read() == "old\n", "touched")
    check(sorted(os.listdir(outdir)) == ["compare.csv", "compare.json", "hunt_crossley.csv",
                                         "smooth_sphere_half_space.csv"], os.listdir(outdir))


@case
def csv_write_failure_names_the_file_and_the_others_run():
    # one model's CSV goes to a full device: that model fails, named with the file it could
    # not write (the message was empty when the header already failed), and the other model's
    # results are reported
    outdir = tempfile.mkdtemp()
    os.symlink("/dev/full", os.path.join(outdir, "hunt_crossley.csv"))
    code, out, err = run("compare", data("compare_sphere_rest.json"), "-q", "--out-dir", outdir,
                         "--format", "json")
    check(code == 1, (code, err))
    doc = json.loads(out)
    bad, good = model(doc, "hunt_crossley"), model(doc, "smooth_sphere_half_space")
    check(bad["status"] == "failed" and "hunt_crossley.csv" in bad["error"], bad["error"])
    check(good["status"] == "ok" and good["simulated"] == 0.5, good)
    check("hunt_crossley.csv" in err, err)
    saved = json.load(open(os.path.join(outdir, "compare.json")))
    check([(m["model"], m["status"]) for m in saved["models"]]
          == [(m["model"], m["status"]) for m in doc["models"]], saved["models"])
    check(os.path.islink(os.path.join(outdir, "hunt_crossley.csv")), "the link was replaced")


@case
def standard_output_failure_is_said():
    # a table that cannot be written is an error with a message, not only an exit status
    with open("/dev/full", "w") as full:
        p = subprocess.run([EXE, "compare", data("compare_sphere_rest.json"), "-q", "--format",
                            "json"], stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                           timeout=300)
    check(p.returncode == 1 and p.stderr.startswith("contactsim: error:")
          and "standard output" in p.stderr, (p.returncode, p.stderr))


@case
def csv_cells_with_a_carriage_return_are_quoted():
    # an interrupted model's error names the scene file and holds no comma; a file name with a
    # carriage return left a bare CR in the cell, which CSV readers take as the end of the row
    d = tempfile.mkdtemp()
    scene = os.path.join(d, "spin\rslide.json")
    with open(os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")) as f, \
            open(scene, "w") as g:
        g.write(f.read())
    out, err = interrupted_compare(scene, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out.decode(), newline="")))
    check(len(rows) >= 2 and all(len(r) == len(rows[0]) for r in rows), rows)
    row = dict(zip(rows[0], rows[-1]))
    check(row["status"] == "interrupted"
          and "spin\rslide.json: interrupted by SIGINT" in row["error"], row)


@case
def a_fifo_in_the_output_directory_is_refused_up_front():
    # the writability check would open and close it (its reader seeing an empty stream) and the
    # model's turn then wait for a reader forever, deaf to the first Ctrl-C
    d = tempfile.mkdtemp()
    os.mkfifo(os.path.join(d, "hunt_crossley.csv"))
    code, out, err = run("compare", os.path.join(ROOT, "scenes", "sphere_drop.json"), "--out-dir",
                         d, timeout=30)
    check(code == 2 and "hunt_crossley.csv: it is a FIFO" in err, (code, err))
    # and the page: with every model run, the comparison waited for the FIFO's reader
    d = tempfile.mkdtemp()
    os.mkfifo(os.path.join(d, "replay.html"))
    code, out, err = run("compare", os.path.join(ROOT, "scenes", "sphere_drop.json"), "--out-dir",
                         d, "--replay", timeout=30, env=replay_env())
    check(code == 2 and "replay.html: it is a FIFO; compare --out-dir writes regular files" in
          err and not os.path.exists(os.path.join(d, "hunt_crossley.csv")), (code, err))


@case
def a_directory_without_room_for_the_tables_is_refused_up_front():
    # compare.csv and compare.json are written under temporary names in the directory and
    # renamed: a directory the user may not create files in was found only after every model
    # had run. Checked as another user (nobody), since root may write anywhere; nothing to check
    # when the test cannot change user.
    d, scene = nobody_scene(0o755, os.path.join(ROOT, "scenes", "sphere_drop.json"))
    if d is None:
        return
    # the models' own CSVs may be written (they exist and belong to nobody); the tables may not
    import pwd
    nobody = pwd.getpwnam("nobody")
    for m in ("hunt_crossley", "smooth_sphere_half_space"):
        path = os.path.join(d, m + ".csv")
        open(path, "w").close()
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
    p = as_nobody([EXE, "compare", scene, "--out-dir", d, "-q"], cwd="/")
    if p is None:
        return
    check(p.returncode == 2 and "compare.csv: no file can be created in" in p.stderr,
          (p.returncode, p.stderr))
    check(os.path.getsize(os.path.join(d, "hunt_crossley.csv")) == 0, "a model ran first")


@case
def another_users_table_in_a_sticky_directory_is_refused_up_front():
    # in a directory with the sticky bit (/tmp), a table that belongs to another user cannot be
    # renamed over, even where it may be written: found only after every model had run. As
    # nobody, over root's files (root may rename anything)
    d, scene = nobody_scene(0o1777, os.path.join(ROOT, "scenes", "sphere_drop.json"))
    if d is None:
        return
    table = os.path.join(d, "compare.csv")
    with open(table, "w") as f:
        f.write("old\n")
    os.chmod(table, 0o666)
    p = as_nobody([EXE, "compare", scene, "--out-dir", d, "-q"], cwd="/")
    if p is None:
        return
    check(p.returncode == 2 and "compare.csv: it belongs to another user in a directory with "
          "the sticky bit" in p.stderr, (p.returncode, p.stderr))
    check(not os.path.exists(os.path.join(d, "hunt_crossley.csv")), "a model ran first")


@case
def a_convergence_check_interrupted_says_so_not_that_the_model_failed_it():
    # SIGINT during the check's reruns: the comparison ends (130) with its table, and the
    # model's note says the check was interrupted, not that a rerun of the model failed
    scene = os.path.join(ROOT, "scenes", "double_pendulum.json")
    p = subprocess.Popen([EXE, "compare", scene, "--convergence", "--format", "json",
                          "--duration", "20000", "--set", "simulation.report_interval=1",
                          "--rtol", "1e-4", "--atol", "1e-4", "--max-steps", "100000000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True)
    seen = ""
    while "convergence check (two reruns)" not in seen:
        line = p.stderr.readline()
        if not line:
            break
        seen += line
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise
    check(p.returncode == 130, (p.returncode, seen + err))
    notes = json.loads(out)["models"][0]["diagnostics"]
    check(any("convergence check was interrupted (SIGINT)" in n for n in notes) and
          not any("could not run" in n for n in notes), notes)


finish()
