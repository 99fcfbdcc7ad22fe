"""contactsim: rigid-body simulation with contact models, from Python.

Load a scene, run it and read the trajectory by CSV column name::

    import contactsim
    traj = contactsim.run("scenes/pendulum.json", duration=2.0)
    traj["arm.q0"]            # pin angle, rad: a numpy array, one value per report

Or step a simulation yourself, MuJoCo-style::

    sim = contactsim.Simulation(contactsim.load("scenes/sphere_drop.json"))
    while sim.time < 1.0:
        sim.step()
    sim.q, sim.u              # numpy views of the state
    sim.contacts()            # contact reports: point, force, energy, power (in Ground)

Units are SI throughout (m, kg, s, N, J, rad); vectors are in Ground unless a name says
otherwise; quaternions are (w, x, y, z). Bad input raises SceneError (with .file, .path, .message),
a failed integration SimulationError (with .time and the partial .trajectory). The module never
prints. See docs/python.md.
"""

import json as _json
import os as _os

import numpy as _np

from . import _core
from ._compare import compare
from ._errors import Error, SceneError, SimulationError
from ._simulation import ContactReport, Simulation, State, _flag
from ._trajectory import Trajectory

Model = _core.Model

__version__ = _core.version

__all__ = [
    "ContactReport", "Error", "Model", "SceneError", "Simulation", "SimulationError", "State",
    "Trajectory", "compare", "load", "loads", "run", "__version__",
]


def _plain(value):
    # numpy arrays and scalars, at any depth of a value, as the lists and numbers JSON writes
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _override_pairs(overrides, file=""):
    # {key path: value} (or (key, value) pairs) as (key path, JSON text) pairs for the library
    if overrides is None:
        return ()
    items = overrides.items() if hasattr(overrides, "items") else overrides
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError("overrides must be a dict of key paths to values, or (key, value) pairs, "
                        f"not {type(overrides).__name__}")
    pairs = []
    for item in items:
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 2:
            raise TypeError(f"overrides: expected a (key path, value) pair, got {item!r}")
        key, value = item
        # a key path is a str: another type is the caller's mistake, not a key the scene lacks
        # (str(1) would be looked up as the key "1")
        if not isinstance(key, str):
            raise TypeError(f"overrides: a key path must be a str, not {type(key).__name__} "
                            f"({key!r})")
        try:
            text = _json.dumps(value, allow_nan=False, default=_plain)
        except (TypeError, ValueError) as e:
            raise SceneError(f"the override of '{key}' cannot be written as JSON: {e}",
                             file=file, path=str(key)) from None
        pairs.append((str(key), text))
    return tuple(pairs)


def load(path, contact_model=None, overrides=None):
    """Load a scene file into a Model.

    Args:
        path: the scene file (str or os.PathLike).
        contact_model: name of the contact model to use, one of the scene's
            "contact_models" blocks (e.g. "exponential_spring", "hunt_crossley"); None for
            the scene's default.
        overrides: scene parameters set by key path (a str), as if the file had been edited: a dict
            such as ``{"contact_models.exponential_spring.mu_static": 0.6,
            "simulation.rtol": 1e-8, "bodies.block.mass": 2.0}``. Values are Python numbers,
            lists, strings or bools (written as JSON).

    Returns:
        a Model (immutable).

    Raises:
        SceneError: the file cannot be read, is not valid JSON, or a value is bad; .file,
            .path (JSON path such as "bodies[2].joint.q"), .line, .column and .message
            say where and what.
    """
    path = _os.fspath(path)
    return _core.load(path, contact_model, _override_pairs(overrides, _os.fsdecode(path)))


def loads(text, contact_model=None, overrides=None, filename="<string>"):
    """Load a scene from JSON text (str) into a Model; filename is used in messages only.

    Otherwise as load().
    """
    if not isinstance(text, (str, bytes)):
        raise TypeError(f"loads takes a scene's JSON text (str or bytes), not "
                        f"{type(text).__name__}")
    return _core.loads(text, filename, contact_model, _override_pairs(overrides, filename))


def run(model_or_path, duration=None, rtol=None, atol=None, *, integrator=None,
        report_interval=None, max_step=None, initial_step=None, max_steps=None,
        max_rows=None, linear_solver=None, forces=False, contact_model=None, overrides=None):
    """Run a scene from its initial state and return its Trajectory.

    Args:
        model_or_path: a Model, or a scene file path (loaded with contact_model and
            overrides).
        duration: simulated time, s (None: the scene's).
        rtol, atol: integrator tolerances (None: the scene's).
        integrator: "bdf", "adams", "rk", "ark" or "rk23"; report_interval: s between rows;
            max_step: s (0: unlimited); initial_step: s (0: automatic); max_steps: steps
            allowed between two reports; max_rows: the most report rows the run may make (a run
            that would make more is refused before it starts, as on the command line);
            linear_solver: "auto", "dense", "band" or "gmres". None keeps the scene's.
        forces (bool): also the per-contact columns (force, moment, point, pe, power, model
            values) and per contact set the total force and centre of pressure.
        contact_model, overrides: as for load(), when a path is given.

    Returns:
        a Trajectory: traj["block.px"] is a numpy array per CSV column, traj.columns the
        names, traj.statistics the statistics (steps, cpu_seconds, energy_error, ...).

    Raises:
        SceneError: bad scene or option (.file, .path, .message).
        SimulationError: the integration failed; .trajectory holds the reports up to the last
            one reached, .time the time of the failure.
        KeyboardInterrupt: Ctrl-C (in the main thread) stopped the run after its current step;
            .trajectory holds the reports made so far.

    The integration runs with the GIL released, so threads can run several at once.
    """
    forces = _flag("forces", forces)
    if isinstance(model_or_path, Model):
        if contact_model is not None or overrides is not None:
            raise TypeError("contact_model and overrides apply when loading: pass a path to run(), "
                            "or give them to contactsim.load()")
    model = result = None
    try:
        model = model_or_path if isinstance(model_or_path, Model) else \
            load(model_or_path, contact_model=contact_model, overrides=overrides)
        options = dict(duration=duration, rtol=rtol, atol=atol, integrator=integrator,
                       report_interval=report_interval, max_step=max_step,
                       initial_step=initial_step, max_steps=max_steps, max_rows=max_rows,
                       linear_solver=linear_solver)
        result = _core.run(model, forces, **options)
        return Trajectory._of_run(result, model)
    except KeyboardInterrupt as e:
        # A Ctrl-C that Python took outside the run (its handler runs at the next Python code):
        # when the load ended or before the run began (docs/python.md: an empty trajectory, with
        # no columns, the run not having begun), or once the run had returned its rows, before
        # they were wrapped (those rows). One the run itself took carries its rows already.
        if getattr(e, "trajectory", None) is None:
            if result is not None:
                e.trajectory = Trajectory(result[0], result[1], result[2], model)
            else:
                e.trajectory = Trajectory((), _np.empty((0, 0)), {}, model)
        raise
