"""Read an integration module statically (no import): its entry, driver, patches, stubs and the
findings it lists. Imports neither torch nor leapp nor the application."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.runner import names


class UsageError(Exception):
    """Exit 2: the command line or the integration module is not usable."""


@dataclass(frozen=True)
class Stub:
    function: str
    line: int
    patches: tuple[str, ...]
    hazards: tuple[str, ...]
    blocked: str = ""       # why `generate` wrote no traceable twin ("file:line: reason"), from its comment


@dataclass(frozen=True)
class ModuleInfo:
    path: Path
    entry: str
    app_root: Path
    driver: Path | None
    graph: str
    export_with: str
    stubs: tuple[Stub, ...]
    findings: tuple[str, ...]          # "path:line category: message" listed in the module
    host_runtime: tuple[str, ...]
    left_out: tuple[str, ...] = ()     # I/O and shape-specialized code listed by `generate`
    unresolved: tuple[str, ...] = ()   # the findings the module's header lists as not resolved
    driver_args: tuple[str, ...] = ()  # DRIVER_ARGS: the driver's command-line arguments
    driver_env: tuple[tuple[str, str], ...] = ()  # DRIVER_ENV: variables set for the driver
    constant_inputs: tuple[str, ...] = ()  # CONSTANT_INPUTS: inputs the user declared constant (held, not varied)


def literal(tree: ast.Module, name: str, path: Path, required: bool = True):
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        for t in targets:
            if isinstance(t, ast.Name) and t.id == name:
                try:
                    return ast.literal_eval(node.value)
                except ValueError:
                    raise UsageError(f"{path}:{node.lineno}: {name} must be a literal") from None
    if required:
        raise UsageError(f"{path}: not an integration module (no {name}); create one with `leapp-codemod generate`")
    return None


def _is_stub(fn: ast.FunctionDef) -> bool:
    """Still the generated stub: nothing but (a docstring and) `raise NotImplementedError(STUB)`."""
    body = fn.body[1:] if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(
        fn.body[0].value, ast.Constant) else fn.body
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or not isinstance(body[0].exc, ast.Call):
        return False
    call = body[0].exc
    return (isinstance(call.func, ast.Name) and call.func.id == "NotImplementedError" and len(call.args) == 1
            and isinstance(call.args[0], ast.Name) and call.args[0].id == "STUB")


def _patches(tree: ast.Module) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(module, name, replacement function, hazards) of every Patch(...) in PATCHES."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Patch":
            args = node.args
            if len(args) < 3 or not isinstance(args[2], ast.Name):
                continue
            try:
                module, name = ast.literal_eval(args[0]), ast.literal_eval(args[1])
                hazards = next((ast.literal_eval(k.value) for k in node.keywords if k.arg == "hazards"), ())
            except ValueError:
                continue
            out.append((module, name, args[2].id, tuple(hazards)))
    return out


def _listed_findings(text: str) -> tuple[str, ...]:
    """The unresolved findings listed in the module's header comment (wrapped lines joined)."""
    found: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("# Scan findings this module does not resolve"):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("#       ") and found:
            found[-1] += " " + line[8:].strip()
        elif line.startswith("#   "):
            found.append(line[4:].strip())
        else:
            inside = False
    return tuple(re.sub(r" \(write \w+\)$", "", f) for f in found)


def _merge_findings(listed: tuple[str, ...], hazards: tuple[str, ...]) -> tuple[str, ...]:
    """Listed findings plus patch hazards at locations the list does not already name."""
    seen = {loc(f) for f in listed}
    extra = [h for h in dict.fromkeys(hazards) if loc(h) not in seen]
    return tuple(dict.fromkeys(listed)) + tuple(extra)


_BLOCKED = "# No traceable twin was generated: "


def _blocked_reason(lines: list[str]) -> str:
    """The reason comment `generate` writes into a stub it could not turn into a twin."""
    found: list[str] = []
    for line in (ln.strip() for ln in lines):
        if line.startswith(_BLOCKED):
            found.append(line[len(_BLOCKED):])
        elif found and line.startswith("# ") and not line.startswith("# Original ("):
            found.append(line[2:])
        elif found:
            break
    return " ".join(found)


def _driver_args(tree: ast.Module, path: Path) -> tuple[str, ...]:
    value = literal(tree, "DRIVER_ARGS", path, required=False) or ()
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{path}: DRIVER_ARGS must be a tuple of strings")
    return tuple(value)


