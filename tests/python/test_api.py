"""The module's interface: errors for bad input carry file, JSON path and message; a failed run
raises with its partial trajectory; trajectories by CSV column name; loading with overrides;
compare; the version."""
import json
import math
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import contactsim
from conftest import G, ROOT, ball_drop, incline_block, pendulum, scene_path


# ---------------------------------------------------------------------------------------------
# bad input

def test_missing_file_names_the_file(tmp_path):
    path = str(tmp_path / "nothere.json")
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.load(path)
    assert e.value.file == path
    assert e.value.message
    assert path in str(e.value)
    # also a ValueError, for code that catches the general kind
    assert isinstance(e.value, ValueError)


def test_json_syntax_error_names_line_and_column(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "name": "x",\n  "bodies": [ }\n')
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.load(path)
    assert e.value.file == str(path)
    assert e.value.line == 3
    assert e.value.column > 0


def test_bad_value_names_the_json_path(tmp_path):
    scene = json.loads(pendulum(0.1))
    scene["bodies"][0]["mass"] = -1.0
    path = tmp_path / "negative_mass.json"
    path.write_text(json.dumps(scene))
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.load(path)
    assert e.value.file == str(path)
    assert e.value.path == "bodies[0].mass"
    assert "> 0" in e.value.message and "-1" in e.value.message


def test_bad_joint_q_names_the_json_path():
    scene = json.loads(pendulum(0.1))
    scene["bodies"][0]["joint"]["q"] = [0.1, 0.2]  # a pin has one coordinate
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.loads(json.dumps(scene), filename="two_q.json")
    assert e.value.file == "two_q.json"
    assert e.value.path.startswith("bodies[0].joint.q")


def test_unknown_key_is_refused():
    scene = json.loads(pendulum(0.1))
    scene["bodies"][0]["mas"] = 1.0
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.loads(json.dumps(scene))
    assert "mas" in e.value.path or "mas" in e.value.message


def test_contact_model_is_the_one_in_use():
    # asked for, the scene's default, none for a scene without contacts
    assert contactsim.loads(incline_block()).contact_model == "exponential_spring"
    assert contactsim.load(scene_path("bench/incline_stick.json"),
                           contact_model="hunt_crossley").contact_model == "hunt_crossley"
    assert contactsim.loads(pendulum(0.1)).contact_model is None


def test_unknown_contact_model():
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.loads(incline_block(), contact_model="no_such_model")
    assert "no_such_model" in e.value.message


def test_contact_model_on_a_scene_without_contacts_is_refused():
    # the library, not only the command line, refuses a model it would silently ignore
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.loads(pendulum(0.1), contact_model="hunt_crossley")
    assert "no \"contacts\"" in e.value.message
    assert contactsim.loads(pendulum(0.1)) is not None


def test_bad_override_names_its_key_path():
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.loads(incline_block(), overrides={
            "contact_models.exponential_spring.mu_static": -0.5})
    assert "mu_static" in e.value.path


def test_an_override_key_path_that_is_not_a_str_is_a_type_error():
    # a key path is a str: 1 is a wrong Python type (it was looked up as the key "1", a
    # SceneError), in load, loads and compare alike
    for bad in ({1: 2}, {None: 2}, [(b"simulation.rtol", 1e-8)], {("simulation", "rtol"): 1e-8}):
        with pytest.raises(TypeError, match="key path must be a str"):
            contactsim.loads(pendulum(0.1), overrides=bad)
    path = scene_path("pendulum.json")
    with pytest.raises(TypeError, match="key path must be a str"):
        contactsim.load(path, overrides={1: 2})
    with pytest.raises(TypeError, match="key path must be a str"):
        contactsim.compare(path, overrides={1: 2})
    # numpy's str is a str
    model = contactsim.loads(pendulum(0.1), overrides={np.str_("simulation.rtol"): 1e-8})
    assert model.options["rtol"] == 1e-8


def test_bad_run_options():
    model = contactsim.loads(pendulum(0.1))
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.run(model, rtol=-1.0)
    assert "rtol" in e.value.message
    with pytest.raises(contactsim.SceneError):
        contactsim.run(model, integrator="euler")
    # a value of the wrong Python type is a TypeError, as the docs say; a number out of range
    # is bad input
    with pytest.raises(TypeError, match="duration must be a number, not str"):
        contactsim.run(model, duration="long")
    with pytest.raises(TypeError, match="integrator must be a str, not int"):
        contactsim.run(model, integrator=3)
    # located as any option's error is (the scene's file, the path simulation)
    for call in (lambda: contactsim.run(model, rtol=10**400),
                 lambda: contactsim.Simulation(model, max_steps=10**400),
                 lambda: contactsim.Simulation(model).set_options(atol=10**400)):
        with pytest.raises(contactsim.SceneError, match="too large for a double") as e:
            call()
        assert e.value.file == model.file and e.value.path == "simulation", e.value
    with pytest.raises(TypeError):
        contactsim.run(model, contact_model="hunt_crossley")
    with pytest.raises(TypeError, match="multiple values for argument 'model'"):
        contactsim.Simulation(model, model=model)
    sim = contactsim.Simulation(model)
    with pytest.raises(TypeError, match="not a bool"):
        sim.advance_to(True)
    with pytest.raises(TypeError, match="not a bool"):
        sim.time = True
    with pytest.raises(TypeError, match="duration must be a number of seconds, not bool"):
        sim.run(True)
    with pytest.raises(TypeError, match="t_end must be a number of seconds, not str"):
        sim.run(t_end="0.5")
    assert len(sim.run(np.float64(0.02))) == 21  # reports every 1 ms (the pendulum scene)
    # an end that is not finite is refused as such, not as a count of rows
    with pytest.raises(contactsim.SceneError, match="cannot run to t = inf"):
        sim.run(t_end=float("inf"))
    assert sim.time == 0.02
    # a keyword no option has is a TypeError wherever options are taken (Simulation and
    # set_options raised SceneError, run TypeError)
    for call in (lambda: contactsim.Simulation(model, foo=1), lambda: sim.set_options(foo=1),
                 lambda: contactsim.Simulation(model, forces=True)):
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            call()
    # an option out of range is located as the library locates its own checks: the scene's
    # file and "simulation" (the module's checks left both empty)
    path = scene_path("pendulum.json")
    model = contactsim.load(path)
    for options in ({"rtol": float("nan")}, {"max_steps": 0}, {"rtol": -1.0},
                    {"report_interval": 1e-12}):
        with pytest.raises(contactsim.SceneError) as e:
            contactsim.run(model, **options)
        assert e.value.file == path and e.value.path == "simulation", (options, e.value)
    # a keyword with a NUL is no option ('rtol\0x' was read as rtol)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        contactsim.Simulation(model, **{"rtol\0x": 1e-3})
    # report times beyond 2^52 intervals are refused as such, not as too many rows (raising
    # max_rows, which the message asked for, cannot help)
    with pytest.raises(contactsim.SceneError, match="beyond the 2\\^52") as e:
        contactsim.run(model, duration=1e10, report_interval=1e-6)
    assert "max_rows" not in str(e.value)
    # a NUL in text given to loads is bad input at its place (it was a ValueError)
    with pytest.raises(contactsim.SceneError, match="NUL byte at line 2, column 3") as e:
        contactsim.loads('{"name":\n"a\x00b"}')
    assert (e.value.file, e.value.line, e.value.column) == ("<string>", 2, 3)


def test_the_forces_flag_takes_a_bool():
    # forces="yes" was taken as true (and "no" would have been too): a flag takes a bool,
    # Python's or numpy's, and anything else is a TypeError, as a bool is for a number
    model = contactsim.loads(pendulum(0.1, duration=0.01))
    sim = contactsim.Simulation(model)
    for bad in ("yes", "no", 1, 0, None, [True]):
        with pytest.raises(TypeError, match="forces must be a bool"):
            contactsim.run(model, forces=bad)
        with pytest.raises(TypeError, match="forces must be a bool"):
            contactsim.run(scene_path("pendulum.json"), forces=bad)
        with pytest.raises(TypeError, match="forces must be a bool"):
            sim.run(0.01, forces=bad)
        with pytest.raises(TypeError, match="forces must be a bool"):
            sim.run(t_end=0.01, forces=bad)
    assert sim.time == 0.0
    ball = contactsim.loads(ball_drop(duration=0.01))
    plain = contactsim.run(ball, forces=np.bool_(False))
    full = contactsim.run(ball, forces=np.bool_(True))
    assert "ball_floor.0.fz" in full.columns and "ball_floor.0.fz" not in plain.columns
    assert contactsim.Simulation(ball).run(0.01, forces=True).columns == full.columns


def test_numpy_values_inside_an_override_are_json():
    scene = scene_path("exp_spring_block.json")
    plain = contactsim.load(scene, overrides={"bodies.block.joint.u": [0.0, 0, 1, 0.5, 0, 0]})
    arrays = contactsim.load(scene, overrides={
        "bodies.block.joint.u": [np.float64(0), np.int64(0), np.int32(1), np.float32(0.5),
                                 np.int8(0), 0]})
    assert np.array_equal(plain.u0, arrays.u0)
    with pytest.raises(contactsim.SceneError, match="cannot be written as JSON") as e:
        contactsim.load(scene, overrides={"bodies.block.mass": [np.float64("nan")]})
    # naming the scene, as every other error of a load does (the file was '')
    assert e.value.file == os.fspath(scene) and str(e.value).startswith(os.fspath(scene))
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.loads(pendulum(0.1), overrides={"simulation.rtol": math.inf},
                         filename="pendulum.json")
    assert e.value.file == "pendulum.json"
    # text that is not text is a TypeError that says what loads takes
    with pytest.raises(TypeError, match="loads takes a scene's JSON text"):
        contactsim.loads(None)


def test_a_model_can_be_weakly_referenced():
    import gc
    import weakref
    model = contactsim.loads(pendulum(0.1))
    ref = weakref.ref(model)
    assert ref() is model
    del model
    gc.collect()
    assert ref() is None


def test_too_many_rows_are_refused_before_the_run(tmp_path):
    model = contactsim.loads(pendulum(0.1))
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.run(model, duration=10.0, report_interval=0.001, max_rows=1000)
    assert e.value.path == "simulation.max_rows"
    # reports at 0, 0.001, ..., 10: 10001 of them, the count the command line gives
    assert "10001 rows" in e.value.message and "1000" in e.value.message
    sim = contactsim.Simulation(model, max_rows=100)
    with pytest.raises(contactsim.SceneError):
        sim.run(1.0)
    assert sim.time == 0.0
    assert len(sim.run(0.05)) == 51
    # compare takes no max_rows=: its message names what it does take (it named max_rows=N)
    scene = tmp_path / "pendulum.json"
    scene.write_text(pendulum(0.1))
    with pytest.raises(contactsim.SceneError, match="overrides of compare"):
        contactsim.compare(scene, duration=1e9)
    with pytest.raises(TypeError):
        contactsim.compare(scene, duration=1e9, max_rows=10)


def test_a_run_of_exactly_max_rows_is_allowed():
    # 0, 0.01, ..., 0.1: eleven reports, not the twelve a floor-plus-two count says
    model = contactsim.loads(pendulum(0.1))
    traj = contactsim.run(model, duration=0.1, report_interval=0.01, max_rows=11)
    assert len(traj) == 11
    np.testing.assert_allclose(traj.t, np.linspace(0.0, 0.1, 11), atol=1e-15)
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.run(model, duration=0.1, report_interval=0.01, max_rows=10)
    assert "11 rows" in e.value.message
    # from t = 0.005 to 0.1 on the grid: 0.005, 0.01, ..., 0.1 (eleven again)
    sim = contactsim.Simulation(model, report_interval=0.01, max_rows=11)
    sim.advance_to(0.005)
    assert len(sim.run(t_end=0.1)) == 11


@pytest.mark.parametrize("name, value, words", [
    ("atol", math.inf, "finite"),
    ("rtol", math.nan, "finite"),
    ("duration", math.inf, "finite"),
    ("report_interval", math.inf, "finite"),
    ("max_step", math.nan, "finite"),
    ("initial_step", math.inf, "finite"),
    ("report_interval", 1e-12, ">= 1e-09"),
    ("max_rows", 0, "whole number from 1"),
    ("max_rows", -5, "whole number from 1"),
    ("max_steps", 0, "whole number from 1"),
    ("max_steps", 1e16, "whole number from 1"),
    ("max_steps", 2.5, "whole number from 1"),
])
def test_unusable_run_options_are_refused_by_name(name, value, words):
    # the scene file and the command line refuse these; before, atol = inf ran with the error
    # test switched off, max_rows = -5 meant the default, report_interval = 1e-12 merged rows
    model = contactsim.loads(pendulum(0.1, duration=1e-6))
    for call in (lambda: contactsim.run(model, **{name: value}),
                 lambda: contactsim.Simulation(model, **{name: value}),
                 lambda: contactsim.Simulation(model).set_options(**{name: value})):
        with pytest.raises(contactsim.SceneError) as e:
            call()
        assert name in e.value.message and words in e.value.message, e.value.message


def test_a_max_step_too_small_to_start_is_refused_naming_it():
    # as the scene file refuses it, instead of an integrator failure blaming the forces
    model = contactsim.loads(pendulum(0.1, duration=1.0))
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.run(model, max_step=1e-13)
    assert e.value.path == "simulation.max_step"
    assert "max_steps (100000)" in e.value.message
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.Simulation(model, max_step=1e-300).run(1.0)
    assert e.value.path == "simulation.max_step" and "too small" in e.value.message
    # a usable one runs: 0.01 s in steps of at most 1e-4 s
    traj = contactsim.run(model, duration=0.01, max_step=1e-4)
    assert traj.statistics["steps"] >= 100
    # the scene's own max_step is judged with the run's report interval, not the scene's: too
    # small for the scene's first report, enough for the one asked for (it failed the loading)
    text = pendulum(0.1, duration=1.0)
    traj = contactsim.run(contactsim.loads(text, overrides={"simulation.max_step": 1e-9}),
                          duration=2e-5, report_interval=1e-5)
    assert traj.statistics["steps"] >= 20000
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.run(contactsim.loads(text, overrides={"simulation.max_step": 1e-9}))
    assert e.value.path == "simulation.max_step"


def test_failed_run_keeps_its_partial_trajectory():
    # too little work allowed between reports: the run stops early, the reports so far survive
    model = contactsim.loads(ball_drop(dissipation=2.0))
    with pytest.raises(contactsim.SimulationError) as e:
        contactsim.run(model, duration=0.5, max_steps=3, report_interval=0.05)
    err = e.value
    assert 0 < err.time < 0.5
    assert err.message
    traj = err.trajectory
    assert isinstance(traj, contactsim.Trajectory)
    assert 1 <= len(traj) and traj.t[-1] <= err.time
    # the rows reached are the free fall they should be
    np.testing.assert_allclose(traj["ball.pz"], 0.25 - 0.5 * 9.81 * traj.t ** 2, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# trajectories

def test_trajectory_columns_are_the_csv_columns():
    traj = contactsim.run(scene_path("pendulum.json"), duration=0.5)
    assert traj.columns[0] == "t"
    for name in ("arm.px", "arm.py", "arm.pz", "arm.qw", "arm.vx", "arm.wx", "arm.q0", "arm.u0",
                 "ke", "pe", "dissipated", "e_total"):
        assert name in traj.columns
        assert isinstance(traj[name], np.ndarray) and traj[name].shape == (len(traj),)
    assert traj.data.shape == (len(traj), len(traj.columns))
    # reports at 0, every interval, and the end: 51 rows over 0.5 s at 0.01 s
    assert len(traj) == 51
    np.testing.assert_allclose(traj.t, np.linspace(0, 0.5, 51), atol=1e-12)
    # views into one table, never copies, and read-only
    assert np.shares_memory(traj["arm.px"], traj.data)
    with pytest.raises(ValueError):
        traj["t"][0] = 1.0
    with pytest.raises(KeyError, match="no column 'arm.q'"):
        traj["arm.q"]
    xy = traj[["arm.py", "arm.pz"]]
    assert xy.shape == (len(traj), 2)
    np.testing.assert_array_equal(xy[:, 1], traj["arm.pz"])
    assert traj.stats is traj.statistics and traj.statistics["steps"] > 0


def test_contact_columns_with_forces():
    traj = contactsim.run(contactsim.loads(ball_drop(height=0.05, dissipation=5.0)),
                          duration=0.5, forces=True)
    # per element (the contact set's points are numbered) and per contact set
    for suffix in ("fx", "fy", "fz", "mx", "px", "pe", "power"):
        assert f"ball_floor.0.{suffix}" in traj.columns
    for suffix in ("fx", "fy", "fz", "copx", "copy", "copz"):
        assert f"ball_floor.{suffix}" in traj.columns
    # at rest the floor carries the weight, under the ball's centre
    assert traj["ball_floor.0.fz"][-1] == pytest.approx(0.5 * 9.81, rel=1e-4)
    assert traj["ball_floor.fz"][-1] == pytest.approx(0.5 * 9.81, rel=1e-4)
    assert traj["ball_floor.copx"][-1] == pytest.approx(traj["ball.px"][-1], abs=1e-9)


def test_trajectory_to_csv_and_pandas(tmp_path):
    traj = contactsim.run(contactsim.loads(pendulum(0.1)), duration=0.1)
    traj.to_csv(tmp_path / "out.csv")
    header, *rows = (tmp_path / "out.csv").read_text().splitlines()
    assert header.split(",") == list(traj.columns)
    assert float(rows[-1].split(",")[0]) == traj.t[-1]
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            traj.to_pandas()
    else:
        df = traj.to_pandas()
        assert list(df.columns) == list(traj.columns)
        np.testing.assert_array_equal(df["arm.q0"].to_numpy(), traj["arm.q0"])


def test_to_csv_that_fails_keeps_whole_rows(tmp_path):
    # a write that fails (here beyond a file-size limit, as on a full disk) raises OSError and
    # leaves the header and whole rows, as run's CSV: it left a cut-off last row
    out = tmp_path / "out.csv"
    code = f"""
import resource, signal
import contactsim
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
traj = contactsim.run(contactsim.loads({pendulum(0.1)!r}), duration=100.0)
print(len(traj.columns))
resource.setrlimit(resource.RLIMIT_FSIZE, (300000, 300000))
try:
    traj.to_csv({str(out)!r})
except OSError as e:
    print("OSError", e.errno)
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=os.environ)
    assert p.returncode == 0, p.stderr
    ncol, error = p.stdout.split("\n")[:2]
    assert error == "OSError 27", p.stdout  # EFBIG
    text = out.read_text()
    assert 0 < len(text) <= 300000 and text.endswith("\n")
    header, *rows = text.splitlines()
    assert len(header.split(",")) == int(ncol) and len(rows) >= 1000
    for row in rows:
        assert len([float(v) for v in row.split(",")]) == int(ncol)
    assert sorted(os.listdir(tmp_path)) == ["out.csv"]


def test_outputs_never_over_the_scene_file(tmp_path, monkeypatch):
    # to_csv and save_state refuse the scene file, however it is reached: another spelling,
    # after a change of directory, and the file an editor saved in its place (a new file renamed
    # over it) since the load; another file of the same name elsewhere is written
    scene = tmp_path / "a" / "scene.json"
    scene.parent.mkdir()
    scene.write_text(pendulum(0.1))
    monkeypatch.chdir(scene.parent)
    model = contactsim.load("scene.json")
    other = tmp_path / "b"
    other.mkdir()
    monkeypatch.chdir(other)
    (tmp_path / "a" / "new.json").write_text(pendulum(0.1))
    os.rename(tmp_path / "a" / "new.json", scene)
    traj = contactsim.run(model, duration=0.05)
    sim = contactsim.Simulation(model)
    for path in (scene, tmp_path / "b" / ".." / "a" / "scene.json"):
        with pytest.raises(contactsim.SceneError, match="over the scene file"):
            traj.to_csv(path)
        with pytest.raises(contactsim.SceneError, match="over the scene file"):
            sim.save_state(path)
    assert scene.read_text() == pendulum(0.1)
    traj.to_csv("scene.json")  # b/scene.json
    assert (other / "scene.json").read_text().startswith("t,")
    # a model pickled (to a worker process, say) knows its scene file too, unpickled from b
    again = pickle.loads(pickle.dumps(model))
    assert again.file == model.file == "scene.json"
    assert again._is_scene_file(scene) and not again._is_scene_file("scene.json")


# ---------------------------------------------------------------------------------------------
# loading

def test_overrides_change_the_scene():
    base = contactsim.loads(pendulum(0.1))
    heavier = contactsim.loads(pendulum(0.1), overrides={"simulation.duration": 0.25,
                                                         "simulation.integrator": "adams"})
    assert base.options["duration"] == 10.0
    assert heavier.options["duration"] == 0.25
    assert heavier.options["integrator"] == "adams"
    # reports every millisecond (the scene's interval) over the new duration
    assert len(contactsim.run(heavier)) == 251
    # the row limit in force is an option like the others: the default, or the scene's
    assert base.options["max_rows"] == 10_000_000
    limited = contactsim.loads(pendulum(0.1), overrides={"simulation.max_rows": 250})
    assert limited.options["max_rows"] == 250
    assert contactsim.Simulation(limited).options["max_rows"] == 250
    with pytest.raises(contactsim.SceneError, match="max_rows"):
        contactsim.run(limited, duration=0.25)


def test_override_of_a_contact_parameter_changes_the_physics():
    # mu lowered below tan 20 deg by key path: the block slides instead of sticking
    text = incline_block(20.0)
    held = contactsim.run(contactsim.loads(text), duration=1.0)
    slid = contactsim.run(contactsim.loads(text, overrides={
        "contact_models.exponential_spring.mu_static": 0.2,
        "contact_models.exponential_spring.mu_dynamic": 0.2}), duration=1.0)
    assert abs(held["block.px"][-1] - held["block.px"][0]) < 3e-3  # the anchors' settling
    assert abs(slid["block.px"][-1] - slid["block.px"][0]) > 0.3


def test_model_attributes():
    m = contactsim.load(scene_path("bench/incline_stick.json"), contact_model="hunt_crossley")
    assert m.name == "incline_stick"
    assert m.file.endswith("incline_stick.json")
    assert m.contact_model == "hunt_crossley"
    assert m.bodies == ("ground", "block")
    assert m.nq == 7 and m.nu == 6
    assert len(m.contacts) == 4
    assert m.gravity == (0.0, 0.0, -9.81)
    assert m.body_id("block") == 1
    with pytest.raises(KeyError):
        m.body_id("nobody")
    qs, us = m.body_coordinates("block")
    assert (qs.stop - qs.start, us.stop - us.start) == (7, 6)


# ---------------------------------------------------------------------------------------------
# compare and the version

def test_compare_runs_every_model():
    rows = contactsim.compare(scene_path("bench/incline_stick.json"), duration=0.5)
    names = [r["model"] for r in rows]
    assert names == ["exponential_spring", "compliant_point", "hunt_crossley",
                     "smooth_sphere_half_space"]
    for r in rows:
        assert r["status"] == "ok" and r["error"] is None
        assert r["simulated"] == pytest.approx(0.5)
        assert r["steps"] > 0 and r["rhs_evals"] > 0
        assert r["peak_normal_force"] > 0
        assert "block" in r["final_pose"]
        # held by friction (mu 0.7 > tan 20): every model keeps the block within a centimetre
        assert r["stuck_drift"] < 0.01
    one = contactsim.compare(scene_path("bench/incline_stick.json"), models=["hunt_crossley"],
                             duration=0.1)
    assert [r["model"] for r in one] == ["hunt_crossley"]
    with pytest.raises(contactsim.SceneError):
        contactsim.compare(scene_path("bench/incline_stick.json"), models=["nope"])


def test_compare_rows_are_the_commands_json():
    # the same runs through the module and through `contactsim compare --format json`: the same
    # keys in the same order, and the same values but for the CPU times (the engine is
    # deterministic); the options and overrides reach every model
    exe = os.environ.get("CONTACTSIM_EXE") or os.path.join(ROOT, "build", "contactsim")
    if not os.path.exists(exe):
        pytest.skip("no contactsim command built (CONTACTSIM_EXE)")
    def same(scene, code, max_steps, **more):
        rows = contactsim.compare(scene, duration=0.3, rtol=1e-6, atol=1e-7,
                                  max_steps=max_steps, **more)
        sets = [a for k, v in more.get("overrides", {}).items() for a in ("--set", f"{k}={v}")]
        p = subprocess.run([exe, "compare", scene, "--format", "json", "--duration", "0.3",
                            "--rtol", "1e-6", "--atol", "1e-7", "--max-steps", str(max_steps),
                            *sets], capture_output=True, text=True, timeout=120)
        assert p.returncode == code, p.stderr
        cli = json.loads(p.stdout)["models"]
        assert [r["model"] for r in rows] == [c["model"] for c in cli]
        timing = {"cpu_seconds", "statistics_cpu_seconds", "cpu_per_sim_second"}
        for r, c in zip(rows, cli):
            assert list(r) == list(c)
            assert {k: v for k, v in r.items() if k not in timing} == \
                {k: v for k, v in c.items() if k not in timing}
            assert all(r[k] is None or r[k] >= 0 for k in timing)
        return rows

    scene = scene_path("bench/incline_stick.json")
    rows = same(scene, 0, 50000, overrides={"bodies.block.mass": 12})
    # reports every 0.1 ms, 3001 of them: the energy balance is sampled at each (energy_error
    # differs from a run reporting every 10 ms), and the module keeps no rows of them
    same(scene, 0, 50000, overrides={"simulation.report_interval": 1e-4})
    # runs that fail: the error as "FILE: MESSAGE", the statistics so far
    failed = same(scene_path("sphere_drop.json"), 1, 2)
    assert all(r["status"] == "failed" and r["error"].startswith(
        scene_path("sphere_drop.json") + ": too much work") for r in failed)
    # and one of several groups integrated apart, where the failure goes back to the last
    # report: the statistics still count the steps that ran (the module gave them back)
    piled = same(scene_path("bench/pile_10.json"), 1, 5)
    assert all(r["status"] == "failed" and r["steps"] > 0 for r in piled)
    # the overridden mass shows in the physics: 12 kg against the scene's 10 kg
    base = contactsim.compare(scene, models=["hunt_crossley"], duration=0.3, rtol=1e-6,
                              atol=1e-7)[0]
    heavy = [r for r in rows if r["model"] == "hunt_crossley"][0]
    assert heavy["peak_normal_force"] > 1.1 * base["peak_normal_force"]


COMPARE_ONCE_CHILD = """
import sys, contactsim
rows = contactsim.compare(sys.argv[1], duration=0.01)
print(" ".join(r["model"] + ":" + r["status"] for r in rows))
"""


def test_compare_reads_the_scene_once(tmp_path):
    # as the command does: a named pipe gives its text once, standard input too. compare()
    # read the file once for its list of models and again for each model: on a pipe it waited
    # for a writer that never came, on "-" it read an empty standard input
    scene = scene_path("bench/incline_stick.json")
    with open(scene, "rb") as f:
        text = f.read()
    expected = " ".join(m + ":ok" for m in ("exponential_spring", "compliant_point",
                                              "hunt_crossley", "smooth_sphere_half_space"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    fifo = tmp_path / "scene.fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["/bin/sh", "-c", 'cat "$0" > "$1"', scene, str(fifo)])
    try:
        p = subprocess.run([sys.executable, "-c", COMPARE_ONCE_CHILD, str(fifo)], env=env,
                           capture_output=True, text=True, timeout=60)
    finally:
        writer.kill()
        writer.wait()
    assert p.returncode == 0 and p.stdout.strip() == expected, p.stderr
    p = subprocess.run([sys.executable, "-c", COMPARE_ONCE_CHILD, "-"], env=env, input=text,
                       capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stdout.decode().strip() == expected, p.stderr


def test_compare_keeps_no_trajectory(tmp_path):
    # the command keeps only each model's numbers; compare() kept every report's row until the
    # run was over (here 100001 rows of 20 columns, 16 MB, for nothing), so that a run
    # reporting often ran out of memory where the command did not
    import tracemalloc
    peaks = []
    for interval in (1e-3, 1e-5):
        path = tmp_path / f"pendulum_{interval:g}.json"
        path.write_text(pendulum(1.0, duration=1.0, report_interval=interval))
        tracemalloc.start()
        try:
            row = contactsim.compare(path)[0]
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert row["status"] == "ok" and row["simulated"] == 1.0
    # 100 times the reports, no more memory (both take a few kB)
    assert peaks[1] < 1_000_000 and peaks[1] < peaks[0] + 100_000, peaks


def test_compare_reports_a_failed_model_and_runs_the_others():
    # an absurdly stiff smooth sphere runs out of steps at the impact; Hunt-Crossley finishes
    rows = {r["model"]: r for r in contactsim.compare(os.path.join(ROOT, "tests", "data",
                                                                   "compare_fail.json"))}
    bad = rows["smooth_sphere_half_space"]
    assert bad["status"] == "failed" and bad["error"]
    assert 0 < bad["simulated"] < 2.0
    good = rows["hunt_crossley"]
    assert good["status"] == "ok" and good["error"] is None


def test_version_is_the_projects():
    with open(os.path.join(ROOT, "meson.build")) as f:
        version = re.search(r"version\s*:\s*'([^']+)'", f.read()).group(1)
    assert contactsim.__version__ == version


def test_the_module_never_prints(capfd):
    contactsim.run(contactsim.loads(ball_drop()), duration=0.2)
    with pytest.raises(contactsim.SceneError):
        contactsim.loads("{")
    sim = contactsim.Simulation(contactsim.loads(pendulum(0.1)))
    sim.advance_to(0.1)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


# ---------------------------------------------------------------------------------------------
# types and copies

def test_contact_model_of_the_wrong_type_is_a_clear_type_error():
    with pytest.raises(TypeError, match="contact_model must be a str or None, not int"):
        contactsim.load(scene_path("pendulum.json"), contact_model=3)


def test_models_trajectories_and_failures_pickle():
    # multiprocessing pickles what a worker returns: a Trajectory holds its Model, a
    # SimulationError its Trajectory; the copy is the same model (the same scene text, contact
    # model and overrides), so it runs to the same numbers, bit for bit
    import copy
    import pickle

    model = contactsim.load(scene_path("bench/incline_stick.json"), contact_model="hunt_crossley",
                            overrides={"contact_models.hunt_crossley.mu_static": 0.9,
                                       "simulation.rtol": 1e-7})
    again = pickle.loads(pickle.dumps(model))
    assert (again.source, again.file, again.contact_model, again.options) == \
        (model.source, model.file, "hunt_crossley", model.options)
    assert again.options["rtol"] == 1e-7
    a = contactsim.run(model, duration=0.2)
    np.testing.assert_array_equal(contactsim.run(again, duration=0.2).data, a.data)
    np.testing.assert_array_equal(contactsim.run(copy.deepcopy(model), duration=0.2).data, a.data)
    traj = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(traj.data, a.data)
    assert traj.columns == a.columns and traj.model.name == "incline_stick"
    text_model = contactsim.loads(ball_drop(), filename="ball.json")
    with pytest.raises(contactsim.SimulationError) as e:
        contactsim.run(text_model, duration=0.5, max_steps=3, report_interval=0.05)
    err = pickle.loads(pickle.dumps(e.value))
    assert err.time == e.value.time and err.file == "ball.json"
    np.testing.assert_array_equal(err.trajectory.data, e.value.trajectory.data)
    assert err.trajectory.model.source is None and err.trajectory.model.file == "ball.json"
    # a copy's table is read-only, as the original's
    with pytest.raises(ValueError):
        traj["block.px"][0] = 99.0


def test_models_with_bytes_that_are_not_utf8_pickle(tmp_path):
    # a scene may hold bytes that are not UTF-8 (a description in Latin-1) and a path any byte
    # but NUL: the copy is the same model all the same
    import pickle

    text = open(scene_path("pendulum.json"), "rb").read()
    text = text.replace(b'"description": "', b'"description": "caf\xe9 ', 1)
    path = os.path.join(os.fsencode(tmp_path), b"p\xff.json")
    with open(path, "wb") as f:
        f.write(text)
    model = contactsim.load(path)
    again = pickle.loads(pickle.dumps(model))
    assert again.file == model.file and again.source == model.source
    a = contactsim.run(model, duration=0.1)
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(b.data, a.data)
    np.testing.assert_array_equal(contactsim.run(b.model, duration=0.1).data, a.data)


def test_body_coordinates_keep_no_references():
    # each call's slices own their integers: 50,000 calls leave no memory behind (each leaked
    # two integers, 3.2 MB here; measured as memory, since the count of a small integer does
    # not move from Python 3.12 on and a large one is a new object each time)
    import tracemalloc

    model = contactsim.load(scene_path("bench/pile_100.json"))
    last = model.bodies[-1]
    model.body_coordinates(last)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(50000):
        model.body_coordinates(last)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 200_000, grown


def test_compare_counts_the_last_step(tmp_path):
    # a frictionless block on a 20 degree slope slides g sin(theta) T^2 / 2 in T. compare's
    # statistics were read before the run's last step was finished (its metrics sampled), and
    # its 0.46 m of 1.68 m were missing
    path = tmp_path / "slope.json"
    path.write_text(incline_block(20.0, mu_static=0.0, mu_dynamic=0.0, duration=1.0))
    row = contactsim.compare(path)[0]
    expected = 0.5 * G * math.sin(math.radians(20.0))
    assert row["sliding_distance"] == pytest.approx(expected, rel=1e-4)


def test_text_that_is_not_utf8_decodes_with_replacement(tmp_path):
    # a scene's name may hold any byte (the loader checks the names of bodies and elements, not
    # the scene's): every string the module takes from the library decodes bytes that are not
    # UTF-8 as U+FFFD, as repr(model) and the command line's JSON show them
    text = open(scene_path("pendulum.json"), "rb").read()
    path = tmp_path / "latin1.json"
    path.write_bytes(text.replace(b'"name": "pendulum"', b'"name": "pend\xe9"', 1))
    model = contactsim.load(path)
    assert model.name == "pend\ufffd"
    assert "pend\ufffd" in repr(model)
    sim = contactsim.Simulation(model)
    assert repr(sim) == "<contactsim.Simulation of 'pend\ufffd' at t = 0 s>"
    assert len(sim.run(0.1)) > 1
    # a contact model named with such a byte is refused by the loader, not by the decoding of
    # the names compare() asks for first
    drop = open(scene_path("sphere_drop.json"), "rb").read()
    bad = tmp_path / "default.json"
    bad.write_bytes(drop.replace(b'"default": "hunt_crossley"', b'"default": "hunt\xe9"', 1))
    with pytest.raises(contactsim.SceneError, match="default contact model"):
        contactsim.compare(bad, duration=0.01)
    # a failed run's file is decoded as os.fsdecode decodes a path, as every error's file is
    weird = os.path.join(os.fsencode(tmp_path), b"p\xff.json")
    with open(weird, "wb") as f:
        f.write(text)
    with pytest.raises(contactsim.SimulationError) as e:
        contactsim.run(weird, duration=1.0, max_steps=1)
    assert e.value.file == os.fsdecode(weird)


def test_an_error_without_a_column_is_located_as_the_command_locates_it(tmp_path):
    # FILE:LINE:COL: when both are known, FILE:LINE: without a column (a checkpoint's errors),
    # FILE: without either
    assert str(contactsim.SceneError("bad", file="f.json", line=4, column=2)) == "f.json:4:2: bad"
    assert str(contactsim.SceneError("bad", file="f.json", line=4)) == "f.json:4: bad"
    assert str(contactsim.SceneError("bad", file="f.json", path="a.b")) == "f.json: a.b: bad"
    a = contactsim.Simulation(contactsim.loads(pendulum(0.1)))
    a.save_state(tmp_path / "pendulum.state")
    b = contactsim.Simulation(contactsim.loads(ball_drop()))
    with pytest.raises(contactsim.SceneError) as e:
        b.load_state(tmp_path / "pendulum.state")
    assert e.value.line > 0 and e.value.column == 0
    where = f"{tmp_path / 'pendulum.state'}:{e.value.line}: "
    assert str(e.value) == where + e.value.message


def test_any_number_of_overrides(tmp_path):
    # as many as the command line's --set: the loader applies them in order (the last of one
    # value wins), and a bad one among many is a SceneError as any bad override is
    text = pendulum(0.1)
    many = [("simulation.rtol", 1e-7)] * 299 + [("simulation.rtol", 1e-8)]
    assert contactsim.loads(text, overrides=many).options["rtol"] == 1e-8
    with pytest.raises(contactsim.SceneError) as e:
        contactsim.loads(text, overrides=many + [("simulation.nope", 1)])
    assert e.value.path == "simulation.nope"


def test_compare_takes_the_models_the_command_takes(tmp_path):
    # the rules of `contactsim compare --models`: a comma-separated list whose names are trimmed
    # of spaces, no empty name, none twice, every one a block of the scene; a list of str alike
    scene = scene_path("sphere_drop.json")
    for models, words in (([], "at least one"), ("", "comma-separated"), ("a,,b", "comma-separated"),
                          ("hunt_crossley,", "comma-separated"), ([""], "empty"),
                          (["hunt_crossley", "hunt_crossley"], "'hunt_crossley' twice"),
                          ("hunt_crossley, hunt_crossley", "'hunt_crossley' twice"),
                          (["nope"], "no parameter block for contact model 'nope'")):
        with pytest.raises(contactsim.SceneError, match=words):
            contactsim.compare(scene, models=models, duration=0.01)
    for models in ([1], [None], [b"hunt_crossley"], 5, b"hunt_crossley"):
        with pytest.raises(TypeError):
            contactsim.compare(scene, models=models, duration=0.01)
    rows = contactsim.compare(scene, models=" smooth_sphere_half_space , hunt_crossley",
                              duration=0.01)
    assert [r["model"] for r in rows] == ["smooth_sphere_half_space", "hunt_crossley"]
    assert [r["model"] for r in contactsim.compare(scene, models=("hunt_crossley",),
                                                   duration=0.01)] == ["hunt_crossley"]
    # a scene without contact_models blocks runs once, as "scene", and may be asked for so
    plain = tmp_path / "pendulum.json"
    plain.write_text(pendulum(0.1, duration=0.01))
    assert [r["model"] for r in contactsim.compare(plain, models="scene")] == ["scene"]
    with pytest.raises(contactsim.SceneError, match="has no contact model to choose"):
        contactsim.compare(plain, models=["hunt_crossley"])
    # nor one with a block and no contacts for it (it was said to give no contact models)
    blocks = json.loads(pendulum(0.1, duration=0.01))
    blocks["contact_models"] = {"hunt_crossley": {"plane_strain_modulus": 1e7}}
    plain.write_text(json.dumps(blocks))
    with pytest.raises(contactsim.SceneError, match=r"no contact_models, or no contacts for them"):
        contactsim.compare(plain, models=["hunt_crossley"])
    # and the command refuses the same lists (exit 2) and takes the same good one
    exe = os.environ.get("CONTACTSIM_EXE") or os.path.join(ROOT, "build", "contactsim")
    if not os.path.exists(exe):
        pytest.skip("no contactsim command built (CONTACTSIM_EXE)")
    for models in ("", "a,,b", "hunt_crossley,", "hunt_crossley, hunt_crossley", "nope"):
        p = subprocess.run([exe, "compare", scene, "--models", models, "--duration", "0.01",
                            "--format", "json"], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, (models, p.stderr)
    p = subprocess.run([exe, "compare", scene, "--models",
                        " smooth_sphere_half_space , hunt_crossley", "--duration", "0.01",
                        "--format", "json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert [c["model"] for c in json.loads(p.stdout)["models"]] == [r["model"] for r in rows]
