#!/usr/bin/python3
"""plot.py: figures from contactsim CSV output (matplotlib, Agg backend: no display needed).

    tools/plot.py RUN.csv -y COL[,COL...] [-o OUT.png] [--title TEXT]
        (OUT's extension may name any format matplotlib writes, .svg or .pdf; without one,
        .png is added)
        plot the chosen columns of one run against t, one panel per unit

    tools/plot.py --compare DIR [-y COL[,COL...]] [-o PREFIX] [--title TEXT]
        overlay the runs DIR/<model>.csv written by `contactsim compare --out-dir DIR`, one line
        per model of the comparison DIR/compare.json describes (CSVs of other models in DIR, left
        by an earlier comparison, are not drawn). Without -y, four panels: the height of the
        first free body's origin (pz), the horizontal path length of that origin (how far the
        body travelled, not how far its contacts slipped), the normal force of every contact set
        (the force along its plane's normal, summed over the set's elements: needs CSVs with
        force columns) and the change of the total energy e_total since t = 0. With -y, the
        chosen columns instead, one panel per unit.
        Writes PREFIX.png (default DIR/compare.png).

    tools/plot.py --sweep DIR [--metric NAME[,NAME...]] [-o OUTDIR] [--title TEXT]
        figures of a parameter study written by `contactsim sweep --out DIR`, from
        DIR/results.csv: for each metric (default: max_penetration, peak_normal_force,
        sliding_distance, energy_error) and each parameter that varies, the metric against
        that parameter with one line per model (the mean over the other parameters and the
        repeats; each run is a faint dot); for the first two varying parameters, a heat map
        per model. The keys of one axis of the study ({"keys": [...], "values": [...]}, read
        from the study file results.json names) are one parameter, named by its first key (a
        model's panel of the heat map shows its own key of it), and so are keys set to the
        same value in every run; a parameter whose values are lists or
        strings gets no figure (said on standard error). Failed and missing runs are drawn as
        crosses at the bottom of a line plot and as crossed cells of a heat map, never
        dropped. Writes
        OUTDIR/sweep_<metric>_vs_<parameter>.png and OUTDIR/sweep_<metric>_map.png (default
        OUTDIR: DIR/figures) and prints each path, then how many runs failed.

Every axis is labelled with its unit. Needs matplotlib (Debian: apt-get install
python3-matplotlib).
"""

import argparse
import csv
import io
import json
import math
import os
import sys
import warnings

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None


def need_matplotlib():
    """Stop with a message saying what to install when matplotlib is missing."""
    if plt is None:
        sys.exit("plot.py: matplotlib is not installed for %s; install it with "
                 "'apt-get install python3-matplotlib' (Debian/Ubuntu) or "
                 "'pip install matplotlib', or run /usr/bin/python3 tools/plot.py"
                 % sys.executable)


# ---------------------------------------------------------------------------------------------
# reading contactsim CSVs

def read_csv(path):
    """Columns of a run's CSV as lists of floats, keyed by header name, and the header in order.
    A last line without its newline is a row cut when the run was killed (docs/cli.md): left
    out. A missing or empty field reads as nan. Stops with a message for a file that cannot be
    read or is no CSV of a run (no t column)."""
    try:
        with open(path, newline="") as f:
            text = f.read()
    except OSError as e:
        sys.exit("plot.py: cannot read %s: %s" % (path, e.strerror or e))
    except UnicodeDecodeError:
        sys.exit("plot.py: %s is not a CSV of contactsim run (not text)" % path)
    end = text.rfind("\n") + 1
    if end < len(text):
        print("plot.py: %s: its last line has no line break (a row cut when the run was "
              "killed): left out" % path, file=sys.stderr)
    rows = [row for row in csv.reader(io.StringIO(text[:end])) if row]
    if not rows or "t" not in rows[0]:
        sys.exit("plot.py: %s is not a CSV of contactsim run or compare --out-dir (no t column "
                 "in its first line)" % path)
    header = rows[0]
    cols = [[] for _ in header]
    for row in rows[1:]:
        for i in range(len(header)):
            try:
                cols[i].append(float(row[i]))
            except (IndexError, ValueError):
                cols[i].append(math.nan)
    return dict(zip(header, cols)), header


