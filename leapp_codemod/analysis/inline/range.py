"""An inline entry `FILE:START-END`: a range of whole statements of one block (a driver loop's body,
a function body or module-level code) that is the pipeline.

Only the standard library's `ast` is used, so that `scan` can share it. Names are classified from
where the range's code reads and writes them:

* inputs: read by the range before it assigns them, with a value that changes per iteration (or
  per call): bound in the loop around the range, or in the enclosing function when no loop is;
* state: read by the range before it assigns them and assigned by the range itself, inside a loop
  where nothing before the range rebinds them: the value carried from one iteration to the next;
* constants: locals of the enclosing function bound before the loop and never rebound in it
  (a policy object, gains); module globals are looked up as globals and need no name here;
* outputs: assigned by the range and read after it (later in the loop body, on the next
  iteration, or after the loop).
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, replace

from leapp_codemod.analysis.inline.mutated import only_mutated
from leapp_codemod.analysis.inline.steady import steady_for
from leapp_codemod.analysis.inline.scope_names import (declared_global, fixed_globals, imported_only, params,
                                                        scope_statements, self_param)
from leapp_codemod.analysis.inline.uses import first_reads, overwritten_before_read, uses
from leapp_codemod.analysis.inline.world_step import end_before_world_step, step_note

INLINE_ENTRY = re.compile(r"^(?P<file>.+\.pyw?):(?P<start>\d+)-(?P<end>\d+)$")

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class RangeError(Exception):
    """The range does not name whole statements of one block (one line, names the file)."""


@dataclass(frozen=True)
class InlineEntry:
    file: str
    start: int
    end: int

    @property
    def text(self) -> str:
        return f"{self.file}:{self.start}-{self.end}"


def locate_inline_entry(entry: str | None, roots) -> str | None:
    """`FILE:START-END` with FILE as the working directory sees it. A FILE that is not there but is
    under exactly one of the scanned folders (`scan repo --entry deploy/run.py:10-20`) is named by its
    path from here; anything else is returned unchanged (and refused later with one line)."""
    inline = parse_inline_entry(entry)
    if inline is None or os.path.isfile(inline.file):
        return entry
    found = {os.path.normpath(os.path.join(root, inline.file)) for root in roots
             if os.path.isdir(root) and os.path.isfile(os.path.join(root, inline.file))}
    if len(found) != 1:
        return entry
    return f"{os.path.relpath(found.pop())}:{inline.start}-{inline.end}"


def parse_inline_entry(entry: str | None) -> InlineEntry | None:
    """`FILE:START-END` (1-based inclusive lines) or None when `entry` is MODULE:QUALNAME."""
    m = INLINE_ENTRY.match(entry or "")
    return InlineEntry(m["file"], int(m["start"]), int(m["end"])) if m else None


@dataclass(frozen=True)
class InlineRange:
    path: str
    start: int
    end: int
    statements: tuple[ast.stmt, ...]
    block: list            # the statement list holding the range (the same list object as in the tree)
    first: int             # index of the first statement in `block`
    scope: ast.AST         # enclosing FunctionDef/AsyncFunctionDef, or the Module
    scope_qualname: str    # "" at module level, else e.g. "main" or "Runner.loop"
    class_name: str | None  # the class when the enclosing scope is a method
    loop: ast.AST | None   # innermost loop of the same scope whose body holds the range
    inputs: tuple[str, ...]
    state: tuple[str, ...]
    constants: tuple[str, ...]
    outputs: tuple[str, ...]
    note: str = ""         # what was adjusted (blank or comment lines trimmed from the ends)

    @property
    def label(self) -> str:
        return f"<lines {self.start}-{self.end}>"


# ------------------------------------------------------------------------------------ locating
def _stmt_start(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno] + [d.lineno for d in decorators])


def _blocks(node: ast.AST):
    """Every statement list directly under `node`."""
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        value = getattr(node, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value
        elif isinstance(value, list):
            for child in value:
                if isinstance(child, (ast.excepthandler, getattr(ast, "match_case", ()))):
                    yield child.body


@dataclass
class _Found:
    block: list
    first: int
    last: int
    chain: list        # enclosing nodes, outermost first


def _find(tree: ast.Module, start: int, end: int) -> _Found | None:
    stack: list[tuple[ast.AST, list]] = [(tree, [])]
    while stack:
        node, chain = stack.pop()
        for block in _blocks(node):
            starts = [_stmt_start(s) for s in block]
            if start in starts:
                first = starts.index(start)
                for last in range(first, len(block)):
                    if block[last].end_lineno == end:
                        return _Found(block, first, last, chain + [node])
            for stmt in block:
                if _stmt_start(stmt) <= start and end <= stmt.end_lineno:
                    stack.append((stmt, chain + [node]))
                    if isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                        for handler in stmt.handlers:
                            if handler.lineno <= start and end <= handler.end_lineno:
                                stack.append((handler, chain + [node, stmt]))
                    if isinstance(stmt, getattr(ast, "Match", ())):
                        for case in stmt.cases:
                            stack.append((case, chain + [node, stmt]))
    return None


def _nearest_ranges(tree: ast.Module, start: int, end: int) -> list[tuple[int, int, str]]:
    """Valid ranges nearest to START-END when START begins a statement and END ends one of another block:
    the statements of START's block up to END, the range grown to the end of the statement of that block
    holding END, and the range grown back to the compound statement holding START. (start, end, what it
    covers)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for block in _blocks(node):
            starts = [_stmt_start(s) for s in block]
            if start in starts:
                first = starts.index(start)
                shorter = [s for s in block[first:] if s.end_lineno <= end]
                holder = next((s for s in block[first:] if _stmt_start(s) <= end <= s.end_lineno), None)
                out = _inside_header(block[first], end)
                if shorter:
                    out.append((start, shorter[-1].end_lineno, f"the statements of that block up to line {end}"))
                if holder is not None and holder.end_lineno > end:
                    whole = f"{_stmt_start(holder)}-{holder.end_lineno}"
                    out.append((start, holder.end_lineno, f"through the whole statement at lines {whole} "
                                                         f"holding line {end}"))
                return out + _grown_start(tree, start, end)
            stack.extend(s for s in block if _stmt_start(s) <= start <= s.end_lineno)
            if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                stack.extend(h for h in node.handlers if h.lineno <= start <= h.end_lineno)
    return []


