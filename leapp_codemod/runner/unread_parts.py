"""Non-tensor parts of an argument that change between calls but that the entry never reads (a
message's time stamp or sequence number next to the arrays it carries).

A part that changes cannot be a constant of the export when the computation reads it; one the call
never reads is irrelevant to it. Read, not guessed: on a call where such a part differs from the
first call's, the entry receives a shallow copy of the argument whose class is a subclass of the
original that notes every read of that attribute (and of `__dict__`, through which `vars`, copies or
serialisers would reach it) with the application line that made it; a plain dict's string key is watched
the same way (a dict subclass noting reads of that key, of its values and items, and copies). Only chains of
attributes of plain record objects and string keys of plain dicts (`.stamp`, `.header.stamp`, `['seq']`,
`.meta['id']`) are watched; anything else stays refused as before.
"""
from __future__ import annotations

import copy
import os
import re
import sys
from dataclasses import dataclass, field

_STEP = re.compile(r"\.([A-Za-z_]\w*)|\['([^'\\]*)'\]")
_CHAIN = re.compile(rf"^({_STEP.pattern})+$")
_WHOLE = ("__dict__", "__getstate__", "__reduce__", "__reduce_ex__")
_TOOL = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep    # the leapp_codemod package


@dataclass
class ReadLog:
    """Where the watched attributes were read (file:line of the reading code)."""

    reads: list = field(default_factory=list)


def watchable(part: str) -> bool:
    """Whether a `values.key_difference` part is a chain of attributes and string keys (`.header.stamp`,
    `['seq']`)."""
    return bool(_CHAIN.match(part))


def _steps(part: str) -> list[tuple[str, str]]:
    """`.meta['seq']` -> [("attr", "meta"), ("key", "seq")]."""
    return [("attr", m.group(1)) if m.group(1) is not None else ("key", m.group(2)) for m in _STEP.finditer(part)]


def _shown(path: str) -> str:
    """A file under the working directory relative to it (the application's files), others as they are."""
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


