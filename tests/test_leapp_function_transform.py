"""The LEAPP fact behind LCM115 (installed leapp 0.7.2, torch 2.13): a function made by a torch.func transform
(`torch.vmap`, `torch.func.vmap`, the stacked-ensemble idiom `vmap(functional_call(...))`, `jacrev`) called on a
traced tensor answers a plain tensor, and `output_tensors` refuses it. `functional_call` alone and a Python loop
over the members trace and validate (the rule leaves them alone; the loop is its fix)."""
from __future__ import annotations

import copy

import pytest
import torch
from leapp_trace import trace_payload

leapp = pytest.importorskip("leapp")
pytestmark = pytest.mark.e2e

torch.manual_seed(0)
MEMBERS = [torch.nn.Linear(4, 2) for _ in range(3)]
ROWS = [torch.randn(2, 4) for _ in range(3)]


def plain_vmap(x):
    return torch.vmap(lambda row: (row * 2).sum())(x)


def stacked_ensemble(x):
    from torch.func import functional_call, stack_module_state
    params, buffers = stack_module_state(MEMBERS)
    shell = copy.deepcopy(MEMBERS[0]).to("meta")
    run = torch.func.vmap(lambda p, b, v: functional_call(shell, (p, b), (v,)), in_dims=(0, 0, None))
    return run(params, buffers, x).mean(0)


def jacobian(x):
    return torch.func.jacrev(lambda v: (v ** 2).sum())(x)


def functional_call_alone(x):
    member = MEMBERS[0]
    return torch.func.functional_call(member, dict(member.named_parameters()), (x,))


def member_loop(x):
    return torch.stack([m(x) for m in MEMBERS]).mean(0)


@pytest.mark.parametrize("step", [plain_vmap, stacked_ensemble, jacobian])
def test_a_transformed_function_answers_outside_the_trace(tmp_path, step):
    outcome = trace_payload(tmp_path, step.__name__, step, [r.clone() for r in ROWS])
    assert isinstance(outcome, Exception)
    assert "non-traced" in str(outcome)


@pytest.mark.parametrize("step", [functional_call_alone, member_loop])
def test_functional_call_and_a_loop_over_members_trace_and_validate(tmp_path, step):
    outcome = trace_payload(tmp_path, step.__name__, step, [r.clone() for r in ROWS])
    assert outcome == {step.__name__: True}
