"""Intercept the entrypoint while the unmodified driver runs, and record its calls."""
from __future__ import annotations

import collections
import copy
import importlib
import inspect
import sys
import time
import types
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from leapp_codemod import held
from leapp_codemod.boundary import sent_result
from leapp_codemod.runner import runon, unread_parts, values
from leapp_codemod.runner import state_observe as observe
from leapp_codemod.runner.errors import EnoughCalls, RunnerError, where


@dataclass(frozen=True)
class Entry:
    module: types.ModuleType
    qualname: str
    owner: Any                # the class for a method, the module for a function
    attr: str
    function: Callable        # the plain original function (self first for methods)
    raw: Any                  # what was stored in owner.__dict__ (staticmethod etc. kept)
    is_method: bool
    signature: inspect.Signature


def resolve_entry(entry: str, sent: tuple[str, ...] = (), sent_value: tuple = (0,)) -> Entry:
    """The entry `module:qualname`; with `sent` (the integration module's SENT), a method that returns nothing
    stands for one that returns the data it sends out, found in the send call by `sent_value` (SENT_VALUE;
    `boundary.sent_result`)."""
    module_name, _, qualname = entry.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - any import failure of the app is reported the same way
        raise RunnerError(f"cannot import {module_name}: {type(exc).__name__}: {exc}", "import") from None
    parts = qualname.split(".")
    owner: Any = module
    for part in parts[:-1]:
        owner = getattr(owner, part, None)
        if owner is None:
            raise RunnerError(f"{module_name} has no {qualname}", "import")
    attr = parts[-1]
    raw = vars(owner).get(attr) if isinstance(owner, type) else getattr(owner, attr, None)
    if raw is None:
        raise RunnerError(f"{module_name} has no {qualname}", "import")
    is_method = isinstance(owner, type) and not isinstance(raw, (staticmethod, classmethod))
    function = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
    if not callable(function):
        raise RunnerError(f"{entry} is not callable", "import")
    if sent and is_method:
        function = sent_result(function, tuple(sent), tuple(sent_value))
    return Entry(module, qualname, owner, attr, function, raw, is_method, inspect.signature(function))


@dataclass
class Call:
    index: int
    inputs: dict                      # parameter name -> plain copy
    outputs: Any = None               # plain copy of the return value
    state_before: dict = field(default_factory=dict)    # path -> copy of every reachable value
    state_after: dict = field(default_factory=dict)
    declared_before: dict = field(default_factory=dict)  # STATE name -> copy (what recordings store)
    draws: tuple = ()                 # (function, site, value, kind) of the draws and reads inside the call (runner.draws)
    lines: dict = field(default_factory=dict)   # absolute path -> application lines this call executed (linecover)


@dataclass
class PatchCall:
    patch: Any
    args: tuple
    kwargs: dict


