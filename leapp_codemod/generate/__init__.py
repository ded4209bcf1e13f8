"""`generate`: from a scan of the application to one separate LEAPP integration module."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from leapp_codemod.analysis.inline.range import parse_inline_entry
from leapp_codemod.generate.guard import Merge, OverwriteRefused, merge, same_content, unified_diff
from leapp_codemod.generate.render import render_body, with_header, write_module
from leapp_codemod.generate.spec import IntegrationSpec, Options, SpecError, build_spec
from leapp_codemod.model import ScanResult

if TYPE_CHECKING:  # pragma: no cover
    from leapp_codemod.analysis.model.project import Project
    from leapp_codemod.scan import ScanModel

__all__ = ["GenerateError", "Options", "Plan", "generate", "plan", "render_module", "scan_for"]


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
    return with_header(render_body(spec), opts.output.name), spec


def _inside(path: Path, tree: Path) -> bool:
    try:
        path.resolve().relative_to(tree.resolve())
    except ValueError:
        return False
    return True


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
        raise GenerateError(f"{opts.app}: no such application path")
    if opts.driver is not None and not opts.driver.is_file():
        raise GenerateError(f"{opts.driver}: driver script not found")
    app_tree = opts.app if opts.app.is_dir() else opts.app.parent
    if _inside(opts.output, app_tree):
        raise GenerateError(f"{opts.output}: refusing to write inside the application tree {app_tree}")
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
        raise GenerateError(str(exc)) from None
    if merged.text != text:
        from leapp_codemod.generate.formatting import format_module
        merged = replace(merged, text=format_module(merged.text, opts.output.name))
    return Plan(spec, merged.text, existing, merged, result.observed_note)


def write_plan(planned: Plan, output: Path) -> None:
    write_module(output, planned.text)


def generate(opts: Options, *, force: bool = False, scan: ScanResult | ScanModel | None = None) -> IntegrationSpec:
    """Scan (unless given), render and write the integration module; returns what was rendered."""
    planned = plan(opts, force=force, scan=scan)
    write_plan(planned, opts.output)
    return planned.spec
