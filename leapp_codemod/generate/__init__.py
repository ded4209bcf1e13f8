"""`generate`: from a scan of the application to one separate LEAPP integration module."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from leapp_codemod.analysis.inline.range import parse_inline_entry
from leapp_codemod.generate.guard import Merge, OverwriteRefused, is_generated_text, merge, same_content, unified_diff
from leapp_codemod.generate.render import render_body, with_header, write_module
from leapp_codemod.generate.spec import IntegrationSpec, Options, SpecError, build_spec
from leapp_codemod.model import ScanResult

if TYPE_CHECKING:  # pragma: no cover
    from leapp_codemod.analysis.model.project import Project
    from leapp_codemod.scan import ScanModel

__all__ = ["DEFAULT_OUTPUT", "GenerateError", "Options", "Plan", "default_output", "generate", "plan", "refused_output",
           "render_module", "scan_for"]


class GenerateError(Exception):
    """A one-line reason why nothing was written."""


def scan_for(opts: Options) -> ScanModel:
    """The scan `generate` builds on: its result and the project it loaded (read, never parsed again)."""
    try:
        from leapp_codemod.scan import ScanError, scan_model
    except ImportError as exc:
        raise GenerateError(f"the scanner is not available ({exc})") from None
    from leapp_codemod.config import ConfigError, load_config
    from leapp_codemod.observe.saved import fresh_input, root_for
    try:
        observed, note = fresh_input(root_for(opts.app, load_config(opts.app).source), opts.entry)
    except ConfigError:
        observed, note = None, ""
    try:
        model = scan_model([str(opts.app)], entry=opts.entry, observed=observed)
        model.result.observed_note = model.result.observed_note or note
        return model
    except ScanError as exc:
        raise GenerateError(str(exc)) from None


def _parts(scan: ScanResult | ScanModel) -> tuple[ScanResult, Project | None]:
    """A scan product's result and loaded project (a bare ScanResult has none: files are read as needed)."""
    loaded = getattr(scan, "loaded", None)
    return (scan.result, loaded.project) if loaded is not None else (scan, None)


def render_module(scan: ScanResult | ScanModel, opts: Options) -> tuple[str, IntegrationSpec]:
    result, project = _parts(scan)
    try:
        spec = build_spec(result, opts, project)
    except SpecError as exc:
        raise GenerateError(str(exc)) from None
    return with_header(render_body(spec), opts.output.name, opts.output), spec


DEFAULT_OUTPUT = "leapp_integration.py"


def _inside(path: Path, tree: Path) -> bool:
    try:
        path.resolve().relative_to(tree.resolve())
    except ValueError:
        return False
    return True


def _package_folder(folder: Path) -> bool:
    return (folder / "__init__.py").is_file()


def default_output(app: Path, driver: Path | None) -> Path:
    """Where `generate` writes without -o: next to the driver, else beside the application's import root;
    never inside a package of the application."""
    from leapp_codemod.generate.driver import search_root
    if driver is not None and not _package_folder(driver.parent):
        return driver.parent / DEFAULT_OUTPUT
    return search_root(app) / DEFAULT_OUTPUT


def refused_output(output: Path, app: Path) -> str | None:
    """Why `output` must not be written (it is an application file, or inside a package of the application:
    a new module there would change the application), or None."""
    out = output.resolve()
    if app.is_file() and out == app.resolve():
        return "it is the application script"
    app_tree = app if app.is_dir() else app.parent
    folder = out.parent
    if _inside(folder, app_tree) and (_package_folder(folder) or (app.is_dir() and _package_folder(app))):
        return f"refusing to write inside the application package {_posix(folder)}"
    return None


def _posix(path: Path) -> str:
    import os
    relative = os.path.relpath(path)
    return Path(relative).as_posix() if not relative.startswith("..") else path.as_posix()


@dataclass
class Plan:
    """What `generate` would write, and how it relates to the file already there."""

    spec: IntegrationSpec
    text: str
    existing: str | None
    merge: Merge = field(default_factory=lambda: Merge(""))
    observed_note: str = ""     # the saved observation the scan used, or why it was ignored

    @property
    def up_to_date(self) -> bool:
        """The file on disk already holds this content (layout aside): `generate --check` passes."""
        return self.existing is not None and same_content(self.existing, self.text)

    def diff(self, name: str) -> str:
        return unified_diff(name, self.existing, self.text)


def plan(opts: Options, *, force: bool = False, scan: ScanResult | ScanModel | None = None) -> Plan:
    """Scan (unless given) and render the module, carrying over what the user wrote in the existing one."""
    if not opts.app.exists():
        raise GenerateError(f"{opts.app}: no such application path; from the folder scan was given: "
                            f"`leapp-codemod generate .`")
    if opts.driver is not None and not opts.driver.is_file():
        raise GenerateError(f"{opts.driver}: driver script not found; without --driver, `leapp-codemod generate "
                            f"{_posix(opts.app)} --entry {opts.entry}` finds the script whose loop calls the entry")
    refusal = refused_output(opts.output, opts.app)
    if refusal:
        suggested = _posix(default_output(opts.app, opts.driver).resolve())
        raise GenerateError(f"{_posix(opts.output.resolve())}: {refusal}; write it outside, e.g. "
                            f"`leapp-codemod generate {_posix(opts.app)} --entry {opts.entry} -o {suggested}`")
    scan = scan if scan is not None else scan_for(opts)
    result, _ = _parts(scan)
    if (result.entry is not None and result.entry.kind == "function" and result.entry.id != opts.entry
            and not parse_inline_entry(opts.entry)):
        opts = replace(opts, entry=result.entry.id)   # the module's own name, importable from the app root
    text, spec = render_module(scan, opts)
    existing = opts.output.read_text(encoding="utf-8", errors="replace") if opts.output.is_file() else None
    if existing is None or force:
        return Plan(spec, text, existing, Merge(text), result.observed_note)
    try:
        merged = merge(str(opts.output), existing, text)
    except OverwriteRefused as exc:
        again = f"leapp-codemod generate {_posix(opts.app)} --entry {opts.entry} -o"
        if not is_generated_text(existing):   # someone else's file: never replaced, write beside it instead
            beside = opts.output.with_name(f"{opts.output.stem}_generated{opts.output.suffix}")
            raise GenerateError(f"{exc}: `{again} {_posix(beside.resolve())}`") from None
        raise GenerateError(f"{exc}: `{again} {_posix(opts.output.resolve())} --force`") from None
    if merged.text != text:
        from leapp_codemod.generate.formatting import format_module
        merged = replace(merged, text=format_module(merged.text, opts.output.name, opts.output))
    return Plan(spec, merged.text, existing, merged, result.observed_note)


def write_plan(planned: Plan, output: Path, protected: tuple[Path, ...] = ()) -> None:
    write_module(output, planned.text, protected)


def generate(opts: Options, *, force: bool = False, scan: ScanResult | ScanModel | None = None) -> IntegrationSpec:
    """Scan (unless given), render and write the integration module; returns what was rendered."""
    planned = plan(opts, force=force, scan=scan)
    write_plan(planned, opts.output)
    return planned.spec
