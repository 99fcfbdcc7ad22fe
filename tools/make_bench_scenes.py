#!/usr/bin/env python3
"""make_bench_scenes.py: write the benchmark scenes in scenes/bench/.

    tools/make_bench_scenes.py [--out DIR]

The output is deterministic (no randomness, fixed key order, fixed number formatting), so the
files can be regenerated and committed. docs/benchmarks.md says what each scene tests and what
the expected outcome is.
"""

import argparse
import json
import math
import os

G = 9.81

# exponential spring defaults (seed 000; the table in src/forces/exp_spring.c)
EXP_D0 = 0.0065905
EXP_D1 = 0.5336
EXP_D2 = 1150.0


def exp_spring_rest_height(load):
    """Height above the plane at which one exponential spring carries `load` newtons:
    d1 exp(-d2 (pz - d0)) = load (damping and friction absent at rest)."""
    return EXP_D0 - math.log(load / EXP_D1) / EXP_D2


def r9(x):
    """Round to 12 significant digits so the files read well and stay deterministic."""
    return float("%.12g" % x)


def box_corners(h, bottom_only=False):
    pts = []
    for z in ((-h,) if bottom_only else (-h, h)):
        for y in (-h, h):
            for x in (-h, h):
                pts.append([r9(x), r9(y), r9(z)])
    return pts


def simulation(duration, rtol=1e-5, atol=None, report_interval=0.01, integrator=None):
    """Accuracy 1e-5 as Simbody states it applies to relative and absolute errors alike
    (states are in SI units: m, rad, m/s), so atol defaults to rtol here."""
    s = {"duration": duration, "report_interval": report_interval, "rtol": rtol,
         "atol": rtol if atol is None else atol}
    if integrator is not None:
        s["integrator"] = integrator
    return s


# ---------------------------------------------------------------------------------------------
# contact model blocks shared by the block scenes

FRICTION_S, FRICTION_K = 0.7, 0.5


def exp_spring_block():
    return {"kxy": 20000, "mu_static": FRICTION_S, "mu_dynamic": FRICTION_K, "v_settle": 0.01}


def compliant_block(vt):
    # the material pair of the reference comparison: block (5e5 N/m, 0.55 s/m), floor (5e4 N/m,
    # 0.495 s/m), both with the same friction coefficients
    mat = {"mu_static": FRICTION_S, "mu_dynamic": FRICTION_K, "mu_viscous": 0}
    return {
        "body_material": dict({"penalty_stiffness": 5e5, "dissipation": 0.55}, **mat),
        "plane_material": dict({"penalty_stiffness": 5e4, "dissipation": 0.495}, **mat),
        "transition_velocity": vt,
    }


# sphere models at the corners of a block: the plane-strain modulus of each surface, the same
# for hunt_crossley and smooth_sphere_half_space (a Hertz modulus of the pair of E / 2^1.5)
CORNER_RADIUS = 0.002
CORNER_E = 1e8 * 2 ** 1.5


def hunt_crossley_block():
    return {"plane_strain_modulus": r9(CORNER_E), "dissipation": 1.0, "mu_static": FRICTION_S,
            "mu_dynamic": FRICTION_K, "mu_viscous": 0, "transition_velocity": 0.01}


def smooth_sphere_block():
    return {"plane_strain_modulus": r9(CORNER_E), "dissipation": 1.0,
            "mu_static": FRICTION_S, "mu_dynamic": FRICTION_K,
            "mu_viscous": 0, "transition_velocity": 0.01}


# ---------------------------------------------------------------------------------------------
# scenes

