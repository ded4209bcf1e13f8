"""The exported graph of a split pipeline, for report.json: each node's model and connections, and
a check that no node has an input that should have been an edge from its producer."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.runner.semantics_report import module_literal


def expected_external(order: tuple, boundaries: tuple, inputs: tuple) -> dict[str, set[str]]:
    """node -> the entry inputs it may take from outside the graph (the first node's, and each
    boundary's late inputs on the node after it)."""
    late = {name for *_, names in boundaries for name in names}
    allowed = {order[0]: set(inputs) - late}
    for index, (*_, names) in enumerate(boundaries):
        allowed.setdefault(order[index + 1], set()).update(names)
    return allowed


def summarize(module_path: Path, graph_yaml: Path | None) -> dict | None:
    """None when the module was generated without --split."""
    order = module_literal(module_path, "SPLIT_ORDER")
    if order is None:
        return None
    boundaries = module_literal(module_path, "SPLIT_BOUNDARIES") or ()
    out: dict = {"reason": module_literal(module_path, "SPLIT_REASON"), "nodes": [], "edges": {}, "problems": []}
    if graph_yaml is None or not graph_yaml.is_file():
        return out
    import yaml

    doc = yaml.safe_load(graph_yaml.read_text(encoding="utf-8")) or {}
    models = doc.get("models") or {}
    pipeline = doc.get("pipeline") or {}
    external = {node: list(names) for node, names in (pipeline.get("inputs") or {}).items()}
    allowed = expected_external(tuple(order), tuple(boundaries), tuple(module_literal(module_path, "INPUTS") or ()))
    for node in order:
        model = models.get(node)
        if model is None:
            out["problems"].append(f"node {node} is missing from the exported graph")
            continue
        path = (model.get("parameters") or {}).get("model_path")
        out["nodes"].append({"node": node, "model": str(graph_yaml.parent / path) if path else None,
                             "inputs": [t["name"] for t in model.get("inputs") or []],
                             "outputs": [t["name"] for t in model.get("outputs") or []],
                             "external_inputs": external.get(node, [])})
        for name in external.get(node, []):
            if name not in allowed.get(node, set()):
                out["problems"].append(f"node {node}: input {name!r} comes from outside the graph but is not an "
                                       "entry input of this node; it should have been an edge from a producer "
                                       "(a value crossed a node boundary unannotated)")
    out["edges"] = pipeline.get("data_flow") or {}
    extra = sorted(set(models) - set(order))
    if extra:
        out["problems"].append(f"unexpected nodes in the exported graph: {', '.join(extra)}")
    return out
