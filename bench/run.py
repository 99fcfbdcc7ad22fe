#!/usr/bin/python3
"""run.py: contactsim against Simbody and MuJoCo at matched accuracy.

    bench/run.py [--build DIR] [--reps R] [--only SCENE,...] [--skip-mujoco] [--skip-simbody]
                 [--skip-alone] [--json FILE] [--integrator NAME]
    bench/run.py --integrators rk [--build DIR] [--reps R] [--only SCENE,...] [--peer-models]

For every scene (scenes/bench/, the contact model named below) it

1. runs each engine once converged (contactsim rtol = atol = 1e-10; Simbody CPodes at accuracy
   1e-10; MuJoCo RK4 at a 1e-4 s step) and measures every run's error as the largest distance,
   over report times (0.01 s) and bodies, between a body's centre of mass and the same in the
   engine's own converged run;
2. measures Simbody's error at accuracy 1e-5 with RK-Merson and CPodes, and contactsim's error on
   a ladder of tolerances (rtol = atol, four to a decade), and picks for each Simbody integrator the loosest
   contactsim tolerance whose error is no larger (the matched tolerance);
3. times, interleaved (contactsim, peer, contactsim, peer, ...), R runs of each pair and reports
   medians of the CPU time of the integration alone (as each program reports it) and of the
   whole process (getrusage of the child), and their ratio contactsim / peer. contactsim's
   integration time leaves out its reports (CSV every 0.01 s); Simbody's is taken from a run
   with one report at the end (same steps; its reports every 0.01 s cost it about 0.1 ms each
   inside stepTo), its whole process from the run that reports every 0.01 s and writes nothing.
   A MuJoCo run that diverges (MuJoCo warns, resets and goes on) has no error and is not timed;
4. for MuJoCo at its defaults (2 ms, Euler), the contactsim tolerance is the loosest one that
   keeps every body within 1 mm of contactsim's converged trajectory, and the same interleaved
   timing is done against MuJoCo; unless --integrator is given, also with LOOSE_INTEGRATOR, the
   integrator for loose tolerances, on its own ladder against the same converged run (a user
   after 1 mm picks the integrator as well as the tolerance, as MuJoCo held to 1 mm in 5 is
   given the faster of its two; rows marked "[contactsim rk23]");
5. MuJoCo held to the same rule: for Euler and RK4, the longest step of MUJOCO_STEPS at which
   (and at every shorter one) every body stays within 1 mm of MuJoCo's converged run, timed the
   same way against contactsim at its 1 mm tolerance; the summary takes the faster integrator;
6. MuJoCo's contact is neither of contactsim's models, so on a scene whose own contact model is
   not the one Simbody is compared on (the blocks and inclines: exponential springs), 4 and 5 are
   also done with contactsim running the scene as written (rows marked "(scene)");
7. MuJoCo's joint limits and contacts are its own soft constraints, so 4 and 5 are also done
   with MuJoCo integrating the same equations as contactsim: on the scenes with stops
   (pendulum_stop, chain_N) the scene's own stops (mujoco_peer --stops scene: unlimited joints
   and the stops' force law added to its passive forces; rows marked "[MuJoCo: the scene's
   stops]"), and on the scenes compared on Hunt-Crossley the same Hunt-Crossley spheres
   (mujoco_peer --contact hunt_crossley; "[MuJoCo: Hunt-Crossley spheres]"), its converged run
   RK4 at a step short enough for those stiffer laws and its steps SAME_EQUATION_STEPS.

--integrator NAME runs contactsim with that integrator (bdf, adams, rk, rk23, ark) instead of
each scene's own (the converged reference keeps the scene's). --integrators NAME,... compares
integrators on the bench scenes with their own contact models instead (see
integrator_comparison).

The peers are bench/simbody_peer and bench/mujoco_peer in the build directory (built when
libsimbody-dev and libmujoco-dev are installed). Use a release build:
    meson setup build-rel --buildtype=release && ninja -C build-rel
"""

import argparse
import csv
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# scene -> contactsim contact model (None: the scene's forces) compared with the peers; the
# peers build the same model (see bench/simbody_peer.cpp for how)
SCENES = [
    ("block_spin_slide", "compliant_point"),
    ("block_spin_slide_vt001", "compliant_point"),
    ("incline_stick", "hunt_crossley"),
    ("incline_slide", "hunt_crossley"),
    ("sphere_bounce_roll", "hunt_crossley"),
    ("pendulum_stop", None),
    ("bushing_hang", None),
    ("chain_1", None),
    ("chain_4", None),
    ("chain_16", None),
    ("chain_64", None),
]
MUJOCO_SCENES = {"block_spin_slide", "incline_stick", "incline_slide", "sphere_bounce_roll",
                 "pendulum_stop", "bushing_hang", "chain_1", "chain_4", "chain_16", "chain_64"}
# Tolerances tried, four to a decade (1, 2, 3, 5): a coarser ladder matches a peer's error
# with a tolerance up to 3x tighter than needed and overstates contactsim's cost by as much.
# The top of the ladder, 5e-2 to 1e-2, is for the millimetre rule against MuJoCo, which a
# third-order pair can meet above 1e-2. The tables print the 1-3 points (COARSE).
LADDER = [float("%ge%d" % (m, -k)) for k in range(2, 9) for m in (5, 3, 2, 1)]
COARSE = [1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8]
ONE_MM = 1e-3
# contactsim's integrator for loose tolerances (docs/performance.md, "rk23"): step 4 times it too
LOOSE_INTEGRATOR = "rk23"
MUJOCO_REF_STEP = "1e-4"   # MuJoCo's converged run: RK4 at a 0.1 ms step (20x below its default)
# MuJoCo at matched accuracy: the steps tried (each divides the 0.01 s report interval), longest
# first; RK4 stops short of the reference's own step
MUJOCO_STEPS = {"Euler": ["2e-3", "1e-3", "5e-4", "2e-4", "1e-4"],
                "RK4": ["2e-3", "1e-3", "5e-4", "2e-4"]}
