"""Is an attribute of `self` a record the step keeps for people, not for the next call (telemetry)?

A list or dict attribute that the step only grows (`self.journal.append(row)`, `self.logs[k].append(x)`,
`self.stats[k] = v`) carries the step's values onward only if some code reads it back as data. Every read of
the attribute's name in the project is asked where it goes: growing the record again, or a statement of its
function that reaches that function's outputs (its return, state, a call the scan cannot see). A record read
only to be saved, plotted, printed or counted decides nothing the export keeps, so what goes into it is not an
output of the step. A read at module level, or an attribute bound to anything but an empty container, stays
an output (unsure: kept).
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.knowledge.vocab import WRITING_METHODS

# The attributes assumed dead while `StateLivenessQuestions.dead_state` answers about them (a frozenset in the
# project memo): slices and answers computed meanwhile are not kept beyond it.
ASSUMED_DEAD = ("dead_state_assumed",)

_CONTAINER_CALLS = frozenset({"list", "dict", "deque", "collections.deque", "defaultdict", "collections.defaultdict",
                              "OrderedDict", "collections.OrderedDict"})


class TelemetryQuestions:
    """Mixin of `FunctionContext`: `telemetry(attr)`."""

    def telemetry(self, attr: str) -> bool:
        """Is `self.<attr>` an in-memory record (bound only to empty containers) that no code of the project
        reads back as data? Asked once per class and attribute; a question asked again while it is being
        answered (a record read by code that fills another) is answered no."""
        if self.cls is None:
            return False
        key = ("telemetry", self.cls.id, attr, self.project.own_module_count(),
               self.project.memo.get(ASSUMED_DEAD))   # answers under an assumption kept apart
        found = self.project.memo.get(key)
        if found is None:
            self.project.memo[key] = False
            found = self.project.memo[key] = self._record_attr(attr) and self._read_only_as_record(attr)
        return found

    def _record_attr(self, attr: str) -> bool:
        values = [value for klass in self.project.mro(self.cls) for _, value in klass.attr_values.get(attr, ())]
        return bool(values) and all(_empty_container(v) for v in values)

    def _read_only_as_record(self, attr: str) -> bool:
        reads = attribute_reads(self.project).get(attr, [])
        for fn, node in reads:
            if fn is None:
                return False   # read by a module's top-level code
            if grows(node, parent_map(fn)):
                continue
            if reader_context(self, fn).reaches_output(node):
                return False
        return True


def reader_context(asker, fn):
    """One context per reading function for the whole scan: its slice is computed once."""
    key = ("telemetry_reader", fn.id)
    found = asker.project.memo.get(key)
    if found is None:
        found = asker.project.memo[key] = asker.for_function(fn)
    return found


def _empty_container(value: ast.expr) -> bool:
    """`[]`, `{}`, `{"a": [], "b": []}`, `list()`, `deque(maxlen=n)`, `defaultdict(list)`."""
    if isinstance(value, (ast.List, ast.Set, ast.Tuple)):
        return not value.elts
    if isinstance(value, ast.Dict):
        return all(v is not None and _empty_container(v) for v in value.values)
    if isinstance(value, ast.Call):
        name = ast.unparse(value.func)
        if name not in _CONTAINER_CALLS:
            return False
        if name.endswith("defaultdict"):   # `defaultdict(list)`: the factory of its empty items
            return len(value.args) <= 1 and not any(isinstance(a, ast.Starred) for a in value.args)
        return not value.args   # `list()`, `deque(maxlen=n)`
    return False


def grows(node: ast.Attribute, parents: dict[int, ast.AST]) -> bool:
    """Is this read of `x.<attr>` only the receiver of a write into it (`x.attr.append(v)`,
    `x.attr[k].append(v)`, `x.attr[k] = v`, `x.attr[k] += v`)?"""
    child, parent = node, parents.get(id(node))
    while isinstance(parent, ast.Subscript) and parent.value is child:
        if isinstance(parent.ctx, ast.Store):
            return True
        child, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.Attribute) and parent.value is child and parent.attr in WRITING_METHODS:
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and call.func is parent
    return False


def attribute_reads(project) -> dict[str, list[tuple[object, ast.Attribute]]]:
    """Every read of an attribute in the scanned (not library) modules, by attribute name, with the innermost
    function it is in (None: module-level code); built once per project. The module of each module-level read
    is kept under `module_reads` (read node id -> module name)."""
    key = ("attribute_reads", project.own_module_count())
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = {}
        at_top = project.memo[("module_reads", key[1])] = {}
        for name, module in list(project.modules.items()):
            if project.is_library(name):
                continue
            owner: dict[int, object] = {}
            for fn in sorted(module.functions.values(), key=lambda f: f.qualname.count(".")):
                for node in fn.nodes:
                    if isinstance(node, ast.Attribute):
                        owner[id(node)] = fn   # deeper functions come later: the innermost one wins
            for node in module.nodes:
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    found.setdefault(node.attr, []).append((owner.get(id(node)), node))
                    if id(node) not in owner:
                        at_top[id(node)] = name
    return found


def self_record(expr: ast.expr, self_name: str | None) -> str | None:
    """`self.<attr>` under subscripts (`self.logs["pos"]`, `self.journal`): the attribute's name."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == self_name:
        return expr.attr
    return None
