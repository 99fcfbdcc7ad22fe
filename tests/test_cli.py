#!/usr/bin/env python3
"""The contactsim command line: exit codes, error messages naming file and JSON path, CSV shape,
valid partial output after a failure, determinism. Usage: test_cli.py PATH/TO/contactsim"""
import csv
import glob
import hashlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

from casekit import (as_nobody, case, check, finish, nobody_scene, nohup, read_state,
                     replay_env)

EXE = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, timeout=120, env=None):
    p = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def write_scene(obj, name="scene.json"):
    d = tempfile.mkdtemp()
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(obj, f)
    return path


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(x) for x in r] for r in rows[1:]]


PENDULUM = {
    "name": "pendulum", "gravity": [0, 0, -9.81],
    "bodies": [{"name": "arm", "mass": 1.0, "com": [0, 1, 0], "inertia": {"diag": [1e-3, 1e-3, 1e-3]},
                "joint": {"type": "pin", "parent": "ground",
                          "parent_frame": {"rotation": {"axis": [1, 0, 0], "angle_deg": -90}},
                          "q": [1.0], "u": [0.0]}}],
    "simulation": {"duration": 2.0, "report_interval": 0.01, "rtol": 1e-8, "atol": 1e-10},
}


@case
def energy_error_of_a_start_without_energy():
    """the pendulum released level from rest holds no energy at the start (E0 = 0: the
    potential's zero is at the pivot); the balance is relative to the largest energy it held,
    m g L, so an accurate run reads a small error, as the summary's drift says (it read 6e6)"""
    scene = json.loads(json.dumps(PENDULUM))
    scene["bodies"][0]["joint"]["q"] = [math.pi / 2]
    d = tempfile.mkdtemp()
    stats = os.path.join(d, "s.json")
    code, _, err = run("run", write_scene(scene), "-o", os.devnull, "--stats", stats)
    check(code == 0, err)
    with open(stats) as f:
        st = json.load(f)
    check(st["energy_error"] < 1e-4, st["energy_error"])
    m = re.search(r"drifted (\S+) J \((\S+) relative\)", err)
    check(m and abs(float(m.group(2))) < 1e-6 and abs(float(m.group(1))) < 1e-5 * 9.81, err)


@case
def resumed_run_is_not_a_placement():
    """a run resumed from a checkpoint taken mid-bounce starts inside the floor by the motion,
    not by a placement: no "kicked off" warning, while the same state is one at t = 0"""
    d = tempfile.mkdtemp()
    ck = os.path.join(d, "ck")
    code, _, err = run("run", "scenes/sphere_drop.json", "--duration", "0.32", "-o", os.devnull,
                       "-q", "--save-state", ck)
    check(code == 0, err)
    code, _, err = run("run", "scenes/sphere_drop.json", "--initial-state", ck, "-o", os.devnull)
    check(code == 0 and "kicked off" not in err, err)
    # the same contact at the start of a run, placed there: warned of
    scene = json.load(open(os.path.join(ROOT, "scenes", "sphere_drop.json")))
    scene["bodies"][0]["joint"]["initial"]["position"] = [0, 0, 0.1 - 0.00223]
    code, _, err = run("run", write_scene(scene), "--duration", "0.01", "-o", os.devnull)
    check(code == 0 and "kicked off" in err, err)


@case
def summary_names_a_lone_peak():
    """the overall peak normal force from an element outside every contact set is named as
    that element's, with the strongest set's sum beside it, not as the set's"""
    scene = json.load(open(os.path.join(ROOT, "scenes", "sphere_drop.json")))
    heavy = json.loads(json.dumps(scene["bodies"][0]))
    heavy["name"] = "heavy"
    heavy["mass"] = 5.0
    heavy["joint"]["initial"]["position"] = [2, 0, 0.6]
    scene["bodies"].append(heavy)
    hc = scene["contact_models"]["hunt_crossley"]
    scene.setdefault("forces", []).append(dict(
        {k: v for k, v in hc.items() if k in ("plane_strain_modulus", "dissipation", "mu_static",
                                             "mu_dynamic", "mu_viscous", "transition_velocity")},
        type="hunt_crossley", name="lone", body="heavy", plane="floor", center=[0, 0, 0],
        radius=0.1))
    d = tempfile.mkdtemp()
    stats = os.path.join(d, "s.json")
    code, _, err = run("run", write_scene(scene), "--duration", "0.5", "-o", os.devnull,
                       "--stats", stats)
    check(code == 0, err)
    with open(stats) as f:
        st = json.load(f)
    lone = st["peak_normal_force_elements"]["lone"]
    check(abs(st["peak_normal_force"] - lone) <= 1e-9 * lone, st)
    check(max(st["peak_normal_force_sets"].values()) < lone, st)
    line = [x for x in err.splitlines() if "peak normal force" in x]
    check(line and "(lone)" in line[0] and "summed over contact set" in line[0], err)


@case
def integrator_and_element_warnings_are_diagnostics():
    """a bushing near gimbal lock (its block turned 90 degrees about y) warns in the summary
    and, as every diagnostic, in --stats (it was a summary line alone: --stats, compare and
    Python had none of it)"""
    d = tempfile.mkdtemp()
    stats = os.path.join(d, "stats.json")
    code, _, err = run("run", "scenes/bushing_hang.json", "-o", os.devnull, "--duration", "0.2",
                       "--set", 'bodies.block.joint.initial.orientation={"axis": [0, 1, 0], '
                       '"angle_deg": 90}', "--stats", stats)
    check(code == 0, err)
    said = [line for line in err.splitlines() if "middle Euler angle" in line]
    check(len(said) == 1 and said[0].startswith("  warning: a linear bushing's"), err)
    diagnostics = json.load(open(stats))["diagnostics"]
    check(any("middle Euler angle came within reach of 90 degrees" in n for n in diagnostics),
          diagnostics)


def sliding_blocks(n):
    """n independent 1 kg blocks sliding at 0.5 m/s on compliant points with a transition speed
    of 4 mm/s (each its own group of bodies)"""
    corners = [[x, y, -0.05] for y in (-0.05, 0.05) for x in (-0.05, 0.05)]
    material = {"penalty_stiffness": 2e5, "dissipation": 20, "mu_static": 0.8,
                "mu_dynamic": 0.6}
    return {
        "name": f"blocks{n}", "gravity": [0, 0, -9.81],
        "bodies": [{"name": f"b{i}", "mass": 1.0, "inertia": {"box": [0.05, 0.05, 0.05]},
                    "joint": {"type": "free", "initial": {"position": [0.5 * i, 0, 0.049975],
                                                         "velocity": [0.5, 0, 0]}}}
                   for i in range(n)],
        "planes": [{"name": "floor"}],
        "contacts": [{"name": f"c{i}", "body": f"b{i}", "plane": "floor", "points": corners}
                     for i in range(n)],
        "contact_models": {"default": "compliant_point", "compliant_point": {
            "body_material": material, "plane_material": material,
            "transition_velocity": 0.004}},
        "simulation": {"duration": 1.0, "report_interval": 0.01, "rtol": 1e-5, "atol": 1e-5},
    }


@case
def the_transition_velocity_warning_counts_one_group_s_steps():
    """the small-transition-velocity warning fires for a group of bodies that took more than
    20000 steps, not for a hundred blocks that took as many between them (each a few hundred:
    it blamed their friction for short steps they never took)"""
    many = write_scene(sliding_blocks(100))
    code, _, err = run("run", many, "-o", os.devnull)
    steps = int(re.search(r"steps (\d+),", err).group(1))
    check(code == 0 and steps > 20000 and "transition_velocity" not in err, (steps, err))
    # two blocks held to 50 us steps: 30000 each
    two = write_scene(sliding_blocks(2))
    code, _, err = run("run", two, "-o", os.devnull, "--max-step", "5e-5", "--duration", "1.5")
    check(code == 0 and re.search(r"warning: the run took 300\d\d steps in its busiest group of "
                                  r"bodies, and contact 'c0' \(compliant_point\) uses "
                                  r"transition_velocity = 0.004 m/s", err), err)


@case
def help_exits_zero():
    code, out, _ = run("--help")
    check(code == 0 and "usage" in out, "--help")
    # and names the ways in that it does not list as commands (so does the man page made of it)
    check("contactsim --help | --version" in out and "help COMMAND" in out, out[:400])


@case
def unknown_command_is_usage_error():
    code, _, err = run("frobnicate")
    check(code == 2 and "frobnicate" in err, (code, err))


@case
def missing_file_names_it():
    code, _, err = run("run", "no/such/scene.json")
    check(code == 2 and "no/such/scene.json" in err, (code, err))


@case
def bad_option_values():
    path = write_scene(PENDULUM)
    # (what strtod reads beyond decimal numbers too: hexadecimal, leading space)
    for args in (["--rtol", "-1"], ["--duration", "0"], ["--integrator", "rk4"], ["--atol", "x"],
                 ["--rtol", "0x10"], ["--duration", " 1"], ["--report-interval", "1e-2 "],
                 ["--max-steps", " 5"]):
        code, _, err = run("run", path, "-q", *args)
        check(code == 2 and args[0].lstrip("-") in err, (args, code, err))
    # numbers below the smallest normal double are values, judged by the option's own limit
    # ("needs a positive number" was said of 5e-324); an atol whose reciprocal is beyond doubles
    # is refused here as in the scene (it passed validate, then every step failed, blamed on
    # the forces)
    for args, says in ((["--duration", "5e-324"], "--duration must be at least 1e-09 s"),
                       (["--report-interval", "5e-324"], "--report-interval must be at least"),
                       (["--atol", "1e-310"], "--atol must be at least 1e-300, not '1e-310'"),
                       # below the smallest double strtod reads 0: no limit, for --max-step
                       (["--max-step", "1e-400"], "--max-step: '1e-400' is below the smallest"),
                       (["--set", "simulation.atol=1e-310"], "simulation.atol: must be at least")):
        code, _, err = run("run", path, "-q", "-o", os.devnull, *args)
        check(code == 2 and says in err, (args, code, err))
    code, _, err = run("validate", path, "--set", "simulation.atol=1e-310")
    check(code == 2 and "simulation.atol" in err, (code, err))