def _inside_header(stmt: ast.stmt, end: int) -> list[tuple[int, int, str]]:
    """START is the header of a compound statement (`with torch.no_grad():`, `if ...:`) and END ends a statement
    of its first block: that block's statements up to END, what a range written from the header line means."""
    body = next(iter(_blocks(stmt)), None)
    if not body or stmt.end_lineno <= end or not any(s.end_lineno == end for s in body):
        return []
    keyword = type(stmt).__name__.lower().replace("asyncwith", "async with").replace("asyncfor", "async for")
    return [(_stmt_start(body[0]), end, f"the statements inside the `{keyword}` at line {_stmt_start(stmt)} "
                                       f"up to line {end}")]


def _grown_start(tree: ast.Module, start: int, end: int) -> list[tuple[int, int, str]]:
    """When START lies inside a compound statement (a `with`, `if`, `try`, inner loop) and END ends a later
    statement of the block holding that compound statement: the range grown back to the first line of the
    innermost such statement. (start, end, what it covers)."""
    holders = [stmt for node in ast.walk(tree) for block in _blocks(node) for i, stmt in enumerate(block)
               if _stmt_start(stmt) < start <= stmt.end_lineno < end
               and any(later.end_lineno == end for later in block[i + 1:])]
    if not holders:
        return []
    first = max(_stmt_start(stmt) for stmt in holders)
    return [(first, end, f"from the statement at line {first} holding line {start}")]


