"""Turn an observation into facts the static analysis uses (pure: no torch, no application code).

* `callees`: (caller function id, line) -> the project functions (or `lib:` library functions)
  that ran from that line; they join the reachable set.
* `receivers`: function id -> the concrete classes it ran on.
* `settings`: (owner, attribute path) read with the same value on every observed call; `changed`:
  those whose value changed (data or state). Owner: a class id, or `global:<module>`.
* `lines`: function id -> the lines executed in the observed calls.

`skipped_blocks` names the `if` blocks of an executed function that did not run although their guard
reads only settings (or constant parameters): they are ruled out like blocks a constant flag rules
out. A block guarded by data that did not run is kept (it may run on the robot).
"""
from __future__ import annotations

import ast
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ..source.chains import attribute_chain

OBSERVED_KEY = "<observed>"      # in a function's constants table: the (branch, line) blocks ruled out


@dataclass(frozen=True)
class ObservedInput:
    """A saved observation handed to the scan: `data` with absolute paths; `digest` keys the cache."""

    data: dict = field(compare=False, hash=False, repr=False)
    source: str = ""              # the driver script or recording, as the user named it
    entry: str = ""               # the entry observed, as scan names it
    digest: str = ""


@dataclass(frozen=True)
class ObservedFacts:
    entry: str                                  # as observed: "module:qualname"
    calls: int                                  # entry calls observed
    source: str                                 # the driver script or the recording, as given
    lines: dict[str, frozenset[int]] = field(default_factory=dict)
    callees: dict[tuple[str, int], frozenset[str]] = field(default_factory=dict)
    receivers: dict[str, frozenset[str]] = field(default_factory=dict)
    settings: dict[tuple[str, tuple[str, ...]], object] = field(default_factory=dict)
    changed: frozenset[tuple[str, tuple[str, ...]]] = frozenset()
    kinds: dict[tuple[str, tuple[str, ...]], str] = field(default_factory=dict)
    resolved: set = field(default_factory=set, compare=False)   # (function id, line) only the observation resolved

    def executed(self, fid: str, line: int) -> bool:
        return line in self.lines.get(fid, ())

    def is_setting(self, owners: set[str], path: tuple[str, ...]) -> bool:
        keys = [(o, path) for o in owners]
        return any(k in self.settings for k in keys) and not any(k in self.changed for k in keys)


def _fid(key: str, module_of: Callable[[str], str | None]) -> str | None:
    if key.startswith("lib:"):
        return key
    path, _, qual = key.rsplit(":", 2)
    module = module_of(os.path.abspath(path))
    return f"{module}:{qual}" if module else None


def facts_from(observation: dict, module_of: Callable[[str], str | None], source: str) -> ObservedFacts:
    """`observation`: the recorder's JSON with absolute paths; `module_of`: absolute file -> the
    project's module name (None outside the project)."""
    lines: dict[str, frozenset[int]] = {}
    for f in observation.get("functions", []):
        fid = _fid(f["key"], module_of)
        if fid and not fid.startswith("lib:"):
            lines[fid] = lines.get(fid, frozenset()) | frozenset(f.get("lines", ()))
    callees: dict[tuple[str, int], set[str]] = {}
    receivers: dict[str, set[str]] = {}
    for e in observation.get("edges", []):
        caller, callee = _fid(e["caller"], module_of), _fid(e["callee"], module_of)
        if caller is None or callee is None:
            continue
        callees.setdefault((caller, int(e["line"])), set()).add(callee)
        module = module_of(os.path.abspath(e["receiver_file"])) if e.get("receiver_file") else None
        if module and e.get("receiver"):
            receivers.setdefault(callee, set()).add(f"{module}:{e['receiver'].partition(':')[2]}")
    settings, changed, kinds = {}, set(), {}
    for r in observation.get("reads", []):
        module = module_of(os.path.abspath(r["file"])) if r.get("file") else None
        if module is None:
            continue
        owner = f"global:{module}" if r["owner"].startswith("global:") else f"{module}:{r['owner'].partition(':')[2]}"
        key = (owner, tuple(r["path"]))
        kinds[key] = r["kind"]
        if r["constant"]:
            settings[key] = r.get("truth")
        else:
            changed.add(key)
    loc = observation.get("entry_location") or ["", 0, ""]
    entry = next((fid for fid in lines if fid.endswith(":" + loc[2]) or fid.endswith("." + loc[2])), "") \
        if loc[2] else ""
    for f in observation.get("functions", []):
        if f["key"].startswith(f"{loc[0]}:{loc[1]}:"):
            entry = _fid(f["key"], module_of) or entry
    return ObservedFacts(entry, int(observation.get("entry_calls", 0)), source, lines,
                         {k: frozenset(v) for k, v in callees.items()},
                         {k: frozenset(v) for k, v in receivers.items()}, settings, frozenset(changed), kinds)


