#!/usr/bin/env python3
"""`contactsim sweep --slurm` against a real Slurm: a one-node cluster on this machine (munged
with a key of its own, slurmctld and slurmd with a minimal slurm.conf, everything under a
temporary directory, ports chosen free), a study submitted as a job array, the array waited for,
the results gathered and compared row for row (failed runs and their messages included) with a
local sweep of the same study run from another directory; then a
"failed node" (records deleted), gather reporting the missing runs, a resubmission that runs only
the array tasks with missing runs, and the table complete again. The daemons are stopped by pid
at the end, also on failure.

Needs root and the Debian packages slurm-wlm and munge (tools/install-deps.sh installs them).
When they are not there the test FAILS with a message saying what is missing: it never skips.
Usage: test_slurm.py PATH/TO/contactsim"""
import csv
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

EXE = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENE = os.path.join(ROOT, "scenes", "bench", "incline_slide.json")
TIME_COLUMNS = {"cpu_seconds", "cpu_per_sim_second", "run_cpu_seconds", "wall_seconds"}
DEADLINE = 100  # s: the whole test, daemons included, stays under two minutes
T0 = time.time()
results = []


def report_and_exit():
    print(f"{sum(r is None for r in results)} passed, {sum(r is not None for r in results)} "
          f"failed")
    sys.exit(0 if results and all(r is None for r in results) else 1)


def fail_setup(msg):
    print(f"FAIL: slurm cluster: {msg}")
    results.append(AssertionError(msg))
    report_and_exit()


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def table(d):
    with open(os.path.join(d, "results.csv")) as f:
        return [{k: v for k, v in r.items() if k not in TIME_COLUMNS} for r in csv.DictReader(f)]


# ---------------------------------------------------------------------------------------------
# the cluster

