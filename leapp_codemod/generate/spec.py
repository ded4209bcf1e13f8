"""From a ScanResult and the application's source to an IntegrationSpec: everything the
template needs, as plain data."""
from __future__ import annotations

import ast
import os
import textwrap
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from pathlib import Path

from leapp_codemod.boundary import fresh_port
from leapp_codemod.knowledge.categories import (
    LIBRARY_CATEGORIES,
    PATCHABLE_CATEGORIES,
)
from leapp_codemod.knowledge.leapp import EXPORTERS
from leapp_codemod.analysis.inline.range import parse_inline_entry
from leapp_codemod.generate.inline_spec import DRIVER_MAIN, STATE_OWNER as INLINE_STATE_OWNER
from leapp_codemod.generate.inline_spec import InlineSpecError, carried_names, inline_entry_source, inline_graph_name
from leapp_codemod.generate.adapters import domain, torch_adapter
from leapp_codemod.generate.extras import ExtrasError, build_extras
from leapp_codemod.generate.literals import default_graph_name, line_text_literal, pystr, snake, tuple_literal
from leapp_codemod.generate.sent import sent_literals
from leapp_codemod.generate.derive import helper_sources, library_targets, make_twin
from leapp_codemod.analysis.model.fresh_objects import without_fresh_objects
from leapp_codemod.generate.classify import classify
from leapp_codemod.generate.held_inputs import filled_outside, held_inputs, no_inputs_hint, served_outside
from leapp_codemod.generate.source_info import EntrySource, SourceError, entry_source, import_root, module_file
from leapp_codemod.generate.sources import Sources
from leapp_codemod.generate.twin import Blocked
from leapp_codemod.model import Finding, PatchTarget, ScanResult, StateAttr
from leapp_codemod.source.guards import guard_in

if TYPE_CHECKING:  # pragma: no cover
    from leapp_codemod.analysis.model.project import Project


@dataclass(frozen=True)
class Options:
    app: Path
    entry: str
    output: Path
    driver: Path | None = None
    graph: str | None = None
    export_with: str = "onnx"
    backend_params: tuple[tuple[str, object], ...] = ()   # --backend-param KEY=VALUE, parsed
    semantics: bool = False                               # --semantics
    split: tuple[str, ...] = ()                           # --split NAME=MODULE:FUNCTION
    split_reason: str | None = None                       # --reason
    driver_args: tuple[str, ...] = ()                     # --driver-args, split as the shell would
    driver_env: tuple[tuple[str, str], ...] = ()          # --driver-env NAME=VALUE


@dataclass(frozen=True)
class StateSpec:
    name: str
    owner: str
    attr: str
    kind: str
    where: str


@dataclass(frozen=True)
class ReplacementSpec:
    fn_name: str
    signature: str
    doc: str
    comment_lines: tuple[str, ...]
    body_lines: tuple[str, ...]
    is_stub: bool
    source: str = ""        # a complete definition (rewritten helper) used instead of the parts above
    imports: tuple[str, ...] = ()
    casts_unsigned: bool = False
    helpers: tuple[str, ...] = ()   # twin_* helpers a twin calls


@dataclass(frozen=True)
class PatchSpec:
    module: str
    name: str
    fn_name: str
    original: str
    hazards: tuple[str, ...]

    @property
    def hazards_literal(self) -> str:
        return tuple_literal(self.hazards)


