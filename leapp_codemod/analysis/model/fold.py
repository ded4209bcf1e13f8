"""The values a local of a function can hold when settings decide it: constant folding over Python values.

A local bound from literals, the module's constants and tables (`GAITS[mode.upper()]`, unpacked into names),
a helper that returns a module constant, `self.training` (False: export runs in eval mode) and the parameters
the callers fix is a setting of the export: the branch it selects is fixed and the other never runs. A local
bound to literals alone stays a switch for a person to flip: some fixed setting must decide it.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.config_values import CONFIG_KEY, CONFIG_LOCALS, config_key
from leapp_codemod.analysis.model.held_keys import absent_read
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.unknown import UNKNOWN

CALL_KEY = "call:"                # constants key: "call:<f>" -> what the module's `f()` returns
TABLE_KEY = "table:"              # constants key: "table:<NAME>" -> the module-level table, frozen
_MAX_VALUES = 16
_MAX_DEPTH = 8
_STRING_METHODS = frozenset({"lower", "upper", "strip", "casefold", "lstrip", "rstrip", "title"})


class Table(tuple):
    """A module-level dict literal of constants, frozen as its (key, value) pairs (hashable, so it can sit
    among the constants that key the function's live-node walks)."""

    def lookup(self, key):
        for k, v in reversed(self):   # a repeated key: the literal keeps the last value
            if k == key:
                return v
        raise KeyError(key)

    def keys(self) -> set:
        return {k for k, _ in self}


def name_stores(fn: FunctionInfo) -> dict[str, int]:
    """How many times the function binds each name (`=`, `+=`, loop targets, ...), counted once."""
    stores = fn.walks.get("name_stores")
    if stores is None:
        stores = fn.walks["name_stores"] = {}
        for n in fn.nodes:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
    return stores


def frozen_literal(e: ast.expr):
    """The Python value of a literal made only of constants, tuples, lists and dicts (lists become tuples,
    dicts `Table`s); `UNKNOWN` when anything else is in it."""
    if isinstance(e, ast.Constant):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) \
            and isinstance(e.operand.value, (int, float)):
        return -e.operand.value
    if isinstance(e, (ast.Tuple, ast.List)):
        items = tuple(frozen_literal(x) for x in e.elts)
        return UNKNOWN if any(i is UNKNOWN for i in items) else items
    if isinstance(e, ast.Dict) and all(k is not None for k in e.keys):
        pairs = tuple((frozen_literal(k), frozen_literal(v)) for k, v in zip(e.keys, e.values))
        if any(k is UNKNOWN or v is UNKNOWN for k, v in pairs):
            return UNKNOWN
        try:
            hash(pairs)
            merged = dict(pairs)   # a repeated key keeps its last value, as the literal does
        except TypeError:
            return UNKNOWN
        return Table(merged.items())
    return UNKNOWN


def folded(expr: ast.expr, fn: FunctionInfo, constants: dict[str, set] | None) -> set | None:
    """The values settings give `expr` (`_smoothing_on()`, `SIGNS[mirrored] < 0`), None when anything else
    can decide it or no setting is involved."""
    used: list[bool] = []
    found = _value(expr, fn, constants or {}, used, 0)
    return found if found is not None and any(used) else None


def folded_local(name: str, fn: FunctionInfo, constants: dict[str, set]) -> set | None:
    """The values of a local that settings decide (`gamma = min(churn / (n - 1), 0.4) if lo <= s <= hi else 0.`
    with `churn` left at its default 0; `_, mirrored, _ = GAITS[gait.upper()]`; `noisy = self.training and k`),
    None when anything else can decide it or no setting is involved."""
    used: list[bool] = []
    found = _local(name, fn, constants or {}, used, 0)
    return found if found is not None and any(used) else None


