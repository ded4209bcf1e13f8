"""What a rule can ask about the code of one reachable function: the facade of the analysis.

`FunctionContext` answers, for any expression inside the function: is it pipeline data
(derived from the entrypoint's inputs or from persistent tensor state), is it a shape of
pipeline data, is it a NumPy array, what type does it hold, what dotted name does a call
resolve to, which state does a statement write, is a call I/O. Answers come from the
analysis-wide `Facts` plus a per-function `Env`. Each kind of question lives in its own
module (`taint`, `types`, `calls`, `state`, `io`); this class puts them behind one object,
the only thing of the analysis the rules import.
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from leapp_codemod.analysis.infer.bail_out import BailOutQuestions
from leapp_codemod.analysis.infer.calls import CallQuestions
from leapp_codemod.analysis.infer.io import IoQuestions
from leapp_codemod.analysis.infer.lattice import NESTED, Env, Facts
from leapp_codemod.analysis.infer.library_callables import Built, library_callables
from leapp_codemod.analysis.infer.messages import MessageQuestions
from leapp_codemod.analysis.infer.operand_kinds import ARRAY_BUILDERS, OperandKindQuestions
from leapp_codemod.analysis.infer.outside_inputs import OutsideInputQuestions
from leapp_codemod.analysis.infer.purity import PurityQuestions
from leapp_codemod.analysis.infer.unused_positions import ROOTS_KEY
from leapp_codemod.analysis.infer.reporters import ReporterQuestions
from leapp_codemod.analysis.infer.relevance import RelevanceQuestions
from leapp_codemod.analysis.infer.sink import SinkQuestions
from leapp_codemod.analysis.infer.state import StateQuestions
from leapp_codemod.analysis.infer.state_liveness import StateLivenessQuestions
from leapp_codemod.analysis.infer.taint import TaintQuestions
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.infer.telemetry import TelemetryQuestions
from leapp_codemod.analysis.infer.loaded import is_range
from leapp_codemod.analysis.infer.types import TypeQuestions
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.leapp_support import LeappSupport
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.settings import CONSTRUCTION
from leapp_codemod.analysis.model.train_mode import eval_marks, train_sensitive
from leapp_codemod.analysis.model.world_steps import advances_world, receiver_words  # noqa: F401 (read by the rules)
from leapp_codemod.analysis.model.walk import (
    UNKNOWN,
    constant_flag_block,
    is_self_attr,
    iter_nodes,
    name_stores,
    self_name_of,
    training_only_block,
)
from leapp_codemod.knowledge.vocab import CACHING_DECORATORS

# The names Python looks up as builtins when nothing shadows them (`float`, `print`, `len`, ...).
BUILTIN_NAMES = frozenset(dir(builtins))

__all__ = ["ARRAY_BUILDERS", "CONSTRUCTION", "Env", "Facts", "FunctionContext", "eval_marks", "is_self_attr",
           "iter_nodes", "name_stores", "train_sensitive"]


@dataclass
class FunctionContext(TaintQuestions, TypeQuestions, CallQuestions, StateQuestions, IoQuestions, MessageQuestions,
                      RelevanceQuestions, SinkQuestions, TelemetryQuestions, PurityQuestions, OperandKindQuestions,
                      BailOutQuestions, StateLivenessQuestions, OutsideInputQuestions, ReporterQuestions):
    fn: FunctionInfo
    module: ModuleIndex
    project: Project
    facts: Facts
    support: LeappSupport
    env: Env = field(default_factory=Env)
    # line -> (start, end) positions of the statements of this function that do nothing but I/O,
    # computed once when first asked (see `only_logged`)
    io_statements: dict[int, list[tuple[tuple[int, int], tuple[int, int]]]] | None = None
    # `is_shape` answers by node id (with the node), kept only while the local facts are final (the
    # rules' pass sets it)
    shape_answers: dict[int, tuple] | None = None
    # (output statements, analysed statements) of this function's slice (see `reaches_output`), False when
    # too deep to slice, computed once when first asked
    relevance: tuple[set[int], set[int], set[str]] | bool | None = None

    # ------------------------------------------------------------------ basics
    def _asker(self):
        """Who asks, for kept answers and cycle guards: a context with local facts is itself; one with
        none yet (`for_function` makes a fresh one per call) answers like any other for its function."""
        env = self.env
        return id(self) if env.data or env.shape or env.numpy or env.types else self.fn.id

    @property
    def self_name(self) -> str | None:
        return self_name_of(self.fn)

    @property
    def cls(self) -> ClassInfo | None:
        return self.module.classes.get(self.fn.class_name) if self.fn.class_name else None

    def for_function(self, fn: FunctionInfo) -> FunctionContext:
        """A context for another function sharing the analysis facts (its local facts left empty)."""
        if fn is self.fn:
            return self
        return FunctionContext(fn, self.project.modules[fn.module], self.project, self.facts, self.support)

    def qualify(self, expr: ast.expr) -> str | None:
        """The dotted external name of a Name/Attribute chain here. Kept per node and module while the indexed
        modules stay the same (the node is held with its answer, so its id is never another node's)."""
        project = self.project
        kept = project.memo.get(("qualified",))
        if kept is None or kept[0] != len(project.modules):
            kept = project.memo[("qualified",)] = (len(project.modules), {})
        key = (id(expr), self.module.name)
        found = kept[1].get(key)
        if found is not None and found[0] is expr:
            return found[1]
        name = project.qualify(expr, self.module)
        name = project.external_name(name) if name else None
        kept[1][key] = (expr, name)
        return name

    def library_callables(self, func: ast.expr) -> list[Built]:
        """The library callables a call of `func` runs, read from where the called object was built."""
        return library_callables(func, self)

    def call_name(self, call: ast.Call) -> str | None:
        """Dotted name of the called function, e.g. 'numpy.linalg.norm' or 'scipy.special.expit'."""
        name = self.qualify(call.func)
        if name is None or self._is_local(call.func):
            return None
        return name

    def _is_local(self, expr: ast.expr) -> bool:
        root = expr
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and (root.id in self.env.types or root.id in self.env.data
                                               or root.id in self.fn.params or root.id in self.env.numpy)

    def builtin(self, call: ast.Call) -> str | None:
        """The builtin a call names (`float`, `print`, ...) unless the name is shadowed."""
        if isinstance(call.func, ast.Name):
            name = call.func.id
            if (name in BUILTIN_NAMES and name not in self.module.imports and name not in self.module.functions
                    and name not in self.module.classes and name not in self.module.globals
                    and name not in self.fn.params and name not in self.env.types):
                return name
        return None

    def is_data_global(self, name: str) -> bool:
        """A tensor-valued module global, not shadowed by a parameter or a local assignment."""
        return (name in self.facts.data_globals.get(self.module.name, ()) and name not in self.fn.params
                and name not in self.env.types and name not in self.env.numpy and name not in self.env.shape)

    def _class_fact(self, table: dict[str, set[str]], attr: str) -> bool:
        return self.cls is not None and any(attr in table.get(c.id, ()) for c in self.project.mro(self.cls))

    def holds_tensor(self, attr: str) -> bool:
        """Can `self.<attr>` be declared as LEAPP state tensors? Not a Python counter, a list/deque the step
        fills, or an attribute built as a dict/list literal (those stay findings for the user to restructure)."""
        if self._class_fact(self.facts.counter_attrs, attr) or self._class_fact(self.facts.container_attrs, attr):
            return False
        literals = (ast.Dict, ast.List, ast.Tuple, ast.DictComp, ast.ListComp)
        return not any(isinstance(value, literals) for klass in self.project.mro(self.cls)
                       for _, value in klass.attr_values.get(attr, ()))

    def holds_counter(self, attr: str) -> bool:
        """Is `self.<attr>` a Python number the step carries from call to call (`self.t += self.dt`)? It is
        declarable: `run` carries it in the kind its readers take and keeps it only when a call reads it."""
        return bool(self._class_fact(self.facts.counter_attrs, attr))

    def in_error_handler(self, node: ast.AST) -> bool:
        """Is `node` inside an `except` block of this function? The traced call is one that raised nothing."""
        parents = parent_map(self.fn)
        parent = parents.get(id(node))
        while parent is not None:
            if isinstance(parent, ast.ExceptHandler):
                return True
            parent = parents.get(id(parent))
        return False

    def decided_by_settings(self, node: ast.If | ast.IfExp | ast.While) -> bool:
        """Do the constants this function runs with (flags, settings, config values) decide the test?
        Then only one branch is the pipeline and the test is no branch on data."""
        if isinstance(node, ast.While):
            return False
        return self.dead_block(node) is not None or self._flags_callers_set(node.test)

    def is_entry(self) -> bool:
        """Is this function the entry the scan starts from (what its inputs are is the export's inputs)?"""
        return self.fn.id in self.project.memo.get(ROOTS_KEY, ())

    def dead_block(self, node: ast.If) -> str | None:
        """'body'/'orelse' when the constants this function runs with (a flag every caller passes, a config
        value, `self.training` after `eval()`) rule that block of the `if` out: it never runs."""
        return training_only_block(node, self.self_name) \
            or constant_flag_block(node, self.fn, self.facts.param_constants.get(self.fn.id))

    def _flags_callers_set(self, test: ast.expr) -> bool:
        """`if noise:` / `if not noise and mode == 1:` on parameters every call passes as constants (of several
        values: `f(a, True)` here, `f(a, False)` there): the callers choose the branch, no data does."""
        constants = self.facts.param_constants.get(self.fn.id)
        if not constants:
            return False
        names = [n for n in ast.walk(test) if isinstance(n, ast.Name)]
        if not names or not all(n.id in constants for n in names):
            return False
        plain = all(isinstance(n, (ast.Name, ast.Constant, ast.BoolOp, ast.UnaryOp, ast.Compare, ast.boolop,
                                   ast.unaryop, ast.cmpop, ast.expr_context)) for n in ast.walk(test))
        return plain and bool(names) and all(
            n.id in self.fn.params and constants.get(n.id) and UNKNOWN not in constants[n.id]
            and not name_stores(self.fn).get(n.id) for n in names)

    def in_range(self) -> bool:
        """Is this function an inline range cut from a longer one (`run.<lines 20-31>`)?"""
        return is_range(self.fn)

    def runs_once(self) -> bool:
        """Is this function cached (`@functools.lru_cache()`, `@cached_property`) and called with no pipeline data?
        Its body runs on the first call only: what it reads (a parameter server, a file) is a constant after."""
        cached = self.fn.walks.get("cached")
        if cached is None:
            cached = self.fn.walks["cached"] = any(
                self.qualify(d.func if isinstance(d, ast.Call) else d) in CACHING_DECORATORS
                for d in getattr(self.fn.node, "decorator_list", ()))
        params = self.fn.positional_params[1:] if self.fn.is_method else self.fn.positional_params
        return cached and not any(self.is_data(ast.Name(id=p, ctx=ast.Load())) for p in params)

    def is_loop_carried(self, name: str) -> bool:
        return name in self.fn.carried

    def is_carried_state(self, name: str) -> bool:
        """Does the next iteration read what this one left in the loop-carried `name`?"""
        return name in self.fn.carried and self._carried(ast.Name(id=name, ctx=ast.Load()))

    def is_state_container(self, expr: ast.expr) -> bool:
        """`self.queue` when the step fills it with pipeline data (a history list, a deque of frames), an
        entry of a dict of such queues (`self.frames[cam]`), or a container the driver loop carries into the
        next iteration."""
        if isinstance(expr, ast.Name):   # filled in place, or rebound to a Python sequence (not `obs = nxt`)
            return expr.id in self.fn.carried and all(
                isinstance(v, (ast.List, ast.Tuple, ast.ListComp)) for v in self.fn.assigned(expr.id))
        if isinstance(expr, ast.Subscript) and is_self_attr(expr.value, self.self_name):
            return self._class_fact(self.facts.container_attrs, expr.value.attr + NESTED)  # `self.frames[cam]`
        return is_self_attr(expr, self.self_name) and self._class_fact(self.facts.container_attrs, expr.attr)

    def self_attr_is_data(self, attr: str) -> bool:
        cls = self.cls
        if cls is None:
            return False
        return any(attr in self.facts.data_attrs.get(c.id, ()) for c in self.project.mro(cls))
