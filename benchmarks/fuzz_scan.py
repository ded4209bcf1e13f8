"""Fuzzing: generated Python programs through `scan --all` and entry mode, counting tracebacks.

    .venv/bin/python benchmarks/fuzz_scan.py [--programs 10000] [--node-share 0.1] [--shards 1]

Programs come from hypothesmith (`from_grammar`: any text the Python grammar accepts; `from_node`: a
share of LibCST-built programs with more realistic structure), from fixed seeds so runs repeat;
`--shards N` splits them over N processes (seeds 0..N-1) and adds up the figures. Each one
is written as a module of a fresh package and analyzed in-process the way the CLI does it: lint
mode (`scan --all`), entry mode with discovery, and entry mode on its first function, each rendered
as text and JSON. A "traceback" is any exception escaping that path (a wrong entry is a ScanError,
the CLI's one-line usage error, and does not count). Prints one JSON line of figures.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import hypothesmith
from hypothesis import HealthCheck, given, seed, settings

from leapp_codemod.scan import ScanError, ScanOptions, scan
from leapp_codemod.report import render
from leapp_codemod.source.cache import Cache


def first_function(text: str) -> str | None:
    """`qualname` of the first function or method the program defines, if it parses."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node.name
        if isinstance(node, ast.ClassDef):
            method = next((m.name for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
            if method:
                return f"{node.name}.{method}"
    return None


def check_program(text: str, folder: Path) -> list[str]:
    """Tracebacks (formatted) from analyzing `text` as `fz/mod.py` under `folder`; [] when clean."""
    package = folder / "fz"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(text, encoding="utf-8", errors="surrogatepass")
    entry = first_function(text)
    modes = [ScanOptions(all_functions=True), ScanOptions()]
    if entry:
        modes.append(ScanOptions(entry=f"fz.mod:{entry}"))
    problems = []
    for options in modes:
        try:
            result = scan([str(package)], options, Cache(None), jobs=1)
            render(result, "text")
            render(result, "json")
        except ScanError:
            pass
        except Exception:  # noqa: BLE001 - counting what the CLI would have shown as a traceback
            problems.append(traceback.format_exc())
    return problems


def run(programs: int, node_share: float, shard_seed: int = 0) -> dict:
    node_count = int(programs * node_share)
    figures = {"programs": 0, "tracebacks": 0, "lines": 0}
    failures: list[tuple[str, str]] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-scan-") as tmp:
        folder = Path(tmp)

        def one(text: str) -> None:
            figures["programs"] += 1
            figures["lines"] += text.count("\n") + 1
            for problem in check_program(text, folder):
                figures["tracebacks"] += 1
                failures.append((text, problem))
            if figures["programs"] % 500 == 0:
                print(f"[shard {shard_seed}] {figures}", file=sys.stderr, flush=True)

        for strategy, count in ((hypothesmith.from_grammar(), programs - node_count),
                                (hypothesmith.from_node(), node_count)):
            if count:
                test = settings(max_examples=count, database=None, deadline=None,
                                suppress_health_check=list(HealthCheck))(given(strategy)(lambda text: one(text)))
                seed(shard_seed)(test)()
    figures["seconds"] = round(time.monotonic() - started, 1)
    for text, problem in failures[:3]:
        print(f"--- program:\n{text}\n--- traceback:\n{problem}", file=sys.stderr)
    return figures


def sharded(programs: int, node_share: float, shards: int) -> dict:
    """`run` over `shards` processes; programs, lines and tracebacks add up, seconds is the wall time."""
    from concurrent.futures import ProcessPoolExecutor

    started = time.monotonic()
    sizes = [programs // shards + (k < programs % shards) for k in range(shards)]
    with ProcessPoolExecutor(max_workers=shards) as pool:
        parts = list(pool.map(run, sizes, [node_share] * shards, range(shards)))
    total = {key: sum(p[key] for p in parts) for key in ("programs", "tracebacks", "lines")}
    return {**total, "seconds": round(time.monotonic() - started, 1), "shards": shards}


def main() -> None:
    warnings.simplefilter("ignore")     # SyntaxWarnings of generated programs are not findings
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=10_000)
    parser.add_argument("--node-share", type=float, default=0.1)
    parser.add_argument("--shards", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(sharded(args.programs, args.node_share, args.shards)))


if __name__ == "__main__":
    main()
