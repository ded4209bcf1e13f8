"""The fields a method entry reads from objects it holds (`self.data.sensordata`, `self.robot.state.q`):
inputs that are not arguments. `generate` declares them in the module's HELD (see leapp_codemod.held)."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ..source.chains import attribute_chain

# The rule whose findings name attributes of self filled outside the step (rules/outside_input.py), and how its
# message starts.
OUTSIDE_RULE = "LCM903"
_OUTSIDE_ATTR = re.compile(r"^`self\.(\w+)`")


@dataclass(frozen=True)
class HeldInput:
    name: str    # the input's name (an identifier)
    path: str    # dotted path from the entry's instance ("data.sensordata")
    where: str   # "file:line" of the first read


def _chain(node: ast.AST, me: str, aliases: dict[str, list[str]] | None = None) -> list[str] | None:
    """`self.a.b.c` as ["a", "b", "c"] (`s.c` as the same when `aliases` says `s = self.a.b`), or None
    when the expression is no attribute chain on `me`."""
    chain = attribute_chain(node)
    if chain is None:
        return None
    root, parts = chain
    if root == me:
        return list(parts)
    return (aliases[root] + list(parts)) if aliases and root in aliases and parts else None


def _aliases(fn: ast.FunctionDef, me: str) -> dict[str, tuple[list[str], int]]:
    """Local names bound once to an attribute chain on the instance (`s = self.robot.state`):
    name -> (the chain, id of the chain's expression)."""
    bound: dict[str, list] = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets:
                for sub in ast.walk(target) if target is not None else ():
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                        value = node.value if isinstance(node, ast.Assign) and target is sub else None
                        bound.setdefault(sub.id, []).append(value)
    out = {}
    for name, values in bound.items():
        if len(values) == 1 and isinstance(values[0], ast.Attribute) and (chain := _chain(values[0], me)):
            out[name] = (chain, id(values[0]))
    return out


# An array's metadata read as a value (`self.buf.shape`) is no field to serve: the array's shape, dtype
# and device are constants of a traced graph.
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "T", "mT", "is_cuda", "requires_grad"})


def _written(fn: ast.FunctionDef) -> set[int]:
    """ids of the attribute expressions the method writes through (`self.data.ctrl[:] = u`,
    `self.buf.x += 1`, `self.a.b = v`): those stay on the real object."""
    out: set[int] = set()
    for node in ast.walk(fn):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute):
                    out.add(id(sub))
    return out


def held_reads(fn: ast.FunctionDef) -> list[tuple[str, int]]:
    """(dotted path, line) of each field two or more attributes deep on the instance that the method
    reads as a value: the longest chain, never a callee (`self.actor.act(...)`) or its receiver, never
    a chain the method writes through. In the order of first read."""
    args = fn.args.posonlyargs + fn.args.args
    if not args:
        return []
    me = args[0].arg
    skip = _written(fn)
    aliases = _aliases(fn, me)
    prefixes = {name: chain for name, (chain, _) in aliases.items()}
    inner: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            skip.add(id(node.func))
            if isinstance(node.func, ast.Attribute):
                skip.add(id(node.func.value))      # a method's receiver: `self.robot.get_state()`
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            inner.add(id(node.value))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            inner.add(aliases[node.value.id][1])     # `s = self.robot.state; s.q`: the field is robot.state.q
    found: dict[str, int] = {}
    for node in ast.walk(fn):
        if not isinstance(node, ast.Attribute) or id(node) in skip or id(node) in inner:
            continue
        chain = _chain(node, me, prefixes)
        if chain and len(chain) >= 2 and chain[-1] not in _METADATA:
            path = ".".join(chain)
            found[path] = min(found.get(path, node.lineno), node.lineno)
    return sorted(found.items(), key=lambda item: item[1])


def _outside_reads(findings, entry_id: str):
    """(finding, attribute) of each LCM903 finding on `self.<attr>` in a method of the entry's class."""
    owner = entry_id.rpartition(".")[0]
    for f in findings:
        found = _OUTSIDE_ATTR.match(f.message) if f.code == OUTSIDE_RULE else None
        if found and owner and f.function.rpartition(".")[0] == owner:
            yield f, found.group(1)


def filled_outside(findings, entry_id: str) -> list[tuple[str, int]]:
    """(attribute, line) of each attribute of the entry's instance the scan found filled outside the step
    (LCM903 on `self.<attr>` in a method of the entry's class): a value a callback or a thread keeps on the
    instance, served as a held input (read before the call, traced as an input) instead of a constant."""
    return [(attr, f.line) for f, attr in _outside_reads(findings, entry_id)]


def served_outside(findings, entry_id: str, fields: tuple[HeldInput, ...]) -> set[tuple[str, int, int]]:
    """(path, line, column) of the LCM903 findings whose attribute the module serves as a held input: resolved by
    HELD (`run` names a field it could not serve), neither left out of the export nor unresolved."""
    roots = {f.path.split(".")[0] for f in fields}
    return {(f.path, f.line, f.column) for f, attr in _outside_reads(findings, entry_id) if attr in roots}


def held_inputs(fn: ast.FunctionDef, path: Path, taken: set[str] = frozenset(),
                outside: list[tuple[str, int]] = ()) -> tuple[HeldInput, ...]:
    """The held inputs of a method entry: the fields it reads two or more attributes deep (`held_reads`), and
    the attributes of its instance that code outside the step fills (`outside`, from `filled_outside`)."""
    out: list[HeldInput] = []
    names = set(taken)
    reads = dict(held_reads(fn))
    for attr, line in outside:
        if not any(p == attr or p.startswith(attr + ".") for p in reads):
            reads[attr] = min(reads.get(attr, line), line)
    for dotted, line in sorted(reads.items(), key=lambda item: item[1]):
        name = re.sub(r"\W", "_", dotted.replace(".", "_"))
        while name in names:
            name += "_"
        names.add(name)
        out.append(HeldInput(name=name, path=dotted, where=f"{path.name}:{line}"))
    return tuple(out)


def held_calls(fn: ast.FunctionDef, limit: int = 4) -> list[str]:
    """The calls on objects the method holds (`self.robot.get_q()`), in the order of first call."""
    args = fn.args.posonlyargs + fn.args.args
    me = args[0].arg if args else None
    found: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and (chain := _chain(node.func, me)) and len(chain) >= 2:
            text = f"self.{'.'.join(chain)}()"
            found[text] = min(found.get(text, node.lineno), node.lineno)
    return sorted(found, key=found.get)[:limit]


def no_inputs_hint(fn: ast.FunctionDef | None) -> str:
    """Why a method entry without arguments and without fields to read has no inputs ('' when it calls
    nothing on the objects it holds)."""
    calls = held_calls(fn) if fn is not None else []
    return (f": it reads them through calls on objects it holds ({', '.join(calls)}), which cannot be served as "
            "inputs (fields can: HELD); export a function that takes them as arguments, or name an inline range "
            "that starts where they have been read (--entry FILE:START-END)" if calls else "")
