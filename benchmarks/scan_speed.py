"""Scan throughput (lines/s) on real code, cold and warm, next to bare parsers.

    .venv/bin/python benchmarks/scan_speed.py

Rows: a bare LibCST parse and a bare `ast.parse` of the same files (floors: no analysis at all),
then `leapp-codemod scan --all` cold (empty cache; 1 process and all cores) and warm (unchanged
tree, cache filled). Each scan row is a fresh process, so interpreter start is included. The last line
is the per-core ratio: the LibCST parse time over the 1-process scan time (>= 1.0: the scan is as fast
as a bare LibCST parse of the same files).
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import corpus_dirs, count_lines, python_files  # noqa: E402

TOOL = [sys.executable, "-m", "leapp_codemod"]


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def parse_all_libcst(texts: list[str]) -> None:
    import libcst
    for text in texts:
        try:
            libcst.parse_module(text)
        except Exception:  # noqa: BLE001 - a file LibCST rejects costs what it cost
            pass


def parse_all_ast(texts: list[str]) -> None:
    for text in texts:
        try:
            ast.parse(text)
        except SyntaxError:
            pass


def scan(dirs: list[Path], cache_dir: str, jobs: int) -> float:
    env = {**os.environ, "LEAPP_CODEMOD_CACHE_DIR": cache_dir}
    argv = TOOL + ["scan", "--all", "--exit-zero", "--format", "json", "-j", str(jobs), *map(str, dirs)]
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"scan failed ({proc.returncode}): {proc.stderr[-500:]}")
    return elapsed


def main() -> None:
    dirs = corpus_dirs()
    files = python_files(dirs)
    lines = count_lines(files)
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    cores = os.cpu_count() or 1
    rows = [("LibCST parse only (floor)", timed(lambda: parse_all_libcst(texts))),
            ("ast.parse only (floor)", timed(lambda: parse_all_ast(texts)))]
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as many:
        rows.append(("scan --all cold, 1 process", scan(dirs, one, 1)))
        rows.append((f"scan --all cold, {cores} processes", scan(dirs, many, cores)))
        rows.append(("scan --all warm (unchanged tree)", scan(dirs, many, cores)))
    print(f"corpus: {len(files)} files, {lines} lines ({', '.join(d.name for d in dirs)})")
    print(f"{'measurement':38s} {'seconds':>8s} {'lines/s':>10s}")
    for name, seconds in rows:
        print(f"{name:38s} {seconds:8.2f} {lines / seconds:10.0f}")
    # per core: one scan process against one parse, both timed in this run on the same files
    print(f"scan --all per core / LibCST parse: {rows[0][1] / rows[2][1]:.2f}x")


if __name__ == "__main__":
    main()
