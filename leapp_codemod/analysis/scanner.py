"""`scan` end to end: files → parse → index → entrypoint → reachability/dataflow → rules → findings."""
from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field

from leapp_codemod.analysis.context import iter_nodes
from leapp_codemod.analysis.dataflow import Analysis, compute_env, entry_data_params, lint_data_params
from leapp_codemod.analysis.entrypoints import rank_entrypoints
from leapp_codemod.analysis.index import FunctionInfo, build_index
from leapp_codemod.analysis.leapp_support import LeappSupport, load_support
from leapp_codemod.analysis.libraries import LibraryLoader, call_site_findings, installed_key, site_dirs
from leapp_codemod.analysis.project import Project
from leapp_codemod.analysis.suppressions import is_suppressed, parse_suppressions
from leapp_codemod.model import FileError, Finding, LibraryCall, PatchTarget, ScanResult, StateAttr
from leapp_codemod.rules import Rule, select_rules
from leapp_codemod.source.cache import (
    Cache, digest, environment_key, errors_from_json, file_hash, findings_from_json, findings_to_json,
    result_from_json, result_to_json,
)
from leapp_codemod.source.files import SourceFile, discover
from leapp_codemod.source.parse import parse_file

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


@dataclass
class LoadedProject:
    project: Project
    suppressions: dict[str, dict[int, frozenset[str]]] = field(default_factory=dict)
    errors: list[FileError] = field(default_factory=list)


def load_project(paths: list[str], exclude: tuple[str, ...] = ()) -> LoadedProject:
    found = discover(paths, exclude)
    loaded = LoadedProject(Project({}), errors=list(found.errors))
    for src in found.files:
        _add_parsed(loaded, src)
    return loaded


def _add_parsed(loaded: LoadedProject, src: SourceFile) -> None:
    parsed = parse_file(src)
    if isinstance(parsed, FileError):
        loaded.errors.append(parsed)
        return
    index = build_index(parsed)
    if index.name in loaded.project.modules:
        # two files map to one module name (e.g. two scripts called main.py): keep both, distinctly
        index.name = f"{index.name}@{src.display}"
        index.functions = {q: _rename(f, index.name) for q, f in index.functions.items()}
    loaded.project.modules[index.name] = index
    loaded.suppressions[src.display] = parse_suppressions(parsed.text)


def _rename(fn: FunctionInfo, module: str) -> FunctionInfo:
    return FunctionInfo(f"{module}:{fn.qualname}", module, fn.qualname, fn.node, fn.class_name, fn.path)