def _driver_env(tree: ast.Module, path: Path) -> tuple[tuple[str, str], ...]:
    value = literal(tree, "DRIVER_ENV", path, required=False) or {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise UsageError(f"{path}: DRIVER_ENV must be a dict of strings (NAME: VALUE)")
    return tuple(value.items())


def _check_sent_value(tree: ast.Module, path: Path) -> None:
    value = literal(tree, "SENT_VALUE", path, required=False)
    if value is not None and (not isinstance(value, tuple) or not value or not all(
            isinstance(v, (int, str)) and not isinstance(v, bool) and (not isinstance(v, int) or v >= 0)
            for v in value)):
        raise UsageError(f"{path}: SENT_VALUE must be a tuple of argument positions (ints >= 0) and keyword or "
                         "field names (strings), e.g. (1, \"velocity\")")


def module_inputs(path: Path) -> tuple[str, ...]:
    """The INPUTS literal of an integration module (read_module has already checked the file)."""
    return tuple(literal(ast.parse(path.read_text(encoding="utf-8")), "INPUTS", path))


def read_module(path: Path) -> ModuleInfo:
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise UsageError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    base = path.resolve().parent
    entry = literal(tree, "ENTRY", path)
    driver = literal(tree, "DRIVER", path, required=False)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    patches = _patches(tree)
    stubs = []
    for name, fn in sorted(functions.items(), key=lambda kv: kv[1].lineno):
        used = [p for p in patches if p[2] == name]
        if used and _is_stub(fn):
            stubs.append(Stub(name, fn.lineno, tuple(f"{m}.{n}" for m, n, _, _ in used),
                              tuple(dict.fromkeys(h for *_, hz in used for h in hz)),
                              _blocked_reason(text.splitlines()[fn.lineno - 1:fn.end_lineno])))
    hazards = tuple(h for *_, hz in patches for h in hz)
    checked = {name: literal(tree, name, path, required=name in ("ENTRY", "GRAPH", "EXPORT_WITH"))
               for name in ("ENTRY", "GRAPH", "NODE", "EXPORT_WITH", "INPUTS", "STATE")}
    bad = names.problems({k: v for k, v in checked.items() if v is not None})
    _check_sent_value(tree, path)
    if bad:
        raise UsageError(f"{path}: {bad[0]}")
    return ModuleInfo(
        path=path, entry=entry, app_root=(base / literal(tree, "APP_ROOT", path)).resolve(),
        driver=(base / driver).resolve() if driver else None, graph=literal(tree, "GRAPH", path),
        export_with=literal(tree, "EXPORT_WITH", path), stubs=tuple(stubs),
        findings=_merge_findings(_listed_findings(text), hazards), unresolved=_listed_findings(text),
        host_runtime=tuple(literal(tree, "HOST_RUNTIME", path, required=False) or ()),
        left_out=tuple(literal(tree, "LEFT_OUT", path, required=False) or ()),
        driver_args=_driver_args(tree, path), driver_env=_driver_env(tree, path),
        constant_inputs=tuple(map(str, literal(tree, "CONSTANT_INPUTS", path, required=False) or ())),
    )


def loc(finding: str) -> tuple[str, int] | None:
    """(path, line) a finding or signal location starts with, or None."""
    m = re.match(r"(\S+):(\d+)(?: |$)", finding)
    return (m.group(1), int(m.group(2))) if m else None


def category(finding: str) -> str:
    """The rule category of a `path:line category: message` finding ('' when it has none)."""
    m = re.match(r"\S+:\d+ ([a-z-]+)(?::|$)", finding)
    return m.group(1) if m else ""


def newer_sources(info: ModuleInfo, limit: int = 5000) -> list[Path]:
    """Application sources the module was generated from that changed after it was written (by
    modification time): the entry's top-level package or module, or for a statement range of the
    driver, the driver. Empty when none (or the module cannot be stat'ed)."""
    try:
        written = info.path.stat().st_mtime
    except OSError:
        return []
    if re.search(r"\.py:\d+-\d+$", info.entry):
        candidates = [info.driver] if info.driver else []
    else:
        top = info.entry.split(":")[0].split(".")[0]
        package, single = info.app_root / top, info.app_root / f"{top}.py"
        candidates = [single] if single.is_file() else []
        if package.is_dir():
            candidates += [p for _, p in zip(range(limit), package.rglob("*.py")) if "__pycache__" not in p.parts]
    newer = []
    for source in candidates:
        try:
            if source.stat().st_mtime > written:
                newer.append(source)
        except OSError:
            continue
    return newer


def refuse_stale(info: ModuleInfo) -> None:
    """UsageError when the application changed after the module was generated."""
    newer = newer_sources(info)
    if newer:
        more = f" (and {len(newer) - 1} more)" if len(newer) > 1 else ""
        raise UsageError(f"{info.path}: {newer[0]}{more} changed after this module was generated; regenerate it "
                         "with `leapp-codemod generate` (your edits to the module are kept)")
