"""The LEAPP boundary of a pipeline whose inputs, outputs and state have any structure.

Generated integration modules call these functions instead of `annotate.*` directly. LEAPP takes
flat dicts of tensors/arrays named by identifiers; the pipeline takes and returns dicts (nested),
tuples, lists and deques of tensors or arrays mixed with other values. Here every structure is
flattened into ports named the way LEAPP names nested outputs (keys and indices joined with `_`,
made identifiers), traced, and rebuilt around the call. Values that are not tensors or arrays
(numbers, strings, None, objects) are passed through unchanged: they are constants of the export.

Without an active LEAPP session every function passes values through, so the module is safe to
import and call in production. Imports torch, numpy and leapp lazily.
"""
from __future__ import annotations

import collections
import functools
import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def is_array(value) -> bool:
    """A torch tensor or a NumPy array (checked by type name so that importing this is cheap)."""
    for cls in type(value).__mro__:
        if (cls.__module__, cls.__name__) in (("torch", "Tensor"), ("numpy", "ndarray")):
            return True
    return False


def is_numpy_number(value) -> bool:
    """A NumPy scalar number (`np.float32(0.3)`): a port of its own, traced as a 0-d array."""
    return any((cls.__module__, cls.__name__) == ("numpy", "number") for cls in type(value).__mro__)


def _is_leaf(value) -> bool:
    return is_array(value) or is_numpy_number(value)


def port_name(prefix: str, key) -> str:
    """`prefix_key` as a Python identifier (LEAPP turns port names into FX placeholders)."""
    part = re.sub(r"\W", "_", str(key))
    name = f"{prefix}_{part}" if prefix else (part or "value")
    if name[0].isdigit() or keyword.iskeyword(name):
        name = f"v_{name}"
    return name


# Names an exported graph gives its own values besides operator names: Python's item access in a
# torch.export graph, and the ONNX exporter's generated values and constants.
_GRAPH_VALUE_NAMES = re.compile(r"getitem|val|_tensor_constant|scalar_tensor_default|sym_size_int|sym_numel")


@functools.lru_cache(maxsize=1)
def _operator_names() -> frozenset[str]:
    import json
    from importlib import resources

    text = resources.files("leapp_codemod.data").joinpath("torch_operators.json").read_text(encoding="utf-8")
    return frozenset(json.loads(text)["operators"])


def graph_reserved(name: str) -> bool:
    """A name the exported graph may give one of its own values: a torch operator's name, alone or with the
    `_N` suffix that numbers its repeated uses (`mean`, `mul_3`). An output port with such a name is a second
    definition of that value, and ONNX refuses the model ("Duplicate definition of name")."""
    base = re.sub(r"(_\d+)+$", "", name)
    return base in _operator_names() or bool(_GRAPH_VALUE_NAMES.fullmatch(base))


def fresh_port(base: str, used: set[str], suffix: str = "_out") -> str:
    """The port name for `base`: itself when no other port of the export holds it (`used`) and the graph
    cannot name one of its own values so (`graph_reserved`), else `base` + `suffix`, then numbered. Every
    port name of an export that is chosen rather than taken from a parameter is chosen here."""
    candidate = base
    if candidate in used or graph_reserved(candidate):
        candidate = base = f"{base}{suffix}"
    i = 2
    while candidate in used or graph_reserved(candidate):
        candidate, i = f"{base}{i}", i + 1
    return candidate


# Libraries whose objects are never records of inputs (a model, a generator, a simulator handle).
_NOT_RECORDS = frozenset({"torch", "numpy", "leapp", "scipy", "builtins", "collections", "mujoco", "gym",
                          "gymnasium", "jax", "sklearn", "onnxruntime"})


def record_attributes(value) -> list | None:
    """(name, value) of an object's instance attributes (`__dict__`, then `__slots__`), or None when
    the object is no plain record: a class, function, module, callable object or library object."""
    cls = type(value)
    if isinstance(value, type) or callable(value) or cls.__module__.split(".")[0] in _NOT_RECORDS:
        return None
    if any((c.__module__, c.__name__) == ("torch.nn.modules.module", "Module") for c in cls.__mro__):
        return None
    found = vars(value) if isinstance(getattr(value, "__dict__", None), dict) else {}
    items = [(k, v) for k, v in found.items() if not k.startswith("__")]
    for c in cls.__mro__:
        for slot in (c.__dict__.get("__slots__", ()) if not isinstance(c.__dict__.get("__slots__"), str)
                     else (c.__dict__["__slots__"],)):
            if slot not in ("__dict__", "__weakref__") and hasattr(value, slot):
                items.append((slot, getattr(value, slot)))
    return items