@case
def long_names_keep_the_error_s_path_and_reason():
    # the error line is made safe whole: a 1 KiB buffer cut it after a long file name (legal on
    # Linux) or a long key, before the JSON path and what is wrong
    deep = os.path.join(tempfile.mkdtemp(), *(["d" * 200] * 5))
    os.makedirs(deep)
    scene = dict(PENDULUM)
    scene["bodies"] = [dict(PENDULUM["bodies"][0], mass=-1)]
    path = os.path.join(deep, "s.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    code, _, err = run("validate", path)
    check(code == 2 and err.rstrip().endswith("bodies[0].mass: must be > 0, got -1"), (code, err))
    code, _, err = run("validate", write_scene(dict(PENDULUM, **{"k" * 5000: 1})))
    check(code == 2 and "unknown key" in err, (code, err[-300:]))
    code, _, err = run("validate", write_scene(PENDULUM), "--set",
                       "bodies." + "x" * 100000 + ".mass=1")
    check(code == 2 and "no body named" in err, (code, err[-300:]))


@case
def bad_input_corpus():
    manifest = os.path.join(ROOT, "tests/data/bad/expected.txt")
    check(os.path.exists(manifest), "tests/data/bad/expected.txt is missing")
    n = 0
    for line in open(manifest):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, substring, code = line.split()[:3]
        path = os.path.join("tests/data/bad", name)
        for cmd in ("validate", "run"):
            got, _, err = run(cmd, path, "-q") if cmd == "run" else run(cmd, path)
            check(got == int(code), f"{cmd} {name}: exit {got}, expected {code}; stderr: {err}")
            check(name in err, f"{cmd} {name}: the message does not name the file: {err}")
            if substring != "-":
                check(substring in err, f"{cmd} {name}: '{substring}' not in: {err}")
        n += 1
    check(n >= 15, f"only {n} bad-input cases")


@case
def bundled_scenes_validate():
    scenes = sorted(glob.glob(os.path.join(ROOT, "scenes", "**", "*.json"), recursive=True))
    check(scenes, "no scenes")
    for s in scenes:
        code, out, err = run("validate", s)
        check(code == 0, f"{s}: {err}")


@case
def run_writes_csv_columns_and_conserves_energy():
    path = write_scene(PENDULUM)
    out = os.path.join(os.path.dirname(path), "out.csv")
    code, _, err = run("run", path, "-o", out)
    check(code == 0, err)
    check("energy" in err and "steps" in err, "summary missing: " + err)
    header, rows = read_csv(out)
    expected = (["t"] + [f"arm.{c}" for c in ("px", "py", "pz", "qw", "qx", "qy", "qz", "vx",
                                               "vy", "vz", "wx", "wy", "wz")]
                + ["arm.q0", "arm.u0", "ke", "pe", "dissipated", "e_total"])
    check(header == expected, header)
    check(len(rows) == 201, len(rows))
    check(abs(rows[-1][0] - 2.0) < 1e-12 and rows[0][0] == 0.0, "report times")
    for r in rows:
        check(math.isclose(r[0], round(r[0] / 0.01) * 0.01, abs_tol=1e-12), f"t = {r[0]}")
    e = [r[-1] for r in rows]
    scale = max(abs(x) for x in e)
    check(max(e) - min(e) < 1e-5 * scale, f"energy drift {max(e) - min(e)} of {scale}")
    # the arm's COM is 1 m from the pivot: the body origin stays at the pivot
    for r in rows:
        check(abs(r[1]) + abs(r[2]) + abs(r[3]) < 1e-9, "body origin moved off the pivot")


@case
def overrides_from_command_line():
    path = write_scene(PENDULUM)
    out = os.path.join(os.path.dirname(path), "out.csv")
    code, _, err = run("run", path, "-o", out, "-q", "--duration", "0.5", "--report-interval",
                       "0.1", "--integrator", "adams", "--rtol", "1e-7")
    check(code == 0 and err == "", (code, err))
    _, rows = read_csv(out)
    check([round(r[0], 9) for r in rows] == [0, 0.1, 0.2, 0.3, 0.4, 0.5], [r[0] for r in rows])


def step_starved_pendulum():
    """the pendulum at tolerances too tight for its step budget: the run fails with "too much
    work" before 5 s"""
    scene = json.loads(json.dumps(PENDULUM))
    scene["simulation"].update({"duration": 5.0, "report_interval": 0.5, "max_steps": 40,
                                "rtol": 1e-10, "atol": 1e-12})
    return scene


@case
def solver_failure_exits_1_and_keeps_valid_csv():
    scene = step_starved_pendulum()
    path = write_scene(scene)
    out = os.path.join(os.path.dirname(path), "out.csv")
    code, _, err = run("run", path, "-o", out)
    check(code == 1, (code, err))
    check("too much work" in err and "t = " in err, err)
    # the hint says where the limit is raised, in a scene and on the command line
    check("raise max_steps (simulation.max_steps in the scene, --max-steps on the command line)"
          in err, err)
    # on exponential springs with blended anchors too, beside what runs such scenes: a step
    # limit of 1 is the cause there, which the message left out
    code, _, err = run("run", "scenes/exp_spring_block.json", "-o", os.devnull, "-q",
                       "--max-steps", "1")
    check(code == 1 and "raise max_steps" in err and "anchor_rule" in err, (code, err))
    with open(out) as f:
        text = f.read()
    check(text.endswith("\n"), "last line incomplete")
    header, rows = read_csv(out)
    check(len(rows) >= 1 and all(len(r) == len(header) for r in rows), "ragged rows")
    check(rows[-1][0] < 5.0, "the run should have stopped early")


def summary_energies(err):
    """the summary's KE, PE and dissipated energy, as printed"""
    m = re.search(r"energy: (KE \S+ J, PE \S+ J, dissipated \S+ J)", err)
    check(m, err)
    return m.group(1)


@case
def a_failed_run_ends_at_its_last_accepted_step():
    # after a failure the summary, the checkpoint and the time the run stopped at describe the
    # last accepted step, not the solver's failed try (whose kinetic energy the summary printed,
    # slightly off, while the checkpoint held the last CSV row): the checkpoint is that step's
    # state, past the last row, with the energies the summary printed (the first row of a run
    # continued from it)
    scene = step_starved_pendulum()
    path = write_scene(scene)
    d = os.path.dirname(path)
    out, ck, again = (os.path.join(d, n) for n in ("out.csv", "fail.state", "again.csv"))
    for integrator in ("bdf", "rk", "ark"):
        code, _, err = run("run", path, "-o", out, "--integrator", integrator, "--save-state", ck)
        check(code == 1 and "too much work" in err, (integrator, code, err))
        state = read_state(ck)
        _, rows = read_csv(out)
        check(state["t"] > rows[-1][0], (integrator, state["t"], rows[-1][0]))
        check("state at t = %.9g s (the last accepted state) saved" % state["t"] in err,
              (integrator, err))
        check("stopped at t = %.6g s;" % state["t"] in err, (integrator, err))
        code, _, err2 = run("run", path, "-q", "-o", again, "--initial-state", ck, "--duration",
                            repr(state["t"] + 0.01))
        check(code == 0, (integrator, err2))
        header, rows2 = read_csv(again)
        row = dict(zip(header, rows2[0]))
        check(summary_energies(err) == "KE %.6g J, PE %.6g J, dissipated %.6g J" % (
            row["ke"], row["pe"], row["dissipated"]), (integrator, err, row))
        check(row["t"] == state["t"] and row["arm.q0"] == state["q"][0]
              and row["arm.u0"] == state["u"][0], (integrator, rows2, state))


@case
def a_failed_run_of_independent_bodies_ends_at_its_last_row():
    # two pendulums that share nothing are integrated apart, and after a failure they stand
    # together only where the last CSV row was written: the summary, the checkpoint and that
    # row agree, bit for bit
    scene = step_starved_pendulum()
    other = json.loads(json.dumps(scene["bodies"][0]))
    other["name"] = "arm2"
    other["joint"]["q"] = [0.5]
    scene["bodies"].append(other)
    path = write_scene(scene)
    d = os.path.dirname(path)
    out, ck = os.path.join(d, "out.csv"), os.path.join(d, "fail.state")
    for integrator in ("bdf", "rk"):
        code, _, err = run("run", path, "-o", out, "--integrator", integrator, "--save-state", ck)
        check(code == 1 and "too much work" in err, (integrator, code, err))
        header, rows = read_csv(out)
        state = read_state(ck)
        last = dict(zip(header, rows[-1]))
        check(state["t"] == last["t"] and state["q"] == [last["arm.q0"], last["arm2.q0"]] and
              state["u"] == [last["arm.u0"], last["arm2.u0"]], (integrator, state, last))
        check("stopped at t = %.6g s;" % last["t"] in err, (integrator, err))
        check("KE %.6g J, PE %.6g J" % (last["ke"], last["pe"]) in err, (integrator, err))


@case
def a_failed_run_prints_no_nan_energies():
    # forces of 1e308 N (finite, so the scene loads) give NaN trial states on the first step:
    # the summary says the energies are not finite there rather than print "-nan", with every
    # integrator
    scene = {"bodies": [{"name": "b", "mass": 1.0, "inertia": {"diag": [0.1, 0.1, 0.1]},
                         "joint": {"type": "free", "parent": "ground"}}],
             "forces": [{"type": "constant", "name": "push", "body": "b",
                         "force": [1e308, 0, 0]}],
             "simulation": {"duration": 1}}
    path = write_scene(scene)
    out = os.path.join(os.path.dirname(path), "out.csv")
    for integrator in ("bdf", "adams", "rk", "ark"):
        code, _, err = run("run", path, "-o", out, "--integrator", integrator)
        check(code == 1 and "collapsed to h = 0 s at t = 0 s" in err, (integrator, code, err))
        check(("energy: KE 0 J, PE 0 J" in err or "energy: not finite in the state the run "
               "stopped in" in err) and "nan" not in err, (integrator, err))


@case
def a_first_step_too_long_and_too_much_work_are_said_as_such():
    """free fall reported every 1e299 s: CVODE's first step, estimated from the distance to the
    first report (5.7e32 s), fails at t = 0; the run says so (it said the step collapsed,
    blaming the forces) and stands at the initial state (its CSV row, the summary's energies and
    the statistics' final pose were zeros: the failed step's output). Reported every 1e14 s,
    steps of 0.06 s exhaust max_steps: too much work, not a collapse."""
    path = os.path.join(ROOT, "scenes", "free_fall.json")
    d = tempfile.mkdtemp()
    stats = os.path.join(d, "s.json")
    code, _, err = run("run", path, "-o", os.devnull, "--duration", "1e300",
                       "--report-interval", "1e299", "--stats", stats)
    check(code == 1 and "the first step from t = 0 s failed" in err and
          "give simulation.initial_step or max_step" in err and "collapsed" not in err, err)
    start = json.load(open(path))["bodies"][0]["joint"]["initial"]["position"]
    pose = json.load(open(stats))["final_pose"]["box"]
    check(pose["position"] == start, (pose, start))
    check("drifted 0 J (0 relative)" in err, err)
    code, _, err = run("run", path, "-o", os.devnull, "--duration", "1e15",
                       "--report-interval", "1e14")
    check(code == 1 and "too much work: more than 100000 steps" in err and
          "collapsed" not in err, err)
    # a first step that shrank to nothing (a ball thrown into a floor of absurd dissipation)
    # collapsed, at t = 0 too: not the first-step message and its advice
    code, _, err = run("run", "scenes/sphere_drop.json", "-o", os.devnull, "--set",
                       "contact_models.hunt_crossley.dissipation=1e50", "--set",
                       "bodies.ball.joint.initial.position=[0,0,0.0999]", "--set",
                       "bodies.ball.joint.initial.velocity=[0,0,-3]")
    check(code == 1 and "the step size collapsed to h = " in err and "first step" not in err,
          err)


@case
def a_report_interval_of_1e200_runs():
    # CVODE's first step is scaled by the distance to the next report: at 1e200 s its estimate
    # overflowed to NaN and the run failed at t = 0, blaming the forces
    scene = json.loads(json.dumps(PENDULUM))
    scene["simulation"].update({"duration": 1e200, "report_interval": 1e200})
    scene["bodies"][0]["joint"].update({"q": [0.0], "u": [0.0]})
    scene["gravity"] = [0, 0, 0]  # at rest: nothing to follow over the 1e200 s
    path = write_scene(scene)
    out = os.path.join(os.path.dirname(path), "out.csv")
    for integrator in ("bdf", "adams", "rk"):
        code, _, err = run("run", path, "-o", out, "-q", "--integrator", integrator)
        check(code == 0, (integrator, err))
        _, rows = read_csv(out)
        check([r[0] for r in rows] == [0.0, 1e200], (integrator, [r[0] for r in rows]))


@case
def same_run_same_bytes():
    path = write_scene(PENDULUM)
    d = os.path.dirname(path)
    digests = []
    for i in range(2):
        out = os.path.join(d, f"out{i}.csv")
        code, _, err = run("run", path, "-o", out, "-q")
        check(code == 0, err)
        digests.append(hashlib.sha256(open(out, "rb").read()).hexdigest())
    check(digests[0] == digests[1], "two runs of one scene differ")


@case
def readme_scene_example_runs():
    import re
    text = open(os.path.join(ROOT, "README.md")).read()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    check(blocks, "README has no JSON example")
    for block in blocks:
        path = write_scene(json.loads(block))
        code, _, err = run("run", path, "-q", "-o", os.path.join(os.path.dirname(path), "o.csv"))
        check(code == 0, f"README example does not run: {err}")


@case
def dash_output_is_standard_output():
    # "-o -" writes the CSV to standard output, the same bytes as a file, and creates no file "-"
    path = write_scene(PENDULUM)
    d = os.path.dirname(path)
    out = os.path.join(d, "file.csv")
    code, _, err = run("run", path, "-o", out, "-q")
    check(code == 0, err)
    p = subprocess.run([EXE, "run", path, "-o", "-", "-q"], capture_output=True, text=True,
                       timeout=120, cwd=d)
    check(p.returncode == 0, p.stderr)
    check(p.stdout == open(out).read(), "the CSV on standard output differs from the file")
    check(not os.path.exists(os.path.join(d, "-")), "a file named '-' was written")


@case
def unwritable_output_is_usage_error():
    path = write_scene(PENDULUM)
    code, _, err = run("run", path, "-o", "/nonexistent-dir/out.csv")
    check(code == 2 and "/nonexistent-dir/out.csv" in err, (code, err))


@case
def damped_spinning_block_converges_and_settles():
    # block_spin_slide with exponential springs and normal damping cz = 2 s/m, well enough
    # damped that its outcome does not hinge on rounding (with the seed's cz = 0.5 s/m the block
    # rocks for seconds and a 1e-12 m/s change of the initial velocity moves its final position
    # by millimetres; docs/performance.md). Independent answers: the solution at tolerances 100x
    # tighter, and the static equilibrium, where the four bottom springs carry the weight:
    # d1 exp(-d2 (pz - d0)) = m g / 4 at each corner, 0.1 m below the centre.
    with open(os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")) as f:
        scene = json.load(f)
    scene["contact_models"]["exponential_spring"]["cz"] = 2.0
    path = write_scene(scene)
    finals = {}
    for tol in ("1e-5", "1e-7"):
        out = os.path.join(os.path.dirname(path), "block_%s.csv" % tol)
        code, _, err = run("run", path, "--rtol", tol, "--atol", tol, "-q", "-o", out)
        check(code == 0, err)
        header, rows = read_csv(out)
        finals[tol] = dict(zip(header, rows[-1]))
    a, b = ([r["block.p" + k] for k in "xyz"] for r in (finals["1e-5"], finals["1e-7"]))
    dist = math.dist(a, b)
    check(dist < 1e-3, f"final position moves {dist * 1e3:.3g} mm when tolerances tighten 100x")
    # the sliding really happened: the block travelled well over a metre
    check(b[0] > 1.0, f"block ended at x = {b[0]}")
    d0, d1, d2, m, g = 0.0065905, 0.5336, 1150.0, 10.0, 9.81
    z_rest = 0.1 + d0 - math.log(m * g / (4 * d1)) / d2
    check(abs(b[2] - z_rest) < 1e-6, f"rest height {b[2]} vs {z_rest}")
    ke = finals["1e-7"]["ke"]
    check(ke < 1e-6, f"kinetic energy {ke} J at the end: the block should be at rest")


# ---------------------------------------------------------------------------------------------
# interrupted runs: complete rows, a summary, exit 128 + signal

LONG = ["--duration", "1000", "--report-interval", "0.001"]


def csv_rows_complete(data, what):
    """Every line of data (bytes) is a whole row: it ends in a newline, has the header's number
    of fields, and every field is a number; the times are consecutive report times."""
    check(data.endswith(b"\n"), f"{what}: the last line is incomplete: {data[-80:]!r}")
    lines = data.decode().splitlines()
    header = lines[0].split(",")
    times = []
    for i, line in enumerate(lines[1:]):
        fields = line.split(",")
        check(len(fields) == len(header), f"{what}: row {i} has {len(fields)} of {len(header)} fields")
        values = [float(x) for x in fields]
        times.append(values[0])
    for i, t in enumerate(times):
        check(abs(t - 0.001 * i) < 1e-9, f"{what}: row {i} at t = {t}")
    return times


def wait_for_rows(path_or_none, proc, min_bytes=200000, timeout=20):
    """Wait until the CSV file has min_bytes (or a fixed time for a pipe)."""
    import time
    t0 = time.time()
    while time.time() - t0 < timeout:
        if path_or_none and os.path.exists(path_or_none) and os.path.getsize(path_or_none) > min_bytes:
            return
        if not path_or_none and time.time() - t0 > 0.8:
            return
        check(proc.poll() is None, "the run ended before it could be interrupted")
        time.sleep(0.02)


def interrupt(sig, to_pipe):
    import signal
    scene = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
    d = tempfile.mkdtemp()
    out = os.path.join(d, "out.csv")
    stats = os.path.join(d, "stats.json")
    args = [EXE, "run", scene, *LONG, "--stats", stats] + ([] if to_pipe else ["-o", out])
    p = subprocess.Popen(args, stdout=subprocess.PIPE if to_pipe else subprocess.DEVNULL,
                         stderr=subprocess.PIPE, cwd=ROOT)
    chunks = []
    if to_pipe:
        import threading
        reader = threading.Thread(target=lambda: chunks.append(p.stdout.read()))
        reader.start()
    wait_for_rows(None if to_pipe else out, p)
    p.send_signal(sig)
    err = p.stderr.read().decode()
    code = p.wait(timeout=30)
    if to_pipe:
        reader.join()
        data = b"".join(chunks)
    else:
        data = open(out, "rb").read()
    # the statistics say so too
    doc = json.load(open(stats))
    check(doc["status"] == "interrupted" and f"interrupted by {sig.name}" in doc["error"], doc)
    return code, err, data


@case
def interrupted_run_keeps_complete_rows_and_says_why():
    import re
    import signal
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        for to_pipe in (False, True):
            what = f"{sig.name} to a {'pipe' if to_pipe else 'file'}"
            code, err, data = interrupt(sig, to_pipe)
            check(code == 128 + sig.value, f"{what}: exit {code}, expected {128 + sig.value}: {err}")
            times = csv_rows_complete(data, what)
            m = re.search(r"interrupted by %s at t = ([0-9.e+-]+) s" % sig.name, err)
            check(m, f"{what}: no summary saying where and why: {err}")
            # every report due before the stop is written: the last row is within one report
            # interval of where the run stopped
            t = float(m.group(1))
            check(len(times) > 10 and times[-1] <= t + 1e-9 and t - times[-1] < 0.001 + 1e-9,
                  f"{what}: stopped at {t}, last row at {times[-1]}")
            check("energy:" in err and "steps" in err, f"{what}: summary incomplete: {err}")


@case
def a_signal_ignored_at_start_stays_ignored():
    """Under nohup (SIGHUP ignored when the program starts) a hangup does not stop the run;
    the signals the launcher left caught still do"""
    import signal
    import time
    scene = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
    d = tempfile.mkdtemp()
    out = os.path.join(d, "out.csv")
    p = subprocess.Popen([EXE, "run", scene, "-o", out, *LONG], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, cwd=ROOT, preexec_fn=nohup())
    wait_for_rows(out, p)
    p.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    check(p.poll() is None, "SIGHUP, ignored when the run started, stopped it")
    rows = os.path.getsize(out)
    time.sleep(0.3)
    check(os.path.getsize(out) > rows, "the run stood still after SIGHUP")
    p.send_signal(signal.SIGTERM)
    err = p.stderr.read().decode()
    code = p.wait(timeout=30)
    check(code == 128 + signal.SIGTERM.value and "interrupted by SIGTERM" in err, (code, err))
    csv_rows_complete(open(out, "rb").read(), "SIGTERM after an ignored SIGHUP")


@case
def killed_run_keeps_only_complete_rows():
    import signal
    import time
    # kill -9 at different moments, to a file and to a pipe: whatever is there is whole rows
    for i in range(6):
        for to_pipe in (False, True):
            scene = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
            d = tempfile.mkdtemp()
            out = os.path.join(d, "out.csv")
            # the statistics of an earlier run stay whole: the new ones replace them at the end
            stats = os.path.join(d, "stats.json")
            old_stats = '{"scene": "an earlier run"}\n'
            with open(stats, "w") as f:
                f.write(old_stats)
            args = [EXE, "run", scene, "-q", *LONG, "--stats", stats] + \
                ([] if to_pipe else ["-o", out])
            p = subprocess.Popen(args, stdout=subprocess.PIPE if to_pipe else subprocess.DEVNULL,
                                 cwd=ROOT)
            chunks = []
            if to_pipe:
                import threading

                def drain():
                    while True:
                        b = os.read(p.stdout.fileno(), 65536)
                        if not b:
                            return
                        chunks.append(b)
                reader = threading.Thread(target=drain)
                reader.start()
            # the kill comes at different moments after the first rows are out (a loaded
            # machine or a sanitizer build may take a while to get there)
            deadline = time.time() + 30
            while time.time() < deadline and p.poll() is None and not (
                    chunks if to_pipe else os.path.exists(out) and os.path.getsize(out) > 0):
                time.sleep(0.02)
            time.sleep(0.05 + 0.13 * i)
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=30)
            if to_pipe:
                reader.join()
            data = b"".join(chunks) if to_pipe else open(out, "rb").read()
            check(len(data) > 0, "nothing written before the kill")
            what = f"kill -9 #{i} to a {'pipe' if to_pipe else 'file'}"
            if not to_pipe and not data.endswith(b"\n"):
                # Linux stops a write(2) to a regular file that SIGKILL interrupts at the next
                # page of the file (docs/cli.md): a cut row is allowed only there, and only as
                # the last line
                check(len(data) % 4096 == 0,
                      f"{what}: the last line is cut at byte {len(data)}, not at a page boundary")
                data = data[:data.rindex(b"\n") + 1]
            csv_rows_complete(data, what)
            check(open(stats).read() == old_stats,
                  f"{what}: the earlier statistics were not left whole")
            check(sorted(os.listdir(d)) == sorted(["stats.json"] + ([] if to_pipe else ["out.csv"])),
                  f"{what}: files left: {os.listdir(d)}")


@case
def a_file_size_limit_is_an_output_error_with_whole_files():
    # ulimit -f: the system refuses writes past the limit (SIGXFSZ, ignored: EFBIG). The run
    # fails with exit 1, the CSV ends with its last whole row, the statistics and the checkpoint
    # are written; compare writes its tables and runs every model
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100 * 1024, resource.RLIM_INFINITY))

    d = tempfile.mkdtemp()
    scene = os.path.join(ROOT, "scenes", "bench", "incline_slide.json")
    csv_path, stats, ck = (os.path.join(d, n) for n in ("a.csv", "a.json", "a.ck"))
    p = subprocess.run([EXE, "run", scene, "--duration", "30", "-q", "-o", csv_path, "--stats",
                        stats, "--save-state", ck], capture_output=True, text=True, timeout=120,
                       preexec_fn=limit)
    check(p.returncode == 1 and f"could not be written to {csv_path}" in p.stderr and
          "File too large" in p.stderr, (p.returncode, p.stderr))
    data = open(csv_path).read()
    check(data.endswith("\n") and 0 < len(data) <= 100 * 1024, len(data))
    header, rows = read_csv(csv_path)
    check(all(len(r) == len(header) for r in rows), "a cut row")
    s = json.load(open(stats))
    check(s["status"] == "failed" and "File too large" in s["error"], s)
    check(os.path.getsize(ck) > 0, "no checkpoint")
    out = os.path.join(d, "cmp")
    p = subprocess.run([EXE, "compare", scene, "--duration", "30", "-q", "--out-dir", out],
                       capture_output=True, text=True, timeout=300, preexec_fn=limit)
    table = json.load(open(os.path.join(out, "compare.json")))
    check(p.returncode == 1 and len(table["models"]) == 4 and
          all(m["status"] == "failed" for m in table["models"]), (p.returncode, p.stderr[-500:]))


