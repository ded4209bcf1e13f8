"""What the installed LEAPP maps from NumPy, read from its source files without importing it.

Importing leapp costs seconds (it imports torch); `scan` must stay static and fast. The mapping
tables are dict literals keyed by `np.<name>` in `traced_np_array.py`, so an AST read is exact.
When leapp is not installed, or its tables cannot be read, a bundled snapshot (same extractor, leapp
0.7.2) is used, and the origin says which and why.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

TABLE_FILE = Path("leapp_graph", "datatypes", "numpy", "traced_np_array.py")
SNAPSHOT = "leapp_support_0.7.2.json"

# NumPy 2 aliases are the same objects, so LEAPP maps them too (its tables match by identity).
NUMPY_ALIASES = {
    "absolute": ("abs",), "power": ("pow",), "arcsin": ("asin",), "arccos": ("acos",), "arctan": ("atan",),
    "arctan2": ("atan2",), "arcsinh": ("asinh",), "arccosh": ("acosh",), "arctanh": ("atanh",),
    "invert": ("bitwise_not", "bitwise_invert"), "left_shift": ("bitwise_left_shift",),
    "right_shift": ("bitwise_right_shift",), "concatenate": ("concat",), "transpose": ("permute_dims",),
    "round": ("around",), "divide": ("true_divide",), "amin": ("min",), "amax": ("max",),
}
# Replaced globally by LEAPP while a session is active (guide §2), so they stay traced.
GLOBAL_PATCHES = frozenset({"numpy.array", "numpy.asarray", "torch.from_numpy", "torch.as_tensor", "torch.tensor"})


@dataclass(frozen=True)
class LeappSupport:
    version: str
    origin: str                       # human-readable: where the tables came from
    numpy_functions: frozenset[str]   # qualified, e.g. "numpy.concatenate", "numpy.linalg.norm"
    traced_methods: frozenset[str]    # TracedNpArray methods that are recorded
    dtypes: frozenset[str]            # dtype names LEAPP can export, e.g. "float32"

    def maps_numpy(self, qualified: str) -> bool:
        return qualified in self.numpy_functions or qualified in GLOBAL_PATCHES

    def to_json(self) -> dict:
        return {"version": self.version, "numpy_functions": sorted(self.numpy_functions),
                "traced_methods": sorted(self.traced_methods), "dtypes": sorted(self.dtypes)}


def _np_name(expr: ast.expr) -> str | None:
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.insert(0, expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name) and expr.id in ("np", "numpy") and parts:
        return ".".join(["numpy", *parts])
    return None


def _with_aliases(names: set[str]) -> frozenset[str]:
    out = set(names)
    for name in names:
        short = name.removeprefix("numpy.")
        for alias in NUMPY_ALIASES.get(short, ()):
            out.add(f"numpy.{alias}")
    return frozenset(out)


def extract_from_source(text: str, version: str, origin: str) -> LeappSupport:
    tree = ast.parse(text)
    functions: set[str] = set()
    methods: set[str] = set()
    dtypes: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            if target in ("NUMPY_UFUNC_TO_TORCH", "NUMPY_FUNC_TO_TORCH") and isinstance(node.value, ast.Dict):
                functions |= {n for n in map(_np_name, node.value.keys) if n}
            elif target == "_NUMPY_DTYPE_TO_NAME":
                dtypes |= {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
        elif isinstance(node, ast.ClassDef) and node.name == "TracedNpArray":
            methods |= {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if not functions:
        raise ValueError("no NumPy mapping tables found")
    return LeappSupport(version, origin, _with_aliases(functions), frozenset(methods), frozenset(dtypes))


def _installed_leapp_dir() -> Path | None:
    try:
        spec = importlib.util.find_spec("leapp")  # locates the package without importing it
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _installed_version(pkg_dir: Path) -> str:
    init = (pkg_dir / "__init__.py").read_text(encoding="utf-8", errors="replace")
    match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", init, re.M)
    return match.group(1) if match else "unknown"


def load_snapshot(reason: str = "leapp not installed") -> LeappSupport:
    """The bundled tables; `reason` says why they are used instead of the installed leapp's."""
    data = json.loads(resources.files("leapp_codemod.data").joinpath(SNAPSHOT).read_text(encoding="utf-8"))
    return LeappSupport(data["version"], f"bundled snapshot of leapp {data['version']} ({reason})",
                        frozenset(data["numpy_functions"]), frozenset(data["traced_methods"]),
                        frozenset(data["dtypes"]))


@lru_cache(maxsize=1)
def load_support() -> LeappSupport:
    """The installed LEAPP's tables when readable, else the bundled snapshot, saying why."""
    pkg_dir = _installed_leapp_dir()
    if pkg_dir is None:
        return load_snapshot()
    table = pkg_dir / TABLE_FILE
    try:
        version = _installed_version(pkg_dir)
        return extract_from_source(table.read_text(encoding="utf-8"), version, f"installed leapp {version}")
    except OSError as exc:
        why = f"cannot read {table}: {exc.strerror or exc}"
    except (SyntaxError, UnicodeDecodeError) as exc:
        why = f"cannot parse {table}: {str(exc).splitlines()[0]}"
    except (ValueError, RecursionError) as exc:
        why = f"{table}: {exc}"
    return load_snapshot(f"leapp is installed at {pkg_dir} but its tables are unreadable: {why}")


if __name__ == "__main__":  # regenerate the bundled snapshot from the installed leapp
    print(json.dumps(load_support().to_json(), indent=1))