def _local(name: str, fn: FunctionInfo, constants: dict[str, set], used: list, depth: int) -> set | None:
    bindings = _bindings(fn, name, constants, depth)
    if not bindings:
        return None
    out: set = set()
    for value, path in bindings:
        values = _value(value, fn, constants, used, depth + 1)
        if values is None:
            return None
        for v in values:
            for i in path:
                if not isinstance(v, tuple) or isinstance(v, Table):
                    return None
                v = v[i]
            out.add(v)
    return out if len(out) <= _MAX_VALUES else None


def _bindings(fn: FunctionInfo, name: str, constants: dict[str, set], depth: int) -> list | None:
    """(value, unpack path) of every binding of the local `name`, None when one is not a plain `=` (a loop
    target, `+=`, a starred unpack). Bindings in the handlers of a `try` whose body cannot fail (its
    assignments all fold, their unpacks fit) never run."""
    if name in fn.params or depth > _MAX_DEPTH:
        return None
    stores = name_stores(fn).get(name, 0)
    binds = _assign_paths(fn).get(name)
    if not stores or not binds:
        return None
    dead = _dead_handler_nodes(fn, constants, depth) if fn.walks.get("has_try") else set()
    found: list = []
    skipped = 0
    for node, path in binds:
        if id(node) in dead:
            skipped += 1
        elif path is None:
            return None
        else:
            found.append((node.value, path))
    if len(found) + skipped != stores:
        return None
    return found


def _assign_paths(fn: FunctionInfo) -> dict[str, list]:
    """name -> [(assignment, unpack path or None)] over the function's `=` statements, indexed once."""
    index = fn.walks.get("assign_paths")
    if index is None:
        index = fn.walks["assign_paths"] = {}
        for node in fn.nodes:
            if isinstance(node, ast.Try) and node.handlers:
                fn.walks["has_try"] = True
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for name, path in _paths(target):
                        index.setdefault(name, []).append((node, path))
    return index


def _paths(target: ast.expr, prefix: tuple = (), starred: bool = False):
    """(name, index path) for every name `target` binds (`a, (b, c) = ...` binds `c` at (1, 1)); the path is
    None inside a starred unpack."""
    if isinstance(target, ast.Name):
        yield target.id, None if starred else prefix
    elif isinstance(target, (ast.Tuple, ast.List)):
        star = starred or any(isinstance(e, ast.Starred) for e in target.elts)
        for i, elt in enumerate(target.elts):
            yield from _paths(elt.value if isinstance(elt, ast.Starred) else elt, (*prefix, i), star)


def _dead_handler_nodes(fn: FunctionInfo, constants: dict[str, set], depth: int) -> set[int]:
    """Ids of the assignments inside the `except` handlers of a `try` whose body is assignments that fold."""
    tries = [n for n in fn.nodes if isinstance(n, ast.Try) and n.handlers]
    out: set[int] = set()
    for node in tries:
        if all(isinstance(s, ast.Assign) and len(s.targets) == 1 and _fits(s, fn, constants, depth) for s in node.body):
            out |= {id(n) for h in node.handlers for n in ast.walk(h) if isinstance(n, ast.Assign)}
    return out


def _fits(stmt: ast.Assign, fn: FunctionInfo, constants: dict[str, set], depth: int) -> bool:
    values = _value(stmt.value, fn, constants, [], depth + 1)
    if values is None:
        return False
    target = stmt.targets[0]
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        return all(isinstance(v, tuple) and not isinstance(v, Table) and len(v) == len(target.elts) for v in values)
    return False


_FOLDS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
          ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b, ast.FloorDiv: lambda a, b: a // b,
          ast.Mod: lambda a, b: a % b}
_COMPARES = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
             ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
             ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b,
             ast.In: lambda a, b: a in _members(b), ast.NotIn: lambda a, b: a not in _members(b)}


