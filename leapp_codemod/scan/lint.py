"""Lint mode (`scan --all`, `lint`): every function of one module on its own, cached per file, over
worker processes when cold."""
from __future__ import annotations

from leapp_codemod.analysis.flow.dataflow import Analysis
from leapp_codemod.analysis.flow.params import lint_data_params
from leapp_codemod.analysis.model.index import build_index
from leapp_codemod.analysis.model.leapp_support import LeappSupport
from leapp_codemod.analysis.model.libraries import installed_key, site_dirs
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.model import FileError, ScanResult
from leapp_codemod.rules import select_rules
from leapp_codemod.scan.dispatch import run_rules
from leapp_codemod.scan.options import ScanOptions
from leapp_codemod.scan.post import dedupe
from leapp_codemod.scan.suppressions import is_suppressed, parse_suppressions
from leapp_codemod.source.cache import (
    Cache,
    digest,
    environment_key,
    errors_from_json,
    file_hash,
    findings_from_json,
    findings_to_json,
)
from leapp_codemod.source.files import SourceFile
from leapp_codemod.source.parse import WHOLE_FILE_BYTES, parse_segments, parse_source, read_source

PARALLEL_MIN_FILES = 64


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
    findings, _, _, errors = run_rules(analysis, functions, select_rules(options.select, options.ignore), None,
                                         lint=True)
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


def options_key(options: ScanOptions, mode: str) -> str:
    only = ",".join(sorted(options.only_paths)) if options.only_paths is not None else "*"
    libraries = installed_key(site_dirs()) if options.follow_libraries and mode == "entry" else "-"
    return digest(mode, options.entry or "", ",".join(options.select), ",".join(options.ignore),
                  ",".join(options.exclude), only, libraries, str(options.max_file_bytes),
                  options.observed.digest if options.observed is not None and mode == "entry" else "-",
                  str(options.follow_symlinks), ",".join(f"{e}={t}" for e, t in options.bind))


def support_key(support: LeappSupport) -> str:
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
    env_key = environment_key(options_key(options, "lint"), support_key(support))
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
