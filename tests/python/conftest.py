"""Shared fixtures of the Python module's tests: the source tree, and small scenes written here
so that each test's expected answer can be derived by hand from the scene it runs."""
import json
import math
import os
import signal

import pytest

# The module leaves a stop signal that was ignored when Python started ignored (SIGINT in a
# shell's background job); the tests that interrupt runs with Ctrl-C give it Python's usual
# action, whatever started the test session (those with SIGHUP install their own handler)
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
G = 9.81


def scene_path(name):
    """A bundled scene, e.g. scene_path("bench/incline_stick.json")."""
    return os.path.join(ROOT, "scenes", name)


def pendulum(theta0, L=1.0, mass=1.0, inertia=1e-3, duration=10.0, damping=None, **sim):
    """A pin pendulum, axis along Ground x, centre of mass L below the pin at q = 0."""
    scene = {
        "name": "pendulum", "gravity": [0, 0, -G],
        "bodies": [{
            "name": "arm", "mass": mass, "com": [L, 0, 0],
            "inertia": {"diag": [inertia, inertia, inertia]},
            "joint": {"type": "pin", "parent": "ground",
                      "parent_frame": {"rotation": {"axis": [0, 1, 0], "angle_deg": 90}},
                      "q": [theta0], "u": [0.0]}}],
        "simulation": {"duration": duration, "rtol": 1e-10, "atol": 1e-12,
                       "report_interval": 0.001, **sim},
    }
    if damping is not None:
        scene["forces"] = [{"type": "mobility_damper", "body": "arm", "damping": damping}]
    return json.dumps(scene)


def incline_block(angle_deg=20.0, mu_static=0.7, mu_dynamic=0.5, duration=2.0):
    """A 10 kg, 0.2 m cube on an incline on exponential springs at its four bottom corners,
    released at rest near its equilibrium height (as scenes/bench/incline_stick.json)."""
    a = math.radians(angle_deg)
    # the centre this far from the incline's surface along its normal (the corners' springs
    # carry the weight there at 20 degrees), above the origin
    h = 0.1033161
    pos = [h * math.sin(a), 0, h * math.cos(a)]
    scene = {
        "name": "incline", "gravity": [0, 0, -G],
        "bodies": [{"name": "block", "mass": 10.0, "inertia": {"box": [0.1, 0.1, 0.1]},
                    "joint": {"type": "free", "parent": "ground",
                              "initial": {"position": pos,
                                          "orientation": {"axis": [0, 1, 0],
                                                          "angle_deg": angle_deg}}}}],
        "planes": [{"name": "ramp",
                    "frame": {"rotation": {"axis": [0, 1, 0], "angle_deg": angle_deg}}}],
        "contacts": [{"name": "corners", "body": "block", "plane": "ramp",
                      "points": [[-0.1, -0.1, -0.1], [0.1, -0.1, -0.1],
                                 [-0.1, 0.1, -0.1], [0.1, 0.1, -0.1]],
                      "radius": 0.002}],
        "contact_models": {"default": "exponential_spring",
                           "exponential_spring": {"mu_static": mu_static,
                                                  "mu_dynamic": mu_dynamic,
                                                  "v_settle": 0.01}},
        "simulation": {"duration": duration, "report_interval": 0.01,
                       "rtol": 1e-6, "atol": 1e-7},
    }
    return json.dumps(scene)


def ball_drop(height=0.25, radius=0.05, mass=0.5, modulus=1e7, dissipation=0.5, mu=0.0,
              vx=0.0, duration=0.6, report_interval=0.001):
    """A solid ball dropped onto a floor, Hunt-Crossley contact."""
    scene = {
        "name": "ball_drop", "gravity": [0, 0, -G],
        "bodies": [{"name": "ball", "mass": mass, "inertia": {"sphere": radius},
                    "joint": {"type": "free", "parent": "ground",
                              "initial": {"position": [0, 0, height],
                                          "velocity": [vx, 0, 0]}}}],
        "planes": [{"name": "floor"}],
        "contacts": [{"name": "ball_floor", "body": "ball", "plane": "floor",
                      "points": [[0, 0, 0]], "radius": radius}],
        "contact_models": {"default": "hunt_crossley",
                           "hunt_crossley": {"plane_strain_modulus": modulus,
                                             "dissipation": dissipation,
                                             "mu_static": mu, "mu_dynamic": mu,
                                             "transition_velocity": 0.01}},
        "simulation": {"duration": duration, "report_interval": report_interval,
                       "rtol": 1e-8, "atol": 1e-10},
    }
    return json.dumps(scene)


@pytest.fixture
def tmp(tmp_path):
    return tmp_path
