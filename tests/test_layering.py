"""Imports between the package's layers go downward only; the rules see the analysis through its facade.

Reads the source with `ast` (imports nothing of the package): module-level, function-level and
TYPE_CHECKING imports all count.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "leapp_codemod"

# Lowest first. A module may import its own layer and the layers before it, never a later one.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("knowledge",),                                                 # plain data
    ("model", "settings", "config", "io_util", "boundary", "held", "adapters", "data"),  # shared vocabulary, small utilities, runtime support of generated modules
    ("source",),                                                    # files, parsing, cache
    ("observe.merge", "observe.saved"),                             # an observation as data, and its file
    ("analysis.model",),                                            # what the code says: index, project, resolution
    ("analysis.infer",),                                            # per-function questions (FunctionContext)
    ("analysis.flow",),                                             # the fixpoint
    ("analysis.inline",),                                           # statement ranges as entries
    ("analysis.entry",),                                            # entry discovery and lookup
    ("rules",),                                                     # one module per rule
    ("scan", "resolved", "noqa"),                                   # the scan pipeline, what follows a scan
    ("report",),
    ("generate",),
    ("runner", "observe"),                                          # the observed child process runs the driver
    ("cli", "cli_settings", "cli_rules", "cli_observe", "cli_run", "__main__"),
)
FACADE = "leapp_codemod.analysis.infer.context"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules of the package that `name` imports (`from package import module` names both)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and target.startswith("leapp_codemod"):
                out.add(target)
    return out


def layer_of(module: str) -> int | None:
    """Index in LAYERS of the longest matching prefix; None for the package root."""
    rest = module.removeprefix("leapp_codemod.") if module != "leapp_codemod" else ""
    best, best_len = None, -1
    for index, names in enumerate(LAYERS):
        for name in names:
            if (rest == name or rest.startswith(name + ".")) and len(name) > best_len:
                best, best_len = index, len(name)
    return best


@functools.cache   # four tests read the same import graph: the package is parsed once per process
def edges() -> tuple[tuple[str, str], ...]:
    found = modules()
    known = set(found)
    return tuple(sorted((name, target) for name, path in found.items() for target in imported(name, path, known)))


def test_every_module_has_a_layer():
    namespaces = {"leapp_codemod", "leapp_codemod.analysis", "leapp_codemod.templates"}  # no code of their own
    unplaced = [m for m in modules() if m not in namespaces and layer_of(m) is None]
    assert unplaced == [], f"modules in no layer (add them to LAYERS): {unplaced}"


def test_the_parser_sees_imports():
    """The checks below would pass on zero edges; make sure the import reader finds the known ones."""
    found = set(edges())
    assert ("leapp_codemod.scan.dispatch", "leapp_codemod.rules") in found
    assert ("leapp_codemod.rules.base", FACADE) in found  # a TYPE_CHECKING import counts
    assert len(found) > 200


def test_imports_go_downward_only():
    upward = [f"{a} (layer {LAYERS[layer_of(a)][0]}) imports {b} (layer {LAYERS[layer_of(b)][0]})"
              for a, b in edges() if layer_of(a) is not None and layer_of(b) is not None and layer_of(b) > layer_of(a)]
    assert upward == []


def test_knowledge_imports_nothing_of_the_package():
    out = [(a, b) for a, b in edges() if a.startswith("leapp_codemod.knowledge") and not b.startswith(
        "leapp_codemod.knowledge")]
    assert out == []


def test_rules_see_the_analysis_only_through_its_facade():
    seen = {b for a, b in edges() if a.startswith("leapp_codemod.rules") and b.startswith("leapp_codemod.analysis")}
    assert seen == {FACADE}


def test_layer_of_reads_the_longest_prefix():
    assert LAYERS[layer_of("leapp_codemod.analysis.flow.dataflow")] == ("analysis.flow",)
    assert LAYERS[layer_of("leapp_codemod.cli_run")][0] == "cli"
    assert layer_of("leapp_codemod.analysis") is None  # the bare namespace package holds no code


MAX_LINES = 550


def test_modules_stay_small():
    sizes = {name: path.read_text(encoding="utf-8").count("\n") for name, path in modules().items()}
    assert max(sizes.values()) > 100  # the count reads real files
    assert [(n, s) for n, s in sizes.items() if s >= MAX_LINES] == []


def test_every_rule_module_is_registered():
    from leapp_codemod.rules import ALL_RULES
    files = {p.stem for p in (PACKAGE / "rules").glob("*.py") if not p.stem.startswith("_") and p.stem != "base"}
    registered = {rule.check.__module__.rpartition(".")[2] for rule in ALL_RULES}
    assert len(files) >= 18
    assert files == registered