def block_spin_slide(vt, name):
    """A 10 kg box (half size 0.1 m, central inertia 1 kg m^2 about each axis) on eight corner
    contacts, sliding at 3 m/s and spinning at 12 rad/s from the exponential springs' rest
    height (four bottom corners carry m g)."""
    h, mass = 0.1, 10.0
    z0 = h + exp_spring_rest_height(mass * G / 4)
    return {
        "name": name,
        "description": ("A 10 kg box (0.2 m cube, central inertia 1 kg m^2 about each axis) "
                        "thrown sliding at 3 m/s and spinning at 12 rad/s about the vertical, "
                        "its bottom corners at the exponential springs' rest height. Contacts at "
                        "the eight corners (the top four never touch). Friction mu_s 0.7, "
                        "mu_k 0.5; the compliant model uses the material pair block 5e5 N/m "
                        "0.55 s/m, floor 5e4 N/m 0.495 s/m and transition velocity %g m/s. "
                        "The box spins down and comes to rest." % vt),
        "gravity": [0, 0, -G],
        "bodies": [{
            "name": "block", "mass": mass, "inertia": {"diag": [1, 1, 1]},
            "joint": {"type": "free", "parent": "ground", "initial": {
                "position": [0, 0, r9(z0)], "velocity": [3, 0, 0],
                "angular_velocity": [0, 0, 12]}},
        }],
        "planes": [{"name": "floor"}],
        "contacts": [{"name": "corners", "body": "block", "plane": "floor",
                      "points": box_corners(h)}],
        "contact_models": {
            "default": "exponential_spring",
            "exponential_spring": exp_spring_block(),
            "compliant_point": compliant_block(vt),
        },
        # rk for the mildly stiff default (0.9x Adams' CPU at equal error with exponential
        # springs, 0.6-0.9x with compliant points against Simbody; docs/performance.md); ark
        # once a 1 mm/s transition velocity makes the friction law stiff (a quarter of BDF's
        # CPU against CPodes with compliant points, the same as BDF with exponential springs)
        "simulation": simulation(12.0, integrator="rk" if vt >= 0.01 else "ark"),
    }


def incline(angle_deg, duration):
    """A 10 kg box on an incline (plane tilted about Ground y), its four bottom corners at the
    exponential springs' equilibrium height for the normal load m g cos(theta) / 4."""
    h, mass = 0.1, 10.0
    th = math.radians(angle_deg)
    height = exp_spring_rest_height(mass * G * math.cos(th) / 4)
    # the plane normal is R_y(theta) z = (sin, 0, cos); the box centre sits h + height along it
    c = h + height
    pos = [r9(c * math.sin(th)), 0, r9(c * math.cos(th))]
    stick = math.tan(th) < FRICTION_S
    accel = G * (math.sin(th) - FRICTION_K * math.cos(th))
    if stick:
        what = ("tan %g = %.3f is below mu_s = 0.7: exponential springs hold the box still "
                "(their anchors remove drift; 1.2 mm of settling slip); the velocity-based "
                "friction of the other models does not: the box rocks on its corners and "
                "walks down the slope, in the 3 s about 41 mm on smooth spheres, 106 mm on "
                "Hunt-Crossley spheres and 237 mm on compliant points (measured)"
                % (angle_deg, math.tan(th)))
    else:
        what = ("tan %g = %.3f exceeds mu_s = 0.7: the box slides down the slope with "
                "a = g (sin - mu_k cos) = %.3f m/s^2 on the sphere models and the compliant "
                "points; the exponential springs let it slide faster, about 2.8 m/s^2 at "
                "these settings (measured): the box hops along on them (their normal damping "
                "is light), and in the short landings their elastic friction stays below its "
                "limit (0.48 of the normal impulse against mu_k = 0.5)"
                % (angle_deg, math.tan(th), accel))
    rot = {"axis": [0, 1, 0], "angle_deg": angle_deg}
    return {
        "name": "incline_%s" % ("stick" if stick else "slide"),
        "description": ("A 10 kg box (0.2 m cube) released on a %g degree incline at the "
                        "exponential springs' equilibrium height. Contacts at the four bottom "
                        "corners (sphere models: radius %g m centred on the corners). %s."
                        % (angle_deg, CORNER_RADIUS, what)),
        "gravity": [0, 0, -G],
        "bodies": [{
            "name": "block", "mass": mass, "inertia": {"box": [h, h, h]},
            "joint": {"type": "free", "parent": "ground", "initial": {
                "position": pos, "orientation": rot}},
        }],
        "planes": [{"name": "ramp", "frame": {"rotation": rot}}],
        "contacts": [{"name": "corners", "body": "block", "plane": "ramp",
                      "points": box_corners(h, bottom_only=True), "radius": CORNER_RADIUS}],
        "contact_models": {
            "default": "exponential_spring",
            "exponential_spring": exp_spring_block(),
            "compliant_point": compliant_block(0.01),
            "hunt_crossley": hunt_crossley_block(),
            "smooth_sphere_half_space": smooth_sphere_block(),
        },
        # rk (Dormand-Prince): at equal error it costs 0.33-0.48 of BDF on the inclines with
        # the models the peers are compared on (docs/performance.md, "A one-step method")
        "simulation": simulation(duration, integrator="rk"),
    }


