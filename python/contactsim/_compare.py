"""compare(): one scene run once per contact model, the table of `contactsim compare`."""

import math
import os

from . import _core
from ._errors import SceneError, SimulationError

__all__ = ["compare"]


def _free_bodies(model):
    # bodies on a free mobilizer (7 coordinates: quaternion and position), whose final pose the
    # table gives
    free = []
    for name in model.bodies[1:]:
        qs, us = model.body_coordinates(name)
        if qs.stop - qs.start == 7 and us.stop - us.start == 6:
            free.append(name)
    return free


def _json_number(x):
    # as the command's JSON writes a number: a value that is not finite is null
    return x if math.isfinite(x) else None


def _model_names(models):
    # the models asked for, by the command's rules for --models (src/app/cmd_compare.c): a str
    # is a comma-separated list, its names trimmed of spaces; any other iterable holds one str
    # per name. At least one, none empty, none twice (it would run twice under one label). None
    # gives None: every model.
    if models is None:
        return None
    if isinstance(models, str):
        names = [m.strip(" ") for m in models.split(",")]
        if not all(names):
            raise SceneError("models needs a comma-separated list of model names, "
                             f"not '{models}'")
    else:
        if isinstance(models, (bytes, bytearray)) or not hasattr(models, "__iter__"):
            raise TypeError("models must be a str (comma-separated names) or a list of str, "
                            f"not {type(models).__name__}")
        names = list(models)
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"models: a model name must be a str, not {type(name).__name__} "
                                f"({name!r})")
        if not names:
            raise SceneError("models needs at least one model name (None: every model)")
        if not all(names):
            raise SceneError("models: a model name must not be empty")
    seen = set()
    for name in names:
        if name in seen:
            raise SceneError(f"models names '{name}' twice")
        seen.add(name)
    return names


