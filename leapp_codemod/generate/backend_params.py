"""`backend_params` for LEAPP exporters: parse `--backend-param KEY=VALUE` and learn which keys each
exporter of the installed leapp accepts, by reading its source (never importing leapp or torch).

An exporter accepts a key when its backend class (or a base class) reads it from
`self.backend_params` (`.get("k")`, `["k"]`, `"k" in ...`), or when it forwards
`**self.backend_params` to a function (`torch.jit.trace`): then every keyword of that function
that the exporter does not already pass positionally is accepted.
"""
from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# The names `generate --export-with` uses, as LEAPP's `_create_backend` spells them.
LEAPP_NAMES = {"onnx": "onnx", "onnx-torchscript": "onnx-torchscript", "pt2": "pt2", "jit-script": "jit-script",
               "jit-trace": "jit-trace"}
_CREATE_FILE = Path("leapp_graph", "leapp_node.py")
_WORDS = {"true": True, "false": False, "none": None, "null": None}
# The value type of the backend_params keys of LEAPP 0.7.2 whose type is fixed (checked on the command line).
KEY_TYPES: dict[str, tuple[type, ...]] = {
    "opset_version": (int,), "optimize": (bool,), "report": (bool,), "skip_validation": (bool,), "verify": (bool,),
    "strict": (bool,), "check_trace": (bool,), "check_tolerance": (int, float),
}
_TYPE_WORDS = {int: "an integer", bool: "true or false", float: "a number"}


class BackendParamError(Exception):
    """A one-line reason a backend parameter cannot be used."""


@dataclass(frozen=True)
class AcceptedKeys:
    """backend -> keys it reads from backend_params, as found in the installed leapp."""

    by_backend: dict[str, frozenset[str]]
    origin: str

    def for_backend(self, backend: str) -> frozenset[str]:
        return self.by_backend.get(backend, frozenset())

    def backends_accepting(self, key: str) -> list[str]:
        return [b for b, keys in self.by_backend.items() if key in keys]


def parse_value(text: str):
    """`17` -> 17, `false` -> False, `1e-3` -> 0.001, `"x"` -> 'x', anything else stays a string."""
    word = _WORDS.get(text.strip().lower())
    if word is not None or text.strip().lower() in _WORDS:
        return word
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return value if isinstance(value, (bool, int, float, str, type(None))) else text


def parse_assignments(items: tuple[str, ...] | list[str]) -> dict:
    out: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise BackendParamError(f"--backend-param must be KEY=VALUE with an identifier KEY, got {item!r}")
        if key in out:
            raise BackendParamError(f"--backend-param {key} is given twice")
        if not value.strip():
            raise BackendParamError(f"--backend-param {key}= has no value; write {key}=VALUE")
        out[key] = parse_value(value)
        check_type(key, out[key])
    return out


def check_type(key: str, value) -> None:
    """Refuse a value of the wrong type for a key whose type is known (KEY_TYPES)."""
    types = KEY_TYPES.get(key)
    if types is None:
        return
    wrong_bool = isinstance(value, bool) and bool not in types
    if wrong_bool or not isinstance(value, types):
        raise BackendParamError(f"--backend-param {key}={value!r}: must be {_TYPE_WORDS[types[0]]}")


def check_keys(params: dict, accepted: AcceptedKeys) -> None:
    """Refuse a key that no exporter of the installed leapp accepts."""
    for key in params:
        if not accepted.backends_accepting(key):
            known = sorted({k for keys in accepted.by_backend.values() for k in keys})
            raise BackendParamError(f"--backend-param {key}: no LEAPP exporter accepts it ({accepted.origin}; "
                                    f"known keys: {', '.join(known)})")


def split_for(params: dict, backend: str, accepted: AcceptedKeys) -> tuple[dict, list[str]]:
    """(the params this backend accepts, the keys it does not)."""
    keys = accepted.for_backend(backend)
    return {k: v for k, v in params.items() if k in keys}, [k for k in params if k not in keys]


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _is_backend_params(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "backend_params"
            and isinstance(node.value, ast.Name) and node.value.id == "self")


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.insert(0, node.id)
    return ".".join(parts)