# unit of a column by its suffix (README "CSV columns", docs/contact-models.md report columns)
UNITS = {
    "t": "s", "ke": "J", "pe": "J", "dissipated": "J", "e_total": "J", "power": "W",
    "px": "m", "py": "m", "pz": "m", "vx": "m/s", "vy": "m/s", "vz": "m/s",
    "wx": "rad/s", "wy": "rad/s", "wz": "rad/s", "qw": "1", "qx": "1", "qy": "1", "qz": "1",
    "fx": "N", "fy": "N", "fz": "N", "mx": "N m", "my": "N m", "mz": "N m",
    "copx": "m", "copy": "m", "copz": "m",
    "penetration": "m", "penetration_rate": "m/s", "normal_force": "N", "friction_force": "N",
    "slip_speed": "m/s", "fz_elastic": "N", "fz_damping": "N", "fxy_elastic_x": "N",
    "fxy_elastic_y": "N", "fxy_damping_x": "N", "fxy_damping_y": "N", "mu": "1", "limit": "N",
    "sliding": "1", "p0_x": "m", "p0_y": "m", "p0_z": "m", "station_x": "m", "station_y": "m",
    "station_z": "m", "station_vx": "m/s", "station_vy": "m/s", "station_vz": "m/s",
    "generalized_force": "N or N m", "body1_mx": "N m", "body1_my": "N m", "body1_mz": "N m",
    "body1_fx": "N", "body1_fy": "N", "body1_fz": "N", "body2_mx": "N m", "body2_my": "N m",
    "body2_mz": "N m", "body2_fx": "N", "body2_fy": "N", "body2_fz": "N",
}


def unit_of(column, header=()):
    """The unit of a column ("m", "N", ...). Joint coordinates and their rates are m or rad
    (m/s or rad/s) depending on the joint; a bushing's q0..q2 are rad, q3..q5 m."""
    suffix = column.rsplit(".", 1)[-1]
    if suffix in UNITS:
        # a stop's penetration is m or rad, like its coordinate
        if suffix in ("penetration", "penetration_rate") and \
                column[:-len(suffix)] + "generalized_force" in header:
            return "m or rad" if suffix == "penetration" else "m/s or rad/s"
        return UNITS[suffix]
    prefix = column[:-len(suffix)]
    if suffix[:4] == "qdot" and suffix[4:].isdigit():  # bushing rates
        return "rad/s" if int(suffix[4:]) < 3 else "m/s"
    if suffix[:1] in "qu" and suffix[1:].isdigit():
        if prefix + "qdot0" in header and suffix[0] == "q":  # bushing coordinates
            return "rad" if int(suffix[1:]) < 3 else "m"
        if prefix + "q3" in header and prefix + "u2" in header:  # ball joint
            return "1" if suffix[0] == "q" else "rad/s"   # quaternion; angular velocity
        return "m or rad" if suffix[0] == "q" else "m/s or rad/s"  # slider or pin
    if suffix[:1] == "f" and suffix[1:].isdigit():  # bushing generalized forces
        return "N m" if int(suffix[1:]) < 3 else "N"
    return "?"


def first_free_body(header):
    """Name of the first free body (a pose, px and qw, and no joint coordinates, q0), or None:
    every body has a pose's columns, a body on a pin or a slider its q0 too."""
    for h in header:
        if h.endswith(".px"):
            body = h[:-3]
            if body + ".qw" in header and body + ".q0" not in header:
                return body
    return None


def origin_path_length(data, body):
    """Cumulative horizontal (x-y) path length of the body's origin, m: how far the body
    travelled, which includes rolling; the slip of its contacts is E.slip_speed."""
    x, y = data[body + ".px"], data[body + ".py"]
    out, s = [0.0], 0.0
    for i in range(1, len(x)):
        s += math.hypot(x[i] - x[i - 1], y[i] - y[i - 1])
        out.append(s)
    return out


