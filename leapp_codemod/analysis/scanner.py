"""`scan` end to end: files → parse → index → entrypoint → reachability/dataflow → rules → findings."""
from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field, replace

from leapp_codemod.analysis.context import iter_nodes
from leapp_codemod.analysis.dataflow import (
    Analysis,
    entry_data_params,
    lint_data_params,
    entry_flag_constants,
    passed_by_callers,
)
from leapp_codemod.analysis.entry_lookup import EntryNotFound, choose_entry, resolve_entry
from leapp_codemod.analysis.entrypoints import rank_entrypoints
from leapp_codemod.analysis.index import FunctionInfo, build_index, renamed
from leapp_codemod.analysis.inline_range import parse_inline_entry
from leapp_codemod.analysis.access_order import access_order
from leapp_codemod.analysis.inline_scan import InlineEntryError, inline_function
from leapp_codemod.analysis.leapp_support import LeappSupport, load_support
from leapp_codemod.analysis.libraries import (
    LibraryLoader,
    call_site_findings,
    installed_key,
    site_dirs,
)
from leapp_codemod.analysis.project import Project
from leapp_codemod.analysis.suppressions import is_suppressed, parse_suppressions
from leapp_codemod.model import (
    FileError,
    Finding,
    LibraryCall,
    PatchTarget,
    ScanResult,
    StateAttr,
)
from leapp_codemod.rules import Rule, scratch_buffer, select_rules
from leapp_codemod.source.cache import (
    Cache,
    digest,
    environment_key,
    errors_from_json,
    file_hash,
    findings_from_json,
    findings_to_json,
    result_from_json,
    result_to_json,
)
from leapp_codemod.source.files import SourceFile, discover
from leapp_codemod.source.parse import (
    MAX_FILE_BYTES,
    WHOLE_FILE_BYTES,
    parse_file,
    parse_segments,
    parse_source,
    read_source,
)

PARALLEL_MIN_FILES = 64

PATCHABLE_CATEGORIES = frozenset({"unmapped-numpy", "foreign-library", "scalar-extraction", "tensor-branch",
                                  "numpy-negative-stride", "numpy-astype"})
STATE_CODES = frozenset({"LCM701", "LCM702"})
LIBRARY_CATEGORIES = frozenset({"unmapped-numpy", "foreign-library"})


class ScanError(Exception):
    """A usage-level problem (unknown entry, nothing to analyze): exit code 2."""


@dataclass(frozen=True)
class ScanOptions:
    entry: str | None = None
    all_functions: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    only_paths: frozenset[str] | None = None   # report findings only in these display paths (lint)
    follow_libraries: bool = True              # analyze the installed packages the pipeline calls
    max_file_bytes: int = MAX_FILE_BYTES       # larger files are skipped with one line


@dataclass
class LoadedProject:
    project: Project
    suppressions: dict[str, dict[int, frozenset[str]]] = field(default_factory=dict)
    errors: list[FileError] = field(default_factory=list)


def load_project(paths: list[str], exclude: tuple[str, ...] = ()) -> LoadedProject:
    found = discover(paths, exclude)
    loaded = LoadedProject(Project({}), errors=list(found.errors))
    _load_files(loaded, found.files)
    return loaded


def _parse_for_entry_mode(src: SourceFile):
    try:
        size = src.path.stat().st_size
    except OSError:
        size = 0
    if size > WHOLE_FILE_BYTES:
        return FileError(src.display, f"file is {size / 2**20:.1f} MiB, above the {WHOLE_FILE_BYTES // 2**20} MiB "
                                      "bound of entry mode; not followed from the entry (`scan --all` and `lint` "
                                      "analyze it in segments)")
    return parse_file(src)