@dataclass(frozen=True)
class IntegrationSpec:
    entry: str
    entry_short: str
    is_method: bool
    file_name: str
    app_root: str
    driver: str | None
    graph: str
    node: str
    export_with: str
    inputs: tuple[str, ...]
    static_params: tuple[str, ...]
    params: tuple[str, ...]
    kwonly: frozenset[str]
    outputs_expr: str
    sent: Any       # generate.sent.SentLiterals: SENT and what goes with it (None when the entry returns its result)
    state: tuple[StateSpec, ...]
    replacements: tuple[ReplacementSpec, ...]
    patches: tuple[PatchSpec, ...]
    unresolved: tuple[str, ...]
    host_runtime: tuple[str, ...]
    notes: tuple[str, ...]
    extra_imports: tuple[str, ...]
    app_imports: tuple[str, ...]
    twin_helpers: str = ""      # source of the twin_* helpers the twins call
    inline: bool = False        # the entry is a statement range of the driver (FILE:START-END)
    extras: Any = None          # backend params, semantics, Warp setup, split (generate/extras.py)
    left_out: tuple[str, ...] = ()   # I/O and shape-specialized code left out of / baked into the export
    driver_args: tuple[str, ...] = ()            # DRIVER_ARGS
    driver_env: tuple[tuple[str, str], ...] = ()  # DRIVER_ENV
    held: tuple = ()            # HeldInput: fields of objects the entry holds read as inputs (HELD)
    pass_through: str = ""      # PASS_THROUGH: ((line, input field), ...) only copied into the returned object

    @property
    def driver_args_literal(self) -> str:
        return tuple_literal(self.driver_args)

    @property
    def driver_env_literal(self) -> str:
        return "{" + ", ".join(f"{pystr(k)}: {pystr(v)}" for k, v in self.driver_env) + "}"

    @property
    def unresolved_lines(self) -> list[str]:
        return [line for item in self.unresolved for line in _comment_lines(item)]

    @property
    def host_runtime_lines(self) -> list[str]:
        return [line for item in self.host_runtime for line in _comment_lines(item)]

    @property
    def boundary_casts(self) -> bool:
        return any(r.casts_unsigned for r in self.replacements)

    @property
    def driver_literal(self) -> str:
        return "None" if self.driver is None else pystr(self.driver)

    @property
    def inputs_literal(self) -> str:
        return tuple_literal(self.inputs)

    @property
    def static_literal(self) -> str:
        return tuple_literal(self.static_params)

    @property
    def inputs_dict(self) -> str:
        items = [f'"{n}": {n}' for n in self.inputs]
        flat = "{" + ", ".join(items) + "}"
        if len(flat) <= 60:
            return flat
        return "{\n" + "".join(f"        {i},\n" for i in items) + "    }"

    @property
    def signature(self) -> str:
        return "".join(f"{p}, " for p in self.params)

    @property
    def call_args(self) -> str:
        return ", ".join(f"{p}={p}" if p in self.kwonly else p for p in self.params)


def _comment_lines(item: str) -> list[str]:
    """One finding as comment text: the first line, then continuation lines indented further."""
    return textwrap.wrap(item, 92, initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False)


class SpecError(Exception):
    """The integration cannot be generated (message names the file)."""


def _state_specs(state: list[StateAttr], taken: set[str], entry_owner: str) -> tuple[StateSpec, ...]:
    seen: dict[tuple[str, str], StateAttr] = {}
    for s in state:
        seen.setdefault((s.owner, s.attr), s)
    specs = []
    used = set(taken)
    for (owner, attr), s in sorted(seen.items()):
        name = attr if owner == entry_owner and attr not in used else f"{snake(owner.split(':')[-1])}_{attr}"
        name = fresh_port(name, used, "_state")
        used.add(name)
        specs.append(StateSpec(name, owner, attr, s.kind, f"{s.path}:{s.line}"))
    return tuple(specs)


def _app_function_replacement(sources: Sources, function: str, fn_name: str, hazards: list[str],
                              app_path_for: dict[str, str], blocked: Blocked | None = None) -> ReplacementSpec:
    module, _, qualname = function.partition(":")
    src = sources.function(module, qualname)
    args = src.node.args
    signature = ast.unparse(_literal_defaults(args))
    lines = src.text.splitlines()[src.node.lineno - 1: src.node.end_lineno]
    rel = app_path_for.get(module, src.path.name)
    comment = []
    if blocked is not None:
        comment += textwrap.wrap(f"No traceable twin was generated: {rel}:{blocked.line or src.node.lineno}: "
                                 f"{blocked.reason}.", 92, break_on_hyphens=False)
    comment += [f"Original ({rel}:{src.node.lineno}), not traceable as written:"]
    comment += ["    " + ln for ln in _dedent(lines)]
    comment += ["Write the same computation with torch/NumPy operations LEAPP traces (no .item(),",
                "Python branches on tensor values, or untraced library calls), same dtypes as the original."]
    return ReplacementSpec(fn_name=fn_name, signature=signature,
                           doc=f"Traceable replacement for {function}.", comment_lines=tuple(comment),
                           body_lines=("raise NotImplementedError(STUB)",), is_stub=True)


