#!/usr/bin/env python3
"""contactsim against independent engines: the benchmark scenes run converged in contactsim and
in the peer programs of bench/ (Simbody 3.7, MuJoCo 2.2.2), whose models are built with those
engines' own force elements where they have them (Simbody's MobilityLinearStop, LinearBushing
and HuntCrossleyForce; bench/simbody_peer.cpp). Two engines integrating the same equations to
1e-10 must trace the same trajectories; the bounds below are a few times what was measured
(docs/performance.md, "vs Simbody converged"), far below any integrator's error at a usable
tolerance. The same runs keep bench/run.py and its peers working.

Usage: test_peers.py PATH/TO/contactsim (the peers are looked for in its build's bench/).
Exits 77 (skipped) when the peers were not built (libsimbody-dev, libmujoco-dev absent)."""
import math
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import run as bench  # noqa: E402  (bench/run.py: the engines and the trajectory error)
try:
    import compare_simbody  # noqa: E402  (any scene of a subset built in Simbody; needs numpy)
except ImportError as e:
    compare_simbody = None
    print(f"tools/compare_simbody.py cannot be imported ({e}): the scene comparisons are skipped")

EXE = os.path.abspath(sys.argv[1])
BUILD = os.path.dirname(EXE)
SIMBODY = os.path.join(BUILD, "bench", "simbody_peer")
SIMBODY_SCENE = os.path.join(BUILD, "bench", "simbody_scene")
MUJOCO = os.path.join(BUILD, "bench", "mujoco_peer")
results = []

# scene, contactsim contact model (None: the scene's own forces), largest distance allowed
# between the two engines' converged centres of mass, m
SIMBODY_CASES = [
    ("pendulum_stop", None, 1e-6),        # measured 1.05e-7 (the stop's engagement times)
    ("bushing_hang", None, 1e-8),         # 3.4e-10
    ("chain_1", None, 1e-8),              # 2.0e-10
    ("chain_4", None, 1e-8),              # 2.8e-10
    ("sphere_bounce_roll", "hunt_crossley", 1e-6),  # 2.5e-8
    ("incline_slide", "hunt_crossley", 1e-6),       # 2.1e-8
]
# MuJoCo expresses the bushing exactly (three slide and three hinge joints, the bushing's gimbal,
# with joint stiffness and damping), and the scenes' linear stops when it is given them as
# passive forces (mujoco_peer --stops scene: unlimited joints, the stop's law in MuJoCo's
# passive-force callback); its contacts and its own joint limits are soft constraints of another
# law, so those are not compared. Scene, contactsim's model, extra options, bound (m); MuJoCo's
# RK4 at a fixed step: 0.1 ms, and 10 us for the stiff stops (a chain's struck stop is a mode of
# about -22,000 /s)
STOPS = ["--stops", "scene", "--timestep", "1e-5"]
# and the Hunt-Crossley spheres as forces applied at their contact points (--contact
# hunt_crossley; MuJoCo's own contacts off), RK4 at 10 us, 5 us for the ball's bounce
HC = ["--contact", "hunt_crossley", "--timestep", "1e-5"]
MUJOCO_CASES = [
    ("bushing_hang", None, [], 1e-8),         # 4.3e-10
    ("pendulum_stop", None, STOPS, 1e-6),     # 1.7e-7 (the stop's engagement times)
    ("chain_1", None, STOPS, 1e-8),           # 2.4e-9
    ("chain_4", None, STOPS, 2e-8),           # 4.1e-9
    ("incline_stick", "hunt_crossley", HC, 1e-7),   # 3.0e-8
    ("incline_slide", "hunt_crossley", HC, 1e-7),   # 2.2e-8
    ("sphere_bounce_roll", "hunt_crossley", HC + ["--timestep", "5e-6"], 1e-7),  # 1.7e-8
]


def case(name, fn):
    try:
        fn()
        results.append(None)
        print(f"ok: {name}")
    except Exception as e:  # a failed check or a crash of the test itself
        results.append(e)
        print(f"FAIL: {name}: {e!r}")


def agreement(scene, model, peer_exe, peer_args, bound):
    def fn():
        tmp = tempfile.mkdtemp()
        cs = bench.Contactsim(BUILD, scene, model)
        mine = cs.trajectory(1e-10, tmp, None)
        theirs, _ = bench.Peer(peer_exe, scene, peer_args).trajectory(tmp, "ref")
        # the same report times (every 0.01 s over the scene), then the same centres of mass
        if len(mine) < 100 or len(mine) != len(theirs):
            raise AssertionError(f"{len(mine)} contactsim rows against {len(theirs)}")
        # every body on both sides (the error compares the bodies the two rows share)
        nb = len(cs.scene["bodies"])
        if any(len(r[1]) != nb for r in mine) or any(len(r[1]) != nb for r in theirs):
            raise AssertionError(f"rows without all {nb} bodies' centres of mass")
        err = bench.traj_error(mine, theirs)
        print(f"  {scene}: {os.path.basename(peer_exe)} converged run within {err:.3g} m")
        if not err <= bound:
            raise AssertionError(f"{scene}: the engines differ by {err:.3g} m (bound {bound:g})")
    return fn


