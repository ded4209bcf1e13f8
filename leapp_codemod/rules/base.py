"""What every rule declares. One rule per module; the registry lives in `rules/__init__.py`."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from leapp_codemod.analysis.infer.context import FunctionContext


@dataclass(frozen=True)
class Hit:
    """What a rule reports about one node; the engine turns it into a `Finding`."""

    node: ast.AST
    message: str
    fix: str
    # other places the finding names (path, line, 1-based column, note): where a value read here was written
    related: tuple[tuple[str, int, int, str], ...] = ()


@dataclass(frozen=True)
class Rule:
    code: str
    name: str                 # kebab-case rule name, e.g. "item-call"
    category: str             # one of model.Category values
    severity: str             # "error" | "warning"
    summary: str              # one line, for `rules`
    what: str                 # what it does
    why: str                  # what it does to a LEAPP trace (from the LEAPP guide)
    fix: str                  # how to fix it
    example: str              # a flagged snippet
    fixed_example: str        # the same snippet, fixed
    node_types: tuple[type[ast.AST], ...]
    check: Callable[[ast.AST, "FunctionContext"], Iterable[Hit]]
    # What the engine needs from the rule besides its hits. `state_writes(node, ctx)`: the persistent state
    # (attribute, kind) a flagged node writes; the scan records it as state `generate` declares around the
    # pipeline call (rules that report state writes set it).
    state_writes: Callable[[ast.AST, "FunctionContext"], Iterable[tuple[str, str]]] | None = None
    # Found inside an installed library the pipeline calls, is a finding reported at the application's call site
    # (when its category is; see knowledge/categories.py)?
    in_libraries: bool = True
    # Does the rule flag a value the pipeline reads (not an I/O call)? In a helper the step calls only for a report
    # (see analysis/flow/report_reach.py) such a read feeds nothing the export keeps, so it is not checked there.
    reads_value: bool = False
    # Self-tests run by the test-suite: each snippet is a tiny module whose function
    # `step` is the pipeline entrypoint. `invalid` snippets mark flagged lines with `# error`.
    valid: tuple[str, ...] = field(default=())
    invalid: tuple[str, ...] = field(default=())


def written_state(node: ast.AST, ctx: "FunctionContext") -> list[tuple[str, str]]:
    """`state_writes` of the rules that flag writes of persistent state: what the analysis says the node writes."""
    return ctx.state_writes(node)