def _load_files(loaded: LoadedProject, files) -> None:
    parsed_files = []
    for src in files:
        parsed = _parse_for_entry_mode(src)
        if isinstance(parsed, FileError):
            loaded.errors.append(parsed)
        else:
            parsed_files.append((src, parsed, build_index(parsed)))
    imported = _imported_names([index for _, _, index in parsed_files])
    real_paths = {}
    for src, parsed, index in parsed_files:
        preferred = _preferred_name(src, imported)
        if preferred != src.module:
            others = tuple(n for n in (src.module, *src.aliases) if n != preferred)
            src = SourceFile(src.path, src.display, preferred, src.is_package, others)
            parsed = replace(parsed, source=src)
            index = build_index(parsed) if index.has_relative_imports else renamed(index, preferred)
        _add_index(loaded, src, parsed, index)
        real_paths[index.name] = src.path
    loaded.project.link_imports(real_paths)


def _imported_names(indexes) -> set[str]:
    """Every dotted prefix of every absolute import target in the project."""
    out = set()
    for index in indexes:
        for target in index.imports.values():
            parts = target.split(".")
            out.update(".".join(parts[:cut]) for cut in range(1, len(parts) + 1))
    return out


def _preferred_name(src: SourceFile, imported: set[str]) -> str:
    """The package name, unless the project imports the file only by another of its names
    (a namespace package imported from the project root)."""
    if src.module in imported:
        return src.module
    return next((alias for alias in src.aliases if alias in imported and "." in alias), src.module)


def _add_index(loaded: LoadedProject, src: SourceFile, parsed, index) -> None:
    if index.name in loaded.project.modules:
        # two files map to one module name (e.g. two scripts called main.py): keep both, distinctly
        index.name = f"{index.name}@{src.display}"
        index.functions = {q: _rename(f, index.name) for q, f in index.functions.items()}
    loaded.project.modules[index.name] = index
    for alias in src.aliases:
        loaded.project.aliases.setdefault(alias, index.name)
    loaded.suppressions[src.display] = parse_suppressions(parsed.text)


def _rename(fn: FunctionInfo, module: str) -> FunctionInfo:
    return FunctionInfo(f"{module}:{fn.qualname}", module, fn.qualname, fn.node, fn.class_name, fn.path)


def find_function(project: Project, entry: str) -> tuple[FunctionInfo, str]:
    """The entry's function and its canonical `module:qualname`."""
    try:
        return resolve_entry(project, entry)
    except EntryNotFound as exc:
        raise ScanError(str(exc)) from None


def _finding(rule: Rule, hit, fn: FunctionInfo, module) -> Finding:
    node = hit.node
    end_line = getattr(node, "end_lineno", None) or node.lineno
    end_offset = getattr(node, "end_col_offset", None)
    return Finding(
        path=fn.path, line=node.lineno, column=module.column(node.lineno, node.col_offset),
        end_line=end_line,
        end_column=module.column(end_line, end_offset if end_offset is not None else node.col_offset),
        code=rule.code, category=rule.category, severity=rule.severity,
        message=hit.message, fix=hit.fix, function=fn.id)


def _rules_by_type(rules: tuple[Rule, ...]) -> dict[type, list[Rule]]:
    by_type: dict[type, list[Rule]] = defaultdict(list)
    for rule in rules:
        for node_type in rule.node_types:
            by_type[node_type].append(rule)
    return by_type


