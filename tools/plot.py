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

    tools/plot.py --sweep DIR [--metric NAME[,NAME...]] [-o OUTDIR] [--title TEXT]
        figures of a parameter study written by `contactsim sweep --out DIR`, from
        DIR/results.csv: for each metric (default: max_penetration, peak_normal_force,
        sliding_distance, energy_error) and each parameter that varies, the metric against
        that parameter with one line per model (the mean over the other parameters and the
        repeats; each run is a faint dot); for the first two varying parameters, a heat map
        per model. Failed and missing runs are drawn as crosses at the bottom of a line plot
        and as crossed cells of a heat map, never dropped. Writes
        OUTDIR/sweep_<metric>_vs_<parameter>.png and OUTDIR/sweep_<metric>_map.png (default
        OUTDIR: DIR/figures) and prints each path, then how many runs failed.
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


# ---------------------------------------------------------------------------------------------
# parameter studies (contactsim sweep)

SWEEP_METRICS = ["max_penetration", "peak_normal_force", "sliding_distance", "energy_error"]


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


def plot_sweep_line(rows, key, metric, models, out, title):
    """metric against one parameter, a line per model (means at each value), failures marked"""
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
    ax.set_xlabel(short_key(key))
    ax.set_ylabel(metric)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    print(out)


def plot_sweep_map(rows, kx, ky, metric, models, out, title):
    """heat map of metric over two parameters, a panel per model; failed cells crossed"""
    xs = sorted({as_number(r[kx]) for r in rows if as_number(r[kx]) is not None})
    ys = sorted({as_number(r[ky]) for r in rows if as_number(r[ky]) is not None})
    fig, axes = plt.subplots(1, len(models), figsize=(4.8 * len(models) + 1, 4.4),
                             squeeze=False)
    for ax, model in zip(axes[0], models):
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
        ax.set_xlabel(short_key(kx))
        ax.set_ylabel(short_key(ky))
        ax.set_title("%s (%d failed)" % (model, len(failed)) if failed else model, fontsize=9)
        fig.colorbar(im, ax=ax, label=metric)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    print(out)


def plot_sweep(directory, metrics, outdir, title):
    rows, keys = read_sweep(directory)
    if not rows:
        sys.exit("plot.py: %s/results.csv has no runs" % directory)
    missing = [m for m in metrics if m not in rows[0]]
    if missing:
        sys.exit("plot.py: no column %s in %s/results.csv" % (", ".join(missing), directory))
    models = list(dict.fromkeys(r["model"] for r in rows))
    # the parameters that vary and are numbers; the others (strings, lists) cannot be an axis
    varying = [k for k in keys if len({r[k] for r in rows}) > 1 and
               all(as_number(r[k]) is not None for r in rows)]
    outdir = outdir or os.path.join(directory, "figures")
    os.makedirs(outdir, exist_ok=True)
    title = title or os.path.basename(os.path.normpath(directory))
    for metric in metrics:
        for key in varying:
            plot_sweep_line(rows, key, metric, models,
                            os.path.join(outdir, "sweep_%s_vs_%s.png" % (metric, key)), title)
        if len(varying) >= 2:
            plot_sweep_map(rows, varying[0], varying[1], metric, models,
                           os.path.join(outdir, "sweep_%s_map.png" % metric), title)
    nbad = sum(r["status"] != "ok" for r in rows)
    print("%d of %d runs failed or missing (marked with red crosses)" % (nbad, len(rows))
          if nbad else "all %d runs ok" % len(rows))


def main():
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
    args = ap.parse_args()
    if args.sweep:
        metrics = [m for m in (args.metric or ",".join(SWEEP_METRICS)).split(",") if m]
        plot_sweep(args.sweep, metrics, args.output, args.title)
    elif args.compare:
        plot_compare(args.compare, args.output, args.title)
    elif args.csv and args.y:
        out = args.output or os.path.splitext(args.csv)[0] + ".png"
        plot_columns(args.csv, [c for c in args.y.split(",") if c], out, args.title)
    else:
        ap.error("give RUN.csv -y COLUMNS, --compare DIR or --sweep DIR")


if __name__ == "__main__":
    main()