@dataclass
class Recorder:
    entry: Entry
    input_names: tuple[str, ...]
    static_names: tuple[str, ...]
    n_trace: int
    n_check: int
    declared: dict = field(default_factory=dict)    # the module's STATE: name -> (owner class, attribute)
    traced: list[Call] = field(default_factory=list)
    checks: list[Call] = field(default_factory=list)
    patch_calls: list[PatchCall] = field(default_factory=list)
    calls_seen: int = 0
    instance: Any = None
    snapshot: Any = None
    snapshot_error: str = ""
    statics: dict = field(default_factory=dict)
    state_refs: dict = field(default_factory=dict)  # STATE name -> (owning object, attribute) on the instance
    constants: dict = field(default_factory=dict)   # argument -> its non-tensor parts (checked equal)
    roots: dict = field(default_factory=dict)       # label -> object the step can reach (observed)
    initial: dict = field(default_factory=dict)     # path -> copy of the value before the first call
    changed: dict = field(default_factory=dict)     # path -> copy of the value after the call that changed it
    lengths: dict = field(default_factory=dict)     # path -> length of a changed container after each recorded call
    sizes: list = field(default_factory=list)       # {path: length} of every container walked through, before the
                                                    # first recorded call and after each one (see stateplan.holders)
    error: RunnerError | None = None
    on_done: Callable[[], None] | None = None     # runs inside the driver's last needed call
    layout: str = ""                              # input shapes/dtypes of the first call
    other_layouts: int = 0                        # calls skipped because their shapes differ
    other_instances: int = 0                      # calls on another instance than the first one
    twin_calls: list[PatchCall] = field(default_factory=list)   # patched helpers' arguments in traced calls
    originals: dict = field(default_factory=dict)               # (module, name) -> the original function
    n_twin: int = 5                                             # recorded calls per patched helper
    twin_call_counts: dict = field(default_factory=dict)        # id(patch) -> calls while recording traced calls
    cover: Any = None                       # a LineCover: application lines executed during the recorded calls
    later: list[Call] = field(default_factory=list)   # calls sampled across the rest of the run (see sample_later)
    keep_going: bool = False                # after the export, let the driver run on and sample its calls
    later_every: int = 1                    # sample every k-th later call (doubles when `later_cap` is reached)
    later_cap: int = 24
    later_budget: float = runon.BUDGET     # seconds the driver may run on after the export
    later_calls: int = 0                    # calls seen after the export
    draws: Any = None                       # a runner.draws.Draws: draws and reads inside the step become inputs
    held: dict = field(default_factory=dict)  # input -> dotted path of a field the entry reads from its instance
    unread_parts: set = field(default_factory=set)  # changing non-tensor argument parts the calls never read
    host_reads: frozenset = frozenset()   # (file, line, input field) only the send's host-side arguments read,
                                          # or only copied into the returned object (PASS_THROUGH)
    pass_through: dict = field(default_factory=dict)   # changing argument part -> where only the host side read it
    _later_deadline: float = 0.0
    _later_n: list = field(default_factory=list)       # the later-call number of each sample
    _seen: set = field(default_factory=set)
    _in_check: bool = False
    _in_trace: bool = False

    @property
    def done(self) -> bool:
        return len(self.traced) >= self.n_trace and len(self.checks) >= self.n_check

    def _bind(self, args, kwargs) -> dict:
        bound = self.entry.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        named = dict(bound.arguments)
        if self.entry.is_method:
            named.pop(next(iter(self.entry.signature.parameters)))
        return named

    def _changing(self, name: str, value, part: str, read_at: str = "") -> RunnerError:
        return RunnerError(f"argument {name!r} of {self.entry.qualname} holds values that are not tensors "
                           f"or arrays and change between calls"
                           f"{f' (its part {name}{part})' if part else ''} ({self.constants[name][1]} then "
                           f"{values.constant_text(value)}){f', read at {read_at}' if read_at else ''}; they "
                           "cannot be constants of the exported model", "inputs")

    def _check_inputs(self, named: dict) -> dict:
        """Refuses arguments whose non-tensor parts change between calls; returns {argument: parts}
        of the changed parts that are attribute chains, refused after the call only if it reads them
        (runner.unread_parts)."""
        watch: dict = {}
        for name in self.input_names:
            if name not in named:
                raise RunnerError(f"entry parameter {name!r} from the integration module is not a parameter of "
                                  f"{self.entry.qualname}; regenerate the module", "inputs")
            key = values.constant_key(named[name])
            if self.constants.get(name, (key,))[0] != key:
                parts = values.key_differences(self.constants[name][0], key)
                if parts and all(map(unread_parts.watchable, parts)):
                    watch[name] = parts      # refused after the call only if the call reads one of them
                else:
                    raise self._changing(name, named[name], values.key_difference(self.constants[name][0], key))
            self.constants.setdefault(name, (key, values.constant_text(named[name]), values.has_constants(named[name])))
        for name in self.static_names:
            if name in self.statics and repr(self.statics[name]) != repr(named.get(name)):
                raise RunnerError(f"parameter {name!r} of {self.entry.qualname} changes between calls "
                                  f"({self.statics[name]!r} then {named.get(name)!r}); it cannot be a constant "
                                  "of the exported model", "inputs")
            self.statics.setdefault(name, named.get(name))
        return watch


    def _first_call(self, instance) -> None:
        if instance is not None:
            self.instance = instance
            try:
                self.snapshot = copy.deepcopy(instance)
            except BaseException as exc:  # noqa: BLE001 - any object may refuse to be copied (RecursionError too)
                self.snapshot_error = where(exc)
            self.roots = {"self": instance, self.entry.module.__name__: self.entry.module}
        else:
            self.instance = self.entry.module
            self.roots = {self.entry.module.__name__: self.entry.module}
        sizes: dict = {}
        self.initial = {path: values.plain(v) for path, v in observe.walk(self.roots, sizes=sizes)[0].items()}
        self.sizes.append(sizes)
        try:
            self.state_refs = find_state(self.instance, self.declared) if self.declared else {}
        except RunnerError:
            self.state_refs = {}        # declared state that is not there is reported by the state plan

    @contextmanager
    def _drawing(self, record: Call):
        """Keep the random draws the call makes (when the run carries them out as inputs)."""
        if self.draws is None:
            yield
            return
        with self.draws.recording() as got:
            yield
        record.draws = tuple(got)

    def _observed_call(self, args, kwargs, record: Call):
        """Run the entry, noting every reachable value the call changed."""
        before = observe.fingerprints(self.roots)
        with self._drawing(record):
            if self.cover is not None:
                with type(self.cover)(self.cover.roots) as one:
                    result = self.entry.function(*args, **kwargs)
                self.cover.merge(one)
                record.lines = one.to_json()
            else:
                result = self.entry.function(*args, **kwargs)
        sizes: dict = {}
        now, objects = observe.walk(self.roots, sizes=sizes)
        self.sizes.append(sizes)
        after = ({path: observe.fingerprint(v) for path, v in now.items()}, objects)
        for path in observe.changed(before, after):
            self.changed.setdefault(path, values.plain(now[path]))
            if isinstance(now[path], (list, tuple, collections.deque)):
                self.lengths.setdefault(path, []).append(len(now[path]))
        return result

    def call(self, args: tuple, kwargs: dict):
        """Run the original entry for the driver, recording what is needed."""
        if self.done and self.keep_going and self.error is None:
            return self.sample_later(args, kwargs)
        if self.done or self.error is not None:
            raise EnoughCalls()
        self.calls_seen += 1
        named = self._bind(args, kwargs)
        try:
            watch = self._check_inputs(named)
        except RunnerError as exc:
            self.error = exc
            raise EnoughCalls() from None
        watching = unread_parts.watching(self.entry.signature, args, kwargs, watch)
        if watching is None:
            name = next(iter(watch))
            self.error = self._changing(name, named[name], watch[name][0])
            raise EnoughCalls()
        args, kwargs, checks = watching
        result = self._recorded_call(args, kwargs, named)
        read = unread_parts.first_read(checks, self.host_reads)
        if read is not None:
            self.error = self._changing(read[0], named[read[0]], read[1], read[2])
            raise EnoughCalls()
        for chain, site in unread_parts.host_only(checks, self.host_reads).items():
            self.pass_through.setdefault(chain, site)
        self.unread_parts.update({f"{name}{part}" for name, part, _ in checks})
        return result

    def _recorded_call(self, args: tuple, kwargs: dict, named: dict):
        inputs = {n: named[n] for n in self.input_names}
        instance = args[0] if self.entry.is_method else None
        try:
            inputs |= self._held(instance)
        except RunnerError as exc:
            self.error = exc
            raise EnoughCalls() from None
        key = values.digest(values.flatten(inputs))
        if instance is not None and self.instance is not None and instance is not self.instance:
            self.other_instances += 1      # only the first instance's calls are traced and checked
            return self.entry.function(*args, **kwargs)
        if self.instance is None:
            self._first_call(instance)
        layout = values.layout(inputs)
        self.layout = self.layout or layout
        fresh = key not in self._seen
        self._seen.add(key)
        if fresh and layout != self.layout:
            self.other_layouts += 1
            return self.entry.function(*args, **kwargs)
        if fresh and len(self.traced) < self.n_trace:
            record = Call(self.calls_seen, values.plain(inputs))
            self.traced.append(record)
            self._in_trace = True
            try:
                result = self._observed_call(args, kwargs, record)
            finally:
                self._in_trace = False
            record.outputs = values.plain(result)
            return result
        if fresh and len(self.checks) < self.n_check:
            record = Call(self.calls_seen, values.plain(inputs), state_before=self.read_reachable(),
                          declared_before=read_state(self.state_refs))
            self._in_check = True
            try:
                result = self._observed_call(args, kwargs, record)
            finally:
                self._in_check = False
            record.outputs = values.plain(result)
            record.state_after = self.read_reachable()
            self.checks.append(record)
            if self.done:
                if self.on_done is not None:
                    self.on_done()
                if not self.keep_going:
                    raise EnoughCalls()
                self._later_deadline = time.monotonic() + self.later_budget
            return result
        return self.entry.function(*args, **kwargs)

    def sample_later(self, args: tuple, kwargs: dict):
        """After the export the driver runs on (until it ends, or for `later_budget` seconds): every
        k-th call on the first instance is recorded with its state, k doubling whenever `later_cap`
        samples are held (every other one is then dropped), so the samples span the whole run."""
        if time.monotonic() > self._later_deadline:
            raise EnoughCalls()
        self.calls_seen += 1
        self.later_calls += 1
        instance = args[0] if self.entry.is_method else None
        named = self._bind(args, kwargs)
        inputs = {n: named[n] for n in self.input_names if n in named}
        if instance is self.instance and self.held:
            try:
                inputs |= self._held(instance)
            except RunnerError:
                return self.entry.function(*args, **kwargs)
        if (instance is not None and instance is not self.instance) or set(inputs) != set(self.traced[0].inputs if self.traced else inputs) \
                or self.later_calls % self.later_every or values.layout(inputs) != self.layout:
            return self.entry.function(*args, **kwargs)
        record = Call(self.calls_seen, values.plain(inputs), state_before=self.read_reachable())
        with self._drawing(record):
            if self.cover is not None:     # which arm each branch took on this call (runner.branch_arms)
                with type(self.cover)(self.cover.roots) as one:
                    result = self.entry.function(*args, **kwargs)
                record.lines = one.to_json()
            else:
                result = self.entry.function(*args, **kwargs)
        record.outputs = values.plain(result)
        record.state_after = self.read_reachable()
        self.later.append(record)
        self._later_n.append(self.later_calls)
        if len(self.later) >= self.later_cap:
            self.later_every *= 2
            kept = [i for i, n in enumerate(self._later_n) if n % self.later_every == 0]
            self.later = [self.later[i] for i in kept]
            self._later_n = [self._later_n[i] for i in kept]
        return result

    def _held(self, instance) -> dict:
        """The values of the fields the entry reads from objects it holds (see leapp_codemod.held)."""
        if not self.held or instance is None:
            return {}
        try:
            return held.read(instance, self.held)
        except held.HeldError as exc:
            raise RunnerError(f"{self.entry.qualname}: {exc}", "inputs") from None

    def read_reachable(self) -> dict:
        return {path: values.plain(v) for path, v in observe.reachable(self.roots).items()}

    def patch_call(self, patch, original: Callable, args: tuple, kwargs: dict):
        if self._in_check and sum(1 for c in self.patch_calls if c.patch is patch) < self.n_check:
            _append_copy(self.patch_calls, patch, args, kwargs)
        if self._in_trace:
            self.twin_call_counts[id(patch)] = self.twin_call_counts.get(id(patch), 0) + 1
        if self._in_trace and sum(1 for c in self.twin_calls if c.patch is patch) < self.n_twin:
            _append_copy(self.twin_calls, patch, args, kwargs)
        return original(*args, **kwargs)


