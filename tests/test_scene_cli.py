#!/usr/bin/env python3
"""The scene as the command line reads it: parameters set by key path (--set), the scene read
exactly once (named pipes, standard input), every contact model checked by validate, output
limits. Usage: test_scene_cli.py PATH/TO/contactsim"""
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from casekit import case, check, finish

EXE = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, timeout=120, stdin=None):
    p = subprocess.run([EXE, *args], capture_output=True, timeout=timeout, cwd=ROOT,
                       input=stdin)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def write_scene(obj, name="scene.json", d=None):
    d = d or tempfile.mkdtemp()
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
    return path


def load(relpath):
    with open(os.path.join(ROOT, relpath)) as f:
        return json.load(f)


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ---------------------------------------------------------------------------------------------
# --set KEY=VALUE

@case
def set_gives_the_bytes_of_the_edited_file():
    # the scene with --set against the file edited to the same values: the same CSV, byte for
    # byte (the values cover a body, a contact model block, a contact, and simulation keys that
    # the scene has and has not)
    scene = load("scenes/compliant_block.json")
    scene["simulation"].pop("rtol", None)
    d = tempfile.mkdtemp()
    base = write_scene(scene, "base.json", d)
    edited = json.loads(json.dumps(scene))
    edited["bodies"][0]["mass"] = 3.0
    edited["contact_models"]["compliant_point"]["body_material"]["mu_static"] = 0.9
    edited["contacts"][0]["points"][0] = [-0.2, -0.1, -0.06]
    edited["simulation"]["rtol"] = 1e-7
    edited["simulation"]["duration"] = 0.3
    edited["bodies"][0]["joint"]["initial"]["velocity"] = [0.5, 0, 0]
    path_edited = write_scene(edited, "edited.json", d)
    sets = ["bodies.block.mass=3.0",
            "contact_models.compliant_point.body_material.mu_static=0.9",
            "contacts.corners.points[0]=[-0.2, -0.1, -0.06]",
            "simulation.rtol=1e-7", "simulation.duration=0.3",
            "bodies.block.joint.initial.velocity=[0.5,0,0]"]
    args = [a for s in sets for a in ("--set", s)]
    out_set, out_edit = os.path.join(d, "set.csv"), os.path.join(d, "edit.csv")
    code, _, err = run("run", base, "-q", "--forces", "-o", out_set, *args)
    check(code == 0, err)
    code, _, err = run("run", path_edited, "-q", "--forces", "-o", out_edit)
    check(code == 0, err)
    a, b = read(out_set), read(out_edit)
    check(len(a) > 1000 and a == b, "run --set and the edited file give different CSV")
    # and the plain scene differs (the values did change something)
    out_base = os.path.join(d, "base.csv")
    code, _, err = run("run", base, "-q", "--forces", "-o", out_base, "--duration", "0.3")
    check(code == 0 and read(out_base) != a, "the --set values changed nothing")
    # validate and compare accept the same --set
    code, out, err = run("validate", base, *args)
    check(code == 0 and "ok" in out, (code, err))
    code, out, err = run("compare", base, "-q", "--format", "csv", *args)
    check(code == 0, (code, err))


@case
def set_chooses_the_anchor_rule():
    # a string-valued kind parameter through --set: the exponential spring's anchor rule. The
    # pushed foot under "limit" is the edited file's run byte for byte, differs from the default
    # rule's, and is held once it has settled (docs/contact-models.md, "The anchor rule")
    scene = load("scenes/bench/foot_push.json")
    d = tempfile.mkdtemp()
    base = write_scene(scene, "base.json", d)
    edited = json.loads(json.dumps(scene))
    edited["contact_models"]["exponential_spring"]["anchor_rule"] = "limit"
    path_edited = write_scene(edited, "edited.json", d)
    out_set, out_edit, out_base = (os.path.join(d, n) for n in ("set.csv", "edit.csv", "base.csv"))
    code, _, err = run("run", base, "-q", "-o", out_set,
                       "--set", 'contact_models.exponential_spring.anchor_rule="limit"')
    check(code == 0, err)
    code, _, err = run("run", path_edited, "-q", "-o", out_edit)
    check(code == 0, err)
    check(read(out_set) == read(out_edit), "--set anchor_rule and the edited file differ")
    code, _, err = run("run", base, "-q", "-o", out_base)
    check(code == 0 and read(out_base) != read(out_set), "the anchor rule changed nothing")
    rows = [line.split(",") for line in read(out_set).decode().splitlines()[1:]]
    x = {round(float(r[0]), 6): float(r[1]) for r in rows}
    check(abs(x[2.0] - x[1.0]) < 1e-4, f"the pushed foot moved {x[2.0] - x[1.0]} m while held")
    # a rule the kind does not have: exit 2, the path and the accepted names
    code, _, err = run("validate", base, "--set",
                       'contact_models.exponential_spring.anchor_rule="sticky"')
    check(code == 2 and "contact_models.exponential_spring.anchor_rule" in err
          and '"blended", "limit"' in err, (code, err))


