"""Simulation: a model's state and integrator, stepped from Python; contact reports; states."""

import numbers

import numpy as np

from . import _core
from ._errors import SceneError
from ._trajectory import Trajectory

__all__ = ["ContactReport", "Simulation", "State"]


class ContactReport:
    """What one contact element reports at the current time (all in Ground).

    Attributes:
        name: the force element's name.
        set: the contact set (scene "contacts" entry) it belongs to, or None.
        point: contact point, m (3,).
        force: force on the touching body (the second surface), N (3,).
        moment: moment about the contact point on the touching body, N m (3,).
        pe: potential energy stored, J.
        power: power being dissipated, W (>= 0).
        values: the model's own values by name (e.g. an exponential spring's anchor, a sphere's
            penetration), as the CSV's ``E.<name>`` columns.
    """

    __slots__ = ("name", "set", "point", "force", "moment", "pe", "power", "values")

    def __init__(self, name, set, point, force, moment, pe, power, values):
        self.name = name
        self.set = set
        self.point = point
        self.force = force
        self.moment = moment
        self.pe = pe
        self.power = power
        self.values = values

    def __repr__(self):
        f = ", ".join(f"{x:.6g}" for x in self.force)
        p = ", ".join(f"{x:.6g}" for x in self.point)
        return (f"<ContactReport {self.name}: force ({f}) N at ({p}) m, pe {self.pe:.6g} J, "
                f"power {self.power:.6g} W>")


def _seconds(name, value):
    # a time as the run options take one: a number (numpy's too), not a bool or a str, which
    # float() would take (True as 1 s, "0.5" as 0.5 s)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        # as the library's own conversion says it (advance_to, run's options): a SceneError
        raise SceneError(f"{name} must be a finite number, got an integer too large for a "
                         "double") from None


def _flag(name, value):
    # a yes/no option: a bool, Python's or numpy's. Another type is a TypeError, as a bool is
    # where a number is due: bool("no") and bool([]) would guess, and a number is no answer
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, not {type(value).__name__}")
    return bool(value)


class State:
    """A complete state of a simulation at one time, from Simulation.get_state().

    Restoring it with Simulation.set_state() continues as the simulation it was taken from
    would have to the integration tolerance, and exactly as one that restarts its integrator at
    the same time (the checkpoint carries t, q, u, z, every discrete and auto-update variable
    and the time of the last auto-update commit, as exact hexadecimal floats). A State can be
    pickled, and restored into any simulation of the same scene (the model's fingerprint is
    checked).

    Attributes (copies, for inspection): t (s), q, u, z, discrete, auto_update; checkpoint:
    the checkpoint text (the format of save_state files: cs_simSaveState in
    include/contactsim/simulation.h).
    """

    __slots__ = ("checkpoint", "t", "q", "u", "z", "discrete", "auto_update")

    def __init__(self, checkpoint, t, q, u, z, discrete, auto_update):
        self.checkpoint = checkpoint
        self.t = t
        self.q = q
        self.u = u
        self.z = z
        self.discrete = discrete
        self.auto_update = auto_update

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])

    def __repr__(self):
        return f"<contactsim.State t = {self.t:g} s, nq = {len(self.q)}, nu = {len(self.u)}>"


class Simulation(_core.Simulation):
    """Simulation(model, **options): a model's state and its integrator, stepped from Python.

    Args:
        model: a Model (contactsim.load or loads).
        options: integrator options overriding the scene's: rtol, atol, integrator ("bdf",
            "adams", "rk", "ark" or "rk23"), linear_solver, max_step (s), initial_step (s),
            max_steps, report_interval (s, for run()), max_rows (for run()).

    Starts from the model's initial state at t = 0. Step it with step() (one integrator step)
    or advance_to(t); read the state as numpy views (q, u; writable: edits take effect at the
    next step), the time, energies (ke, pe, dissipated, e_total, J), body poses and velocities
    (in Ground), contact reports (contacts()); checkpoint with save_state/load_state or
    get_state/set_state. Methods that integrate for long (advance_to, run) release the GIL; one
    Simulation must not be used by two threads at once (it raises RuntimeError), but threads may
    each run their own.
    """

    def run(self, duration=None, *, t_end=None, forces=False):
        """Advance for `duration` seconds (or to `t_end`, s), reporting at the current time, at
        every multiple of the report interval and at the end; return the Trajectory.

        duration None and t_end None: the scene's duration. forces (bool): also the contact
        columns.
        Raises SimulationError with the partial trajectory when the integration fails. Ctrl-C
        (in the main thread) stops the run after its current step and raises KeyboardInterrupt
        with the reports so far as .trajectory; the simulation then stands at the last of them,
        ready to run on. A signal handler of your own that returns lets the run go on; while it
        runs, the simulation can be read but not changed (RuntimeError, docs/python.md).
        """
        if t_end is None:
            if duration is None:
                duration = self.options["duration"]
            # counted from the time at the start of the run, read in the same call
            record = self._record(_seconds("duration", duration), _flag("forces", forces), True)
        elif duration is not None:
            raise TypeError("give duration or t_end, not both")
        else:
            record = self._record(_seconds("t_end", t_end), _flag("forces", forces))
        return Trajectory._of_run(record, self.model)

    def contacts(self):
        """Contact reports of every contact element at the current time (list of
        ContactReport: point, force and moment on the touching body, pe, power; in Ground)."""
        return [ContactReport(*c) for c in self._contacts()]

    def get_state(self):
        """The complete state at the current time, as a State (see set_state).

        The checkpoint is made in memory (no file). Raises SceneError for a state that is not
        finite, MemoryError when memory runs out.
        """
        # the checkpoint and the arrays in one call, so that they hold the same state
        text, t, q, u, z, discrete, auto_update = self._get_state()
        return State(text, t, q, u, z, discrete, auto_update)

    def set_state(self, state):
        """Continue from a State taken by get_state (of this or another simulation of the same
        scene). The state is replaced whole: an edit of q or u not yet used is discarded.

        The checkpoint is read in memory (no file). Raises SceneError (file "<State>", the line
        of state.checkpoint) when it belongs to another scene or is malformed, MemoryError when
        memory runs out; the simulation is then unchanged.
        """
        if not isinstance(state, State):
            raise TypeError(f"set_state needs a contactsim.State, not {type(state).__name__}")
        self._set_state(state.checkpoint)

    def __repr__(self):
        try:
            name = self.model.name
        except RuntimeError:
            return "<contactsim.Simulation (not initialised)>"
        try:
            at = f"at t = {self.time:g} s"
        except RuntimeError:
            at = "(being advanced by another thread)"
        return f"<contactsim.Simulation of '{name}' {at}>"
