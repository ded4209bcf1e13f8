"""Models that behave differently in training mode, and what the project puts in evaluation mode.

A torch module's `training` flag is on until someone calls `.eval()` (or `.train(False)`); BatchNorm then
normalises with the batch's statistics and updates its running ones, Dropout zeroes random entries, a normaliser
whose `forward` tests `self.training` updates its statistics on every call. What LEAPP 0.7.2 does with such a model
is in `knowledge.leapp.TRAIN_MODE_EXPORT`.

`train_sensitive(project, cls)` names the first part of a project module class (its own methods, its bases, the
project module classes and `nn.Sequential` lists its constructor builds, up to 3 levels) that depends on the
flag. `eval_marks(project)` collects, from the application's code, the receivers of `.eval()` / `.train(False)`
calls: the names at the end of the receiver (`agent.actor.eval()` -> `actor`), the classes that put themselves
in evaluation mode (`self.eval()` in a method), and whether some call's receiver cannot be named (a parameter,
a loop variable over a list of modules, a call's answer): then any model may be in evaluation mode and nothing is
said.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.model.index import ClassInfo

# torch.nn layers whose behaviour depends on the training flag: running statistics, random masks.
STATISTICS_LAYERS = frozenset(f"torch.nn.{n}" for n in (
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LazyBatchNorm3d"))
RANDOM_LAYERS = frozenset(f"torch.nn.{n}" for n in (
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"))
_MAX_DEPTH = 3


@dataclass(frozen=True)
class Sensitive:
    what: str     # e.g. "`nn.Dropout(0.2)`", "a `forward` that tests `self.training`"
    path: str
    line: int


@dataclass(frozen=True)
class EvalMarks:
    names: frozenset[str]        # receiver names put in evaluation mode somewhere
    classes: frozenset[str]      # class ids whose methods call `self.eval()`
    anything: bool               # some receiver could not be named


def _is_eval_call(call: ast.Call) -> bool:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "eval" and not call.args and not call.keywords:
        return True
    off = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "mode")]
    return func.attr == "train" and any(isinstance(a, ast.Constant) and a.value is False for a in off)


def _chain_names(expr: ast.expr) -> list[str]:
    """`self.agent.actor` -> ["self", "agent", "actor"]; [] when a call or subscript is in the way."""
    names = []
    while isinstance(expr, ast.Attribute):
        names.insert(0, expr.attr)
        expr = expr.value
    return [expr.id, *names] if isinstance(expr, ast.Name) else []


def eval_marks(project) -> EvalMarks:
    key = ("train-mode-eval-marks",)
    found = project.memo.get(key)
    if found is not None:
        return found
    names, classes, anything = set(), set(), False
    for module in project.modules.values():
        if project.is_library(module.name):
            continue
        assigned = {id(n.value): n for n in module.nodes if isinstance(n, ast.Assign)}
        for fn in module.functions.values():
            self_name = fn.positional_params[0] if fn.is_method and fn.positional_params else None
            for call in (n for n in fn.nodes if isinstance(n, ast.Call) and _is_eval_call(n)):
                chain = _chain_names(call.func.value)
                if chain == [self_name] and fn.class_name:
                    classes.add(f"{fn.module}:{fn.class_name}")
                elif len(chain) == 1 and _unnamed(fn, chain[0]):
                    anything = True     # `def set_eval(module): module.eval()`, `for m in nets: m.eval()`
                elif chain:
                    names.add(chain[-1])
                elif id(call) in assigned:     # `self.actor = Actor(cfg).to(dev).eval()`
                    names.update(c[-1] for c in map(_chain_names, assigned[id(call)].targets) if c)
                else:
                    anything = True
        for call in (n for n in module.nodes if isinstance(n, ast.Call) and _is_eval_call(n)):
            chain = _chain_names(call.func.value)   # module-level code too (the functions' calls again: no harm)
            if chain:
                names.add(chain[-1])
            elif id(call) in assigned:
                names.update(c[-1] for c in map(_chain_names, assigned[id(call)].targets) if c)
    project.memo[key] = EvalMarks(frozenset(names), frozenset(classes), anything)
    return project.memo[key]


def _unnamed(fn, name: str) -> bool:
    """A parameter of the function or a loop variable: the module it holds is whatever the caller or the list
    hands over."""
    if name in fn.params:
        return True
    return any(isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and any(
        isinstance(t, ast.Name) and t.id == name for t in ast.walk(n.target)) for n in fn.nodes)


def _is_flag(e: ast.expr, self_name: str | None) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        e = e.operand
    return isinstance(e, ast.Attribute) and e.attr == "training" and isinstance(e.value, ast.Name) \
        and e.value.id == self_name


def _flag_decides(node: ast.AST, self_name: str | None) -> bool:
    """A test of the flag alone (`if self.training:`, `x if not self.training else y`) or the flag handed on
    (`F.dropout(x, 0.1, training=self.training)`). Not the flag beside other conditions (`if self.noise > 0 and
    self.training:`): whether that block runs also depends on them."""
    if isinstance(node, (ast.If, ast.IfExp, ast.While)):
        return _is_flag(node.test, self_name)
    return isinstance(node, ast.keyword) and node.arg == "training" and _is_flag(node.value, self_name)


def _layer(project, module, call: ast.Call) -> str:
    qualified = project.qualify(call.func, module)
    name = project.external_name(qualified) if qualified else ""
    if name in STATISTICS_LAYERS:
        return name
    if name in RANDOM_LAYERS:
        p = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "p"), None)
        if p is None or isinstance(p, ast.Constant) and isinstance(p.value, (int, float)) and p.value > 0:
            return name
    return ""


def train_sensitive(project, cls: ClassInfo, depth: int = 0, seen: frozenset = frozenset()) -> Sensitive | None:
    """The first part of the module class `cls` that depends on the training flag, or None."""
    if depth > _MAX_DEPTH or cls.id in seen:
        return None
    key = ("train-sensitive", cls.id)
    if depth == 0 and key in project.memo:
        return project.memo[key]
    found = None
    for klass in project.mro(cls):
        if project.is_library(klass.module):
            continue
        module = project.modules[klass.module]
        for method in klass.methods.values():
            self_name = method.positional_params[0] if method.positional_params else None
            for node in method.nodes:
                if _flag_decides(node, self_name):
                    found = Sensitive(f"`{klass.name}.{method.name}` tests `self.training`", klass.path, node.lineno)
                elif isinstance(node, ast.Call) and method.name == "__init__":
                    found = _built_part(project, module, klass, node, depth, seen | {cls.id})
                if found is not None:
                    break
            if found is not None:
                break
        if found is not None:
            break
    if depth == 0:
        project.memo[key] = found
    return found


def _built_part(project, module, klass: ClassInfo, call: ast.Call, depth: int, seen) -> Sensitive | None:
    layer = _layer(project, module, call)
    if layer:
        return Sensitive(f"`{ast.unparse(call)[:60]}`", klass.path, call.lineno)
    qualified = project.qualify(call.func, module)
    target = project.lookup(qualified) if qualified else None
    if isinstance(target, ClassInfo) and project.is_nn_module(target) and not project.is_library(target.module):
        return train_sensitive(project, target, depth + 1, seen)
    return None
