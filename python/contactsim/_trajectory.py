"""The reports of one run, column by column, with the CSV's column names."""

import difflib
import io
import os

import numpy as np

__all__ = ["Trajectory"]


class Trajectory:
    """The reports of one run: one row per report time, one column per CSV column.

    ``traj["block.px"]`` is the column of that name as a 1-D numpy array (a read-only view into
    one table, never a copy), ``traj.columns`` lists the names in the CSV's order and
    ``traj.data`` is the whole table, shape (rows, columns). Units and frames are the CSV's
    (docs/python.md, "Columns"):

    - ``t``: time, s.
    - ``B.px B.py B.pz``: origin of body B in Ground, m; ``B.qw B.qx B.qy B.qz``: its orientation
      in Ground (unit quaternion, w >= 0); ``B.vx B.vy B.vz``: velocity of its origin in Ground,
      m/s; ``B.wx B.wy B.wz``: its angular velocity in Ground, rad/s.
    - ``B.q0 ...``, ``B.u0 ...``: coordinates and speeds of B's (non-free) mobilizer, rad or m
      and rad/s or m/s.
    - with ``forces=True``: per contact element E, ``E.fx E.fy E.fz`` and ``E.mx E.my E.mz``
      (force, N, and moment about the contact point, N m, on the touching body, in Ground),
      ``E.px E.py E.pz`` (contact point in Ground, m), ``E.pe`` (J), ``E.power`` (dissipated
      power, W) and the model's own values; per contact set S, ``S.fx S.fy S.fz`` and the centre
      of pressure ``S.copx S.copy S.copz`` in Ground.
    - ``ke pe dissipated e_total``: kinetic, potential and dissipated energy and their sum, J.

    Attributes:
        columns: the column names (a tuple of str).
        data: the table, float64, shape (len(self), len(self.columns)), read-only.
        statistics: the run's statistics (dict: steps, rhs_evals, cpu_seconds, contact
            metrics, diagnostics; as Simulation.statistics); also as ``stats``.
        model: the Model that was run.
    """

    @classmethod
    def _of_run(cls, result, model):
        # a Trajectory from what _core.run and Simulation._record return, raising the run's
        # failure with the rows it reached: SimulationError for a failed integration, or the
        # exception a signal handler raised (KeyboardInterrupt for Ctrl-C), as .trajectory
        from ._errors import SimulationError

        columns, table, stats, failure = result
        try:
            traj = cls(columns, table, stats, model)
        except KeyboardInterrupt as e:
            # a Ctrl-C while the table is wrapped (its column index takes a moment for a scene
            # of many bodies): the rows are kept, as for one during the run (the run's own
            # interruption, if any, is the one raised)
            traj = cls(columns, table, stats, model)
            failure = failure if failure is not None else e
        if failure is None:
            return traj
        if isinstance(failure, BaseException):
            try:
                failure.trajectory = traj
            except AttributeError:  # an exception class with __slots__
                pass
            raise failure
        message, time, file = failure
        raise SimulationError(message, time=time, trajectory=traj, file=file)

    def __init__(self, columns, data, stats=None, model=None):
        self.columns = tuple(columns)
        data = np.asarray(data, dtype=np.float64)
        if data.ndim != 2 or data.shape[1] != len(self.columns):
            raise ValueError(
                f"a trajectory needs a table with {len(self.columns)} columns, "
                f"got shape {data.shape}")
        data.flags.writeable = False
        self.data = data
        self.statistics = dict(stats or {})
        self.model = model
        self._index = {name: i for i, name in enumerate(self.columns)}

    def __reduce__(self):
        # pickled as what it is made from, so that a copy's table is read-only too (numpy's own
        # pickling of the array does not keep the flag)
        return (type(self), (self.columns, self.data, self.statistics, self.model))

    def __getitem__(self, name):
        """Column `name` (a CSV column name) as a read-only 1-D view, one value per report; a
        list of names gives those columns side by side, shape (rows, len(names)), a copy."""
        if isinstance(name, (list, tuple)):
            return self.data[:, [self._column(n) for n in name]]
        return self.data[:, self._column(name)]

    def _column(self, name):
        try:
            return self._index[name]
        except (KeyError, TypeError):
            close = difflib.get_close_matches(str(name), self.columns, n=3)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise KeyError(f"no column {name!r} in this trajectory{hint}") from None

    def __contains__(self, name):
        return name in self._index

    def __iter__(self):
        """Iterate over the column names, as a dict or a DataFrame does."""
        return iter(self.columns)

    def keys(self):
        """The column names."""
        return self.columns

    def __len__(self):
        """Number of reports (rows)."""
        return self.data.shape[0]

    def __repr__(self):
        span = f", t = {self.t[0]:g} .. {self.t[-1]:g} s" if len(self) else ""
        return f"<contactsim.Trajectory: {len(self)} reports, {len(self.columns)} columns{span}>"

    @property
    def stats(self):
        """The run's statistics (the same dict as ``statistics``)."""
        return self.statistics

    @property
    def t(self):
        """Report times, s."""
        return self["t"]

    def to_pandas(self):
        """The table as a pandas DataFrame (a copy), columns named as in the CSV.

        Raises ImportError when pandas is not installed.
        """
        try:
            import pandas
        except ImportError as e:
            raise ImportError(
                "Trajectory.to_pandas needs pandas, which is not installed "
                "(Debian: apt-get install python3-pandas; or pip install pandas); "
                "the columns are available without it as traj[name] or traj.data") from e
        return pandas.DataFrame(np.array(self.data), columns=list(self.columns))

    def to_csv(self, path):
        """Write the table as CSV with the command line's header and full precision (%.17g).

        Written in place, as ``run`` writes its CSV: a write that fails (OSError: a full disk,
        say) leaves the header and the rows written before it whole, the file cut back to the
        last of them (a regular file; a pipe keeps what it took). Never over the scene file its
        model was loaded from (SceneError), as the library's own outputs are never written
        there."""
        if self.model is not None and self.model._is_scene_file(path):
            from ._errors import SceneError
            raise SceneError(f"refusing to write the CSV over the scene file {self.model.file}",
                             file=os.fspath(path))
        with open(path, "wb", buffering=0) as f:
            whole = 0  # bytes of whole rows written
            try:
                for block in self._csv_blocks():
                    view = memoryview(block)
                    while view:
                        view = view[f.write(view):]
                    whole += len(block)
            except OSError:
                try:
                    os.ftruncate(f.fileno(), whole)
                except OSError:
                    pass  # not a regular file
                raise

    def _csv_blocks(self, rows=1000):
        """The CSV as bytes: the header, then the rows a thousand at a time."""
        yield (",".join(self.columns) + "\n").encode()
        for i in range(0, len(self.data), rows):
            out = io.BytesIO()
            np.savetxt(out, self.data[i:i + rows], fmt="%.17g", delimiter=",")
            yield out.getvalue()