def _literal_defaults(args: ast.arguments) -> ast.arguments:
    """The same parameters; defaults that are not literals become None (they live in the app module)."""
    def fix(d):
        if d is None:
            return None
        try:
            ast.literal_eval(d)
            return d
        except (ValueError, TypeError, SyntaxError):
            return ast.Constant(None)
    return ast.arguments(posonlyargs=args.posonlyargs, args=args.args, vararg=args.vararg,
                         kwonlyargs=args.kwonlyargs, kw_defaults=[fix(d) for d in args.kw_defaults],
                         kwarg=args.kwarg, defaults=[fix(d) for d in args.defaults])


def _dedent(lines: list[str]) -> list[str]:
    indent = min((len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()), default=0)
    return [ln[indent:].rstrip() for ln in lines]


def _library_replacement(function: str, fn_name: str, hazards: list[str]) -> ReplacementSpec:
    registered = torch_adapter(function)
    if registered is not None:
        return ReplacementSpec(
            fn_name=fn_name, signature="*args, **kwargs",
            doc=f"{function} as the torch adapter {registered!r} of leapp_codemod.adapters (faithful on "
                f"{domain(registered)}; raises ValueError outside it).",
            comment_lines=(),
            body_lines=("from leapp_codemod.adapters import ADAPTERS", "",
                        f"return ADAPTERS[{pystr(registered)}].function(*args, **kwargs)"),
            is_stub=False)
    where = ", ".join(dict.fromkeys(h.split(" ")[0] for h in hazards))
    comment = textwrap.wrap(f"No torch adapter in leapp_codemod.adapters for {function}, called on pipeline data "
                            f"at {where}.", 92, break_on_hyphens=False)
    return ReplacementSpec(fn_name=fn_name, signature="*args, **kwargs",
                           doc=f"Traceable replacement for {function} (a library function LEAPP cannot trace).",
                           comment_lines=(*comment, "Write the same computation with operations LEAPP traces, "
                                                    "same dtypes."),
                           body_lines=("raise NotImplementedError(STUB)",), is_stub=True)


RESERVED = frozenset({
    "annotate", "boundary", "copy", "importlib", "sys", "Path", "_import_root", "dataclass", "Any", "Callable",
    "ENTRY", "SENT", "APP_ROOT", "DRIVER", "DRIVER_ARGS", "DRIVER_ENV", "GRAPH", "NODE", "EXPORT_WITH", "INPUTS", "STATIC", "STATE", "HOST_RUNTIME",
    "LEFT_OUT", "named_outputs", "read_state", "step", "write_state",
    "STUB", "Patch", "PATCHES", "function_patches", "patch_parity", "annotations", "ADAPTERS",
    "twin_is_tensor", "twin_scalar", "twin_min", "twin_max", "twin_where", "twin_python_dtype", "twin_full",
    "twin_tensor", "twin_numpy_scalar", "twin_zip", "twin_cond", "twin_unpack", "twin_array", "twin_take", "twin_item", "twin_vector",
    "BACKEND_PARAMS", "BACKEND_PARAM_KEYS", "backend_params", "WARP", "EXPORTERS", "WARP_MIN_TRACES", "init_warp",
    "JOINT_ORDER", "XYZ", "INPUT_SEMANTICS", "OUTPUT_SEMANTICS", "RAW_TENSORS", "described", "InputKindEnum",
    "OutputKindEnum", "SENT_VALUE", "SENT_HOST_READS", "PASS_THROUGH",
})


def _all_covered(function: str, findings: list[Finding], covered: set[int]) -> bool:
    inside = [i for i, f in enumerate(findings) if f.function == function]
    return bool(inside) and all(i in covered for i in inside)


