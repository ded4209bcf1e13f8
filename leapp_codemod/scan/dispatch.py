"""Rule dispatch: every rule on every live node of the analyzed functions, each hit made a `Finding`;
the state writes and library calls the flagged nodes stand for, for `generate`."""
from __future__ import annotations

import ast
from collections import defaultdict

from leapp_codemod.analysis.flow.dataflow import Analysis
from leapp_codemod.analysis.flow.io_boundary import io_boundaries
from leapp_codemod.analysis.infer.world_bookkeeping import bookkeeping_report
from leapp_codemod.analysis.flow.report_reach import reached_for_reports, world_bookkeeping
from leapp_codemod.analysis.infer.context import iter_nodes
from leapp_codemod.analysis.infer.outside_inputs import REACHED_KEY
from leapp_codemod.analysis.infer.value_reads import STEP_READS_KEY, step_value_reads
from leapp_codemod.analysis.infer.unused_positions import ROOTS_KEY
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.knowledge.categories import LIBRARY_CATEGORIES
from leapp_codemod.model import FileError, Finding, LibraryCall, StateAttr
from leapp_codemod.rules import Rule
from leapp_codemod.scan.state_inputs import STATE_WRITE_RULES, with_state_input


def _finding(rule: Rule, hit, fn: FunctionInfo, module) -> Finding:
    node = hit.node
    end_line = getattr(node, "end_lineno", None) or node.lineno
    end_offset = getattr(node, "end_col_offset", None)
    return Finding(
        path=fn.path, line=node.lineno, column=module.column(node.lineno, node.col_offset),
        end_line=end_line,
        end_column=module.column(end_line, end_offset if end_offset is not None else node.col_offset),
        code=rule.code, category=rule.category, severity=rule.severity,
        message=hit.message, fix=hit.fix, function=fn.id, related=hit.related)


def _rules_by_type(rules: tuple[Rule, ...]) -> dict[type, list[Rule]]:
    by_type: dict[type, list[Rule]] = defaultdict(list)
    for rule in rules:
        for node_type in rule.node_types:
            by_type[node_type].append(rule)
    return by_type


def run_rules(analysis: Analysis, functions, rules: tuple[Rule, ...], only_paths: frozenset[str] | None,
              lint: bool = False):
    """Findings, state writes and internal errors for the given functions (`lint`: every function analysed, no
    pipeline: code registered to run outside a function fills its inputs whether or not it was analysed)."""
    by_type = _rules_by_type(rules)
    findings: list[Finding] = []
    state: dict[tuple[str, str], StateAttr] = {}
    library_calls: set[LibraryCall] = set()
    errors: list[FileError] = []
    crashed: set[tuple[str, str]] = set()       # (rule, file): an internal error is reported once per file
    boundary = io_boundaries(analysis)          # the project's I/O wrappers: the step's boundary, not its code
    analysis.project.memo[REACHED_KEY] = frozenset() if lint else frozenset(analysis.reachable)   # writers
    # outside the pipeline fill its inputs
    analysis.project.memo[ROOTS_KEY] = frozenset(analysis.roots)   # what the entry returns is the export's output
    analysis.project.memo[STEP_READS_KEY] = None if lint else step_value_reads(   # a log the step only fills
        analysis.project, analysis.reachable.values())
    for fn in functions:
        if only_paths is not None and fn.path not in only_paths or fn.id in boundary:
            continue   # a send or read wrapper: its call in the step is the finding (LCM901), its body the host's
        if not lint and world_bookkeeping(analysis, fn):
            continue   # run by a kept world step for its reward, flags or resets: the world's code
        try:
            ctx = analysis.context_with_env(fn)
        except RecursionError:
            errors.append(FileError(fn.path, f"line {fn.node.lineno}: {fn.qualname} is too deeply nested to analyze"))
            continue
        ctx.shape_answers = {}      # the facts are final from here on: `is_shape` answers are kept
        library = analysis.project.is_library(fn.module)
        reporting = not library and reached_for_reports(analysis, fn)   # called only for a report: its I/O only
        for node in iter_nodes(fn, analysis.facts.param_constants.get(fn.id)):
            rules_here = by_type.get(type(node), ())
            if reporting:
                rules_here = [r for r in rules_here if r.category == "io-in-pipeline" and not r.reads_value]
            if library and rules_here and (ctx.under_scalar_dispatch(node) or ctx.in_error_handler(node)):
                continue   # an installed library's code for Python/NumPy scalars, or for an error: not the trace
            for rule in rules_here:
                try:
                    hits = list(rule.check(node, ctx))
                except Exception as exc:  # noqa: BLE001 - one odd construct must not stop the scan
                    if (rule.code, fn.path) in crashed:
                        continue
                    crashed.add((rule.code, fn.path))
                    errors.append(FileError(fn.path, f"line {getattr(node, 'lineno', '?')}: internal error in rule "
                                                     f"{rule.code} ({exc.__class__.__name__}: {exc}); other rules "
                                                     "and files were analyzed", internal=True))
                    continue
                for hit in hits:
                    if rule.category != "io-in-pipeline" and not ctx.reaches_output(hit.node):
                        continue   # a value only reported, or used by nothing: nothing the export keeps
                    if rule.category == "io-in-pipeline" and bookkeeping_report(ctx, hit.node):
                        continue   # a kept world step printing its reward or counters
                    findings.append(_finding(rule, hit, fn, ctx.module))
                    if rule.code in STATE_WRITE_RULES and not library:
                        findings[-1] = with_state_input(findings[-1], hit.node, ctx, analysis)
                    if rule.category in LIBRARY_CATEGORIES and isinstance(node, ast.Call):
                        call = library_call(ctx, node, fn.path)
                        if call:
                            library_calls.add(call)
                    writes = rule.state_writes(node, ctx) if rule.state_writes is not None else ()
                    for write in writes:
                        if ctx.is_loop_carried(write[0]) or not write[0].isidentifier():
                            continue  # `generate` carries an inline range's state itself; a function's attribute
                                      # (`handler.filtered`) is reported, not declarable
                        if ctx.cls is not None and not ctx.holds_tensor(write[0]) \
                                and not (ctx.holds_counter(write[0]) and not library):
                            continue  # a list or a dict: reported, not declarable (the application's own
                                      # counter is: `run` carries it as a number state when a call reads it)
                        owner = ctx.state_owner(write[0])
                        is_buffer = ctx.cls is not None and owner == ctx.cls.id and write[0] in ctx.cls.buffers
                        state.setdefault((owner, write[0]), StateAttr(owner, write[0], write[1], fn.path,
                                                                      node.lineno, is_buffer))
    return findings, list(state.values()), sorted(library_calls, key=lambda c: (c.path, c.line, c.target)), errors


def library_call(ctx, call: ast.Call, path: str) -> LibraryCall | None:
    """The binding a flagged library call is looked up through (what a FunctionPatch must replace)."""
    target = ctx.call_name(call)
    if not target or "." not in target:
        return None
    func = call.func
    if isinstance(func, ast.Name):
        return LibraryCall(path, call.lineno, ctx.module.name, func.id, target)
    if isinstance(func, ast.Attribute):
        owner = ctx.qualify(func.value)
        if owner and owner == target.rpartition(".")[0]:
            return LibraryCall(path, call.lineno, owner, func.attr, target)
    return None
