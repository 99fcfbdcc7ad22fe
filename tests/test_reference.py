#!/usr/bin/env python3
"""contactsim against the assertions of Simbody's and OpenSim's own public test programs.

Each case rebuilds, as a contactsim scene, the system of one public test (named in its comment:
repository, file, test function), runs it with the contactsim executable, and checks the value
that test asserts with the tolerance it uses. The expected values are stated in each comment
(an analytic answer or a limit), so that the case stands on its own; nothing of the reference
programs' code is used. The reference's integrator settings are mirrored where the assertion
depends on them: Simbody's and OpenSim's tests integrate with Runge-Kutta-Merson at a given
"accuracy", mirrored here by contactsim's explicit Runge-Kutta pair (`rk`) at that relative
tolerance.

Frames. Simbody's and OpenSim's half spaces are the region x > 0 of their frame H; a contactsim
plane is z = 0 of its frame with +z the outward normal, so a half space H becomes the plane frame
H * Ry(-90 deg) (docs/contact-models.md, "Porting Simbody and OpenSim models"). The references
are y-up (gravity along -y); so are the scenes here.

Tolerances written `SimTK_TEST_EQ_TOL(a, b, tol)` in the references are relative to
max(|a|, |b|, 1) (SimTKcommon's Test::numericallyEqual); `near` below does the same.

Usage: test_reference.py PATH/TO/contactsim"""
import csv
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

from casekit import case, check, failures, finish

EXE = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="test_reference.")


def near(a, b, tol):
    """SimTK_TEST_EQ_TOL: |a - b| < tol max(|a|, |b|, 1)."""
    return abs(a - b) < tol * max(abs(a), abs(b), 1.0)


_count = [0]


def run(scene, *args, forces=True):
    """Write the scene, run it, return the CSV rows as dicts of floats and the --stats JSON."""
    _count[0] += 1
    base = os.path.join(TMP, f"{_count[0]:03d}_{scene.get('name', 'scene')}")
    path, out, stats = base + ".json", base + ".csv", base + ".stats.json"
    with open(path, "w") as f:
        json.dump(scene, f)
    cmd = [EXE, "run", path, "-o", out, "--stats", stats, "--quiet"] + list(args)
    if forces:
        cmd.append("--forces")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
    check(p.returncode == 0, f"{scene.get('name')}: exit {p.returncode}: {p.stderr[-2000:]}")
    with open(out) as f:
        reader = csv.reader(f)
        head = next(reader)
        rows = [dict(zip(head, map(float, r))) for r in reader]
    with open(stats) as f:
        return rows, json.load(f)


# --- small rotation helpers (quaternions w, x, y, z; 3x3 lists) --------------------------------

def qaxis(axis, angle):
    n = math.sqrt(sum(a * a for a in axis))
    s = math.sin(angle / 2)
    return [math.cos(angle / 2)] + [a / n * s for a in axis]


def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return [w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2]


def rotmat(q):
    n = math.sqrt(sum(a * a for a in q))
    w, x, y, z = (a / n for a in q)
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def quat_of(R):
    w = math.sqrt(max(0.0, 1 + R[0][0] + R[1][1] + R[2][2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1 + R[0][0] - R[1][1] - R[2][2])) / 2, R[2][1] - R[1][2])
    y = math.copysign(math.sqrt(max(0.0, 1 - R[0][0] + R[1][1] - R[2][2])) / 2, R[0][2] - R[2][0])
    z = math.copysign(math.sqrt(max(0.0, 1 - R[0][0] - R[1][1] + R[2][2])) / 2, R[1][0] - R[0][1])
    return [w, x, y, z]