@case
def an_output_may_not_overwrite_the_checkpoint_the_run_starts_from():
    d = tempfile.mkdtemp()
    scene = write_scene(PENDULUM)
    ck = os.path.join(d, "ck")
    code, _, err = run("run", scene, "-q", "-o", os.path.join(d, "a.csv"), "--duration", "0.5",
                       "--save-state", ck)
    check(code == 0, err)
    saved = open(ck).read()
    replay = "./" + os.path.relpath(ck, ROOT)
    for option, name in (("-o", ck), ("--stats", ck), ("--replay", replay)):
        args = ["-o", os.path.join(d, "b.csv")] if option != "-o" else []
        code, _, err = run("run", scene, "-q", *args, option, name, "--initial-state", ck,
                           env=replay_env())
        check(code == 2 and "would overwrite the checkpoint the run starts from" in err,
              (option, code, err))
        check(open(ck).read() == saved, f"{option}: the checkpoint was changed")
    # --save-state may name it: the run's end state replaces it whole
    code, _, err = run("run", scene, "-q", "-o", os.path.join(d, "c.csv"), "--initial-state", ck,
                       "--save-state", ck)
    check(code == 0 and open(ck).read() != saved and "t 0x1p+1" in open(ck).read(), err)


@case
def stats_on_standard_output():
    # --stats - prints the statistics, when the CSV has a file; with the CSV on standard output
    # too it is refused before the run
    d = tempfile.mkdtemp()
    scene = write_scene(PENDULUM)
    code, out, err = run("run", scene, "-q", "-o", os.path.join(d, "p.csv"), "--stats", "-")
    check(code == 0 and json.loads(out)["status"] == "ok", (code, err))
    check(not os.path.exists(os.path.join(ROOT, "-")), "a file named '-' was written")
    code, out, err = run("run", scene, "-q", "--stats", "-")
    check(code == 2 and "give the CSV a file" in err and out == "", (code, err))
    # -o naming the file standard output is (the statistics would write over the CSV)
    with open(os.path.join(d, "both.txt"), "w") as f:
        p = subprocess.run([EXE, "run", scene, "-q", "-o", "/dev/stdout", "--stats", "-"],
                           stdout=f, stderr=subprocess.PIPE, text=True, timeout=60)
    check(p.returncode == 2 and "give the CSV a file" in p.stderr, (p.returncode, p.stderr))


@case
def an_infinite_initial_energy_is_refused_at_its_element():
    # finite parameters whose energy overflows: a spring's rest angle of 1e300 rad
    scene = os.path.join(ROOT, "scenes", "leg_knee_stop.json")
    code, _, err = run("validate", scene, "--set", "forces.hip_spring.q0=1e300")
    check(code == 2 and "forces[0]" in err and "potential energy in the initial state is inf"
          in err, (code, err))
    code, _, err = run("validate", scene, "--set", "forces.hip_spring.q0=1e3")
    check(code == 0, (code, err))