def _note(log: ReadLog) -> None:
    """Note the line of the code that read the value: the first caller outside this module (a part watched on
    an object that already watches another goes through the other's noting method first)."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if not frame.f_code.co_filename.startswith(_TOOL):   # the runner's own copies of the call's result
        log.reads.append(f"{_shown(frame.f_code.co_filename)}:{frame.f_lineno}")


def _noting_class(cls: type, name: str, log: ReadLog) -> type:
    def __getattribute__(self, attr):
        if attr == name or attr in _WHOLE:
            _note(log)
        return super(noting, self).__getattribute__(attr)

    namespace = {"__getattribute__": __getattribute__, "__module__": cls.__module__, "__qualname__": cls.__qualname__}
    noting = type(cls.__name__, (cls,), namespace | {"__slots__": ()})
    return noting


def _noting_dict(logs: dict) -> type:
    """A dict that notes reads of the values of the keys in `logs` ({key: ReadLog}): by key, through its
    values or items, and in copies (`dict(d)` and `{**d}` go through `__getitem__` once `__iter__` is
    overridden). `_noting_logs` keeps `logs` so that another key can be watched on the same dict."""

    def noted(k) -> None:
        if k in logs:
            _note(logs[k])

    class NotingDict(dict):
        __slots__ = ()
        _noting_logs = logs

        def __getitem__(self, k):
            noted(k)
            return dict.__getitem__(self, k)

        def get(self, k, default=None):
            noted(k)
            return dict.get(self, k, default)

        def pop(self, k, *default):
            noted(k)
            return dict.pop(self, k, *default)

        def __iter__(self):
            return dict.__iter__(self)

    def whole(name: str):
        def method(self, *args):
            for log in logs.values():
                _note(log)
            return getattr(dict, name)(self, *args)
        return method

    def __reduce_ex__(self, protocol):      # copied or pickled (by the driver too) as a plain dict
        for log in logs.values():
            _note(log)
        return dict, (list(dict.items(self)),)

    for name in ("values", "items", "copy", "popitem", "__or__"):
        setattr(NotingDict, name, whole(name))
    NotingDict.__reduce_ex__ = __reduce_ex__
    NotingDict.__name__ = NotingDict.__qualname__ = "dict"
    return NotingDict


def watched(value, part: str, log: ReadLog):
    """A shallow copy of `value` that notes reads of the chain `part` (attributes, string keys) in `log`, or
    None when it cannot be made (then the part stays refused)."""
    try:
        return _watched(value, _steps(part), log)
    except Exception:  # noqa: BLE001 - any class may refuse to be copied or subclassed
        return None


def _watched(value, steps: list[tuple[str, str]], log: ReadLog):
    kind, head = steps[0]
    if kind == "key":
        logs = {} if type(value) is dict else vars(type(value)).get("_noting_logs")
        if logs is None or head not in value:
            return None
        if len(steps) == 1:
            return _noting_dict({**logs, head: log})(dict.items(value))
        child = _watched(dict.__getitem__(value, head), steps[1:], log)
        if child is None:
            return None
        twin = type(value)(dict.items(value))       # a noting dict stays one, watching its other keys
        dict.__setitem__(twin, head, child)
        return twin
    twin = copy.copy(value)
    if twin is value or type(twin) is not type(value):
        return None
    if len(steps) > 1:
        child = _watched(getattr(value, head), steps[1:], log)
        if child is None:
            return None
        object.__setattr__(twin, head, child)
        return twin
    object.__setattr__(twin, "__class__", _noting_class(type(value), head, log))   # frozen dataclasses too
    return twin


def watching(signature, args: tuple, kwargs: dict, watch: dict):
    """(args, kwargs, checks) of one call: each argument in `watch` ({name: parts}) replaced by a copy
    noting reads of its changed parts, with (name, part, ReadLog) to look at after the call; None when
    a copy cannot be made."""
    if not watch:
        return args, kwargs, []
    bound = signature.bind(*args, **kwargs)
    checks = []
    for name, parts in watch.items():
        value = bound.arguments[name]
        for part in parts:
            log = ReadLog()
            value = watched(value, part, log)
            if value is None:
                return None
            checks.append((name, part, log))
        bound.arguments[name] = value
    for _, _, log in checks:      # copying a watched copy to watch another part reads it: not the call's read
        log.reads.clear()
    return bound.args, bound.kwargs, checks


def host_read_sites(function, pairs) -> frozenset:
    """The module's SENT_HOST_READS and PASS_THROUGH ((line, input field) in the entry's file) as (absolute
    file, line, field)."""
    import inspect

    code = getattr(inspect.unwrap(function), "__code__", None)
    if code is None or not pairs:
        return frozenset()
    return frozenset((os.path.abspath(code.co_filename), int(line), str(text)) for line, text in pairs)


def host_side(skip: frozenset, name: str, part: str, read: str) -> bool:
    """Whether `read` (file:line) of `name + part` is one of the reads only the host side makes: `skip` holds
    (absolute file, line, `msg.header.stamp`) from the module's SENT_HOST_READS (the arguments of the send
    that stay host side, such as a header built from the input's stamp) and PASS_THROUGH (fields only copied
    into the returned object)."""
    file, _, line = read.rpartition(":")
    if not line.isdigit():
        return False
    chain = f"{name}{part}"
    where = (os.path.abspath(file), int(line))
    return any((f, n) == where and (c == chain or c.startswith((chain + ".", chain + "["))) for f, n, c in skip)


def first_read(checks: list, skip: frozenset = frozenset()) -> tuple[str, str, str] | None:
    """(argument, part, file:line) of the first watched part the call read (the application's own line
    before a library's), or None. Reads `skip` names as host-side (`host_side`) do not count."""
    for name, part, log in checks:
        reads = [r for r in log.reads if not host_side(skip, name, part, r)]
        if reads:
            return name, part, min(reads, key=lambda r: "site-packages" in r)
    return None


def host_only(checks: list, skip: frozenset) -> dict[str, str]:
    """{`packet['seq']`: file:line} of the watched parts the call read only where `skip` says the host side
    reads them (copied into the reply, a send's header): pass-through, not inputs of the export."""
    return {f"{name}{part}": log.reads[0] for name, part, log in checks
            if log.reads and all(host_side(skip, name, part, r) for r in log.reads)}