def sphere_bounce_roll():
    r, mass = 0.1, 1.0
    v0, w0 = 1.0, -20.0
    vroll = 2.0 / 7.0 * r * w0 + 5.0 / 7.0 * v0
    e_hc = 1e7
    return {
        "name": "sphere_bounce_roll",
        "description": ("A 1 kg solid ball (radius 0.1 m) dropped from 0.4 m moving at 1 m/s "
                        "with 20 rad/s of backspin. For a rigid ball (2/5) r w_y + v_x would be "
                        "conserved through every bounce, and the ball would end up rolling at "
                        "(2/7) r w0 + (5/7) v0 = %.4f m/s; the models apply friction at a "
                        "contact point inside the penetration, which changes that a little at "
                        "each impact: Hunt-Crossley (default) ends at 0.133 m/s, its smooth "
                        "approximation with the same plane-strain modulus at 0.149 m/s "
                        "(measured)." % vroll),
        "gravity": [0, 0, -G],
        "bodies": [{
            "name": "ball", "mass": mass, "inertia": {"sphere": r},
            "joint": {"type": "free", "parent": "ground", "initial": {
                "position": [0, 0, 0.5], "velocity": [v0, 0, 0],
                "angular_velocity": [0, w0, 0]}},
        }],
        "planes": [{"name": "floor"}],
        "contacts": [{"name": "ball_floor", "body": "ball", "plane": "floor",
                      "points": [[0, 0, 0]], "radius": r}],
        "contact_models": {
            "default": "hunt_crossley",
            "hunt_crossley": {"plane_strain_modulus": r9(e_hc * 2 ** 1.5), "dissipation": 0.2,
                              "mu_static": 0.8, "mu_dynamic": 0.6, "mu_viscous": 0,
                              "transition_velocity": 0.01},
            "smooth_sphere_half_space": {
                "plane_strain_modulus": r9(e_hc * 2 ** 1.5), "dissipation": 0.2,
                "mu_static": 0.8, "mu_dynamic": 0.6, "mu_viscous": 0,
                "transition_velocity": 0.01},
        },
        # ark: rolling, the friction's regularization holds rk at its stability limit and costs
        # BDF Jacobians at every bounce (docs/performance.md, "ark")
        "simulation": simulation(3.0, integrator="ark"),
    }


# a pin whose z axis is Ground -y: the link hangs along -z at q = 0 and swings in the x-z plane
PIN_FRAME = {"axis": [1, 0, 0], "angle_deg": 90}


def pendulum_stop():
    return {
        "name": "pendulum_stop",
        "description": ("A 1 kg, 1 m pendulum between linear stops at -0.5 and +0.8 rad "
                        "(300 N m/rad, dissipation 0.1 s/rad), released from 1.2 rad, 0.4 rad "
                        "past the upper stop: thrown back at once, it loses energy at each "
                        "impact, and in the 5 s it still strikes the upper stop."),
        "gravity": [0, 0, -G],
        "bodies": [{
            "name": "arm", "mass": 1.0, "com": [0, -1.0, 0], "inertia": {"sphere": 0.05},
            "joint": {"type": "pin", "parent": "ground",
                      "parent_frame": {"position": [0, 0, 2], "rotation": PIN_FRAME},
                      "q": [1.2], "u": [0]},
        }],
        "forces": [{"type": "linear_stop", "name": "stop", "body": "arm", "coordinate": 0,
                    "lower_bound": -0.5, "upper_bound": 0.8, "stiffness": 300,
                    "dissipation": 0.1}],
        # rk: 0.61 of BDF's CPU at equal error (docs/performance.md, "A one-step method")
        "simulation": simulation(5.0, integrator="rk"),
    }


