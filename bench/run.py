#!/usr/bin/python3
"""run.py: contactsim against Simbody and MuJoCo at matched accuracy.

    bench/run.py [--build DIR] [--reps R] [--only SCENE,...] [--skip-mujoco] [--skip-simbody]
                 [--markdown] [--json FILE]

For every scene (scenes/bench/, the contact model named below) it

1. runs each engine once converged (contactsim rtol = atol = 1e-10; Simbody CPodes at accuracy
   1e-10; MuJoCo RK4 at a 1e-4 s step) and measures every run's error as the largest distance,
   over report times (0.01 s) and bodies, between a body's centre of mass and the same in the
   engine's own converged run;
2. measures Simbody's error at accuracy 1e-5 with RK-Merson and CPodes, and contactsim's error on
   a ladder of tolerances (rtol = atol), and picks for each Simbody integrator the loosest
   contactsim tolerance whose error is no larger (the matched tolerance);
3. times, interleaved (contactsim, peer, contactsim, peer, ...), R runs of each pair and reports
   medians of the CPU time of the integration alone (as each program reports it) and of the
   whole process (getrusage of the child), and their ratio contactsim / peer;
4. for MuJoCo at its defaults (2 ms, Euler), the contactsim tolerance is the loosest one that
   keeps every body within 1 mm of contactsim's converged trajectory, and the same interleaved
   timing is done against MuJoCo.

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
LADDER = [1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8]
ONE_MM = 1e-3
MUJOCO_REF_STEP = "1e-4"   # MuJoCo's converged run: RK4 at a 0.1 ms step (20x below its default)


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
    """Largest distance between the same body's COM at the same report time."""
    n = min(len(a), len(b))
    if n == 0 or abs(len(a) - len(b)) > 1:
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

class Contactsim:
    def __init__(self, build, scene, model):
        self.exe = os.path.join(build, "contactsim")
        self.path = os.path.join(ROOT, "scenes", "bench", scene + ".json")
        with open(self.path) as f:
            self.scene = json.load(f)
        self.model = model

    def cmd(self, tol, out):
        c = [self.exe, "run", self.path, "--rtol", "%g" % tol, "--atol", "%g" % tol, "-o", out]
        if self.model:
            c += ["--contact-model", self.model]
        return c

    def trajectory(self, tol, tmp):
        out = os.path.join(tmp, "cs_%g.csv" % tol)
        rc, _, err, _ = run_timed(self.cmd(tol, out))
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
    def __init__(self, exe, scene, args):
        self.exe, self.scene, self.args = exe, scene, args

    def cmd(self, extra):
        return [self.exe, self.scene] + self.args + extra

    def trajectory(self, tmp, tag):
        out = os.path.join(tmp, "%s_%s.csv" % (os.path.basename(self.exe), tag))
        rc, so, err, _ = run_timed(self.cmd(["--traj", out]))
        if rc != 0:
            raise RuntimeError("%s failed: %s" % (self.exe, err.strip()[-300:]))
        return peer_coms(out), so

    def timed(self):
        rc, so, err, cpu = run_timed(self.cmd([]))
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
    """Medians of (integration CPU, process CPU) for contactsim at tol and the peer, measured
    alternately."""
    a, b = [], []
    for _ in range(reps):
        a.append(cs.timed(tol))
        b.append(peer.timed())
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    return (med(a, 0), med(a, 1)), (med(b, 0), med(b, 1))


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


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return "-"
    return "%.*g" % (digits, x)


