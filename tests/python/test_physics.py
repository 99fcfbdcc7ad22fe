"""Physics through the Python module, each checked against an answer derived by hand: pendulum
periods (small-angle and exact), free fall, a block held by friction on an incline and one
sliding down it, and the energy balance of a damped bounce."""
import json
import math

import numpy as np
import pytest
from scipy.special import ellipk

import contactsim
from conftest import G, ball_drop, incline_block, pendulum


def crossings(t, x):
    """Times where x crosses zero going upward, linearly interpolated between reports."""
    i = np.nonzero((x[:-1] < 0) & (x[1:] >= 0))[0]
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def measured_period(traj):
    tc = crossings(traj.t, traj["arm.q0"])
    assert len(tc) >= 4, "the pendulum should swing through several periods"
    return np.mean(np.diff(tc))


def test_pendulum_small_angle_period():
    # compound pendulum: T = 2 pi sqrt(I_pin / (m g L)), I_pin = I_com + m L^2; at 0.01 rad the
    # finite-amplitude correction (theta0^2 / 16 = 6e-6) is below the tolerance
    L, m, Ic = 1.0, 1.0, 1e-3
    traj = contactsim.run(contactsim.loads(pendulum(0.01, L=L, mass=m, inertia=Ic)))
    T0 = 2 * math.pi * math.sqrt((Ic + m * L * L) / (m * G * L))
    assert measured_period(traj) == pytest.approx(T0, rel=2e-5)
    # and the swing is theta0 cos(w t)
    w = 2 * math.pi / T0
    assert np.max(np.abs(traj["arm.q0"] - 0.01 * np.cos(w * traj.t))) < 0.01 * 1e-3


def test_pendulum_large_angle_period():
    # exact: T = 4 sqrt(I_pin / (m g L)) K(k^2), k = sin(theta0 / 2) (complete elliptic integral)
    theta0 = 1.0
    traj = contactsim.run(contactsim.loads(pendulum(theta0)))
    T = 4 * math.sqrt(1.001 / G) * ellipk(math.sin(theta0 / 2) ** 2)
    assert measured_period(traj) == pytest.approx(T, rel=2e-5)
    # 18 % longer than the small-angle period: the test can tell the two apart
    assert T / (2 * math.pi * math.sqrt(1.001 / G)) > 1.06


def test_free_fall_before_impact():
    traj = contactsim.run(contactsim.loads(ball_drop(height=0.25, vx=0.3)), duration=0.15)
    t = traj.t
    np.testing.assert_allclose(traj["ball.pz"], 0.25 - 0.5 * G * t ** 2, atol=1e-9)
    np.testing.assert_allclose(traj["ball.vz"], -G * t, atol=1e-8)
    np.testing.assert_allclose(traj["ball.px"], 0.3 * t, atol=1e-9)


def incline_displacement(traj):
    p = np.stack([traj["block.px"], traj["block.py"], traj["block.pz"]], axis=1)
    return p - p[0]


def test_block_sticks_on_incline():
    # mu_static = 0.7 > tan 20 deg = 0.364: friction holds the block; the exponential springs'
    # anchors let it settle by a millimetre or so (their stiffness carries the slope's pull)
    # and then hold it still
    traj = contactsim.run(contactsim.loads(incline_block(20.0, mu_static=0.7, mu_dynamic=0.5)))
    disp = np.linalg.norm(incline_displacement(traj), axis=1)
    assert disp[-1] < 3e-3
    # still at the end: no creep over the last second
    late = traj.t >= traj.t[-1] - 1.0
    assert np.ptp(traj["block.px"][late]) < 1e-6
    assert abs(traj["block.vx"][-1]) < 1e-5


def test_block_slides_down_incline():
    # mu = 0.2 < tan 20 deg: it slides with a = g (sin 20 - mu_k cos 20) = 1.51 m/s^2 along the
    # slope, so s = a t^2 / 2; the ramp's normal (sin 20, 0, cos 20) leans toward +x, so down
    # the slope is toward +x and -z
    a = math.radians(20)
    acc = G * (math.sin(a) - 0.2 * math.cos(a))
    traj = contactsim.run(contactsim.loads(incline_block(20.0, mu_static=0.2, mu_dynamic=0.2)),
                          duration=1.0)
    s = np.linalg.norm(incline_displacement(traj), axis=1)
    assert s[-1] == pytest.approx(0.5 * acc * traj.t[-1] ** 2, rel=0.03)
    # down the slope: x decreases and z decreases in the ratio of the incline
    d = incline_displacement(traj)[-1]
    assert d[0] > 0 and d[2] < 0
    assert abs(d[2] / d[0]) == pytest.approx(math.tan(a), rel=1e-2)