class Cluster:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="contactsim-slurm-")
        os.chmod(self.dir, 0o755)
        self.pids = {}
        self.env = dict(os.environ, SLURM_CONF=os.path.join(self.dir, "slurm.conf"))

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def start(self):
        d = self.path
        for sub in ("munge", "state", "spool", "log"):
            os.mkdir(d(sub))
        os.chmod(d("munge"), 0o711)
        # munge: a key of our own, its socket in our directory
        with open(d("munge", "munge.key"), "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(d("munge", "munge.key"), 0o400)
        sock = d("munge", "munge.socket")
        subprocess.run(["munged", "--force", "--key-file", d("munge", "munge.key"),
                        "--socket", sock, "--pid-file", d("munge", "munged.pid"),
                        "--log-file", d("munge", "munged.log"),
                        "--seed-file", d("munge", "munged.seed")], check=True, timeout=20)
        self.pids["munged"] = d("munge", "munged.pid")
        host = socket.gethostname()
        conf = f"""ClusterName=contactsimtest
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
StateSaveLocation={d("state")}
SlurmdSpoolDir={d("spool")}
SlurmctldPidFile={d("slurmctld.pid")}
SlurmdPidFile={d("slurmd.pid")}
SlurmctldLogFile={d("log", "slurmctld.log")}
SlurmdLogFile={d("log", "slurmd.log")}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=300
KillWait=5
Waittime=0
NodeName={host} CPUs=2 RealMemory=500 State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""
        with open(self.env["SLURM_CONF"], "w") as f:
            f.write(conf)
        # the controller (clearing any state), then the node daemon; both fork into the
        # background and write their pid files
        subprocess.run(["slurmctld", "-i"], env=self.env, check=True, timeout=30)
        self.pids["slurmctld"] = d("slurmctld.pid")
        subprocess.run(["slurmd"], env=self.env, check=True, timeout=30)
        self.pids["slurmd"] = d("slurmd.pid")
        # wait for the node to be idle
        t = time.time()
        state = ""
        while time.time() - t < 40:
            p = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True,
                               text=True, timeout=10)
            state = p.stdout.strip()
            if state == "idle":
                return
            time.sleep(0.5)
        raise RuntimeError(f"the node did not become idle in 40 s (state '{state}'); "
                           f"slurmctld log:\n{self.tail('slurmctld.log')}")

    def tail(self, name):
        try:
            with open(self.path("log", name)) as f:
                return "".join(f.readlines()[-15:])
        except OSError:
            return "(no log)"

    def wait(self, job, limit):
        """wait until no task of the job is queued or running"""
        t = time.time()
        while time.time() - t < limit:
            p = subprocess.run(["squeue", "-h", "-j", job, "-o", "%i %T"], env=self.env,
                               capture_output=True, text=True, timeout=10)
            if p.returncode == 0 and not p.stdout.strip():
                return
            time.sleep(0.5)
        queue = subprocess.run(["squeue"], env=self.env, capture_output=True, text=True).stdout
        raise AssertionError(f"job {job} still in the queue after {limit} s:\n{queue}"
                             f"{self.tail('slurmctld.log')}")

    def stop(self):
        # cancel whatever is left, then the daemons by their pids, node first, munge last
        if "slurmctld" in self.pids:
            subprocess.run(["scancel", "--user=root"], env=self.env, capture_output=True,
                           timeout=10)
        for name in ("slurmd", "slurmctld", "munged"):
            path = self.pids.get(name)
            try:
                with open(path) as f:
                    pid = int(f.read().split()[0])
            except (OSError, ValueError, TypeError, IndexError):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            for _ in range(50):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------

missing = [b for b in ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel")
           if not shutil.which(b)]
if missing:
    fail_setup(f"cannot start Slurm: {', '.join(missing)} not found (install slurm-wlm and "
               f"munge: tools/install-deps.sh)")
if os.geteuid() != 0:
    fail_setup("cannot start Slurm: the test runs slurmctld, slurmd and munged itself and "
               "needs root (CI runs as root)")

cluster = Cluster()
try:
    try:
        cluster.start()
    except Exception as e:  # a daemon that does not start is a failure with its reason
        fail_setup(f"cannot start the one-node cluster: {e}")
    print(f"ok: cluster up in {time.time() - T0:.1f} s")
    work = tempfile.mkdtemp(prefix="contactsim-sweep-")
    study = os.path.join(work, "study.json")
    with open(study, "w") as f:
        json.dump({"scene": SCENE, "models": ["exponential_spring", "compliant_point"],
                   "set": {"simulation.duration": 0.2},
                   "parameters": [
                       {"key": "contact_models.exponential_spring.mu_static",
                        "values": [0.5, 0.7, 0.9]},
                       # -1: the scene refuses it, so every table has failed runs too
                       {"key": "bodies.block.mass", "values": [1, 10, 100, -1]}]}, f)
    # the local sweep from another working directory, with a relative study path: the tables
    # (error messages included) must not depend on where a process started
    local = os.path.join(work, "local")
    p = subprocess.run([EXE, "sweep", "study.json", "--out", "local", "-q"], capture_output=True,
                       text=True, timeout=60, cwd=work)

    def case(fn):
        try:
            fn()
            results.append(None)
            print(f"ok: {fn.__name__} ({time.time() - T0:.1f} s)")
        except Exception as e:
            results.append(e)
            print(f"FAIL: {fn.__name__}: {e!r}")
        return fn

    out = os.path.join(work, "slurm")

    @case
    def local_sweep():
        check(p.returncode == 1, f"exit {p.returncode} (some runs fail): {p.stderr}")
        rows = table(local)
        check(len(rows) == 24 and sum(r["status"] == "failed" for r in rows) == 6,
              "24 runs, 6 failed")

    @case
    def job_array_gives_the_local_table():
        q = subprocess.run([EXE, "sweep", study, "--out", out, "--slurm", "--runs-per-task",
                            "5", "--slurm-opt=--time=5"], env=cluster.env, capture_output=True,
                           text=True, timeout=60)
        check(q.returncode == 0, f"submission: {q.stderr}")
        job = q.stdout.strip()
        check(job.isdigit() and "--array=0-4" in q.stderr, f"job id '{job}': {q.stderr}")
        cluster.wait(job, DEADLINE - (time.time() - T0) - 30)
        # the last task merged the records by itself
        check(os.path.exists(os.path.join(out, "results.csv")),
              f"no results.csv after the array; task output: "
              f"{sorted(os.listdir(os.path.join(out, 'slurm')))}")
        check(table(out) == table(local), "the Slurm table differs from the local one")
        g = subprocess.run([EXE, "sweep", "--gather", out], capture_output=True, text=True)
        check(g.returncode == 1 and "18 ok, 6 failed, 0 missing" in g.stderr, g.stderr)
        # every task ran on the cluster, with its own output file
        outs = [f for f in os.listdir(os.path.join(out, "slurm")) if f.startswith("task-")]
        check(len(outs) == 5, f"task outputs {outs}")

    @case
    def lost_runs_are_reported_and_resubmitted_alone():
        # a "failed node": the records of runs 11 to 13 are lost
        for i in (11, 12, 13):
            os.remove(os.path.join(out, "runs", f"{i:08d}.rec"))
        g = subprocess.run([EXE, "sweep", "--gather", out], capture_output=True, text=True)
        check(g.returncode == 1 and "3 of 24 runs are missing: 11-13" in g.stderr, g.stderr)
        # resubmitting runs only tasks 2 (runs 10-14): the others have every record. The first
        # job has ended; a user's SQUEUE_STATES=all, which lists it as COMPLETED, is no obstacle
        q = subprocess.run([EXE, "sweep", study, "--out", out, "--slurm", "--runs-per-task",
                            "5"], env=dict(cluster.env, SQUEUE_STATES="all"),
                           capture_output=True, text=True, timeout=60)
        check(q.returncode == 0 and "--array=2 " in q.stderr, q.stderr)
        cluster.wait(q.stdout.strip(), DEADLINE - (time.time() - T0))
        check(table(out) == table(local), "the table after the resubmission differs")
        with open(os.path.join(out, "results.json")) as f:
            summary = json.load(f)["summary"]
        # every record in the table but the three it ran is reused, the other tasks' included
        check(summary["executed"] == 3 and summary["reused"] == 21, f"{summary}")

    @case
    def a_second_submission_waits_for_the_first():
        # a job held in the queue: none of its tasks runs, so nothing locks the directory
        held = os.path.join(work, "held")
        q = subprocess.run([EXE, "sweep", study, "--out", held, "--slurm", "--runs-per-task",
                            "12", "--slurm-opt=--hold"], env=cluster.env, capture_output=True,
                           text=True, timeout=60)
        check(q.returncode == 0, f"submission: {q.stderr}")
        job = q.stdout.strip()
        again = [EXE, "sweep", study, "--out", held, "--slurm", "--runs-per-task", "12"]
        # (a user's squeue defaults that would hide the job do not)
        r = subprocess.run(again, env=dict(cluster.env, SQUEUE_USERS="nobody",
                                           SQUEUE_PARTITION="nope"),
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and f"job {job}, submitted earlier" in r.stderr
              and "(PENDING)" in r.stderr and f"scancel {job}" in r.stderr, r.stderr)
        # a job sbatch reported with its cluster ("ID;CLUSTER", --clusters=NAME among the
        # options) is looked for in that cluster's queue. Slurm names clusters through its
        # database daemon, which this one-node Slurm does not run, so squeue cannot reach the
        # cluster: the submission is refused with squeue's reason, which names the cluster
        # asked for
        id_file = os.path.join(held, "slurm", "job_id")
        with open(id_file) as f:
            check(f.read() == job + "\n", "job_id should hold what sbatch printed")
        with open(id_file, "w") as f:
            f.write(f"{job};contactsimtest\n")
        r = subprocess.run(again, env=cluster.env, capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and f"cannot ask Slurm whether job {job}," in r.stderr
              and "'contactsimtest'" in r.stderr, r.stderr)
        with open(id_file, "w") as f:
            f.write(job + "\n")
        queued = subprocess.run(["squeue", "-h", "-o", "%i"], env=cluster.env,
                                capture_output=True, text=True, timeout=10).stdout.split()
        check(queued and all(j.startswith(job + "_") for j in queued),
              f"only job {job} should be queued: {queued}")
        # Slurm that cannot be asked (its configuration unreadable): refused with the reason,
        # not submitted blindly
        bad = os.path.join(work, "empty.conf")
        open(bad, "w").close()
        env = dict(cluster.env, SLURM_CONF=bad)
        r = subprocess.run(again, env=env, capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and f"cannot ask Slurm whether job {job}" in r.stderr
              and "configuration file" in r.stderr and "slurm/job_id" in r.stderr, r.stderr)
        # cancelled, it has left the queue: the next submission runs every run
        subprocess.run(["scancel", job], env=cluster.env, capture_output=True, timeout=10)
        cluster.wait(job, 30)
        r = subprocess.run(again, env=cluster.env, capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and "--array=0-1 " in r.stderr, r.stderr)
        cluster.wait(r.stdout.strip(), DEADLINE - (time.time() - T0))
        check(table(held) == table(local), "the table after the cancelled job differs")

    def second_submission(name, masses, extra, ready):
        """Submit a sweep of 600 s runs of SCENE (one per mass, extra options added; about 40 s
        of CPU each, so that a task seen running still runs when the second submission looks:
        runs of 30 s took 2 s, and one could end in between), wait until squeue's states of its
        job satisfy ready, submit it again: (the second's result, the job's id); the job is
        cancelled in the end"""
        slow = os.path.join(work, name + ".json")
        with open(slow, "w") as f:
            json.dump({"scene": SCENE, "models": ["exponential_spring"],
                       "set": {"simulation.duration": 600.0, "simulation.max_step": 1e-4},
                       "parameters": [{"key": "bodies.block.mass", "values": masses}]}, f)
        busy = os.path.join(work, name)
        args = [EXE, "sweep", slow, "--out", busy, "--slurm", *extra]
        q = subprocess.run(args, env=cluster.env, capture_output=True, text=True, timeout=60)
        check(q.returncode == 0, f"submission: {q.stderr}")
        job = q.stdout.strip()
        try:
            t = time.time()
            while time.time() - t < 30:
                state = subprocess.run(["squeue", "-h", "-j", job, "-o", "%T"], env=cluster.env,
                                       capture_output=True, text=True, timeout=10).stdout
                if ready(state, busy):
                    break
                time.sleep(0.2)
            check(ready(state, busy), f"the job's tasks did not get there: {state}")
            r = subprocess.run(args, env=cluster.env, capture_output=True, text=True, timeout=60)
            return r, job
        finally:
            subprocess.run(["scancel", job], env=cluster.env, capture_output=True, timeout=10)
            cluster.wait(job, 60)

    @case
    def a_second_submission_while_a_task_runs():
        # a task running holds DIR's lock: the second submission was refused as "another sweep
        # is running" (exit 2, as bad input) without naming the job; now exit 1 naming it, as
        # when every task waits in the queue
        r, job = second_submission(
            "busy", [1, 2], ["--runs-per-task", "2"],
            lambda state, busy: "RUNNING" in state and
            os.path.exists(os.path.join(busy, "sweep.json")))
        check(r.returncode == 1 and f"job {job}, submitted earlier" in r.stderr
              and "(RUNNING)" in r.stderr and f"scancel {job}" in r.stderr,
              (r.returncode, r.stderr))

    @case
    def a_second_submission_names_every_state_of_the_first():
        # one task running and the others pending (each takes the node's two CPUs): the
        # refusal said only the first line's state, (RUNNING), of a job mostly waiting
        r, job = second_submission(
            "busy3", [1, 2, 3], ["--runs-per-task", "1", "--slurm-opt=--cpus-per-task=2"],
            lambda state, busy: "RUNNING" in state and "PENDING" in state)
        check(r.returncode == 1 and f"job {job}, submitted earlier" in r.stderr
              and ("(RUNNING, PENDING)" in r.stderr or "(PENDING, RUNNING)" in r.stderr),
              (r.returncode, r.stderr))

    @case
    def a_directory_named_like_an_option():
        # a directory named like an option: sbatch took "-Jodd/slurm/sweep.sbatch" as a job
        # name and submitted whatever came on standard input; the script is now given as
        # ./-Jodd/...
        stray = os.path.join(work, "stray.sh")
        with open(stray, "w") as f:
            f.write("#!/bin/sh\ntouch " + os.path.join(work, "stray-ran") + "\n")
        with open(stray) as stdin:
            q = subprocess.run([EXE, "sweep", study, "--out=-Jodd", "--slurm", "--runs-per-task",
                                "24"], env=cluster.env, stdin=stdin, capture_output=True,
                               text=True, timeout=60, cwd=work)
        check(q.returncode == 0 and "./-Jodd/slurm/sweep.sbatch" in q.stderr, q.stderr)
        cluster.wait(q.stdout.strip(), DEADLINE - (time.time() - T0))
        check(not os.path.exists(os.path.join(work, "stray-ran")), "the stray script ran")
        check(table(os.path.join(work, "-Jodd")) == table(local), "the -Jodd table differs")

    @case
    def a_submission_without_a_job():
        # sbatch --test-only ends well and submits nothing: said so, not taken for a job
        probe = os.path.join(work, "probe")
        q = subprocess.run([EXE, "sweep", study, "--out", probe, "--slurm",
                            "--slurm-opt=--test-only"], env=cluster.env, capture_output=True,
                           text=True, timeout=60)
        check(q.returncode == 1 and "no job id" in q.stderr and not q.stdout.strip(), q.stderr)
        check(not os.path.exists(os.path.join(probe, "slurm", "job_id")), "a job_id was written")

    shutil.rmtree(work, ignore_errors=True)
finally:
    cluster.stop()
report_and_exit()