def _append_copy(calls: list, patch, args: tuple, kwargs: dict) -> None:
    try:
        calls.append(PatchCall(patch, copy.deepcopy(args), copy.deepcopy(kwargs)))
    except Exception:  # noqa: BLE001 - an argument that cannot be copied is just not checked
        pass


@contextmanager
def intercepted(entry: Entry, recorder: Recorder):
    """Replace the entry on its class, or in its module and every module that imported it by name."""
    original = entry.function

    def wrapper(*args, **kwargs):
        return recorder.call(args, kwargs)

    wrapper.__wrapped__ = original
    wrapper.__name__ = getattr(original, "__name__", "entry")
    wrapper.__qualname__ = getattr(original, "__qualname__", wrapper.__name__)
    replaced: list[tuple[Any, str, Any]] = []
    try:
        if isinstance(entry.owner, type):
            new = type(entry.raw)(wrapper) if isinstance(entry.raw, (staticmethod, classmethod)) else wrapper
            replaced.append((entry.owner, entry.attr, entry.raw))
            setattr(entry.owner, entry.attr, new)
        else:
            for mod in list(sys.modules.values()):
                for name, value in list(getattr(mod, "__dict__", {}).items()):
                    if value is original:
                        replaced.append((mod, name, value))
                        setattr(mod, name, wrapper)
        yield
    finally:
        for owner, name, value in reversed(replaced):
            setattr(owner, name, value)


