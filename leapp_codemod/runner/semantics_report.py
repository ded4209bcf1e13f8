"""What `generate --semantics` put into the exported YAML, for report.json: each annotated tensor's
kind and element names (checked against its shape) and the tensors left raw, with why."""
from __future__ import annotations

import ast
from pathlib import Path


def module_literal(path: Path, name: str):
    """A top-level literal of the integration module, or None when it has none."""
    from leapp_codemod.runner.module_info import UsageError, literal

    try:
        return literal(ast.parse(path.read_text(encoding="utf-8")), name, path, required=False)
    except UsageError:
        return None


def summarize(module_path: Path, graph_yaml: Path | None) -> dict | None:
    """None when the module was generated without --semantics."""
    raw = module_literal(module_path, "RAW_TENSORS")
    if raw is None:
        return None
    out: dict = {"annotated": {}, "raw": raw, "problems": []}
    if graph_yaml is None or not graph_yaml.is_file():
        return out
    import yaml

    doc = yaml.safe_load(graph_yaml.read_text(encoding="utf-8")) or {}
    for node, model in (doc.get("models") or {}).items():
        for side in ("inputs", "outputs"):
            for tensor in model.get(side) or []:
                if "kind" not in tensor:
                    continue
                names = tensor.get("element_names")
                flat = names[0] if names and isinstance(names[0], list) else names
                out["annotated"][f"{node}/{tensor['name']}"] = {"kind": tensor["kind"], "element_names": flat}
                shape = tensor.get("shape") or []
                if flat and shape and len(flat) != shape[-1]:
                    out["problems"].append(f"{node}/{tensor['name']}: {len(flat)} element names for a last "
                                           f"dimension of {shape[-1]}")
    return out
