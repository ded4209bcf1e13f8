"""Which code of a function runs: its live nodes in eval mode, given the constants its callers pass.

Export runs in eval mode, so training-only blocks never run; a flag parameter every call site passes as
a constant of one truth value rules out the block it guards. No data flow here: only what the code says.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.preset_attrs import PRESET_KEY
from leapp_codemod.analysis.model.config_values import (
    CONFIG_KEY,
    CONFIG_LOCALS,
    config_key,
)
from leapp_codemod.analysis.model.fold import UNKNOWN, folded, folded_local, name_stores
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.kind_tests import KIND_KEY, kind_outcome, kind_test
from leapp_codemod.analysis.model.kwarg_tests import kwarg_outcome
from leapp_codemod.analysis.model.settings import DICT_KEY, dict_read
from leapp_codemod.observe.merge import OBSERVED_KEY
from leapp_codemod.source.astwalk import children as child_nodes
from leapp_codemod.knowledge.vocab import SELF_RETURNING_METHODS


def is_self_attr(expr: ast.expr, self_name: str | None) -> bool:
    return (self_name is not None and isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
            and expr.value.id == self_name)


def is_property(fn: FunctionInfo) -> bool:
    """`@property` / `@functools.cached_property`: reading the attribute runs the getter."""
    return any((isinstance(d, ast.Name) and d.id in ("property", "cached_property"))
               or (isinstance(d, ast.Attribute) and d.attr == "cached_property") for d in fn.node.decorator_list)


def self_name_of(fn: FunctionInfo) -> str | None:
    """The name a method calls its instance (found once per function: every question about `self` asks it)."""
    walks = fn.walks
    if "self_name" in walks:
        return walks["self_name"]
    params = fn.positional_params if fn.is_method else None
    found = walks["self_name"] = params[0] if params else None
    return found


def _is_training(expr: ast.expr, self_name: str | None) -> bool:
    """`self.training`, or compared with a true constant (`self.training == True`, `is True`, `!= 0`)."""
    if is_self_attr(expr, self_name) and expr.attr == "training":
        return True
    return _compared_truth(expr, self_name) is True


def _is_not_training(expr: ast.expr, self_name: str | None) -> bool:
    return (isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not) and _is_training(expr.operand, self_name)) \
        or _compared_truth(expr, self_name) is False


def _compared_truth(expr: ast.expr, self_name: str | None) -> bool | None:
    """What `self.training == C` / `is C` / `!= C` / `is not C` (C a bool or int constant) says of the flag: True
    when the test holds exactly when it is set, False when exactly when it is not, None for other tests."""
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1 and is_self_attr(expr.left, self_name)
            and expr.left.attr == "training" and isinstance(expr.comparators[0], ast.Constant)
            and type(expr.comparators[0].value) in (bool, int)):
        return None
    truth = bool(expr.comparators[0].value)
    if isinstance(expr.ops[0], (ast.Eq, ast.Is)):
        return truth
    if isinstance(expr.ops[0], (ast.NotEq, ast.IsNot)):
        return not truth
    return None


def training_only_block(node: ast.If | ast.IfExp, self_name: str | None) -> str | None:
    """'body' when the body runs only in training (`if self.training:`, `if x > 0 and self.training:`),
    'orelse' when the else-branch does (`if not self.training:`, `if not self.training or x:`)."""
    test = node.test
    if _is_training(test, self_name):
        return "body"
    if _is_not_training(test, self_name):
        return "orelse"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
            and any(_is_training(v, self_name) for v in test.values):
        return "body"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) \
            and any(_is_not_training(v, self_name) for v in test.values):
        return "orelse"
    return None


def constant_flag_block(node: ast.If, fn: FunctionInfo, constants: dict[str, set] | None) -> str | None:
    """'body'/'orelse' when `if flag:` / `if not flag:` tests a parameter that every call passes as
    constants of one truth value (`predict(obs, deterministic=True)`), or a literal (`if False:`, `if 0:`,
    `if not True and x:`): that block never runs."""
    if not constants:
        outcome = _outcome(node.test, fn, {}, node)
        return None if outcome is None else "orelse" if outcome else "body"
    observed = constants.get(OBSERVED_KEY)
    if observed:    # the observed run ruled the block out: its guard reads only settings and it did not run
        for branch in ("body", "orelse"):
            if (branch, node.lineno) in observed:
                return branch
    outcome = _outcome(node.test, fn, constants, node)
    if outcome is None:
        return None
    return "orelse" if outcome else "body"


def _outcome(test: ast.expr, fn: FunctionInfo, constants: dict[str, set], guard: ast.AST | None = None) -> bool | None:
    """The truth value the constants give `test`, or None when they leave it open. `a and b` is False when
    one side is; `a or b` is True when one side is."""
    if isinstance(test, ast.BoolOp):
        outcomes = [_outcome(v, fn, constants, guard) for v in test.values]
        absorbing = isinstance(test.op, ast.Or)
        if absorbing in outcomes:
            return absorbing
        return (not absorbing) if all(o is not None for o in outcomes) else None
    negate = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negate = test.operand, True
    if isinstance(test, ast.Constant):   # `if False:` / `if 0:` / `if True:`: decided as written
        return bool(test.value) != negate
    keyed = kwarg_outcome(test, fn, constants)   # `"pose" in kwargs` where no pipeline call passes `pose`
    if keyed is not None:
        return keyed != negate
    dispatched = _kind_outcome(test, fn, constants, guard)   # `isinstance(q, np.ndarray)` where calls pass tensors
    if dispatched is not None:
        return dispatched != negate
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        outcomes = _compare_outcomes(test, fn, constants, guard)
    else:
        values = _constant_values(test, fn, constants, guard)
        outcomes = {bool(v) for v in values} if values else None
    if not outcomes and isinstance(test, (ast.Call, ast.Compare, ast.Subscript)) and not _compared_as_folded(test):
        values = folded(test, fn, constants)   # `if _smoothing_on():`, `if SIGNS[mirrored] < 0:`
        outcomes = {bool(v) for v in values} if values else None
    if not outcomes or len(outcomes) != 1:
        return None
    return next(iter(outcomes)) != negate


def _kind_outcome(test: ast.expr, fn: FunctionInfo, constants: dict[str, set], guard: ast.AST | None) -> bool | None:
    found = kind_test(test)
    if found is None or found[0] not in fn.params:
        return None
    kinds = constants.get(KIND_KEY + found[0])
    if not kinds or UNKNOWN in kinds or _rebound(fn, found[0], guard):
        return None
    return kind_outcome(found[1], kinds)


def _rebound(fn: FunctionInfo, name: str, guard: ast.AST | None) -> bool:
    """Is `name` stored anywhere in `fn` but inside `guard` (when no loop encloses it)?"""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for n in fn.nodes if id(n) not in _inside_unlooped(fn, guard))


def _compared_as_folded(test: ast.expr) -> bool:
    """`x > 0`, `self.mode == "a"`: a name or attribute against a literal, which `_compare_outcomes` has already
    folded as far as it goes (folding the whole test again would repeat it)."""
    return isinstance(test, ast.Compare) and isinstance(test.left, (ast.Name, ast.Attribute)) \
        and all(isinstance(c, ast.Constant) for c in test.comparators)


def literal_bindings(fn: FunctionInfo, name: str) -> set | None:
    """The constants a local that is not a parameter holds when every binding of it is a literal
    (`noise = True` ... `noise = False`, an inline range's binding before it included), else None."""
    if name in fn.params and name not in fn.outer_values:
        return None   # a parameter, unless it is an inline range's input bound before the range
    values = [*fn.assigned(name)]
    if name_stores(fn).get(name, 0) != len(values):
        return None   # bound otherwise too (a loop target, `+=`, a tuple target)
    if name in fn.outer_values:
        values.append(fn.outer_values[name])
    if not values or not all(isinstance(v, ast.Constant) for v in values):
        return None   # or to something computed
    return {v.value for v in values}


def module_check_key(expr: ast.expr, self_name: str | None) -> str | None:
    """`isinstance(self.model, torch.nn.Module)` -> the settings key saying what it holds ("isinstance:self.model")."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "isinstance" \
            and len(expr.args) == 2 and ast.unparse(expr.args[1]).split(".")[-2:] == ["nn", "Module"]:
        target = expr.args[0]
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
            return f"isinstance:self.{target.attr}"
    return None


def _constant_values(expr: ast.expr, fn: FunctionInfo, constants: dict[str, set], guard: ast.AST | None = None) -> set | None:
    """The constants a flag (a parameter, or a setting `self.x` the object was built with) can hold. A name
    rebound only inside the block `guard` tests (`if target is not None: target = pad(target)`), outside any
    loop, still holds its constant when the test runs."""
    if module_check_key(expr, self_name_of(fn)) in constants:
        key = module_check_key(expr, self_name_of(fn))
    elif isinstance(expr, ast.Name):
        key = expr.id
    elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == self_name_of(fn) \
            and f"self.{expr.attr}" in constants:
        key = f"self.{expr.attr}"
    elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) \
            and f"{expr.value.id}.{expr.attr}" in constants:   # `cfg.motion_play` of a module's config class
        key = f"{expr.value.id}.{expr.attr}"
    elif dict_read(expr) is not None and dict_read(expr)[0] in fn.params:
        param, name, _ = dict_read(expr)
        key = f"{DICT_KEY}{param}:{name}"
    else:
        config = config_key(expr)
        if config is None:
            return None
        key = CONFIG_KEY + config
    values = constants.get(key)
    if not values and isinstance(expr, ast.Name) and expr.id not in fn.params:
        return folded_local(expr.id, fn, constants)
    if not values or UNKNOWN in values:
        return None
    if isinstance(expr, ast.Name) and key not in constants.get(CONFIG_LOCALS, ()) and _rebound(fn, key, guard):
        return None  # rebound in the body
    return values


def _inside_unlooped(fn: FunctionInfo, guard: ast.AST | None) -> set[int]:
    """Ids of the nodes inside `guard` when no loop of `fn` encloses it (its test runs once per call)."""
    if guard is None:
        return set()
    key = ("inside_unlooped", id(guard))
    found = fn.walks.get(key)
    if found is None:
        looped = any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and any(n is guard for n in ast.walk(loop))
                     for loop in fn.nodes)
        found = fn.walks[key] = set() if looped else {id(n) for n in ast.walk(guard)}
    return found


_ORDER = {ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b, ast.Lt: lambda a, b: a < b,
          ast.LtE: lambda a, b: a <= b}


def _numbers(values: set, right) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (*values, right))


def _compare_outcomes(test: ast.Compare, fn: FunctionInfo, constants: dict[str, set], guard=None) -> set | None:
    """`mode == "relative"`, `self.kind != "bang"`, `mode in ("a", "b")`, `target is not None` over the values
    the setting can hold (a `None` default no reached call overrides is the constant None)."""
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None \
            and isinstance(test.left, ast.Attribute) and isinstance(test.left.value, ast.Name) \
            and test.left.value.id == self_name_of(fn) and constants.get(f"{PRESET_KEY}self.{test.left.attr}"):
        return {isinstance(op, ast.IsNot)}   # `self.nominal is None` where the driver set it before its loop
    values = _constant_values(test.left, fn, constants, guard)
    if values is None:
        return None
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
        same = {v == right.value for v in values}
        return same if isinstance(op, ast.Eq) else {not s for s in same}
    if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value in (None, True, False) \
            and all(v is None or isinstance(v, (bool, int, float, str)) for v in values):
        same = {v is right.value for v in values}   # `action is None` where no call passes an action
        return same if isinstance(op, ast.Is) else {not s for s in same}
    if isinstance(op, tuple(_ORDER)) and isinstance(right, ast.Constant) and _numbers(values, right.value):
        return {_ORDER[type(op)](v, right.value) for v in values}   # `self.history_len > 0` with the length set
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) \
            and all(isinstance(e, ast.Constant) for e in right.elts):
        options = {e.value for e in right.elts}
        inside = {v in options for v in values}
        return inside if isinstance(op, ast.In) else {not s for s in inside}
    return None


def iter_nodes(fn: FunctionInfo, constants: dict[str, set] | None = None):
    """Every node of the function body except training-only blocks (export runs in eval mode) and
    code that constant flag parameters rule out (`constants`: parameter -> values callers pass):
    the block not taken, and what follows a taken block that always returns."""
    key = tuple(sorted((name, frozenset(values)) for name, values in constants.items())) if constants else None
    nodes = fn.walks.get(key)
    if nodes is None:
        nodes = fn.walks[key] = tuple(_walk_live(fn, constants))
    return iter(nodes)


# The nodes the data-flow environment binds from (`flow.dataflow.compute_env` skips every other node).
_BINDING_NODES = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.withitem,
                  ast.NamedExpr, ast.Call)


def binding_nodes(fn: FunctionInfo, constants: dict[str, set] | None = None) -> tuple[ast.AST, ...]:
    """The nodes of `iter_nodes(fn, constants)`, in its order, that can bind a name (assignments, loops,
    `with`, calls): found once per function and constant facts, not tested again on every pass."""
    key = ("binding", tuple(sorted((name, frozenset(values)) for name, values in constants.items()))
           if constants else None)
    nodes = fn.walks.get(key)
    if nodes is None:
        nodes = fn.walks[key] = tuple(node for node in iter_nodes(fn, constants) if isinstance(node, _BINDING_NODES))
    return nodes


def _walk_live(fn: FunctionInfo, constants: dict[str, set] | None):
    self_name = self_name_of(fn)
    stack: list[ast.AST] = list(reversed(live_statements(fn.node.body, fn, constants)))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If):
            skipped = training_only_block(node, self_name) or constant_flag_block(node, fn, constants)
            children = _evaluated_test(node, fn, constants) \
                + ([] if skipped == "body" else live_statements(node.body, fn, constants)) \
                + ([] if skipped == "orelse" else live_statements(node.orelse, fn, constants))
        elif isinstance(node, ast.IfExp):
            skipped = training_only_block(node, self_name) or constant_flag_block(node, fn, constants)
            children = _evaluated_test(node, fn, constants) + ([] if skipped == "body" else [node.body]) \
                + ([] if skipped == "orelse" else [node.orelse])
        else:
            children = child_nodes(node)
        stack.extend(reversed(children))


def _evaluated_test(node: ast.If | ast.IfExp, fn: FunctionInfo, constants: dict[str, set] | None) -> list[ast.expr]:
    """The parts of the test that run in eval mode and under the settings: `self.training and x.sum() > 0`
    stops at `self.training` (False), `not self.training or x` at `not self.training` (True), `explore and
    np.random.random() < eps` at `explore` when every call passes False."""
    test = node.test
    if not isinstance(test, ast.BoolOp):
        return [test]
    self_name = self_name_of(fn)
    stop = _is_training if isinstance(test.op, ast.And) else _is_not_training
    decided = not isinstance(test.op, ast.And)    # the operand value that decides an `and` (False), an `or` (True)
    for i, value in enumerate(test.values[:-1]):
        if stop(value, self_name) or (constants and _outcome(value, fn, constants, node) is decided):
            return test.values[:i + 1]
    return [test]


def leaves_function(block: list[ast.stmt] | None) -> bool:
    """Does the block end by returning or raising (nothing after it in the function runs on that path)?"""
    return bool(block) and isinstance(block[-1], (ast.Return, ast.Raise))


def live_statements(block: list[ast.stmt], fn: FunctionInfo, constants: dict[str, set] | None) -> list[ast.stmt]:
    """`block` up to an `if flag: ... return` (or `if not self.training: ... return`: export runs in eval
    mode) whose taken branch returns: what follows never runs."""
    self_name = self_name_of(fn)
    for i, stmt in enumerate(block):
        if isinstance(stmt, ast.If):
            skipped = training_only_block(stmt, self_name) or constant_flag_block(stmt, fn, constants)
            taken = stmt.orelse if skipped == "body" else stmt.body if skipped == "orelse" else None
            if leaves_function(taken):
                return block[: i + 1]
    return block


def self_returned(value: ast.expr) -> ast.expr:
    """The object a chain of self-returning calls starts from (`net` in `net.eval().to(device)`), else the value."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in SELF_RETURNING_METHODS:
        value = value.func.value
    return value