def _path(expr: ast.expr, self_name: str | None) -> tuple[str, tuple[str, ...]] | None:
    """('self', ('cfg', 'use_filter')) for `self.cfg.use_filter`, ('global', ('MODE',)) for `MODE`."""
    chain = attribute_chain(expr)
    if chain is None:
        return None
    root, parts = chain
    if root == self_name and parts:
        return ("self", parts) if len(parts) <= 2 else None
    if not parts:
        return "global", (root,)
    return None


def guard_is_setting(test: ast.expr, fn_module: str, owners: set[str], self_name: str | None,
                     local_names: set[str], constant_params: set[str], facts: ObservedFacts) -> bool:
    """True when every value the guard reads is a setting: an attribute of self or a global observed
    with one value on every call, a constant parameter, or a literal."""
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Constant):
            continue
        if isinstance(node, (ast.BoolOp, ast.UnaryOp, ast.Compare, ast.BinOp)):
            stack.extend(ast.iter_child_nodes(node))
            continue
        if isinstance(node, (ast.boolop, ast.unaryop, ast.cmpop, ast.operator)):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "len") \
                and node.args:
            stack.append(node.args[0])
            continue
        if isinstance(node, ast.Name) and node.id in constant_params:
            continue
        if isinstance(node, ast.Name) and node.id in local_names:
            return False
        found = _path(node, self_name) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if found is None:
            return False
        where, path = found
        if where == "self" and not facts.is_setting(owners, path):
            return False
        if where == "global" and not facts.is_setting({f"global:{fn_module}"}, path):
            return False
    return True


def _block_lines(block: list[ast.stmt]) -> set[int]:
    return {n.lineno for stmt in block for n in ast.walk(stmt) if isinstance(n, ast.stmt)}


def skipped_blocks(fn_node: ast.AST, executed: frozenset[int], is_setting: Callable[[ast.expr], bool]) -> set:
    """{(branch, line)}: `if` blocks of an executed function that did not run, guarded by settings."""
    out = set()
    for node in ast.walk(fn_node):
        if not isinstance(node, ast.If) or node.lineno not in executed or not is_setting(node.test):
            continue
        if node.body and not _block_lines(node.body) & executed:
            out.add(("body", node.lineno))
        if node.orelse and not _block_lines(node.orelse) & executed:
            out.add(("orelse", node.lineno))
    return out


def seen_label(fid: str, line: int, facts: ObservedFacts) -> str:
    return "seen running" if facts.executed(fid, line) else "static only"


def note(facts: ObservedFacts, functions: int, resolved_only: int) -> str:
    source = facts.source
    return (f"observed: {facts.calls} call{'s' if facts.calls != 1 else ''} of {facts.entry or 'the entry'} "
            f"from {source}, {functions} function{'s' if functions != 1 else ''}, "
            f"{resolved_only} resolved by observation only")