RECORD_DEPTH = 4      # records nested deeper than this (or cyclic) are constants


def record_children(value, depth: int = 0) -> list | None:
    """(attribute, value) of the attributes of a record object (a dataclass, a SimpleNamespace, a plain
    class holding arrays: a robot's low-level state) that hold tensors or arrays, or None when the object
    holds none (then it is one constant of the export). Each such attribute is an input of its own; the
    other attributes stay the object's constants."""
    items = record_attributes(value) if depth <= RECORD_DEPTH else None
    if not items:
        return None
    kept = [(k, v) for k, v in items if _is_leaf(v) or _holds_leaf(v, depth + 1)]
    return kept or None


def _holds_leaf(value, depth: int) -> bool:
    if _is_leaf(value):
        return True
    kids = _children(value, depth)
    return bool(kids) and any(_holds_leaf(v, depth + 1) for _, v in kids)


def _children(value, depth: int = 0):
    """(key, child) pairs of a container (or of a record object's array attributes), or None for a leaf."""
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, (list, tuple, collections.deque)):
        return list(enumerate(value))
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return None
    return record_children(value, depth)


def flatten(value, prefix: str = "", _depth: int = 0) -> dict:
    """{port name: tensor/array} for every tensor or array leaf of `value` (and NumPy scalar number), in order."""
    if _is_leaf(value):
        return {prefix or "value": value}
    kids = _children(value, _depth)
    out: dict = {}
    for key, child in kids or ():
        for name, leaf in flatten(child, port_name(prefix, key), _depth + 1).items():
            while name in out:
                name += "_"
            out[name] = leaf
    return out


def left_out(value, prefix: str = "", _depth: int = 0) -> list[str]:
    """Port names of the leaves that are neither tensors nor arrays (not part of the boundary)."""
    if _is_leaf(value):
        return []
    kids = _children(value, _depth)
    if kids is None:
        return [f"{prefix or 'value'} ({type(value).__name__})"]
    return [name for key, child in kids for name in left_out(child, port_name(prefix, key), _depth + 1)]


def rebuild(value, replacements, prefix: str = "", _depth: int = 0):
    """`value` with each tensor/array leaf replaced by the next item of `replacements` (an
    iterator over the values of `flatten(value, prefix)`, in the same order)."""
    if _is_leaf(value):
        return next(replacements)
    kids = _children(value, _depth)
    if kids is None:
        return value
    rebuilt = [(key, rebuild(child, replacements, "", _depth + 1)) for key, child in kids]
    if not isinstance(value, (Mapping, list, tuple, collections.deque)):
        return _record_copy(value, rebuilt)
    if isinstance(value, Mapping):
        try:
            return type(value)(rebuilt)
        except TypeError:
            return dict(rebuilt)
    items = [child for _, child in rebuilt]
    if isinstance(value, collections.deque):
        return collections.deque(items, maxlen=value.maxlen)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*items)
    return type(value)(items)


def _record_copy(value, attributes: list):
    """A shallow copy of a record object with the attributes replaced (frozen dataclasses too)."""
    import copy

    new = copy.copy(value)
    for name, child in attributes:
        object.__setattr__(new, name, child)
    return new


def _as_tuple(result, n: int) -> tuple:
    return (result,) if n == 1 else tuple(result)


def input_tensors(node: str, named: dict):
    """`annotate.input_tensors` for arguments of any structure: one value for one argument, a
    tuple for several, each rebuilt with its tensors/arrays traced."""
    from leapp import annotate

    flat = {name: _as_array(value) for arg, v in named.items() for name, value in flatten(v, arg).items()}
    traced = iter(_as_tuple(annotate.input_tensors(node, flat), len(flat)) if flat else ())
    out = tuple(rebuild(v, traced, arg) for arg, v in named.items())
    return out[0] if len(out) == 1 else out


def _as_array(value):
    """A NumPy scalar number as the 0-d array LEAPP traces; tensors and arrays as they are."""
    if is_numpy_number(value):
        import numpy as np

        return np.asarray(value)
    return value