def contact_sets(header):
    """The contact sets of a CSV with force columns: {set name: [element column prefixes]}.
    A set S has S.copx; its elements are S.<i> with a normal_force column. An element that
    belongs to no set (a contact force element of its own) is a set of one."""
    sets = {}
    for h in header:
        if h.endswith(".copx"):
            sets[h[:-5]] = []
    for h in header:
        if not h.endswith(".normal_force"):
            continue
        elem = h[:-len(".normal_force")]
        parent = elem.rsplit(".", 1)[0]
        if parent in sets and elem.rsplit(".", 1)[-1].isdigit():
            sets[parent].append(elem)
        else:
            sets[elem] = [elem]
    return {name: elems for name, elems in sets.items() if elems}


def normal_forces(data, header):
    """{set name: normal force of the set at each row, N}: the force along the plane's normal,
    summed over the set's elements (each element's normal_force column). Empty when the CSV has
    no force columns."""
    out = {}
    for name, elems in contact_sets(header).items():
        cols = [data[e + ".normal_force"] for e in elems]
        out[name] = [sum(v) for v in zip(*cols)]
    return out


# ---------------------------------------------------------------------------------------------
# figures (each returns the figure; main() saves it)

def label(name, unit):
    return "%s (%s)" % (name, unit)


def columns_figure(runs, columns, title):
    """One panel per unit of the chosen columns; runs is [(name, data, header)], one line per
    run and column."""
    header0 = runs[0][2]
    units = []
    for c in columns:
        u = unit_of(c, header0)
        if u not in units:
            units.append(u)
    fig, axes = plt.subplots(len(units), 1, figsize=(8, 3.2 * len(units) + 1), sharex=True,
                             squeeze=False)
    for k, u in enumerate(units):
        ax = axes[k][0]
        cols = [c for c in columns if unit_of(c, header0) == u]
        for name, data, _ in runs:
            for c in cols:
                tag = c if len(runs) == 1 else "%s: %s" % (name, c)
                ax.plot(data["t"], data[c], label=tag, linewidth=1.2)
        ax.set_ylabel(label(", ".join(cols), u))
        ax.grid(True, alpha=0.3)
        legend(ax)
    axes[-1][0].set_xlabel(label("t", "s"))
    fig.suptitle(title)
    tight(fig)
    return fig


# the most lines a legend names; past it the panel says how many there are
MAX_LEGEND = 12


def legend(ax):
    """A legend of the lines of ax, or, where they are too many to read (a pile of blocks, a
    set each), their number in a corner."""
    n = len(ax.get_lines())
    if n > MAX_LEGEND:
        ax.text(0.99, 0.97, "%d lines" % n, ha="right", va="top", fontsize="small",
                transform=ax.transAxes)
    elif n:
        ax.legend(fontsize="small")


