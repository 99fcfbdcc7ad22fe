"""Exceptions raised by contactsim.

They carry the same parts as the library's error record (csError): the file concerned, the JSON
path of the offending value (such as ``bodies[2].joint.q``), the line and column in the file
when known, and one sentence saying what is wrong.
"""

import math

__all__ = ["Error", "SceneError", "SimulationError"]


def _locate(file, line, column, path):
    # "FILE:LINE:COL: PATH: ", leaving out the parts that are not known (a column of 0 too:
    # "FILE:LINE: "), as the command line does
    parts = ""
    if file:
        if line > 0 and column > 0:
            parts = f"{file}:{line}:{column}: "
        elif line > 0:
            parts = f"{file}:{line}: "
        else:
            parts = f"{file}: "
    if path:
        parts += f"{path}: "
    return parts


class Error(Exception):
    """Base class of the exceptions contactsim raises."""


class SceneError(Error, ValueError):
    """Bad input: a scene file that cannot be read or parsed, a value out of range, an unknown
    key or contact model, an unusable option.

    Attributes:
        file: the scene file concerned (for text given to ``loads``, the name given with it,
            ``"<string>"`` by default; "" for none).
        path: JSON path of the offending value, e.g. ``"bodies[2].joint.q"`` ("" when the whole
            file or an option is at fault).
        message: one sentence saying what is wrong.
        line, column: 1-based position in the file, 0 when unknown.
    """

    def __init__(self, message, file="", path="", line=0, column=0):
        self.message = message
        self.file = file
        self.path = path
        self.line = line
        self.column = column
        super().__init__(_locate(file, line, column, path) + message)

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.path, self.line, self.column))


class SimulationError(Error, RuntimeError):
    """The integrator failed during a run (CVODE's error test or Newton iteration kept failing,
    too much work between two reports, a non-finite state).

    Attributes:
        message: what failed, with CVODE's own message when it gave one.
        time: simulation time of the failure, s.
        trajectory: the reports up to the last one reached before the failure (a
            ``Trajectory``), or None where there is none (``Simulation.step``).
        file: the scene file of the model (for text given to ``loads``, the name given with it,
            ``"<string>"`` by default).
    """

    def __init__(self, message, time=math.nan, trajectory=None, file=""):
        self.message = message
        self.time = time
        self.trajectory = trajectory
        self.file = file
        where = f"{file}: " if file else ""
        super().__init__(f"{where}{message}")

    def __reduce__(self):
        return (type(self), (self.message, self.time, self.trajectory, self.file))
