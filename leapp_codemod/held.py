"""Inputs held by objects: fields the entry reads from objects it holds (`self.data.sensordata` of a
simulator's data the driver steps between calls, `self.robot.state.q` an SDK refreshes) become graph
inputs.

A generated module declares them in HELD (input name -> dotted path from the entry's instance). Before
each call the host (or `leapp-codemod run`) reads the fields (`read`); the module traces the values as
inputs and calls the entry on a stand-in for the instance (`bind`): reading a fed field returns the
traced value, every other read goes to the real object (its methods run on the stand-in, so they see
the fed fields too) and every write goes to the real object. The real objects are never changed.
Imports nothing heavy.
"""
from __future__ import annotations

import copy
import inspect
import types
from typing import Any


class HeldError(Exception):
    """A held field that cannot be served as an input (one line naming it)."""


class StandIn:
    """Stands for `real` during one call: the attributes in `fed` return the values given (a nested
    StandIn for a path that goes deeper), the rest is read from and written to `real`."""

    __slots__ = ("_leapp_fed", "_leapp_real")

    def __init__(self, real: Any, fed: dict):
        object.__setattr__(self, "_leapp_real", real)
        object.__setattr__(self, "_leapp_fed", fed)

    def __getattr__(self, name: str):
        fed = object.__getattribute__(self, "_leapp_fed")
        if name in fed:
            return fed[name]
        real = object.__getattribute__(self, "_leapp_real")
        static = inspect.getattr_static(type(real), name, None)
        if isinstance(static, types.FunctionType) and name not in getattr(real, "__dict__", {}):
            return types.MethodType(static, self)      # the class's own methods see the fed fields too
        return getattr(real, name)

    @property
    def __class__(self):    # isinstance(self, Cls) and super() in the entry see the real object's class
        return type(object.__getattribute__(self, "_leapp_real"))

    def __setattr__(self, name: str, value) -> None:
        setattr(object.__getattribute__(self, "_leapp_real"), name, value)

    def __repr__(self) -> str:
        return f"<stand-in for {object.__getattribute__(self, '_leapp_real')!r}>"


def stand_in(real: Any, fields: dict[str, Any]) -> StandIn:
    """A stand-in for `real` where each dotted path of `fields` (relative to `real`) returns its value."""
    direct: dict[str, Any] = {}
    deeper: dict[str, dict[str, Any]] = {}
    for path, value in fields.items():
        head, _, rest = path.partition(".")
        if rest:
            deeper.setdefault(head, {})[rest] = value
        else:
            direct[head] = value
    for head, sub in deeper.items():
        direct[head] = stand_in(getattr(real, head), sub)
    return StandIn(real, direct)


def bind(entry, paths: dict[str, str], values: dict[str, Any]):
    """The bound method `entry` re-bound to a stand-in for its instance that serves `values` (input
    name -> value) at the fields `paths` names (input name -> dotted path)."""
    fed = {paths[name]: value for name, value in values.items() if name in paths and value is not None}
    if not fed:
        return entry
    return types.MethodType(entry.__func__, stand_in(entry.__self__, fed))


def fed(entry, paths: dict[str, str]):
    """`entry` called with the held inputs among its keyword arguments (served through `bind`)."""
    if not paths:
        return entry

    def call(*args, **kwargs):
        values = {name: kwargs.pop(name) for name in list(kwargs) if name in paths}
        return bind(entry, paths, values)(*args, **kwargs)

    return call


def lookup(instance: Any, path: str):
    value = instance
    for part in path.split("."):
        value = getattr(value, part)
    return value


def read(instance: Any, paths: dict[str, str]) -> dict[str, Any]:
    """A copy of each held field's current value (input name -> value) that is an array, a tensor or a
    NumPy number; other fields (a Python number, an object) are left out, so the entry reads them from the
    real object. A field that is a method cannot be an input: HeldError naming it."""
    out = {}
    for name, path in paths.items():
        try:
            value = lookup(instance, path)
        except AttributeError as exc:
            raise HeldError(f"held input {name!r}: self.{path} cannot be read ({exc})") from None
        if callable(value):
            raise HeldError(f"held input {name!r}: self.{path} is a method, not a field; it cannot be served as "
                            "an input (export from where its result is a value: an argument or a field)")
        if _servable(value):    # anything else (a Python number, an object) is read from the real object
            out[name] = value.clone() if hasattr(value, "clone") else copy.copy(value)
    return out


def _servable(value) -> bool:
    names = {(c.__module__, c.__name__) for c in type(value).__mro__}
    return bool(names & {("torch", "Tensor"), ("numpy", "ndarray"), ("numpy", "number")})