@contextmanager
def patch_recorders(patches, recorder: Recorder):
    """Record the arguments the pipeline passes to each patched function during check calls."""
    replaced = []
    try:
        for patch in patches:
            try:
                module = importlib.import_module(patch.module)
            except Exception as exc:  # noqa: BLE001 - any import failure is reported the same way
                raise RunnerError(f"FunctionPatch module {patch.module} cannot be imported: {exc}", "import") from None
            if not callable(getattr(module, patch.name, None)):
                raise RunnerError(f"FunctionPatch target {patch.module}.{patch.name} does not exist or is not "
                                  "callable; regenerate the integration module", "import")
            original = getattr(module, patch.name)

            def make(p=patch, orig=original):
                def record(*args, **kwargs):
                    return recorder.patch_call(p, orig, args, kwargs)
                return record

            replaced.append((module, patch.name, original))
            recorder.originals[(patch.module, patch.name)] = original
            setattr(module, patch.name, make())
        yield
    finally:
        for module, name, original in reversed(replaced):
            setattr(module, name, original)


@contextmanager
def replaced(patches):
    """While the block runs, each patched name is bound to its replacement on every call, traced or not;
    the bindings in place before (the runner's recorders, LEAPP's FunctionPatch) are put back. The state
    probe and the traced calls run so: LEAPP runs the original on a re-entry sample (a value it does not
    trace), so a state kind only the replacement takes (a shape-(1,) phase a twin joins) would fail there.
    The replacements were checked against the originals before tracing, and the export is validated
    against the application's own outputs."""
    saved = []
    try:
        for patch in patches:
            module = importlib.import_module(patch.module)
            saved.append((module, patch.name, getattr(module, patch.name)))
            setattr(module, patch.name, _bound(patch.replacement, saved[-1][2]))
        yield
    finally:
        for module, name, value in reversed(saved):
            setattr(module, name, value)