def find_function(project: Project, entry: str) -> FunctionInfo:
    module_name, sep, qualname = entry.partition(":")
    if not sep or not module_name or not qualname:
        raise ScanError(f"--entry '{entry}' must look like MODULE:QUALNAME (e.g. app.policy:Policy.act)")
    candidates = [m for name, m in project.modules.items()
                  if name == module_name or name.endswith("." + module_name)]
    if not candidates:
        raise ScanError(f"--entry '{entry}': module '{module_name}' is not among the scanned files")
    for module in candidates:
        if qualname in module.functions:
            return module.functions[qualname]
    raise ScanError(f"--entry '{entry}': no function '{qualname}' in {candidates[0].path}")


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
    for fn in functions:
        if only_paths is not None and fn.path not in only_paths:
            continue
        ctx = analysis.context(fn)
        try:
            compute_env(ctx)
        except RecursionError:
            errors.append(FileError(fn.path, f"line {fn.node.lineno}: {fn.qualname} is too deeply nested to analyze"))
            continue
        for node in iter_nodes(fn):
            for rule in by_type.get(type(node), ()):
                try:
                    hits = list(rule.check(node, ctx))
                except Exception as exc:  # noqa: BLE001 - one odd construct must not stop the scan
                    errors.append(FileError(fn.path, f"line {getattr(node, 'lineno', '?')}: rule {rule.code} "
                                                     f"could not analyze this code ({exc.__class__.__name__}: {exc})"))
                    continue
                for hit in hits:
                    findings.append(_finding(rule, hit, fn, ctx.module))
                    if rule.category in LIBRARY_CATEGORIES and isinstance(node, ast.Call):
                        call = library_call(ctx, node, fn.path)
                        if call:
                            library_calls.add(call)
                    write = ctx.state_write(node) if rule.code in STATE_CODES else None
                    if write:
                        owner = ctx.state_owner(write[0])
                        is_buffer = ctx.cls is not None and owner == ctx.cls.id and write[0] in ctx.cls.buffers
                        state.setdefault((owner, write[0]), StateAttr(owner, write[0], write[1], fn.path,
                                                                      node.lineno, is_buffer))
    return findings, list(state.values()), sorted(library_calls, key=lambda c: (c.path, c.line, c.target)), errors


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
    """One finding per (path, line, category): the first by column, the rest say the same thing."""
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
    if options.entry:
        entry_fn = find_function(project, options.entry)
    elif not options.all_functions:
        result.entrypoints = rank_entrypoints(project, support)
        if result.entrypoints:
            best = result.entrypoints[0]
            entry_fn = project.modules[best.module].functions[best.qualname]
    if entry_fn is not None and not options.all_functions:
        if options.follow_libraries:
            project.libraries = LibraryLoader(site_dirs(), frozenset(m.partition(".")[0] for m in project.modules))
        result.entry = next((e for e in result.entrypoints if e.module == entry_fn.module
                             and e.qualname == entry_fn.qualname), None) or _as_entrypoint(entry_fn)
        analysis.run([entry_fn], {entry_fn.id: entry_data_params(entry_fn) & lint_data_params(entry_fn)
                                  | _annotated_data(entry_fn)})
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
    """Parse and lint one file (runs in worker processes)."""
    parsed = parse_file(src)
    if isinstance(parsed, FileError):
        return [], [parsed], False
    findings, errors = lint_module(build_index(parsed), parse_suppressions(parsed.text), options, support)
    return findings, errors, True


def _options_key(options: ScanOptions, mode: str) -> str:
    only = ",".join(sorted(options.only_paths)) if options.only_paths is not None else "*"
    libraries = installed_key(site_dirs()) if options.follow_libraries and mode == "entry" else "-"
    return digest(mode, options.entry or "", ",".join(options.select), ",".join(options.ignore),
                  ",".join(options.exclude), only, libraries)


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
    hashes = sorted((src.display, src.module, file_hash(src.path) or "") for src in found.files)
    key = digest(environment_key(_options_key(options, "entry"), _support_key(support)),
                 *(f"{d}|{m}|{h}" for d, m, h in hashes))
    cached = cache.get(key)
    result = result_from_json(cached) if cached is not None else None
    if result is None:
        loaded = LoadedProject(Project({}))
        for src in found.files:
            _add_parsed(loaded, src)
        result = analyze(loaded, options, support)
        cache.put(key, result_to_json(result))
    result.errors = list(found.errors) + result.errors
    return result


def _annotated_data(fn: FunctionInfo) -> set[str]:
    """Entry parameters annotated as tensors/arrays are data even when named like a config."""
    out = set()
    for arg in (*fn.node.args.posonlyargs, *fn.node.args.args, *fn.node.args.kwonlyargs):
        if arg.annotation is not None and any(t in ast.unparse(arg.annotation) for t in ("Tensor", "ndarray")):
            out.add(arg.arg)
    return out


def _as_entrypoint(fn: FunctionInfo):
    from leapp_codemod.model import Entrypoint
    return Entrypoint(fn.module, fn.qualname, fn.path, fn.node.lineno, 0, ("given with --entry",))


def scan_project(paths: list[str], entry: str | None = None, all_functions: bool = False,
                 select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
                 follow_libraries: bool = True) -> ScanResult:
    """Scan files/directories; the public API used by `generate` and tests."""
    loaded = load_project(paths, exclude)
    return analyze(loaded, ScanOptions(entry, all_functions, select, ignore, exclude,
                                       follow_libraries=follow_libraries))