@dataclass
class _ClassReads:
    bases: list[str]
    keys: set[str]
    forwards: list[tuple[str, int]]     # (dotted function, positional arguments passed)


def _class_reads(cls: ast.ClassDef) -> _ClassReads:
    reads = _ClassReads([_dotted(b).rpartition(".")[2] for b in cls.bases], set(), [])
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and _is_backend_params(node.func.value) and node.args and isinstance(node.args[0], ast.Constant):
            reads.keys.add(str(node.args[0].value))
        elif isinstance(node, ast.Subscript) and _is_backend_params(node.value) \
                and isinstance(node.slice, ast.Constant):
            reads.keys.add(str(node.slice.value))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In) \
                and _is_backend_params(node.comparators[0]) and isinstance(node.left, ast.Constant):
            reads.keys.add(str(node.left.value))
        elif isinstance(node, ast.Call) and any(k.arg is None and _is_backend_params(k.value) for k in node.keywords):
            reads.forwards.append((_dotted(node.func), len(node.args)))
    return reads


def _function_keywords(dotted: str, positional: int) -> set[str]:
    """Keyword parameters of a module-level function of an installed package, read from its source."""
    package, _, name = dotted.rpartition(".")
    top = package.split(".")[0]
    base = _package_dir(top)
    if base is None or not name:
        return set()
    folder = base.joinpath(*package.split(".")[1:])
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                args = node.args
                positional_names = [a.arg for a in [*args.posonlyargs, *args.args]]
                return set(positional_names[positional:]) | {a.arg for a in args.kwonlyargs}
    return set()


def _backend_classes(leapp_dir: Path) -> dict[str, str]:
    """LEAPP's backend name -> backend class, from the if-chain of `_create_backend`."""
    tree = ast.parse((leapp_dir / _CREATE_FILE).read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "_create_backend"):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.If):
                continue
            names = [c.value for c in ast.walk(node.test) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
            classes = [_dotted(c.func) for stmt in node.body for c in ast.walk(stmt)
                       if isinstance(c, ast.Call) and _dotted(c.func).endswith("ExportBackend")]
            for name in names:
                if classes:
                    out.setdefault(name, classes[0])
    return out


@lru_cache(maxsize=1)
def accepted_keys() -> AcceptedKeys:
    """The keys every exporter of the installed leapp reads; raises BackendParamError without leapp."""
    leapp_dir = _package_dir("leapp")
    if leapp_dir is None or not (leapp_dir / _CREATE_FILE).is_file():
        raise BackendParamError("--backend-param needs the installed leapp to check which exporter accepts "
                                "each key (pip install 'leapp-codemod[run]')")
    classes: dict[str, _ClassReads] = {}
    for path in sorted((leapp_dir / "backends").glob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes[node.name] = _class_reads(node)

    def keys_of(name: str, depth: int = 0) -> set[str]:
        reads = classes.get(name)
        if reads is None or depth > 10:
            return set()
        keys = set(reads.keys)
        for dotted, positional in reads.forwards:
            keys |= _function_keywords(dotted, positional)
        for base in reads.bases:
            keys |= keys_of(base, depth + 1)
        return keys

    by_class = _backend_classes(leapp_dir)
    by_backend = {ours: frozenset(k for k in keys_of(by_class.get(theirs, "")) if not k.startswith("_"))
                  for ours, theirs in LEAPP_NAMES.items()}
    version = _leapp_version(leapp_dir)
    return AcceptedKeys(by_backend, f"installed leapp {version}")


def _leapp_version(leapp_dir: Path) -> str:
    try:
        from importlib.metadata import version
        return version("leapp")
    except Exception:  # noqa: BLE001 - metadata may be missing in a source checkout
        return str(leapp_dir)