@case
def set_errors_name_the_override():
    path = write_scene(load("scenes/compliant_block.json"))
    for cmd in (["run", "-q"], ["validate"], ["compare", "-q"]):
        for key, value, text in (
                ("bodies.foo.mass", "2",
                 "--set bodies.foo.mass: the scene has no body named 'foo'"),
                ("forces.left_foot.mu_static", "0.5",
                 "--set forces.left_foot.mu_static: the scene has no force element named "
                 "'left_foot'"),
                ("simulation.rtool", "1e-6", "--set simulation.rtool: unknown key 'rtool'"),
                ("bodies.block.mass.x", "1", "--set bodies.block.mass.x: 'bodies.block.mass' is a"),
                ("simulation.integrator", "adams", "not JSON text"),
        ):
            code, _, err = run(cmd[0], path, *cmd[1:], "--set", f"{key}={value}")
            check(code == 2 and text in err and path in err, (cmd, key, code, err))
        # a bad value is the scene's error, at its JSON path
        code, _, err = run(cmd[0], path, *cmd[1:], "--set", "bodies.block.mass=-2")
        check(code == 2 and "bodies[0].mass: must be > 0" in err, (cmd, code, err))
        # no '=' at all is a usage error, said once (not also as an unknown option)
        code, _, err = run(cmd[0], path, *cmd[1:], "--set", "bodies.block.mass")
        check(code == 2 and "KEY=VALUE" in err and len(err.strip().splitlines()) == 1,
              (cmd, code, err))
    # in a scene without a simulation block the override creates it: an unknown key inside it,
    # or a created member of the wrong type, is still the override's; a bad value inside it is
    # the scene's, at its path (a sweep then records the run as failed)
    scene = load("scenes/compliant_block.json")
    scene.pop("simulation", None)
    scene.pop("name", None)
    path = write_scene(scene)
    for key, value, text in (("simulation.rtool", "1e-6", "--set simulation.rtool: unknown key"),
                             ("name.x", "1", "--set name.x: expected a string"),
                             ("simulation.rtol", "-1", ": simulation.rtol: must be > 0")):
        code, _, err = run("validate", path, "--set", f"{key}={value}")
        check(code == 2 and text in err, (key, code, err))
    check("--set simulation.rtol" not in err, err)


@case
def set_path_that_two_names_fit_is_refused():
    # names may hold dots: with bodies 'arm' and 'arm.mass', bodies.arm.mass.x would be the body
    # 'arm.mass' (the longest name) or the mass of 'arm'; taken silently, it set the wrong one
    scene = load("scenes/pendulum.json")
    body = scene["bodies"][0]
    other = json.loads(json.dumps(body))
    other["name"] = body["name"] + ".mass"
    other["joint"]["parent"] = body["name"]
    scene["bodies"].append(other)
    path = write_scene(scene)
    name = body["name"]
    code, _, err = run("validate", path, "--set", f"bodies.{name}.mass=2")
    check(code == 2 and "is ambiguous" in err and "bodies[1] or bodies[0].mass" in err
          and path in err, (code, err))
    # by index, each is set: the second body's mass, then (an error at its path) the first's
    code, _, err = run("validate", path, "--set", "bodies[1].mass=2")
    check(code == 0, err)
    code, _, err = run("validate", path, "--set", "bodies[0].mass=-1")
    check(code == 2 and "bodies[0].mass: must be > 0" in err, (code, err))
    # a path only the longer name leads on (the first body's mass has no 'joint') is its
    code, _, err = run("validate", path, "--set", f"bodies.{name}.mass.joint.q=[0.1]",
                       "--set", f"bodies.{name}.mass.mass=-3")
    check(code == 2 and "bodies[1].mass: must be > 0" in err, (code, err))
    # and one only the shorter name leads on is the shorter's: with bodies 'arm' and
    # 'arm.joint', bodies.arm.joint.type is arm's joint's type (it was refused as ambiguous,
    # offering bodies[1].type, which no body has)
    scene["bodies"][1]["name"] = name + ".joint"
    path = write_scene(scene)
    code, out, err = run("validate", path, "--set", f'bodies.{name}.joint.type="slider"')
    check(code == 0, (code, out, err))
    code, out, err = run("validate", path, "--set", f'bodies.{name}.joint.type="hinge"')
    check(code == 2 and "bodies[0].joint.type" in err, (code, out, err))


# ---------------------------------------------------------------------------------------------
# the scene is read exactly once

