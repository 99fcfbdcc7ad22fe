#!/usr/bin/env python3
"""bench_sweep.py: the cost of `contactsim sweep` beyond the simulations themselves, and its
parallel efficiency (docs/performance.md, "Sweeps").

    tools/bench_sweep.py [--exe build-rel/contactsim] [--study studies/bench_1000.json]
                         [--jobs 1,2] [--repeat 1]

Runs the study once per -j value into a fresh directory and reports, from the process times of
the whole sweep (parent and workers, getrusage of the children) and the per-run columns of
results.csv:
  - wall time and total CPU time of the sweep;
  - the sum over runs of the integration CPU (cpu_seconds, what compare reports) and of each
    worker's whole CPU (run_cpu_seconds: loading the scene, the run, its statistics);
  - overhead per run: (total CPU - sum of integration CPU) / runs, everything the sweep spends
    that is not integration (fork, loading, statistics, records, the merge), and the same in
    wall time at -j 1: (wall - sum of integration CPU) / runs;
  - with --independent, the wall time of two -j 1 processes running half the runs each at
    once: the best two workers can do on this machine with no sweep machinery between them;
  - parallel efficiency: wall(-j 1) / (N wall(-j N)), and how much of the time the N worker
    slots were busy: sum of the runs' wall times (each measured inside its worker) / (N wall).
"""
import argparse
import csv
import os
import resource
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exe", default=os.path.join(ROOT, "build-rel", "contactsim"))
    ap.add_argument("--study", default=os.path.join(ROOT, "studies", "bench_1000.json"))
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--independent", action="store_true",
                    help="also run the study as two -j 1 processes at once (task ranges of "
                         "half the runs each): what two cores give with no sweep between them")
    args = ap.parse_args()
    rows = []
    for rep in range(args.repeat):
        for j in [int(x) for x in args.jobs.split(",")]:
            d = tempfile.mkdtemp(prefix="bench-sweep-")
            cpu0, t0 = children_cpu(), time.monotonic()
            p = subprocess.run([args.exe, "sweep", args.study, "--out", d, "-j", str(j), "-q"])
            wall, cpu = time.monotonic() - t0, children_cpu() - cpu0
            with open(os.path.join(d, "results.csv")) as f:
                runs = list(csv.DictReader(f))
            shutil.rmtree(d)
            n = len(runs)
            integ = sum(float(r["cpu_seconds"] or 0) for r in runs)
            worker = sum(float(r["run_cpu_seconds"] or 0) for r in runs)
            busy = sum(float(r["wall_seconds"] or 0) for r in runs)
            rows.append((j, n, p.returncode, wall, cpu, integ, worker))
            print(f"-j {j}: {n} runs (exit {p.returncode}), wall {wall:.3f} s, CPU {cpu:.3f} s, "
                  f"integration {integ:.3f} s, workers {worker:.3f} s; overhead per run "
                  f"{1e3 * (cpu - integ) / n:.2f} ms CPU" +
                  (f", {1e3 * (wall - integ) / n:.2f} ms wall" if j == 1 else "") +
                  f"; workers busy {busy / (j * wall):.3f} of the time", flush=True)
        if args.independent:
            d = tempfile.mkdtemp(prefix="bench-sweep-")
            plan = subprocess.run([args.exe, "sweep", args.study, "--dry-run"],
                                  capture_output=True, text=True).stdout
            n = len(plan.splitlines()) - 1
            t0 = time.monotonic()
            ps = [subprocess.Popen([args.exe, "sweep", args.study, "--out", d, "-j", "1", "-q",
                                    "--task-range", r]) for r in (f"0:{n // 2}", f"{n // 2}:{n}")]
            for p in ps:
                p.wait()
            print(f"two -j 1 processes at once, half the runs each: wall "
                  f"{time.monotonic() - t0:.3f} s", flush=True)
            shutil.rmtree(d)
    best = {}
    for j, n, _, wall, *_ in rows:
        best[j] = min(best.get(j, wall), wall)
    if 1 in best:
        for j, w in sorted(best.items()):
            if j > 1:
                print(f"parallel efficiency -j {j}: {best[1] / (j * w):.3f} "
                      f"(wall {best[1]:.3f} s at -j 1, {w:.3f} s at -j {j})")


if __name__ == "__main__":
    main()
