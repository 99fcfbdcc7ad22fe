#!/usr/bin/python3
"""plot.py: figures from contactsim CSV output (matplotlib, Agg backend: no display needed).

    tools/plot.py RUN.csv -y COL[,COL...] [-o OUT.png] [--title TEXT]
        plot the chosen columns of one run against t

    tools/plot.py --compare DIR [-o PREFIX] [--title TEXT]
        overlay the runs DIR/<model>.csv written by `contactsim compare --out-dir DIR`,
        one line per model, in four panels: height of the first free body (pz), its sliding
        distance (cumulative horizontal path length), the total normal force of the first
        contact set (sum of its fz columns; needs CSVs written with forces) and the change
        of the total energy e_total since t = 0 (its drift). Writes PREFIX.png (default
        DIR/compare.png).
"""

import argparse
import csv
import glob
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_csv(path):
    """Columns of a CSV as lists of floats, keyed by header name, in header order."""
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


def first_free_body(header):
    """Name of the first body with a full pose (px and qw columns), or None."""
    for h in header:
        if h.endswith(".px"):
            body = h[:-3]
            if body + ".qw" in header:
                return body
    return None


def sliding_distance(data, body):
    """Cumulative horizontal (x-y) path length of the body origin."""
    x, y = data[body + ".px"], data[body + ".py"]
    out, s = [0.0], 0.0
    for i in range(1, len(x)):
        s += math.hypot(x[i] - x[i - 1], y[i] - y[i - 1])
        out.append(s)
    return out


def normal_force(data, header):
    """Total normal force of the first contact set: its fz column, or the sum of the per-element
    fz columns of that set's elements (<set>.<i>.fz). None when the CSV has no force columns."""
    sets = [h[:-3] for h in header if h.endswith(".fz") and h[:-3] + ".copx" in header]
    if sets:
        return data[sets[0] + ".fz"]
    elems = [h for h in header if h.endswith(".fz")]
    if not elems:
        return None
    prefix = elems[0][:-3].rsplit(".", 1)[0] + "."
    cols = [data[h] for h in elems if h.startswith(prefix)]
    return [sum(v) for v in zip(*cols)]


def plot_columns(path, columns, out, title):
    data, header = read_csv(path)
    missing = [c for c in columns if c not in data]
    if missing:
        sys.exit("plot.py: %s has no column(s) %s (columns: %s)"
                 % (path, ", ".join(missing), ", ".join(header)))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for c in columns:
        ax.plot(data["t"], data[c], label=c, linewidth=1.2)
    ax.set_xlabel("t (s)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(title or os.path.basename(path))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


def plot_compare(directory, prefix, title):
    files = sorted(glob.glob(os.path.join(directory, "*.csv")))
    if not files:
        sys.exit("plot.py: no CSV files in %s" % directory)
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    (ax_h, ax_s), (ax_f, ax_e) = axes
    have_force = False
    for path in files:
        model = os.path.splitext(os.path.basename(path))[0]
        data, header = read_csv(path)
        if "t" not in data:
            continue  # compare.csv, the table itself, is not a trajectory
        t = data["t"]
        body = first_free_body(header)
        if body:
            ax_h.plot(t, [1e3 * z for z in data[body + ".pz"]], label=model, linewidth=1.1)
            ax_s.plot(t, sliding_distance(data, body), label=model, linewidth=1.1)
        fz = normal_force(data, header)
        if fz is not None:
            ax_f.plot(t, fz, label=model, linewidth=1.1)
            have_force = True
        if "e_total" in data:
            e0 = data["e_total"][0]
            ax_e.plot(t, [e - e0 for e in data["e_total"]], label=model, linewidth=1.1)
    ax_h.set_ylabel("height of %s (mm)" % (body or "body"))
    ax_s.set_ylabel("sliding distance (m)")
    ax_f.set_ylabel("normal force (N)")
    if not have_force:
        ax_f.text(0.5, 0.5, "no force columns\n(run with --forces)", ha="center",
                  va="center", transform=ax_f.transAxes)
    ax_e.set_ylabel("e_total - e_total(0) (J)")
    ax_e.ticklabel_format(axis="y", useOffset=False)
    for ax in axes.flat:
        ax.grid(True, alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("t (s)")
    ax_h.legend()
    fig.suptitle(title or os.path.basename(os.path.normpath(directory)))
    fig.tight_layout()
    out = (prefix if prefix.endswith(".png") else prefix + ".png") if prefix else \
        os.path.join(directory, "compare.png")
    fig.savefig(out, dpi=110)
    print(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("csv", nargs="?", help="CSV written by contactsim run")
    ap.add_argument("-y", help="comma-separated columns to plot against t")
    ap.add_argument("--compare", metavar="DIR", help="directory written by compare --out-dir")
    ap.add_argument("-o", "--output", help="output PNG (or prefix with --compare)")
    ap.add_argument("--title", help="figure title")
    args = ap.parse_args()
    if args.compare:
        plot_compare(args.compare, args.output, args.title)
    elif args.csv and args.y:
        out = args.output or os.path.splitext(args.csv)[0] + ".png"
        plot_columns(args.csv, [c for c in args.y.split(",") if c], out, args.title)
    else:
        ap.error("give RUN.csv -y COLUMNS, or --compare DIR")


if __name__ == "__main__":
    main()