def test_energy_balance_of_a_damped_bounce():
    # KE + PE + dissipated is conserved through impacts with Hunt-Crossley damping, while the
    # dissipated energy grows (the ball loses height at each bounce)
    traj = contactsim.run(contactsim.loads(ball_drop(dissipation=2.0, vx=0.5, mu=0.5)),
                          duration=1.0)
    ke, pe, w = traj["ke"], traj["pe"], traj["dissipated"]
    total = ke + pe + w
    scale = ke[0] + abs(pe[0])
    assert np.max(np.abs(total - total[0])) / scale < 1e-5
    assert w[-1] > 0.05 * scale
    # never decreasing, up to the integration error of its state during impacts
    assert np.all(np.diff(w) >= -1e-7 * scale)
    # the energy columns mean what they say: KE = m v^2 / 2 + I w^2 / 2, PE(gravity) = m g z
    m, r = 0.5, 0.05
    v2 = traj["ball.vx"] ** 2 + traj["ball.vy"] ** 2 + traj["ball.vz"] ** 2
    w2 = traj["ball.wx"] ** 2 + traj["ball.wy"] ** 2 + traj["ball.wz"] ** 2
    np.testing.assert_allclose(ke, 0.5 * m * v2 + 0.5 * (0.4 * m * r * r) * w2, rtol=1e-9,
                               atol=1e-12)
    airborne = traj["ball.pz"] > r + 1e-3
    np.testing.assert_allclose(pe[airborne], m * G * traj["ball.pz"][airborne], rtol=1e-9,
                               atol=1e-9)


def test_energy_balance_of_a_damped_pendulum():
    traj = contactsim.run(contactsim.loads(pendulum(0.5, damping=0.05)), duration=5.0)
    total = traj["ke"] + traj["pe"] + traj["dissipated"]
    assert np.max(np.abs(total - total[0])) < 1e-7 * abs(total[0]) + 1e-9
    assert traj["dissipated"][-1] > 0.01


@pytest.mark.parametrize("integrator", ["rk", "rk23", "ark"])
def test_one_step_integrators_pendulum_and_held_block(integrator):
    # the one-step integrators through the module: the large-angle period, and the block held
    # on the incline by its friction anchors, committed after every step
    theta0 = 1.0
    sim = contactsim.Simulation(contactsim.loads(pendulum(theta0)), integrator=integrator)
    assert sim.options["integrator"] == integrator
    traj = contactsim.run(contactsim.loads(pendulum(theta0)), integrator=integrator)
    st = traj.statistics
    # evaluations per step: six stages and more for Dormand-Prince and ark, three (and a few
    # rejections) for Bogacki-Shampine
    per = st["rhs_evals"] / st["steps"]
    assert (3 <= per < 4) if integrator == "rk23" else per >= 6
    T = 4 * math.sqrt(1.001 / G) * ellipk(math.sin(theta0 / 2) ** 2)
    assert measured_period(traj) == pytest.approx(T, rel=2e-5)
    held = contactsim.run(contactsim.loads(incline_block(20.0)), integrator=integrator)
    late = held.t >= held.t[-1] - 1.0
    assert np.ptp(held["block.px"][late]) < 1e-6
    with pytest.raises(ValueError):
        contactsim.Simulation(contactsim.loads(pendulum(theta0)), integrator="rk4")


def test_a_change_at_the_start_is_part_of_the_start_of_the_energy_balance():
    # a stop engaged at the start (0.6 rad past its bound: 90 J stored) released by a change at
    # t = 0: the run is the pendulum alone from its first row on, so the balance starts from the
    # pendulum's energy, as a scene without the stop's stiffness would (the 90 J read as lost by
    # the integration, energy_error 0.49)
    def scene(stiffness, changes):
        return json.dumps({
            "name": "stop", "gravity": [0, 0, -9.81],
            "bodies": [{"name": "arm", "mass": 1, "com": [0.5, 0, 0],
                        "inertia": {"diag": [0.01, 0.01, 0.01]},
                        "joint": {"type": "pin", "parent_frame": {
                            "rotation": {"axis": [1, 0, 0], "angle_deg": 90}},
                            "q": [0.8], "u": [0]}}],
            "forces": [{"type": "linear_stop", "name": "armstop", "body": "arm",
                        "lower_bound": 0.2, "upper_bound": 0.2, "stiffness": stiffness,
                        "dissipation": 0.5}],
            "simulation": {"duration": 1, "report_interval": 0.01, "rtol": 1e-9,
                           "atol": 1e-9},
            "changes": changes})
    released = contactsim.loads(scene(500, [{"time": 0, "force": "armstop", "stiffness": 0}]))
    free = contactsim.run(contactsim.loads(scene(0, [])))
    e_free = free.statistics["energy_initial"]
    traj = contactsim.run(released)
    assert traj["e_total"][0] == pytest.approx(e_free, rel=1e-12)
    assert traj.statistics["energy_initial"] == pytest.approx(e_free, rel=1e-12)
    assert traj.statistics["energy_error"] < 1e-6
    # stepped through the simulation object as well
    sim = contactsim.Simulation(released)
    sim.advance_to(1.0)
    stats = sim.statistics
    assert stats["energy_initial"] == pytest.approx(e_free, rel=1e-12)
    assert stats["energy_error"] < 1e-6
