"""Library classes that have a class adapter (SciPy's `Rotation`), diverted to the adapter while `run`
traces.

LEAPP's FunctionPatch replaces module-level functions only, so a chain that starts at a class
(`R.from_quat(q).inv().apply(g)` written in the entry itself, or in a statement range of a driver)
cannot be patched with it. While tracing, each name of the entry's module that the entry's code
reads and that is bound to such a class is replaced by a dispatcher: a constructor called with a
traced argument builds the adapter's object (whose methods trace), any other call goes to the
original class, as a FunctionPatch does. The bindings are put back when tracing ends. Helpers in
other modules get traceable twins from `generate` instead (their library names rewritten there).
"""
from __future__ import annotations

import inspect
import types
from collections.abc import Mapping
from contextlib import contextmanager

from leapp_codemod.adapters import ADAPTERS
from leapp_codemod.adapters._core import is_traced


def _has_traced(value) -> bool:
    if is_traced(value):
        return True
    if isinstance(value, Mapping):
        return any(_has_traced(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_traced(v) for v in value)
    return False


class ClassDispatch:
    """Stands for `original` in the entry's module while tracing (see the module docstring)."""

    def __init__(self, original: type, adapter: type):
        self._original, self._adapter = original, adapter

    def __getattr__(self, name: str):
        original = getattr(self._original, name)
        adapted = getattr(self._adapter, name, None)
        if adapted is None or not callable(original):
            return original

        def dispatch(*args, **kwargs):
            return (adapted if _has_traced((args, kwargs)) else original)(*args, **kwargs)

        return dispatch

    def __call__(self, *args, **kwargs):
        return self._original(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self._original.__qualname__} diverted to its adapter for traced arguments>"


def adapter_class(cls: type) -> type | None:
    """The class adapter of a library class (private submodules allowed), or None."""
    parts = f"{cls.__module__}.{cls.__qualname__}".split(".")
    for name in dict.fromkeys([".".join(parts), ".".join(p for p in parts if not p.startswith("_"))]):
        adapter = ADAPTERS.get(name)
        if adapter is not None and adapter.kind == "class":
            return adapter.function
    return None


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


@contextmanager
def diverted(function):
    """While the block runs, the classes with a class adapter that `function` reads from its module's
    namespace are dispatchers; yields the names diverted."""
    fn = inspect.unwrap(function)
    namespace = getattr(fn, "__globals__", None)
    code = getattr(fn, "__code__", None)
    saved: list[tuple[str, object]] = []
    if isinstance(namespace, dict) and code is not None:
        for name in sorted(_global_names(code)):
            value = namespace.get(name)
            adapter = adapter_class(value) if isinstance(value, type) else None
            if adapter is not None:
                saved.append((name, value))
                namespace[name] = ClassDispatch(value, adapter)
    try:
        yield [name for name, _ in saved]
    finally:
        for name, value in saved:
            namespace[name] = value
