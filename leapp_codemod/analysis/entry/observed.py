"""Rank entrypoints from what the running driver showed (`entrypoints --driver`).

A function is a candidate when, while the driver ran, it was called repeatedly with array or
tensor arguments whose values changed, and an `nn.Module` ran inside it (its results depend on the
module's output). Candidates nested inside another candidate rank below it (the outer one is the
whole pipeline). A loop frame that calls an `nn.Module` itself is an inline pipeline: its
candidate is the statement range around the call (see `inline_suggest`). Pure: no imports of
torch or the application.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.analysis.inline.suggest import suggest_range
from leapp_codemod.source.files import module_name


@dataclass(frozen=True)
class Observed:
    entry: str
    kind: str                 # "function" | "inline"
    path: str
    line: int
    score: int
    reasons: tuple[str, ...]
    chain: tuple[str, ...]    # "file:line qualname" from the driver down to the candidate
    start: int = 0
    end: int = 0

    def to_json(self) -> dict:
        data = {"entry": self.entry, "kind": self.kind, "path": self.path, "line": self.line, "score": self.score,
                "reasons": list(self.reasons), "chain": list(self.chain)}
        if self.kind == "inline":
            data.update(start=self.start, end=self.end)
        return data


def _display(path: str) -> str:
    rel = os.path.relpath(path)
    return Path(rel if not rel.startswith("..") else path).as_posix()


def _chain(rows: list, last: str) -> tuple[str, ...]:
    return tuple(f"{_display(f)}:{line} {q}" for f, line, q in rows) + (last,)


def _function_candidates(functions: list[dict]) -> list[Observed]:
    key = {f"{r['file']}:{r['line']}:{r['qualname']}": r for r in functions}
    candidate = {k for k, r in key.items() if r["reaches_module"] and r["calls"] >= 2 and r["distinct_inputs"] >= 2}
    out = []
    for k in candidate:
        r = key[k]
        nested = sorted(a for a in r["ancestors"] if a in candidate and a != k)
        reasons = [(f"called {r['calls']} times while the driver ran, with {r['distinct_inputs']} distinct "
                    "array/tensor inputs"), "an nn.Module runs inside it (its result depends on the module's output)"]
        score = 10 + min(r["distinct_inputs"], 5)
        if r["returns_array"]:
            score += 2
            reasons.append("returns arrays/tensors")
        if nested:
            score -= 8
            reasons.append(f"runs inside another candidate ({key[nested[0]]['qualname']}), which exports more of "
                           "the pipeline")
        else:
            reasons.append("the outermost such function on its call chain")
        module, _ = module_name(Path(r["file"]))
        out.append(Observed(f"{module}:{r['qualname']}", "function", _display(r["file"]), r["line"], score,
                            tuple(reasons), _chain(r["chain"], f"{_display(r['file'])}:{r['line']} {r['qualname']}"),
                            ))
    return out


def _inline_candidates(functions: list[dict], sites: list[dict], candidates: set[str]) -> list[Observed]:
    calls = {f"{r['file']}:{r['line']}:{r['qualname']}": r for r in functions}
    out = []
    for site in sites:
        frame = calls.get(site["frame_key"])
        if site["frame_key"] in candidates or (frame is not None and frame["calls"] >= 2
                                               and frame["distinct_inputs"] >= 2):
            continue        # the module is called inside a function candidate: not inline
        try:
            tree = ast.parse(Path(site["file"]).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        found = suggest_range(tree, site["line"])
        if found is None:
            continue
        path = _display(site["file"])
        reasons = ((f"an nn.Module is called {site['count']} times from line {site['line']} of {site['frame']}, "
                    "inside its loop: the pipeline is written inline"), found.reason,
                   f"use --entry {path}:{found.start}-{found.end}")
        chain = tuple(f"{_display(f)}:{line} {q}" for f, line, q in (frame or {}).get("chain", [])) + (
            f"{path}:{site['line']} {site['frame']}",)
        out.append(Observed(f"{path}:{found.start}-{found.end}", "inline", path, found.start,
                            10 + min(site["count"], 5) + 2, reasons, chain, found.start, found.end))
    return out


def rank_observed(observation: dict) -> list[Observed]:
    functions = observation.get("functions", [])
    ranked = _function_candidates(functions)
    names = {f"{r['file']}:{r['line']}:{r['qualname']}" for r in functions
             if r["reaches_module"] and r["calls"] >= 2 and r["distinct_inputs"] >= 2}
    ranked += _inline_candidates(functions, observation.get("sites", []), names)
    return sorted(ranked, key=lambda e: (-e.score, e.path, e.line))