def _why_not(tree: ast.Module, start: int, end: int, n_lines: int, path: str = "FILE") -> str:
    if start < 1 or end < start:
        return f"lines {start}-{end} are not a range (START must be ≥ 1 and ≤ END)"
    if end > n_lines:
        return f"line {end} is outside the file ({n_lines} lines)"
    inner = None
    for node in ast.walk(tree):
        if (isinstance(node, ast.stmt) and _stmt_start(node) < start <= node.end_lineno
                and (inner is None or _stmt_start(node) > _stmt_start(inner))):
            inner = node
    if inner is not None and end <= inner.end_lineno and not any(
            isinstance(s, ast.stmt) and _stmt_start(s) == start for s in ast.walk(inner)):
        return (f"line {start} is inside the statement at lines {_stmt_start(inner)}-{inner.end_lineno}; "
                "START must be the first line of a statement")
    if any(isinstance(s, ast.stmt) and s.end_lineno == end for s in ast.walk(tree)):
        nearest = _nearest_ranges(tree, start, end)
        hint = ("; nearest valid: " + " or ".join(f"{path}:{a}-{b} ({what})" for a, b, what in nearest)
                if nearest else "")
        return (f"lines {start}-{end} cross a block boundary; the range must be consecutive statements of one "
                f"block (one loop body, function body or module level){hint}")
    return f"line {end} does not end a statement; END must be the last line of a statement"


def _in_range(line: int, start: int, end: int) -> bool:
    return start <= line <= end


_LEAVES = (ast.Continue, ast.Break, ast.Return)


def _leaving_branches(loop: ast.AST, start: int) -> tuple[list[tuple[int, int]], set[str]]:
    """Line spans of the branches before the range, inside the loop, that end by leaving the iteration
    (`if reset_requested: buf[:] = 0; ...; continue`): a write there (a reset) does not reach the range, so it
    neither makes a name a new input of every iteration nor stops the range from carrying it. Also the names
    such a branch sets to a Python number (`step_count = 0`): counters, which stay Python numbers of the loop."""
    spans, counters = [], set()
    for node in ast.walk(loop):
        if isinstance(node, ast.If) and node.lineno < start and (node.end_lineno or 0) < start:
            for body in (node.body, node.orelse):
                if body and isinstance(body[-1], _LEAVES):
                    spans.append((body[0].lineno, body[-1].end_lineno or body[-1].lineno))
                    counters |= {t.id for stmt in body if isinstance(stmt, ast.Assign) and _is_number(stmt.value)
                                 for t in stmt.targets if isinstance(t, ast.Name)}
    return spans, counters


def _is_number(value: ast.expr) -> bool:
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    return isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool)


