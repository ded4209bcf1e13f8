"""Which arm each Python branch of the application took on a call, from the lines that call executed
(runner.linecover): when the export differs from the application on later calls, the branches that
took another arm there than on every traced call are the cause a verdict leads with (the trace holds
the traced calls' arm only). Pure: reads the application's source files, imports nothing of it."""
from __future__ import annotations

import ast
import functools
import os

from leapp_codemod.runner.module_info import category

# The arms a branch can take on one call: its body, the other side (its `else`, or past it when there
# is none), or both (a branch inside a loop).
BODY, OTHER, BOTH = "body", "other", "both"


@functools.lru_cache(maxsize=64)
def _tree(path: str) -> ast.Module | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return None


def _lines(stmts: list[ast.stmt]) -> frozenset[int]:
    return frozenset(n.lineno for s in stmts for n in ast.walk(s) if isinstance(n, ast.stmt))


def arms_at(path: str, line: int) -> tuple[frozenset[int], frozenset[int]] | None:
    """(lines of the body, lines of the `else`) of the `if` or `while` whose condition starts on `line`
    of `path`; None when no such statement is there (a conditional expression has no lines of its own)."""
    tree = _tree(path)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)) and node.lineno == line:
            return _lines(node.body), _lines(node.orelse)
    return None


def arm(executed: set[int], line: int, body: frozenset[int], orelse: frozenset[int]) -> str | None:
    """The arm taken on a call that executed `executed` (lines of the branch's file); None when the
    branch did not run on that call."""
    if line not in executed:
        return None
    in_body, in_else = bool(executed & body), bool(executed & orelse)
    if in_body and in_else:
        return BOTH
    return BODY if in_body else OTHER


def _file(lines: dict[str, list[int]], site: str) -> tuple[str, int] | None:
    """(absolute path in `lines`, line) of a `path:line` site given relative to any directory."""
    path, _, number = site.partition(":")
    if not number.isdigit():
        return None
    tail = "/" + path.replace(os.sep, "/").lstrip("./")
    for file in lines:
        if file.replace(os.sep, "/").endswith(tail) or file == path:
            return file, int(number)
    return None


def flips(sites: list[str], traced: list[dict[str, list[int]]], later: dict[int, dict[str, list[int]]]) -> list[dict]:
    """Per branch site (`path:line`, in the order given): the later calls (numbers, of `later`: call ->
    the lines it executed) on which it took an arm that no traced call took (`traced`: the lines each
    traced call executed), with the traced calls' arm and the other one."""
    out = []
    for site in dict.fromkeys(sites):
        found = next((f for f in (_file(c, site) for c in (*traced, *later.values())) if f), None)
        shape = arms_at(*found) if found else None
        if shape is None:
            continue
        path, line = found
        taken = {a for c in traced if (a := arm(set(c.get(path, ())), line, *shape)) is not None}
        if not taken or BOTH in taken:
            continue
        calls = {n: a for n, c in sorted(later.items())
                 if (a := arm(set(c.get(path, ())), line, *shape)) is not None and a not in taken}
        if calls:
            out.append({"at": site, "calls": sorted(calls), "traced_arm": sorted(taken)[0],
                        "other_arm": calls[min(calls)]})
    return out


def text(flip: dict) -> str:
    """One sentence naming the branch, the first call that took the other arm, and the others."""
    calls = flip["calls"]
    more = f" (also on call(s) {', '.join(map(str, calls[1:6]))}{' and more' if len(calls) > 6 else ''})" \
        if len(calls) > 1 else ""
    return (f"the branch at {flip['at']} took the other arm on call {calls[0]}{more}; the export holds the arm of "
            "the traced calls")


def lead_with_flip(report: dict, findings: tuple[str, ...], data: dict, last: dict) -> None:
    """When the export differs from the application on later calls: the application's branches (the scan's
    tensor-branch findings, LEAPP's tensor-branch signals in the application) that took, on those calls,
    an arm no traced call took lead the verdict (`branch_flips`; after an input element the export ignores,
    `dropped_element_reads`, when there is one), and their findings lead `explained_by`."""
    lines = data.get("call_lines") or {}
    later = {int(k): v for k, v in (lines.get("later") or {}).items()}
    if last.get("failed_stage") != "validation" or not later:
        return
    sites = [f.split(" ")[0] for f in dict.fromkeys(findings)
             if category(f) == "tensor-branch"]
    sites += [s["location"] for s in last.get("signals", []) if s.get("signal") == "tensor-branch"
              and s.get("location") and not (s.get("library") or s.get("guard") or s.get("adapter"))]
    found = flips(sites, lines.get("traced") or [], later)
    if not found:
        return
    report["branch_flips"] = found
    if report.get("dropped_element_reads"):     # an input the export ignores is the surer cause: it leads
        report["error"] += f"; also, {text(found[0])}"
    else:
        report["error"] = f"{text(found[0])}: {report['error']}"
    at = {f["at"] for f in found}
    explained = report.get("explained_by") or []
    report["explained_by"] = ([f for f in explained if f.split(" ")[0] in at]
                              + [f for f in explained if f.split(" ")[0] not in at])