def tight(fig):
    """fig.tight_layout without matplotlib's warning where the layout cannot be tightened"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()


def compare_figure(runs, title):
    """The four-panel overlay of a compare directory; runs is [(model, data, header)]."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    (ax_h, ax_s), (ax_f, ax_e) = axes
    have_force = False
    body = None
    for model, data, header in runs:
        t = data["t"]
        body = first_free_body(header) or body
        if body and body + ".pz" in data:
            ax_h.plot(t, [1e3 * z for z in data[body + ".pz"]], label=model, linewidth=1.1)
            ax_s.plot(t, origin_path_length(data, body), label=model, linewidth=1.1)
        forces = normal_forces(data, header)
        for name, fn in forces.items():
            tag = model if len(forces) == 1 else "%s: %s" % (model, name)
            ax_f.plot(t, fn, label=tag, linewidth=1.1)
            have_force = True
        if "e_total" in data:
            e0 = data["e_total"][0]
            ax_e.plot(t, [e - e0 for e in data["e_total"]], label=model, linewidth=1.1)
    ax_h.set_ylabel(label("height of %s's origin, pz" % (body or "body"), "mm"))
    ax_s.set_ylabel(label("horizontal path of %s's origin" % (body or "body"), "m"))
    if not body:
        for ax in (ax_h, ax_s):
            ax.text(0.5, 0.5, "no free body", ha="center", va="center", transform=ax.transAxes)
    ax_f.set_ylabel(label("normal force of each contact set", "N"))
    if have_force:
        legend(ax_f)
    else:
        ax_f.text(0.5, 0.5, "no contact forces\n(the scene has no contacts, or the\nrun "
                  "was made without --forces)", ha="center", va="center",
                  transform=ax_f.transAxes)
    ax_e.set_ylabel(label("e_total - e_total(0)", "J"))
    ax_e.ticklabel_format(axis="y", useOffset=False)
    for ax in axes.flat:
        ax.grid(True, alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel(label("t", "s"))
    legend(ax_h)
    fig.suptitle(title)
    tight(fig)
    return fig


# ---------------------------------------------------------------------------------------------
# parameter studies (contactsim sweep)

SWEEP_METRICS = ["max_penetration", "peak_normal_force", "sliding_distance", "energy_error"]

# units of the results.csv metrics (docs/cli.md, "Metrics") and of common scene keys
METRIC_UNITS = {"max_penetration": "m", "peak_normal_force": "N", "sliding_distance": "m",
                "stuck_drift": "m", "energy_error": "1", "cpu_seconds": "s",
                "cpu_per_sim_second": "s/s", "run_cpu_seconds": "s", "wall_seconds": "s",
                "simulated": "s", "steps": "1", "rhs_evals": "1", "rhs_evals_jacobian": "1",
                "rhs_total": "1", "error_test_failures": "1"}
# results.csv columns that are text, not numbers: no metric to plot
TEXT_COLUMNS = {"index", "point", "model", "repeat", "status", "linear_solver", "error",
                "diagnostics"}
PARAM_UNITS = {"mu_static": "1", "mu_dynamic": "1", "mu_viscous": "s/m",
               "plane_strain_modulus": "N/m^2", "penalty_stiffness": "N/m", "dissipation": "s/m",
               "transition_velocity": "m/s", "cz": "s/m", "kxy": "N/m", "cxy": "N s/m",
               "v_settle": "m/s", "d0": "m", "d1": "N", "d2": "1/m", "max_fz": "N",
               "mass_for_damping": "kg", "mass": "kg", "radius": "m", "rtol": "1",
               "atol": "1", "duration": "s", "report_interval": "s", "max_step": "s",
               "constant_contact_force": "1", "hertz_smoothing": "1/m",
               "hunt_crossley_smoothing": "s/m", "stiffness": "N/m or N m/rad"}


def metric_unit(metric):
    """Unit of a results.csv column: a metric's, or a final pose's as in a run's CSV
    (foot.px, m)"""
    return METRIC_UNITS.get(metric) or unit_of(metric)


def param_unit(key):
    """Unit of a scene key path by its last part; "?" when not known here."""
    return PARAM_UNITS.get(key.rsplit(".", 1)[-1], "?")


def read_sweep(directory):
    """The rows of DIR/results.csv and the parameter keys (from DIR/results.json)."""
    path = os.path.join(directory, "results.csv")
    if not os.path.exists(path):
        sys.exit("plot.py: %s not found (is %s a sweep directory?)" % (path, directory))
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    try:
        import json
        with open(os.path.join(directory, "results.json")) as f:
            keys = json.load(f)["sweep"]["parameters"]
    except (OSError, ValueError, KeyError):
        # without the JSON: the columns between "repeat" and "status"
        header = list(rows[0].keys()) if rows else []
        keys = header[header.index("repeat") + 1:header.index("status")] if rows else []
    return rows, keys


def study_axes(directory):
    """The study's axes of several keys ({"keys": [...]} entries), read from the study file its
    results.json names; none when it cannot be read (moved, or edited into something else)"""
    import json
    try:
        with open(os.path.join(directory, "results.json")) as f:
            path = json.load(f)["sweep"]["study"]
        with open(path) as f:
            entries = json.load(f)["parameters"]
        return [e for e in entries if isinstance(e, dict) and isinstance(e.get("keys"), list)]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def as_number(text):
    try:
        x = float(text)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def short_key(key):
    """contact_models.exponential_spring.mu_static -> exponential_spring.mu_static"""
    parts = key.split(".")
    return ".".join(parts[-2:]) if len(parts) > 2 else key


def log_scale_fits(values):
    return min(values) > 0 and max(values) / min(values) >= 50


def axis_label(group):
    """the x label of an axis of several keys: its first, and how many it sets besides"""
    more = " (and %d more key%s of its axis)" % (len(group) - 1, "s" * (len(group) > 2)) \
        if len(group) > 1 else ""
    return label(short_key(group[0]), param_unit(group[0])) + more


def model_key(group, model):
    """of an axis's keys, the one of this model's parameter block (the first if none is)"""
    return next((k for k in group if ".%s." % model in k), group[0])


def plot_sweep_line(rows, group, metric, models, out, title):
    """metric against one axis (its first key's values), a line per model (means at each
    value), failures marked"""
    key = group[0]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    xs_all = sorted({as_number(r[key]) for r in rows if as_number(r[key]) is not None})
    bad_x, bad_labels = [], []
    for i, model in enumerate(models):
        color = "C%d" % i
        mine = [r for r in rows if r["model"] == model]
        ok = [r for r in mine if r["status"] == "ok" and as_number(r[metric]) is not None]
        ax.plot([as_number(r[key]) for r in ok], [as_number(r[metric]) for r in ok], ".",
                color=color, alpha=0.25)
        line_x, line_y = [], []
        for x in xs_all:
            ys = [as_number(r[metric]) for r in ok if as_number(r[key]) == x]
            if ys:
                line_x.append(x)
                line_y.append(sum(ys) / len(ys))
        ax.plot(line_x, line_y, "-o", color=color, label=model, linewidth=1.3, markersize=4)
        for r in mine:
            if r["status"] != "ok" and as_number(r[key]) is not None:
                bad_x.append(as_number(r[key]))
                bad_labels.append(r["status"])
    if bad_x:
        # at the bottom edge of the axes, whatever the metric's scale
        ax.plot(bad_x, [0.02] * len(bad_x), "x", color="red", markersize=9, mew=2,
                transform=ax.get_xaxis_transform(), clip_on=False,
                label="failed / missing (%d)" % len(bad_x))
    if xs_all and log_scale_fits(xs_all):
        ax.set_xscale("log")
    ax.set_xlabel(axis_label(group))
    ax.set_ylabel(label(metric, metric_unit(metric)))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    tight(fig)
    save(fig, out, dpi=100)


def plot_sweep_map(rows, gx, gy, metric, models, out, title):
    """heat map of metric over two axes, a panel per model, each over its own keys of them
    (an axis setting both models' stiffness shows each model's); failed cells crossed"""
    fig, axes = plt.subplots(1, len(models), figsize=(4.8 * len(models) + 1, 4.4),
                             squeeze=False)
    for ax, model in zip(axes[0], models):
        kx, ky = model_key(gx, model), model_key(gy, model)
        xs = sorted({as_number(r[kx]) for r in rows if as_number(r[kx]) is not None})
        ys = sorted({as_number(r[ky]) for r in rows if as_number(r[ky]) is not None})
        grid = [[float("nan")] * len(xs) for _ in ys]
        failed = set()
        for iy, y in enumerate(ys):
            for ix, x in enumerate(xs):
                cell = [r for r in rows if r["model"] == model and as_number(r[kx]) == x and
                        as_number(r[ky]) == y]
                vals = [as_number(r[metric]) for r in cell if r["status"] == "ok" and
                        as_number(r[metric]) is not None]
                if vals:
                    grid[iy][ix] = sum(vals) / len(vals)
                if any(r["status"] != "ok" for r in cell):
                    failed.add((ix, iy))
        im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis",
                       extent=(-0.5, len(xs) - 0.5, -0.5, len(ys) - 0.5))
        for ix, iy in failed:
            ax.plot(ix, iy, "x", color="red", markersize=14, mew=2.5)
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(["%.3g" % x for x in xs], rotation=45, fontsize=7)
        ax.set_yticks(range(len(ys)))
        ax.set_yticklabels(["%.3g" % y for y in ys], fontsize=7)
        ax.set_xlabel(label(short_key(kx), param_unit(kx)))
        ax.set_ylabel(label(short_key(ky), param_unit(ky)))
        ax.set_title("%s (%d failed)" % (model, len(failed)) if failed else model, fontsize=9)
        fig.colorbar(im, ax=ax, label=label(metric, metric_unit(metric)))
    fig.suptitle(title, fontsize=10)
    tight(fig)
    save(fig, out, dpi=100)