@case
def forces_and_accelerations_that_overflow_are_refused_where_they_arise():
    # validate passed these and run failed at its first step, naming no place
    # gravity on a body of 1e308 kg at the origin (its potential energy there is 0): the
    # gravity element's force on that body
    heavy = {"gravity": [0, 0, -9.81],
             "bodies": [{"name": "lead", "mass": 1e308, "inertia": {"diag": [1, 1, 1]},
                         "joint": {"type": "free", "parent": "ground"}}]}
    code, _, err = run("validate", write_scene(heavy))
    check(code == 2 and "gravity: the element's force on body 'lead' in the initial state is "
          "not finite" in err, (code, err))
    code, _, err = run("validate", write_scene(dict(heavy, gravity=[0, 0, 0])))
    check(code == 0, (code, err))  # without gravity nothing overflows
    # welded to Ground, the same body takes its infinite weight without moving: it loads and runs
    anvil = json.loads(json.dumps(heavy))
    anvil["bodies"][0]["joint"] = {"type": "weld", "parent": "ground"}
    anvil["bodies"].append({"name": "box", "mass": 2.0, "inertia": {"diag": [1, 1, 1]},
                            "joint": {"type": "free", "parent": "ground"}})
    anvil["simulation"] = {"duration": 0.1}
    code, _, err = run("run", write_scene(anvil), "-q", "-o", os.devnull)
    check(code == 0, (code, err))
    # a bushing of 1e308 N/m and N m/rad, displaced: each force finite, the accelerations not
    scene = os.path.join(ROOT, "scenes", "bushing_hang.json")
    huge = ["--set", "forces.mount.translational_stiffness=[1e308,1e308,1e308]",
            "--set", "forces.mount.rotational_stiffness=[1e308,1e308,1e308]"]
    code, _, err = run("validate", scene, *huge)
    check(code == 2 and "bodies[0]: the accelerations in the initial state are not finite "
          "(body 'block')" in err, (code, err))
    code, _, err = run("run", scene, "-o", os.devnull, *huge)
    check(code == 2 and "bodies[0]" in err, (code, err))
    # a contact element whose energy overflows under one contact model only: the message names
    # the model, and "nan" carries no sign
    sphere = os.path.join(ROOT, "scenes", "sphere_drop.json")
    far = ["--set", "contacts.ball_floor.points=[[1e308,1e308,1e308]]"]
    code, _, err = run("validate", sphere, *far)
    check(code == 2 and "contacts[0]: the element's potential energy in the initial state is "
          "nan (contact model 'smooth_sphere_half_space')" in err, (code, err))


@case
def save_state_needs_a_name():
    code, _, err = run("run", write_scene(PENDULUM), "-q", "-o", os.devnull, "--save-state", "")
    check(code == 2 and "needs a file name" in err, (code, err))


@case
def an_escaped_nul_in_a_string_is_refused():
    # cJSON decodes \u0000 into a C string, which ends there: "pend\u0000ulum" would be read
    # as "pend", a body "a\u0000rm" as "a". Refused at its line and column, in the scene and in
    # --set; an escaped backslash before "u0000" is an ordinary string
    d = tempfile.mkdtemp()
    text = json.dumps(PENDULUM).replace('"arm"', '"a\\u0000rm"')
    path = os.path.join(d, "nul.json")
    with open(path, "w") as f:
        f.write(text)
    code, _, err = run("validate", path)
    col = text.index("\\u0000") + 1
    check(code == 2 and f"nul.json:1:{col}:" in err and "NUL character" in err, (code, err))
    scene = write_scene(PENDULUM)
    code, _, err = run("validate", scene, "--set", 'name="pend\\u0000ulum"')
    check(code == 2 and "--set name" in err and "NUL character" in err, (code, err))
    code, _, err = run("validate", scene, "--set", 'name="pend\\\\u0000ulum"')
    check(code == 0, (code, err))


@case
def replay_run_writes_the_csv_as_it_goes():
    import signal
    import time
    # run --replay writes the CSV asked for row by row, as run alone does: the same bytes, and
    # whole rows already there when the run is killed
    scene = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
    d = tempfile.mkdtemp()
    code, _, err = run("run", scene, "--duration", "1", "-q", "-o", os.path.join(d, "plain.csv"))
    check(code == 0, err)
    code, _, err = run("run", scene, "--duration", "1", "-q", "-o", os.path.join(d, "page.csv"),
                       "--replay", os.path.join(d, "page.html"))
    if code != 0 and "viewer" in err:
        print("  (this build has no replay viewer: skipped)")
        return
    check(code == 0, err)
    plain = open(os.path.join(d, "plain.csv"), "rb").read()
    check(open(os.path.join(d, "page.csv"), "rb").read() == plain,
          "run --replay wrote another CSV than run alone")
    check(os.path.getsize(os.path.join(d, "page.html")) > 0, "no page")
    # written again: through a symbolic link to its target, keeping the page's mode
    os.chmod(os.path.join(d, "page.html"), 0o600)
    os.symlink("page.html", os.path.join(d, "link.html"))
    code, _, err = run("run", scene, "--duration", "0.5", "-q", "-o", os.path.join(d, "page.csv"),
                       "--replay", os.path.join(d, "link.html"))
    check(code == 0 and os.path.islink(os.path.join(d, "link.html")), (code, err))
    check(os.stat(os.path.join(d, "page.html")).st_mode & 0o777 == 0o600, "the page's mode")
    os.remove(os.path.join(d, "link.html"))
    code, _, err = run("run", scene, "--duration", "1", "-q", "-o", os.path.join(d, "page.csv"),
                       "--replay", os.path.join(d, "page.html"))
    check(sorted(os.listdir(d)) == ["page.csv", "page.html", "plain.csv"],
          f"scratch files left: {os.listdir(d)}")
    out = os.path.join(d, "killed.csv")
    # the page is written whole at the end: until then an earlier page stays as it was
    page = os.path.join(d, "killed.html")
    with open(page, "w") as f:
        f.write("<html>an earlier page</html>\n")
    p = subprocess.Popen([EXE, "run", scene, "-q", *LONG, "-o", out, "--replay", page], cwd=ROOT)
    deadline = time.time() + 30
    while time.time() < deadline and p.poll() is None and not (
            os.path.exists(out) and os.path.getsize(out) > 100000):
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    data = open(out, "rb").read()
    check(len(data) > 100000, f"only {len(data)} bytes of the CSV written before the kill")
    if not data.endswith(b"\n"):
        check(len(data) % 4096 == 0, f"the last line is cut at byte {len(data)}")
        data = data[:data.rindex(b"\n") + 1]
    csv_rows_complete(data, "run --replay killed")
    check(open(page).read() == "<html>an earlier page</html>\n",
          "the killed run's page is not the earlier one, whole")


def watch_rows(path, proc, until, timeout=30):
    """Poll the CSV at path every 5 ms while proc runs: [(seconds since the call, data rows)]
    for each change, until until(rows) holds, proc ends or timeout passes."""
    import time
    t0, seen, last = time.time(), [], None
    while proc.poll() is None and time.time() - t0 < timeout:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            data = b""
        # whole lines only; the header is not a row
        rows = data[:data.rfind(b"\n") + 1].decode().splitlines()[1:]
        if rows != last:
            seen.append((time.time() - t0, rows))
            last = rows
            if until(rows):
                break
        time.sleep(0.005)
    return seen


@case
def rows_reach_the_file_within_a_quarter_second_between_distant_reports():
    import signal
    # a report every 100 s of a pile of 100 bodies, seconds of wall time apart: the t = 0 row
    # stayed in the writer's block until the next report, and a kill -9 left a header alone
    scene = os.path.join(ROOT, "scenes", "bench", "pile_100.json")
    d = tempfile.mkdtemp()
    out = os.path.join(d, "pile.csv")
    p = subprocess.Popen([EXE, "run", scene, "-q", "--duration", "1000", "--report-interval",
                          "100", "-o", out], cwd=ROOT)
    try:
        seen = watch_rows(out, p, lambda rows: len(rows) >= 1, timeout=10)
        running = p.poll() is None
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    check(running and seen and seen[-1][1][:1] and seen[-1][1][0].startswith("0,"),
          f"no t = 0 row while the run went on: {[(t, len(r)) for t, r in seen]}")
    header_at = next(t for t, _ in seen)
    check(seen[-1][0] - header_at < 0.5, f"the t = 0 row came {seen[-1][0] - header_at:.2f} s "
          "after the header")
    data = open(out, "rb").read()
    check(data.count(b"\n") == 2 and data.endswith(b"\n"), f"killed: {data[:60]!r}...")
    # a row after the first, with the next report a second of wall time off: it reaches the file
    # on its own, about a quarter second after it was formatted, not with the next row. A chain
    # held to tiny steps runs at a steady pace, measured first on this machine.
    import time
    base = ["run", os.path.join(ROOT, "scenes", "bench", "chain_4.json"), "-q", "--max-step",
            "1e-6", "--max-steps", "100000000"]
    t0 = time.time()
    code, _, err = run(*base, "--duration", "0.1", "-o", os.devnull)
    check(code == 0, err)
    interval = 0.1 / max(time.time() - t0, 0.01)  # simulated seconds per wall second
    out = os.path.join(d, "chain.csv")
    p = subprocess.Popen([EXE, *base, "--duration", "%.6g" % (20 * interval),
                          "--report-interval", "%.6g" % interval, "-o", out], cwd=ROOT)
    try:
        seen = watch_rows(out, p, lambda rows: len(rows) >= 3)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    counts = [(round(t, 3), len(r)) for t, r in seen]
    check(2 in [n for _, n in counts], f"the second row came only with the third: {counts}")


@case
def replay_reads_a_bounded_csv():
    import resource
    # /dev/zero and /dev/urandom as the CSV were read without end (6 GB in 5 s); now the first
    # NUL byte ends the reading, and a file larger than 4 GiB is refused by its size. The memory
    # is capped so that a regression fails here rather than filling the machine (not in a build
    # with AddressSanitizer or ThreadSanitizer, which reserve terabytes of address space).
    with open(EXE, "rb") as f:
        text = f.read()
        asan = b"__asan_init" in text or b"__tsan_init" in text

    def cap():
        if not asan:
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    scene = os.path.join(ROOT, "scenes", "pendulum.json")
    d = tempfile.mkdtemp()
    page = os.path.join(d, "page.html")
    for dev in ("/dev/zero", "/dev/urandom"):
        p = subprocess.run([EXE, "replay", scene, dev, "-o", page], capture_output=True,
                           text=True, timeout=60, cwd=ROOT, env=replay_env(), preexec_fn=cap)
        check(p.returncode == 2 and p.stderr.startswith("contactsim: error: " + dev + ": ")
              and "NUL byte" in p.stderr, (dev, p.returncode, p.stderr))
    # sparse files: one byte over the limit is refused before anything is read; one of exactly
    # the limit is read (to its first byte, a NUL)
    big = os.path.join(d, "big.csv")
    for size, what in ((4 * 2**30 + 1, "is larger than 4294967296 bytes (4 GiB)"),
                       (4 * 2**30, "line 1 holds a NUL byte (byte 1)")):
        with open(big, "wb") as f:
            f.truncate(size)
        p = subprocess.run([EXE, "replay", scene, big, "-o", page], capture_output=True,
                           text=True, timeout=60, cwd=ROOT, env=replay_env(), preexec_fn=cap)
        check(p.returncode == 2 and (big + ": " + what) in p.stderr, (size, p.returncode, p.stderr))
    # an endless stream of text that is no CSV of contactsim's, without a NUL byte (`yes |`), was
    # read up to the 4 GiB limit; now its first block is enough to refuse it
    yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    p = subprocess.run([EXE, "replay", scene, "/dev/stdin", "-o", page], stdin=yes.stdout,
                       capture_output=True, text=True, timeout=60, cwd=ROOT, env=replay_env(),
                       preexec_fn=cap)
    yes.kill()
    yes.wait()
    check(p.returncode == 2 and "has no column 't'" in p.stderr, (p.returncode, p.stderr))
    check(not os.path.exists(page), "a page was written")
    # but a CSV whose column t is not the first (columns reordered by another tool), larger
    # than a block of the reading, is read whole, from a file or a pipe
    whole = os.path.join(d, "whole.csv")
    code, _, err = run("run", scene, "-q", "-o", whole, "--duration", "20",
                       "--report-interval", "0.001")
    check(code == 0, err)
    moved = os.path.join(d, "moved.csv")
    with open(whole) as f, open(moved, "w") as g:
        for line in f:
            cells = line.rstrip("\n").split(",")
            g.write(",".join(cells[1:] + cells[:1]) + "\n")
    check(os.path.getsize(moved) > 4 << 20, os.path.getsize(moved))
    sizes = []
    for src in (whole, moved, "/dev/stdin"):
        out = os.path.join(d, "p%d.html" % len(sizes))
        with open(moved) as feed:
            p = subprocess.run([EXE, "replay", scene, src, "-o", out], stdin=feed,
                               capture_output=True, text=True, timeout=60, cwd=ROOT,
                               env=replay_env())
        check(p.returncode == 0, (src, p.stderr))
        sizes.append(os.path.getsize(out) if p.returncode == 0 else 0)
    # the pages differ only in the CSV's name
    check(max(sizes) - min(sizes) < 64 and min(sizes) > 1 << 20, sizes)


CHAIN_4 = os.path.join(ROOT, "scenes", "bench", "chain_4.json")


def short_csv(d, scene=CHAIN_4, name="run.csv"):
    """0.05 s of scene run into d/name: the CSV's path"""
    path = os.path.join(d, name)
    code, _, err = run("run", scene, "-q", "-o", path, "--duration", "0.05")
    check(code == 0, err)
    return path


def replay(*args, **kw):
    return subprocess.run([EXE, "replay", *args], capture_output=True, text=True, timeout=60,
                          cwd=ROOT, env=replay_env(), **kw)


