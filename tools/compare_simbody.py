#!/usr/bin/python3
"""Compare contactsim against Simbody 3.7 (bench/simbody_scene) on random and bundled scenes.

    /usr/bin/python3 tools/compare_simbody.py random [--n N] [--seed S] [--duration T]
                                                      [--keep DIR] [--features a,b] [--budget SEC]
    /usr/bin/python3 tools/compare_simbody.py scenes [--duration T]
    /usr/bin/python3 tools/compare_simbody.py one SCENE.json [--duration T] [--contact-model M]

Each scene is run by contactsim converged (--rtol 1e-10 --atol 1e-10, with bdf and with the
--one-step integrator, rk unless told) and
by simbody_scene converged (RK-Merson, accuracy 1e-10). Reported per scene: the largest
difference of body origin positions (m) between Simbody and each contactsim run, the largest
difference of orientations (|q1 - q2| of the w >= 0 quaternions) and of pin/slider coordinates,
the difference between contactsim's two integrators (a measure of how sensitive the scene is),
and for scenes without dissipation or external work the drift of KE + PE in both engines.

The random scenes are trees of 1 to 6 bodies (weld, pin, slider, ball, free joints with random
parent and child frames, masses, inertias given as diag, matrix, box, sphere or cylinder, random
initial states, free bodies sometimes given by "initial"), gravity on or off, and random
mobility springs, dampers, linear stops, linear bushings, two-point springs and constant forces;
with --features hc a Hunt-Crossley sphere on a floor is added, with --features ss a
smooth_sphere_half_space sphere (random parameters, sometimes non-default cf, bd, bv) on a
floor that is sometimes tilted, or on a platform body (a slider along its normal held by a
mobility spring, so the contact's reaction and the relative velocity of a moving plane count).

A scene is flagged "!!" when Simbody differs from contactsim bdf by more than --threshold while
contactsim's bdf and one-step runs agree within threshold/10 (both converged), "??" when Simbody differs
but contactsim's two integrators disagree too. Timeouts and failures are counted per engine.

Needs a build with the Simbody peers (libsimbody-dev installed): BUILD/contactsim and
BUILD/bench/simbody_scene, BUILD given by --build (default: build).
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CS = os.path.join(ROOT, "build", "contactsim")
SB = os.path.join(ROOT, "build", "bench", "simbody_scene")
TOL = 1e-10


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    head = rows[0]
    data = np.array([[float(x) for x in r] for r in rows[1:] if len(r) == len(head)])
    if data.size == 0:
        data = np.zeros((0, len(head)))
    return {k: data[:, i] for i, k in enumerate(head)}


# the one-step integrator run beside bdf (--one-step)
ONE_STEP = "rk"


def run_cs(scene, out, integrator, duration, dt, contact_model=None, timeout=60):
    cmd = [CS, "run", scene, "-o", out, "--rtol", str(TOL), "--atol", str(TOL), "--integrator",
           integrator, "--duration", str(duration), "--report-interval", str(dt), "--quiet",
           "--max-steps", "10000000"]
    if contact_model:
        cmd += ["--contact-model", contact_model]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError("contactsim %s failed (%d): %s" % (integrator, r.returncode,
                                                             r.stderr.strip()[-400:]))
    return read_csv(out)


def run_sb(scene, out, duration, dt, contact_model=None, integrator="rkmerson", accuracy=TOL,
           extra=(), timeout=60):
    cmd = [SB, scene, "-o", out, "--duration", str(duration), "--report-interval", str(dt),
           "--integrator", integrator, "--accuracy", str(accuracy)] + list(extra)
    if contact_model:
        cmd += ["--contact-model", contact_model]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError("simbody_scene failed (%d): %s" % (r.returncode, r.stderr.strip()[-400:]))
    return read_csv(out)


def bodies_of(traj):
    return [k[:-3] for k in traj if k.endswith(".px")]


def diff(a, b):
    """largest differences between two trajectories: positions, orientations, coordinates,
    and the time and body where the position difference is largest"""
    n = min(len(a["t"]), len(b["t"]))
    if n == 0:
        return dict(pos=float("inf"), rot=float("inf"), coord=float("inf"), where="no rows")
    if np.max(np.abs(a["t"][:n] - b["t"][:n])) > 1e-9:
        raise RuntimeError("report times differ")
    pos = rot = coord = 0.0
    where = ""
    for body in bodies_of(a):
        if body + ".px" not in b:
            continue
        pa = np.stack([a[body + c][:n] for c in (".px", ".py", ".pz")], 1)
        pb = np.stack([b[body + c][:n] for c in (".px", ".py", ".pz")], 1)
        d = np.linalg.norm(pa - pb, axis=1)
        i = int(np.argmax(d))
        if d[i] > pos or not where:
            pos = max(pos, float(d[i]))
            where = "%s at t=%g" % (body, a["t"][i])
        qa = np.stack([a[body + c][:n] for c in (".qw", ".qx", ".qy", ".qz")], 1)
        qb = np.stack([b[body + c][:n] for c in (".qw", ".qx", ".qy", ".qz")], 1)
        dq = np.minimum(np.linalg.norm(qa - qb, axis=1), np.linalg.norm(qa + qb, axis=1))
        rot = max(rot, float(np.max(dq)))
        for c in (".q0", ".u0"):
            if body + c in a and body + c in b and c == ".q0":
                coord = max(coord, float(np.max(np.abs(a[body + c][:n] - b[body + c][:n]))))
    return dict(pos=pos, rot=rot, coord=coord, where=where, rows=n)


def energy_drift(traj, total=None):
    e = traj["ke"] + traj["pe"] if total is None else traj[total]
    return float(np.max(np.abs(e - e[0])))


# ------------------------------------------------------------------------------------------
# random scenes

def rand_rotation(rng):
    form = rng.random()
    if form < 0.15:
        return None
    if form < 0.6:
        return {"axis": [rng.uniform(-1, 1) for _ in range(3)], "angle_deg": rng.uniform(-180, 180)}
    if form < 0.8:
        return {"axis": [rng.uniform(-1, 1) for _ in range(3)], "angle": rng.uniform(-3, 3)}
    q = [rng.gauss(0, 1) for _ in range(4)]
    return {"quaternion": q}


def rand_frame(rng, scale=0.5, identity_p=0.25):
    if rng.random() < identity_p:
        return None
    fr = {}
    if rng.random() < 0.85:
        fr["position"] = [rng.uniform(-scale, scale) for _ in range(3)]
    r = rand_rotation(rng)
    if r:
        fr["rotation"] = r
    return fr


def rot_matrix(rng):
    q = np.array([rng.gauss(0, 1) for _ in range(4)])
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def rand_inertia(rng, mass):
    form = rng.choice(["diag", "matrix", "box", "sphere", "cylinder"])
    if form == "box":
        return {"box": [rng.uniform(0.05, 0.3) for _ in range(3)]}
    if form == "sphere":
        return {"sphere": rng.uniform(0.05, 0.3)}
    if form == "cylinder":
        return {"cylinder": {"radius": rng.uniform(0.03, 0.2), "half_length": rng.uniform(0.05, 0.4)}}
    # principal moments of a solid box: the triangle inequality holds
    h = [rng.uniform(0.05, 0.3) for _ in range(3)]
    d = [mass / 3 * (h[1] ** 2 + h[2] ** 2), mass / 3 * (h[0] ** 2 + h[2] ** 2),
         mass / 3 * (h[0] ** 2 + h[1] ** 2)]
    if form == "diag":
        return {"diag": d}
    R = rot_matrix(rng)
    I = R @ np.diag(d) @ R.T
    return {"matrix": [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]}


def dropped_ball(rng, name, bodies):
    """Append a free ball of random radius and mass, just above the floor, moving and spinning at
    random; return its radius."""
    r = rng.uniform(0.05, 0.15)
    m = rng.uniform(0.5, 2)
    bodies.append({"name": name, "mass": m, "inertia": {"sphere": r},
                   "joint": {"type": "free", "initial": {
                       "position": [0, 0, r + rng.uniform(0.0, 0.2)],
                       "velocity": [rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 0)],
                       "angular_velocity": [rng.uniform(-3, 3) for _ in range(3)]}}})
    return r


def rand_scene(rng, features=None, nmax=6, free_damper=True):
    feats = set()
    allowed = set(features) if features else None

    def want(name, p):
        if allowed is not None and name not in allowed:
            return False
        return rng.random() < p

    types = ["weld", "pin", "slider", "ball", "free"]
    if allowed is not None:
        types = [t for t in types if t in allowed] or ["pin"]
    n = rng.randint(1, nmax)
    bodies = []
    for i in range(n):
        mass = rng.uniform(0.2, 3.0)
        jt = rng.choice(types)
        feats.add(jt)
        parent = rng.choice(["ground"] + [b["name"] for b in bodies])
        joint = {"type": jt, "parent": parent}
        pf = rand_frame(rng)
        cf = rand_frame(rng, 0.3, 0.4)
        if pf:
            joint["parent_frame"] = pf
        if cf:
            joint["child_frame"] = cf
        if jt == "pin":
            joint["q"] = [rng.uniform(-1.5, 1.5)]
            joint["u"] = [rng.uniform(-2, 2)]
        elif jt == "slider":
            joint["q"] = [rng.uniform(-0.3, 0.3)]
            joint["u"] = [rng.uniform(-1, 1)]
        elif jt == "ball":
            joint["q"] = [rng.gauss(0, 1) for _ in range(4)]
            joint["u"] = [rng.uniform(-2, 2) for _ in range(3)]
        elif jt == "free":
            if rng.random() < 0.3:
                feats.add("free_initial")
                init = {"position": [rng.uniform(-1, 1) for _ in range(3)],
                        "velocity": [rng.uniform(-1, 1) for _ in range(3)],
                        "angular_velocity": [rng.uniform(-2, 2) for _ in range(3)]}
                r = rand_rotation(rng)
                if r:
                    init["orientation"] = r
                joint["initial"] = init
            else:
                joint["q"] = [rng.gauss(0, 1) for _ in range(4)] + [rng.uniform(-0.5, 0.5) for _ in range(3)]
                joint["u"] = [rng.uniform(-2, 2) for _ in range(3)] + [rng.uniform(-1, 1) for _ in range(3)]
        body = {"name": "b%d" % i, "mass": mass, "inertia": rand_inertia(rng, mass), "joint": joint}
        if rng.random() < 0.7:
            body["com"] = [rng.uniform(-0.3, 0.3) for _ in range(3)]
        bodies.append(body)

    scene = {"name": "rand", "bodies": bodies}
    if (allowed is None or "gravity" in allowed) and rng.random() < 0.7:
        scene["gravity"] = [0, 0, -9.81] if rng.random() < 0.7 else [rng.uniform(-5, 5) for _ in range(3)]
        feats.add("gravity")
    else:
        scene["gravity"] = [0, 0, 0]

    forces = []
    names = [b["name"] for b in bodies]
    for b in bodies:
        jt = b["joint"]["type"]
        q = b["joint"].get("q", [0])[0]
        if jt in ("pin", "slider"):
            if want("mobility_spring", 0.4):
                forces.append({"type": "mobility_spring", "body": b["name"],
                               "stiffness": rng.uniform(0.5, 30), "q0": rng.uniform(-0.5, 0.5)})
                feats.add("mobility_spring")
            if want("linear_stop", 0.5):
                w = rng.uniform(0.05, 0.6)
                st = {"type": "linear_stop", "body": b["name"], "stiffness": rng.uniform(50, 1000)}
                which = rng.random()
                if which < 0.7:
                    st["lower_bound"] = q - w
                if which > 0.3:
                    st["upper_bound"] = q + rng.uniform(0.05, 0.6)
                if rng.random() < 0.7:
                    st["dissipation"] = rng.uniform(0, 0.5)
                forces.append(st)
                feats.add("linear_stop")
        if jt != "weld" and (free_damper or jt != "free") and want("mobility_damper", 0.3):
            nu = {"pin": 1, "slider": 1, "ball": 3, "free": 6}[jt]
            forces.append({"type": "mobility_damper", "body": b["name"], "coordinate": rng.randrange(nu),
                           "damping": rng.uniform(0, 0.5)})
            feats.add("mobility_damper")
        if want("linear_bushing", 0.35 if jt in ("free", "ball") else 0.1):
            other = rng.choice(["ground"] + [x for x in names if x != b["name"]])
            bu = {"type": "linear_bushing", "body1": other, "body2": b["name"],
                  "rotational_stiffness": [rng.uniform(0, 5) for _ in range(3)],
                  "translational_stiffness": [rng.uniform(0, 100) for _ in range(3)]}
            f1 = rand_frame(rng, 0.3, 0.5)
            f2 = rand_frame(rng, 0.3, 0.5)
            if f1:
                bu["frame1"] = f1
            if f2:
                bu["frame2"] = f2
            if rng.random() < 0.6:
                bu["rotational_damping"] = [rng.uniform(0, 0.2) for _ in range(3)]
                bu["translational_damping"] = [rng.uniform(0, 2) for _ in range(3)]
            forces.append(bu)
            feats.add("linear_bushing")
        if want("spring", 0.25):
            other = rng.choice(["ground"] + [x for x in names if x != b["name"]])
            sp = {"type": "spring", "body1": other, "station1": [rng.uniform(-0.5, 0.5) for _ in range(3)],
                  "body2": b["name"], "station2": [rng.uniform(-0.3, 0.3) for _ in range(3)],
                  "stiffness": rng.uniform(1, 100), "rest_length": rng.uniform(0.2, 1.0)}
            if rng.random() < 0.5:
                sp["damping"] = rng.uniform(0, 1)
            forces.append(sp)
            feats.add("spring")
        if want("constant", 0.15):
            forces.append({"type": "constant", "body": b["name"],
                           "station": [rng.uniform(-0.3, 0.3) for _ in range(3)],
                           "force": [rng.uniform(-3, 3) for _ in range(3)],
                           "torque": [rng.uniform(-0.3, 0.3) for _ in range(3)]})
            feats.add("constant")
    if allowed is not None and "hc" in allowed:
        # a sphere on a free body, dropped onto a floor (plane possibly tilted)
        r = dropped_ball(rng, "ball", bodies)
        scene["gravity"] = [0, 0, -9.81]
        scene["planes"] = [{"name": "floor"}]
        hc = {"type": "hunt_crossley", "name": "hc", "body": "ball", "plane": "floor", "radius": r,
              "plane_strain_modulus": 10 ** rng.uniform(6, 8), "transition_velocity": rng.uniform(0.05, 0.3)}
        if rng.random() < 0.5:
            hc["dissipation"] = rng.uniform(0, 2)
        if rng.random() < 0.7:
            hc["mu_static"] = rng.uniform(0.3, 0.9)
            hc["mu_dynamic"] = hc["mu_static"] * rng.uniform(0.5, 1)
        forces.append(hc)
        feats.add("hunt_crossley")
    if allowed is not None and "ss" in allowed:
        # a smooth sphere on a free body, dropped onto a floor or onto a moving platform
        r = dropped_ball(rng, "sball", bodies)
        scene["gravity"] = [0, 0, -9.81]
        planes = scene.setdefault("planes", [])
        pf = {}
        where = rng.random()
        if where < 0.3:
            pf["rotation"] = {"axis": [rng.uniform(-1, 1), rng.uniform(-1, 1), 0],
                              "angle_deg": rng.uniform(-20, 20)}
        if where > 0.7:
            # platform on a vertical slider (slider axis x of the joint frame turned onto z)
            pm = rng.uniform(0.5, 3)
            bodies.append({"name": "platform", "mass": pm, "inertia": {"box": [0.5, 0.5, 0.05]},
                           "joint": {"type": "slider", "parent": "ground",
                                     "parent_frame": {"position": [0, 0, -0.1],
                                                      "rotation": {"axis": [0, 1, 0], "angle_deg": -90}},
                                     "q": [0.0], "u": [rng.uniform(-0.5, 0.5)]}})
            forces.append({"type": "mobility_spring", "body": "platform",
                           "stiffness": rng.uniform(200, 2000), "q0": -pm * 9.81 / 1000})
            # the plane on the platform at its top face, +z outward in Ground: the platform frame
            # is turned -90 deg about y (its x is Ground's z), so turn back by +90 deg
            planes.append({"name": "sfloor", "body": "platform",
                           "frame": {"position": [0.1, 0, 0],
                                     "rotation": {"axis": [0, 1, 0], "angle_deg": 90}}})
            feats.add("ss_platform")
        else:
            planes.append({"name": "sfloor", "frame": pf} if pf else {"name": "sfloor"})
            if pf:
                feats.add("ss_tilted")
        ss = {"type": "smooth_sphere_half_space", "name": "ss", "body": "sball", "plane": "sfloor",
              "radius": r, "plane_strain_modulus": 10 ** rng.uniform(6, 8),
              "transition_velocity": rng.uniform(0.05, 0.3)}
        if rng.random() < 0.3:
            ss["center"] = [rng.uniform(-0.02, 0.02) for _ in range(3)]
        if rng.random() < 0.6:
            ss["dissipation"] = rng.uniform(0, 2)
        if rng.random() < 0.7:
            ss["mu_static"] = rng.uniform(0.3, 0.9)
            ss["mu_dynamic"] = ss["mu_static"] * rng.uniform(0.5, 1)
        if rng.random() < 0.3:
            ss["mu_viscous"] = rng.uniform(0, 0.5)
        if rng.random() < 0.3:
            ss["constant_contact_force"] = 10 ** rng.uniform(-7, -4)
        if rng.random() < 0.3:
            ss["hertz_smoothing"] = rng.uniform(100, 3000)
        if rng.random() < 0.3:
            ss["hunt_crossley_smoothing"] = rng.uniform(10, 200)
        forces.append(ss)
        feats.add("smooth_sphere")
    scene["forces"] = forces
    return scene, feats


def conservative(scene):
    if scene.get("contacts"):
        return False
    for f in scene.get("forces", []):
        t = f["type"]
        if t in ("mobility_damper", "constant", "hunt_crossley", "smooth_sphere_half_space"):
            return False
        if t == "linear_stop" and f.get("dissipation", 0) > 0:
            return False
        if t == "spring" and f.get("damping", 0) > 0:
            return False
        if t == "linear_bushing" and (any(f.get("rotational_damping", [0])) or any(f.get("translational_damping", [0]))):
            return False
    return True


class EngineTimeout(Exception):
    pass


def compare_scene(path, duration, dt, contact_model=None, scene=None, sb_extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.time()
        try:
            sb = run_sb(path, os.path.join(tmp, "sb.csv"), duration, dt, contact_model, extra=sb_extra)
        except subprocess.TimeoutExpired:
            raise EngineTimeout("simbody")
        try:
            bdf = run_cs(path, os.path.join(tmp, "bdf.csv"), "bdf", duration, dt, contact_model)
            rk = run_cs(path, os.path.join(tmp, "rk.csv"), ONE_STEP, duration, dt, contact_model)
        except subprocess.TimeoutExpired:
            raise EngineTimeout("contactsim")
        res = dict(bdf=diff(sb, bdf), rk=diff(sb, rk), self=diff(bdf, rk), secs=time.time() - t0)
        if scene is not None and conservative(scene):
            res["drift_sb"] = energy_drift(sb)
            res["drift_cs"] = energy_drift(rk, "e_total")
        return res


def fmt(res):
    s = ("pos sb-bdf %.2e sb-" + ONE_STEP + " %.2e bdf-" + ONE_STEP +
         " %.2e | rot sb-bdf %.2e | q %.2e | worst %s") % (
        res["bdf"]["pos"], res["rk"]["pos"], res["self"]["pos"], res["bdf"]["rot"],
        res["bdf"]["coord"], res["bdf"]["where"])
    if "drift_sb" in res:
        s += " | E drift sb %.1e cs %.1e" % (res["drift_sb"], res["drift_cs"])
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["random", "scenes", "one"])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="build directory with contactsim and bench/simbody_scene")
    ap.add_argument("scene", nargs="?")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--keep", help="directory to keep the random scenes in")
    ap.add_argument("--features", help="comma-separated subset of joint types and force kinds")
    ap.add_argument("--budget", type=float, default=240, help="stop after this many seconds")
    ap.add_argument("--threshold", type=float, default=1e-6)
    ap.add_argument("--contact-model")
    ap.add_argument("--nmax", type=int, default=6)
    ap.add_argument("--no-free-damper", action="store_true",
                    help="no mobility dampers on free joints")
    ap.add_argument("--sb-extra", default="", help="extra simbody_scene options, space separated")
    ap.add_argument("--one-step", default="rk", choices=("rk", "rk23", "ark"),
                    help="the one-step integrator run beside bdf (default rk)")
    args = ap.parse_args()
    global ONE_STEP
    ONE_STEP = args.one_step
    global CS, SB
    CS = os.path.join(args.build, "contactsim")
    SB = os.path.join(args.build, "bench", "simbody_scene")
    sb_extra = args.sb_extra.split()

    if args.mode == "one":
        if not args.scene:
            ap.error("one needs a SCENE")
        try:
            print(fmt(compare_scene(args.scene, args.duration, args.dt, args.contact_model,
                                    json.load(open(args.scene)), sb_extra)))
        except (OSError, ValueError, RuntimeError, EngineTimeout) as e:
            sys.exit("compare_simbody.py: %s: %s" % (args.scene, e))
        return

    if args.mode == "scenes":
        import glob
        for path in sorted(glob.glob(os.path.join(ROOT, "scenes", "*.json")) +
                           glob.glob(os.path.join(ROOT, "scenes", "bench", "*.json"))):
            sc = json.load(open(path))
            models = [None]
            if sc.get("contacts"):
                models = [m for m in ("hunt_crossley", "smooth_sphere_half_space")
                          if m in sc.get("contact_models", {})]
            name = os.path.relpath(path, ROOT)
            if len(sc.get("bodies", [])) > 20:
                print("%-40s skipped: more than 20 bodies" % name)
                continue
            if not models:
                print("%-40s skipped: no hunt_crossley or smooth_sphere_half_space block" % name)
                continue
            for m in models:
                try:
                    res = compare_scene(path, args.duration, args.dt, m, sc, sb_extra)
                    print("%-40s %s%s" % (name, fmt(res), " [%s]" % m if m else ""))
                except (subprocess.TimeoutExpired, EngineTimeout) as e:
                    print("%-40s timeout %s%s" % (name, e, " [%s]" % m if m else ""))
                except RuntimeError as e:
                    msg = str(e).splitlines()[0] if str(e) else ""
                    print("%-40s skipped: %s" % (name, msg[:150]))
        return

    rng = random.Random(args.seed)
    feats_req = args.features.split(",") if args.features else None
    per_feature = {}
    failures = {}
    worst = []
    t_start = time.time()
    done = 0
    keep = args.keep
    if keep:
        os.makedirs(keep, exist_ok=True)
    for i in range(args.n):
        if time.time() - t_start > args.budget:
            print("budget reached after %d scenes" % done)
            break
        scene, feats = rand_scene(rng, feats_req, args.nmax, not args.no_free_damper)
        d = keep or tempfile.mkdtemp()
        path = os.path.join(d, "rand_%d_%d.json" % (args.seed, i))
        with open(path, "w") as f:
            json.dump(scene, f, indent=1)
        try:
            res = compare_scene(path, args.duration, args.dt, None, scene, sb_extra)
        except EngineTimeout as e:
            print("%3d timeout (%s) %s" % (i, e, path))
            failures["timeout " + str(e)] = failures.get("timeout " + str(e), 0) + 1
            continue
        except RuntimeError as e:
            print("%3d error %s: %s" % (i, path, e))
            k = "error " + str(e).split()[0]
            failures[k] = failures.get(k, 0) + 1
            continue
        done += 1
        flag = "  "
        if res["bdf"]["pos"] > args.threshold:
            flag = "!!" if res["self"]["pos"] <= args.threshold / 10 else "??"
        print("%s %3d n=%d %-60s %s" % (flag, i, len(scene["bodies"]), ",".join(sorted(feats)), fmt(res)), flush=True)
        for ft in feats:
            per_feature.setdefault(ft, []).append(res["bdf"]["pos"])
        worst.append((res["bdf"]["pos"], path))
        if not keep:
            if res["bdf"]["pos"] <= args.threshold:
                os.unlink(path)
                os.rmdir(d)
    print("\n%d scenes compared; largest position difference Simbody vs contactsim bdf, per feature:" % done)
    for ft in sorted(per_feature):
        v = per_feature[ft]
        print("  %-16s scenes %3d  max %.2e  median %.2e" % (ft, len(v), max(v), float(np.median(v))))
    for k in sorted(failures):
        print("  not compared: %s: %d" % (k, failures[k]))
    worst.sort(reverse=True)
    for w, p in worst[:5]:
        print("  worst %.2e %s" % (w, p))


if __name__ == "__main__":
    main()
