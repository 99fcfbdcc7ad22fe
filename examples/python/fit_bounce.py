#!/usr/bin/env python3
"""Fit Hunt-Crossley contact parameters to a measured bounce with scipy.optimize.

A 0.5 kg ball of radius 5 cm is dropped from 25 cm onto a floor; a motion-capture system
records the height of its centre every millisecond, with 20 micrometres of noise. Which contact
stiffness E (plane-strain modulus of each surface, N/m^2) and Hunt-Crossley dissipation c (s/m)
reproduce that bounce? The stiffness sets how deep the ball presses into the floor and how long
the impact lasts; the dissipation sets how much of the impact speed comes back, hence how high
it rebounds.

Here the "measurement" is made with contactsim itself from a known parameter set plus noise, so
that the fit can be checked: it must recover the parameters it was made from. With real data,
replace `measure()` by reading the recorded heights.

Run:  python3 examples/python/fit_bounce.py  (with the module importable; see docs/python.md)
"""
import json

import numpy as np
from scipy.optimize import least_squares

import contactsim

TRUE = {"stiffness": 5.0e6, "dissipation": 0.8}    # N/m^2, s/m
NOISE = 20e-6                                        # m, standard deviation of the heights

SCENE = {
    "name": "bounce",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "ball", "mass": 0.5, "inertia": {"sphere": 0.05},
                "joint": {"type": "free", "parent": "ground",
                          "initial": {"position": [0, 0, 0.25]}}}],
    "planes": [{"name": "floor"}],
    "contacts": [{"name": "impact", "body": "ball", "plane": "floor", "points": [[0, 0, 0]],
                  "radius": 0.05}],
    "contact_models": {"hunt_crossley": {"plane_strain_modulus": 1e6, "dissipation": 0.1}},
    "simulation": {"duration": 0.5, "report_interval": 0.001, "rtol": 1e-8, "atol": 1e-10},
}
TEXT = json.dumps(SCENE)


def simulate(stiffness, dissipation):
    """Heights of the ball's centre, m, at the report times, for one parameter set."""
    model = contactsim.loads(TEXT, filename="bounce", overrides={
        "contact_models.hunt_crossley.plane_strain_modulus": float(stiffness),
        "contact_models.hunt_crossley.dissipation": float(dissipation)})
    traj = contactsim.run(model)
    return traj.t, traj["ball.pz"]


def measure(seed=1):
    """The 'measured' bounce: the true parameters plus Gaussian noise."""
    t, z = simulate(TRUE["stiffness"], TRUE["dissipation"])
    rng = np.random.default_rng(seed)
    return t, z + rng.normal(0.0, NOISE, z.shape)


def fit(t_meas, z_meas, guess=(1.0e6, 0.3)):
    """Least-squares fit of (stiffness, dissipation) to measured heights.

    The stiffness is fitted as log10(E): it spans decades, and equal steps in its logarithm
    change the bounce by similar amounts. Residuals are scaled by the noise, so that the final
    cost is about half the number of samples when the model fits.
    """
    runs = [0]  # every simulation, the Jacobian's finite differences too (r.nfev leaves those out)

    def residuals(x):
        runs[0] += 1
        _, z = simulate(10.0 ** x[0], x[1])
        return (z - z_meas) / NOISE

    x0 = [np.log10(guess[0]), guess[1]]
    r = least_squares(residuals, x0, bounds=([4.0, 0.0], [9.0, 5.0]), x_scale=[0.1, 0.1],
                      diff_step=1e-4)
    # one-sigma uncertainties from the Jacobian at the optimum (noise-scaled residuals)
    cov = np.linalg.inv(r.jac.T @ r.jac)
    sigma = np.sqrt(np.diag(cov))
    return {
        "stiffness": 10.0 ** r.x[0],
        "dissipation": r.x[1],
        "stiffness_rel_sigma": np.log(10.0) * sigma[0],
        "dissipation_sigma": sigma[1],
        "rms_residual": NOISE * np.sqrt(np.mean(r.fun ** 2)),
        "evaluations": runs[0],
        "success": r.success,
    }


def main():
    t, z = measure()
    result = fit(t, z)
    print(f"true:   stiffness {TRUE['stiffness']:.4g} N/m^2, dissipation {TRUE['dissipation']:.4g} s/m")
    print(f"fitted: stiffness {result['stiffness']:.4g} N/m^2 "
          f"(+- {100 * result['stiffness_rel_sigma']:.2g} %), "
          f"dissipation {result['dissipation']:.4g} s/m (+- {result['dissipation_sigma']:.2g})")
    print(f"rms residual {result['rms_residual'] * 1e6:.1f} um (noise {NOISE * 1e6:.0f} um), "
          f"{result['evaluations']} simulations")
    return result


if __name__ == "__main__":
    main()
