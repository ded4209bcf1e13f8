"""`scan` end to end: files -> parse -> index -> entrypoint -> reachability/dataflow -> rules -> findings."""
from __future__ import annotations

from dataclasses import dataclass

from leapp_codemod.analysis.model.preset_attrs import preset_attributes
from leapp_codemod.analysis.flow.open_keys import open_key_tests
from leapp_codemod.analysis.flow.passed_keys import entry_dict_keys
from leapp_codemod.analysis.entry.caller_state import caller_held_state
from leapp_codemod.analysis.entry.entrypoints import rank_entrypoints
from leapp_codemod.analysis.entry.lookup import choose_entry
from leapp_codemod.analysis.flow.access_order import access_order
from leapp_codemod.analysis.flow.dataflow import Analysis
from leapp_codemod.analysis.flow.params import entry_data_params, entry_flag_constants, lint_data_params, per_call_flags
from leapp_codemod.scan.model_path import model_path
from leapp_codemod.analysis.flow.not_followed import not_followed
from leapp_codemod.analysis.inline.function import InlineEntryError, inline_function
from leapp_codemod.analysis.inline.range import parse_inline_entry
from leapp_codemod.analysis.model.world_steps import WRAPPED_STEPS_KEY
from leapp_codemod.analysis.model.leapp_support import LeappSupport, load_support
from leapp_codemod.analysis.model.libraries import LibraryLoader, site_dirs
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.caller_settings import VARYING, caller_settings, setting_items, training_switches
from leapp_codemod.analysis.model.kept_arguments import kept_arguments
from leapp_codemod.analysis.model.settings import deploy_none_inputs
from leapp_codemod.analysis.model.runtime_bind import resolutions, set_bindings
from leapp_codemod.model import ScanResult
from leapp_codemod.observe.merge import ObservedInput, label_findings, observe_project, still_not_followed
from leapp_codemod.observe.merge import note as observed_note
from leapp_codemod.rules import select_rules
from leapp_codemod.scan.dispatch import run_rules
from leapp_codemod.analysis.model.fresh_objects import without_fresh_objects
from leapp_codemod.analysis.model.resolve_sites import enclosing_argument_types, script_argument_types
from leapp_codemod.scan.entry import (annotated_data, as_entrypoint, closure_inputs, entry_class, find_function,
                                     optional_inputs, reader_attrs)
