"""The project's I/O wrappers the step reaches: the pipeline's boundary, not pipeline code.

A greatest fixpoint over the methods the step reaches: start from every project method some reached code
calls, and drop, until nothing changes, each one whose body is not a boundary's (`boundary_kind` of
`analysis.infer.sink`, assuming the remaining ones are) or that a method of its own object outside the
boundary calls (the step's own I/O stays the step's). Helpers that call each other (`command` publishes a gap
message through `_publish_gap`, which reads through `poll`) are decided together.
"""
from __future__ import annotations

from leapp_codemod.analysis.infer.sink import BOUNDARY_KEY


def io_boundaries(analysis) -> dict[str, str]:
    """fid -> SEND or READ for the boundary methods the analysis reached, set in the project memo (under
    `BOUNDARY_KEY`, where the rules ask) for the rules' pass over this analysis."""
    project = analysis.project
    candidates = {fid: fn for fid, fn in analysis.reachable.items()
                  if fn.is_method and "<lines" not in fn.qualname and fid not in analysis.roots
                  and not project.is_library(fn.module) and analysis.facts.callers.get(fid)}
    contexts = {}
    kinds = {fid: "" for fid in candidates}
    for _ in range(len(candidates) + 1):
        changed = False
        for fid, fn in candidates.items():
            if fid not in kinds:
                continue
            kind = _kind(analysis, fn, kinds, contexts)
            if kind != kinds[fid]:
                changed = True
                if kind is None:
                    del kinds[fid]
                else:
                    kinds[fid] = kind
        if not changed:
            break
    project.memo[BOUNDARY_KEY] = kinds = {fid: kind for fid, kind in kinds.items() if kind}
    return kinds


def _kind(analysis, fn, kinds: dict[str, str], contexts: dict) -> str | None:
    outside = False
    for caller_id in analysis.facts.callers.get(fn.id, ()):
        if caller_id in kinds:
            continue
        caller = analysis.reachable.get(caller_id)
        if caller is None or (caller.module, caller.class_name) == (fn.module, fn.class_name):
            return None   # `self.publish(a)` in the step, or a call the scan cannot place
        outside = True
    ctx = contexts.get(fn.id)
    if ctx is None:
        ctx = contexts[fn.id] = analysis.context_with_env(fn)
    return ctx.boundary_kind(kinds, outside)