def classify(found: _Found, start: int, end: int, scope: ast.AST, loop: ast.AST | None, enclosing=()):
    """(inputs, state, constants, outputs) of the range, each in first-use order. `enclosing`: the functions
    around a closure the range is in, whose locals it reads like its own scope's."""
    statements = found.block[found.first:found.last + 1]
    events = uses(statements)
    written_in = {n for n, k, _ in events if k in "wm"}
    loop_events = uses([loop]) if loop is not None else []
    read_first: list[str] = []
    steady = steady_for(statements, loop_events) if loop is not None else None
    first_reads(statements, set(), read_first, steady)
    refilled = overwritten_before_read(statements, read_first) if loop is not None else set()
    fresh = _fresh_readings(statements)
    module_level = isinstance(scope, ast.Module)
    scope_events = uses(scope_statements(scope))
    scope_bound = ({n for n, k, _ in scope_events if k == "w"} | params(scope)) - imported_only(scope)
    for outer in enclosing:   # a closure reads the locals of the functions around it
        scope_bound |= ({n.id for n in ast.walk(outer) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                        | params(outer)) - imported_only(outer)
    declared = declared_global(scope)
    leaving, counters = _leaving_branches(loop, start) if loop is not None else ([], set())
    loop_writes = [(n, line) for n, k, line in loop_events if k in "wm" and (
        n in counters or not any(first <= line <= last for first, last in leaving))]
    bound_in_loop = {n for n, line in loop_writes if not _in_range(line, start, end)}
    before_in_loop = {n for n, line in loop_writes if line < start}
    fixed = fixed_globals(scope) if module_level else set()
    assigned = {n for n, k, _ in events if k == "w"}
    unread = only_mutated(statements) - assigned      # added to, never read: not carried state
    inputs, state, constants = [], [], []
    for name in read_first:
        if not module_level and name in declared:
            if name in written_in and name not in unread:
                state.append(name)   # a module global the range reads, then rebinds for the next iteration
            continue
        local = name in scope_bound and name not in declared
        if module_level:
            local = name in scope_bound
            if not local:
                continue
        elif not local:
            continue
        if module_level and loop is None and name in fixed:
            continue              # a module constant, import, function or class: looked up as a global
        if loop is not None:
            if name in written_in and name not in before_in_loop and name not in fresh and name not in unread \
                    and name not in refilled:
                state.append(name)
            elif name in fresh:
                inputs.append(name)     # a new reading every iteration (`obs, *_ = env.step(action)`)
            elif name in bound_in_loop:
                inputs.append(name)
            elif module_level:
                continue          # a module global fixed during the loop: looked up as a global
            else:
                constants.append(name)
        else:
            inputs.append(name)
    after = [(n, line) for n, k, line in scope_events if k == "r" and line > end]
    if loop is not None:
        after += [(n, line) for n, k, line in loop_events if k == "r" and not _in_range(line, start, end)]
    read_after = {n for n, _ in after}
    outputs = [n for n in dict.fromkeys(n for n, k, _ in events if k == "w")
               if n in read_after and n not in state]
    return tuple(inputs), tuple(state), tuple(constants), tuple(outputs)


# Calls that hand the loop a new reading every iteration: what they assign is an input of the next
# iteration, not a value the range carries (the simulator or the robot produced it).
READING_CALLS = frozenset({"step", "read", "get_obs", "get_observation", "get_observations", "observe", "receive",
                           "recv", "poll", "sense", "get_state", "read_sensors", "get_frame", "capture"})


def _read_last(statements: list[ast.stmt]) -> set[str]:
    """Names whose last write in the range is a top-level reading (`obs, r, done, _ = env.step(a)` after the
    range reshaped the previous `obs`): each iteration starts from a new reading, whatever came before it."""
    last: dict[str, ast.stmt] = {}
    for stmt in statements:
        for name, kind, _ in uses([stmt]):
            if kind in "wm":
                last[name] = stmt
    out = set()
    for name, stmt in last.items():
        call = stmt.value if isinstance(stmt, ast.Assign) else None
        called = call.func.attr if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) else None
        if called in READING_CALLS and any(isinstance(t, ast.Name) and t.id == name
                                           for target in stmt.targets for t in ast.walk(target)):
            out.add(name)
    return out


def _recomputed(statements: list[ast.stmt]) -> set[str]:
    """Names the range writes once, in a top-level `name = value` whose value reads nothing the range writes
    (`current = np.deg2rad(read_joints(robot))` at the end of the loop body, `robot` made before the loop):
    each iteration's value owes nothing to the previous iteration's computation, so it is no carried state."""
    writes: dict[str, list[ast.AST]] = {}
    for stmt in statements:
        for node in ast.walk(stmt):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension)) else \
                [item.optional_vars for item in node.items if item.optional_vars is not None] if isinstance(
                    node, (ast.With, ast.AsyncWith)) else []
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        writes.setdefault(name.id, []).append(node)
    events = uses(statements)
    written = {n for n, k, _ in events if k in "wm"}
    mutated = {n for n, k, _ in events if k == "m"}
    out = set()
    for stmt in statements:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and writes.get(stmt.targets[0].id) == [stmt] and stmt.targets[0].id not in mutated \
                and not any(isinstance(n, ast.Name) and n.id in written for n in ast.walk(stmt.value)):
            out.add(stmt.targets[0].id)
    return out