def bushing_hang():
    return {
        "name": "bushing_hang",
        "description": ("A 2 kg block hangs from ground by a damped linear bushing attached "
                        "0.1 m above its centre. Released displaced and tilted 15 degrees, it "
                        "rings down to the static sag m g / k_z = 4.905 mm."),
        "gravity": [0, 0, -G],
        "bodies": [{
            "name": "block", "mass": 2.0, "inertia": {"box": [0.1, 0.1, 0.1]},
            "joint": {"type": "free", "parent": "ground", "initial": {
                "position": [0.02, -0.01, 0.87],
                "orientation": {"axis": [1, 1, 0], "angle_deg": 15},
                "angular_velocity": [0, 0, 1.0]}},
        }],
        "forces": [{
            "type": "linear_bushing", "name": "mount",
            "body1": "ground", "frame1": {"position": [0, 0, 1.0]},
            "body2": "block", "frame2": {"position": [0, 0, 0.1]},
            "rotational_stiffness": [50, 50, 30],
            "translational_stiffness": [2000, 2000, 4000],
            "rotational_damping": [1.0, 1.0, 0.6],
            "translational_damping": [20, 20, 30],
        }],
        "simulation": simulation(5.0),
    }


def chain(n):
    """n links (0.1 m, 0.1 kg, centre of mass at mid-link, central inertia diag(1e-5, 1e-4,
    1e-4) with the link along its x axis) on parallel horizontal pins, each joint limited to
    +-0.5 rad by a linear stop (50 N m/rad, dissipation 0.2 s/rad); released straight and
    horizontal, at rest. The same chain as Simbody's reference figure (bench/ builds it there)."""
    length, mass = 0.1, 0.1
    bodies, forces = [], []
    for i in range(n):
        joint = {"type": "pin", "parent": "ground" if i == 0 else "link%d" % (i - 1)}
        if i == 0:
            # pin z axis along Ground -y: the link (its x axis) starts horizontal along Ground x
            joint["parent_frame"] = {"position": [0, 0, 1.0], "rotation": PIN_FRAME}
        else:
            joint["parent_frame"] = {"position": [length, 0, 0]}
        joint["q"] = [0.0]
        joint["u"] = [0.0]
        bodies.append({"name": "link%d" % i, "mass": mass, "com": [length / 2, 0, 0],
                       "inertia": {"diag": [1e-5, 1e-4, 1e-4]}, "joint": joint})
        forces.append({"type": "linear_stop", "name": "stop%d" % i, "body": "link%d" % i,
                       "coordinate": 0, "lower_bound": -0.5, "upper_bound": 0.5,
                       "stiffness": 50, "dissipation": 0.2})
    return {
        "name": "chain_%d" % n,
        "description": ("%d links (0.1 m, 0.1 kg, centre of mass at mid-link, central inertia "
                        "diag(1e-5, 1e-4, 1e-4)) on parallel horizontal pins, each joint angle "
                        "limited to +-0.5 rad by a linear stop (50 N m/rad, dissipation "
                        "0.2 s/rad). Released straight and horizontal at rest, the chain falls "
                        "and swings, its joints striking the stops." % n),
        "gravity": [0, 0, -G],
        "bodies": bodies,
        "forces": forces,
        # each with the integrator cheapest at equal error (docs/performance.md): a single
        # pendulum rk (0.65 of Adams); 4 and 16 links Adams (with Anderson acceleration from
        # eight bodies on, src/engine/integrator.c), BDF costing the same; 64 links BDF, whose
        # Newton matrix comes from the mass matrix through the tree in O(n) (1.35x cheaper);
        # 256 links Adams again (BDF needs twice the steps for the same error there)
        "simulation": simulation(
            2.0, integrator="rk" if n == 1 else "bdf" if n == 64 else "adams"),
    }


