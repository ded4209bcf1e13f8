"""The adapters `generate` can write patches with: the static view of the registry in
`leapp_codemod.adapters` (its table `leapp_codemod/data/adapters.json`, written from the registry and
kept equal to it by a test). Read as data: that package imports torch and `generate` must not."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

TABLE = "adapters.json"


@lru_cache(maxsize=1)
def _table() -> dict[str, dict[str, str]]:
    return json.loads(resources.files("leapp_codemod.data").joinpath(TABLE).read_text(encoding="utf-8"))


def registry() -> dict[str, str]:
    """Name -> kind ("function", "method", "constructor", "class") of every adapter."""
    return {name: entry["kind"] for name, entry in _table().items()}


def domain(name: str) -> str:
    """The inputs the adapter `name` is faithful on, in words."""
    return _table()[name]["domain"]


def torch_adapter_names() -> frozenset[str]:
    """Dotted names ("cv2.resize") of the module-function adapters."""
    return frozenset(name for name, kind in registry().items() if kind == "function")


def torch_adapter(function: str) -> str | None:
    """The registry name of the adapter for a defining "module:qualname", accepting private submodules
    (`scipy.special._ufuncs:expit` is `scipy.special.expit`)."""
    module, _, name = function.partition(":")
    parts = module.split(".")
    candidates = [f"{module}.{name}"] + [f"{'.'.join(parts[:i])}.{name}" for i in range(len(parts) - 1, 0, -1)]
    candidates.append(f"{'.'.join(p for p in parts if not p.startswith('_'))}.{name}")
    names = torch_adapter_names()
    return next((c for c in candidates if c in names), None)


def class_constructor(function: str) -> str | None:
    """The class adapter whose constructor a library "module:qualname" is (SciPy's
    `Rotation:from_quat` -> "scipy.spatial.transform.Rotation"), or None. `run` diverts such a class
    in the entry's module and in the application's modules to its adapter while tracing
    (runner/class_patches.py), so the call needs no FunctionPatch of its own."""
    module, _, name = function.partition(":")
    owner, _, ctor = f"{module}.{name}".rpartition(".")
    table = registry()
    parts = owner.split(".")
    for cls in dict.fromkeys([owner, ".".join(p for p in parts if not p.startswith("_"))]):
        if table.get(cls) == "class" and table.get(f"{cls}.{ctor}") == "constructor":
            return cls
    return None
