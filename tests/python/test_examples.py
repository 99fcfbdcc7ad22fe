"""The examples in examples/python run and do what they claim."""
import importlib.util
import os

import pytest

from conftest import ROOT


def load_example(name):
    path = os.path.join(ROOT, "examples", "python", name)
    spec = importlib.util.spec_from_file_location(name[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fit_bounce_recovers_the_parameters(capsys):
    ex = load_example("fit_bounce.py")
    calls = []
    simulate = ex.simulate
    ex.simulate = lambda *args: calls.append(args) or simulate(*args)
    result = ex.main()
    # the simulations it says it made: every one of the fit's (the measurement's is the first;
    # least_squares' nfev left out those of its finite differences)
    assert result["evaluations"] == len(calls) - 1
    assert result["success"]
    # the parameters the "measurement" was made from, to within a few of their uncertainties
    assert result["stiffness"] == pytest.approx(ex.TRUE["stiffness"], rel=0.05)
    assert result["dissipation"] == pytest.approx(ex.TRUE["dissipation"], rel=0.03)
    # and the fit leaves only the noise: rms residual about the noise level
    assert 0.8 * ex.NOISE < result["rms_residual"] < 1.2 * ex.NOISE
    out = capsys.readouterr().out
    assert "fitted" in out
