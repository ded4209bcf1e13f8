"""Draws made through a NumPy Generator's methods, a torch.Generator passed to `torch.randn` and an
in-place tensor fill (`torch.empty(n).bernoulli_(p)`) become noise inputs the host feeds, as the
module-level draw functions do."""
from __future__ import annotations

import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash

pytestmark = pytest.mark.e2e


def test_generator_methods_generator_arguments_and_in_place_fills_are_noise_inputs(tmp_path):
    work = project(tmp_path, "run_draw_kinds")
    before = tree_hash(work / "drawapp")
    generate(work, "drawapp", "drawapp.policy:JitterPolicy.act")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert report["noise_inputs"] == {
        "noise_0_normal": "drawapp/policy.py:17 normal",
        "noise_1_randn": "drawapp/policy.py:19 randn",
        "noise_2_bernoulli_": "drawapp/policy.py:20 bernoulli_",
    }
    yaml = (work / report["graph_yaml"]).read_text()
    assert all(f"name: {port}\n" in yaml for port in report["noise_inputs"])
    assert tree_hash(work / "drawapp") == before


def test_a_drawing_generator_draws_what_the_plain_one_draws_and_copies_keep_drawing_through_the_run():
    import copy

    import numpy as np

    from leapp_codemod.runner import draws

    d = draws.Draws()
    with d.installed(""):
        rng = np.random.default_rng(7)
        twin = copy.deepcopy(rng)
        with d.recording() as got:
            first = rng.normal(size=3)
        assert isinstance(rng, np.random.Generator) and isinstance(twin, draws.generator_class())
        assert [fn for fn, *_ in got] == ["normal"] and np.array_equal(got[0][2], first)
        assert np.array_equal(twin.normal(size=3), first)
    assert np.array_equal(first, np.random.default_rng(7).normal(size=3))
    assert not isinstance(np.random.default_rng(7), draws.generator_class())