def _fresh_readings(statements: list[ast.stmt]) -> set[str]:
    """Names the range assigns only from a reading call, unconditionally (top-level statements), or only copies
    of such names (`nxt, r, done = env.step(a)` ... `obs = nxt`)."""
    fresh: set[str] = set()
    other: set[str] = set()
    copies: dict[str, set[str]] = {}
    for stmt in statements:
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Assign):
                continue
            names = {t.id for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
            call = node.value
            name = call.func.attr if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) else \
                getattr(getattr(call, "func", None), "id", None)
            if name in READING_CALLS and stmt is node:
                fresh |= names
            elif isinstance(call, ast.Name) and stmt is node and len(names) == 1:
                copies.setdefault(next(iter(names)), set()).add(call.id)
            else:
                other |= names
    fresh -= other
    fresh |= _read_last(statements) | _recomputed(statements)
    grew = True
    while grew:
        grew = False
        for target, sources in copies.items():
            if target not in fresh and target not in other and sources <= fresh:
                fresh.add(target)
                grew = True
    return fresh


def locate(tree: ast.Module, path: str, start: int, end: int, n_lines: int) -> InlineRange:
    found = _find(tree, start, end)
    if found is None:
        raise RangeError(f"{path}:{start}-{end}: {_why_not(tree, start, end, n_lines, path)}")
    scope: ast.AST = tree
    scope_names: list[str] = []
    class_name = None
    loop = None
    for node in found.chain:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            class_name = scope_names[-1] if scope_names and isinstance(scope, ast.ClassDef) else None
            scope, loop = node, None
            scope_names.append(node.name)
        elif isinstance(node, ast.ClassDef):
            scope, loop = node, None
            scope_names.append(node.name)
        elif isinstance(node, _LOOPS) and found.block is not node.orelse:
            loop = node
    if isinstance(scope, ast.ClassDef):
        raise RangeError(f"{path}:{start}-{end}: the range is in the body of class {scope.name}; name a range "
                         "inside a function, a loop or module-level code")
    functions = [n for n in found.chain if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inputs, state, constants, outputs = classify(found, start, end, scope, loop, functions[:-1])
    self_name = self_param(scope) if class_name else None
    if self_name in (*inputs, *state, *outputs):   # the instance is context, never an exported input or state
        inputs, state, outputs = (tuple(n for n in names if n != self_name) for names in (inputs, state, outputs))
        constants = (self_name, *(n for n in constants if n != self_name))
    return InlineRange(path=path, start=start, end=end,
                       statements=tuple(found.block[found.first:found.last + 1]), block=found.block,
                       first=found.first, scope=scope, scope_qualname=".".join(scope_names),
                       class_name=class_name, loop=loop, inputs=inputs, state=state, constants=constants,
                       outputs=outputs)


RANGE_TAKEN = "cut a compound statement: taken as"   # the note of a range taken to whole statements


def covering_statements(tree: ast.Module, start: int, end: int) -> tuple[int, int] | None:
    """Lines START-END cut a compound statement (`with torch.no_grad():` opened above START, an `if` that goes on
    after END): the smallest run of whole consecutive statements of one block that holds them, never across a
    `def` or `class`; from a compound statement's header to a line inside its first block, the statements of that
    block. None when the range is valid as it is or no block holds both ends."""
    if start < 1 or end < start or _find(tree, start, end) is not None:
        return None
    statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
    if not (any(_stmt_start(n) == start for n in statements) and any(n.end_lineno == end for n in statements)):
        return None    # an end inside a statement's own lines (a string, an argument list) is no block to take
    header = next((stmt for node in ast.walk(tree) for block in _blocks(node) for stmt in block
                   if _stmt_start(stmt) == start), None)
    body = _inside_header(header, end) if header is not None else []
    if body:    # from a `with`/`if` header to a line inside it: its statements are what is meant
        return body[0][0], body[0][1]
    best = None
    for node in ast.walk(tree):
        for block in _blocks(node):
            if not block or _stmt_start(block[0]) > start or block[-1].end_lineno < end:
                continue
            i = next(k for k, stmt in enumerate(block) if stmt.end_lineno >= start)
            j = max(k for k, stmt in enumerate(block) if _stmt_start(stmt) <= end)
            if j < i or any(isinstance(stmt, _SCOPES) for stmt in block[i:j + 1]):
                continue
            grown = (_stmt_start(block[i]), block[j].end_lineno)
            if _find(tree, *grown) is not None and (best is None or grown[1] - grown[0] < best[1] - best[0]):
                best = grown
    return best


def settle(tree: ast.Module, lines: list[str], start: int, end: int) -> tuple[int, int, str]:
    """The range an entry names, as the statements it is taken to: blank and comment lines at its ends trimmed, a
    cut compound statement taken whole; (first, last, the note saying so, or "")."""
    first, last = trim(lines, start, end)
    notes = []
    if (first, last) != (start, end):
        notes.append(f"lines {start}-{end} trimmed to {first}-{last} (blank or comment lines at the ends)")
    grown = covering_statements(tree, first, last)
    if grown is not None:
        notes.append(f"lines {first}-{last} {RANGE_TAKEN} {grown[0]}-{grown[1]}, the whole "
                     "statements they touch")
        first, last = grown
    return first, last, "; ".join(notes)


def read_range(path: str, text: str, start: int, end: int) -> tuple[ast.Module, InlineRange]:
    """Parse `text` (the file at `path`) and locate the range in it; blank and comment lines at its ends
    are trimmed (said in the range's `note`)."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise RangeError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    lines = text.splitlines()
    first, last, note = settle(tree, lines, start, end)
    rng = locate(tree, path, first, last, len(lines))
    if note:
        rng = replace(rng, note=note)
    return tree, before_world_step(tree, path, rng, len(lines))


def before_world_step(tree: ast.Module, path: str, rng: InlineRange, n_lines: int) -> InlineRange:
    """The range up to the statement before the world's step it ends in (said in its note), else `rng`."""
    found = end_before_world_step(rng.statements)
    if found is None:
        return rng
    cut, step = found
    note = step_note(rng.start, rng.end, cut, step)
    return replace(locate(tree, path, rng.start, cut, n_lines), note="; ".join(filter(None, (rng.note, note))))


def trim(lines: list[str], start: int, end: int) -> tuple[int, int]:
    """The range without the blank and comment-only lines at its ends (unchanged when nothing else is left)."""
    def empty(number: int) -> bool:
        if not 1 <= number <= len(lines):
            return False
        text = lines[number - 1].strip()
        return not text or text.startswith("#")
    first, last = start, end
    while first < last and empty(first):
        first += 1
    while last > first and empty(last):
        last -= 1
    return (first, last) if not empty(first) else (start, end)


def as_function(rng: InlineRange) -> ast.FunctionDef:
    """The range as a function of its inputs, state and constants (the instance first in a method),
    returning its outputs; the statements are the original nodes, so every line number is the file's."""
    first, last = rng.statements[0], rng.statements[-1]
    self_name = self_param(rng.scope) if rng.class_name else None
    names = ([self_name] if self_name in rng.constants else []) + [
        n for n in (*rng.inputs, *rng.state, *rng.constants) if n != self_name]
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=n, lineno=first.lineno, col_offset=first.col_offset)
                                               for n in names],
                         kwonlyargs=[], kw_defaults=[], defaults=[])
    body = list(rng.statements)
    if rng.outputs:
        ret = ast.Return(value=ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n in rng.outputs],
                                         ctx=ast.Load()))
        body.append(ast.fix_missing_locations(ast.copy_location(ret, last)))
    fn = function_def(rng.label, args, body)
    fn.lineno, fn.col_offset = first.lineno, first.col_offset
    fn.end_lineno, fn.end_col_offset = last.end_lineno, last.end_col_offset
    return fn


def function_def(name: str, args: ast.arguments, body: list[ast.stmt]) -> ast.FunctionDef:
    """A FunctionDef node on any supported Python (3.12 added `type_params`)."""
    extra = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
    return ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None, **extra)