@case
def integrator_rk_by_set_and_by_option():
    """simulation.integrator="rk" and --integrator rk both run the explicit Runge-Kutta
    integrator (no Jacobians, at least six right-hand sides a step; rk23 three), which swings
    the pendulum of scenes/pendulum.json to where BDF does; a misspelt name is the loader's
    error"""
    d = tempfile.mkdtemp()
    ends = {}
    runs = [("bdf", "bdf", ["--integrator", "bdf"])]
    for integ in ("rk", "rk23"):
        runs += [(integ + " set", integ, ["--set", 'simulation.integrator="%s"' % integ]),
                 (integ + " option", integ, ["--integrator", integ])]
    for name, integ, args in runs:
        stats = os.path.join(d, name.replace(" ", "_") + ".json")
        out = os.path.join(d, name.replace(" ", "_") + ".csv")
        code, _, err = run("run", "scenes/pendulum.json", "-q", "--rtol", "1e-9", "--atol",
                           "1e-11", "-o", out, "--stats", stats, *args)
        check(code == 0, (name, code, err))
        with open(stats) as f:
            st = json.load(f)
        if integ != "bdf":
            check(st["integrator"] == integ and st["linear_solver"] == "none", (name, st))
            check(st["jacobian_evaluations"] == 0 and st["steps"] > 0, (name, st))
            per = 3 if integ == "rk23" else 6
            check(per * st["steps"] <= st["rhs_evals"] <= (per + 1) * st["steps"] + 300,
                  (name, st))
        with open(out) as f:
            rows = list(csv.reader(f))
        ends[name] = [float(x) for x in rows[-1]]
    for integ in ("rk", "rk23"):
        check(ends[integ + " option"] == ends[integ + " set"], "the same run either way")
        for a, b in zip(ends[integ + " set"], ends["bdf"]):
            check(abs(a - b) <= 1e-5 * (1 + abs(b)), (integ, a, b))
    code, _, err = run("run", "scenes/pendulum.json", "-q", "-o", os.devnull, "--set",
                       'simulation.integrator="rk4"')
    check(code == 2 and "simulation.integrator" in err and "(bdf, adams, rk, ark, rk23)" in err,
          err)
    code, _, err = run("run", "scenes/pendulum.json", "-q", "-o", os.devnull, "--integrator",
                       "rk4")
    check(code == 2 and "integrator" in err, err)


def run_from_fifo(args_before, args_after, text, timeout=30):
    """Run contactsim with the scene in a named pipe written once by a thread: a second read of
    the scene would wait for a writer that never comes, and the run would time out."""
    import threading
    d = tempfile.mkdtemp()
    fifo = os.path.join(d, "scene.json")
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "w") as f:
            f.write(text)

    th = threading.Thread(target=writer, daemon=True)
    th.start()
    try:
        return run(*args_before, fifo, *args_after, timeout=timeout) + (fifo,)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{args_before}: timed out reading the scene from a named pipe "
                             "(read more than once?)")


