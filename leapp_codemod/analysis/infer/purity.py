"""Does calling a project function only compute a value (`value_only`)?

A helper that stores nothing outside its own locals, fills no object it was handed, draws no random numbers and
commands nothing (its calls are reports, values, reads whose result it uses, or other such helpers) changes
nothing a later statement could see: its call is a value like `np.linalg.norm(x)`. A statement that calls one
reaches the step's outputs only through what it binds (`relevance`), and a helper whose every call is in a
statement that reaches no output (a log of a tracking error, a result thrown away) computes nothing the export
keeps (`report_reach`).
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.knowledge.draws import NOT_DRAWS, RANDOM_MODULES, STDLIB_DRAWS, TORCH_RANDOM
from leapp_codemod.knowledge.vocab import DATA_METHOD_NAMES, INPLACE_EXCEPTIONS, NON_DATA_BUILTINS, \
    PURE_BUILTINS, PURE_LIBRARIES, SHARING_METHODS, WRITING_METHODS

# Builtins that only compute a value from their arguments.
_VALUE_BUILTINS = NON_DATA_BUILTINS | PURE_BUILTINS | {
    "enumerate", "zip", "sorted", "reversed", "sum", "any", "all", "map", "filter", "dict", "set", "frozenset",
    "divmod", "pow", "isinstance", "repr", "str", "format", "len", "float", "int", "bool", "min", "max", "abs",
    "round", "list", "tuple", "range"} - {"print", "open", "setattr", "next", "iter", "delattr", "exec", "eval"}
# Method names that command the object they are called on even when their result is used (`obs = env.step(a)`).
COMMAND_PREFIXES = ("step", "reset", "send", "publish", "write", "put", "set", "update", "apply", "act", "execute",
                    "run", "move", "push", "pop", "advance", "tick", "sync", "flush", "close", "open", "start",
                    "stop", "spin", "call", "emit", "command", "register", "load", "save", "record", "log")


class PurityQuestions:
    """Mixin of `FunctionContext`: `value_only()`."""

    def value_only(self) -> bool:
        """Is a call of this (project) function a value: it returns one, stores nothing outside its locals, fills
        no object, draws nothing, commands nothing, and every call in it is a report, a value, a read whose result
        it uses or another such function?"""
        known = self.fn.walks.get("value_only")
        if known is not None:
            return known
        self.fn.walks["value_only"] = False   # a recursive helper is not proven by itself
        verdict = self.fn.walks["value_only"] = self._value_only()
        return verdict

    def _value_only(self) -> bool:
        fn = self.fn
        if "<lines" in fn.qualname or self.project.is_library(fn.module):
            return False
        if not any(isinstance(n, ast.Return) and n.value is not None for n in fn.nodes):
            return False   # called for what it does (a sender that only prints stands for one), not for a value
        own = _own_locals(fn)
        parents = parent_map(fn)
        for node in fn.nodes:
            if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.Lambda,
                                 ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not fn.node:
                return False
            if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                    and _root_name(node) not in own:
                return False   # `self.x = v`, `arg[0] = v`: a write another reader may see
            if isinstance(node, ast.Call) and not self._value_call(node, own, parents):
                return False
        return True

    def _value_call(self, call: ast.Call, own: frozenset[str], parents: dict[int, ast.AST]) -> bool:
        if self.clock_kind(call) is not None:
            return True   # a clock read: a value
        if self.io_kind(call) is not None:
            return self._reports(call)   # a print, a log line; a publish commands
        if self.builtin(call) in _VALUE_BUILTINS:
            return True
        if any(k.arg == "out" for k in call.keywords):
            return False
        name = self.call_name(call) or ""
        if name in TORCH_RANDOM or name in STDLIB_DRAWS or name.startswith(RANDOM_MODULES) and name not in NOT_DRAWS:
            return False   # a draw advances the generator later draws read
        func = call.func
        if isinstance(func, ast.Attribute):
            method = func.attr
            fills = method in WRITING_METHODS or (method.endswith("_") and method not in INPLACE_EXCEPTIONS)
            if fills:
                return _root_name(func.value) in own   # `rows.append(r)` on its own list only
            if method in DATA_METHOD_NAMES:
                return True   # `x.reshape(3)`, `q.copy()`: a value's own method
        if name and name.partition(".")[0] in PURE_LIBRARIES:
            return True
        callees = self.resolve_call(call)
        if callees:
            return all(not self.project.is_library(c.module) and self.for_function(c).value_only() for c in callees) \
                or all(self.project.is_library(c.module) for c in callees) and _used_read(call, parents)
        return _used_read(call, parents)


def _used_read(call: ast.Call, parents: dict[int, ast.AST]) -> bool:
    """A call on an object the function did not build whose result it uses, named like a read
    (`self.traj.interpolate(t)`, `self.solver.forward_kinematics(q)`), not a command (`env.step(a)`)."""
    if isinstance(parents.get(id(call)), ast.Expr):
        return False   # a bare call is made for what it does
    func = call.func
    method = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return not method.lower().lstrip("_").startswith(COMMAND_PREFIXES)


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _own_locals(fn) -> frozenset[str]:
    """Locals every binding of which builds a new object (a call, a literal, arithmetic), never an alias of
    something from outside (`buf = self.buf`, `row = rows[0]`, a parameter)."""
    bound: dict[str, list[ast.expr | None]] = {}
    for node in fn.nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in (t for t in ast.walk(target) if isinstance(t, ast.Name)):
                    bound.setdefault(name.id, []).append(node.value if isinstance(target, ast.Name) else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, []).append(node.value if isinstance(node, ast.AnnAssign) else node)
        elif isinstance(node, (ast.For, ast.comprehension, ast.With, ast.withitem)):
            target = node.target if isinstance(node, (ast.For, ast.comprehension)) else getattr(node, "optional_vars", None)
            for name in (t for t in ast.walk(target) if isinstance(t, ast.Name)) if target is not None else ():
                bound.setdefault(name.id, []).append(None)
    fresh = (ast.Call, ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set, ast.SetComp, ast.Tuple, ast.BinOp,
             ast.UnaryOp, ast.Constant, ast.JoinedStr, ast.AugAssign)
    return frozenset(name for name, values in bound.items() if name not in fn.params
                     and all(isinstance(v, fresh) and not _sharing_call(v) for v in values))


def _sharing_call(value: ast.expr) -> bool:
    """`x.view(3)`, `d.get(k)`: a call whose result may be the receiver's memory."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in SHARING_METHODS