def _members(held):
    """What `x in held` looks through: a table's keys, else the value itself."""
    return held.keys() if isinstance(held, Table) else held


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _value(e: ast.expr, fn: FunctionInfo, constants: dict[str, set], used: list, depth: int) -> set | None:
    """The values `e` can be, from literals, module constants and tables, and the settings in `constants`;
    None when anything else decides. `0 * x` and `0 / x` are 0 whatever `x` is."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(e, ast.Constant):
        return {e.value}
    if isinstance(e, ast.Name):
        return _name(e.id, fn, constants, used, depth)
    absent = absent_read(e, fn, constants) if isinstance(e, ast.Call) else None
    if absent is not None:   # `batch.get("expert")` where no reached call puts "expert" in `batch`
        used.append(True)
        return absent
    key = config_key(e) if isinstance(e, (ast.Attribute, ast.Subscript, ast.Call)) else None
    if key is not None and constants.get(CONFIG_KEY + key) and UNKNOWN not in constants[CONFIG_KEY + key]:
        used.append(True)   # `self._config.eval_noise`: one value in the project's configs
        return set(constants[CONFIG_KEY + key])
    if isinstance(e, ast.Attribute):
        return _attribute(e, fn, constants, used)
    if isinstance(e, (ast.Tuple, ast.List)) and len(e.elts) <= 8:
        parts = [_value(x, fn, constants, used, depth + 1) for x in e.elts]
        combos = None if any(p is None for p in parts) else _combos(parts)
        return None if combos is None else _bounded(set(combos))
    if isinstance(e, ast.Subscript):
        return _subscript(e, fn, constants, used, depth)
    if isinstance(e, ast.UnaryOp):
        inner = _value(e.operand, fn, constants, used, depth + 1)
        if inner is None:
            return None
        if isinstance(e.op, ast.Not):
            return {not v for v in inner}
        if isinstance(e.op, ast.USub) and all(_number(v) for v in inner):
            return {-v for v in inner}
        return None
    if isinstance(e, ast.BinOp) and type(e.op) in _FOLDS:
        left = _value(e.left, fn, constants, used, depth + 1)
        if left == {0} and isinstance(e.op, (ast.Mult, ast.Div)):
            return {0}
        right = _value(e.right, fn, constants, used, depth + 1)
        if right == {0} and isinstance(e.op, ast.Mult):
            return {0}
        return _apply(_FOLDS[type(e.op)], left, right)
    if isinstance(e, ast.BoolOp):
        return _boolop(e, fn, constants, used, depth)
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in _COMPARES:
        left = _value(e.left, fn, constants, used, depth + 1)
        right = _value(e.comparators[0], fn, constants, used, depth + 1)
        return _apply(_COMPARES[type(e.ops[0])], left, right)
    if isinstance(e, ast.IfExp):
        test = _value(e.test, fn, constants, used, depth + 1)
        truths = {bool(v) for v in test} if test is not None else {True, False}
        body = _value(e.body, fn, constants, used, depth + 1) if True in truths else set()
        orelse = _value(e.orelse, fn, constants, used, depth + 1) if False in truths else set()
        return None if body is None or orelse is None else _bounded(body | orelse)
    if isinstance(e, ast.Call):
        return _call(e, fn, constants, used, depth)
    return None


def _name(name: str, fn: FunctionInfo, constants: dict[str, set], used: list, depth: int) -> set | None:
    stored = name_stores(fn).get(name, 0)
    if name in fn.params:
        values = constants.get(name)
        if not values or UNKNOWN in values or stored:
            return None
        used.append(True)
        return set(values)
    if stored:
        if name in constants.get(CONFIG_LOCALS, ()) and constants.get(name) and UNKNOWN not in constants[name]:
            used.append(True)   # bound once from a config key the project's configs decide
            return set(constants[name])
        return _local(name, fn, constants, used, depth + 1)
    if TABLE_KEY + name in constants:   # a module-level table no code writes
        used.append(True)
        return set(constants[TABLE_KEY + name])
    values = constants.get(name)         # a module-level setting (`SMOOTHING = False`)
    if values and UNKNOWN not in values:
        used.append(True)
        return set(values)
    return None


def _attribute(e: ast.Attribute, fn: FunctionInfo, constants: dict[str, set], used: list) -> set | None:
    """`self.training` (False: export runs in eval mode) and the object's settings (`self.mode`)."""
    params = fn.positional_params if fn.is_method else []
    if not (params and isinstance(e.value, ast.Name) and e.value.id == params[0]):
        return None
    if e.attr == "training":
        used.append(True)
        return {False}
    values = constants.get(f"self.{e.attr}")
    if not values or UNKNOWN in values:
        return None
    used.append(True)
    return set(values)