def plot_sweep(directory, metrics, outdir, title):
    rows, keys = read_sweep(directory)
    if not rows:
        sys.exit("plot.py: %s/results.csv has no runs" % directory)
    missing = [m for m in metrics if m not in rows[0]]
    if missing:
        sys.exit("plot.py: no column %s in %s/results.csv" % (", ".join(missing), directory))
    text = [m for m in metrics if m in TEXT_COLUMNS or m in keys]
    if text:
        sys.exit("plot.py: %s: not a metric (a text column, or a parameter of the study); the "
                 "metrics are the numbers of each run, such as %s" % (", ".join(text),
                                                                     ", ".join(SWEEP_METRICS)))
    models = list(dict.fromkeys(r["model"] for r in rows))
    # the parameters that vary and are numbers; the others (strings, lists) cannot be an axis,
    # and are named so rather than left out unsaid
    changing = [k for k in keys if len({r[k] for r in rows}) > 1]
    varying = [k for k in changing if all(as_number(r[k]) is not None for r in rows)]
    for k in changing:
        if k not in varying:
            print("plot.py: parameter %s is not a number in every run (a list or a string): no "
                  "figure for it (a list's element, %s[0], can be an axis)" % (k, k),
                  file=sys.stderr)
    # the keys of one axis of the study ({"keys": [...], "values": [...]}: set together, each
    # point a combination) are one axis, and so are keys set to the same value in every run
    # (the study gone); keys that merely vary together (two parameters of one random axis)
    # stay apart
    axes = [[k for k in entry["keys"] if k in varying] for entry in study_axes(directory)]
    axes = [group for group in axes if group]
    for k in varying:
        if any(k in group for group in axes):
            continue
        for group in axes:
            if all(as_number(r[k]) == as_number(r[group[0]]) for r in rows):
                group.append(k)
                break
        else:
            axes.append([k])
    varying = axes
    outdir = outdir or os.path.join(directory, "figures")
    os.makedirs(outdir, exist_ok=True)
    title = title or os.path.basename(os.path.normpath(directory))
    for metric in metrics:
        for group in varying:
            plot_sweep_line(rows, group, metric, models,
                            os.path.join(outdir, "sweep_%s_vs_%s.png" % (metric, group[0])),
                            title)
        if len(varying) >= 2:
            plot_sweep_map(rows, varying[0], varying[1], metric, models,
                           os.path.join(outdir, "sweep_%s_map.png" % metric), title)
    nbad = sum(r["status"] != "ok" for r in rows)
    print("%d of %d runs failed or missing (marked with red crosses)" % (nbad, len(rows))
          if nbad else "all %d runs ok" % len(rows))


