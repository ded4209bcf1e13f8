"""Library classes that have a class adapter (SciPy's `Rotation`), diverted to the adapter while `run`
traces.

LEAPP's FunctionPatch replaces module-level functions only, so a chain that starts at a class
(`R.from_quat(q).inv().apply(g)` written in the entry itself, or in a statement range of a driver)
cannot be patched with it. While tracing, each name bound to such a class is replaced by a
dispatcher in the entry's module, where the entry's code reads it, and in every module of the
application (under its import root), where a function, or a method of a class, defined in that
module reads it (a helper method such as `self.frame(q)` cannot be a FunctionPatch): a constructor
called with a traced argument builds the adapter's object (whose methods trace), any other call
goes to the original class, as a FunctionPatch does. The bindings are put back when tracing ends.
Module-level helpers also get traceable twins from `generate` (their library names rewritten there).
"""
from __future__ import annotations

import inspect
import os
import sys
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

    def __instancecheck__(self, obj) -> bool:      # `isinstance(r, Rotation)` in diverted code
        return isinstance(obj, (self._original, self._adapter))

    def __subclasscheck__(self, cls) -> bool:
        return issubclass(cls, (self._original, self._adapter))

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


def _defined_code(module: types.ModuleType) -> list[types.CodeType]:
    """Code of the functions a module defines and of the methods of the classes it defines."""
    namespace, found = vars(module), []

    def add(value) -> None:
        fn = inspect.unwrap(value) if callable(value) else value
        if isinstance(fn, (staticmethod, classmethod)):
            fn = fn.__func__
        if isinstance(fn, property):
            for part in (fn.fget, fn.fset):
                add(part)
            return
        if isinstance(fn, types.FunctionType) and fn.__globals__ is namespace:
            found.append(fn.__code__)

    for value in list(namespace.values()):
        if isinstance(value, type) and value.__module__ == module.__name__:
            for member in list(vars(value).values()):
                add(member)
        else:
            add(value)
    return found


def application_modules(app_root: str) -> list[types.ModuleType]:
    """The imported modules whose file lies under the application's import root (not site-packages)."""
    if not app_root:
        return []
    root = os.path.abspath(app_root) + os.sep
    found = []
    for module in list(sys.modules.values()):
        path = os.path.abspath(getattr(module, "__file__", "") or "")
        if path.startswith(root) and "site-packages" not in path and isinstance(vars(module), dict):
            found.append(module)
    return found


def _divert_in(namespace: dict, names: set[str], saved: list[tuple[dict, str, object]]) -> None:
    for name in sorted(names):
        value = namespace.get(name)
        adapter = adapter_class(value) if isinstance(value, type) else None
        if adapter is not None:
            saved.append((namespace, name, value))
            namespace[name] = ClassDispatch(value, adapter)


@contextmanager
def diverted(function, app_root: str = ""):
    """While the block runs, the classes with a class adapter that `function` reads from its module's
    namespace, and that the functions and methods of the application's modules (under `app_root`)
    read from theirs, are dispatchers; yields the names diverted."""
    fn = inspect.unwrap(function)
    namespace = getattr(fn, "__globals__", None)
    code = getattr(fn, "__code__", None)
    reads: dict[int, tuple[dict, set[str]]] = {}
    if isinstance(namespace, dict) and code is not None:
        reads[id(namespace)] = (namespace, _global_names(code))
    for module in application_modules(app_root):
        names = set().union(*map(_global_names, _defined_code(module)))
        entry = reads.setdefault(id(vars(module)), (vars(module), set()))
        entry[1].update(names)
    saved: list[tuple[dict, str, object]] = []
    for ns, names in reads.values():
        _divert_in(ns, names, saved)
    try:
        yield sorted({name for _, name, _ in saved})
    finally:
        for ns, name, value in reversed(saved):
            ns[name] = value