@case
def replay_refuses_a_csv_of_more_bodies():
    """A CSV of a longer chain, or of more blocks, given with the scene of fewer: refused,
    naming the first body the scene does not have (its columns were ignored, and the page
    showed the other run's energies)"""
    d = tempfile.mkdtemp()
    for written, given, body in (("chain_16", "chain_4", "link4"), ("pile_10", "pile_1", "b1")):
        csv_path = short_csv(d, os.path.join(ROOT, "scenes", "bench", written + ".json"),
                             written + ".csv")
        page = os.path.join(d, written + ".html")
        p = replay(os.path.join(ROOT, "scenes", "bench", given + ".json"), csv_path, "-o", page)
        check(p.returncode == 2 and f"{csv_path}: has the columns of body '{body}', which the "
              "scene does not have" in p.stderr, (written, given, p.returncode, p.stderr))
        check(not os.path.exists(page), "a page was written")


@case
def replay_of_a_piped_csv_needs_an_output():
    """The page goes next to the CSV by default; standard input has no such place (the page was
    /dev/stdin.html), whether it is a pipe or a file"""
    d = tempfile.mkdtemp()
    csv_path = short_csv(d)
    stray = "/dev/stdin.html"
    there = os.path.exists(stray)
    try:
        for args, piped in (([], False), ([], True), (["-o", os.path.join(d, "piped.html")], True)):
            with open(csv_path) as f:
                cat = subprocess.Popen(["cat"], stdin=f, stdout=subprocess.PIPE) if piped else None
                p = replay(CHAIN_4, "/dev/stdin", *args, stdin=cat.stdout if piped else f)
                if cat:
                    cat.stdout.close()
                    cat.wait(timeout=60)
            if args:
                check(p.returncode == 0 and os.path.exists(args[1]), (p.returncode, p.stderr))
            else:
                check(p.returncode == 2 and "/dev/stdin is no file the page can go next to"
                      in p.stderr and "-o" in p.stderr, (p.returncode, p.stderr))
        check(there or not os.path.exists(stray), "a page was written in /dev")
    finally:
        if not there and os.path.exists(stray):
            os.remove(stray)
    # a CSV that is not there is said to be missing, and a file under /dev/shm is a file
    p = replay(CHAIN_4, os.path.join(d, "none.csv"))
    check(p.returncode == 2 and "none.csv: cannot read: No such file" in p.stderr, p.stderr)
    if os.path.isdir("/dev/shm"):
        shm = tempfile.mkdtemp(dir="/dev/shm")
        try:
            p = replay(CHAIN_4, short_csv(shm))
            check(p.returncode == 0 and os.path.exists(os.path.join(shm, "run.html")), p.stderr)
        finally:
            shutil.rmtree(shm, ignore_errors=True)


@case
def replay_reads_quoted_header_names():
    """A header whose names are in double quotes (a spreadsheet's save, or the run's own CSV
    for a name that needs them: RFC 4180, a comma inside, a quote doubled) is read as the names
    within; the page is the one of the CSV as the run wrote it, from a file and from a pipe
    (whose first row is checked against the header's field count as it arrives)"""
    d = tempfile.mkdtemp()
    plain = short_csv(d)
    lines = open(plain).read().splitlines()
    quoted = os.path.join(d, "quoted.csv")
    with open(quoted, "w") as f:
        names = ",".join('"' + n + '"' for n in lines[0].split(","))
        f.write(names + ',"a note, ""with"" a comma"\n')
        f.writelines(row + ",7\n" for row in lines[1:])
    # and one saved with a byte order mark (a spreadsheet's "CSV UTF-8"), which hid the t
    bom = os.path.join(d, "bom.csv")
    with open(bom, "wb") as f:
        f.write(b"\xef\xbb\xbf" + open(quoted, "rb").read())
    pages = {}
    for name, source, piped in (("plain", plain, False), ("file", quoted, False),
                                ("pipe", quoted, True), ("bom", bom, False)):
        page = os.path.join(d, name + ".html")
        with open(source) as f:
            p = replay(CHAIN_4, "/dev/stdin" if piped else source, "-o", page,
                       stdin=f if piped else None)
        check(p.returncode == 0, (name, p.returncode, p.stderr))
        text = open(page).read() if p.returncode == 0 else ""
        pages[name] = re.sub(r'"csv":"[^"]*"', '"csv":""', text)
    check(pages["plain"] and pages["file"] == pages["plain"] and pages["pipe"] == pages["plain"]
          and pages["bom"] == pages["plain"], "the quoted header's page differs from the plain one's")
    # a zero quaternion is no orientation: refused, naming the line (it was drawn flipped)
    rows = [lines[0]] + lines[1:]
    header = rows[0].split(",")
    qw = header.index("link0.qw")
    cells = rows[2].split(",")
    cells[qw:qw + 4] = ["0"] * 4
    rows[2] = ",".join(cells)
    zero = os.path.join(d, "zero.csv")
    with open(zero, "w") as f:
        f.write("\n".join(rows) + "\n")
    p = replay(CHAIN_4, zero, "-o", os.path.join(d, "zero.html"))
    check(p.returncode == 2 and "line 3, column 'link0.qw': the orientation is a zero quaternion"
          in p.stderr, (p.returncode, p.stderr))


@case
def replay_names_the_first_bad_row_of_a_stream():
    """An endless stream whose first row has another number of fields than its header is
    refused at that row (it was read to the 4 GiB limit and refused for its size, a 4 GiB
    reading should this case ever fail that way), and a bad row is named by its line in the
    file, blank lines counted"""
    d = tempfile.mkdtemp()
    header = open(short_csv(d)).readline()
    page = os.path.join(d, "page.html")
    script = f"printf '%s\\n\\n\\r\\n' '{header.strip()}'; exec yes 0,1,2"
    feed = subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE)
    try:
        p = replay(CHAIN_4, "/dev/stdin", "-o", page, stdin=feed.stdout)
    finally:
        feed.stdout.close()
        feed.kill()
        feed.wait()
    check(p.returncode == 2 and "/dev/stdin: line 4 has 3 fields, the header" in p.stderr,
          (p.returncode, p.stderr))
    check(not os.path.exists(page), "a page was written")


@case
def run_replay_leaves_no_scratch_file_when_killed():
    import signal
    import time
    # the page's scratch CSV (every column, beside the page) was named until the end, and a kill
    # -9 left megabytes of it for good; now it has no name once made. SIGINT still ends the run
    # with the page of what was written.
    scene = os.path.join(ROOT, "scenes", "bench", "pile_100.json")
    for sig, code in ((signal.SIGKILL, -9), (signal.SIGINT, 130)):
        d = tempfile.mkdtemp()
        out, page = os.path.join(d, "a.csv"), os.path.join(d, "a.html")
        p = subprocess.Popen([EXE, "run", scene, "-q", "-o", out, "--replay", page], cwd=ROOT,
                             env=replay_env(), stderr=subprocess.PIPE)
        seen = watch_rows(out, p, lambda rows: len(rows) >= 2)
        check(p.poll() is None and seen and len(seen[-1][1]) >= 2, f"{sig}: too fast: {seen}")
        p.send_signal(sig)
        err = p.communicate(timeout=60)[1].decode()
        check(p.returncode == code, (sig, p.returncode, err))
        left = sorted(os.listdir(d))
        check(left == (["a.csv"] if code < 0 else ["a.csv", "a.html"]), f"{sig}: {left}")
        if code > 0:
            check(open(page).read().count('"format":"contactsim-replay"') == 1, "no page data")


@case
def outputs_with_the_longest_names_are_written():
    # names of 255 bytes, the most a name can have: the temporary names made from them were
    # too long, so --stats failed after the whole run and --save-state and --replay were
    # refused as "File name too long"
    d = tempfile.mkdtemp()
    names = {"--stats": "s" * 255, "--save-state": "c" * 255, "--replay": "p" * 250 + ".html"}
    args = [a for opt, name in names.items() for a in (opt, os.path.join(d, name))]
    code, _, err = run("run", os.path.join(ROOT, "scenes", "pendulum.json"), "-q", "--duration",
                       "0.1", "-o", os.path.join(d, "a.csv"), *args, env=replay_env())
    check(code == 0, (code, err))
    check(sorted(os.listdir(d)) == sorted(["a.csv", *names.values()]), os.listdir(d))
    with open(os.path.join(d, names["--stats"])) as f:
        check(json.load(f)["status"] == "ok", "the statistics")


@case
def another_users_files_in_a_sticky_directory_are_written_in_place():
    # --stats, --replay and --save-state are written under a temporary name and renamed; in a
    # directory with the sticky bit (/tmp) another user's file cannot be renamed over, even
    # where it may be written, and the run failed at its end. Such a file is written in place.
    # As nobody, over root's files (root may rename anything)
    d, scene = nobody_scene(0o1777, os.path.join(ROOT, "scenes", "sphere_drop.json"))
    if d is None:
        return
    template = os.path.join(d, "template.html")
    with open(template, "w") as f:
        f.write("<html><script>/*CONTACTSIM_REPLAY_DATA*/</script></html>\n")
    names = ("s.json", "p.html", "st.state")
    for n in names:
        with open(os.path.join(d, n), "w") as f:
            f.write("old\n")
    for n in ("template.html",) + names:
        os.chmod(os.path.join(d, n), 0o666)
    p = as_nobody([EXE, "run", scene, "-q", "-o", "/dev/null", "--stats", "s.json", "--replay",
                   "p.html", "--save-state", "st.state"], cwd=d,
                  env=dict(os.environ, CONTACTSIM_REPLAY_TEMPLATE=template))
    if p is None:
        return
    check(p.returncode == 0, (p.returncode, p.stderr))
    with open(os.path.join(d, "s.json")) as f:
        check(json.load(f)["status"] == "ok", "the statistics")
    check(read_state(os.path.join(d, "st.state"))["t"] == 2.0, "the checkpoint")
    with open(os.path.join(d, "p.html")) as f:
        check('"format":"contactsim-replay"' in f.read(), "the page")
    check(all(os.stat(os.path.join(d, n)).st_uid == 0 for n in names), "replaced, not written")
    # a checkpoint that may not be written is refused before the run (it was found at its end)
    os.chmod(os.path.join(d, "st.state"), 0o644)
    p = as_nobody([EXE, "run", scene, "-q", "-o", "/dev/null", "--save-state", "st.state"],
                  cwd=d)
    check(p.returncode == 2 and "cannot write st.state: Permission denied" in p.stderr and
          "finished" not in p.stderr, (p.returncode, p.stderr))


@case
def a_row_the_page_cannot_draw_is_named_by_the_page_and_the_csv():
    # run --replay reads its rows back from a scratch copy that has no name the user could open:
    # a row the page cannot draw (a body beyond 1e15 m) named that copy
    # (.contactsim-replay.XXXXXX); it names the page and the CSV asked for
    d = tempfile.mkdtemp()
    scene = os.path.join(d, "fast.json")
    with open(scene, "w") as f:
        json.dump({"name": "fast", "gravity": [0, 0, 0],
                   "bodies": [{"name": "ball", "mass": 1, "inertia": {"sphere": 0.1},
                               "joint": {"type": "free", "initial": {
                                   "velocity": [1e14, 0, 0]}}}],
                   "simulation": {"duration": 20, "report_interval": 1}}, f)
    out, page = os.path.join(d, "fast.csv"), os.path.join(d, "fast.html")
    p = subprocess.run([EXE, "run", scene, "-q", "-o", out, "--replay", page],
                       capture_output=True, text=True, timeout=60, env=replay_env())
    check(p.returncode == 1 and f"{page}: cannot draw the run from {out}: line 13, column "
          "'ball.px': 1.1e+15 m is beyond the coordinates the page can draw" in p.stderr and
          ".contactsim-replay" not in p.stderr, (p.returncode, p.stderr))
    p = subprocess.run([EXE, "run", scene, "-q", "--replay", page], capture_output=True,
                       text=True, timeout=60, env=replay_env())
    check(p.returncode == 1 and "cannot draw the run from its CSV on standard output: line 13"
          in p.stderr, (p.returncode, p.stderr[-300:]))


