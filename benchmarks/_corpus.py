"""The real-code corpus the benchmarks read: installed torch.nn, torch.distributions and leapp."""
from __future__ import annotations

import importlib.util
from pathlib import Path


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # locate without importing (torch import takes seconds)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"benchmark corpus needs the installed package {name!r} (make setup)")
    return Path(list(spec.submodule_search_locations)[0])


def corpus_dirs() -> list[Path]:
    torch = package_dir("torch")
    return [torch / "nn", torch / "distributions", package_dir("leapp")]


def python_files(dirs: list[Path]) -> list[Path]:
    return sorted(p for d in dirs for p in d.rglob("*.py") if "__pycache__" not in p.parts)


def count_lines(files: list[Path]) -> int:
    return sum(p.read_bytes().count(b"\n") for p in files)