def compare(path, models=None, duration=None, rtol=None, atol=None, integrator=None,
            max_steps=None, overrides=None):
    """Run a scene once per contact model, from the same geometry and initial state, and
    return one row per model, as ``contactsim compare --format json`` does.

    Args:
        path: the scene file.
        models: contact model names, as a list of str or one str of comma-separated names
            (the command's --models); None: every model the scene gives a block for. A scene
            without "contact_models" runs once, as model "scene". An empty list, an empty name
            or a name given twice is refused (SceneError), as by the command; a name that is
            not a str is a TypeError.
        duration (s), rtol, atol, integrator, max_steps: override the scene's options for
            every model (as the command's --duration, --rtol, --atol, --max-steps).
        overrides: scene parameters set by key path for every model, as for load() (the
            command's --set).

    Returns:
        a list of dicts, one per model, with the keys and values of the command's JSON
        (docs/cli.md, "JSON"): model, status ("ok" or "failed"), error (None or the message),
        cpu_seconds, statistics_cpu_seconds, cpu_per_sim_second, simulated (s), steps,
        rhs_evals, rhs_evals_jacobian, rhs_total, error_test_failures, nonlinear_failures,
        jacobian_evaluations, integrator, linear_solver, max_penetration (m),
        peak_normal_force (N), final_pose ({body: {"position": [x, y, z] (m, Ground),
        "quaternion": [w, x, y, z] (Ground)}} for free bodies), sliding_distance (m),
        stuck_drift (m), stick_speed (m/s), stuck_steps, energy_error (relative),
        peak_normal_force_sets, peak_normal_force_elements, max_penetration_elements
        ({name: N or m}), convergence (None: the command's --convergence has no counterpart
        here), diagnostics (list of str). A number that is not finite is None, as JSON's null.

    Raises:
        SceneError: the scene or one model's parameter block is bad, or `models` names a model
            the scene has no block for, none, an empty one or one twice (before anything runs).
        TypeError: `models` is neither None, a str nor an iterable of str.
    """
    from ._simulation import Simulation
    from ._trajectory import Trajectory
    from . import _override_pairs

    path = os.fspath(path)
    pairs = _override_pairs(overrides, path)
    requested = _model_names(models)
    # the file read once, as the command reads it: a pipe or standard input gives its text
    # only once, and a file edited meanwhile must not give one model another version
    text = _core.read_scene(path)
    available, _default = _core.scene_contact_models(path, text, pairs)
    # a scene without contact_models blocks still compares: it runs once, as "scene"
    blocks = bool(available)
    runs = list(available) if blocks else ["scene"]
    if requested is None:
        requested = runs
    # every model loaded before anything runs: a bad block is bad input, not half a table
    loaded = []
    for name in requested:
        if name not in runs:
            raise SceneError(
                (f"the scene has no parameter block for contact model '{name}' (models: "
                 if blocks else
                 "the scene has no contact model to choose (no contact_models, or no contacts "
                 f"for them), so there is no model '{name}' (its only run is: ")
                + ", ".join(runs) + ")",
                file=path, path="contact_models")
        loaded.append((name, _core._model_from_source(text, path, name if blocks else None,
                                                      pairs, path)))
    # checked as run() checks them (a duration of 0 is refused, as by the command line)
    options = {"duration": duration, "rtol": rtol, "atol": atol, "integrator": integrator,
               "max_steps": max_steps}
    options = {k: v for k, v in options.items() if v is not None}
    rows = []
    for name, model in loaded:
        sim = Simulation(model, **options)
        span = sim.options["duration"]
        error = None
        try:
            # Simulation.run's run, reports and statistics, without its rows: the table keeps
            # only numbers, as the command keeps no trajectory (a run reporting every 10 us
            # would otherwise hold all of them in memory, to be thrown away here)
            Trajectory._of_run(sim._record(span, False, True, False), model)
        except SimulationError as e:
            error = str(e)  # "FILE: MESSAGE", as the command's JSON gives it
        st = sim.statistics
        simulated = sim.time - st["t_start"]
        pose = {}
        for body in _free_bodies(model):
            p, q = sim.body_pose(body)
            pose[body] = {"position": [_json_number(x) for x in p.tolist()],
                          "quaternion": [_json_number(x) for x in q.tolist()]}
        number = {k: _json_number(st[k]) for k in (
            "cpu_seconds", "statistics_cpu_seconds", "max_penetration", "peak_normal_force",
            "sliding_distance", "stuck_drift", "stick_speed", "energy_error")}
        peaks = {k: {n: _json_number(v) for n, v in st[k].items()} for k in (
            "peak_normal_force_sets", "peak_normal_force_elements", "max_penetration_elements")}
        rows.append({
            "model": name,
            "status": "ok" if error is None else "failed",
            "error": error,
            "cpu_seconds": number["cpu_seconds"],
            "statistics_cpu_seconds": number["statistics_cpu_seconds"],
            "cpu_per_sim_second":
                _json_number(st["cpu_seconds"] / simulated) if simulated > 0 else None,
            "simulated": _json_number(simulated),
            "steps": st["steps"],
            "rhs_evals": st["rhs_evals"],
            "rhs_evals_jacobian": st["rhs_evals_jacobian"],
            "rhs_total": st["rhs_total"],
            "error_test_failures": st["error_test_failures"],
            "nonlinear_failures": st["nonlinear_failures"],
            "jacobian_evaluations": st["jacobian_evaluations"],
            "integrator": sim.options["integrator"],
            "linear_solver": st["linear_solver"],
            "max_penetration": number["max_penetration"],
            "peak_normal_force": number["peak_normal_force"],
            "final_pose": pose,
            "sliding_distance": number["sliding_distance"],
            "stuck_drift": number["stuck_drift"],
            "stick_speed": number["stick_speed"],
            "stuck_steps": st["stuck_steps"],
            "energy_error": number["energy_error"],
            **peaks,
            "convergence": None,
            "diagnostics": st["diagnostics"],
        })
    return rows
