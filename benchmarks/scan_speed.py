"""Scan throughput (lines per CPU second) on real code, cold and warm, next to bare parsers.

    .venv/bin/python benchmarks/scan_speed.py
    .venv/bin/python benchmarks/scan_speed.py --before /path/to/other/leapp-codemod   # also time that build

Rows: a bare LibCST parse and a bare `ast.parse` of the same files (floors: no analysis at all),
then `leapp-codemod scan --all` cold (empty cache; 1 process and all cores) and warm (unchanged
tree, cache filled). Each scan row is a fresh process, so interpreter start is included. Times are CPU
seconds (user + system: the parse rows of this process, the scan rows of the child and its workers), so
other work on a shared machine does not count; wall seconds are shown beside them. The last line is the
per-core ratio: the LibCST parse CPU time over the 1-process scan CPU time (>= 1.0: the scan is as fast
as a bare LibCST parse of the same files). With `--before`, that build's 1-process cold scan is timed in
the same run, right before this one's.
"""
from __future__ import annotations

import argparse
import ast
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import corpus_dirs, count_lines, python_files  # noqa: E402

TOOL = [sys.executable, "-m", "leapp_codemod"]


def timed(fn) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of `fn()` in this process."""
    start, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - start, time.perf_counter() - wall


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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


def scan(dirs: list[Path], cache_dir: str, jobs: int, tool: list[str] = TOOL) -> tuple[float, float]:
    """(CPU seconds of the scan process and its workers, wall seconds)."""
    env = {**os.environ, "LEAPP_CODEMOD_CACHE_DIR": cache_dir}
    argv = tool + ["scan", "--all", "--exit-zero", "--format", "json", "-j", str(jobs), *map(str, dirs)]
    cpu, start = _children_cpu(), time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"scan failed ({proc.returncode}): {proc.stderr[-500:]}")
    return _children_cpu() - cpu, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=None, help="another build's leapp-codemod: its 1-process cold scan too")
    opts = parser.parse_args()
    if opts.before and not (os.path.isfile(opts.before) and os.access(opts.before, os.X_OK)):
        parser.error(f"--before {opts.before}: not an executable file; give that build's leapp-codemod "
                     "(e.g. OTHER/.venv/bin/leapp-codemod)")
    dirs = corpus_dirs()
    files = python_files(dirs)
    lines = count_lines(files)
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    cores = os.cpu_count() or 1
    rows = [("LibCST parse only (floor)", timed(lambda: parse_all_libcst(texts))),
            ("ast.parse only (floor)", timed(lambda: parse_all_ast(texts)))]
    with tempfile.TemporaryDirectory() as before, tempfile.TemporaryDirectory() as one, \
            tempfile.TemporaryDirectory() as many:
        if opts.before:
            rows.append(("before: scan --all cold, 1 process", scan(dirs, before, 1, [opts.before])))
        rows.append(("scan --all cold, 1 process", scan(dirs, one, 1)))
        rows.append((f"scan --all cold, {cores} processes", scan(dirs, many, cores)))
        rows.append(("scan --all warm (unchanged tree)", scan(dirs, many, cores)))
    print(f"corpus: {len(files)} files, {lines} lines ({', '.join(d.name for d in dirs)})")
    print(f"{'measurement':38s} {'CPU s':>8s} {'lines/CPU s':>12s} {'wall s':>8s}")
    for name, (cpu, wall) in rows:
        print(f"{name:38s} {cpu:8.2f} {lines / cpu:12.0f} {wall:8.2f}")
    parse = rows[0][1][0]
    timed_rows = dict(rows)
    if opts.before:
        print(f"before: scan --all per core / LibCST parse: {parse / timed_rows['before: scan --all cold, 1 process'][0]:.2f}x")
    # per core: one scan process against one parse, both timed in this run on the same files, in CPU seconds
    print(f"scan --all per core / LibCST parse: {parse / timed_rows['scan --all cold, 1 process'][0]:.2f}x")


if __name__ == "__main__":
    main()
