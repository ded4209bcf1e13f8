"""`entrypoints --driver`: the driver runs under the one observation layer (`leapp_codemod.observe`)
with the entrypoint ranking listener; this module only names the roots it watches."""
from __future__ import annotations

from pathlib import Path

from leapp_codemod.observe.process import ObserveError, run_observer

__all__ = ["ObserveError", "observe_driver", "watched_roots"]


def watched_roots(paths: list[Path], driver: Path | None) -> list[str]:
    """The folders whose code is the application's: the scanned paths and the driver's folder."""
    roots = {str(p.resolve() if p.is_dir() else p.resolve().parent) for p in paths}
    if driver is not None:
        roots.add(str(driver.resolve().parent))
    return sorted(roots)


def observe_driver(paths: list[Path], driver: Path, import_root: Path, calls: int, timeout: float) -> dict:
    """Run `driver` in a child process under the tracer; the recorded calls (see `observe.ranking`)."""
    return run_observer(roots=watched_roots(paths, driver), import_root=import_root, calls=calls, timeout=timeout,
                        driver=driver, rank=True)
