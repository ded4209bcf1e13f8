"""Pre-commit latency: `lint` of one changed file in a ~100k-line repository, next to ruff and flake8.

    .venv/bin/python benchmarks/lint_latency.py

The repository is a temporary copy of installed real code (torch.nn, torch.distributions,
torch.optim, leapp). One file is changed, then each tool checks that one file in a fresh
process (interpreter start included); best of 5 runs. A warm whole-tree re-scan after the
change is reported too (only the changed file is re-analyzed).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import corpus_dirs, count_lines, package_dir, python_files  # noqa: E402

RUNS = 5


def best_of(argv: list[str], cwd: Path, env: dict, touch: Path | None = None) -> float | None:
    """Best wall time of RUNS fresh processes; `touch` gets a new line before each run (a changed file)."""
    if shutil.which(argv[0]) is None and not Path(argv[0]).exists():
        return None
    best = float("inf")
    for run in range(RUNS):
        if touch is not None:
            touch.write_text(touch.read_text() + f"\n# change {run}\n")
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    bindir = Path(sys.executable).parent
    sources = corpus_dirs() + [package_dir("torch") / "optim", package_dir("torch") / "fx"]
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp, "repo")
        for src in sources:
            shutil.copytree(src, repo / src.name, ignore=shutil.ignore_patterns("__pycache__"))
        (repo / "pyproject.toml").write_text("[project]\nname = 'bench'\nversion = '0'\n")
        files = python_files([repo])
        env = {**os.environ, "LEAPP_CODEMOD_CACHE_DIR": str(Path(tmp, "cache"))}
        tool = [str(bindir / "leapp-codemod")]
        subprocess.run(tool + ["scan", "--all", "--exit-zero", "."], cwd=repo, env=env, capture_output=True)
        changed = repo / "nn" / "modules" / "rnn.py"
        rel = str(changed.relative_to(repo))
        lines_changed = changed.read_text().count("\n")
        rows = [
            ("leapp-codemod lint (changed file)", best_of(tool + ["lint", "--exit-zero", rel], repo, env, changed)),
            ("ruff check (changed file)",
             best_of([str(bindir / "ruff"), "check", "--no-cache", "--exit-zero", rel], repo, env, changed)),
            ("flake8 (changed file)", best_of([str(bindir / "flake8"), "--exit-zero", rel], repo, env, changed)),
            ("leapp-codemod scan --all (1 changed file)",
             best_of(tool + ["scan", "--all", "--exit-zero", "."], repo, env, changed)),
        ]
        print(f"repository: {len(files)} files, {count_lines(files)} lines; changed file {rel} ({lines_changed} lines)")
        print(f"{'measurement':40s} {'best of 5 (s)':>14s}")
        for name, seconds in rows:
            print(f"{name:40s} {'not installed' if seconds is None else f'{seconds:14.3f}'}")


if __name__ == "__main__":
    main()