# the same with the scenes' own stops in MuJoCo (a chain's stiffest mode, a stop struck deep,
# is about -22,000 /s: RK4 is stable below 0.13 ms), on these scenes
STOP_SCENES = {"pendulum_stop", "chain_1", "chain_4", "chain_16", "chain_64"}
SAME_EQUATION_STEPS = {"Euler": ["2e-3", "1e-3", "5e-4", "2e-4", "1e-4", "5e-5", "2e-5"],
                       "RK4": ["2e-3", "1e-3", "5e-4", "2e-4", "1e-4", "5e-5", "2e-5"]}
# MuJoCo with the same equations as contactsim: (label, mujoco_peer's options, the converged
# run's RK4 step, the steps tried) for the scenes' stops, and for the Hunt-Crossley spheres on the scenes compared
# on that model (the ball's bounce needs 5 us: at 10 us RK4 ends 7.8e-6 m from the 5 us run)
SCENE_STOPS = ("MuJoCo: the scene's stops", ["--stops", "scene"], "1e-5", SAME_EQUATION_STEPS)
SCENE_HC = ("MuJoCo: Hunt-Crossley spheres", ["--contact", "hunt_crossley"], "5e-6",
            SAME_EQUATION_STEPS)
# MuJoCo's own contacts and limits (no label: the rows the targets name)
MUJOCO_OWN = (None, [], MUJOCO_REF_STEP, MUJOCO_STEPS)
HC_SCENES = {"incline_stick", "incline_slide", "sphere_bounce_roll"}


def run_timed(cmd, timeout=900):
    """Run cmd; returns (returncode, stdout, stderr, child CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out", float("nan")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode, p.stdout, p.stderr, cpu


# ---------------------------------------------------------------------------------------------
# trajectories: centre of mass of every body at every report time

def quat_rotate(q, v):
    w, x, y, z = q
    # v + 2 w (r x v) + 2 r x (r x v), r = (x, y, z)
    cx = y * v[2] - z * v[1]
    cy = z * v[0] - x * v[2]
    cz = x * v[1] - y * v[0]
    return (v[0] + 2 * (w * cx + y * cz - z * cy),
            v[1] + 2 * (w * cy + z * cx - x * cz),
            v[2] + 2 * (w * cz + x * cy - y * cx))


def contactsim_coms(csv_path, scene):
    """Rows (t, [com of each body]) from a contactsim CSV and the scene's body COMs."""
    bodies = [(b["name"], b.get("com", [0, 0, 0])) for b in scene["bodies"]]
    out = []
    with open(csv_path) as f:
        rd = csv.reader(f)
        head = next(rd)
        col = {h: i for i, h in enumerate(head)}
        for row in rd:
            t = float(row[0])
            coms = []
            for name, com in bodies:
                p = [float(row[col[name + a]]) for a in (".px", ".py", ".pz")]
                q = [float(row[col[name + a]]) for a in (".qw", ".qx", ".qy", ".qz")]
                r = quat_rotate(q, com)
                coms.append((p[0] + r[0], p[1] + r[1], p[2] + r[2]))
            out.append((t, coms))
    return out