def mm(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mv(A, v):
    return [sum(A[i][k] * v[k] for k in range(3)) for i in range(3)]


def tr(A):
    return [[A[j][i] for j in range(3)] for i in range(3)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def add(a, b):
    return [x + y for x, y in zip(a, b)]


def sub(a, b):
    return [x - y for x, y in zip(a, b)]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def vec(row, prefix, names="xyz"):
    return [row[prefix + c] for c in names]


# A Simbody/OpenSim half space fixed to Ground with X_GH = Rotation(-90 deg, ZAxis) (the usual
# floor: x > 0 of H is -y of Ground, the inside) as a contactsim plane: H * Ry(-90 deg), whose +z
# is +y of Ground.
Q_HALF_SPACE_FLOOR = qmul(qaxis([0, 0, 1], -math.pi / 2), qaxis([0, 1, 0], -math.pi / 2))

# States at which a force is checked are reached by a run of one nanosecond: row 0 of the CSV
# (t = 0) holds the forces at the initial state exactly.
AT_T0 = {"duration": 1e-9, "report_interval": 1e-9}


def sphere_grid(radius, plane):
    """The states of Simbody's force tests: the sphere centre at heights radius + 0.2 down to
    above 0 in steps of 0.1, and at each, velocities -1 to 1 in steps of 0.1, once normal to the
    plane ("n": penetration rate v) and once tangential ("t": slip v along x). The loops
    accumulate their steps as the reference's do. One body per state, so one run checks all."""
    bodies, contacts, cases = [], [], []
    h, i = radius + 0.2, 0
    while h > 0:
        v, j = -1.0, 0
        while v <= 1.0:
            for kind, vel in (("n", [0, -v, 0]), ("t", [v, 0, 0])):
                name = f"{kind}{i}_{j}"
                bodies.append({"name": name, "mass": 1.0, "inertia": {"diag": [1, 1, 1]},
                               "joint": {"type": "free",
                                         "initial": {"position": [0, h, 0], "velocity": vel}}})
                contacts.append({"name": "c" + name, "body": name, "plane": plane,
                                 "points": [[0, 0, 0]], "radius": radius})
                cases.append(("c" + name + ".0", kind, h, v))
            v += 0.1
            j += 1
        h -= 0.1
        i += 1
    return bodies, contacts, cases


def check_spatial(row, e, centre, F, point, tol, what):
    """The force on the sphere and its moment about the sphere's centre (the body origin): the
    spatial force the references compare, from the element's force and contact point."""
    got = vec(row, e + ".f")
    M = cross(sub(vec(row, e + ".p"), centre), got)
    Me = cross(sub(point, centre), F)
    err = max(abs(a - b) for a, b in zip(got + M, F + Me))
    check(err < tol, f"{what} {e}: force {got} moment {M}, expected {F} {Me} (|err| {err:.3g})")


# ------------------------------------------------------------------------------------------------
# Simbody, Simbody/tests/TestHuntCrossleyForce.cpp, testForces(): a sphere of radius 0.8 on a
# Translation mobilizer against a ground half space, the two surfaces with their own materials
# (setBodyParameters: sphere E1 = 1, c1 = 0.5, us 1.0, ud 0.5, uv 0.1; half space E2 = 2, c2 = 1.0,
# us 0.7, ud 0.2, uv 0.05), transition velocity 0.001. At each state of the grid the force on the
# sphere must equal, to 1e-10 N (and N m):
#   k_i = E_i^(2/3), k = k1 k2 / (k1 + k2), d = penetration, fh = (4/3) k d sqrt(R k d) (0 if d <= 0)
#   normal velocity v (penetration rate): f = max(0, fh (1 + 3/2 c v)), c = (c1 k2 + c2 k1) / (k1 + k2)
#   tangential velocity v: friction -sign(v) fh [min(|v|/vt, 1) (ud + 2 (us - ud) / (1 + (v/vt)^2))
#     + uv |v|] with us, ud, uv the harmonic means 2 a b / (a + b), applied at the point
#     k1 d / (k1 + k2) below the half space's surface (the sphere takes k2 / (k1 + k2) of the overlap).
@case
def simbody_hunt_crossley_forces():
    R, E1, E2 = 0.8, 1.0, 2.0
    bodies, contacts, cases = sphere_grid(R, "floor")
    scene = {"name": "hc_forces", "gravity": [0, -9.8, 0], "bodies": bodies,
             "planes": [{"name": "floor", "frame": {"rotation": {"quaternion": Q_HALF_SPACE_FLOOR}}}],
             "contacts": contacts,
             "contact_models": {"hunt_crossley": {
                 "transition_velocity": 0.001,
                 "body_material": {"plane_strain_modulus": E1, "dissipation": 0.5, "mu_static": 1.0,
                                   "mu_dynamic": 0.5, "mu_viscous": 0.1},
                 "plane_material": {"plane_strain_modulus": E2, "dissipation": 1.0,
                                    "mu_static": 0.7, "mu_dynamic": 0.2, "mu_viscous": 0.05}}},
             "simulation": AT_T0}
    rows, _ = run(scene)
    row = rows[0]
    check(row["t"] == 0, "row 0 is not t = 0")
    k1, k2 = E1 ** (2 / 3), E2 ** (2 / 3)
    k = k1 * k2 / (k1 + k2)
    c = (0.5 * k2 + 1.0 * k1) / (k1 + k2)
    hm = lambda a, b: 2 * a * b / (a + b)
    us, ud, uv, vt = hm(1.0, 0.7), hm(0.5, 0.2), hm(0.1, 0.05), 0.001
    for e, kind, h, v in cases:
        d = R - h
        fh = (4 / 3) * k * d * math.sqrt(R * k * d) if d > 0 else 0.0
        if kind == "n":
            F = [0, max(0.0, fh * (1 + 1.5 * c * v)), 0]
        else:
            vr = abs(v / vt)
            ff = (1 if v < 0 else -1) * fh * (min(vr, 1) * (ud + 2 * (us - ud) / (1 + vr * vr))
                                              + uv * abs(v))
            F = [ff, fh, 0]
        point = [0, -k1 * d / (k1 + k2), 0]
        if fh == 0:
            point = vec(row, e + ".p")  # no force: the moment is zero wherever the point is
        check_spatial(row, e, [0, h, 0], F, point, 1e-10, "hunt_crossley")


SMOOTH = {"plane_strain_modulus": 1500.0, "dissipation": 0.5, "mu_static": 1.0, "mu_dynamic": 0.5,
          "mu_viscous": 0.1, "transition_velocity": 0.001, "constant_contact_force": 1e-5,
          "hertz_smoothing": 300, "hunt_crossley_smoothing": 50}


def smooth_normal(d, vpen):
    """The smoothed Hertz + Hunt-Crossley normal force of SMOOTH on a sphere of radius 0.8."""
    R, k = 0.8, 0.5 * SMOOTH["plane_strain_modulus"] ** (2 / 3)
    cf, bd, bv, c = 1e-5, 300, 50, 0.5
    fh = (4 / 3) * k * math.sqrt(d * d + cf) ** 1.5 * math.sqrt(R * k)
    fhs = fh * (0.5 + 0.5 * math.tanh(bd * d))
    return fhs, fhs * (1 + 1.5 * c * vpen) * (0.5 + 0.5 * math.tanh(bv * (vpen + 2 / (3 * c))))


def smooth_friction(fn, vtan):
    """Friction force vector of SMOOTH for normal force fn and tangential velocity vtan."""
    us, ud, uv, vt, cf = 1.0, 0.5, 0.1, 0.001, 1e-5
    vs = math.sqrt(dot(vtan, vtan) + cf)
    vr = vs / vt
    ff = fn * (min(vr, 1) * (ud + 2 * (us - ud) / (1 + vr * vr)) + uv * vs)
    return [-ff * a / vs for a in vtan]


# ------------------------------------------------------------------------------------------------
# Simbody, Simbody/tests/TestSmoothSphereHalfSpaceForce.cpp, testForces(): a sphere of radius 0.8
# on a Translation mobilizer against a half space carried by a second, Free body (frame
# Rotation(-90 deg, ZAxis) on it), stiffness 1500, dissipation 0.5, us 1.0, ud 0.5, uv 0.1,
# vt 0.001, cf 1e-5, bd 300, bv 50. On the grid of states, to 1e-10 N (N m, J):
#   k = E^(2/3) / 2, fh = (4/3) k (d^2 + cf)^(3/4) sqrt(R k), fh_s = fh (1/2 + tanh(bd d) / 2)
#   at rest: force fh_s along the outward normal, potential energy (2/5) fh_s d;
#   penetration rate v: fh_s (1 + 3/2 c v) (1/2 + tanh(bv (v + 2 / (3 c))) / 2);
#   slip v: friction fh_s [min(vs/vt, 1) (ud + 2 (us - ud) / (1 + (vs/vt)^2)) + uv vs] against the
#   slip, vs = sqrt(v^2 + cf), applied midway through the overlap (d/2 below the surface).
# The smoothed force reaches beyond contact, so every state has one (d < 0 included).
@case
def simbody_smooth_sphere_forces():
    R = 0.8
    bodies, contacts, cases = sphere_grid(R, "hs")
    slab = {"name": "slab", "mass": 1.0, "inertia": {"diag": [1, 1, 1]}, "joint": {"type": "free"}}
    scene = {"name": "smooth_forces", "gravity": [0, -9.8, 0], "bodies": [slab] + bodies,
             "planes": [{"name": "hs", "body": "slab",
                         "frame": {"rotation": {"quaternion": Q_HALF_SPACE_FLOOR}}}],
             "contacts": contacts, "contact_models": {"smooth_sphere_half_space": SMOOTH},
             "simulation": AT_T0}
    rows, _ = run(scene)
    row = rows[0]
    for e, kind, h, v in cases:
        d = R - h
        fhs, fn = smooth_normal(d, v if kind == "n" else 0.0)
        pe = row[e + ".pe"]
        check(abs(pe - 0.4 * fhs * d) < 1e-10, f"{e}: pe {pe}, expected {0.4 * fhs * d}")
        if kind == "n":
            F = [0, fn, 0]
        else:
            F = add([0, fhs, 0], smooth_friction(fhs, [v, 0, 0]))
        check_spatial(row, e, [0, h, 0], F, [0, -d / 2, 0], 1e-10, "smooth sphere")


# ------------------------------------------------------------------------------------------------
# Simbody, Simbody/tests/TestSmoothSphereHalfplaneContact.cpp (the predecessor of the test above),
# testForces(), last loop: the same sphere and parameters against planes of 20 random unit normals
# n and offsets -0.1 to 0.1 (plane n . x = offset, inside n . x < offset), the sphere at
# (0.23, 0.10, 0.42) moving at (0.34, -0.65, -0.48). With d = offset - n . (centre - R n) and the
# penetration rate -v . n, the force is the smoothed normal force above along n plus the friction
# of the tangential velocity, applied at centre - R n + (d/2) n; to 1e-10. (Some of these states
# are deeper than the radius; the formula holds there too.)
@case
def simbody_smooth_sphere_tilted_planes():
    R = 0.8
    loc, vel = [0.23, 0.10, 0.42], [0.34, -0.65, -0.48]
    rnd = random.Random(20)
    planes, bodies, contacts, cases = [], [], [], []
    for i in range(20):
        n = [rnd.uniform(-1, 1) for _ in range(3)]
        n = [a / math.sqrt(dot(n, n)) for a in n]
        # a rotation taking +z onto n
        ax = cross([0, 0, 1], n)
        q = qaxis(ax, math.atan2(math.sqrt(dot(ax, ax)), n[2]))
        for j in range(21):
            off = -0.1 + 0.01 * j
            name = f"b{i}_{j}"
            planes.append({"name": "p" + name,
                           "frame": {"position": [off * a for a in n], "rotation": {"quaternion": q}}})
            bodies.append({"name": name, "mass": 1.0, "inertia": {"diag": [1, 1, 1]},
                           "joint": {"type": "free", "initial": {"position": loc, "velocity": vel}}})
            contacts.append({"name": "c" + name, "body": name, "plane": "p" + name,
                             "points": [[0, 0, 0]], "radius": R})
            cases.append(("c" + name + ".0", n, off))
    scene = {"name": "smooth_tilted", "gravity": [0, -9.8, 0], "bodies": bodies, "planes": planes,
             "contacts": contacts, "contact_models": {"smooth_sphere_half_space": SMOOTH},
             "simulation": AT_T0}
    rows, _ = run(scene)
    row = rows[0]
    for e, n, off in cases:
        d = off - dot(sub(loc, [a * R for a in n]), n)
        vn = dot(vel, n)
        vtan = sub(vel, [vn * a for a in n])
        _, fn = smooth_normal(d, -vn)
        F = add([fn * a for a in n], smooth_friction(fn, vtan))
        point = add(loc, [a * (d / 2 - R) for a in n])
        check_spatial(row, e, loc, F, point, 1e-10, "smooth sphere, tilted plane")


# ------------------------------------------------------------------------------------------------
# The block of Simbody's Simbody/tests/TestExponentialSpring.cpp, simulateBlock(): a 10 kg body
# (inertia 1 kg m^2 about each axis) on a Free mobilizer, gravity -9.8 along y, an
# ExponentialSpringForce at each of its 8 corners (half side 0.1 m) against a floor (the plane
# rotated -90 deg about x, then by the test's tilt about Ground z) and as many against a wall
# (1.5 m along x, rotated -60 deg about y); mu_s 0.5, mu_k 0.25 (0 without friction), and without
# damping cz = cxy = 0. Initial conditions by number, as the reference's:
#   1 dropped from 1 m; 2 sliding at 4 m/s; 3 spinning at 8 rad/s; 4 sliding at 2 m/s and
#   spinning at 12 rad/s; 5 spinning like a top, tipped 54.74 deg about (1, 0, 1); 6 tumbling.
HS = 0.1
CORNERS = [[HS, -HS, HS], [HS, -HS, -HS], [-HS, -HS, -HS], [-HS, -HS, HS],
           [HS, HS, HS], [HS, HS, -HS], [-HS, HS, -HS], [-HS, HS, HS]]
WALL_Q = qaxis([0, 1, 0], math.radians(-60))
# Simbody's integrator there: Runge-Kutta-Merson at accuracy 1e-5, steps of at most 0.01 s
SIMBODY_RKM_1E5 = {"integrator": "rk", "rtol": 1e-5, "max_step": 0.01}


def exp_block(cond, damping, friction, tilt, tf, sim, report):
    q_floor = qmul(qaxis([0, 0, 1], math.radians(tilt)), qaxis([1, 0, 0], -math.pi / 2))
    params = {"mu_static": 0.5 if friction else 0.0, "mu_dynamic": 0.25 if friction else 0.0}
    if not damping:
        params.update(cz=0.0, cxy=0.0)
    x, v, w, q = [0.5, 0.11, 0.0], [0, 0, 0], [0, 0, 0], [1, 0, 0, 0]
    if cond == 1:
        x = [0.5, 1.0, 0.0]
    elif cond == 2:
        x, v = [-0.5, 0.11, 0.0], [4.0, 0, 0]
    elif cond == 3:
        w = [0, 8.0, 0]
    elif cond == 4:
        v, w = [2.0, 0, 0], [0, 12.0, 0]
    elif cond == 5:
        q, x, w = qaxis([1, 0, 1], math.radians(54.74)), [0.5, 0.2, 0.0], [0, 12.0, 0]
    elif cond == 6:
        x, v, w = [-1.0, 1.0, 0.5], [4.0, 0, 0], [-1.0, 0, -6.0]
    scene = {"name": f"exp_block_{cond}", "gravity": [0, -9.8, 0],
             "bodies": [{"name": "block", "mass": 10.0, "inertia": {"diag": [1, 1, 1]},
                         "joint": {"type": "free", "initial": {
                             "position": x, "orientation": {"quaternion": q}, "velocity": v,
                             "angular_velocity": w}}}],
             "planes": [{"name": "floor", "frame": {"rotation": {"quaternion": q_floor}}},
                        {"name": "wall", "frame": {"position": [1.5, 0, 0],
                                                   "rotation": {"quaternion": WALL_Q}}}],
             "contacts": [{"name": "f", "body": "block", "plane": "floor", "points": CORNERS},
                          {"name": "w", "body": "block", "plane": "wall", "points": CORNERS}],
             "contact_models": {"exponential_spring": params},
             "simulation": dict({"duration": tf, "report_interval": report}, **sim)}
    return scene, rotmat(q_floor), rotmat(WALL_Q)


# The reference's sub-tests: (condition, damping, friction, tilt of the floor in deg, final time)
EXP_TESTS = [(1, 0, 0, 0, 2.4), (1, 0, 1, 0, 2.4), (1, 1, 0, 0, 3.0), (1, 1, 1, 0, 3.0),
             (2, 0, 0, 0, 1.0), (2, 1, 1, 0, 3.0), (3, 0, 0, 0, 2.0), (3, 1, 1, 0, 3.0),
             (3, 1, 1, -15, 8.0), (4, 0, 0, 0, 0.8), (4, 0, 1, 0, 1.6), (4, 1, 0, 0, 1.6),
             (4, 1, 1, 0, 5.5), (5, 0, 0, 0, 2.0), (5, 1, 1, 0, 2.0), (6, 0, 0, 0, 2.2),
             (6, 1, 1, 0, 10.0)]


# Simbody, TestExponentialSpring.cpp, checkSpringCalculations(), on every state recorded at 1/60 s
# for each of the 16 springs of every sub-test: the normal force is the sum of its elastic and
# damping parts; 0 <= Sliding <= 1; mu_k <= mu <= mu_s (within the accuracy 1e-5); mu > 0 with
# friction; the friction limit is mu |fz| (1e-12); the friction force lies in the plane, is the
# sum of its elastic and damping parts and is at most the limit (+1e-12); the force in Ground is
# the plane-frame force (friction, fz) rotated by the plane's orientation, with the same
# magnitude; the point of application is the station; the anchor lies in the plane.
@case
def simbody_exponential_spring_consistency():
    acc = 1e-5
    for cond, damping, friction, tilt, tf in EXP_TESTS:
        scene, R_floor, R_wall = exp_block(cond, damping, friction, tilt, tf, SIMBODY_RKM_1E5,
                                           1 / 60)
        rows, _ = run(scene)
        what = f"test {cond} damping {damping} friction {friction} tilt {tilt}"
        mus, muk = (0.5, 0.25) if friction else (0.0, 0.0)
        for r in rows:
            Rb = rotmat(vec(r, "block.q", "wxyz"))
            origin = vec(r, "block.p")
            for plane, Rp in (("f", R_floor), ("w", R_wall)):
                for i, corner in enumerate(CORNERS):
                    e = f"{plane}.{i}."
                    at = f"{what}, {e[:-1]} at t = {r['t']:.4f}"
                    fz = r[e + "normal_force"]
                    check(near(r[e + "fz_elastic"] + r[e + "fz_damping"], fz, 1e-10),
                          f"{at}: fz != elastic + damping")
                    check(0 <= r[e + "sliding"] <= 1, f"{at}: Sliding {r[e + 'sliding']}")
                    mu = r[e + "mu"]
                    check(muk <= mu + acc and mu <= mus + acc, f"{at}: mu {mu}")
                    check(mu > 0 or not friction, f"{at}: mu {mu} with friction")
                    limit = r[e + "limit"]
                    check(abs(limit - mu * abs(fz)) <= 1e-12 * max(1, limit), f"{at}: limit {limit}")
                    fric = [r[e + "fxy_elastic_x"] + r[e + "fxy_damping_x"],
                            r[e + "fxy_elastic_y"] + r[e + "fxy_damping_y"]]
                    fmag = math.hypot(*fric)
                    check(fmag <= limit + 1e-12, f"{at}: |friction| {fmag} > limit {limit}")
                    F = vec(r, e + "f")
                    Fe = mv(Rp, [fric[0], fric[1], fz])
                    check(all(near(a, b, 1e-10) for a, b in zip(F, Fe)), f"{at}: F {F} != {Fe}")
                    check(near(math.sqrt(dot(F, F)), math.hypot(fmag, fz), 1e-10),
                          f"{at}: |F| in Ground != in the plane")
                    station = add(origin, mv(Rb, corner))
                    check(all(near(a, b, 1e-10) for a, b in zip(vec(r, e + "p"), station)),
                          f"{at}: point {vec(r, e + 'p')} != station {station}")
                    check(r[e + "p0_z"] == 0, f"{at}: anchor off the plane")


# Simbody, TestExponentialSpring.cpp, checkConservationOfEnergy(), for the sub-tests without
# damping and friction (the springs then store all the energy they take: KE + PE is constant):
# at every lowest point of the block (its origin's vertical velocity turning from negative to
# positive) after the first, the energy E must equal E0, the energy at the first lowest point,
# within t acc E0 (SimTK_TEST_EQ_TOL, so relative to max(|E|, |E0|, 1)), acc = 1e-5 the
# integrator's accuracy and t the time. Checked at the reference's integrator settings and at
# contactsim's defaults (which docs/scene-format.md says are at least as accurate); lowest points
# are found on a 1 ms grid.
@case
def simbody_exponential_spring_energy():
    acc = 1e-5
    for cond, damping, friction, tilt, tf in EXP_TESTS:
        if damping or friction:
            continue
        for label, sim in (("Simbody's settings", SIMBODY_RKM_1E5), ("defaults", {})):
            scene, _, _ = exp_block(cond, 0, 0, 0, tf, sim, 1e-3)
            rows, _ = run(scene, forces=False)
            check(max(abs(r["dissipated"]) for r in rows) == 0, f"test {cond}: energy dissipated")
            lows = [rows[i] for i in range(1, len(rows))
                    if rows[i - 1]["block.vy"] < 0 <= rows[i]["block.vy"]]
            check(len(lows) >= 2, f"test {cond}: {len(lows)} lowest points")
            E0 = lows[0]["ke"] + lows[0]["pe"]
            for r in lows[1:]:
                E = r["ke"] + r["pe"]
                check(near(E, E0, r["t"] * acc * E0),
                      f"test {cond} ({label}): E {E} at t = {r['t']}, E0 {E0}")


# Simbody, TestExponentialSpring.cpp, testInitialization(): after resetAnchorPoint the anchor is
# the station's projection onto the plane and the elastic part of the friction force is zero
# (contactsim does this at the start of every run); setting mu_k above mu_s raises mu_s to it,
# setting mu_s below mu_k lowers mu_k to it. Here a block resting on four corner springs (so that
# Sliding is 0 and mu = mu_s) gets mu_dynamic 1.7 (> mu_s 0.7) at 0.3 s: mu becomes 1.7;
# mu_static 0.3 (< mu_k 1.7) at 0.6 s: mu becomes 0.3; mu_dynamic 0.1 at 0.9 s leaves mu_s 0.3.
# (Simbody also clamps a negative coefficient to 0; a scene refuses one when it loads, and only
# the C API's cs_setDiscrete clamps, so that rule is not checked here.)
@case
def simbody_exponential_spring_anchor_and_mu_rules():
    scene, R_floor, R_wall = exp_block(3, 1, 1, 0, 0.05, {}, 0.05)
    rows, _ = run(scene)
    r = rows[0]
    for plane, Rp in (("f", R_floor), ("w", R_wall)):
        for i in range(8):
            e = f"{plane}.{i}."
            check(r[e + "fxy_elastic_x"] == 0 and r[e + "fxy_elastic_y"] == 0,
                  f"{e}: elastic friction at t = 0")
            check(abs(r[e + "p0_x"] - r[e + "station_x"]) < 1e-15
                  and abs(r[e + "p0_y"] - r[e + "station_y"]) < 1e-15, f"{e}: anchor not under station")
    scene = {"name": "mu_rules", "gravity": [0, 0, -9.8],
             "bodies": [{"name": "block", "mass": 10.0, "inertia": {"diag": [1, 1, 1]},
                         "joint": {"type": "free", "initial": {"position": [0, 0, 0.105]}}}],
             "planes": [{"name": "floor"}],
             "contacts": [{"name": "blk", "body": "block", "plane": "floor",
                           "points": [[x, y, -HS] for x in (-HS, HS) for y in (-HS, HS)]}],
             "contact_models": {"exponential_spring": {"mu_static": 0.7, "mu_dynamic": 0.5}},
             "changes": [{"time": 0.3, "force": "blk", "mu_dynamic": 1.7},
                         {"time": 0.6, "force": "blk", "mu_static": 0.3},
                         {"time": 0.9, "force": "blk", "mu_dynamic": 0.1}],
             "simulation": {"duration": 1.2, "report_interval": 0.05}}
    rows, _ = run(scene)
    for r in rows:
        t = r["t"]
        want = 0.7 if 0.1 < t < 0.29 else 1.7 if 0.31 < t < 0.59 else 0.3 if t > 0.61 else None
        for i in range(4):
            e = f"blk.{i}."
            if want is not None:
                check(abs(r[e + "mu"] - want) < 1e-12, f"{e} t = {t}: mu {r[e + 'mu']}, want {want}")
            check(abs(r[e + "limit"] - r[e + "mu"] * r[e + "normal_force"]) < 1e-9, f"{e}: limit")


# Simbody, TestExponentialSpring.cpp, testInitialization(), the rest of it. (1) Critical damping:
# setElasticityAndViscosityForCriticalDamping(kxy = 1e5) makes cxy = 2 sqrt(kxy m) with the
# default m = 1 kg, and with m = 20 kg; SimTK_TEST_EQ, so within SignificantReal = eps^(7/8)
# (2e-14) relative. Here mass_for_damping (docs/contact-models.md), read back as the friction
# damping -cxy v of a station slipping at v = 1 mm/s on the floor at t = 0 (Sliding is 1 at the
# start, and the limit, 522 N, is far above the force). (2) The anchor reset on a 10 kg body at
# (0, 0.2, 0), station (0.1, -0.1, 0.1), against the plane X = (Rz(45 deg), (1, 0, 0)) with every
# parameter 0.1 above its default (d0 then puts the station inside the spring's range: fz
# 1,241 N, limit 744 N): the anchor is the station projected onto the plane, in the plane's
# frame and in Ground (the reference compares with its own arithmetic exactly; here with
# independent arithmetic, within 2e-14), and the elastic part of the friction is zero (2e-14).
SIGNIFICANT = sys.float_info.epsilon ** 0.875


@case
def simbody_exponential_spring_critical_damping_and_anchor():
    def body(name, position, velocity):
        return {"name": name, "mass": 10.0, "inertia": {"diag": [1, 1, 1]},
                "joint": {"type": "free", "initial": {"position": position, "velocity": velocity}}}

    defaults = {"d0": 0.0065905, "d1": 0.5336, "d2": 1150.0, "cz": 0.5, "max_fz": 100000.0,
                "kxy": 20000.0, "cxy": 2 * math.sqrt(20000.0), "v_settle": 0.01, "mu_static": 0.7,
                "mu_dynamic": 0.5}
    tilt = qaxis([0, 0, 1], math.pi / 4)
    station = [0.1, -0.1, 0.1]
    v, kxy, masses = 1e-3, 1e5, (1.0, 20.0)
    scene = {"name": "exp_initialization", "gravity": [0, -9.8, 0],
             "bodies": [body(f"m{m:g}", [0, 0, 0], [v, 0, 0]) for m in masses]
                       + [body("block", [0, 0.2, 0], [0, 0, 0])],
             "planes": [{"name": "floor",
                         "frame": {"rotation": {"axis": [1, 0, 0], "angle_deg": -90}}},
                        {"name": "tilted",
                         "frame": {"position": [1, 0, 0], "rotation": {"quaternion": tilt}}}],
             "forces": [{"type": "exponential_spring", "name": f"c{m:g}", "body": f"m{m:g}",
                         "plane": "floor", "station": [0, 0, 0], "kxy": kxy, "mass_for_damping": m}
                        for m in masses]
                       + [dict({k: x + 0.1 for k, x in defaults.items()}, type="exponential_spring",
                               name="spr", body="block", plane="tilted", station=station)],
             "simulation": AT_T0}
    rows, _ = run(scene)
    r = rows[0]
    for m in masses:
        e = f"c{m:g}."
        cxy = -r[e + "fxy_damping_x"] / v
        check(r[e + "sliding"] == 1 and abs(r[e + "fxy_damping_x"]) < r[e + "limit"],
              f"{e}: not sliding freely at t = 0")
        check(near(cxy, 2 * math.sqrt(kxy * m), SIGNIFICANT),
              f"mass {m}: cxy {cxy}, expected {2 * math.sqrt(kxy * m)}")
    R = rotmat(tilt)
    s_G = [0.1, 0.2 - 0.1, 0.1]                  # the station in Ground
    s_P = mv(tr(R), sub(s_G, [1, 0, 0]))         # in the plane's frame
    p0 = [r["spr.p0_x"], r["spr.p0_y"], r["spr.p0_z"]]
    check(r["spr.limit"] > 1, f"no friction to speak of: limit {r['spr.limit']}")
    check(all(near(a, b, SIGNIFICANT) for a, b in zip(p0, s_P[:2] + [0.0])),
          f"anchor {p0}, the station's projection {s_P[:2] + [0.0]}")
    p0_G, projected_G = add([1, 0, 0], mv(R, p0)), sub(s_G, [s_P[2] * a for a in mv(R, [0, 0, 1])])
    check(all(near(a, b, SIGNIFICANT) for a, b in zip(p0_G, projected_G)),
          f"anchor in Ground {p0_G}, the station's projection {projected_G}")
    fe = [r["spr.fxy_elastic_x"], r["spr.fxy_elastic_y"]]
    check(all(abs(a) < SIGNIFICANT for a in fe), f"elastic friction {fe} after the reset")

# ------------------------------------------------------------------------------------------------
# Simbody, Simbody/tests/TestLinearBushing.cpp, testKinematicsAndEnergyConservation() and
# ...UsingBushingMobilizer(): body 1 on a Free mobilizer (parent frame X_GA, child frame X_B2M),
# tied to the Ground origin by a linear spring (k 10, rest length 0); body 2 moves relative to
# body 1 with 6 dof from F = X_B1F on body 1 to M = X_B2M on body 2 (here a free joint from F to
# M); a LinearBushing between F and M with k = 10 and c = 1 on all six coordinates; mass 1.234,
# centre of mass (.1, .2, .3), inertia 1.234 (1, 1.1, 1.2, 0.01, 0.02, 0.03); no gravity; 5 s at
# accuracy 1e-6. Asserted: the bushing's q and qdot equal the kinematics of the joint between F
# and M (body-fixed x-y-z Euler angles of R_FM and p_FM in F, and their rates) at the start and
# the end; the dissipated energy is exactly 0 after initialisation; KE + PE + dissipated at 5 s
# equals the initial energy within 10 * 1e-6 (relative).
# And Simbody/tests/TestLinearBushing.cpp, testForces(), with the bushing "reversed" (F on the
# moving body, M on Ground at (1, 1, 1)) and random positive k, c: the bushing's force equals the
# reaction of an equivalent 6-dof mobilizer driven by mobility springs and dampers, i.e.
# generalized forces f_i = -(k_i q_i + c_i qdot_i), the moment on M whose power matches
# f . qdot (tau = N^T f with qdot = N w_FM) and the force R_GF f_trans at M; the force on F is
# the opposite, moved to F's origin. Checked at every report, for both bushings.
@case
def simbody_linear_bushing():
    X_GA = {"position": [0.3, -0.2, 0.5], "rotation": {"axis": [1, 2, -1], "angle": 0.7}}
    X_B1F = {"position": [0.15, -0.25, 0.1], "rotation": {"axis": [-2, 1, 3], "angle": 1.1}}
    X_B2M = {"position": [-0.2, 0.05, 0.3], "rotation": {"axis": [0.5, -1, 0.2], "angle": 0.9}}
    def fq(fr):
        rot = fr["rotation"]
        return rot["quaternion"] if "quaternion" in rot else qaxis(rot["axis"], rot["angle"])
    m = 1.234
    body = {"mass": m, "com": [0.1, 0.2, 0.3],
            "inertia": {"matrix": [m * 1, m * 1.1, m * 1.2, m * 0.01, m * 0.02, m * 0.03]}}
    q1 = qaxis([0.3, 0.9, -0.4], 0.6)
    q2 = qmul(qmul(qaxis([1, 0, 0], 0.4), qaxis([0, 1, 0], -0.35)), qaxis([0, 0, 1], 0.6))
    # the reversed bushing's M frame on Ground: aligned with body 1's frame at the start
    R_GB1 = mm(mm(rotmat(fq(X_GA)), rotmat(q1)), tr(rotmat(fq(X_B2M))))
    bushings = {
        "bush": {"body1": "b1", "frame1": X_B1F, "body2": "b2", "frame2": X_B2M,
                 "k": [10] * 6, "c": [1] * 6},
        "rev": {"body1": "b1", "frame1": {"position": [0.5, 0, 0]}, "body2": "ground",
                "frame2": {"position": [1, 1, 1], "rotation": {"quaternion": quat_of(R_GB1)}},
                "k": [0.8, 0.3, 0.6, 0.5, 0.9, 0.2], "c": [0.4, 0.7, 0.1, 0.3, 0.6, 0.8]}}
    scene = {"name": "linear_bushing", "gravity": [0, 0, 0],
             "bodies": [dict(body, name="b1", joint={
                            "type": "free", "parent_frame": X_GA, "child_frame": X_B2M,
                            "q": q1 + [0.2, -0.4, 0.3], "u": [0.5, -0.8, 0.3, 0, 0, 0]}),
                        dict(body, name="b2", joint={
                            "type": "free", "parent": "b1", "parent_frame": X_B1F,
                            "child_frame": X_B2M, "q": q2 + [0.12, -0.08, 0.05],
                            "u": [0.7, -0.4, 0.9, 0.3, -0.6, 0.2]})],
             "forces": [{"type": "spring", "name": "tether", "body1": "ground", "body2": "b1",
                         "stiffness": 10, "rest_length": 0}] +
                       [{"type": "linear_bushing", "name": n, "body1": b["body1"],
                         "frame1": b["frame1"], "body2": b["body2"], "frame2": b["frame2"],
                         "rotational_stiffness": b["k"][:3], "translational_stiffness": b["k"][3:],
                         "rotational_damping": b["c"][:3], "translational_damping": b["c"][3:]}
                        for n, b in bushings.items()],
             "simulation": {"duration": 5.0, "report_interval": 0.05, "integrator": "rk",
                            "rtol": 1e-6}}
    rows, stats = run(scene)
    check(rows[-1]["t"] == 5.0, "did not reach 5 s")

    def pose(r, b, fr):
        if b == "ground":
            R, p, v, w = [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0], [0, 0, 0], [0, 0, 0]
        else:
            R, p = rotmat(vec(r, b + ".q", "wxyz")), vec(r, b + ".p")
            v, w = vec(r, b + ".v"), vec(r, b + ".w")
        Rf = mm(R, rotmat(fq(fr))) if "rotation" in fr else R
        o = add(p, mv(R, fr["position"]))
        return Rf, o, add(v, cross(w, sub(o, p))), w  # frame, origin, origin's velocity, omega

    for r in rows:
        for n, b in bushings.items():
            at = f"{n} at t = {r['t']}"
            RGF, pF, vF, wF1 = pose(r, b["body1"], b["frame1"])
            RGM, pM, vM, wM2 = pose(r, b["body2"], b["frame2"])
            RFM = mm(tr(RGF), RGM)
            qe = [math.atan2(-RFM[1][2], RFM[2][2]),
                  math.atan2(RFM[0][2], math.hypot(RFM[0][0], RFM[0][1])),
                  math.atan2(-RFM[0][1], RFM[0][0])] + mv(tr(RGF), sub(pM, pF))
            q = [r[f"{n}.q{i}"] for i in range(6)]
            check(all(near(a, b_, 1e-10) for a, b_ in zip(q, qe)), f"{at}: q {q} != {qe}")
            w = mv(tr(RGF), sub(wM2, wF1))
            c0, s0, c1, s1 = math.cos(q[0]), math.sin(q[0]), math.cos(q[1]), math.sin(q[1])
            N = [[1, s1 * s0 / c1, -s1 * c0 / c1], [0, c0, s0], [0, -s0 / c1, c0 / c1]]
            qde = mv(N, w) + mv(tr(RGF), sub(sub(vM, vF), cross(wF1, sub(pM, pF))))
            qd = [r[f"{n}.qdot{i}"] for i in range(6)]
            check(all(near(a, b_, 1e-10) for a, b_ in zip(qd, qde)), f"{at}: qdot {qd} != {qde}")
            f = [r[f"{n}.f{i}"] for i in range(6)]
            fe = [-(b["k"][i] * q[i] + b["c"][i] * qd[i]) for i in range(6)]
            check(all(near(a, b_, 1e-12) for a, b_ in zip(f, fe)), f"{at}: f {f} != {fe}")
            tau = mv(RGF, mv(tr(N), f[:3]))
            force = mv(RGF, f[3:])
            F_GM = [r[f"{n}.body2_{c}"] for c in ("mx", "my", "mz", "fx", "fy", "fz")]
            F_GF = [r[f"{n}.body1_{c}"] for c in ("mx", "my", "mz", "fx", "fy", "fz")]
            mF = [-a for a in add(tau, cross(sub(pM, pF), force))]
            check(all(near(a, b_, 1e-10) for a, b_ in zip(F_GM, tau + force)),
                  f"{at}: F_GM {F_GM} != {tau + force}")
            check(all(near(a, b_, 1e-10) for a, b_ in zip(F_GF, mF + [-x for x in force])),
                  f"{at}: F_GF {F_GF} is not the opposite of F_GM")
    check(rows[0]["t"] == 0 and rows[0]["dissipated"] == 0,
          f"dissipated {rows[0]['dissipated']} at 0 s")
    E0, E1 = rows[0]["e_total"], rows[-1]["e_total"]
    check(rows[-1]["dissipated"] > 1, "the dampers did not work")
    check(near(E1, E0, 10 * 1e-6), f"KE + PE + dissipated {E0} at 0 s, {E1} at 5 s")
    check(not stats["diagnostics"], stats["diagnostics"])


# Simbody, Simbody/tests/TestForces.cpp, testDisabling(): two 1 kg bodies (inertia 1) on Free
# mobilizers at rest at (0, 1, 0) and (1, 1, 0), a TwoPointLinearSpring of stiffness 2 and rest
# length 0.5 between their origins, uniform gravity (0, -2, 0). The system's energy with both
# forces is 0.5 k (1 - 0.5)^2 + 2 m g y = 0.25 + 4 = 4.25 J; with the spring disabled 4, with
# both disabled 0, with only gravity disabled 0.25 (ASSERT_EQUAL: within 1e-10 J). contactsim has
# no switch to disable a force: a disabled spring is a scene without it, disabled gravity a scene
# with zero gravity. (The force on body 1, also asserted there, is not among the CSV columns.)
@case
def simbody_forces_disabling():
    def scene(spring, gravity):
        return {"name": "disabling", "gravity": [0, -2.0 if gravity else 0.0, 0],
                "bodies": [{"name": n, "mass": 1.0, "inertia": {"diag": [1, 1, 1]},
                            "joint": {"type": "free", "initial": {"position": p}}}
                           for n, p in (("b1", [0, 1, 0]), ("b2", [1, 1, 0]))],
                "forces": [{"type": "spring", "name": "spring", "body1": "b1", "body2": "b2",
                            "stiffness": 2.0, "rest_length": 0.5}] if spring else [],
                "simulation": AT_T0}

    for spring, gravity, want in ((1, 1, 4.25), (0, 1, 4.0), (0, 0, 0.0), (1, 0, 0.25)):
        r = run(scene(spring, gravity), forces=False)[0][0]
        E = r["ke"] + r["pe"]
        check(abs(E - want) < 1e-10,
              f"spring {spring}, gravity {gravity}: energy {E}, expected {want}")

# ------------------------------------------------------------------------------------------------
# OpenSim, OpenSim/Simulation/Test/testForces.cpp, testHuntCrossleyForce() and
# testSmoothSphereHalfSpaceForce() (models BouncingBall_HuntCrossley.osim and
# BouncingBall_SmoothSphereHalfSpace.osim): a 1 kg ball (inertia 1) of radius 0.5 on a free joint,
# started at rest at height 0.5 (touching the y = 0 ground half space), gravity -9.8065 along y;
# contact stiffness 1e4 and dissipation 0.75 (the same for both surfaces), static, dynamic and
# viscous friction 0.3, transition velocity 0.1. After 2 s at accuracy 1e-6 the dissipation has
# settled it: the contact force is the weight, 9.8065 N up, within 1e-3, with no horizontal force
# (1e-4) and no torque about the ball's centre (1e-4).
def opensim_ball(name, height, radius, contact_models, simulation):
    """OpenSim's bouncing-ball models: a 1 kg ball (inertia 1) on a free joint, started at rest
    at the given height above the y = 0 ground half space, gravity -9.8065 along y, a contact
    sphere of the given radius at its centre."""
    return {"name": name, "gravity": [0, -9.8065, 0],
            "bodies": [{"name": "ball", "mass": 1.0, "inertia": {"diag": [1, 1, 1]},
                        "joint": {"type": "free", "initial": {"position": [0, height, 0]}}}],
            "planes": [{"name": "ground",
                        "frame": {"rotation": {"quaternion": Q_HALF_SPACE_FLOOR}}}],
            "contacts": [{"name": "contact", "body": "ball", "plane": "ground",
                          "points": [[0, 0, 0]], "radius": radius}],
            "contact_models": contact_models, "simulation": simulation}


def settling_ball(model):
    scene = opensim_ball("ball_" + model, 0.5, 0.5,
                         {model: {"plane_strain_modulus": 1e4, "dissipation": 0.75,
                                  "mu_static": 0.3, "mu_dynamic": 0.3, "mu_viscous": 0.3,
                                  "transition_velocity": 0.1}},
                         {"duration": 2.0, "report_interval": 0.1})
    for sim in ({"integrator": "rk", "rtol": 1e-6}, {}):
        scene["simulation"].update(sim)
        rows, _ = run(scene)
        r = rows[-1]
        f = vec(r, "contact.0.f")
        M = cross(sub(vec(r, "contact.0.p"), vec(r, "ball.p")), f)
        check(r["t"] == 2.0 and abs(f[1] - 9.8065) < 1e-3, f"{model} {sim}: fy {f[1]}")
        check(abs(f[0]) < 1e-4 and abs(f[2]) < 1e-4, f"{model} {sim}: horizontal force {f}")
        check(all(abs(a) < 1e-4 for a in M), f"{model} {sim}: torque {M}")


@case
def opensim_hunt_crossley_ball_settles():
    settling_ball("hunt_crossley")


@case
def opensim_smooth_sphere_ball_settles():
    settling_ball("smooth_sphere_half_space")


# ------------------------------------------------------------------------------------------------
# OpenSim, OpenSim/Simulation/Test/testContactGeometry.cpp, testBouncingBall(false): a 1 kg ball
# (inertia 1) with a contact sphere of radius 0.1 dropped from a height of 1 m onto the ground
# half space, HuntCrossleyForce stiffness 1e6, dissipation 1e-5, no friction; accuracy 1e-5,
# checked every 0.01 s for 1 s: out of contact (height > 2 radii) the energy m g y + m vy^2 / 2
# equals its initial m g h within 1e-2 J (the contact returns what it stored); in contact
# 0 < y < 5; the ball stays on its vertical line: |x|, |z| < 1e-4 m, |vx|, |vz| < 1e-3 m/s.
@case
def opensim_contact_geometry_bouncing_ball():
    g = 9.8065
    scene = opensim_ball("bouncing_ball", 1.0, 0.1,
                         {"hunt_crossley": {"plane_strain_modulus": 1e6, "dissipation": 1e-5}},
                         {"duration": 1.0, "report_interval": 0.01, "integrator": "rk",
                          "rtol": 1e-5})
    rows, _ = run(scene, forces=False)
    touched = 0
    for r in rows[1:]:
        y = r["ball.py"]
        if y > 0.2:
            E = g * y + 0.5 * r["ball.vy"] ** 2
            check(abs(E - g * 1.0) < 1e-2, f"t = {r['t']}: energy {E}, initial {g}")
        else:
            touched += 1
            check(0 < y < 5, f"t = {r['t']}: y = {y}")
        check(abs(r["ball.px"]) < 1e-4 and abs(r["ball.pz"]) < 1e-4, f"t = {r['t']}: off the line")
        check(abs(r["ball.vx"]) < 1e-3 and abs(r["ball.vz"]) < 1e-3, f"t = {r['t']}: sideways")
    check(touched > 0 and rows[-1]["ball.py"] > 0.2, f"no bounce ({touched} rows in contact)")


# OpenSim, testContactGeometry.cpp, testIntermediateFrames<HuntCrossleyForce>(): a point mass of
# 1 kg (inertia 1) on a link hinged at the Ground origin, 1 m from the hinge, carrying a contact
# sphere (radius 0.1) 0.5 m further along and 1 m up; the link starts at 0.15 pi rad and falls onto
# the half space y < 0 (stiffness 1e6, dissipation 1e-5); 1 s at accuracy 1e-5. The same system is
# written with the platform's and the ball's frames given in different, equivalent ways, and the
# final states must agree within 1e-10; each must have bounced (centre of mass rising at 1 s).
# Here: A the composed half-space frame on Ground; B the plane given by its normal alone (other
# in-plane axes); C the plane on a body welded to Ground by a frame turned -45 deg about z, the
# rest of the turn in the plane's own frame; D the link's body frame moved to the ball's centre
# (the centre of mass and the hinge frame moved with it); E the ball on a second body welded to
# the link, the mass and inertia split half and half between the two with one common centre of
# mass. Steps are capped at 1 ms so that the variants take the same steps: with free step sizes
# the error estimates differ in their last bits between variants, so do the steps, and D ends
# 4e-10 from A at rtol 1e-5 (1.7e-8 at rtol 1e-7), a difference of integration error, not of
# frames (with equal steps all five agree to 1e-13).
@case
def opensim_contact_geometry_intermediate_frames():
    hc = {"hunt_crossley": {"plane_strain_modulus": 1e6, "dissipation": 1e-5}}
    sim = {"duration": 1.0, "report_interval": 0.01, "integrator": "rk", "rtol": 1e-5,
           "max_step": 1e-3}

    def variant(v):
        link = {"name": "point", "mass": 1.0, "inertia": {"diag": [1, 1, 1]},
                "joint": {"type": "pin", "child_frame": {"position": [-1, 0, 0]},
                          "q": [0.15 * math.pi]}}
        bodies, ball_body, ball = [link], "point", [0.5, 1, 0]
        plane = {"name": "platform", "frame": {"rotation": {"quaternion": Q_HALF_SPACE_FLOOR}}}
        if v == "B":
            plane["frame"] = {"rotation": {"axis": [1, 0, 0], "angle_deg": -90}}
        elif v == "C":
            bodies.append({"name": "platform_offset", "mass": 1.0, "inertia": {"diag": [1, 1, 1]},
                           "joint": {"type": "weld", "parent_frame": {
                               "rotation": {"axis": [0, 0, 1], "angle_deg": -45}}}})
            plane = {"name": "platform", "body": "platform_offset", "frame": {"rotation": {
                "quaternion": qmul(qaxis([0, 0, 1], -math.pi / 4), qaxis([0, 1, 0], -math.pi / 2))}}}
        elif v == "D":
            link["joint"]["child_frame"] = {"position": [-1.5, -1, 0]}
            link["com"] = [-0.5, -1, 0]
            ball = [0, 0, 0]
        elif v == "E":
            link.update(mass=0.5, inertia={"diag": [0.5, 0.5, 0.5]})
            bodies.append({"name": "link_offset", "mass": 0.5, "com": [-0.5, -1, 0],
                           "inertia": {"diag": [0.5, 0.5, 0.5]},
                           "joint": {"type": "weld", "parent": "point",
                                     "parent_frame": {"position": [0.5, 1, 0]}}})
            ball_body, ball = "link_offset", [0, 0, 0]
        scene = {"name": "frames_" + v, "gravity": [0, -9.8065, 0], "bodies": bodies,
                 "planes": [plane],
                 "contacts": [{"name": "contact", "body": ball_body, "plane": "platform",
                               "points": [ball], "radius": 0.1}],
                 "contact_models": hc, "simulation": sim}
        return run(scene, forces=False)[0][-1]

    ref = variant("A")
    q, u = ref["point.q0"], ref["point.u0"]
    check(ref["t"] == 1.0 and u * math.cos(q) > 0, f"A did not bounce: q {q}, u {u}")
    for v in "BCDE":
        r = variant(v)
        check(near(r["point.q0"], q, 1e-10) and near(r["point.u0"], u, 1e-10),
              f"{v}: q {r['point.q0']} u {r['point.u0']}, A: q {q} u {u}")


# ------------------------------------------------------------------------------------------------
# OpenSim, testForces.cpp, testBushingForce() (and testFunctionBasedBushingForce(),
# testExpressionBasedBushingForceTranslational(), which build the same linear bushing): a 1 kg
# ball on a vertical slider (the slider frames turned 90 deg about z), a bushing between Ground and
# the ball with translational stiffness 10 and no rotational stiffness, gravity -9.8065, released
# at rest at h0 = 0.5: y(t) = (h0 - dh) cos(w t) + dh, w = sqrt(k / m), dh = -m g / k; checked at
# t = 0.2, 0.4, ... 2 s (accuracy 1e-6): |y - y(t)| < 1e-4, and the bushing's force on the ball
# along y is -k y(t) within 2e-4. testTranslationalDampingEffect(): with translational damping 100
# the energy KE + PE falls at every one of these times.
SLIDER_Y = {"type": "slider", "parent_frame": {"rotation": {"axis": [0, 0, 1], "angle_deg": 90}},
            "child_frame": {"rotation": {"axis": [0, 0, 1], "angle_deg": 90}}, "q": [0.5]}


def slider_ball(name, forces, sim):
    return {"name": name, "gravity": [0, -9.8065, 0],
            "bodies": [{"name": "ball", "mass": 1.0, "inertia": {"sphere": 0.1}, "joint": SLIDER_Y}],
            "forces": forces, "simulation": dict({"duration": 2.0, "report_interval": 0.2}, **sim)}


def spring_height(t, k=10.0, m=1.0, h0=0.5):
    dh = -m * 9.8065 / k
    return (h0 - dh) * math.cos(math.sqrt(k / m) * t) + dh


@case
def opensim_bushing_force_slider():
    k = 10.0
    bushing = {"type": "linear_bushing", "name": "bushing", "body1": "ground", "body2": "ball",
               "rotational_stiffness": [0, 0, 0], "translational_stiffness": [k, k, k]}
    rows, _ = run(slider_ball("bushing", [bushing], {"integrator": "rk", "rtol": 1e-6}))
    check(len(rows) == 11, f"{len(rows)} rows")
    for r in rows[1:]:
        h = spring_height(r["t"])
        check(abs(r["ball.py"] - h) < 1e-4, f"t = {r['t']}: y {r['ball.py']}, analytic {h}")
        check(abs(r["bushing.body2_fy"] + k * h) < 2e-4, f"t = {r['t']}: fy {r['bushing.body2_fy']}")
    bushing["translational_damping"] = [100, 100, 100]
    rows, _ = run(slider_ball("bushing_damped", [bushing], {"integrator": "rk", "rtol": 1e-6}),
                  forces=False)
    E = [r["ke"] + r["pe"] for r in rows]
    check(all(b < a for a, b in zip(E, E[1:])), f"energy not falling: {E}")


# OpenSim, testForces.cpp, testExpressionBasedBushingForceRotational(): a 5 kg ball (a solid
# sphere of radius 0.25: I = 2/5 m r^2 = 0.125) on a pin whose frames are turned 90 deg about x
# (the pin axis is then -y of Ground), a bushing between a body welded to Ground and the ball with
# rotational stiffness 2 and no translational stiffness, released at rest at theta0 = pi/6:
# theta(t) = theta0 cos(w t), w = sqrt(k / I) = 4 rad/s, within 1e-4 at t = 0.2 ... 2 s (accuracy
# 1e-6); the bushing's moment about the pin axis is -k theta(t) on the ball and k theta(t) on
# the base, within 2e-4. With rotational damping 100, KE + PE falls at every one of these times.
@case
def opensim_expression_bushing_rotational():
    m, R, k, th0 = 5.0, 0.25, 2.0, math.pi / 6
    w = math.sqrt(k / (0.4 * m * R * R))

    def scene(damping):
        return {"name": "rotational_bushing", "gravity": [0, -9.8065, 0],
                "bodies": [{"name": "base_body", "mass": m, "inertia": {"sphere": R},
                            "joint": {"type": "weld"}},
                           {"name": "ball", "mass": m, "inertia": {"sphere": R}, "joint": {
                               "type": "pin", "q": [th0],
                               "parent_frame": {"rotation": {"axis": [1, 0, 0], "angle_deg": 90}},
                               "child_frame": {"rotation": {"axis": [1, 0, 0], "angle_deg": 90}}}}],
                "forces": [{"type": "linear_bushing", "name": "rb", "body1": "base_body",
                            "body2": "ball", "rotational_stiffness": [k, k, k],
                            "translational_stiffness": [0, 0, 0],
                            "rotational_damping": [damping] * 3}],
                "simulation": {"duration": 2.0, "report_interval": 0.2, "integrator": "rk",
                               "rtol": 1e-6}}

    rows, _ = run(scene(0))
    check(len(rows) == 11, f"{len(rows)} rows")
    for r in rows[1:]:
        th = th0 * math.cos(w * r["t"])
        check(abs(r["ball.q0"] - th) < 1e-4, f"t = {r['t']}: theta {r['ball.q0']}, analytic {th}")
        # moment about the pin axis (0, -1, 0) of Ground
        check(abs(-r["rb.body2_my"] + k * th) < 2e-4, f"t = {r['t']}: moment on the ball")
        check(abs(-r["rb.body1_my"] - k * th) < 2e-4, f"t = {r['t']}: moment on the base")
    rows, _ = run(scene(100), forces=False)
    E = [r["ke"] + r["pe"] for r in rows]
    check(all(b < a for a, b in zip(E, E[1:])), f"energy not falling: {E}")


# OpenSim, testForces.cpp, testSpringMass(): the 1 kg ball on the vertical slider hangs from a
# PointToPointSpring between Ground (0, 1, 0) and the ball's origin, stiffness 10, rest length 1;
# released at rest at h0 = 0.5 it follows y(t) = (h0 - dh) cos(w t) + dh as above (the spring is
# compressed by 1 - y - 1 = -y, pushing down by k y), within 1e-5 at t = 0.2 ... 2 s at accuracy
# 1e-7.
@case
def opensim_spring_mass():
    spring = {"type": "spring", "name": "spring", "body1": "ground", "station1": [0, 1.0, 0],
              "body2": "ball", "stiffness": 10.0, "rest_length": 1.0}
    rows, _ = run(slider_ball("spring_mass", [spring], {"integrator": "rk", "rtol": 1e-7}),
                  forces=False)
    check(len(rows) == 11, f"{len(rows)} rows")
    for r in rows[1:]:
        h = spring_height(r["t"])
        check(abs(r["ball.py"] - h) < 1e-5, f"t = {r['t']}: y {r['ball.py']}, analytic {h}")


# OpenSim, testForces.cpp, testExpressionBasedCoordinateForce(): the 1 kg ball on the vertical
# slider with the generalized force -10 q - 5 qdot on its coordinate (here a mobility spring of
# stiffness 10 and a mobility damper of 5), released at rest at h0 = 0.5 under gravity: the
# under-damped oscillator y(t) = exp(-z w t) ((h0 - dh) cos(wd t) + z w (h0 - dh) / wd sin(wd t))
# + dh, w = sqrt(10), z = 5 / (2 sqrt(10)), wd = w sqrt(1 - z^2), dh = -g / 10, within 1e-6 at
# t = 0.2 ... 2 s at accuracy 1e-7.
@case
def opensim_expression_coordinate_force():
    forces = [{"type": "mobility_spring", "name": "k", "body": "ball", "stiffness": 10.0},
              {"type": "mobility_damper", "name": "c", "body": "ball", "damping": 5.0}]
    rows, _ = run(slider_ball("coordinate_force", forces, {"integrator": "rk", "rtol": 1e-7}),
                  forces=False)
    w, z, h0, dh = math.sqrt(10), 5 / (2 * math.sqrt(10)), 0.5, -0.98065
    wd = w * math.sqrt(1 - z * z)
    check(len(rows) == 11, f"{len(rows)} rows")
    for r in rows[1:]:
        t = r["t"]
        h = math.exp(-z * w * t) * ((h0 - dh) * math.cos(wd * t)
                                    + z * w * (h0 - dh) / wd * math.sin(wd * t)) + dh
        check(abs(r["ball.py"] - h) < 1e-6, f"t = {t}: y {r['ball.py']}, analytic {h}")


# ------------------------------------------------------------------------------------------------
# OpenSim Moco, OpenSim/Moco/Test/testMocoContact.cpp, createBallHalfSpaceModel(): a 1 kg ball
# (inertia 1) on a planar joint to Ground whose rotation is prescribed at 0, a contact sphere of
# radius 0.1 at its centre against the y = 0 ground half space, SmoothSphereHalfSpaceForce
# stiffness 1e4, dissipation 1, static and dynamic friction 0.7, no viscous friction, transition
# velocity 0.05, cf 1e-5, bd 300, bv 50, gravity -9.80665 (OpenSim's default). The planar joint
# is written here as a slider along x carrying a slider along y (the reference's own point-mass
# model in that file is built the same way); contactsim wants a positive mass on the carrier
# body, so it has 1e-9 kg, which changes the x motion by a part in 1e9.
MOCO_G = 9.80665


def moco_ball(name, y0, vx0, sim):
    tiny = 1e-9
    return {"name": name, "gravity": [0, -MOCO_G, 0],
            "bodies": [{"name": "carrier", "mass": tiny, "inertia": {"diag": [tiny] * 3},
                        "joint": {"type": "slider", "u": [vx0]}},
                       {"name": "ball", "mass": 1.0, "inertia": {"diag": [1, 1, 1]},
                        "joint": dict(SLIDER_Y, parent="carrier", q=[y0])}],
            "planes": [{"name": "ground",
                        "frame": {"rotation": {"quaternion": Q_HALF_SPACE_FLOOR}}}],
            "contacts": [{"name": "contact", "body": "ball", "plane": "ground",
                          "points": [[0, 0, 0]], "radius": 0.1}],
            "contact_models": {"smooth_sphere_half_space": {
                "plane_strain_modulus": 1e4, "dissipation": 1.0, "mu_static": 0.7,
                "mu_dynamic": 0.7, "mu_viscous": 0.0, "transition_velocity": 0.05,
                "constant_contact_force": 1e-5, "hertz_smoothing": 300,
                "hunt_crossley_smoothing": 50}},
            "simulation": sim}


_moco_settled = []


def moco_settled():
    """The last row of testSmoothSphereHalfSpaceForce_NormalForce's run (shared by both cases)."""
    if not _moco_settled:
        sim = {"duration": 2.0, "report_interval": 0.1, "integrator": "rk", "rtol": 1e-6}
        _moco_settled.append(run(moco_ball("moco_normal", 0.5, 0.0, sim))[0][-1])
    return _moco_settled[0]


# testSmoothSphereHalfSpaceForce_NormalForce(), time stepping: dropped from y = 0.5 at rest and
# run for 2 s at accuracy 1e-6, the ball has settled: the contact force on it is its weight
# (Approx(weight).margin(1e-4)), with no horizontal force and no torque (each within 1e-4). The
# margin is tight: the ball still rings at 2 s, a vertical oscillation of period 0.3 s whose
# force shrinks about 3.5 times each half period (2.5e-4 N off the weight at 1.85 s, 7.7e-5 N at
# 2.0 s, 2.1e-5 N at 2.15 s; BDF at its defaults ends 1e-6 N from rk). The check is at the
# reference's own 2 s with its margin taken alone (Catch's Approx would also pass 1.17e-4, its
# relative epsilon of 1.19e-5 times the weight).
@case
def moco_smooth_sphere_normal_force():
    r = moco_settled()
    f = vec(r, "contact.0.f")
    M = cross(sub(vec(r, "contact.0.p"), vec(r, "ball.p")), f)
    check(r["t"] == 2.0, f"ended at {r['t']}")
    check(abs(f[1] - MOCO_G) < 1e-4, f"fy {f[1]}, weight {MOCO_G} (|err| {abs(f[1] - MOCO_G):.3g})")
    check(abs(f[0]) < 1e-4 and abs(f[2]) < 1e-4, f"horizontal force {f}")
    check(all(abs(a) < 1e-4 for a in M), f"torque about the centre {M}")


# testSmoothSphereHalfSpaceForce_FrictionForce(), time stepping: the ball starts at the height it
# settled to above, sliding at vx0 = 2.5 m/s, and runs for 0.5 s with the Manager's default
# integrator (Runge-Kutta-Merson at Simbody's default accuracy, 1e-3). Friction mu m g stops it
# at t = vx0 / (mu g) = 0.364 s (< 0.5 s) after x = vx0^2 / (2 mu g) = 0.4552 m: the final x
# within 5e-3 m, and every speed within 1e-3 m/s of zero (OpenSim_CHECK_MATRIX_ABSTOL on U).
@case
def moco_smooth_sphere_friction_force():
    mu, vx0 = 0.7, 2.5
    check(vx0 / (mu * MOCO_G) < 0.5, "the ball would not stop within the run")
    sim = {"duration": 0.5, "report_interval": 0.01, "integrator": "rk", "rtol": 1e-3}
    rows, _ = run(moco_ball("moco_friction", moco_settled()["ball.q0"], vx0, sim), forces=False)
    r = rows[-1]
    x = vx0 ** 2 / (2 * mu * MOCO_G)
    check(r["t"] == 0.5 and abs(r["carrier.q0"] - x) < 5e-3, f"x {r['carrier.q0']}, expected {x}")
    u = [r["carrier.u0"], r["ball.u0"]]
    check(all(abs(a) < 1e-3 for a in u), f"speeds {u} at rest")


if not failures():
    shutil.rmtree(TMP, ignore_errors=True)  # kept after a failure, to look at the scenes and CSVs
else:
    print(f"scenes and outputs kept in {TMP}")
finish()