def _is_app_function(root: Path, function: str) -> bool:
    return _is_app_module(root, function.partition(":")[0])


def _is_app_module(root: Path, module: str) -> bool:
    try:
        module_file(root, module)
    except SourceError:
        return False
    return True


def _rel(path: Path, start: Path) -> str:
    return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()


def _extras(scan: ScanResult, opts: Options, root: Path, entry: EntrySource, inputs: tuple[str, ...],
            sources: Sources):
    try:
        return build_extras(scan, opts, root, entry, inputs, sources)
    except ExtrasError as exc:
        raise SpecError(str(exc)) from None


@dataclass(frozen=True)
class _Entry:
    """The entry as the integration calls it: its source, names and the state an inline range carries."""
    source: EntrySource
    module: str
    qualname: str
    inline: Any
    carried: tuple[StateSpec, ...]
    opts: Options


def _read_entry(scan: ScanResult, opts: Options, sources: Sources) -> _Entry:
    if ":" not in opts.entry:
        raise SpecError(f"--entry must be MODULE:QUALNAME, got {opts.entry!r}")
    if opts.export_with not in EXPORTERS:
        raise SpecError(f"--export-with must be one of {', '.join(EXPORTERS)}")
    module, _, qualname = opts.entry.partition(":")
    inline = parse_inline_entry(opts.entry)
    carried: tuple[StateSpec, ...] = ()
    if inline:
        module = scan.entry.module if scan.entry else ""
        try:
            entry, rng = inline_entry_source(inline, module)
        except InlineSpecError as exc:
            raise SpecError(str(exc)) from None
        qualname = entry.qualname
        carried = tuple(StateSpec(n, INLINE_STATE_OWNER, s, "carried", f"{inline.file}:{inline.start}")
                        for n, s in carried_names(rng, entry))
        if opts.driver is not None and opts.driver.resolve() != Path(inline.file).resolve():
            raise SpecError(f"--entry {opts.entry}: an inline entry is a range of the driver script, not of "
                            f"{opts.driver}")
        opts = replace(opts, driver=Path(inline.file))
    else:
        try:
            entry = entry_source(sources.function(module, qualname), module, qualname)
        except SourceError as exc:
            raise SpecError(str(exc)) from None
    return _Entry(entry, module, qualname, inline, carried, opts)


def _without_raise_only_checks(scan: ScanResult, sources: Sources) -> tuple[ScanResult, list[str]]:
    """The scan without its tensor-branch findings at checks whose other side only raises (`if
    torch.isnan(x).any(): raise ...`): they compute nothing, so the traced side is the side every
    accepted input takes and the function needs no replacement for them (see source/guards.py).
    Returns the scan and one note per such check."""
    notes, kept = [], []
    for f in scan.findings:
        tree = sources.tree_at(f.path) if f.category == "tensor-branch" else None
        guard = guard_in(tree, f.line) if tree is not None else ""
        if guard:
            notes.append(f"{f.path}:{f.line}: `{guard}` only raises: a check that restricts nothing (the traced side "
                         "is the side every accepted input takes), so it needs no replacement")
        else:
            kept.append(f)
    if not notes:
        return scan, []
    patched = {f.function for f in kept if f.category in PATCHABLE_CATEGORIES}
    return replace(scan, findings=kept, patch_targets=[t for t in scan.patch_targets if t.function in patched]), notes