@case
def no_output_may_be_the_file_standard_output_goes_to():
    # `run > out.txt --stats out.txt` renamed the statistics over the CSV and exited 0; each
    # output that is standard output's file while the CSV (or --stats -) goes there is refused
    # up front, however it is named
    d = tempfile.mkdtemp()
    scene = os.path.join(ROOT, "scenes", "pendulum.json")
    out = os.path.join(d, "out.txt")
    cases = ((["--stats", out], "--stats"), (["--save-state", out], "--save-state"),
             (["--replay", out], "--replay"), (["-o", "-", "--stats", "/dev/stdout"], "--stats"),
             (["--save-state", "/proc/self/fd/1"], "--save-state"),
             (["-o", os.path.join(d, "x.csv"), "--stats", "-", "--save-state", out],
              "--save-state"))
    for args, option in cases:
        with open(out, "w") as f:
            f.write("kept\n")
        with open(out, "a") as f:
            p = subprocess.run([EXE, "run", scene, "-q", *args], stdout=f, stderr=subprocess.PIPE,
                               text=True, timeout=60, env=replay_env())
        with open(out) as f:
            text = f.read()
        check(p.returncode == 2 and f"error: {option} " in p.stderr and
              "is the file standard output goes to" in p.stderr and text == "kept\n",
              (args, p.returncode, p.stderr, text[:40]))
    # standard output free (the CSV in a file): a checkpoint may go there, to a pipe
    p = subprocess.run([EXE, "run", scene, "-q", "-o", os.path.join(d, "x.csv"), "--save-state",
                        "/dev/stdout"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and p.stdout.startswith("# contactsim checkpoint"), p.stderr)
    # compare's table goes to standard output: a model's CSV cannot be that file
    cd = os.path.join(d, "cd")
    os.makedirs(cd)
    target = os.path.join(cd, "hunt_crossley.csv")
    with open(target, "w") as f:
        p = subprocess.run([EXE, "compare", os.path.join(ROOT, "scenes", "sphere_drop.json"),
                            "--out-dir", cd, "-q"], stdout=f, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    check(p.returncode == 2 and "hunt_crossley.csv is the file standard output goes to" in
          p.stderr and not os.path.exists(os.path.join(cd, "compare.csv")), p.stderr)


@case
def too_much_work_at_tiny_steps_says_max_steps_will_not_do():
    # a transition velocity of 1e-11 m/s holds the steps near 7e-11 s: the advice to raise
    # max_steps carried the run 0.8 ms further for 26 s of CPU. At such steps a report interval
    # takes about 1e8 steps, which the message now says
    scene = os.path.join(ROOT, "scenes", "foot_landing_push.json")
    code, _, err = run("run", scene, "-q", "-o", os.devnull, "--set",
                       "contact_models.hunt_crossley.transition_velocity=1e-11")
    m = re.search(r"last step ([0-9.e+-]+) s\).*a report interval takes about ([0-9.e+]+) steps",
                  err)
    check(code == 1 and m and "raising max_steps will not carry the run far" in err and
          "tiny transition velocity" in err, (code, err))
    # the count is the report interval (0.005 s) over the mean of the last steps, far beyond
    # 100 x max_steps
    h, n = float(m.group(1)), float(m.group(2))
    check(0.5 * 0.005 / h < n < 2 * 0.005 / h and n > 100 * 100000, (h, n))
    # an impact that cuts the last step short is no such case: a budget of 30 steps runs out
    # at a bounce (its last step 3e-7 s), and 300 finish the run
    ball = os.path.join(ROOT, "scenes", "sphere_drop.json")
    code, _, err = run("run", ball, "-q", "-o", os.devnull, "--contact-model", "hunt_crossley",
                       "--max-steps", "30")
    check(code == 1 and "too much work" in err and "will not carry" not in err, (code, err))
    code, _, err = run("run", ball, "-q", "-o", os.devnull, "--contact-model", "hunt_crossley",
                       "--max-steps", "300")
    check(code == 0, err)
    # at the scene's own transition velocity, no such message (the run finishes)
    code, _, err = run("run", scene, "-q", "-o", os.devnull)
    check(code == 0, err)


def writing_page(p, d):
    """Whether process p writes a file in directory d still without a name (O_TMPFILE: the
    descriptor reads 'd/#INODE (deleted)') or under a temporary one."""
    try:
        fds = os.listdir(f"/proc/{p.pid}/fd")
        targets = [os.readlink(f"/proc/{p.pid}/fd/{n}") for n in fds]
    except OSError:
        return False
    return any(t.startswith(os.path.join(d, "#")) for t in targets) or \
        any(".tmp" in n for n in os.listdir(d))


def run_writing_its_page():
    """A run of pile_100 with --replay in a directory of its own, caught while it writes its
    page (a signal or a kill then lands in that phase): (process, directory, csv, page)"""
    import time
    scene = os.path.join(ROOT, "scenes", "bench", "pile_100.json")
    d = tempfile.mkdtemp()
    out, page = os.path.join(d, "a.csv"), os.path.join(d, "a.html")
    p = subprocess.Popen([EXE, "run", scene, "-q", "--duration", "2", "-o", out, "--replay",
                          page], cwd=ROOT, env=replay_env(), stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while p.poll() is None and time.monotonic() < deadline and not writing_page(p, d):
        time.sleep(0.002)
    check(p.poll() is None, "the page was written before the signal could be sent")
    return p, d, out, page


@case
def a_kill_while_the_page_is_written_leaves_nothing():
    # kill -9 cannot be caught: the page is written without a name until it is whole, so the
    # kill leaves no temporary file (one named after the process stayed, megabytes of it)
    p, d, _, _ = run_writing_its_page()
    p.kill()
    p.communicate(timeout=60)
    check(sorted(os.listdir(d)) == ["a.csv"], os.listdir(d))


@case
def a_signal_after_the_last_step_is_not_lost():
    import signal
    import time
    # a stop signal while the finished run writes its page: the page is finished whole and the
    # command exits 128 + N (it exited 0, and a script could not tell it had been stopped)
    p, d, out, page = run_writing_its_page()
    p.send_signal(signal.SIGTERM)
    err = p.communicate(timeout=120)[1].decode()
    check(p.returncode == 143 and "SIGTERM came after the run had finished" in err,
          (p.returncode, err))
    check(sorted(os.listdir(d)) == ["a.csv", "a.html"] and
          open(page).read().count('"format":"contactsim-replay"') == 1, os.listdir(d))
    # and one while --save-state's FIFO waits for a reader ends that wait (it waited on until
    # a second signal, and then ended without a word)
    fifo = os.path.join(d, "state.fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([EXE, "run", os.path.join(ROOT, "scenes", "pendulum.json"), "-q",
                          "--duration", "0.5", "-o", out, "--save-state", fifo], cwd=ROOT,
                         stderr=subprocess.PIPE)
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    try:
        err = p.communicate(timeout=30)[1].decode()
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise
    check(p.returncode == 143 and "the checkpoint was not written: SIGTERM came while" in err,
          (p.returncode, err))


@case
def a_signal_at_the_start_leaves_the_header():
    import signal
    import time
    # a stop signal in the run's first milliseconds: once the CSV exists it holds at least its
    # header (the outputs were truncated before the handlers were installed, which left it
    # empty); and a Ctrl-C while a FIFO output waits for its reader ends the command
    scene = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
    d = tempfile.mkdtemp()
    for i in range(12):
        out = os.path.join(d, "early%d.csv" % i)
        p = subprocess.Popen([EXE, "run", scene, "-q", *LONG, "-o", out], cwd=ROOT)
        time.sleep(0.002 * i)
        p.send_signal(signal.SIGHUP)
        p.wait(timeout=30)
        if os.path.exists(out) and p.returncode == 129:
            data = open(out, "rb").read()
            check(data.startswith(b"t,"), f"signal after {2 * i} ms: the CSV is {data[:40]!r}")
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([EXE, "run", scene, "-q", "-o", fifo], cwd=ROOT, stderr=subprocess.PIPE)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("a Ctrl-C did not end a run waiting for its FIFO's reader")
    check(p.returncode == 130, f"exit {p.returncode}")


@case
def second_interrupt_exits_at_once_with_complete_rows():
    import signal
    import time
    # the run writes to a pipe nobody reads, so it blocks: the first SIGINT cannot end it, the
    # second must, at once
    scene = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
    p = subprocess.Popen([EXE, "run", scene, "-q", *LONG], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    time.sleep(0.3)
    check(p.poll() is None, "the blocked run ended at the first SIGINT")
    p.send_signal(signal.SIGINT)
    t0 = time.time()
    # the run ends without anyone reading the pipe
    while p.poll() is None and time.time() - t0 < 5:
        time.sleep(0.01)
    check(p.poll() is not None, "the second SIGINT did not end the run")
    check(p.returncode == 130, f"exit {p.returncode}")
    data = p.stdout.read()
    csv_rows_complete(data, "after a second SIGINT")


# ---------------------------------------------------------------------------------------------
# outputs are never written over by mistake

@case
def outputs_never_clobber_the_scene_or_each_other():
    path = write_scene(PENDULUM)
    d = os.path.dirname(path)
    original = open(path, "rb").read()
    # the scene as the CSV, also by another name for the same file
    for target in (path, os.path.join(d, ".", "scene.json")):
        code, _, err = run("run", path, "-q", "-o", target)
        check(code == 2 and err.startswith("contactsim: error:") and "scene" in err, (code, err))
        check(open(path, "rb").read() == original, "the scene was overwritten")
    code, _, err = run("run", path, "-q", "--stats", path)
    check(code == 2 and open(path, "rb").read() == original, (code, err))
    # the CSV and the statistics in one file
    out = os.path.join(d, "x.csv")
    code, _, err = run("run", path, "-q", "-o", out, "--stats", os.path.join(d, "..", os.path.basename(d), "x.csv"))
    check(code == 2 and "same file" in err and not os.path.exists(out), (code, err))
    # a statistics file that cannot be created leaves an earlier CSV as it was
    with open(out, "w") as f:
        f.write("precious\n")
    code, _, err = run("run", path, "-q", "-o", out, "--stats", os.path.join(d, "missing", "s.json"))
    check(code == 2 and "missing" in err, (code, err))
    check(open(out).read() == "precious\n", "the CSV was truncated before the statistics failed")
    # and a new CSV that was created for nothing is removed again
    out2 = os.path.join(d, "new.csv")
    code, _, err = run("run", path, "-q", "-o", out2, "--stats", os.path.join(d, "missing", "s.json"))
    check(code == 2 and not os.path.exists(out2), (code, err))
    # /dev/null may be named twice
    code, _, err = run("run", path, "-q", "-o", "/dev/null", "--stats", "/dev/null")
    check(code == 0, err)


@case
def a_full_disk_leaves_complete_rows():
    # a file-size limit makes the write that crosses it take what fits and then fail (EFBIG), as
    # a full disk does (ENOSPC): the CSV must still end with a complete row, and the run fail
    # with exit 1, keeping its statistics and its checkpoint
    import resource
    import signal as sig
    path = write_scene(PENDULUM)
    d = os.path.dirname(path)
    out, stats, state = (os.path.join(d, n) for n in ("full.csv", "s.json", "s.state"))

    def limit():
        sig.signal(sig.SIGXFSZ, sig.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (150000, 150000))

    p = subprocess.run([EXE, "run", path, "-q", "-o", out, "--stats", stats, "--save-state", state,
                        *LONG], capture_output=True, text=True, timeout=120, cwd=ROOT,
                       preexec_fn=limit)
    check(p.returncode == 1, (p.returncode, p.stderr))
    data = open(out, "rb").read()
    check(0 < len(data) <= 150000, len(data))
    times = csv_rows_complete(data, "CSV at the size limit")
    check(len(times) > 100, len(times))
    check(json.load(open(stats))["status"] == "failed", open(stats).read())
    check("\ncontactsim-state 2\n" in open(state).read(), "no checkpoint")


@case
def a_closed_pipe_is_an_output_error():
    # the reader goes away after the header and the t = 0 row (which goes out at once): the run
    # ends with exit 1 (not SIGPIPE) and still writes its statistics and checkpoint, the state
    # where the output failed
    path = write_scene(PENDULUM)
    d = os.path.dirname(path)
    stats, state = os.path.join(d, "s.json"), os.path.join(d, "s.state")
    p = subprocess.Popen([EXE, "run", path, "-q", "--stats", stats, "--save-state", state, *LONG],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    p.stdout.readline()
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode()
    code = p.wait(timeout=120)
    check(code == 1 and "could not be written" in err and "Broken pipe" in err, (code, err))
    s = json.load(open(stats))
    check(s["status"] == "failed" and 0 < s["simulated"] < 1000, s)
    check("\ncontactsim-state 2\n" in open(state).read(), "no checkpoint")
    # the checkpoint continues the run: to the end, from where the output failed
    code, _, err = run("run", path, "-q", "-o", os.path.join(d, "rest.csv"), "--initial-state",
                       state, "--duration", "2")
    check(code == 0, err)


@case
def save_state_never_overwrites_an_input_or_output():
    path = write_scene(PENDULUM)
    d = os.path.dirname(path)
    out = os.path.join(d, "x.csv")
    original = open(path, "rb").read()
    for target, what in ((os.path.join(d, ".", "scene.json"), "scene"),
                         (os.path.join(d, ".", "x.csv"), "CSV output")):
        code, _, err = run("run", path, "-q", "-o", out, "--save-state", target)
        check(code == 2 and what in err, (code, err))
    check(open(path, "rb").read() == original, "the scene was overwritten")
    os.mkdir(os.path.join(d, "dir"))
    code, _, err = run("run", path, "-q", "-o", out, "--save-state", os.path.join(d, "dir"))
    check(code == 2 and "directory" in err, (code, err))
    # a loop of symbolic links is refused before the run, not after it
    os.symlink("loop_b", os.path.join(d, "loop_a"))
    os.symlink("loop_a", os.path.join(d, "loop_b"))
    fresh = os.path.join(d, "fresh.csv")
    code, _, err = run("run", path, "-q", "-o", fresh, "--save-state", os.path.join(d, "loop_a"))
    check(code == 2 and "symbolic links" in err and not os.path.exists(fresh), (code, err))


@case
def initial_state_from_a_pipe():
    # --initial-state <(...) is a pipe that can be read once: the run starts from it and
    # reports on from the checkpoint's time to the end, as from a file
    import threading
    path = write_scene(PENDULUM)
    d = os.path.dirname(path)
    state = os.path.join(d, "half.state")
    code, _, err = run("run", path, "-q", "-o", "/dev/null", "--duration", "1", "--save-state", state)
    check(code == 0, err)
    fifo = os.path.join(d, "pipe.state")
    os.mkfifo(fifo)
    text = open(state, "rb").read()
    writer = threading.Thread(target=lambda: open(fifo, "wb").write(text))
    writer.start()
    out = os.path.join(d, "rest.csv")
    code, _, err = run("run", path, "-q", "-o", out, "--initial-state", fifo)
    writer.join(timeout=10)
    check(code == 0, err)
    _, rows = read_csv(out)
    check(abs(rows[0][0] - 1.0) < 1e-12 and abs(rows[-1][0] - 2.0) < 1e-12 and len(rows) == 101,
          (rows[0][0], rows[-1][0], len(rows)))
    # and it continues the run: the end state of one run of 2 s, to the integration tolerance
    full = os.path.join(d, "full.csv")
    code, _, err = run("run", path, "-q", "-o", full)
    _, ref = read_csv(full)
    check(all(abs(a - b) < 1e-6 for a, b in zip(rows[-1], ref[-1])), (rows[-1][:5], ref[-1][:5]))


# ---------------------------------------------------------------------------------------------
# the command line a user expects

@case
def each_command_has_its_own_help():
    for cmd, own, other in (("run", "--report-interval", "--models"),
                            ("validate", "--contact-model", "--report-interval"),
                            ("compare", "--models", "--report-interval")):
        for flag in ("--help", "-h"):
            code, out, err = run(cmd, flag)
            check(code == 0 and err == "", (cmd, code, err))
            check(out.startswith(f"usage: contactsim {cmd} "), out)
            check(own in out and other not in out, f"{cmd} {flag}: {out}")


@case
def max_steps_option_sets_the_step_budget():
    path = write_scene(PENDULUM)
    out = os.path.join(os.path.dirname(path), "out.csv")
    code, _, err = run("run", path, "-o", out, "--max-steps", "3")
    check(code == 1 and "more than 3 steps" in err, (code, err))
    code, _, err = run("run", path, "-q", "-o", out, "--max-steps", "100000")
    check(code == 0, err)
    for bad in ("0", "-4", "2.5", "x", ""):
        code, _, err = run("run", path, "-q", "--max-steps", bad)
        check(code == 2 and err.startswith("contactsim: error:") and "max-steps" in err, (bad, code, err))
    code, out, err = run("compare", path, "-q", "--format", "json", "--max-steps", "3")
    check(code == 1 and "more than 3 steps" in json.loads(out)["models"][0]["error"], (code, err))


@case
def contact_model_on_a_scene_without_contacts_is_an_error():
    path = write_scene(PENDULUM)
    for cmd in ("run", "validate"):
        args = [cmd, path, "--contact-model", "hunt_crossley"] + (["-q", "-o", "/dev/null"] if cmd == "run" else [])
        code, _, err = run(*args)
        check(code == 2 and err.startswith("contactsim: error:") and "contacts" in err
              and "hunt_crossley" in err and path in err, (cmd, code, err))


@case
def standard_output_that_cannot_be_written_is_an_error():
    # the help and the version written to a full device (or a closed descriptor) exited 0
    for args in (["--help"], ["--version"], ["run", "--help"], ["help", "compare"]):
        with open("/dev/full", "w") as full:
            p = subprocess.run([EXE, *args], stdout=full, stderr=subprocess.PIPE, text=True,
                               timeout=60)
        check(p.returncode == 1 and p.stderr == "contactsim: error: could not write to "
              "standard output: No space left on device\n", (args, p.returncode, p.stderr))
    p = subprocess.run([EXE, "--version"], stdout=subprocess.DEVNULL, timeout=60)
    check(p.returncode == 0, "--version to /dev/null")


@case
def version_arguments_and_unknown_commands_are_one_line_errors():
    # --version with an argument was taken as --version alone
    code, out, err = run("--version", "extra")
    check(code == 2 and out == "" and "--version takes no arguments, not 'extra'" in err, err)
    # an unknown command: one line, not the whole help on standard error
    for args in (["frobnicate"], ["help", "frobnicate"], ["--help", "frobnicate"],
                 ["-h", "frobnicate"]):
        code, out, err = run(*args)
        check(code == 2 and err.count("\n") == 1 and "contactsim --help" in err and out == "",
              (args, code, err))
    # --help COMMAND and -h COMMAND are help COMMAND (they printed the general help)
    for first in ("help", "--help", "-h"):
        code, out, err = run(first, "run")
        check(code == 0 and out.startswith("usage: contactsim run SCENE.json"), (first, out[:80]))


@case
def an_option_given_a_value_it_does_not_take_is_named_so():
    # --quiet=1 was called an unknown option
    path = write_scene(PENDULUM)
    code, _, err = run("run", path, "--quiet=1")
    check(code == 2 and err == "contactsim: error: run: option '--quiet' takes no value\n", err)
    code, _, err = run("run", path, "--bogus=1")
    check(code == 2 and "unknown option '--bogus'" in err, err)
    # the short form too (-q=1 was called an unknown option '-')
    code, _, err = run("run", path, "-q=1")
    check(code == 2 and err == "contactsim: error: run: option '-q' takes no value\n", err)


@case
def a_replay_page_that_cannot_be_written_says_why():
    path = write_scene(PENDULUM)
    d = tempfile.mkdtemp()
    out = os.path.join(d, "p.csv")
    code, _, err = run("run", path, "-q", "-o", out, "--duration", "0.1")
    check(code == 0, err)
    code, _, err = run("replay", path, out, "-o", "/dev/full", env=replay_env())
    check(code == 1 and "could not write the replay page: No space left on device" in err, err)
    # a template whose part after the data is long: its last write fails with nothing left in
    # the stream for the close to fail on, so the reason is the one kept from the failed write
    # (it read "Input/output error" when only the stream's error flag was left)
    env = replay_env()
    with open(env["CONTACTSIM_REPLAY_TEMPLATE"], "w") as f:
        f.write("<html><script>/*CONTACTSIM_REPLAY_DATA*/</script><!--" + "x" * 100000 +
                "--></html>\n")
    code, _, err = run("replay", path, out, "-o", "/dev/full", env=env)
    check(code == 1 and "could not write the replay page: No space left on device" in err, err)


@case
def outputs_are_written_through_a_symbolic_link_to_nothing_yet():
    # -o and --stats write through a link whose target does not exist yet, creating the target
    # as --save-state does (and as shell redirection does); they were refused with "No such file
    # or directory" (O_EXCL refuses every link, and the link's target could not be opened)
    path = write_scene(PENDULUM)
    d = tempfile.mkdtemp()
    for opt, made in (("-o", "trajectory.csv"), ("--stats", "stats.json"),
                      ("--save-state", "end.state")):
        os.symlink(made, os.path.join(d, "link-" + made))
        args = ["-o", os.devnull] if opt != "-o" else []
        code, _, err = run("run", path, "-q", "--duration", "0.1", *args, opt,
                           os.path.join(d, "link-" + made))
        check(code == 0 and os.path.islink(os.path.join(d, "link-" + made)) and
              os.path.getsize(os.path.join(d, made)) > 0, (opt, code, err, os.listdir(d)))
    check(open(os.path.join(d, "trajectory.csv")).readline().startswith("t,"), "the CSV")
    check(json.load(open(os.path.join(d, "stats.json")))["scene"] == "pendulum", "the stats")
    # the same-file checks see through such links: a link to nothing and the name it points to
    # are one output, a chain of links included, and a link to the scene is the scene
    os.symlink("new.csv", os.path.join(d, "a.csv"))
    os.symlink("a.csv", os.path.join(d, "b.csv"))
    for args in (["-o", "a.csv", "--stats", "new.csv"], ["-o", "b.csv", "--stats", "new.csv"],
                 ["-o", "new.csv", "--save-state", "b.csv"]):
        code, _, err = run("run", path, "-q", "--duration", "0.1",
                           *[os.path.join(d, a) if a.endswith((".csv")) else a for a in args])
        check(code == 2 and ("are the same file" in err or "would overwrite" in err) and
              not os.path.exists(os.path.join(d, "new.csv")), (args, code, err))
        # naming the options that clash (the message named the paths alone)
        check("--save-state" in args or ("-o " in err and "--stats " in err), err)
    os.symlink(path, os.path.join(d, "scene-link.csv"))
    code, _, err = run("run", path, "-q", "-o", os.path.join(d, "scene-link.csv"))
    check(code == 2 and "is the scene file" in err, err)
    # "-" is standard output for -o and --stats, no checkpoint's file (one named "-" was made)
    code, _, err = run("run", path, "-q", "--duration", "0.1", "-o", os.devnull,
                       "--save-state", "-")
    check(code == 2 and "'-' (standard output) is not one" in err and
          not os.path.exists(os.path.join(ROOT, "-")), (code, err))
    # nor a replay page's, from run and from replay (each wrote a page named "-")
    csv_path = os.path.join(d, "for-replay.csv")
    check(run("run", path, "-q", "--duration", "0.1", "-o", csv_path)[0] == 0, "run")
    for args in (["run", path, "-q", "--duration", "0.1", "-o", os.devnull, "--replay", "-"],
                 ["replay", path, csv_path, "-o", "-"]):
        code, _, err = run(*args)
        check(code == 2 and "'-' (standard output) is not one" in err and
              not os.path.exists(os.path.join(ROOT, "-")), (args, code, err))
    # a device may stand for several outputs, the checkpoint too (it was refused as "would
    # overwrite the CSV output")
    code, _, err = run("run", path, "-q", "--duration", "0.1", "-o", os.devnull, "--stats",
                       os.devnull, "--save-state", os.devnull)
    check(code == 0, (code, err))
    # an output that fails to open removes the target a link's run created, not the link
    code, _, err = run("run", path, "-q", "-o", os.path.join(d, "a.csv"), "--stats",
                       os.path.join(d, "missing", "s.json"))
    check(code == 2 and os.path.islink(os.path.join(d, "a.csv")) and
          not os.path.exists(os.path.join(d, "new.csv")), (code, err, os.listdir(d)))
    # a link into a folder that does not exist is refused with the system's reason
    os.symlink(os.path.join("missing", "x.csv"), os.path.join(d, "far.csv"))
    code, _, err = run("run", path, "-q", "-o", os.path.join(d, "far.csv"))
    check(code == 2 and "No such file or directory" in err, err)


@case
def every_usage_error_starts_with_contactsim_error():
    path = write_scene(PENDULUM)
    bad = [[], ["frobnicate"], ["run"], ["run", path, path], ["run", path, "--bogus"], ["run", path, "-x"],
           ["run", path, "--duration"], ["run", path, "-o"], ["run", path, "--rtol", "abc"],
           ["run", path, "--integrator", "rk4"], ["run", path, "--max-step", "-1"],
           ["validate"], ["validate", path, "--duration", "1"], ["validate", path, "--bogus"],
           ["compare"], ["compare", path, "--format", "xml"], ["compare", path, "--models", "a,,b"],
           ["compare", path, "--bogus"], ["compare", path, "--out-dir"], ["compare", path, "--max-steps", "0"],
           ["run", "no/such.json"], ["compare", "no/such.json"], ["validate", "no/such.json"],
           ["sweep", "--bogus"], ["sweep", path, "--out"], ["sweep", "-x"], ["sweep", "-j"],
           ["replay", path, "--bogus"], ["replay", path, "-o"], ["help", "frobnicate"]]
    for args in bad:
        code, out, err = run(*args)
        check(code == 2, (args, code, err))
        check(err.startswith("contactsim: error: "), f"{args}: {err!r}")


@case
def readme_says_where_the_binary_is_and_quickstart_puts_it_on_the_path():
    readme = open(os.path.join(ROOT, "README.md")).read()
    check("build/contactsim" in readme, "README does not say where the binary is")
    quick = open(os.path.join(ROOT, "tools", "quickstart.sh")).read()
    check("export PATH=" in quick and "meson install" in quick, "quickstart does not put contactsim on the PATH")


# ---------------------------------------------------------------------------------------------
# honest CPU time, safe names

@case
def integration_time_is_cpu_time_under_load():
    # the run and a busy loop share one CPU: the integration time must still be the CPU time the
    # process used (its rusage) less what startup and the few reports cost, not a wall-clock
    # difference that counts the time the busy loop ran
    import time
    cpu = min(os.sched_getaffinity(0))
    pin = lambda: os.sched_setaffinity(0, {cpu})
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=pin)
    try:
        time.sleep(0.2)
        d = tempfile.mkdtemp()
        stats = os.path.join(d, "s.json")
        scene = os.path.join(ROOT, "scenes", "bench", "block_spin_slide.json")
        p = subprocess.Popen([EXE, "run", scene, "-q", "-o", "/dev/null", "--stats", stats,
                              "--rtol", "1e-9", "--atol", "1e-9", "--report-interval", "0.1",
                              "--integrator", "adams"],
                             preexec_fn=pin, cwd=ROOT)
        _, status, ru = os.wait4(p.pid, 0)
    finally:
        hog.kill()
        hog.wait()
    check(status == 0, status)
    used = ru.ru_utime + ru.ru_stime
    s = json.load(open(stats))
    check(used > 0.1, f"the run was too short to measure ({used} s)")
    check(s["cpu_seconds"] <= used + 0.01, f"cpu_seconds {s['cpu_seconds']} > rusage {used}")
    check(s["cpu_seconds"] >= 0.8 * used - 0.02, f"cpu_seconds {s['cpu_seconds']} of rusage {used}")
    check(0 <= s["statistics_cpu_seconds"] <= s["cpu_seconds"], s)


@case
def names_in_messages_are_escaped_and_json_stays_utf8():
    # Free text reaches the messages through the scene file's name (any bytes but '/') and the
    # scene's "name" (printable, but any bytes from 0x80: invalid UTF-8, or U+009B, the C1 CSI
    # that starts a terminal control sequence just as ESC [ does)
    with open(os.path.join(ROOT, "scenes", "compliant_block.json")) as f:
        scene = json.load(f)
    scene["name"] = "NAME"
    scene["simulation"]["duration"] = 0.2
    raw = json.dumps(scene).encode().replace(b'"NAME"', b'"ev\xffil \xc2\x9b2J"')
    d = tempfile.mkdtemp()
    path = os.path.join(d, "x\ncontactsim: ok \x1b[2J\x07.json")
    with open(path, "wb") as f:
        f.write(raw)
    stats = os.path.join(d, "s.json")

    def clean(stream, what):
        for line in stream.split(b"\n"):
            check(not line.startswith(b"contactsim: ok"), f"{what}: a name printed a line of its own: {stream!r}")
        check(not any(c in stream for c in (b"\x1b", b"\x07", b"\r", b"\xc2\x9b")),
              f"{what}: control characters printed: {stream!r}")
        stream.decode("utf-8")  # strict: raises on invalid UTF-8

    for args in (["run", path, "-o", os.path.join(d, "o.csv"), "--stats", stats],
                 ["validate", path], ["compare", path, "-q"], ["compare", path, "--models", "nope"],
                 ["run", path + "-missing"], ["run", path, "--contact-model", "x\x1b[2J"]):
        p = subprocess.run([EXE, *args], capture_output=True, cwd=ROOT)
        check(p.returncode in (0, 2), (args, p.returncode, p.stderr))
        clean(p.stdout, f"{args[0]} stdout")
        clean(p.stderr, f"{args[0]} stderr")
        if p.returncode == 2:
            check(p.stderr.startswith(b"contactsim: error: "), p.stderr)
        both = p.stdout + p.stderr
        check(b"\\xff" in both or b"\\n" in both, ("names shown escaped", args, both))
    # the JSON is valid UTF-8, with U+FFFD for the byte that is not
    doc = json.loads(open(stats, "rb").read().decode("utf-8"))
    check(doc["scene"] == "ev\ufffdil \u009b2J" and doc["file"] == path, doc["scene"])
    p = subprocess.run([EXE, "compare", path, "-q", "--format", "json"], capture_output=True, cwd=ROOT)
    check(json.loads(p.stdout.decode("utf-8"))["scene"] == "ev\ufffdil \u009b2J", p.stdout)
    # a backslash in a file name is shown as \\ in error messages too, as in the other output,
    # so that a file named "a\x1b.json" (backslash, x, 1, b) cannot pass for one with an ESC
    odd = os.path.join(d, "a\\x1b.json")
    with open(odd, "wb") as f:
        f.write(raw.replace(b'"duration": 0.2', b'"duration": -1'))
    for args in (["validate", odd], ["run", odd, "-q"]):
        p = subprocess.run([EXE, *args], capture_output=True, cwd=ROOT)
        check(p.returncode == 2 and b"a\\\\x1b.json" in p.stderr, (args, p.stderr))


@case
def tolerances_below_what_doubles_carry_are_said_to_be():
    # CVODE's "too much accuracy requested" was reported as a collapsed step, blaming forces
    # that jump or stop being finite
    code, _, err = run("run", os.path.join(ROOT, "scenes", "pendulum.json"), "-q", "-o",
                       os.devnull, "--rtol", "1e-17", "--atol", "1e-17", "--duration", "0.1")
    check(code == 1 and "rtol 1e-17 and atol 1e-17 ask for more accuracy than doubles carry"
          in err and "collapsed" not in err, (code, err))


@case
def collapsing_step_size_is_reported_as_such():
    with open(os.path.join(ROOT, "scenes", "compliant_block.json")) as f:
        scene = json.load(f)
    # Stribeck friction with a 1e-12 m/s transition: the friction force jumps between -mu N and
    # mu N across zero slip, and no step size resolves it
    scene["contact_models"]["compliant_point"]["transition_velocity"] = 1e-12
    path = write_scene(scene)
    for integrator, max_steps in (("adams", "20000"), ("bdf", "100000")):
        code, _, err = run("run", path, "-o", "/dev/null", "--integrator", integrator,
                           "--max-steps", max_steps)
        check(code == 1, (integrator, code, err))
        check(re.search(r"the step size collapsed to h = [0-9.e-]+ s at t = 0\.10[0-9]+ s", err),
              f"{integrator}: {err}")
        check("below what rounding leaves" not in err, err)  # the tolerances are usable
    # an atol far below the rounding of the state's values collapses any run, the forces
    # regular: the message says so beside the forces (free fall at 1e-300 and 1e-50)
    for atol, integrator in (("1e-300", "bdf"), ("1e-50", "rk")):
        code, _, tight = run("run", "scenes/free_fall.json", "-q", "-o", os.devnull, "--atol",
                             atol, "--integrator", integrator)
        check(code == 1 and f"or atol {atol} is below what rounding leaves" in tight,
              (code, tight))
    # the BDF failure carries CVODE's own message
    check("CVODE said: CVode: At t = " in err and "error test failed repeatedly" in err, err)
    # Late in a long run the same collapse reaches the rounding of t itself: continued from a
    # checkpoint at t = 1e6 s (where one unit in the last place of t is 1.2e-10 s), a step no
    # longer moves the time: the run stops there, saying so, instead of going on with the time
    # standing still. Its steps (about 4e-11 s) are above 1e-9 of the report interval, steps
    # the motion could take nearer 0, so the message blames the time's rounding
    d = os.path.dirname(path)
    state = os.path.join(d, "early.state")
    code, _, err = run("run", path, "-q", "-o", "/dev/null", "--duration", "0.01",
                       "--save-state", state)
    check(code == 0, err)
    text = open(state).read()
    check("\ncommit 0\n" in text, "no auto-update element: no commit time to move along")
    text = re.sub(r"^t 0x\S+", f"t {float(1e6).hex()}", text, flags=re.M)
    late = os.path.join(d, "late.state")
    with open(late, "w") as f:
        f.write(text)
    code, _, err = run("run", path, "-o", "/dev/null", "--initial-state", late, "--duration",
                       str(1e6 + 0.3), "--report-interval", "0.01", "--integrator", "adams",
                       "--max-steps", "20000")
    check(code == 1, (code, err))
    check(re.search(r"the step of [0-9.e-]+ s is lost in rounding at t = 1000000\.[0-9]+ s, "
                    r"where doubles are 1\.16e-10 s apart", err), err)
    # A step that CVODE takes but that the time cannot follow, near t = 0.3 s where doubles are
    # 5.6e-17 s apart: a ball on a floor whose damping (1e50 s/m) no step resolves. The step
    # (about 1e-17 s) is far below 1e-9 of the report interval, so it is the collapse, not the
    # time being too large
    drop = os.path.join(ROOT, "scenes", "sphere_drop.json")
    for integrator in ("bdf", "adams"):
        code, _, err = run("run", drop, "-o", "/dev/null", "--integrator", integrator, "--set",
                           "contact_models.hunt_crossley.dissipation=1e50")
        check(code == 1, (integrator, code, err))
        check(re.search(r"the step size collapsed to h = [0-9.e-]+ s at t = 0\.3[0-9]+ s", err)
              and "nearer 0" not in err, f"{integrator}: {err}")
    # CPU per simulated second counts the time simulated after the checkpoint, not since t = 0
    m = re.search(r"; ([0-9.e-]+) s CPU for the integration \(([0-9.e-]+) CPU s per simulated s\)", err)
    check(m and float(m.group(2)) > float(m.group(1)), err)

@case
def max_rows_counts_the_rows_a_continued_run_writes():
    """--max-rows with --initial-state: the rows the run writes, from the checkpoint's time to
    the end time (--duration is that end time, counted from t = 0), not those of a run from 0"""
    path = write_scene(PENDULUM)  # every 0.01 s
    d = os.path.dirname(path)
    ck = os.path.join(d, "one.state")
    code, _, err = run("run", path, "-q", "-o", os.devnull, "--duration", "1", "--save-state", ck)
    check(code == 0, err)
    out = os.path.join(d, "rest.csv")
    # from t = 1 s to the end time 3 s: 201 rows, which the limit of 201 allows
    code, _, err = run("run", path, "-q", "-o", out, "--initial-state", ck, "--duration", "3",
                       "--max-rows", "201")
    check(code == 0, (code, err))
    _, rows = read_csv(out)
    check(len(rows) == 201 and rows[0][0] == 1 and rows[-1][0] == 3,
          (len(rows), rows[0][0], rows[-1][0]))
    # one fewer is refused before anything is written, naming that span
    os.remove(out)
    code, _, err = run("run", path, "-q", "-o", out, "--initial-state", ck, "--duration", "3",
                       "--max-rows", "200")
    check(code == 2 and "the run would write 201 report rows (2 s, from t = 1 s to 3 s, one "
          "row every 0.01 s), more than the limit of 200" in err, (code, err))
    check(not os.path.exists(out), "an output was created for a refused run")
    # a checkpoint between two report times: its row, the multiples of the interval after it
    # and the end, counted exactly (a run of the same length from t = 0 writes one row fewer)
    ck = os.path.join(d, "off.state")
    code, _, err = run("run", path, "-q", "-o", os.devnull, "--duration", "1.009",
                       "--save-state", ck)
    check(code == 0, err)
    code, _, err = run("run", path, "-q", "-o", out, "--initial-state", ck, "--duration", "1.031",
                       "--max-rows", "5")
    check(code == 0, (code, err))
    _, rows = read_csv(out)
    check([r[0] for r in rows] == [1.009, 1.01, 1.02, 1.03, 1.031], [r[0] for r in rows])
    code, _, err = run("run", path, "-q", "-o", out, "--initial-state", ck, "--duration", "1.031",
                       "--max-rows", "4")
    check(code == 2 and "5 report rows (0.022 s, from t = 1.009 s to 1.031 s" in err, (code, err))
    # counts beyond 1e15 are refused on the command line as in the scene (1e15 + 1 was taken)
    for opt in ("--max-rows", "--max-steps"):
        code, _, err = run("run", path, "-q", "-o", os.devnull, opt, "1000000000000001")
        check(code == 2 and "from 1 to 1000000000000000" in err, (opt, code, err))
    # an end beyond 2^52 report intervals is refused as such: no row limit would help (the
    # message said "would write inf report rows ... raise it with --max-rows")
    for args in (["--duration", "1e308"], ["--duration", "1e300", "--max-rows", "999999999999999"]):
        code, _, err = run("run", path, "-q", "-o", os.devnull, *args)
        check(code == 2 and "beyond the 2^52 that doubles count exactly" in err and
              "--max-rows" not in err, (args, code, err))
    # far from t = 0: a checkpoint at t = 1e6 s continued for 0.05 s writes 6 rows (counted
    # from t = 0 they were 100000006, and the run was refused)
    text = open(os.path.join(d, "one.state")).read()
    check("\ncommit 0\n" in text, "no auto-update element: no commit time to move along")
    text = re.sub(r"^t 0x\S+", f"t {float(1e6).hex()}", text, flags=re.M)
    late = os.path.join(d, "late.state")
    with open(late, "w") as f:
        f.write(text)
    code, _, err = run("run", path, "-q", "-o", out, "--initial-state", late, "--duration",
                       "1000000.05", "--max-rows", "6")
    check(code == 0, (code, err))
    _, rows = read_csv(out)
    check(len(rows) == 6 and rows[0][0] == 1e6 and rows[-1][0] == 1000000.05,
          [r[0] for r in rows])

finish()
