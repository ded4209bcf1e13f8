"""Every twin rewrite's own before/after examples, run through the whole driver."""
from __future__ import annotations

import pytest

from leapp_codemod.generate.adapters import registry
from leapp_codemod.generate.twin import RULES, Blocked, run_example

EXAMPLES = [pytest.param(rule, example, id=f"{rule.__name__}-{k}")
            for rule in RULES for k, example in enumerate(rule.EXAMPLES)]


def test_every_rule_is_documented_and_shows_a_rewrite_of_each_category_it_answers():
    import sys

    for rule in RULES:
        assert sys.modules[rule.__module__].__doc__, rule.__module__
        rewritten = {c for e in rule.EXAMPLES if e.after for c, _ in e.flags}
        assert rule.CATEGORIES and set(rule.CATEGORIES) & rewritten == set(rule.CATEGORIES)


@pytest.mark.parametrize(("rule", "example"), EXAMPLES)
def test_rule_example(rule, example):
    result = run_example(example, registry())
    if example.refused:
        assert isinstance(result, Blocked), result
        assert example.refused in result.reason
    else:
        assert not isinstance(result, Blocked), result
        assert result.source == example.after