def _patch_targets(scan: ScanResult) -> tuple[dict[str, list[PatchTarget]], set[int]]:
    """Functions to replace with the bindings to patch for each, and the findings a library patch covers.
    Library calls with a known equivalent are patched where they are looked up; a helper the scan would
    patch as a whole is dropped when every hazard in it is such a call."""
    derived: list[PatchTarget] = []
    lib_covered: set[int] = set()
    helpers = {t.function for t in scan.patch_targets}
    for i, f in enumerate(scan.findings):
        if f.category in LIBRARY_CATEGORIES:
            # inside a helper that gets a twin, a call without an adapter refuses the twin (its stub names
            # the line); elsewhere (the entry itself) the call gets a stub of its own
            found = library_targets(scan, f, stubs=f.function not in helpers)
            if found:
                derived.extend(found)
                lib_covered.add(i)
    targets_in = [t for t in scan.patch_targets
                  if not _all_covered(t.function, scan.findings, lib_covered)] + derived
    by_function: dict[str, list[PatchTarget]] = {}
    for t in sorted(set(targets_in), key=lambda t: (t.function, t.module, t.name)):
        by_function.setdefault(t.function, []).append(t)
    return by_function, lib_covered


def _replacements(scan: ScanResult, root: Path, sources: Sources):
    """One replacement per defining function, one Patch per binding the pipeline uses, and which
    finding each replacement covers (finding index -> replacement name)."""
    by_function, lib_covered = _patch_targets(scan)
    app_path_for = {}
    for f in scan.findings:
        if f.function:
            app_path_for.setdefault(f.function.partition(":")[0], f.path)
    covered: dict[int, str] = {}
    replacements, patches, used_names = [], [], set()
    for function, targets in by_function.items():
        name = function.rpartition(":")[2].split(".")[-1]
        fn_name = f"{name}_traceable"
        while fn_name in used_names:
            fn_name += "_"
        used_names.add(fn_name)
        hazards, inside_findings = [], []
        for i, f in enumerate(scan.findings):
            inside = f.function == function
            calls = (f.category in LIBRARY_CATEGORIES
                     and (any(t.name in sources.calls_on_line(f.path, f.line) for t in targets)
                          or i in lib_covered and bool(set(targets) & set(library_targets(scan, f)))))
            if calls and i in lib_covered and _is_app_function(root, function):
                continue
            if inside or calls:
                covered[i] = fn_name
                hazards.append(f"{f.path}:{f.line} {f.category}")
                if inside:
                    inside_findings.append(f)
        if _is_app_function(root, function):
            handled = {id(f) for i, f in enumerate(scan.findings) if i in lib_covered
                       and all(not _is_app_module(root, t.module) for t in library_targets(scan, f))}
            twin = make_twin(root, function, fn_name, [f for f in inside_findings if id(f) not in handled],
                             RESERVED | used_names, sources)
            try:
                rep = (ReplacementSpec(fn_name, "", "", (), (), False, twin.source, twin.imports,
                                       any(f.category == "numpy-astype" for f in inside_findings), twin.helpers)
                       if not isinstance(twin, Blocked)
                       else _app_function_replacement(sources, function, fn_name, hazards, app_path_for, twin))
            except SourceError as exc:
                raise SpecError(str(exc)) from None
        else:
            rep = _library_replacement(function, fn_name, hazards)
        replacements.append(rep)
        for t in targets:
            patches.append(PatchSpec(t.module, t.name, fn_name, function, tuple(hazards)))
    return replacements, patches, covered


def _imports(replacements, patches, module: str, inline, root: Path) -> tuple[list[str], list[str], list[str]]:
    """(extra imports, application modules to import, application imports the twins need)."""
    extra = {"import numpy as np"} if any("np." in ln for r in replacements for ln in r.body_lines) else set()
    extra |= {line for r in replacements for line in r.imports}
    helpers = helper_sources({h for r in replacements for h in r.helpers})   # the twin_* helpers' own names
    extra |= {line for mod, line in (("np.", "import numpy as np"), ("torch.", "import torch")) if mod in helpers}
    top = module.split(".")[0]
    app_extra = sorted(x for x in extra if x.split()[1].split(".")[0] == top)
    if inline and app_extra:   # importing the driver by name would run it a second time
        raise SpecError(f"{inline.file}: a traceable twin needs `{app_extra[0]}`, a name of the driver script, "
                        "which the integration module cannot import; move the helper into a module")
    extra = sorted(x for x in extra if x not in app_extra)
    app_modules = sorted(({module} if not inline else set()) | {
        p.module for p in patches if p.module != DRIVER_MAIN and (
            _is_app_function(root, p.original) or p.module.split(".")[0] == module.split(".")[0])})
    return extra, app_modules, app_extra