# ---------------------------------------------------------------------------------------------
# command line

def load_run(path, columns=()):
    """(name, data, header) of one run's CSV; stops with a message naming missing columns."""
    data, header = read_csv(path)
    missing = [c for c in columns if c not in data]
    if missing:
        sys.exit("plot.py: %s has no column(s) %s (columns: %s)"
                 % (path, ", ".join(missing), ", ".join(header)))
    return os.path.splitext(os.path.basename(path))[0], data, header


def load_compare(directory, columns=()):
    """The runs of a compare --out-dir: the models DIR/compare.json lists, each from its
    DIR/<model>.csv. compare.json is written last, for the models that ran, so a CSV it does not
    list (an earlier comparison's model, one skipped by an interrupted comparison) is left out;
    a CSV written after it (a later comparison that never finished) is read with a warning."""
    manifest = os.path.join(directory, "compare.json")
    try:
        with open(manifest) as f:
            models = [m["model"] for m in json.load(f)["models"]]
    except OSError as e:
        sys.exit("plot.py: cannot read %s (%s): --compare takes a directory written by "
                 "contactsim compare --out-dir" % (manifest, e.strerror))
    except (ValueError, KeyError, TypeError):
        sys.exit("plot.py: %s is not the compare.json of contactsim compare --out-dir"
                 % manifest)
    written = os.stat(manifest).st_mtime_ns
    runs = []
    for model in models:
        path = os.path.join(directory, model + ".csv")
        try:
            with open(path, newline="") as f:
                first = f.readline()
            newer = os.stat(path).st_mtime_ns > written
        except OSError as e:
            print("plot.py: %s: skipped: %s" % (path, e.strerror), file=sys.stderr)
            continue
        if not first.startswith("t,"):
            # a model whose CSV could not be written (its failure is in compare.json)
            print("plot.py: %s: skipped: not a trajectory CSV" % path, file=sys.stderr)
            continue
        if newer:
            print("plot.py: warning: %s was written after %s: it may be from a later "
                  "comparison that did not finish" % (path, manifest), file=sys.stderr)
        runs.append(load_run(path, columns))
    if not runs:
        sys.exit("plot.py: no trajectory CSV of the models in %s" % manifest)
    return runs