# bundled scenes that bench/simbody_scene.cpp can build (trees of weld, pin, slider, ball and
# free joints; springs, dampers, stops, bushings, constant forces, Hunt-Crossley and smooth
# sphere contact), and
# the bound on the origins' distance between the two engines converged over 1 s, m (measured
# 1.6e-8 at most)
BUNDLED = [
    ("pendulum", None), ("double_pendulum", None), ("chain3d_ball", None),
    ("spinning_top_free", None), ("free_fall", None), ("slider_spring", None),
    ("leg_knee_stop", "hunt_crossley"), ("ball_roll_slope", "hunt_crossley"),
    ("sphere_drop", "smooth_sphere_half_space"), ("ball_roll_slope", "smooth_sphere_half_space"),
]
# random trees of one to six bodies with every joint type and force of that subset
# (tools/compare_simbody.py); seed 1's first ten scenes agree to 1.5e-7 m (both contactsim
# integrators against Simbody's RK-Merson, each at 1e-10), but for scene 3, a six-body tree
# whose Simbody run at 1e-10 takes more than a minute, which is left out
RANDOM_SEED, RANDOM_SCENES, RANDOM_SKIP = 1, 10, {3}
SCENE_BOUND = 1e-6


def scene_agreement(path, model, scene):
    def fn():
        res = compare_simbody.compare_scene(path, 1.0, 0.01, model, scene)
        worst = max(res["bdf"]["pos"], res["rk"]["pos"])
        print(f"  {os.path.basename(path)}: Simbody and contactsim (bdf, rk) within {worst:.3g} m")
        if not worst <= SCENE_BOUND:
            raise AssertionError(f"{path}: the engines differ by {worst:.3g} m "
                                 f"(bdf {res['bdf']['pos']:.3g}, rk {res['rk']['pos']:.3g})")
    return fn


def mujoco_limits_in_radians():
    """MuJoCo's own joint limits (no --stops) are the scene's bounds: the pendulum released at
    1.2 rad is pushed back from its limit at 0.8 rad and swings between its limits at -0.5 and
    0.8 rad (its mass centre, 1 m from the pin, between x = -0.48 and 0.72 m); read as degrees,
    the limits held it near hanging straight down (within 23 mm)."""
    theirs, _ = bench.Peer(MUJOCO, "pendulum_stop", []).trajectory(tempfile.mkdtemp(), "limits")
    xs = [r[1][0][0] for r in theirs if r[0] >= 0.2]
    print(f"  pendulum_stop in MuJoCo's limits: x from {min(xs):.3g} to {max(xs):.3g} m")
    if not (min(xs) < -0.3 and max(xs) > 0.5 and max(abs(x) for x in xs) < 0.8):
        raise AssertionError(f"the pendulum's mass centre spans x = {min(xs):.3g} to "
                             f"{max(xs):.3g} m, not the swing between its limits")


def mujoco_rows_at_their_times():
    """The last row mujoco_peer --traj writes holds the mass centre of the final coordinates it
    prints: sphere_bounce_roll at MuJoCo's default (2 ms Euler), a ball whose mass centre is the
    origin of its free joint, still rolling at the end. The rows were read from MuJoCo's
    kinematics after mj_step, which are those of the step's start (or of RK4's last stage), so
    each row was one step behind its time (here 0.2 mm)."""
    rows, out = bench.Peer(MUJOCO, "sphere_bounce_roll", []).trajectory(tempfile.mkdtemp(),
                                                                        "row_times")
    qpos = [float(v) for v in re.search(r"qpos=(\S+)", out).group(1).split(",")]
    t_end = float(re.search(r" t=(\S+)", out).group(1))
    t, coms = rows[-1]
    gap = math.dist(coms[0], qpos[:3])
    print(f"  sphere_bounce_roll at t = {t:.6g} s: the last row's centre {gap:.3g} m from the "
          f"final position")
    if abs(t - t_end) > 1e-9 or gap > 1e-12:
        raise AssertionError(f"the last row (t = {t}, run ended at {t_end}) puts the ball's "
                             f"centre {gap:.3g} m from its final position")


def main():
    if not (os.access(SIMBODY, os.X_OK) and os.access(MUJOCO, os.X_OK)):
        print("peers not built (libsimbody-dev and libmujoco-dev): skipped")
        return 77
    for scene, model, bound in SIMBODY_CASES:
        case(f"simbody_{scene}", agreement(scene, model, SIMBODY,
                                           ["--integrator", "cpodes", "--accuracy", "1e-10"],
                                           bound))
    for scene, model, extra, bound in MUJOCO_CASES:
        # the later --timestep wins
        case(f"mujoco_{scene}", agreement(scene, model, MUJOCO,
                                          ["--integrator", "RK4", "--timestep",
                                           bench.MUJOCO_REF_STEP] + extra, bound))
    case("mujoco_limits_in_radians", mujoco_limits_in_radians)
    case("mujoco_rows_at_their_times", mujoco_rows_at_their_times)
    if compare_simbody and os.access(SIMBODY_SCENE, os.X_OK):
        compare_simbody.CS, compare_simbody.SB = EXE, SIMBODY_SCENE
        for name, model in BUNDLED:
            path = os.path.join(ROOT, "scenes", name + ".json")
            case(f"simbody_scene_{name}_{model or 'scene'}", scene_agreement(path, model, None))
        import json
        import random
        rng = random.Random(RANDOM_SEED)
        tmp = tempfile.mkdtemp()
        for i in range(RANDOM_SCENES):
            scene, _ = compare_simbody.rand_scene(rng)
            if i in RANDOM_SKIP:
                continue
            path = os.path.join(tmp, f"random_{RANDOM_SEED}_{i}.json")
            with open(path, "w") as f:
                json.dump(scene, f)
            case(f"simbody_random_{i}", scene_agreement(path, None, scene))
    failed = sum(1 for e in results if e)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