# --------------------------------------------------------------------------- used by the scan
def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def observed_callees(facts: ObservedFacts, fid: str, fn_node: ast.AST, call: ast.Call) -> list[str]:
    """The project function ids observed running from `call` (by its lines; when several calls share
    a line, a callee named like one of them goes to that one)."""
    lines = range(call.lineno, (call.end_lineno or call.lineno) + 1)
    found = set().union(*(facts.callees.get((fid, line), ()) for line in lines))
    found = {c for c in found if not c.startswith("lib:")}
    if not found:
        return []
    name = _call_name(call)
    last = {c: c.rpartition(".")[2].rpartition(":")[2] for c in found}
    named = sorted(c for c in found if last[c] == name)
    if named:
        return named
    others = {_call_name(c) for c in ast.walk(fn_node) if isinstance(c, ast.Call) and c is not call
              and c.lineno in lines}
    return sorted(c for c in found if last[c] not in others)


def _local_names(fn_node: ast.AST) -> set[str]:
    names = {a.arg for a in ast.walk(fn_node.args) if isinstance(a, ast.arg)} if hasattr(fn_node, "args") else set()
    names |= {n.id for n in ast.walk(fn_node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def skip_table(facts: ObservedFacts, fid: str, fn_node: ast.AST, module: str, own_class: str | None,
               self_name: str | None, constants: dict | None) -> set:
    """{(branch, line)} of `fid`'s blocks ruled out by observed settings (empty when it never ran)."""
    executed = facts.lines.get(fid)
    if not executed:
        return set()
    owners = set(facts.receivers.get(fid, ())) | ({own_class} if own_class else set())
    constant_params = {name for name, values in (constants or {}).items()
                       if name != OBSERVED_KEY and values and len({bool(v) for v in values}) == 1
                       and not any(isinstance(v, tuple) for v in values)}
    local = _local_names(fn_node) - constant_params
    if self_name:
        local.discard(self_name)

    def is_setting(test: ast.expr) -> bool:
        return guard_is_setting(test, module, owners, self_name, local, constant_params, facts)
    return skipped_blocks(fn_node, executed, is_setting)


def label_findings(findings: list, facts: ObservedFacts) -> list:
    """Each finding with `seen`: "seen running" when one of its lines ran in the observed calls."""
    from dataclasses import replace

    out = []
    for f in findings:
        ran = any(facts.executed(f.function, line) for line in range(f.line, max(f.line, f.end_line) + 1))
        out.append(replace(f, seen="seen running" if ran else "static only"))
    return out


def still_not_followed(items, facts: ObservedFacts) -> tuple:
    """The `not followed` calls the observation did not resolve."""
    return tuple(n for n in items if not any(not c.startswith("lib:") for c in facts.callees.get((n.function, n.line), ())))


def function_by_id(project, fid: str):
    """The project's FunctionInfo for "module:qualname", or None."""
    module, _, qualname = fid.partition(":")
    mod = project.modules.get(module)
    return mod.functions.get(qualname) if mod is not None else None


def observe_project(analysis, project, given: ObservedInput | None) -> ObservedFacts | None:
    """Hand an observation to an entry-mode analysis before it runs: the facts (for `resolve_call`),
    the observed receiver classes, and the blocks observed settings rule out (in each executed
    function's constants table, under OBSERVED_KEY)."""
    if given is None:
        return None
    files = {os.path.abspath(m.path): name for name, m in project.modules.items()}
    facts = facts_from(given.data, files.get, given.source)
    analysis.facts.observed = facts
    for fid, classes in facts.receivers.items():
        fn = function_by_id(project, fid)
        known = {c for c in classes if function_by_id(project, c) is None and _class_exists(project, c)}
        if fn is not None and fn.class_name is not None and known:
            analysis.facts.receivers.setdefault(fid, set()).update(known)
    for fid in facts.lines:
        fn = function_by_id(project, fid)
        if fn is None:
            continue
        own = f"{fn.module}:{fn.class_name}" if fn.class_name else None
        params = fn.positional_params
        self_name = params[0] if fn.is_method and params else None
        table = analysis.facts.param_constants.setdefault(fid, {})
        skip = skip_table(facts, fid, fn.node, fn.module, own, self_name, table)
        if skip:
            table[OBSERVED_KEY] = skip
    return facts


def _class_exists(project, cid: str) -> bool:
    module, _, qualname = cid.partition(":")
    mod = project.modules.get(module)
    return mod is not None and qualname in mod.classes