def _subscript(e: ast.Subscript, fn: FunctionInfo, constants: dict[str, set], used: list, depth: int) -> set | None:
    if isinstance(e.slice, ast.Slice):
        return None
    held = _value(e.value, fn, constants, used, depth + 1)
    keys = _value(e.slice, fn, constants, used, depth + 1)
    if held is None or keys is None:
        return None
    out = set()
    for table in held:
        for key in keys:
            try:
                out.add(table.lookup(key) if isinstance(table, Table) else table[key])
            except (LookupError, TypeError):
                return None   # the lookup fails: what runs instead is not decided here
    return _bounded(out)


def _call(e: ast.Call, fn: FunctionInfo, constants: dict[str, set], used: list, depth: int) -> set | None:
    """`mode.upper()` of a string, `min`/`max`/`len` of folded values, a module helper `f()` returning a constant."""
    func = e.func
    if isinstance(func, ast.Attribute) and func.attr in _STRING_METHODS and not e.args and not e.keywords:
        inner = _value(func.value, fn, constants, used, depth + 1)
        if inner is None or not all(isinstance(v, str) for v in inner):
            return None
        return {getattr(v, func.attr)() for v in inner}
    if not isinstance(func, ast.Name) or e.keywords or func.id in fn.params or name_stores(fn).get(func.id):
        return None
    if not e.args and CALL_KEY + func.id in constants:
        used.append(True)
        return set(constants[CALL_KEY + func.id])
    if func.id in ("min", "max", "len", "abs", "bool", "int", "float", "str") and 0 < len(e.args) <= 4:
        parts = [_value(a, fn, constants, used, depth + 1) for a in e.args]
        combos = None if any(p is None for p in parts) else _combos(parts)
        if combos is None:
            return None
        builtin = {"min": min, "max": max, "len": len, "abs": abs, "bool": bool, "int": int, "float": float,
                   "str": str}[func.id]
        try:
            out = {builtin(*combo) if func.id not in ("min", "max") or len(combo) > 1 else builtin(combo[0])
                   for combo in combos}
        except (TypeError, ValueError, ArithmeticError):
            return None
        return _bounded(out)
    return None


def _boolop(e: ast.BoolOp, fn: FunctionInfo, constants: dict[str, set], used: list, depth: int) -> set | None:
    """`a and b` is the first falsy operand or the last one; `a or b` the first truthy one. An operand that
    decides the result makes the ones after it irrelevant (`self.training and x.any()` is False)."""
    results: set = set()
    for i, operand in enumerate(e.values):
        values = _value(operand, fn, constants, used, depth + 1)
        if values is None:
            return None
        last = i == len(e.values) - 1
        stop = {v for v in values if last or (not v if isinstance(e.op, ast.And) else bool(v))}
        results |= stop
        if all(v in stop for v in values):
            return _bounded(results)
    return _bounded(results)


def _apply(op, left: set | None, right: set | None) -> set | None:
    if left is None or right is None or len(left) * len(right) > _MAX_VALUES:
        return None
    try:
        return _bounded({op(a, b) for a in left for b in right})
    except (ArithmeticError, ValueError, TypeError):
        return None


def _bounded(values: set) -> set | None:
    return values if len(values) <= _MAX_VALUES else None


def _combos(parts: list[set]) -> list[tuple] | None:
    """Every choice of one value per part; None when there are more than the bound."""
    out: list[tuple] = [()]
    for part in parts:
        out = [(*c, v) for c in out for v in part]
        if len(out) > _MAX_VALUES:
            return None
    return out
