"""What a statement of a loop body (or a callback's body) binds and reads, for the backward slice that finds where
an inline range starts (loops.py).

Keys are local names and fields of `self` (`"self.obs_buf"`), so that a callback or a method loop that builds its
observation in attributes is sliced like one that builds it in locals:

    self.obs_buf = np.zeros(45)              # binds self.obs_buf                     <- the range starts here
    self.obs_buf[0:3] = imu.angular_velocity # binds and reads self.obs_buf, reads imu
    self.ticks += 1                          # binds self.ticks: not on the slice
    self._fill_joints(msg)                   # one call away: binds what `_fill_joints` writes (self.obs_buf)
    action = self.policy(torch.tensor(self.obs_buf))

A call of a method the class defines (`self._fill_joints(msg)`) binds and reads the fields that method's body
writes and reads (one call away). A call of a method the class does not define (inherited, or bound at run
time) reads any field, and, when its result is discarded, may write any (`SELF_ANY`). Calls on a field's object
(`self.sensor.read()`) read the field; a container mutator on it (`self.hist.append(x)`) binds it too.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.entry.bounds import walk_here
from leapp_codemod.knowledge.vocab import LOOP_MUTATORS

SELF_ANY = "self.*"


def self_field(expr: ast.expr) -> str | None:
    """`self.x` for `self.x`, `self.x[i]`, `self.x.y[:, 0]`; None for anything else."""
    while isinstance(expr, (ast.Subscript, ast.Attribute, ast.Starred)):
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            return f"self.{expr.attr}"
        expr = expr.value
    return None


def binding_targets(node: ast.AST) -> list[ast.expr]:
    """What a binding node binds (`=`, `+=`, loop and comprehension targets, `with ... as`), tuples unpacked."""
    if isinstance(node, ast.Assign):
        found = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension)):
        found = [node.target]
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        found = [node.optional_vars]
    else:
        return []
    return [e for t in found for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]


def _method(call: ast.Call) -> str | None:
    """`m` for a call `self.m(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        return func.attr
    return None


def _own_writes(node: ast.AST) -> set[str]:
    out = {f for n in walk_here(node) for t in binding_targets(n) if (f := self_field(t))}
    out |= {f for n in walk_here(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in LOOP_MUTATORS and (f := self_field(n.func.value))}
    return out


def _own_reads(node: ast.AST) -> set[str]:
    return {f"self.{n.attr}" for n in walk_here(node) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
            and isinstance(n.value, ast.Name) and n.value.id == "self"}


@dataclass(frozen=True)
class ClassView:
    """The methods a class defines in its own body (by name) and the fields its methods assign."""
    methods: dict = field(default_factory=dict)
    fields: frozenset[str] = frozenset()

    def unknown(self, name: str | None) -> bool:
        """Is `self.<name>(...)` a call of a method defined elsewhere (inherited, bound at run time), not of
        one of the class's own methods or of a model held in a field (`self.net(x)`)?"""
        return bool(name) and name not in self.methods and f"self.{name}" not in self.fields


def field_writes(stmt: ast.stmt, view: ClassView) -> set[str]:
    """Fields of self the statement binds or mutates, those written by the class's methods it calls included."""
    out = _own_writes(stmt)
    discarded = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
    for call in (n for n in walk_here(stmt) if isinstance(n, ast.Call)):
        name = _method(call)
        if name in view.methods:
            out |= _own_writes(view.methods[name])
        elif view.unknown(name) and discarded and call is stmt.value:
            out.add(SELF_ANY)   # `self.refresh()` of a method defined elsewhere: it may write any field
    return out


def field_reads(stmt: ast.stmt, view: ClassView) -> set[str]:
    """Fields of self the statement reads, those read by the class's methods it calls included."""
    out = _own_reads(stmt)
    for call in (n for n in walk_here(stmt) if isinstance(n, ast.Call)):
        name = _method(call)
        if name in view.methods:
            out |= _own_reads(view.methods[name])
        elif view.unknown(name):
            out.add(SELF_ANY)
    return out


def binds(defined: set[str], needed: set[str]) -> bool:
    """Does a statement binding `defined` bind something of `needed` (SELF_ANY on one side matches any field)?"""
    if defined & needed:
        return True
    if SELF_ANY in defined and any(k.startswith("self.") for k in needed):
        return True
    return SELF_ANY in needed and any(k.startswith("self.") and k != SELF_ANY for k in defined)


def class_view(node: ast.ClassDef | None) -> ClassView:
    """What slicing a method's loop needs to know of its class (`node`; None for a function)."""
    if node is None:
        return ClassView()
    methods = {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return ClassView(methods, frozenset().union(*(_own_writes(m) for m in methods.values())))