@case
def a_stop_signal_while_the_scene_loads_is_told():
    # SIGTERM while a large scene loads (20,000 blocks: seconds): the command says so once it
    # has loaded, writes nothing and exits 128 + 15 (it was ended without a word); while the
    # scene's text is still being read (a named pipe with no writer yet) the signal ends it at
    # once, as before any handler (a caught one restarted the read, which waited on)
    d = tempfile.mkdtemp()
    big = os.path.join(d, "big.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "make_large_scene.py"),
                    "bodies", "20000", big], check=True)
    text = open(big).read()
    for command, outputs in (("run", ["-o", "out.csv"]), ("compare", ["--out-dir", "cmp"])):
        w = tempfile.mkdtemp()
        fifo = os.path.join(w, "scene.json")
        os.mkfifo(fifo)
        p = subprocess.Popen([EXE, command, fifo, *outputs, "-q", "--duration", "0.001"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=w)
        with open(fifo, "w") as f:  # returns once contactsim has opened it to read
            f.write(text)
        time.sleep(0.3)  # the text read (the pipe holds at most 64 kB of it), the load under way
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
        check(p.returncode == 128 + signal.SIGTERM and
              "scene.json: interrupted by SIGTERM before the run began; nothing was written"
              in err, (command, p.returncode, err))
        check(sorted(os.listdir(w)) == ["scene.json"], (command, os.listdir(w)))
        # no writer yet: the signal ends the wait
        os.unlink(fifo)
        os.mkfifo(fifo)
        p = subprocess.Popen([EXE, command, fifo, *outputs, "-q"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, cwd=w)
        time.sleep(0.3)
        p.send_signal(signal.SIGTERM)
        try:
            p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise AssertionError(f"{command}: a SIGTERM did not end the wait for the scene")
        check(p.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM), (command, p.returncode))


@case
def fifo_and_stdin_scenes_run_and_compare():
    text = open(os.path.join(ROOT, "scenes/bench/block_spin_slide.json")).read()
    d = tempfile.mkdtemp()
    plain = os.path.join(d, "block.json")
    with open(plain, "w") as f:
        f.write(text)
    short = ["--duration", "0.2"]
    # the reference: the same scene from a plain file
    code, ref_csv, err = run("run", plain, "-q", *short)
    check(code == 0 and ref_csv, err)
    code, ref_cmp, err = run("compare", plain, "-q", "--format", "csv", *short)
    check(code == 0, err)
    ref_cmp_rows = [r.split(",")[:1] for r in ref_cmp.splitlines()]
    # run and compare from a named pipe
    code, out, err, fifo = run_from_fifo(["run"], ["-q", *short], text)
    check(code == 0 and out == ref_csv, f"run from a pipe: exit {code}: {err}")
    code, out, err, fifo = run_from_fifo(["compare"], ["-q", "--format", "csv", *short], text)
    check(code == 0 and [r.split(",")[:1] for r in out.splitlines()] == ref_cmp_rows,
          f"compare from a pipe: exit {code}: {err}")
    code, out, err, fifo = run_from_fifo(["validate"], [], text)
    check(code == 0 and "ok" in out, f"validate from a pipe: exit {code}: {err}")
    # run --stats names the contact model from the one read
    stats = os.path.join(d, "stats.json")
    code, out, err, fifo = run_from_fifo(["run"], ["-q", *short, "--stats", stats], text)
    check(code == 0, err)
    model = json.load(open(stats)).get("model")
    check(model == "exponential_spring", f"run --stats model {model}")
    # standard input, "-"
    code, out, err = run("run", "-", "-q", *short, stdin=text.encode())
    check(code == 0 and out == ref_csv, f"run from stdin: exit {code}: {err}")
    code, out, err = run("compare", "-", "-q", "--format", "csv", *short, stdin=text.encode())
    check(code == 0 and [r.split(",")[:1] for r in out.splitlines()] == ref_cmp_rows,
          f"compare from stdin: exit {code}: {err}")
    code, out, err = run("validate", "-", stdin=text.encode())
    check(code == 0 and out.startswith("<stdin>: ok:"), f"validate from stdin: exit {code}: {err}")
    code, out, err = run("compare", "-", "-q", *short, stdin=text.encode())
    check(code == 0 and "(<stdin>)" in out.splitlines()[0], f"compare's title: {out}")
    # an error in a scene from standard input names it
    code, out, err = run("validate", "-", stdin=b'{"bodies": 3}')
    check(code == 2 and "<stdin>: bodies: expected an array" in err, err)
    code, out, err = run("compare", "-", stdin=b'{"contacts": [], "contact_models": 1}')
    check(code == 2 and "<stdin>: contact_models" in err, err)
    code, out, err = run("compare", "-", "--models", "nosuch", stdin=text.encode())
    check(code == 2 and err.startswith("contactsim: error: <stdin>: "), err)
    # and so does a run refused before it starts (too many rows), and standard input that
    # cannot be read (a directory), which named it "-"
    code, out, err = run("run", "-", "-q", "-o", os.devnull, "--duration", "1",
                         "--max-rows", "2", stdin=text.encode())
    check(code == 2 and err.startswith("contactsim: error: <stdin>: the run would write 101"),
          err)
    directory = os.open(ROOT, os.O_RDONLY)
    try:
        p = subprocess.run([EXE, "run", "-", "-q", "-o", os.devnull], stdin=directory,
                           capture_output=True, text=True, timeout=60)
    finally:
        os.close(directory)
    check(p.returncode != 0 and "error: <stdin>: cannot read 'standard input'" in p.stderr,
          p.stderr)


# ---------------------------------------------------------------------------------------------
# validate checks every contact model the scene could run under

@case
def a_scene_on_standard_input_is_not_overwritten():
    # `run - -o sc.json < sc.json` wrote the CSV over the scene it was reading: standard input
    # redirected from a file is that file, refused as an output as the named scene is
    src = os.path.join(ROOT, "scenes", "pendulum.json")
    text = read(src)
    d = tempfile.mkdtemp()
    scene = os.path.join(d, "sc.json")
    other = os.path.join(d, "x.csv")
    page = os.path.join(d, "replay.html")
    cases = [(["run", "-", "-q", "-o", scene], "sc.json is the scene file"),
             (["run", "-", "-q", "-o", other, "--stats", scene], "sc.json is the scene file"),
             (["run", "-", "-q", "-o", other, "--save-state", scene], "would overwrite the scene"),
             (["compare", "-", "-q", "--out-dir", d], "compare.json is the scene file"),
             (["replay", "-", other, "-o", scene], "would overwrite the scene (standard input)")]
    with open(other, "w") as f:
        f.write("t\n")
    for args, what in cases:
        target = os.path.join(d, "compare.json") if args[0] == "compare" else scene
        with open(target, "wb") as f:
            f.write(text)
        with open(target, "rb") as f:
            env = dict(os.environ, CONTACTSIM_REPLAY_TEMPLATE=src)  # any file: refused first
            p = subprocess.run([EXE, *args, "--duration", "0.05"] if args[0] != "replay" else
                               [EXE, *args], stdin=f, capture_output=True, text=True,
                               timeout=60, cwd=ROOT, env=env)
        check(p.returncode == 2 and what in p.stderr, (args, p.returncode, p.stderr))
        check(read(target) == text, f"{args}: the scene was changed")
        check(not os.path.exists(page), "a page was written")
    # from a pipe standard input is no file: the run goes ahead
    code, _, err = run("run", "-", "-q", "--duration", "0.05", "-o", other, stdin=text)
    check(code == 0, err)


@case
def standard_output_is_not_an_input():
    # `run sc.json >> sc.json` appended the CSV to the scene (and validate, compare and a dry
    # sweep their lines; a continued run's to its checkpoint): standard output going to an input
    # is refused before anything is written
    src = os.path.join(ROOT, "scenes", "pendulum.json")
    text = read(src)
    d = tempfile.mkdtemp()
    scene = os.path.join(d, "sc.json")
    state = os.path.join(d, "start.state")
    study = os.path.join(d, "study.json")
    with open(scene, "wb") as f:
        f.write(text)
    code, _, err = run("run", scene, "-q", "--duration", "0.05", "-o", os.devnull,
                       "--save-state", state)
    check(code == 0, err)
    with open(study, "w") as f:
        json.dump({"scene": "sc.json", "parameters": [{"key": "simulation.duration",
                                                       "values": [0.05, 0.1]}]},
                  f)
    cases = [(["run", scene, "-q", "--duration", "0.05"], scene, "the scene file"),
             (["run", scene, "-q", "-o", "-", "--duration", "0.05"], scene, "the scene file"),
             (["validate", scene], scene, "the scene file"),
             (["compare", scene, "-q", "--duration", "0.05"], scene, "the scene file"),
             (["run", scene, "-q", "--duration", "0.1", "--initial-state", state], state,
              "the checkpoint file"),
             (["sweep", study, "--dry-run"], study, "the study file"),
             (["sweep", study, "--dry-run"], scene, "the scene file"),
             (["run", "-", "-q", "--duration", "0.05"], scene,
              "the scene file standard input comes from")]
    for args, target, what in cases:
        before = open(target, "rb").read()
        with open(target, "ab") as out, open(scene, "rb") as inp:
            p = subprocess.run([EXE, *args], stdin=inp, stdout=out, stderr=subprocess.PIPE,
                               text=True, timeout=60, cwd=d)
        check(p.returncode == 2 and "standard output goes to " + what in p.stderr,
              (args, p.returncode, p.stderr))
        check(open(target, "rb").read() == before, f"{args}: {target} was changed")
    # standard output to another file: the run goes ahead
    with open(os.path.join(d, "out.csv"), "wb") as out:
        p = subprocess.run([EXE, "run", scene, "-q", "--duration", "0.05"], stdout=out,
                           stderr=subprocess.PIPE, text=True, timeout=60, cwd=d)
    check(p.returncode == 0 and read(os.path.join(d, "out.csv")).startswith(b"t,"), p.stderr)


@case
def validate_checks_every_model_block_and_change():
    scene = load("scenes/bench/block_spin_slide.json")
    # a compliant_point block with a negative penalty_stiffness: not the default model, but compare runs it
    broken = json.loads(json.dumps(scene))
    broken["contact_models"]["compliant_point"] = {"penalty_stiffness": -1}
    path = write_scene(broken)
    code, out, err = run("validate", path)
    check(code == 2 and "contact_models.compliant_point.penalty_stiffness" in err
          and "compliant_point" in err, (code, out, err))
    code, _, err2 = run("compare", path, "-q", "--duration", "0.01")
    check(code == 2, "compare should refuse the scene validate refused")
    # a change of static friction runs under every model that has static friction
    changed = json.loads(json.dumps(scene))
    changed["changes"] = [{"time": 0.5, "force": "corners", "mu_static": 0.3}]
    path = write_scene(changed)
    code, out, err = run("validate", path)
    check(code == 0, (code, out, err))
    # and a value no model accepts is refused, naming the change
    changed["changes"] = [{"time": 0.5, "force": "corners", "mu_static": -5}]
    path = write_scene(changed)
    code, out, err = run("validate", path)
    check(code == 2 and "changes[0].mu_static" in err, (code, out, err))
    # the scene as shipped validates (both its models load)
    code, out, err = run("validate", os.path.join(ROOT, "scenes/bench/block_spin_slide.json"))
    check(code == 0, err)


@case
def validate_with_a_model_checks_every_block_and_that_model_rules():
    # what docs/cli.md says validate --contact-model checks: every block's values one by one,
    # chosen or not (as scene-format.md says), the rules between one block's values only for
    # the model chosen
    with open(os.path.join(ROOT, "docs", "cli.md")) as f:
        doc = f.read()
    check("only that model is checked" not in doc and
          "every block's values are still\nchecked one by one, chosen or not" in doc,
          "docs/cli.md on validate --contact-model")
    scene = load("scenes/sphere_drop.json")
    bad = json.loads(json.dumps(scene))
    bad["contact_models"]["smooth_sphere_half_space"]["mu_static"] = -1
    code, _, err = run("validate", write_scene(bad), "--contact-model", "hunt_crossley")
    check(code == 2 and "contact_models.smooth_sphere_half_space.mu_static: must be >= 0" in err,
          (code, err))
    rule = json.loads(json.dumps(scene))
    rule["contact_models"]["smooth_sphere_half_space"].update(mu_static=0.2, mu_dynamic=0.5)
    path = write_scene(rule)
    code, out, err = run("validate", path, "--contact-model", "hunt_crossley")
    check(code == 0 and ": ok:" in out, (code, err))
    code, _, err = run("validate", path)
    check(code == 2 and "must not exceed mu_static" in err, (code, err))


@case
def duration_has_the_documented_lower_limit():
    # docs/cli.md said "(> 0)"; the limit is 1e-9 s, for --duration as for simulation.duration
    with open(os.path.join(ROOT, "docs", "cli.md")) as f:
        line = next(l for l in f if l.startswith("| `--duration T` |"))
    check("at least 1e-9" in line and "(> 0)" not in line, line)
    for cmd in ("run", "compare"):
        code, _, err = run(cmd, "scenes/pendulum.json", "-q", "--duration", "9.9e-10")
        check(code == 2 and "--duration must be at least 1e-09 s" in err, (cmd, code, err))
    code, _, err = run("run", "scenes/pendulum.json", "-q", "--duration", "1e-9", "-o", os.devnull)
    check(code == 0, err)


# ---------------------------------------------------------------------------------------------
# limits on the output: the smallest report interval, the most rows

PENDULUM = {
    "name": "pendulum", "gravity": [0, 0, -9.81],
    "bodies": [{"name": "arm", "mass": 1.0, "com": [0, 1, 0],
                "inertia": {"diag": [1e-3, 1e-3, 1e-3]},
                "joint": {"type": "pin", "parent": "ground", "q": [1.0], "u": [0.0]}}],
    "simulation": {"duration": 2.0, "report_interval": 0.01},
}


@case
def report_interval_has_one_lower_limit():
    scene = json.loads(json.dumps(PENDULUM))
    scene["simulation"]["report_interval"] = 5e-324
    path = write_scene(scene)
    for cmd in (["validate"], ["run", "-q"], ["compare", "-q"]):
        code, _, err = run(cmd[0], path, *cmd[1:], timeout=20)
        check(code == 2 and "simulation.report_interval: must be >= 1e-09" in err, (cmd, err))
    path = write_scene(PENDULUM)
    code, out, err = run("run", path, "-q", "--report-interval", "5e-324", timeout=20)
    check(code == 2 and "--report-interval" in err and out == "", err)
    code, out, err = run("run", path, "-q", "--report-interval", "1e-12", timeout=20)
    check(code == 2 and "--report-interval must be at least 1e-09" in err and out == "", err)
    # the limit itself is accepted (a short run)
    code, out, err = run("run", path, "-q", "--report-interval", "1e-9", "--duration", "1e-8")
    check(code == 0 and len(out.splitlines()) == 12, (code, err, len(out.splitlines())))


@case
def too_many_rows_are_refused_up_front():
    # a billion seconds every 0.01 s: refused at once, naming the numbers, nothing written
    scene = json.loads(json.dumps(PENDULUM))
    scene["simulation"]["duration"] = 1e9
    d = tempfile.mkdtemp()
    path = write_scene(scene, d=d)
    out = os.path.join(d, "out.csv")
    code, stdout, err = run("run", path, "-q", "-o", out, timeout=20)
    check(code == 2 and "100000000001 report rows" in err and "1e+09 s" in err
          and "0.01 s" in err and "limit of 10000000" in err and "--max-rows" in err, err)
    check(not os.path.exists(out), "an output was created for a refused run")
    code, stdout, err = run("compare", path, "-q", timeout=20)
    check(code == 2 and "100000000001 report rows" in err and stdout == "", err)
    # the limit from the scene, raised on the command line
    path = write_scene(PENDULUM)  # 2 s every 0.01 s: 201 rows
    code, _, err = run("run", path, "-q", "--set", "simulation.max_rows=150")
    check(code == 2 and "201 report rows" in err and "limit of 150" in err, err)
    # exactly at the limit runs: the count is the rows the run writes
    code, stdout, err = run("run", path, "-q", "--set", "simulation.max_rows=201")
    check(code == 0 and len(stdout.splitlines()) == 202, (code, err))
    code, stdout, err = run("run", path, "-q", "--set", "simulation.max_rows=200")
    check(code == 2 and "201 report rows" in err, (code, err))
    code, stdout, err = run("run", path, "-q", "--set", "simulation.max_rows=150",
                            "--max-rows", "1000")
    check(code == 0 and len(stdout.splitlines()) == 202, (code, err))
    code, stdout, err = run("run", path, "-q", "--max-rows", "0")
    check(code == 2, "--max-rows 0 accepted")
    code, _, err = run("validate", path, "--set", "simulation.max_rows=0")
    check(code == 2 and "simulation.max_rows" in err, err)
    # validate refuses what run refuses before it starts: too many rows, and an integrator the
    # model cannot have (ark's dense Jacobian for 100 blocks as one group of 1300 states)
    code, _, err = run("validate", path, "--set", "simulation.max_rows=150")
    check(code == 2 and "201 report rows" in err, (code, err))
    pile = os.path.join(ROOT, "scenes", "bench", "pile_100.json")
    dense = ["--set", 'simulation.integrator="ark"', "--set", 'simulation.linear_solver="dense"']
    code, _, err = run("validate", pile, *dense)
    check(code == 2 and "simulation.integrator" in err and "ark forms a dense Jacobian" in err,
          (code, err))
    code, _, err = run("run", pile, "-q", "-o", os.devnull, "--duration", "0.001", *dense)
    check(code == 2 and "ark forms a dense Jacobian" in err, (code, err))


# ---------------------------------------------------------------------------------------------
# messages

@case
def messages_escape_and_name_the_step():
    # a body name with a terminal escape and a byte that is not UTF-8: printed escaped, once
    d = tempfile.mkdtemp()
    path = os.path.join(d, "esc.json")
    with open(path, "wb") as f:
        f.write(b'{"bodies": [{"name": "a\\u001b[2Jb\xff", "mass": 1}]}')
    p = subprocess.run([EXE, "validate", path], capture_output=True, timeout=30)
    err = p.stderr
    check(p.returncode == 2 and b"\x1b" not in err and b"\xff" not in err, err)
    check(b"'a\\x1b[2Jb\\xff'" in err, err)
    # a largest step that cannot reach the first report: refused before the run, by its name
    scene = write_scene(PENDULUM)
    code, out, err = run("run", scene, "-q", "--max-step", "1e-9", timeout=20)
    check(code == 2 and out == "" and "--max-step: max_step 1e-09 s needs at least 10000000 "
          "steps" in err, err)
    # at the boundary: 1e5 steps of 1e-8 s add up to less than 1e-3 s, so the run takes one
    # more; max_steps equal to the count is refused up front, one more runs to the end
    tight = ["--duration", "0.001", "--max-step", "1e-8", "-o", os.devnull]
    code, out, err = run("run", scene, *tight, "--max-steps", "100000", timeout=20)
    check(code == 2 and "needs at least 100000 steps" in err, err)
    code, out, err = run("run", scene, *tight, "--max-steps", "100001", timeout=60)
    check(code == 0 and "finished at t = 0.001 s" in err, err)
    code, out, err = run("validate", scene, "--set", "simulation.max_step=1e-20", timeout=20)
    check(code == 2 and "simulation.max_step: max_step 1e-20 s is too small" in err, err)
    # the scene's max_step is judged with the run's duration and report interval, the command
    # line's where given: 1e-7 s cannot reach the scene's first report (0.01 s) in 1e5 steps,
    # but reaches 0.001 s (it was refused with the scene's report time before the options
    # applied)
    short = ["--set", "simulation.max_step=1e-7", "--duration", "0.002"]
    code, out, err = run("run", scene, *short, "--report-interval", "0.001", "-o", os.devnull,
                         timeout=60)
    check(code == 0 and "finished at t = 0.002 s" in err, err)
    code, out, err = run("compare", scene, *short, "-q", "--format", "csv", timeout=60)
    check(code == 0, err)
    code, out, err = run("run", scene, "--set", "simulation.max_step=1e-7", "-o", os.devnull,
                         timeout=20)
    check(code == 2 and "simulation.max_step: max_step 1e-07 s needs at least 100000 steps to "
          "reach the first report at t = 0.01 s" in err, err)
    # an unknown key inside a value that --set created is the override's fault, and the message
    # says where in that value it is (it named the override alone)
    pendulum = os.path.join(ROOT, "scenes", "pendulum.json")
    code, out, err = run("validate", pendulum, "--set",
                         'changes=[{"time": 0.5, "force": "gravity", "stiffness": 1}]')
    check(code == 2 and "--set changes: at changes[0].stiffness: 'gravity' (a force of type "
          "'gravity') has no discrete variable 'stiffness'" in err, err)
    # JSON nested past the parser's limit says so
    with open(path, "w") as f:
        f.write('{"bodies": ' + "[" * 1500 + "]" * 1500 + "}")
    code, out, err = run("validate", path)
    check(code == 2 and "nested more than 1000 levels" in err, err)


@case
def numbers_json_does_not_allow_are_refused():
    # cJSON hands numbers to strtod, which reads 010, 1. and -.5; JSON (RFC 8259) allows none of
    # them, and neither does a scene, a --set value or a study: malformed JSON at their line and
    # column, saying what is wrong, exit 2
    d = tempfile.mkdtemp()
    path = os.path.join(d, "scene.json")
    study = os.path.join(d, "study.json")
    pendulum = os.path.join(ROOT, "scenes", "pendulum.json")
    for number, why in (("010", "a number may not start with 0 followed by a digit"),
                        ("-01", "a number may not start with 0 followed by a digit"),
                        ("1.", "a decimal point must be followed by a digit"),
                        ("1.e1", "a decimal point must be followed by a digit"),
                        ("-.5", "a number needs a digit before its decimal point")):
        with open(path, "w") as f:
            f.write('{"name": "n",\n "gravity": [0, 0, %s]}\n' % number)
        said = f"malformed JSON at line 2, column 20: the number {number}: {why}"
        for cmd in (["validate"], ["run", "-q", "-o", os.devnull], ["compare", "-q"]):
            code, out, err = run(cmd[0], path, *cmd[1:])
            check(code == 2 and f"{path}:2:20: {said}" in err and out == "", (cmd, code, err))
        code, out, err = run("validate", pendulum, "--set", f"gravity=[0, 0, {number}]")
        check(code == 2 and f"--set gravity: the value '[0, 0, {number}]' is not JSON text: at "
              f"character 8, the number {number}: {why}" in err, (number, code, err))
        with open(study, "w") as f:
            f.write('{"scene": %s,\n "parameters": [{"key": "bodies.arm.mass", "values": [%s]}]}\n'
                    % (json.dumps(pendulum), number))
        code, out, err = run("sweep", study, "--dry-run")
        check(code == 2 and f"{study}:2:55: malformed JSON at line 2, column 55: the number "
              f"{number}: {why}" in err and out == "", (number, code, err))
    # the numbers JSON allows load, from the file, a --set value and a study
    for number in ("0", "-0", "0.5", "-0.5", "10", "1e5", "1E+5", "-1.25e-3"):
        with open(path, "w") as f:
            f.write('{"name": "n",\n "gravity": [0, 0, %s]}\n' % number)
        code, out, err = run("validate", path)
        check(code == 0 and "ok" in out, (number, code, err))
        code, out, err = run("validate", pendulum, "--set", f"gravity=[0, 0, {number}]")
        check(code == 0 and "ok" in out, (number, code, err))
        with open(study, "w") as f:
            f.write('{"scene": %s,\n "parameters": [{"key": "gravity", "values": [[0, 0, %s]]}]}\n'
                    % (json.dumps(pendulum), number))
        code, out, err = run("sweep", study, "--dry-run")
        check(code == 0 and len(out.splitlines()) == 2, (number, code, err))


@case
def scene_of_exactly_the_size_limit_loads():
    # 64 MiB is the largest scene read (whitespace padding a small scene): exactly that loads,
    # from a file and from standard input, and one byte more is refused with the limit named
    limit = 64 * 1024 * 1024
    text = read(os.path.join(ROOT, "scenes/free_fall.json"))
    d = tempfile.mkdtemp()
    path = os.path.join(d, "padded.json")
    for size, ok in ((limit - 1, True), (limit, True), (limit + 1, False)):
        with open(path, "wb") as f:
            f.write(text + b" " * (size - len(text)))
        for args, stdin in ((("validate", path), None), (("validate", "-"), read(path))):
            code, out, err = run(*args, stdin=stdin)
            if ok:
                check(code == 0 and "ok" in out, (size, args[1], code, err))
            else:
                check(code == 2 and "is larger than 67108864 bytes" in err, (size, code, err))
    os.remove(path)
    os.rmdir(d)


finish()
