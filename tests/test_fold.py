"""Constant folding of locals (analysis/model/fold.py): what settings decide, and what they leave open."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.fold import UNKNOWN, Table, folded_local, frozen_literal
from leapp_codemod.analysis.model.index import FunctionInfo


def function(src: str) -> FunctionInfo:
    node = ast.parse(src).body[0]
    return FunctionInfo(id="m:f", module="m", qualname=node.name, node=node, class_name=None, path="m.py")


TABLE = {"table:MODES": {frozen_literal(ast.parse('{"A": (1, 0), "B": (0, 1), "A": (2, 2)}').body[0].value)}}


def test_a_repeated_key_keeps_its_last_value_and_membership_reads_the_keys():
    fn = function("def f(kind='a'):\n    first, second = MODES[kind.upper()]\n    known = kind.upper() in MODES\n"
                  "    count = len(MODES)\n")
    constants = {"kind": {"a"}, **TABLE}
    assert folded_local("first", fn, constants) == {2}
    assert folded_local("known", fn, constants) == {True}
    assert folded_local("count", fn, constants) == {2}


def test_a_key_the_callers_leave_open_or_a_missing_key_decides_nothing():
    fn = function("def f(kind='a'):\n    first, second = MODES[kind.upper()]\n")
    assert folded_local("first", fn, {"kind": {UNKNOWN}, **TABLE}) is None
    assert folded_local("first", fn, {"kind": {"c"}, **TABLE}) is None       # KeyError: the handler would run


def test_the_handler_of_a_try_whose_lookup_folds_never_runs_but_one_that_can_fail_does():
    src = ("def f(kind='a'):\n    try:\n        first, second = MODES[kind.upper()]\n    except KeyError:\n"
           "        first, second = kind\n")
    assert folded_local("second", function(src), {"kind": {"b"}, **TABLE}) == {1}
    assert folded_local("second", function(src), {"kind": {"zz"}, **TABLE}) is None


def test_literals_alone_stay_a_switch_and_loop_bound_names_are_not_folded():
    fn = function("def f(x):\n    debug = False\n    for i in range(3):\n        step = i\n")
    assert folded_local("debug", fn, {"x": {UNKNOWN}}) is None
    assert folded_local("step", fn, {"x": {UNKNOWN}}) is None


def test_a_table_is_frozen_only_from_constants():
    assert isinstance(frozen_literal(ast.parse('{"k": [1, 2]}').body[0].value), Table)
    assert frozen_literal(ast.parse('{"k": f()}').body[0].value) is UNKNOWN