def png_path(out):
    """The file a figure named out is written to: out itself when its extension is a format
    matplotlib writes (.png, .svg, .pdf, ...), else with .png added (as matplotlib adds it),
    which is the name printed; a directory or "-" (no standard output for a figure) stops with
    a message."""
    if out == "-" or os.path.isdir(out):
        sys.exit("plot.py: -o %s: give the figure's file name (a .png)" % out)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    extension = os.path.splitext(out)[1][1:].lower()
    return out if extension in FigureCanvasAgg.get_supported_filetypes() else out + ".png"


def save(fig, out, dpi=110):
    """Write fig to out and name it; a file that cannot be written is an error, not a
    traceback."""
    try:
        fig.savefig(out, dpi=dpi)
    except OSError as e:
        sys.exit("plot.py: cannot write %s: %s" % (out, e.strerror or e))
    except (ValueError, RuntimeError) as e:  # a format this matplotlib cannot write (.pgf)
        sys.exit("plot.py: cannot write %s: %s" % (out, e))
    finally:
        plt.close(fig)
    print(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("csv", nargs="?", help="CSV written by contactsim run")
    ap.add_argument("-y", help="comma-separated columns to plot against t")
    ap.add_argument("--compare", metavar="DIR", help="directory written by compare --out-dir")
    ap.add_argument("--sweep", metavar="DIR", help="directory written by sweep --out")
    ap.add_argument("--metric", help="comma-separated results.csv columns (with --sweep)")
    ap.add_argument("-o", "--output",
                    help="output PNG (prefix with --compare, directory with --sweep)")
    ap.add_argument("--title", help="figure title")
    args = ap.parse_args(argv)
    columns = [c for c in (args.y or "").split(",") if c]
    # one kind of figure at a time, with the options it takes (the others were ignored)
    modes = [m for m, given in (("RUN.csv", args.csv), ("--compare", args.compare),
                                ("--sweep", args.sweep)) if given]
    if len(modes) > 1:
        ap.error("%s: give one of RUN.csv, --compare DIR and --sweep DIR" % " and ".join(modes))
    if args.sweep and columns:
        ap.error("-y goes with RUN.csv and --compare; --sweep takes --metric")
    if args.metric and not args.sweep:
        ap.error("--metric goes with --sweep")
    if not args.sweep and not args.compare and not (args.csv and columns):
        ap.error("give RUN.csv -y COLUMNS, --compare DIR [-y COLUMNS] or --sweep DIR")
    need_matplotlib()
    if args.sweep:
        metrics = [m for m in (args.metric or ",".join(SWEEP_METRICS)).split(",") if m]
        plot_sweep(args.sweep, metrics, args.output, args.title)
        return
    if args.compare:
        runs = load_compare(args.compare, columns)
        title = args.title or os.path.basename(os.path.normpath(args.compare))
        fig = columns_figure(runs, columns, title) if columns else compare_figure(runs, title)
        out = png_path(args.output) if args.output else \
            os.path.join(args.compare, "compare.png")
    else:
        out = png_path(args.output) if args.output else os.path.splitext(args.csv)[0] + ".png"
        run = load_run(args.csv, columns)
        fig = columns_figure([run], columns, args.title or os.path.basename(args.csv))
    save(fig, out)


if __name__ == "__main__":
    main()