def pile(m):
    """m independent blocks (1 kg, 0.1 m cubes) on exponential springs, on a square grid 0.5 m
    apart, dropped from 2 cm above rest with a small index-dependent tilt and slide."""
    h, mass = 0.05, 1.0
    rest = h + exp_spring_rest_height(mass * G / 4)
    side = int(math.ceil(math.sqrt(m)))
    bodies, contacts = [], []
    for i in range(m):
        x, y = 0.5 * (i % side), 0.5 * (i // side)
        # deterministic variety: tilt 0..3 degrees about a horizontal axis, slide 0..0.2 m/s
        a = 2.0 * math.pi * ((i * 0.618033988749895) % 1.0)
        tilt = 3.0 * ((i * 0.414213562373095) % 1.0)
        init = {"position": [r9(x), r9(y), r9(rest + 0.02)],
                "orientation": {"axis": [r9(math.cos(a)), r9(math.sin(a)), 0],
                                "angle_deg": r9(tilt)},
                "velocity": [r9(0.2 * math.cos(a)), r9(0.2 * math.sin(a)), 0]}
        bodies.append({"name": "b%d" % i, "mass": mass, "inertia": {"box": [h, h, h]},
                       "joint": {"type": "free", "initial": init}})
        contacts.append({"name": "c%d" % i, "body": "b%d" % i, "plane": "floor",
                         "points": box_corners(h, bottom_only=True)})
    return {
        "name": "pile_%d" % m,
        "description": ("%d independent 1 kg blocks (0.1 m cubes) on exponential springs at "
                        "their four bottom corners, on a grid 0.5 m apart, dropped from 2 cm "
                        "above rest with small tilts and slides; they land and settle. The "
                        "bodies do not interact, so the work should grow linearly with their "
                        "number." % m),
        "gravity": [0, 0, -G],
        "bodies": bodies,
        "planes": [{"name": "floor"}],
        "contacts": contacts,
        "contact_models": {"default": "exponential_spring",
                           "exponential_spring": {"mu_static": FRICTION_S,
                                                  "mu_dynamic": FRICTION_K}},
        "simulation": simulation(1.0),
    }


def foot(push):
    """A 1.2 kg foot (box 0.2 x 0.08 x 0.04 m) on exponential springs at its four bottom
    corners (default parameters, mu_s 0.7, mu_k 0.5), dropped flat from 8 cm, 2 s at rtol 1e-6;
    with `push`, a constant 4 N sideways (Ground x) at its centre, well under the static
    friction limit (0.7 m g = 8.2 N): the foot must land and stand still."""
    hx, hy, hz, mass = 0.1, 0.04, 0.02, 1.2
    scene = {
        "name": "foot_push" if push else "foot_drop",
        "description": ("A 1.2 kg foot (0.2 x 0.08 x 0.04 m box) on exponential springs at its "
                        "four bottom corners (defaults, mu_s 0.7, mu_k 0.5), dropped flat from "
                        "8 cm%s. It lands and bounces, the bounces dying out over the 2 s%s: "
                        "the cost of holding stiction."
                        % (", pushed sideways by a constant 4 N (static limit 8.2 N)"
                           if push else "",
                           ", held from about 1.2 s on after sliding 15 cm as it landed"
                           if push else "")),
        "gravity": [0, 0, -G],
        "bodies": [{
            "name": "foot", "mass": mass, "inertia": {"box": [hx, hy, hz]},
            "joint": {"type": "free", "parent": "ground", "initial": {
                "position": [0, 0, r9(hz + 0.08)]}},
        }],
        "planes": [{"name": "floor"}],
        "contacts": [{"name": "sole", "body": "foot", "plane": "floor",
                      "points": [[r9(x), r9(y), -hz] for y in (-hy, hy) for x in (-hx, hx)]}],
        "contact_models": {"default": "exponential_spring",
                           "exponential_spring": {"mu_static": FRICTION_S,
                                                  "mu_dynamic": FRICTION_K}},
        # rk: 0.28 of BDF's CPU at equal error on foot_drop, and the pushed foot's anchor
        # releases cost it 1,596 steps where BDF takes 35,441 (docs/performance.md)
        "simulation": {"integrator": "rk", "duration": 2.0, "report_interval": 0.01,
                       "rtol": 1e-6},
    }
    if push:
        scene["forces"] = [{"type": "constant", "name": "push", "body": "foot",
                            "force": [4.0, 0, 0]}]
    return scene


def write(outdir, scene, compact=False):
    path = os.path.join(outdir, scene["name"] + ".json")
    with open(path, "w") as f:
        if compact:
            json.dump(scene, f, separators=(",", ":"))
        else:
            json.dump(scene, f, indent=2)
        f.write("\n")
    return path


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "scenes", "bench"),
                    help="output directory (default: scenes/bench)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    scenes = [
        block_spin_slide(0.01, "block_spin_slide"),
        block_spin_slide(0.001, "block_spin_slide_vt001"),
        incline(20, 3.0),
        incline(40, 2.0),
        sphere_bounce_roll(),
        pendulum_stop(),
        bushing_hang(),
    ]
    scenes += [chain(n) for n in (1, 4, 16, 64, 256)]
    scenes += [pile(m) for m in (1, 10, 100, 1000)]
    scenes += [foot(False), foot(True)]
    for s in scenes:
        print(os.path.relpath(write(args.out, s, compact=len(s["bodies"]) > 200)))


if __name__ == "__main__":
    main()