def bench_scene(args, scene, model, tmp, have_sb, have_mj, simbody, mujoco):
    """Errors, matched tolerances and interleaved timings of one scene (see the module doc)."""
    cs = Contactsim(args.build, scene, model)
    ref = cs.trajectory(1e-10, tmp)
    errors = {}
    for tol in LADDER:
        try:
            errors[tol] = traj_error(cs.trajectory(tol, tmp), ref)
        except RuntimeError as e:
            print("  %s" % e, file=sys.stderr)
    row = {"scene": scene, "model": model or "scene", "cs_errors": errors, "peers": []}
    # what a user gets without choosing: the scene with its tolerances and integrator removed
    row["cs_default_error"] = default_error(cs, ref, tmp)
    tol_1mm = matched_tolerance(errors, ONE_MM)
    row["cs_tol_1mm"] = tol_1mm
    if have_sb:
        sref, _ = Peer(simbody, scene, ["--integrator", "cpodes", "--accuracy",
                                        "1e-10"]).trajectory(tmp, "ref")
        row["cross_engine"] = traj_error(sref, ref)
        for integ in ("rkmerson", "cpodes"):
            peer = Peer(simbody, scene, ["--integrator", integ, "--accuracy", "1e-5"])
            traj, _ = peer.trajectory(tmp, integ)
            err = traj_error(traj, sref)
            tol = matched_tolerance(errors, err)
            entry = {"engine": "simbody " + integ + " 1e-5", "error": err,
                     "cs_tol": tol}
            if tol is not None:
                (ci, cp), (pi, pp) = interleaved(cs, tol, peer, args.reps)
                entry.update(cs_cpu=ci, cs_proc=cp, peer_cpu=pi, peer_proc=pp,
                             cs_error=errors[tol])
            row["peers"].append(entry)
            print(json.dumps({"scene": scene, **entry}), flush=True)
    if have_mj and scene in MUJOCO_SCENES:
        mref, _ = Peer(mujoco, scene, ["--integrator", "RK4", "--timestep",
                                       MUJOCO_REF_STEP]).trajectory(tmp, "ref")
        peer = Peer(mujoco, scene, [])
        traj, _ = peer.trajectory(tmp, "default")
        entry = {"engine": "mujoco 2 ms Euler", "error": traj_error(traj, mref),
                 "cs_tol": tol_1mm}
        if tol_1mm is not None:
            (ci, cp), (pi, pp) = interleaved(cs, tol_1mm, peer, args.reps)
            entry.update(cs_cpu=ci, cs_proc=cp, peer_cpu=pi, peer_proc=pp,
                         cs_error=errors[tol_1mm])
        row["peers"].append(entry)
        print(json.dumps({"scene": scene, **entry}), flush=True)
    return row




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
    print("\n### Chains at the scene's settings (Adams, rtol = atol = 1e-5)\n")
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

    print("\n### Stiction: the foot, unloaded and pushed (scene settings, rtol 1e-6)\n")
    print("| scene | CPU s | steps | error-test failures |")
    print("|---|---:|---:|---:|")
    cost = {}
    for name in ("foot_drop", "foot_push"):
        path = os.path.join(ROOT, "scenes", "bench", name + ".json")
        cpu, _, text = median_runs([exe, "run", path, "-o", "/dev/null"], args.reps, cpu_pat)
        st = re.search(r"steps (\d+),.*error-test failures (\d+)", text)
        cost[name] = cpu
        print("| %s | %s | %s | %s |" % (name, fmt(cpu), st.group(1), st.group(2)))
    print("\npushed / unloaded CPU: %.2f (target <= 2)" % (cost["foot_push"] / cost["foot_drop"]))

    print("\n### block_spin_slide with exponential springs (rtol = atol = 1e-5, the scene)\n")
    path = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
    cpu, proc, text = median_runs([exe, "run", path, "-o", "/dev/null"], args.reps, cpu_pat)
    st = re.search(r"steps (\d+)", text)
    print("contactsim: %s s integration CPU (%s s process), %s steps; Simbody 3.8 with "
          "RK-Merson at 1e-5, published for this machine class: 0.24-0.29 s "
          "(ratio %.3f-%.3f)" % (fmt(cpu), fmt(proc), st.group(1), cpu / 0.29, cpu / 0.24))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-rel"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--skip-simbody", action="store_true")
    ap.add_argument("--skip-mujoco", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--skip-peers", action="store_true",
                    help="only the contactsim-alone tables (chains, foot, exponential springs)")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    simbody = os.path.join(args.build, "bench", "simbody_peer")
    mujoco = os.path.join(args.build, "bench", "mujoco_peer")
    have_sb = os.path.exists(simbody) and not args.skip_simbody
    have_mj = os.path.exists(mujoco) and not args.skip_mujoco
    load = os.getloadavg()
    print("load average at start: %.2f %.2f %.2f; %d CPUs" % (load + (os.cpu_count(),)),
          flush=True)

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
            print("| %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s |" % (
                row["scene"], row["model"], e["engine"], fmt(e["error"]),
                fmt(e["cs_tol"], 2), fmt(e.get("cs_error")), fmt(e.get("cs_cpu")),
                fmt(e.get("peer_cpu")), fmt(ratio, 2), fmt(pratio, 2)))
    print()
    print("contactsim error against its own converged run (rtol = atol = 1e-10), m:")
    print("| scene | " + " | ".join("%g" % t for t in LADDER) +
          " | defaults | vs Simbody converged |")
    print("|---|" + "---:|" * (len(LADDER) + 2))
    for row in results:
        print("| %s | " % row["scene"] + " | ".join(fmt(row["cs_errors"].get(t), 2)
                                                   for t in LADDER)
              + " | %s | %s |" % (fmt(row.get("cs_default_error"), 2),
                                  fmt(row.get("cross_engine"), 2)))
    print("\n(defaults: the scene run without its rtol, atol and integrator, i.e. at the "
          "library's defaults; compare with the Simbody 1e-5 errors above)")


if __name__ == "__main__":
    main()
