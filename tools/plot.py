#!/usr/bin/python3
"""plot.py: figures from contactsim CSV output (matplotlib, Agg backend: no display needed).

    tools/plot.py RUN.csv -y COL[,COL...] [-o OUT.png] [--title TEXT]
        plot the chosen columns of one run against t, one panel per unit

    tools/plot.py --compare DIR [-y COL[,COL...]] [-o PREFIX] [--title TEXT]
        overlay the runs DIR/<model>.csv written by `contactsim compare --out-dir DIR`, one line
        per model. Without -y, four panels: the height of the first free body's origin (pz), the
        horizontal path length of that origin (how far the body travelled, not how far its
        contacts slipped), the normal force of every contact set (the force along its plane's
        normal, summed over the set's elements: needs CSVs with force columns) and the change of
        the total energy e_total since t = 0. With -y, one panel per chosen column instead.
        Writes PREFIX.png (default DIR/compare.png).

Every axis is labelled with its unit. Needs matplotlib (Debian: apt-get install
python3-matplotlib).
"""

import argparse
import csv
import glob
import math
import os
import sys

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
    """Columns of a CSV as lists of floats, keyed by header name, and the header in order."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        cols = [[] for _ in header]
        for row in reader:
            for i, v in enumerate(row[:len(header)]):
                try:
                    cols[i].append(float(v))
                except ValueError:
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
    """Name of the first body with a full pose (px and qw columns), or None."""
    for h in header:
        if h.endswith(".px"):
            body = h[:-3]
            if body + ".qw" in header:
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
        ax.legend(fontsize="small")
    axes[-1][0].set_xlabel(label("t", "s"))
    fig.suptitle(title)
    fig.tight_layout()
    return fig


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
    ax_f.set_ylabel(label("normal force of each contact set", "N"))
    if have_force:
        ax_f.legend(fontsize="small")
    else:
        ax_f.text(0.5, 0.5, "no force columns\n(run with --forces)", ha="center",
                  va="center", transform=ax_f.transAxes)
    ax_e.set_ylabel(label("e_total - e_total(0)", "J"))
    ax_e.ticklabel_format(axis="y", useOffset=False)
    for ax in axes.flat:
        ax.grid(True, alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel(label("t", "s"))
    ax_h.legend(fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


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
    """The runs of a compare --out-dir, one per model CSV (compare.csv, the table, skipped)."""
    runs = []
    for path in sorted(glob.glob(os.path.join(directory, "*.csv"))):
        with open(path, newline="") as f:
            first = f.readline()
        if not first.startswith("t,"):
            continue  # not a trajectory
        runs.append(load_run(path, columns))
    if not runs:
        sys.exit("plot.py: no trajectory CSV files in %s" % directory)
    return runs


def save(fig, out):
    fig.savefig(out, dpi=110)
    print(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("csv", nargs="?", help="CSV written by contactsim run")
    ap.add_argument("-y", help="comma-separated columns to plot against t")
    ap.add_argument("--compare", metavar="DIR", help="directory written by compare --out-dir")
    ap.add_argument("-o", "--output", help="output PNG (or prefix with --compare)")
    ap.add_argument("--title", help="figure title")
    args = ap.parse_args(argv)
    columns = [c for c in (args.y or "").split(",") if c]
    if not args.compare and not (args.csv and columns):
        ap.error("give RUN.csv -y COLUMNS, or --compare DIR [-y COLUMNS]")
    need_matplotlib()
    if args.compare:
        runs = load_compare(args.compare, columns)
        title = args.title or os.path.basename(os.path.normpath(args.compare))
        fig = columns_figure(runs, columns, title) if columns else compare_figure(runs, title)
        prefix = args.output
        out = (prefix if prefix.endswith(".png") else prefix + ".png") if prefix else \
            os.path.join(args.compare, "compare.png")
    else:
        run = load_run(args.csv, columns)
        fig = columns_figure([run], columns, args.title or os.path.basename(args.csv))
        out = args.output or os.path.splitext(args.csv)[0] + ".png"
    save(fig, out)


if __name__ == "__main__":
    main()
