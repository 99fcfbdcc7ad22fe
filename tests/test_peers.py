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
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import run as bench  # noqa: E402  (bench/run.py: the engines and the trajectory error)

EXE = os.path.abspath(sys.argv[1])
BUILD = os.path.dirname(EXE)
SIMBODY = os.path.join(BUILD, "bench", "simbody_peer")
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
# with joint stiffness and damping); its contacts and joint limits are soft constraints of
# another law, so only the bushing is compared
MUJOCO_CASES = [
    ("bushing_hang", None, 1e-8),         # 4.3e-10
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


def main():
    if not (os.access(SIMBODY, os.X_OK) and os.access(MUJOCO, os.X_OK)):
        print("peers not built (libsimbody-dev and libmujoco-dev): skipped")
        return 77
    for scene, model, bound in SIMBODY_CASES:
        case(f"simbody_{scene}", agreement(scene, model, SIMBODY,
                                           ["--integrator", "cpodes", "--accuracy", "1e-10"],
                                           bound))
    for scene, model, bound in MUJOCO_CASES:
        case(f"mujoco_{scene}", agreement(scene, model, MUJOCO,
                                          ["--integrator", "RK4", "--timestep",
                                           bench.MUJOCO_REF_STEP], bound))
    failed = sum(1 for e in results if e)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