from leapp_codemod.scan.lint import options_key, support_key, lint_files, lint_module
from leapp_codemod.scan.load import LoadedProject, load_files, load_project
from leapp_codemod.scan.options import ScanError, ScanOptions
from leapp_codemod.scan.post import call_site_findings, dedupe, patch_targets, relocated_calls
from leapp_codemod.scan.suppressions import is_suppressed
from leapp_codemod.source.cache import Cache, digest, environment_key, file_hash, result_from_json, result_to_json
from leapp_codemod.source.files import discover


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
        result.entry_note = f"entry: {options.entry} (inline statement range, given with --entry)" + (
            f"; {rng.note}" if rng.note else "")
    elif options.entry:
        entry_fn, canonical = find_function(project, options.entry)
        named = as_entrypoint(entry_fn, canonical)
        given = f"{options.entry} = {canonical}" if canonical != options.entry else canonical
        result.entry_note = f"entry: {given} (given with --entry)"
    elif not options.all_functions:
        result.entrypoints = rank_entrypoints(project, support)
        chosen, result.entry_note = choose_entry(result.entrypoints, inline=True)
        if chosen is not None and chosen.kind == "inline":   # the inline range ranked first is the entry
            inline = parse_inline_entry(chosen.id)
            try:
                entry_fn, rng = inline_function(project, inline)
                named = chosen
                result.entry_note += f"; {rng.note}" if rng.note else ""
            except InlineEntryError:
                inline, chosen = None, None
                chosen, result.entry_note = choose_entry(result.entrypoints)
        if chosen is not None and chosen.kind == "function":
            entry_fn = find_function(project, chosen.id)[0]   # a method, a closure a helper returns
    if entry_fn is not None and not options.all_functions:
        if options.follow_libraries:
            own_tops = frozenset(m.partition(".")[0] for m in (*project.modules, *project.aliases))
            project.libraries = LibraryLoader(site_dirs(), own_tops)
        project.memo[("duck",)] = True    # entry mode: receivers of unknown class may be resolved by duck typing
        if options.bind:
            set_bindings(project, options.bind)
        result.entry = named or next((e for e in result.entrypoints if e.module == entry_fn.module
                                      and e.qualname == entry_fn.qualname), None) or as_entrypoint(entry_fn)
        if inline:   # objects the driver prepares before the loop around the range
            project.memo[("preset_attrs",)] = preset_attributes(project, project.modules[entry_fn.module], rng.scope, rng.loop)
        data = ((set(rng.inputs) | set(rng.state)) - set(entry_fn.numbers) if inline else
                entry_data_params(entry_fn) & lint_data_params(entry_fn, containers=True) | annotated_data(entry_fn)
                | optional_inputs(project, entry_fn) | closure_inputs(project, entry_fn))
        if not inline:
            settings = caller_settings(project, entry_fn)   # what the callers pass decides, not annotations
            settings |= deploy_none_inputs(project, entry_fn)  # `model(obs, None)` in every deploy call
            settings |= training_switches(entry_fn)   # `training`: False in the export, whatever callers pass
            data -= set(settings)
            analysis.facts.kept_params[entry_fn.id] = set(kept_arguments(project, entry_fn) - set(settings))
            analysis.facts.caller_state[entry_fn.id] = {p: held for p, held in caller_held_state(project, entry_fn).items()
                                                        if p in data}
            analysis.facts.param_constants[entry_fn.id] = entry_flag_constants(project, entry_fn, data) | {
                p: values for p, values in settings.items() if not values & VARYING} | entry_dict_keys(project, entry_fn)
            analysis.facts.setting_items[entry_fn.id] = setting_items(project, entry_fn)   # `buffers["hold"]`
            analysis.facts.per_call_flags[entry_fn.id] = per_call_flags(project, entry_fn) - data
            if not data and entry_fn.class_name:   # a step with no inputs reads them from objects on self
                readers = reader_attrs(project, entry_fn)
                if readers:
                    analysis.facts.data_attrs.setdefault(f"{entry_fn.module}:{entry_fn.class_name}", set()).update(readers)
            owner = entry_class(project, entry_fn, options.entry) if options.entry else None
            if owner is not None:  # `--entry Model.forward` runs on a Model: `self.f()` dispatches to Model's f
                analysis.facts.receivers[entry_fn.id] = {owner.id}
        for wrapper in project.memo.get(WRAPPED_STEPS_KEY, {}).values():   # the link a wrapper reads the world by
            readers = reader_attrs(project, wrapper)
            if readers:
                analysis.facts.data_attrs.setdefault(f"{wrapper.module}:{wrapper.class_name}", set()).update(readers)
        for param, classes in script_argument_types(project, entry_fn).items():   # objects a script passes
            analysis.facts.param_types.setdefault(entry_fn.id, {}).setdefault(param, set()).update(classes)
        if inline:   # a parameter of the function around the range: the objects its callers pass
            for param, classes in enclosing_argument_types(project, entry_fn, rng).items():
                analysis.facts.param_types.setdefault(entry_fn.id, {}).setdefault(param, set()).update(classes)
        observed = observe_project(analysis, project, options.observed)
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
    path = model_path(analysis, entry_fn)
    findings = [f for f in findings if path.on_path(f.function, f.line)]
    library_calls += relocated_calls(findings, library_calls, analysis, project)
    findings = call_site_findings(findings, analysis.facts.library_origins, analysis.reachable, project)
    findings = [f for f in findings
                if not is_suppressed(loaded.suppressions.get(f.path, {}), f.line, f.end_line, f.code)]
    result.findings = dedupe(findings)
    held, _ = without_fresh_objects(state, list(analysis.reachable), project)   # objects the step builds anew
    result.state = sorted(held, key=lambda s: (s.owner, s.attr))
    result.reachable = list(analysis.reachable) if entry_fn is not None else []
    result.libraries_followed = tuple(sorted({fid.partition(".")[0].partition(":")[0] for fid in result.reachable
                                              if project.is_library(fid.partition(":")[0])}))
    result.patch_targets = patch_targets(analysis, result.findings)
    kept = {(f.path, f.line) for f in result.findings}
    result.library_calls = [c for c in library_calls if (c.path, c.line) in kept]
    result.errors += rule_errors
    result.not_followed = not_followed(analysis, entry_fn)
    result.bound_calls = resolutions(project)
    result.open_keys = open_key_tests(analysis)
    if observed is not None:
        result.findings = label_findings(result.findings, observed)
        result.not_followed = still_not_followed(result.not_followed, observed)
        ran = {fid for fid in observed.lines if fid in analysis.reachable}
        result.observed_note = observed_note(observed, len(ran), len(observed.resolved))
    return result


def scan(paths: list[str], options: ScanOptions, cache: Cache | None = None, jobs: int = 1,
         progress=lambda done, total: None, support: LeappSupport | None = None) -> ScanResult:
    """The whole scan: lint mode per file, or entry mode over the project, both cached."""
    support = support or load_support()
    cache = cache or Cache(None)
    found = discover(paths, options.exclude, options.follow_symlinks)
    if options.all_functions:
        result = lint_files(found.files, options, support, cache, jobs, progress)
        result.errors = list(found.errors) + result.errors
        return result
    hashes = sorted((src.display, ",".join((src.module, *src.aliases)), file_hash(src.path) or "")
                    for src in found.files)
    key = digest(environment_key(options_key(options, "entry"), support_key(support)),
                 *(f"{d}|{m}|{h}" for d, m, h in hashes))
    cached = cache.get(key)
    result = result_from_json(cached) if cached is not None else None
    if result is None:
        loaded = LoadedProject(Project({}))
        load_files(loaded, found.files, options.max_file_bytes)
        result = analyze(loaded, options, support)
        cache.put(key, result_to_json(result))
    result.errors = list(found.errors) + result.errors
    return result


@dataclass
class ScanModel:
    """One scan's product for `generate`: the result and the loaded project it analyzed (every module's
    syntax tree and index), so nothing is parsed again."""

    result: ScanResult
    loaded: LoadedProject


def scan_model(paths: list[str], entry: str | None = None, all_functions: bool = False,
               select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
               follow_libraries: bool = True, observed: ObservedInput | None = None) -> ScanModel:
    """Scan files/directories and keep what was loaded (not cached: `generate` needs the trees)."""
    loaded = load_project(paths, exclude)
    return ScanModel(analyze(loaded, ScanOptions(entry, all_functions, select, ignore, exclude,
                                                 follow_libraries=follow_libraries, observed=observed)), loaded)


def scan_project(paths: list[str], entry: str | None = None, all_functions: bool = False,
                 select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
                 follow_libraries: bool = True, observed: ObservedInput | None = None) -> ScanResult:
    """Scan files/directories; the public API used by tests (`generate` uses `scan_model`)."""
    return scan_model(paths, entry, all_functions, select, ignore, exclude, follow_libraries, observed).result
