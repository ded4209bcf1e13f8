"""Which keys a function's dict inputs can hold, as the reached calls decide them.

Two inputs hold keys: the function's own `**kwargs` (the keywords calls name that are no parameter:
`KWARG_KEYS`) and a parameter the function reads by key (`feed.get("goal")`, `"goal" in feed`, `feed["obs"]`,
`**feed`), whose keys are those of the dicts the reached calls pass for it (`PARAM_KEYS + name`: a dict
literal, a local filled only under literal keys, or the caller's own input whose keys are known, so the keys
travel through hops). A key no reached call can put there is absent: `feed.get("expert")` is its default,
`"expert" in feed` is False, and the block such a test guards is not the pipeline. When one call passes a
dict whose keys are not known (a library's result, an input of unknown keys), every key stays possible. The
keys are recorded by `flow.passed_keys`; this module answers from them.
"""
from __future__ import annotations

import ast
from typing import Callable

from leapp_codemod.analysis.model.unknown import UNKNOWN

KWARG_KEYS = "<keys of **kwargs>"        # constants key: the keywords a function's `**kwargs` can hold (UNKNOWN: any)
PARAM_KEYS = "<keys of dict parameter>:"  # constants key prefix: the keys a parameter's dict can hold (UNKNOWN: any)


def kwargs_rebound(fn, name: str) -> bool:
    """Does the function store into, rebind or fill `name` (its `**kwargs` or a dict parameter: then its keys
    are not the callers')?"""
    changed = fn.walks.get("names_changed")
    if changed is None:   # once per function: every `If` of it asks
        changed = fn.walks["names_changed"] = set()
        for node in fn.nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                changed.add(node.id)
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Store):
                changed.add(node.value.id)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "update", "setdefault") and isinstance(node.func.value, ast.Name):
                changed.add(node.func.value.id)
    return name in changed


def keyed_params(fn) -> frozenset[str]:
    """The parameters (not `self`, not `**kwargs`) the function reads by a literal key, spreads with `**` or
    hands on whole to a call (whose callee may read its keys: the keys travel through the hop)."""
    found = fn.walks.get("keyed_params")
    if found is None:
        params = set(fn.params[1:] if fn.is_method else fn.params)
        names = set()
        for node in fn.nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                    and isinstance(node.func.value, ast.Name) and node.args and _literal_key(node.args[0]):
                names.add(node.func.value.id)
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and _literal_key(node.slice):
                names.add(node.value.id)
            elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                    and isinstance(node.comparators[0], ast.Name):
                names.add(node.comparators[0].id)
            elif isinstance(node, ast.keyword) and isinstance(node.value, ast.Name):
                names.add(node.value.id)   # `**feed`, or `feed=feed` handed on to a callee that may read it
            elif isinstance(node, ast.Call):
                names.update(a.id for a in node.args if isinstance(a, ast.Name))   # `features(feed)`, handed on
        found = fn.walks["keyed_params"] = frozenset(names & params)
    return found


def absent_key(fn, name: str, constants: dict | None) -> Callable[[str], bool] | None:
    """key -> True when no reached call can put `key` in `name`: the function's `**kwargs` (a key spelled like
    a parameter a keyword binds never lands there) or a dict parameter whose keys the calls name. None when
    nothing is known of `name`'s keys."""
    constants = constants or {}
    kwarg = fn.node.args.kwarg.arg if fn.node.args.kwarg is not None else None
    if name == kwarg:
        keys = constants.get(KWARG_KEYS)
        known = keys if keys is not None and UNKNOWN not in keys else None
        params = {a.arg for a in (*fn.node.args.args, *fn.node.args.kwonlyargs)}
        return None if kwargs_rebound(fn, name) else \
            (lambda key: key in params or (known is not None and key not in known))
    keys = constants.get(PARAM_KEYS + name)
    if not keys or UNKNOWN in keys or name not in keyed_params(fn) or kwargs_rebound(fn, name) \
            or name in _handed_whole(fn):
        return None
    return lambda key: key not in keys


_READERS = frozenset({"len", "print", "isinstance", "sorted", "list", "dict", "str", "repr", "type", "id", "hasattr",
                      "getattr", "bool", "tuple", "set", "iter", "enumerate", "zip"})


def _handed_whole(fn) -> frozenset[str]:
    """Names the function passes whole to a call that may fill them (`self.prep(feed)` can add keys to `feed`
    before the function tests them); builtins that only read and `**name` (a copy) do not count."""
    found = fn.walks.get("handed_whole")
    if found is None:
        names = set()
        for node in fn.nodes:
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _READERS):
                names.update(a.id for a in node.args if isinstance(a, ast.Name))
                names.update(k.value.id for k in node.keywords if k.arg and isinstance(k.value, ast.Name))
        found = fn.walks["handed_whole"] = frozenset(names)
    return found


def absent_read(expr: ast.expr, fn, constants: dict | None) -> set | None:
    """`{default}` for `held.get("key", default)` (default None when not given) on a dict input no reached call
    puts "key" in; None when the key may be there or the default is not a literal."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get"
            and isinstance(expr.func.value, ast.Name) and 1 <= len(expr.args) <= 2 and not expr.keywords
            and _literal_key(expr.args[0])):
        return None
    absent = absent_key(fn, expr.func.value.id, constants)
    if absent is None or not absent(expr.args[0].value):
        return None
    default = expr.args[1] if len(expr.args) == 2 else ast.Constant(None)
    return {default.value} if isinstance(default, ast.Constant) else None


def _literal_key(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, str)