def output_tensors(node: str, named: dict, **kwargs):
    """`annotate.output_tensors` on the tensor/array leaves of `named`; other leaves (None, numbers,
    objects) are left out of the boundary."""
    from leapp import annotate

    annotate.output_tensors(node, flatten(named), **kwargs)
    return named


@dataclass(frozen=True)
class StateRef:
    """One persistent value of the pipeline: `path` from `root` (attribute names and container
    keys), exported as the LEAPP state ports `flatten(value, name)`."""

    name: str
    root: Any
    path: tuple
    host: bool = False      # set by the host before each call (an episode-start flag): a graph input, not state
    kind: str = ""          # the kind a host-set number is fed in (`as_host`)

    def get(self):
        value = self.root
        for step in self.path:
            value = _get(value, step)
        return value

    def set(self, value) -> None:
        holder = self.root
        for step in self.path[:-1]:
            holder = _get(holder, step)
        _set(holder, self.path[-1], value)


def _get(holder, step):
    kind, key = step
    return getattr(holder, key) if kind == "attr" else holder[key]


def _set(holder, step, value) -> None:
    kind, key = step
    if kind == "attr":
        setattr(holder, key, value)
    else:
        holder[key] = value


def as_state(value):
    """A Python int/float counter as a 0-d tensor (int64/float64, which do not change the dtype of the
    tensors it meets), a NumPy scalar number as a 0-d array; other values as they are."""
    if is_numpy_number(value):
        return _as_array(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        import torch

        return torch.tensor(value, dtype=torch.int64 if isinstance(value, int) else torch.float64)
    return value


def as_host(value, kind: str = ""):
    """A value the host sets before a call (an episode-start flag) as the graph input it becomes: a
    Python bool or number in the kind its readers take ("numpy": a shape-(1,) array, "numpy-float32" the same
    in float32 for a float, else a 0-d
    tensor; a bool as 0 or 1, which arithmetic and `if` take as the bool), other values as `as_state`
    carries them."""
    if isinstance(value, (bool, int, float)) or is_numpy_number(value):
        integer = isinstance(value, (bool, int)) or type(value).__name__.startswith(("int", "uint", "bool"))
        number = int(value) if integer else float(value)
        if kind in ("numpy", "numpy-float32"):
            import numpy as np

            return np.full(1, number, dtype=np.int64 if integer else np.float32 if kind == "numpy-float32"
                           else np.float64)
        import torch

        return torch.tensor(number, dtype=torch.int64 if integer else torch.float64)
    return as_state(value)


def is_history(value) -> bool:
    """A full `deque(maxlen=N)` of arrays of one shape and dtype: a frame history that shifts by one
    slot per call. It is one state port (the frames stacked), so that the slot the next append evicts
    is not a state input of its own that the graph never reads (LEAPP trims it and then mismatches on
    the state output that takes its place)."""
    if not isinstance(value, collections.deque) or not value or value.maxlen != len(value):
        return False
    first = value[0]
    return all(is_array(v) and tuple(v.shape) == tuple(first.shape) and v.dtype == first.dtype for v in value)


def _stacked(value):
    if any((c.__module__, c.__name__) == ("torch", "Tensor") for c in type(value[0]).__mro__):
        import torch

        return torch.stack(list(value))
    import numpy as np

    return np.stack(list(value))


def _state_flat(value, name: str) -> dict:
    return {name: _stacked(value)} if is_history(value) else flatten(value, name)


def state_leaves(value, name: str) -> dict:
    """The LEAPP state ports of one state value."""
    return _state_flat(as_state(value), name)


def _flat_state(refs) -> tuple[dict, dict]:
    current = {}
    for ref in refs:
        value = ref.get()
        if as_state(value) is not value:
            value = as_state(value)
            ref.set(value)
        current[ref.name] = value
    return current, {name: leaf for ref in refs for name, leaf in _state_flat(current[ref.name], ref.name).items()}


def state_tensors(node: str, refs) -> None:
    """Declare every state value as LEAPP state and store the traced values back where the
    application keeps them (torch tensors are traced in place, arrays and tuples are replaced).
    Values the host sets (`ref.host`) are declared as graph inputs instead."""
    from leapp import annotate

    refs = _host_inputs(node, refs)
    current, flat = _flat_state(refs)
    if not flat:
        return
    traced = iter(_as_tuple(annotate.state_tensors(node, flat), len(flat)))
    for ref in refs:
        value = current[ref.name]
        if is_history(value):      # the history again, each slot a row of the traced stack
            stacked = next(traced)
            ref.set(collections.deque([stacked[i] for i in range(len(value))], maxlen=value.maxlen))
            continue
        new = rebuild(value, traced, ref.name)
        if new is not current[ref.name]:
            ref.set(new)


def _host_inputs(node: str, refs) -> list:
    """Declare the values the host sets before a call (an episode-start flag) as graph inputs and
    store the traced values back; returns the other refs (the state)."""
    from leapp import annotate

    host = [r for r in refs if r.host]
    for ref in host:
        value = ref.get()
        if as_host(value, ref.kind) is not value:
            ref.set(as_host(value, ref.kind))
    current, flat = _flat_state(host)
    if flat:
        traced = iter(_as_tuple(annotate.input_tensors(node, flat), len(flat)))
        for ref in host:
            new = rebuild(current[ref.name], traced, ref.name)
            if new is not current[ref.name]:
                ref.set(new)
    return [r for r in refs if not r.host]


def update_state(node: str, refs) -> None:
    """The state values after the step, as LEAPP's state outputs. Each is passed as a copy: a state
    output that is a state input unchanged (a history shifting by one) must still be its own value
    in the graph, apart from the input."""
    from leapp import annotate

    _, flat = _flat_state([r for r in refs if not r.host])
    if flat:
        annotate.update_state(node, {name: leaf.clone() if hasattr(leaf, "clone") else leaf.copy()
                                     for name, leaf in flat.items()})


def _field(value, selector, where: str):
    """One step into a sent object: a dict key or attribute (a string), or the attribute its class's constructor
    names for that argument position (an int: `JointCommand(header, names, cmd)` position 2 -> `.velocity`)."""
    import inspect

    if isinstance(selector, str):
        if isinstance(value, dict):
            if selector in value:
                return value[selector]
        elif hasattr(value, selector):
            return getattr(value, selector)
        raise RuntimeError(f"{where}: the object sent ({type(value).__name__}) has no field {selector!r}")
    try:
        params = [p for p in inspect.signature(type(value)).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    if selector < len(params) and hasattr(value, params[selector].name):
        return getattr(value, params[selector].name)
    raise RuntimeError(f"{where}: argument {selector} of {type(value).__name__}(...) is stored under no attribute "
                       "of the same name; set SENT_VALUE to the field's name")


def sent_part(args: tuple, kwargs: dict, selectors: tuple, where: str = "the send call"):
    """The step's data in one send call's arguments: `selectors` (the module's SENT_VALUE) is the argument
    (position or keyword), then the fields of the object built for it."""
    head, *fields = selectors or (0,)
    if isinstance(head, int):
        if head >= len(args):
            raise RuntimeError(f"{where} had {len(args)} positional arguments; SENT_VALUE names argument {head}")
        value = args[head]
    else:
        if head not in kwargs:
            raise RuntimeError(f"{where} had no keyword argument {head!r} (SENT_VALUE)")
        value = kwargs[head]
    for selector in fields:
        value = _field(value, selector, where)
    return value


def sent_result(function, sent: tuple[str, ...], selectors: tuple = (0,)):
    """`function` (a method that returns nothing and sends its result out through `self.<path>.<method>(...)`)
    as one that returns the data it sent (`sent_part` with `selectors`): the send method is wrapped on the
    receiving object for the call (everything still goes out), then restored. Raises when the call sent
    nothing."""
    import functools

    *path, method = sent
    where = f"self.{'.'.join(sent)}(...)"

    @functools.wraps(function)
    def call(self, *args, **kwargs):
        holder = self
        for name in path:
            holder = getattr(holder, name)
        original = getattr(holder, method)
        own = method in getattr(holder, "__dict__", {})
        box: list = []

        def capture(*values, **options):
            box.append(sent_part(values, options, selectors, where))
            return original(*values, **options)

        setattr(holder, method, capture)
        try:
            function(self, *args, **kwargs)
        finally:
            if own:
                setattr(holder, method, original)
            else:
                delattr(holder, method)
        if not box:
            raise RuntimeError(f"the step sent nothing through self.{'.'.join(sent)} on this call")
        return box[-1]

    return call