def _bound(replacement: Callable, before: Callable) -> Callable:
    """`replacement`, except inside itself: an adapter that calls the library function it replaces (on a
    value it does not trace) reaches the binding in place before, not itself again."""
    inside: list = []

    def bound(*args, **kwargs):
        if inside:
            return before(*args, **kwargs)
        inside.append(True)
        try:
            return replacement(*args, **kwargs)
        finally:
            inside.pop()

    bound.__wrapped__ = replacement
    return bound


def find_instances(roots: dict, cls: type, limit: int = 20000) -> list[tuple]:
    """Paths (root label, *steps) of every `cls` object reachable from the roots, breadth first."""
    seen: set[int] = set()
    queue = [((label,), root) for label, root in roots.items()]
    found = []
    while queue and len(seen) < limit:
        path, obj = queue.pop(0)
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, cls):
            found.append(path)
            continue
        for step, child in observe.children(obj):
            if not isinstance(child, (str, bytes, int, float, bool, type(None))):
                queue.append((path + (step,), child))
    return found


def read_state(refs: dict) -> dict:
    return {name: values.plain(getattr(owner, attr)) for name, (owner, attr) in refs.items()}


def owner_class(owner: str) -> type | None:
    """The class named `module:Class.Nested`, or None when it cannot be imported."""
    module_name, _, class_name = owner.partition(":")
    try:
        cls = importlib.import_module(module_name)
        for part in class_name.split("."):
            cls = getattr(cls, part)
    except (ImportError, AttributeError):
        return None
    return cls if isinstance(cls, type) else None


def find_state(root: Any, state: dict[str, tuple[str, str]]) -> dict:
    """name -> (owning object, attribute) for every declared state, searched from `root`."""
    refs = {}
    for name, (owner, attr) in state.items():
        cls = owner_class(owner)
        if cls is None:
            raise RunnerError(f"state {name!r}: cannot import its owner {owner}", "state")
        holder = _find_instance(root, cls)
        if holder is None:
            raise RunnerError(f"state {name!r}: no {owner} object is reachable from the pipeline's instance", "state")
        if not hasattr(holder, attr):
            raise RunnerError(f"state {name!r}: {owner} object has no attribute {attr!r}", "state")
        refs[name] = (holder, attr)
    return refs


def _find_instance(root: Any, cls: type, limit: int = 20000):
    seen: set[int] = set()
    queue = [root]
    while queue and len(seen) < limit:
        obj = queue.pop(0)
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, cls):
            return obj
        if isinstance(obj, types.ModuleType):
            children = [v for v in vars(obj).values() if not isinstance(v, (types.ModuleType, type))
                        and not callable(v)]
        elif isinstance(obj, dict):
            children = list(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            children = list(obj)
        elif hasattr(obj, "__dict__") and not isinstance(obj, type):
            children = list(vars(obj).values())
        else:
            children = []
        queue.extend(c for c in children if not isinstance(c, (str, bytes, int, float, bool, type(None))))
    return None