def run_rules(analysis: Analysis, functions, rules: tuple[Rule, ...], only_paths: frozenset[str] | None):
    """Findings, state writes and internal errors for the given functions."""
    by_type = _rules_by_type(rules)
    findings: list[Finding] = []
    state: dict[tuple[str, str], StateAttr] = {}
    library_calls: set[LibraryCall] = set()
    errors: list[FileError] = []
    crashed: set[tuple[str, str]] = set()       # (rule, file): an internal error is reported once per file
    for fn in functions:
        if only_paths is not None and fn.path not in only_paths:
            continue
        try:
            ctx = analysis.context_with_env(fn)
        except RecursionError:
            errors.append(FileError(fn.path, f"line {fn.node.lineno}: {fn.qualname} is too deeply nested to analyze"))
            continue
        for node in iter_nodes(fn, analysis.facts.param_constants.get(fn.id)):
            for rule in by_type.get(type(node), ()):
                try:
                    hits = list(rule.check(node, ctx))
                except Exception as exc:  # noqa: BLE001 - one odd construct must not stop the scan
                    if (rule.code, fn.path) in crashed:
                        continue
                    crashed.add((rule.code, fn.path))
                    errors.append(FileError(fn.path, f"line {getattr(node, 'lineno', '?')}: internal error in rule "
                                                     f"{rule.code} ({exc.__class__.__name__}: {exc}); other rules "
                                                     "and files were analyzed", internal=True))
                    continue
                for hit in hits:
                    findings.append(_finding(rule, hit, fn, ctx.module))
                    if rule.category in LIBRARY_CATEGORIES and isinstance(node, ast.Call):
                        call = library_call(ctx, node, fn.path)
                        if call:
                            library_calls.add(call)
                    writes = ctx.state_writes(node) if rule.code in STATE_CODES else \
                        scratch_buffer.declarable(node, ctx) if rule is scratch_buffer.RULE else ()
                    for write in writes:
                        if ctx.is_loop_carried(write[0]):
                            continue  # `generate` carries an inline range's state itself
                        if ctx.cls is not None and not ctx.holds_tensor(write[0]):
                            continue  # a counter, a list or a dict: reported, not declarable as tensors
                        owner = ctx.state_owner(write[0])
                        is_buffer = ctx.cls is not None and owner == ctx.cls.id and write[0] in ctx.cls.buffers
                        state.setdefault((owner, write[0]), StateAttr(owner, write[0], write[1], fn.path,
                                                                      node.lineno, is_buffer))
    return findings, list(state.values()), sorted(library_calls, key=lambda c: (c.path, c.line, c.target)), errors


def relocated_calls(findings: list[Finding], library_calls: list[LibraryCall], analysis: Analysis,
                    project: Project) -> list[LibraryCall]:
    """Flagged calls inside an installed library, placed at the application call sites their findings
    move to (`call_site_findings`), still naming the binding the library looks the callee up through:
    what `generate` patches when the hazard lives in the library."""
    by_site = {(c.path, c.line): c for c in library_calls}
    out = []
    for finding in findings:
        fn = analysis.reachable.get(finding.function)
        call = by_site.get((finding.path, finding.line))
        if call is None or fn is None or not project.is_library(fn.module):
            continue
        for caller_id, line, *_ in sorted(analysis.facts.library_origins.get(fn.id, ())):
            caller = analysis.reachable.get(caller_id)
            if caller is not None:
                out.append(LibraryCall(caller.path, line, call.module, call.name, call.target))
    return out


def library_call(ctx, call: ast.Call, path: str) -> LibraryCall | None:
    """The binding a flagged library call is looked up through (what a FunctionPatch must replace)."""
    target = ctx.call_name(call)
    if not target or "." not in target:
        return None
    func = call.func
    if isinstance(func, ast.Name):
        return LibraryCall(path, call.lineno, ctx.module.name, func.id, target)
    if isinstance(func, ast.Attribute):
        owner = ctx.qualify(func.value)
        if owner and owner == target.rpartition(".")[0]:
            return LibraryCall(path, call.lineno, owner, func.attr, target)
    return None


def dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per (path, line, category): the first by column, the rest say the same thing.
    Within an I/O call (`cv2.imshow(img[..., ::-1])`) the I/O is the one root cause: what only
    feeds it leaves the export with it."""
    io_spans = [(f.path, f.line, f.column, f.end_line, f.end_column) for f in findings
                if f.category == "io-in-pipeline"]
    findings = [f for f in findings if f.category == "io-in-pipeline" or not any(
        f.path == path and f.line == line and f.end_line == end_line and column <= f.column
        and f.end_column <= end_column for path, line, column, end_line, end_column in io_spans)]
    seen: set[tuple[str, int, str]] = set()
    out = []
    for finding in sorted(findings, key=lambda f: (f.path, f.line, f.column, f.code)):
        key = (finding.path, finding.line, finding.category)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


def patch_targets(analysis: Analysis, findings: list[Finding]) -> list[PatchTarget]:
    flagged = {f.function for f in findings if f.category in PATCHABLE_CATEGORIES}
    out = set()
    for fid in flagged:
        fn = analysis.reachable.get(fid)
        if fn is None or fn.class_name is not None or analysis.project.is_library(fn.module):
            continue
        for module, name in analysis.facts.call_bindings.get(fid, ()):
            out.add(PatchTarget(module, name, fid))
    return sorted(out, key=lambda t: (t.function, t.module, t.name))


def analyze(loaded: LoadedProject, options: ScanOptions, support: LeappSupport | None = None) -> ScanResult:
    support = support or load_support()
    project = loaded.project
    result = ScanResult(errors=list(loaded.errors), files_analyzed=len(project.modules),
                        leapp_support=support.origin)
    if not project.modules:
        return result
    analysis = Analysis(project, support)
    entry_fn = None
    named = None
    inline = parse_inline_entry(options.entry)
    if inline:
        try:
            entry_fn, rng = inline_function(project, inline)
        except InlineEntryError as exc:
            raise ScanError(str(exc)) from None
        result.entry_note = f"entry: {options.entry} (inline statement range, given with --entry)"
    elif options.entry:
        entry_fn, canonical = find_function(project, options.entry)
        named = _as_entrypoint(entry_fn, canonical)
        given = f"{options.entry} = {canonical}" if canonical != options.entry else canonical
        result.entry_note = f"entry: {given} (given with --entry)"
    elif not options.all_functions:
        result.entrypoints = rank_entrypoints(project, support)
        chosen, result.entry_note = choose_entry(result.entrypoints)
        if chosen is not None:
            entry_fn = project.modules[chosen.module].functions[chosen.qualname]
    if entry_fn is not None and not options.all_functions:
        if options.follow_libraries:
            own_tops = frozenset(m.partition(".")[0] for m in (*project.modules, *project.aliases))
            project.libraries = LibraryLoader(site_dirs(), own_tops)
        result.entry = named or next((e for e in result.entrypoints if e.module == entry_fn.module
                                      and e.qualname == entry_fn.qualname), None) or _as_entrypoint(entry_fn)
        data = ((set(rng.inputs) | set(rng.state)) - set(entry_fn.numbers) if inline else
                entry_data_params(entry_fn) & lint_data_params(entry_fn) | _annotated_data(entry_fn)
                | _optional_inputs(project, entry_fn))
        if not inline:
            analysis.facts.param_constants[entry_fn.id] = entry_flag_constants(project, entry_fn, data)
            owner = _entry_class(project, entry_fn, options.entry) if options.entry else None
            if owner is not None:  # `--entry Model.forward` runs on a Model: `self.f()` dispatches to Model's f
                analysis.facts.receivers[entry_fn.id] = {owner.id}
        analysis.run([entry_fn], {entry_fn.id: data})
        analysis.facts.access = access_order(entry_fn, analysis.context_with_env)
        functions = list(analysis.reachable.values())
    else:
        for module in project.modules.values():
            if options.only_paths is None or module.path in options.only_paths:
                findings, errors = lint_module(module, loaded.suppressions.get(module.path, {}), options, support)
                result.findings += findings
                result.errors += errors
        result.findings = dedupe(result.findings)
        return result
    rules = select_rules(options.select, options.ignore)
    findings, state, library_calls, rule_errors = run_rules(analysis, functions, rules, options.only_paths)
    library_calls += relocated_calls(findings, library_calls, analysis, project)
    findings = call_site_findings(findings, analysis.facts.library_origins, analysis.reachable, project)
    findings = [f for f in findings
                if not is_suppressed(loaded.suppressions.get(f.path, {}), f.line, f.end_line, f.code)]
    result.findings = dedupe(findings)
    result.state = sorted(state, key=lambda s: (s.owner, s.attr))
    result.reachable = list(analysis.reachable) if entry_fn is not None else []
    result.patch_targets = patch_targets(analysis, result.findings)
    kept = {(f.path, f.line) for f in result.findings}
    result.library_calls = [c for c in library_calls if (c.path, c.line) in kept]
    result.errors += rule_errors
    return result


def lint_module(module, suppressions, options: ScanOptions, support: LeappSupport):
    """Lint mode for one module on its own: every function is pipeline code, its non-config
    parameters are pipeline data. Depends on this file only, so results cache per file."""
    project = Project({module.name: module})
    analysis = Analysis(project, support)
    functions = list(project.functions())
    try:
        analysis.run(functions, {fn.id: lint_data_params(fn) for fn in functions}, rounds=2)
    except RecursionError:
        return [], [FileError(module.path, "code too deeply nested to analyze; skipped")]
    findings, _, _, errors = run_rules(analysis, functions, select_rules(options.select, options.ignore), None)
    findings = [f for f in findings if not is_suppressed(suppressions, f.line, f.end_line, f.code)]
    return dedupe(findings), errors


def lint_source(src: SourceFile, options: ScanOptions, support: LeappSupport):
    """Parse and lint one file (runs in worker processes); a big file segment by segment."""
    text = read_source(src, options.max_file_bytes)
    if isinstance(text, FileError):
        return [], [text], False
    suppressions = parse_suppressions(text)
    segments = [parse_source(src, text)] if len(text) <= WHOLE_FILE_BYTES else parse_segments(src, text)
    findings, errors = [], []
    for parsed in segments:
        if isinstance(parsed, FileError):
            return [], [parsed], False
        more, problems = lint_module(build_index(parsed), suppressions, options, support)
        findings += more
        errors += problems
    return findings, errors, True


def _options_key(options: ScanOptions, mode: str) -> str:
    only = ",".join(sorted(options.only_paths)) if options.only_paths is not None else "*"
    libraries = installed_key(site_dirs()) if options.follow_libraries and mode == "entry" else "-"
    return digest(mode, options.entry or "", ",".join(options.select), ",".join(options.ignore),
                  ",".join(options.exclude), only, libraries, str(options.max_file_bytes))


def _support_key(support: LeappSupport) -> str:
    return digest(support.version, ",".join(sorted(support.numpy_functions)), ",".join(sorted(support.dtypes)),
                  ",".join(sorted(support.traced_methods)))


def _lint_parallel(pending: list[SourceFile], options: ScanOptions, support: LeappSupport, jobs: int, progress):
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    results = {}
    try:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {src: pool.submit(lint_source, src, options, support) for src in pending}
            for done, (src, future) in enumerate(futures.items(), 1):
                results[src] = future.result()
                progress(done, len(pending))
    except BrokenProcessPool:
        for src in pending:  # a worker died (e.g. out of memory): finish the rest here
            if src not in results:
                results[src] = lint_source(src, options, support)
    return results


def lint_files(files: tuple[SourceFile, ...], options: ScanOptions, support: LeappSupport, cache: Cache,
               jobs: int = 1, progress=lambda done, total: None) -> ScanResult:
    """Lint mode over many files: cached per file, parallel over processes when cold."""
    env_key = environment_key(_options_key(options, "lint"), _support_key(support))
    result = ScanResult(leapp_support=support.origin)
    pending: list[SourceFile] = []
    keys: dict[SourceFile, str] = {}
    for src in files:
        if options.only_paths is not None and src.display not in options.only_paths:
            continue
        content = file_hash(src.path)
        keys[src] = digest(env_key, src.module, src.display, content or "")
        cached = cache.get(keys[src]) if content else None
        try:
            if cached is not None:
                result.findings += findings_from_json(cached["findings"])
                result.errors += errors_from_json(cached["errors"])
                result.files_analyzed += int(cached["analyzed"])
                continue
        except (KeyError, TypeError, ValueError):
            pass
        pending.append(src)
    if len(pending) >= PARALLEL_MIN_FILES and jobs > 1:
        outcomes = _lint_parallel(pending, options, support, jobs, progress)
    else:
        outcomes = {}
        for done, src in enumerate(pending, 1):
            outcomes[src] = lint_source(src, options, support)
            progress(done, len(pending))
    for src in pending:
        findings, errors, analyzed = outcomes[src]
        result.findings += findings
        result.errors += errors
        result.files_analyzed += int(analyzed)
        cache.put(keys[src], {"findings": findings_to_json(findings), "errors": [e.__dict__ for e in errors],
                              "analyzed": analyzed})
    result.findings = sorted(result.findings)
    return result


def scan(paths: list[str], options: ScanOptions, cache: Cache | None = None, jobs: int = 1,
         progress=lambda done, total: None, support: LeappSupport | None = None) -> ScanResult:
    """The whole scan: lint mode per file, or entry mode over the project, both cached."""
    support = support or load_support()
    cache = cache or Cache(None)
    found = discover(paths, options.exclude)
    if options.all_functions:
        result = lint_files(found.files, options, support, cache, jobs, progress)
        result.errors = list(found.errors) + result.errors
        return result
    hashes = sorted((src.display, ",".join((src.module, *src.aliases)), file_hash(src.path) or "")
                    for src in found.files)
    key = digest(environment_key(_options_key(options, "entry"), _support_key(support)),
                 *(f"{d}|{m}|{h}" for d, m, h in hashes))
    cached = cache.get(key)
    result = result_from_json(cached) if cached is not None else None
    if result is None:
        loaded = LoadedProject(Project({}))
        _load_files(loaded, found.files)
        result = analyze(loaded, options, support)
        cache.put(key, result_to_json(result))
    result.errors = list(found.errors) + result.errors
    return result


def _optional_inputs(project: Project, fn: FunctionInfo) -> set[str]:
    """`hidden=None` parameters of the entry that the driver fills with a value: optional inputs."""
    args = fn.node.args
    nones = {a.arg for a, d in zip([*args.posonlyargs, *args.args][::-1], args.defaults[::-1])
             if isinstance(d, ast.Constant) and d.value is None}
    nones |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults)
              if isinstance(d, ast.Constant) and d.value is None}
    return nones & passed_by_callers(project, fn) if nones else set()


def _entry_class(project: Project, fn: FunctionInfo, given: str | None):
    """The class the entry runs on: the one the user named (`Sub.forward` where `forward` is inherited),
    else the method's own."""
    module = project.modules[fn.module]
    own = module.classes.get(fn.class_name or "")
    qualname = (given or "").partition(":")[2]
    named = module.classes.get(qualname.rpartition(".")[0]) if "." in qualname else None
    if named is not None and own is not None and own in project.mro(named):
        return named
    return own


def _annotated_data(fn: FunctionInfo) -> set[str]:
    """Entry parameters annotated as tensors/arrays are data even when named like a config."""
    out = set()
    for arg in (*fn.node.args.posonlyargs, *fn.node.args.args, *fn.node.args.kwonlyargs):
        if arg.annotation is not None and any(t in ast.unparse(arg.annotation) for t in ("Tensor", "ndarray")):
            out.add(arg.arg)
    return out


def _as_entrypoint(fn: FunctionInfo, canonical: str | None = None):
    from leapp_codemod.model import Entrypoint
    module, _, qualname = (canonical or fn.id).partition(":")
    return Entrypoint(module, qualname, fn.path, fn.node.lineno, 0, ("given with --entry",))


def scan_project(paths: list[str], entry: str | None = None, all_functions: bool = False,
                 select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
                 follow_libraries: bool = True) -> ScanResult:
    """Scan files/directories; the public API used by `generate` and tests."""
    loaded = load_project(paths, exclude)
    return analyze(loaded, ScanOptions(entry, all_functions, select, ignore, exclude,
                                       follow_libraries=follow_libraries))