def peer_coms(csv_path):
    out = []
    with open(csv_path) as f:
        rd = csv.reader(f)
        next(rd)
        for row in rd:
            v = [float(x) for x in row]
            out.append((v[0], [tuple(v[1 + 3 * i:4 + 3 * i]) for i in range((len(v) - 1) // 3)]))
    return out


def traj_error(a, b):
    """Largest distance between the same body's COM at the same report time (infinite when
    the two runs do not report at the same times: one that stopped early has no error)."""
    n = len(a)
    if n == 0 or len(b) != n:
        return float("inf")
    err = 0.0
    for i in range(n):
        if abs(a[i][0] - b[i][0]) > 1e-9:
            return float("inf")
        for p, q in zip(a[i][1], b[i][1]):
            err = max(err, math.dist(p, q))
    return err


# ---------------------------------------------------------------------------------------------
# the engines

SAME = object()  # Contactsim.cmd: the integrator the object was made with


class Contactsim:
    def __init__(self, build, scene, model, integrator=None):
        self.exe = os.path.join(build, "contactsim")
        self.path = os.path.join(ROOT, "scenes", "bench", scene + ".json")
        with open(self.path) as f:
            self.scene = json.load(f)
        self.model = model
        self.integrator = integrator  # None: the scene's own

    def cmd(self, tol, out, integrator=SAME):
        """The run at rtol = atol = tol (None: the scene's tolerances) with the integrator given
        (None: the scene's own; SAME: this object's)."""
        c = [self.exe, "run", self.path, "-o", out]
        if tol is not None:
            c += ["--rtol", "%g" % tol, "--atol", "%g" % tol]
        if self.model:
            c += ["--contact-model", self.model]
        integrator = self.integrator if integrator is SAME else integrator
        if integrator:
            c += ["--integrator", integrator]
        return c

    def trajectory(self, tol, tmp, integrator=SAME):
        out = os.path.join(tmp, "cs_%g.csv" % tol)
        rc, _, err, _ = run_timed(self.cmd(tol, out, integrator))
        if rc not in (0,):
            raise RuntimeError("contactsim failed at %g: %s" % (tol, err.strip()[-300:]))
        return contactsim_coms(out, self.scene)

    def timed(self, tol):
        rc, _, err, cpu = run_timed(self.cmd(tol, "/dev/null"))
        m = re.search(r"([0-9.eE+-]+) s CPU for the integration", err)
        if rc != 0 or not m:
            raise RuntimeError("contactsim failed: %s" % err.strip()[-300:])
        return float(m.group(1)), cpu


class Peer:
    """A peer program on one scene. integration_args, when given, make a second timed run
    whose integration CPU is the one taken (its process CPU is the run without them): Simbody's
    integration is timed with one report at the end, since its steps are the same (RK-Merson;
    CPodes, held to each report time, takes a few percent more steps with them) and its reports
    every 10 ms cost it about 0.1 ms each inside stepTo, while contactsim's integration time
    leaves its reports out; its whole process is the program that reports every 10 ms and
    writes nothing. unstable: the last trajectory's run warned that the simulation diverged
    (MuJoCo then resets the state and goes on)."""

    def __init__(self, exe, scene, args, integration_args=()):
        self.exe, self.scene, self.args = exe, scene, args
        self.integration_args = list(integration_args)
        self.unstable = False

    def cmd(self, extra):
        return [self.exe, self.scene] + self.args + extra

    def trajectory(self, tmp, tag):
        out = os.path.join(tmp, "%s_%s.csv" % (os.path.basename(self.exe), tag))
        rc, so, err, _ = run_timed(self.cmd(["--traj", out]))
        if rc != 0:
            raise RuntimeError("%s failed: %s" % (self.exe, err.strip()[-300:]))
        self.unstable = "unstable" in err.lower()
        return peer_coms(out), so

    def timed(self, extra=()):
        rc, so, err, cpu = run_timed(self.cmd(list(extra)))
        m = re.search(r"cpu_integration=([0-9.eE+-]+)", so)
        if rc != 0 or not m:
            raise RuntimeError("%s failed: %s" % (self.exe, err.strip()[-300:]))
        return float(m.group(1)), cpu


def default_error(cs, ref, tmp):
    """Error of a run at the library's default tolerances and integrator (the scene's
    simulation block without rtol, atol and integrator)."""
    scene = json.loads(json.dumps(cs.scene))
    for key in ("rtol", "atol", "integrator"):
        scene.get("simulation", {}).pop(key, None)
    path = os.path.join(tmp, "defaults_" + os.path.basename(cs.path))
    with open(path, "w") as f:
        json.dump(scene, f)
    out = os.path.join(tmp, "cs_defaults.csv")
    c = [cs.exe, "run", path, "-o", out] + (["--contact-model", cs.model] if cs.model else [])
    rc, _, err, _ = run_timed(c)
    if rc != 0:
        return float("nan")
    return traj_error(contactsim_coms(out, cs.scene), ref)


def interleaved(cs, tol, peer, reps):
    """Medians of the integration CPU and process CPU of contactsim at tol and of the peer,
    measured alternately: an entry's cs_cpu, cs_proc, peer_cpu and peer_proc."""
    a, b = [], []
    for _ in range(reps):
        a.append(cs.timed(tol))
        whole = peer.timed()
        b.append((peer.timed(peer.integration_args)[0], whole[1]) if peer.integration_args
                 else whole)
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    return {"cs_cpu": med(a, 0), "cs_proc": med(a, 1), "peer_cpu": med(b, 0),
            "peer_proc": med(b, 1)}


def matched_tolerance(errors, target):
    """Loosest tolerance of the ladder at which, and at every tighter one, the error is at
    most target (None if there is none): a loose tolerance that is accurate by luck, with a
    tighter one that is not, does not count."""
    best = None
    for tol in reversed(LADDER):
        if errors.get(tol, float("inf")) <= target:
            best = tol
        else:
            break
    return best


def tag(e, model=True):
    """A peer entry's label in the summaries: the contact model contactsim ran, when it is not
    the one the peers are compared on (unless model is false: the table has a column for it),
    the peer's own variant, and contactsim's integrator when it is not the scene's (step 4's
    LOOSE_INTEGRATOR)."""
    labels = [e[k] for k in (("model",) if model else ()) + ("peer_model",) if k in e]
    if "cs_integrator" in e:
        labels.append("contactsim " + e["cs_integrator"])
    return "".join(" [%s]" % label for label in labels)


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return "-"
    return "%.*g" % (digits, x)


def ladder_errors(cs, tmp, ref=None):
    """The converged run (rtol = atol = 1e-10, the scene's own integrator; ref when it is
    given) and the error of each tolerance of the ladder against it (a run that fails is left
    out, and said so)."""
    if ref is None:
        ref = cs.trajectory(1e-10, tmp, None)
    errors = {}
    for tol in LADDER:
        try:
            errors[tol] = traj_error(cs.trajectory(tol, tmp), ref)
        except RuntimeError as e:
            print("  %s" % e, file=sys.stderr)
    return ref, errors


def bench_scene(args, scene, model, tmp, have_sb, have_mj, simbody, mujoco):
    """Errors, matched tolerances and interleaved timings of one scene (see the module doc)."""
    cs = Contactsim(args.build, scene, model, args.integrator)
    ref, errors = ladder_errors(cs, tmp)
    row = {"scene": scene, "model": model or "scene", "cs_errors": errors, "peers": []}
    # what a user gets without choosing: the scene with its tolerances and integrator removed
    row["cs_default_error"] = default_error(cs, ref, tmp)
    tol_1mm = matched_tolerance(errors, ONE_MM)
    row["cs_tol_1mm"] = tol_1mm
    if have_sb:
        sref, _ = Peer(simbody, scene, ["--integrator", "cpodes", "--accuracy",
                                        "1e-10"]).trajectory(tmp, "ref")
        row["cross_engine"] = traj_error(sref, ref)
        once = ["--report-interval", repr(cs.scene["simulation"]["duration"])]
        for integ in ("rkmerson", "cpodes"):
            peer = Peer(simbody, scene, ["--integrator", integ, "--accuracy", "1e-5"], once)
            traj, _ = peer.trajectory(tmp, integ)
            err = traj_error(traj, sref)
            tol = matched_tolerance(errors, err)
            entry = {"engine": "simbody " + integ + " 1e-5", "error": err,
                     "cs_tol": tol}
            if tol is not None:
                entry.update(interleaved(cs, tol, peer, args.reps), cs_error=errors[tol])
            row["peers"].append(entry)
            print(json.dumps({"scene": scene, **entry}), flush=True)
    if have_mj and scene in MUJOCO_SCENES:
        peer = mujoco_rows(args, scene, mujoco, cs, errors, tol_1mm, row, tmp, MUJOCO_OWN)
        own = cs.scene.get("contact_models", {}).get("default")
        if model and own and own != model:
            mujoco_scene_model(args, scene, own, peer, row, tmp)
        if scene in STOP_SCENES:
            mujoco_rows(args, scene, mujoco, cs, errors, tol_1mm, row, tmp, SCENE_STOPS)
        if scene in HC_SCENES and model == "hunt_crossley":
            mujoco_rows(args, scene, mujoco, cs, errors, tol_1mm, row, tmp, SCENE_HC)
        own_integrator = cs.scene.get("simulation", {}).get("integrator")
        if args.integrator is None and own_integrator != LOOSE_INTEGRATOR:
            mujoco_default_loose(args, scene, model, peer, ref, row, tmp)
    return row


def mujoco_default_loose(args, scene, model, peer, ref, row, tmp):
    """Step 4 with LOOSE_INTEGRATOR: its loosest tolerance within 1 mm of the scene's converged
    run (ref), timed interleaved with MuJoCo at its default (peer), on MuJoCo's own models."""
    cs = Contactsim(args.build, scene, model, LOOSE_INTEGRATOR)
    _, errors = ladder_errors(cs, tmp, ref)
    tol = matched_tolerance(errors, ONE_MM)
    base = next(e for e in row["peers"] if e.get("kind") == "mujoco default"
                and "model" not in e and "peer_model" not in e)
    entry = {"engine": base["engine"], "kind": "mujoco default",
             "cs_integrator": LOOSE_INTEGRATOR, "error": base["error"], "cs_tol": tol}
    if tol is not None and not base.get("diverged"):
        entry.update(interleaved(cs, tol, peer, args.reps), cs_error=errors[tol])
    row["peers"].append(entry)
    print(json.dumps({"scene": scene, **entry}), flush=True)


def mujoco_rows(args, scene, mujoco, cs, errors, tol_1mm, row, tmp, variant):
    """Steps 4 and 5 of the module doc for one MuJoCo model (variant: MUJOCO_OWN, its own
    contacts and limits; SCENE_STOPS or SCENE_HC, the same equations as contactsim), each engine
    against its own converged run. Returns the peer at its default, for mujoco_scene_model."""
    label, extra, ref_step, steps_by_integ = variant
    mref, _ = Peer(mujoco, scene, ["--integrator", "RK4", "--timestep", ref_step]
                   + extra).trajectory(tmp, "ref")
    peer = Peer(mujoco, scene, extra)
    traj, _ = peer.trajectory(tmp, "default")
    tagged = {"peer_model": label} if label else {}
    # a run that diverged (MuJoCo resets it and goes on) has no error to speak of, and its time
    # is no time of this motion
    entry = {"engine": "mujoco 2 ms Euler", "kind": "mujoco default", **tagged,
             "error": math.inf if peer.unstable else traj_error(traj, mref), "cs_tol": tol_1mm}
    if peer.unstable:
        entry["diverged"] = True
    if tol_1mm is not None and not peer.unstable:
        entry.update(interleaved(cs, tol_1mm, peer, args.reps), cs_error=errors[tol_1mm])
    row["peers"].append(entry)
    print(json.dumps({"scene": scene, **entry}), flush=True)
    # the errors on the ladder of steps: "mujoco_errors" for MuJoCo's own models,
    # "mujoco_errors_same" (with the variant's label and converged step) for the same equations
    table = {"label": label, "ref_step": ref_step} if label else {}
    row["mujoco_errors_same" if label else "mujoco_errors"] = table
    for integ, steps in steps_by_integ.items():
        entry = mujoco_matched(args, scene, mujoco, integ, steps, mref, cs, tol_1mm, tmp, extra)
        entry.update(tagged)
        if "cs_cpu" in entry:
            entry["cs_error"] = errors[tol_1mm]
        table[integ] = entry.pop("errors")
        row["peers"].append(entry)
        print(json.dumps({"scene": scene, **entry}), flush=True)
    return peer


def mujoco_scene_model(args, scene, own, peer, row, tmp):
    """MuJoCo's contact is neither of contactsim's models, so a scene whose own contact model
    (its contact_models.default) is not the one Simbody is compared on is also compared with
    MuJoCo as written: contactsim with the scene's model, held to the same 1 mm rule against its
    own converged run, timed interleaved with MuJoCo at its default and at its step within 1 mm
    (the entries already in row)."""
    cs = Contactsim(args.build, scene, None, args.integrator)
    _, errors = ladder_errors(cs, tmp)
    tol_1mm = matched_tolerance(errors, ONE_MM)
    row["scene_model_errors"] = {"model": own, "errors": errors}
    for e in list(row["peers"]):
        if e.get("kind") not in ("mujoco default", "mujoco matched"):
            continue
        entry = {"engine": e["engine"], "kind": e["kind"], "model": own + " (scene)",
                 "timestep": e.get("timestep"), "error": e["error"], "cs_tol": tol_1mm}
        if e.get("diverged"):
            entry["diverged"] = True
        elif tol_1mm is not None and (e["kind"] == "mujoco default" or e.get("timestep")):
            extra = ["--integrator", e["engine"].split()[1], "--timestep", e["timestep"]] \
                if e["kind"] == "mujoco matched" else []
            p = Peer(peer.exe, scene, extra)
            entry.update(interleaved(cs, tol_1mm, p, args.reps), cs_error=errors[tol_1mm])
        row["peers"].append(entry)
        print(json.dumps({"scene": scene, **entry}), flush=True)


def mujoco_matched(args, scene, mujoco, integ, steps, mref, cs, tol_1mm, tmp, extra=()):
    """MuJoCo at matched accuracy with one integrator: the longest of steps at which, and at
    every shorter one, every body stays within 1 mm of MuJoCo's converged run (the rule
    contactsim's tolerance is held to), timed interleaved with contactsim at its own. extra:
    more of mujoco_peer's options (--stops scene)."""
    errors = {}
    for h in steps:
        run_h = Peer(mujoco, scene, ["--integrator", integ, "--timestep", h] + list(extra))
        traj, _ = run_h.trajectory(tmp, "%s_%s" % (integ, h))
        errors[h] = math.inf if run_h.unstable else traj_error(traj, mref)
    chosen = None
    for h in reversed(steps):
        if errors[h] > ONE_MM:
            break
        chosen = h
    entry = {"engine": "mujoco %s %g ms (within 1 mm)" % (integ, 1e3 * float(chosen))
             if chosen else "mujoco %s (none within 1 mm)" % integ,
             "kind": "mujoco matched", "timestep": chosen, "errors": errors,
             "error": errors[chosen] if chosen else None, "cs_tol": tol_1mm}
    if chosen and tol_1mm is not None:
        peer = Peer(mujoco, scene, ["--integrator", integ, "--timestep", chosen] + list(extra))
        entry.update(interleaved(cs, tol_1mm, peer, args.reps))
    return entry




def median_runs(cmd, reps, pattern):
    """Median over reps runs of the number pattern finds in the output, and of process CPU."""
    vals, procs, text = [], [], ""
    for _ in range(reps):
        rc, so, err, cpu = run_timed(cmd)
        text = so + err
        m = re.search(pattern, text)
        if rc not in (0, 1) or not m:
            raise RuntimeError("%s failed: %s" % (cmd[0], text.strip()[-300:]))
        vals.append(float(m.group(1)))
        procs.append(cpu)
    return statistics.median(vals), statistics.median(procs), text


def contactsim_alone(args):
    """Chains (cost per simulated second and per RHS against N), the pushed foot against the
    unloaded one, the exponential-spring block against Simbody 3.8's published figure, and
    runs at the scene's own (default) tolerances."""
    exe = os.path.join(args.build, "contactsim")
    rhs = os.path.join(args.build, "bench_rhs")
    cpu_pat = r"([0-9.eE+-]+) s CPU for the integration"
    print("\n### Chains at the scene's settings (rtol = atol = 1e-5; rk for 1 link, BDF for 64, "
          "Adams otherwise)\n")
    print("| N | CPU s per simulated s | steps | RHS evals | us per RHS | us per RHS per link |")
    print("|---:|---:|---:|---:|---:|---:|")
    chain = {}
    for n in (1, 4, 16, 64, 256):
        path = os.path.join(ROOT, "scenes", "bench", "chain_%d.json" % n)
        cpu, _, text = median_runs([exe, "run", path, "-o", "/dev/null"], args.reps, cpu_pat)
        steps = re.search(r"steps (\d+), RHS evaluations (\d+)", text)
        per, _, _ = median_runs([rhs, path, str(max(200, 40000 // n))], args.reps,
                                r"([0-9.eE+-]+) us per RHS")
        chain[n] = cpu / 2.0
        print("| %d | %s | %s | %s | %s | %s |" % (n, fmt(cpu / 2.0), steps.group(1),
                                                 steps.group(2), fmt(per), fmt(per / n)))
    print("\nCPU per simulated second grows as N^%.2f from 4 to 256 links (N^%.2f from 4 to 64)"
          % (math.log(chain[256] / chain[4]) / math.log(64),
             math.log(chain[64] / chain[4]) / math.log(16)))

    # The foot dropped (the scenes: it lands with the push already acting, slides and rocks
    # before it is held) and set down at rest on its springs (held from the start: the target's
    # case). With rk the unloaded foot at rest is exactly symmetric, so the friction dampers'
    # mode (-2,756 1/s, which bounds an explicit step at 1.2 ms) is never excited, while any
    # tangential load excites it (docs/performance.md, "Stiction").
    # Both anchor rules: the scenes' default "blended" (Simbody's) and "limit", the rule
    # contact-models.md recommends for bodies that must stand under load.
    print("\n### Stiction: the foot, unloaded and pushed (rtol 1e-6)\n")
    print("| case | anchor rule | integrator | unloaded CPU s (steps, RHS) "
          "| pushed CPU s (steps, RHS) | pushed / unloaded: CPU, RHS |")
    print("|---|---|---|---:|---:|---:|")
    at_rest = ["--set", "bodies.foot.joint.initial.position=[0,0,0.02521]"]
    limit = ["--set", 'contact_models.exponential_spring.anchor_rule="limit"']
    for case, extra in (("dropped (the scenes)", []), ("set down at rest", at_rest)):
        for rule, rule_args in (("blended", []), ("limit", limit)):
            for integ in ("rk", "rk23", "ark", "bdf"):
                cpus = {"foot_drop": [], "foot_push": []}
                steps, rhs = {}, {}
                for _ in range(args.reps):
                    for name in ("foot_drop", "foot_push"):
                        path = os.path.join(ROOT, "scenes", "bench", name + ".json")
                        cpu, _, text = median_runs([exe, "run", path, "-o", "/dev/null",
                                                    "--integrator", integ] + extra + rule_args,
                                                   1, cpu_pat)
                        cpus[name].append(cpu)
                        m = re.search(r"steps (\d+), RHS evaluations (\d+)", text)
                        steps[name], rhs[name] = m.group(1), m.group(2)
                a = statistics.median(cpus["foot_drop"])
                b = statistics.median(cpus["foot_push"])
                print("| %s | %s | %s | %s (%s, %s) | %s (%s, %s) | %.2f, %.2f |"
                      % (case, rule, integ, fmt(a), steps["foot_drop"], rhs["foot_drop"],
                         fmt(b), steps["foot_push"], rhs["foot_push"], b / a,
                         int(rhs["foot_push"]) / int(rhs["foot_drop"])))

    print("\n### block_spin_slide with exponential springs (rtol = atol = 1e-5, the scene)\n")
    path = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
    cpu, proc, text = median_runs([exe, "run", path, "-o", "/dev/null"], args.reps, cpu_pat)
    st = re.search(r"steps (\d+)", text)
    print("contactsim: %s s integration CPU (%s s process), %s steps; Simbody 3.8 with "
          "RK-Merson at 1e-5: 0.24-0.29 s, a reference figure for this machine class that "
          "cannot be measured here (Debian 12's Simbody 3.7 has no exponential spring; nominal "
          "tolerances, not matched accuracy) (ratio %.3f-%.3f)"
          % (fmt(cpu), fmt(proc), st.group(1), cpu / 0.29, cpu / 0.24))


# ---------------------------------------------------------------------------------------------
# integrators compared on the bench scenes (their own contact models)

INTEGRATOR_SCENES = ["block_spin_slide", "block_spin_slide_vt001", "incline_stick",
                     "incline_slide", "sphere_bounce_roll", "pendulum_stop", "bushing_hang",
                     "chain_1", "chain_4", "chain_16", "chain_64", "foot_drop", "foot_push"]


def run_stats(cs, tol, integrator, tmp, out="/dev/null"):
    """One run: (steps, RHS evaluations, error-test failures, integration CPU s) from --stats."""
    path = os.path.join(tmp, "stats.json")
    rc, _, err, _ = run_timed(cs.cmd(tol, out, integrator) + ["--stats", path, "-q"])
    if rc != 0:
        raise RuntimeError("contactsim %s failed at %s: %s" % (integrator, tol,
                                                              err.strip()[-300:]))
    with open(path) as f:
        st = json.load(f)
    return st["steps"], st["rhs_total"], st["error_test_failures"], st["cpu_seconds"]


def instructions(cmd, tmp):
    """Instructions of one run's integration (valgrind's callgrind: repeatable, unlike the
    timings, and these virtual machines have no hardware counters for perf): cs_simulate
    inclusive less the rows written (writeRow), as the integration CPU leaves reports out; None
    without valgrind."""
    out = os.path.join(tmp, "callgrind.out")
    try:
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + cmd,
                       capture_output=True, text=True, timeout=1800)
        p = subprocess.run(["callgrind_annotate", "--inclusive=yes", out], capture_output=True,
                           text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    cost = {}
    for name in ("cs_simulate", "writeRow"):
        m = re.search(r"^\s*([\d,]+) .*:%s " % name, p.stdout, re.M)
        cost[name] = int(m.group(1).replace(",", "")) if m else 0
    return cost["cs_simulate"] - cost["writeRow"] if cost["cs_simulate"] else None


def integrator_comparison(args, only):
    """For every bench scene with its own contact model and tolerances: steps, RHS evaluations,
    error-test failures, CPU (medians of interleaved runs) and error against a converged run
    (rtol = atol = 1e-10, the scene's own integrator; the next one if that fails) of the scene's
    integrator and of each other one; then each integrator's error on the tolerance ladder, the
    CPU each needs for the error the scene's integrator reaches at the scene's tolerance (the
    loosest tolerance at which it, and every tighter one, is at least as accurate), and the
    loosest tolerance keeping every body within 1 mm (the MuJoCo comparison's rule)."""
    others = [i for i in args.integrators.split(",") if i]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scene in INTEGRATOR_SCENES:
            if only and scene not in only:
                continue
            model = dict(SCENES).get(scene) if args.peer_models else None
            cs = Contactsim(args.build, scene, model)
            own = cs.scene.get("simulation", {}).get("integrator", "bdf")
            integs = [own] + [i for i in others if i != own]
            ref, ref_by, conv = None, None, {}
            for integ in integs:
                try:
                    conv[integ] = cs.trajectory(1e-10, tmp, integ)
                except RuntimeError as e:
                    print("  %s: converged run with %s failed: %s" % (scene, integ, e),
                          file=sys.stderr, flush=True)
                    continue
                if ref is None:
                    ref, ref_by = conv[integ], integ
            if ref is None:
                continue
            row = {"scene": scene, "own": own, "ref": ref_by, "integ": {},
                   "conv_diff": {i: traj_error(t, ref) for i, t in conv.items() if i != ref_by}}
            for integ in integs:
                r = {"errors": {}, "cpu": {}}
                out = os.path.join(tmp, "scene_tol.csv")
                try:
                    st = run_stats(cs, None, integ, tmp, out)
                except RuntimeError as e:
                    print("  %s" % e, file=sys.stderr, flush=True)
                    continue
                r["steps"], r["rhs"], r["netf"], _ = st
                r["error"] = traj_error(contactsim_coms(out, cs.scene), ref)
                for tol in LADDER:
                    try:
                        out = os.path.join(tmp, "ladder.csv")
                        r["cpu"][tol] = run_stats(cs, tol, integ, tmp, out)[3]
                        r["errors"][tol] = traj_error(contactsim_coms(out, cs.scene), ref)
                    except RuntimeError as e:
                        print("  %s" % e, file=sys.stderr, flush=True)
                r["tol_1mm"] = matched_tolerance(r["errors"], ONE_MM)
                row["integ"][integ] = r
            if own not in row["integ"]:
                continue
            # CPU at the scene's tolerance and, for the others, at the tolerance matching the
            # scene integrator's error there: interleaved medians, and instruction counts
            target = row["integ"][own]["error"]
            runs = {}
            for integ, r in row["integ"].items():
                runs[(integ, "scene")] = (None, integ)
                r["tol_match"] = matched_tolerance(r["errors"], target) if integ != own \
                    else None
                if r["tol_match"] is not None:
                    runs[(integ, "match")] = (r["tol_match"], integ)
                if r["tol_1mm"] is not None:
                    runs[(integ, "1mm")] = (r["tol_1mm"], integ)
            samples = {k: [] for k in runs}
            for _ in range(args.reps):
                for k, (tol, integ) in runs.items():
                    samples[k].append(run_stats(cs, tol, integ, tmp)[3])
            for (integ, what), xs in samples.items():
                row["integ"][integ]["cpu_" + what] = statistics.median(xs)
                tol = runs[(integ, what)][0]
                if what != "1mm":
                    row["integ"][integ]["ins_" + what] = instructions(
                        cs.cmd(tol, "/dev/null", integ) + ["-q"], tmp)
            rows.append(row)
            print(json.dumps(row, default=str), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, default=str)

    print("\nAt each scene's own tolerances (CPU: median of %d interleaved runs; error: largest "
          "COM distance from the converged run, m)\n" % args.reps)
    print("| scene | integrator | steps | RHS evals | error-test failures | CPU s | "
          "instructions | error, m |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        for integ, r in row["integ"].items():
            print("| %s | %s%s | %s | %s | %s | %s | %s | %s |" % (
                row["scene"], integ, " (scene)" if integ == row["own"] else "", r["steps"],
                r["rhs"], r["netf"], fmt(r.get("cpu_scene")),
                fmt(r.get("ins_scene") and r["ins_scene"] / 1e6, 4) + "M"
                if r.get("ins_scene") else "-", fmt(r["error"], 2)))
    print("\nAt equal error: the scene's integrator at its tolerance against the others at the "
          "loosest tolerance as accurate (CPU medians, instructions)\n")
    print("| scene | scene's integrator: error, m / CPU s | other | its tolerance (error, m) | "
          "its CPU s | CPU ratio other / scene's | instruction ratio |")
    print("|---|---|---|---:|---:|---:|---:|")
    for row in rows:
        o = row["integ"][row["own"]]
        for integ, r in row["integ"].items():
            if integ == row["own"]:
                continue
            cpu, ins = r.get("cpu_match"), r.get("ins_match")
            print("| %s | %s: %s / %s | %s | %s (%s) | %s | %s | %s |" % (
                row["scene"], row["own"], fmt(o["error"], 2), fmt(o.get("cpu_scene")), integ,
                fmt(r.get("tol_match"), 2), fmt(r["errors"].get(r.get("tol_match")), 2),
                fmt(cpu), fmt(cpu / o["cpu_scene"], 2) if cpu else "-",
                fmt(ins / o["ins_scene"], 2) if ins and o.get("ins_scene") else "-"))
    print("\nWithin 1 mm of the converged run: the loosest tolerance (MuJoCo rule) and its CPU\n")
    print("| scene | " + " | ".join("%s: tol / CPU s" % i for i in ["scene's"] + others) + " |")
    print("|---|" + "---:|" * (1 + len(others)))
    for row in rows:
        cells = []
        for integ in [row["own"]] + [i for i in others if i != row["own"]]:
            r = row["integ"].get(integ, {})
            cells.append("%s%s / %s" % (fmt(r.get("tol_1mm"), 2),
                                        " (%s)" % integ if integ == row["own"] else "",
                                        fmt(r.get("cpu_1mm"))))
        print("| %s | %s |" % (row["scene"], " | ".join(cells)))
    print("\nError against the converged run on the ladder (rtol = atol), m\n")
    print("| scene | integrator | " + " | ".join("%g" % t for t in COARSE) + " |")
    print("|---|---|" + "---:|" * len(COARSE))
    for row in rows:
        for integ, r in row["integ"].items():
            print("| %s | %s | " % (row["scene"], integ) +
                  " | ".join(fmt(r["errors"].get(t), 2) for t in COARSE) + " |")
    print("\nCPU s on the ladder (one run each)\n")
    print("| scene | integrator | " + " | ".join("%g" % t for t in COARSE) + " |")
    print("|---|---|" + "---:|" * len(COARSE))
    for row in rows:
        for integ, r in row["integ"].items():
            print("| %s | %s | " % (row["scene"], integ) +
                  " | ".join(fmt(r["cpu"].get(t), 2) for t in COARSE) + " |")
    print("\nConverged references: " + "; ".join(
        "%s by %s%s" % (row["scene"], row["ref"], "".join(
            ", %s at 1e-10 differs by %s m" % (i, fmt(d, 2)) for i, d in row["conv_diff"].items()))
        for row in rows))
    cost = {}
    for row in rows:
        if row["scene"] in ("foot_drop", "foot_push"):
            for integ, r in row["integ"].items():
                cost.setdefault(integ, {})[row["scene"]] = r.get("cpu_scene")
    for integ, c in cost.items():
        if c.get("foot_drop") and c.get("foot_push"):
            print("foot_push / foot_drop CPU with %s: %.2f (target <= 2)"
                  % (integ, c["foot_push"] / c["foot_drop"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-rel"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--skip-simbody", action="store_true")
    ap.add_argument("--skip-mujoco", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--integrator", default=None, choices=("bdf", "adams", "rk", "rk23", "ark"),
                    help="contactsim's integrator on every scene (default: each scene's own)")
    ap.add_argument("--integrators", default="",
                    help="compare the scenes' own integrators with these (e.g. rk) instead")
    ap.add_argument("--peer-models", action="store_true",
                    help="with --integrators: the contact models the peers are compared on")
    ap.add_argument("--skip-peers", action="store_true",
                    help="only the contactsim-alone tables (chains, foot, exponential springs)")
    ap.add_argument("--skip-alone", action="store_true",
                    help="without the contactsim-alone tables")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    known = {scene for scene, _ in SCENES} | set(INTEGRATOR_SCENES)
    if only - known:
        ap.error("--only: no scene %s here (the scenes: %s)"
                 % (", ".join(sorted(only - known)), ", ".join(sorted(known))))
    simbody = os.path.join(args.build, "bench", "simbody_peer")
    mujoco = os.path.join(args.build, "bench", "mujoco_peer")
    have_sb = os.path.exists(simbody) and not args.skip_simbody
    have_mj = os.path.exists(mujoco) and not args.skip_mujoco
    load = os.getloadavg()
    print("load average at start: %.2f %.2f %.2f; %d CPUs" % (load + (os.cpu_count(),)),
          flush=True)
    if args.integrators:
        integrator_comparison(args, only)
        return

    results = []
    if args.skip_peers:
        only = {"none"}
    with tempfile.TemporaryDirectory() as tmp:
        for scene, model in SCENES:
            if only and scene not in only:
                continue
            try:
                results.append(bench_scene(args, scene, model, tmp, have_sb, have_mj, simbody,
                                           mujoco))
            except RuntimeError as e:
                print("%s: %s" % (scene, e), file=sys.stderr, flush=True)

    if not args.skip_alone:
        contactsim_alone(args)
    load = os.getloadavg()
    print("load average at end: %.2f %.2f %.2f" % load)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)

    # the table
    print()
    print("| scene | contactsim model | peer | peer error, m | matched contactsim tol "
          "(its error, m) | contactsim CPU s | peer CPU s | ratio (integration) | "
          "ratio (process) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for row in results:
        for e in row["peers"]:
            ratio = e["cs_cpu"] / e["peer_cpu"] if "cs_cpu" in e and e["peer_cpu"] > 0 else None
            pratio = e["cs_proc"] / e["peer_proc"] if "cs_proc" in e and e["peer_proc"] > 0 \
                else None
            engine = e["engine"] + tag(e, model=False)
            print("| %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s |" % (
                row["scene"], e.get("model", row["model"]), engine, fmt(e["error"]),
                fmt(e["cs_tol"], 2), fmt(e.get("cs_error")), fmt(e.get("cs_cpu")),
                fmt(e.get("peer_cpu")), fmt(ratio, 2), fmt(pratio, 2)))
    print()
    print("contactsim error against its own converged run (rtol = atol = 1e-10), m:")
    print("| scene | " + " | ".join("%g" % t for t in COARSE) +
          " | defaults | vs Simbody converged |")
    print("|---|" + "---:|" * (len(COARSE) + 2))
    for row in results:
        print("| %s | " % row["scene"] + " | ".join(fmt(row["cs_errors"].get(t), 2)
                                                   for t in COARSE)
              + " | %s | %s |" % (fmt(row.get("cs_default_error"), 2),
                                  fmt(row.get("cross_engine"), 2)))
    print("\n(defaults: the scene run without its rtol, atol and integrator, i.e. at the "
          "library's defaults; compare with the Simbody 1e-5 errors above)")
    # the target: MuJoCo at its default against contactsim at its 1 mm tolerance, with each
    # contact model compared (the peers' and, where it differs, the scene's own)
    default = []
    for row in results:
        for e in row["peers"]:
            if e.get("kind") == "mujoco default":
                ratio = e["cs_cpu"] / e["peer_cpu"] if "cs_cpu" in e and e["peer_cpu"] > 0 \
                    else None
                default.append("%s %s%s" % (row["scene"], fmt(ratio, 2), tag(e)))
    if default:
        print("\nMuJoCo at its default (2 ms Euler) against contactsim at its loosest tolerance "
              "within 1 mm (integration CPU ratio; -: no tolerance within 1 mm): %s"
              % ", ".join(default))
    # the scenes where MuJoCo's default run is itself within 1 mm of MuJoCo's converged run:
    # where both engines are converged, the comparison the 1 mm rule makes is like for like
    both = []
    for row in results:
        for e in row["peers"]:
            if e.get("kind") == "mujoco default" and e["error"] <= ONE_MM:
                ratio = e["cs_cpu"] / e["peer_cpu"] if "cs_cpu" in e and e["peer_cpu"] > 0 \
                    else None
                both.append("%s %s%s" % (row["scene"], fmt(ratio, 2), tag(e)))
    if any(e["engine"].startswith("mujoco") for row in results for e in row["peers"]):
        print("\nMuJoCo within 1 mm of its own converged run (both engines converged; "
              "integration CPU ratio): %s" % (", ".join(both) or "none"))
    # MuJoCo held to the rule contactsim is held to: its longest step within 1 mm of its own
    # converged run, with the faster of its two integrators
    matched = []
    for row in results:
        best = {}
        for e in row["peers"]:
            if e.get("kind") == "mujoco matched" and "cs_cpu" in e and e["peer_cpu"] > 0:
                k = (e.get("model"), e.get("peer_model"))
                if k not in best or e["peer_cpu"] < best[k]["peer_cpu"]:
                    best[k] = e
        for e in best.values():
            matched.append("%s %s (%s)%s" % (row["scene"], fmt(e["cs_cpu"] / e["peer_cpu"], 2),
                                             e["engine"][len("mujoco "):-len(" (within 1 mm)")],
                                             tag(e)))
    if matched:
        print("\nBoth engines within 1 mm of their own converged runs, MuJoCo at its longest such "
              "step with the faster of Euler and RK4 (integration CPU ratio): %s"
              % ", ".join(matched))
        print("\nMuJoCo's error against its converged run (RK4 at %s s), m:" % MUJOCO_REF_STEP)
        cols = [(i, h) for i, hs in MUJOCO_STEPS.items() for h in hs]
        print("| scene | " + " | ".join("%s %g ms" % (i, 1e3 * float(h)) for i, h in cols)
              + " |")
        print("|---|" + "---:|" * len(cols))
        for row in results:
            if "mujoco_errors" in row:
                print("| %s | " % row["scene"] + " | ".join(
                    fmt(row["mujoco_errors"][i].get(h), 2) for i, h in cols) + " |")
    if any("mujoco_errors_same" in row for row in results):
        print("\nMuJoCo integrating contactsim's equations: its error against its converged run "
              "(RK4 at the step given), m:")
        cols = [(i, h) for i, hs in SAME_EQUATION_STEPS.items() for h in hs]
        print("| scene | MuJoCo | converged at | " + " | ".join(
            "%s %g ms" % (i, 1e3 * float(h)) for i, h in cols) + " |")
        print("|---|---|---:|" + "---:|" * len(cols))
        for row in results:
            same = row.get("mujoco_errors_same")
            if same:
                print("| %s | %s | %s s | " % (row["scene"], same["label"], same["ref_step"])
                      + " | ".join(fmt(same[i].get(h), 2) for i, h in cols) + " |")


if __name__ == "__main__":
    main()
