"""The LEAPP facts behind LCM112 and behind what it leaves out (installed leapp 0.7.2, torch 2.13, CPU;
`knowledge/library_internals.py`): `one_hot` without `num_classes` sizes its result by the first sample's largest
index and fails on a sample whose largest index differs. A `torch.distributions` distribution built from traced
tensors, or `log_prob` of a traced value, runs torch's argument check, a branch LEAPP logs as a tensor in a boolean
context, but its other side only raises: the export validates, so the check is no hazard (not reported)."""
from __future__ import annotations

import itertools

import pytest
import torch
import torch.nn.functional as F
from torch import distributions as D

leapp = pytest.importorskip("leapp")
pytestmark = pytest.mark.e2e

_GRAPHS = itertools.count()
_SAMPLES = (torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[2.0, 1.0, 0.5]]))
_BRANCH = "in a boolean context"


def _trace(tmp_path, fn):
    """(what LEAPP logged, compile_graph's answer or the exception raised)."""
    graph = f"d{next(_GRAPHS)}"
    leapp.start(graph, save_path=str(tmp_path))
    try:
        try:
            for sample in _SAMPLES:
                x = leapp.annotate.input_tensors(graph, {"x": sample})
                leapp.annotate.output_tensors(graph, {"y": fn(x) * 1.0}, export_with="onnx")
        finally:
            leapp.stop()
        outcome = leapp.compile_graph(validate=True, strict=False, visualize=False)
    except Exception as exc:   # LEAPP raises plain Exception for what it refuses
        outcome = exc
    return (tmp_path / graph / "log.txt").read_text(), outcome


VALIDATED = {
    "normal-loc": lambda x: D.Normal(x, torch.ones(3)).mean,
    "normal-scale": lambda x: D.Normal(torch.zeros(3), x.exp()).stddev,
    "multivariate-normal": lambda x: D.MultivariateNormal(x, torch.eye(3)).mean,
    "categorical-logits": lambda x: D.Categorical(logits=x).probs,
    "beta": lambda x: D.Beta(x.exp(), x.exp() + 1.0).mean,
    "log-prob-of-data": lambda x: D.Normal(torch.zeros(3), torch.ones(3)).log_prob(x),
}
UNCHECKED = {
    "normal-loc": lambda x: D.Normal(x, torch.ones(3), validate_args=False).mean,
    "multivariate-normal": lambda x: D.MultivariateNormal(x, torch.eye(3), validate_args=False).mean,
    "categorical-logits": lambda x: D.Categorical(logits=x, validate_args=False).probs,
}


@pytest.mark.parametrize("name", sorted(VALIDATED))
def test_argument_validation_is_logged_as_a_branch_but_the_export_validates(tmp_path, name):
    log, outcome = _trace(tmp_path, VALIDATED[name])
    assert _BRANCH in log
    assert isinstance(outcome, dict) and all(outcome.values()), outcome


@pytest.mark.parametrize("name", sorted(UNCHECKED))
def test_validate_args_false_traces_without_a_branch(tmp_path, name):
    log, outcome = _trace(tmp_path, UNCHECKED[name])
    assert _BRANCH not in log
    assert isinstance(outcome, dict) and all(outcome.values()), outcome


def test_validation_turned_off_globally_traces_without_a_branch(tmp_path):
    before = D.Distribution._validate_args
    D.Distribution.set_default_validate_args(False)
    try:
        log, outcome = _trace(tmp_path, VALIDATED["multivariate-normal"])
    finally:
        D.Distribution.set_default_validate_args(before)
    assert _BRANCH not in log
    assert isinstance(outcome, dict) and all(outcome.values()), outcome


def test_one_hot_without_a_class_count_fails_on_another_largest_index(tmp_path):
    _, outcome = _trace(tmp_path, lambda x: F.one_hot(x.argmax(-1)).float())
    assert isinstance(outcome, Exception) and "Reentering" in str(outcome)


def test_one_hot_with_a_class_count_validates(tmp_path):
    _, outcome = _trace(tmp_path, lambda x: F.one_hot(x.argmax(-1), num_classes=3).float())
    assert isinstance(outcome, dict) and all(outcome.values()), outcome