def build_spec(scan: ScanResult, opts: Options, project: Project | None = None) -> IntegrationSpec:
    """The integration for a scan's entry; `project` is the scan's loaded project (its parsed modules)."""
    root = import_root(opts.app)
    sources = Sources(root, project)
    scan, guard_notes = _without_raise_only_checks(scan, sources)
    found = _read_entry(scan, opts, sources)
    entry, module, qualname, inline, opts = found.source, found.module, found.qualname, found.inline, found.opts
    out_dir = opts.output.resolve().parent
    inputs = tuple(p.name for p in entry.params if not p.static)
    static = tuple(p.name for p in entry.params if p.static)
    if not inline and ".<locals>." in qualname:
        raise SpecError(f"{entry.path}:{entry.line}: {qualname} is a function made at run time inside "
                        f"`{qualname.partition('.<locals>.')[0]}`, so no module can import it to wrap it: name the "
                        "statements that call it as an inline range (--entry FILE:START-END)")
    node = None if inline else sources.function(module, qualname).node
    kwonly = frozenset() if node is None else frozenset(a.arg for a in node.args.kwonlyargs)
    outside = filled_outside(scan.findings, f"{module}:{qualname}")   # attributes callbacks fill: held inputs too
    fields = held_inputs(node, entry.path, set(static) | set(inputs), outside) if node is not None and entry.is_method else ()
    if not inputs and not fields:
        raise SpecError(f"{entry.path}:{entry.line}: {qualname} takes no inputs to export{no_inputs_hint(node)}")
    graph = opts.graph or (inline_graph_name(inline) if inline else default_graph_name(qualname))
    if "/" in graph or not graph:
        raise SpecError(f"--name must not contain '/': {graph!r}")

    taken = set(inputs) | set(static)
    entry_owner = f"{module}:{qualname.rpartition('.')[0]}" if entry.is_method else ""
    held, fresh_notes = without_fresh_objects(scan.state, scan.reachable, sources.project)
    state = _state_specs(held, taken, entry_owner) + found.carried
    replacements, patches, covered = _replacements(scan, root, sources)
    if inline:   # the driver runs as __main__: its own bindings are patched there, never imported
        patches = [replace(p, module=DRIVER_MAIN) if p.module == module else p for p in patches]
    stubs = {r.fn_name for r in replacements if r.is_stub}
    served = served_outside(scan.findings, f"{module}:{qualname}", fields)
    unresolved, host, left_out = classify(scan, covered, stubs, state, sources, served)
    notes = ([f"{entry.path.name}:{entry.line}: {entry.note}"] if entry.note else []) + guard_notes + fresh_notes
    extra, app_modules, app_extra = _imports(replacements, patches, module, inline, root)
    driver = _rel(opts.driver, out_dir) if opts.driver else None
    return IntegrationSpec(
        entry=opts.entry, entry_short=qualname, is_method=entry.is_method, file_name=opts.output.name,
        app_root=_rel(root, out_dir), driver=driver, graph=graph, node=graph, export_with=opts.export_with,
        inputs=inputs, static_params=static, params=tuple(p.name for p in entry.params), kwonly=kwonly,
        outputs_expr=entry.outputs_expr, sent=sent_literals(entry.sent, entry.sent_value, entry.sent_host_reads),
        state=state, replacements=tuple(replacements), patches=tuple(patches),
        unresolved=tuple(unresolved), host_runtime=tuple(host), notes=tuple(notes), extra_imports=tuple(extra),
        app_imports=tuple(dict.fromkeys([f"import {m}" for m in app_modules] + app_extra)),
        twin_helpers=helper_sources({h for r in replacements for h in r.helpers}),
        extras=_extras(scan, opts, root, entry, inputs, sources), inline=inline is not None,
        left_out=tuple(left_out), driver_args=opts.driver_args, driver_env=opts.driver_env, held=fields,
        pass_through=line_text_literal(entry.pass_through) if entry.pass_through else "")
