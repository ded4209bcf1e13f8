"""Shared test settings, and how the suite splits over pytest-xdist workers.

`make test` runs every test on all cores (`-n auto --dist loadgroup`); `make test-fast` (`pytest --fast`)
leaves out the tests marked `e2e` (real LEAPP/torch/onnxruntime exports) and `slow` (torch-heavy property
checks, subprocess-heavy checks, and the tests `SLOW_IN_FAST` names), for the edit loop. A module marked whole (`pytestmark = pytest.mark.e2e`
or `.slow`) is not even imported then: its imports (torch, leapp, hypothesmith) cost seconds.
"""
import gc
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import settings

from leapp_codemod.runner import warmstart  # the standard library only

# CI runs the property tests with a fixed derandomized search (reproducible runs); locally each run
# explores new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

FAST = "not e2e and not slow"
_WHOLE_MODULE_MARK = re.compile(r"^pytestmark = pytest\.mark\.(e2e|slow)\b", re.MULTILINE)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true", help=f"the edit loop: only the tests matching -m '{FAST}'")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("fast"):
        config.option.markexpr = f"({config.option.markexpr}) and {FAST}" if config.option.markexpr else FAST


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if (config.getoption("fast") and collection_path.suffix == ".py" and collection_path.name.startswith("test_")
            and _WHOLE_MODULE_MARK.search(collection_path.read_text(encoding="utf-8"))):
        return True
    return None


# Tests left out of the edit loop (`--fast`) though not marked in their module: each costs a second or
# more of CPU (a driver run under observation, several CLI processes, a whole-tree scan) and another
# test of the same behaviour stays in the loop. `make test` runs them all. A node id, or its start.
# (Tests that run `scan`/`lint`/`generate` in their own process, tests/inprocess.py, cost a tenth of
# that and stay in the loop: every `generate` layout and refusal, SARIF of every fixture.)
SLOW_IN_FAST: dict[str, str] = {
    "tests/test_scan_observed.py::": "runs each application's driver under observation",
    "tests/test_observe.py::test_generate_static_choice_and_the_driver_beside_it": "generate twice and a driver run",
    "tests/test_generate_defaults.py::test_the_projects_line_length_is_kept": "three generate runs",
    "tests/test_no_heavy_imports.py::test_scan_imports_no_torch_numpy_or_leapp": "every command on every fixture",
    "tests/test_cli_output.py::test_colour_on_a_terminal_and_off_with_no_color_or_a_pipe": "a pseudo-terminal run",
    "tests/test_cache_tool_change.py::test_an_edited_rule_invalidates_the_cache": "copies the tool and scans",
    "tests/test_fuzz_inputs.py::test_a_few_hundred_inputs_give_no_traceback": "hundreds of inputs",
    "tests/test_readonly.py::test_real_process_writes_no_bytecode_or_files": "every command in a read-only tree",
    "tests/test_scan_flow.py::test_recurrent_state_through_an_installed_library": "scans an installed library",
    "tests/test_observe_layer.py::test_a_signal_to_scan_driver_stops_the_observed_process_group[15]": "[2] stays",
    "tests/test_boundary.py::test_without_a_session_input_tensors_passes_values_through":
        "imports LEAPP (about 5 s of CPU); every end-to-end run passes values through it",
}


def _slow_in_fast(nodeid: str) -> bool:
    return any(nodeid.startswith(start) for start in SLOW_IN_FAST)


# Scopes whose fixtures are built once per worker that runs a test of the scope: tests sharing one
# must run on one worker, or each worker builds (exports, generates) it again.
SHARED_SCOPES = ("module", "class", "package")
BUILDS_NOTHING = frozenset({"_spawn_of_module"})     # module-scoped, but only sets an environment variable


def _shared_fixtures(item: pytest.Item) -> set[str]:
    """The fixtures of `item` (its own and those they use) built once per module, class or package; a
    parametrized one named with its parameter (each parameter is built on its own)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    callspec = getattr(item, "callspec", None)
    indices = callspec.indices if callspec is not None else {}
    return {f"{name}={indices[name]}" if name in indices else name for name in item.fixturenames
            if name not in BUILDS_NOTHING
            and any(fixturedef.scope in SHARED_SCOPES for fixturedef in info.name2fixturedefs.get(name, ()))}


def _groups(items: list[pytest.Item]) -> dict[pytest.Item, str]:
    """One group per set of tests linked by what they share: a fixture of their module built once per
    module, class or package (`a` and `b` share `x`, `b` and `c` share `y`: one group), or an `xdist_group`
    mark of their own (a run shared across modules, e.g. `doc_session`); tests that share nothing get no
    group."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    shared: dict[pytest.Item, list[str]] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        shared[item] = ([f"{module}({name})" for name in sorted(_shared_fixtures(item))]
                        + [mark.args[0] for mark in item.iter_markers("xdist_group") if mark.args])
    for names in shared.values():
        for name in names:
            parent[root(name)] = root(names[0])
    members: dict[str, set[str]] = {}
    for name in list(parent):
        members.setdefault(root(name), set()).add(name)
    return {item: ",".join(sorted(members[root(names[0])])) for item, names in shared.items() if names}


def _suffix_group(item: pytest.Item, group: str) -> None:
    """pytest-xdist's loadgroup sends the tests whose node ids end in the same `@group` to one worker; it
    appends the suffix through `item._nodeid`, which pytest 9.2 no longer reads (the id lives in `item._id`),
    so without this every worker would build each shared fixture again. The suffix is appended here."""
    node_id = getattr(item, "_id", None)
    if node_id is None or not hasattr(node_id, "names") or str(node_id).endswith(f"@{group}"):
        return
    assert "]" not in group and "@" not in group, group     # xdist splits the id at the last '@' after any ']'
    last = node_id.names[-1] + (f"[{node_id.params}]" if node_id.params is not None else "")
    item._id = type(node_id)(path=node_id.path, names=(*node_id.names[:-1], f"{last}@{group}"))


def _cost_rank(items: list[pytest.Item]) -> int:
    """0 for a module with end-to-end tests, 1 with slow tests, 2 otherwise: long work starts first,
    so no worker is left alone with a long test at the end."""
    if any(item.get_closest_marker("e2e") for item in items):
        return 0
    return 1 if any(item.get_closest_marker("slow") for item in items) else 2


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    by_module: dict[str, list[pytest.Item]] = {}
    for item in items:
        if _slow_in_fast(item.nodeid):
            item.add_marker(pytest.mark.slow)
        by_module.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    loadgroup = getattr(config.option, "loadgroup", False)      # set in pytest-xdist's workers by --dist loadgroup
    for item, group in _groups(items).items():
        item.add_marker(pytest.mark.xdist_group(group), append=False)
        if loadgroup:
            _suffix_group(item, group)
    rank = {module: _cost_rank(module_items) for module, module_items in by_module.items()}
    items.sort(key=lambda item: rank[item.nodeid.split("::", 1)[0]])  # stable: each module keeps its order


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection imported (pytest, hypothesis, torch and SciPy for the modules that import them at
    the top) is kept out of the garbage collector's full passes from here on (`gc.freeze`): each pass
    otherwise walks those millions of objects again; about 15 % of the CPU of in-process tests."""
    gc.freeze()


@pytest.fixture(scope="session")
def doc_session(tmp_path_factory):
    """Runs a documented command session (tests/test_doc_examples.py) once per worker, checking its quoted
    output, and returns its `SessionRun`: the doc test and the test of the same behaviour elsewhere share
    one export (both marked `xdist_group(doc_group(session))`)."""
    from test_doc_examples import run_session
    runs = {}

    def get(session):
        if session.id not in runs:
            runs[session.id] = run_session(session, tmp_path_factory.mktemp("doc-session"))
        return runs[session.id]
    return get


# `LEAPP_CODEMOD_TEST_CPU=FILE`: each test's CPU seconds (user + system, its child processes included:
# the CLI, `run`'s child) appended to FILE as JSON lines; wall time misleads on a shared machine.
_CPU_REPORT = os.environ.get("LEAPP_CODEMOD_TEST_CPU")
_REAPED: dict[str, float] = {}      # CPU of a process reaped in a test's teardown that is not the test's


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    if not _CPU_REPORT:
        yield
        return
    start, began = _cpu_seconds(), time.time()
    yield
    reaped = _REAPED.pop("forkserver", 0.0)     # not this test's: see `forkserver`
    with open(_CPU_REPORT, "a", encoding="utf-8") as out:
        out.write(json.dumps({"test": item.nodeid, "cpu": round(_cpu_seconds() - start - reaped, 3),
                              "worker": os.environ.get("PYTEST_XDIST_WORKER", "controller"),
                              "start": round(began, 2), "wall": round(time.time() - began, 3)}) + "\n")


# `run`'s child and the observer's from a warm process (tests/forkserver.py, leapp_codemod/runner/warmstart.py):
# a worker whose tests include end-to-end ones starts one server that has imported torch, NumPy, ONNX and
# Warp, and every `run` or observed driver of the worker asks it to fork the child instead of starting an
# interpreter that imports them again (about 8 s of CPU each for `run`, 2.5 s for the observer's driver). Tests and modules marked `real_spawn` start the child as users do;
# so does every test of `make test-fast` (no server). `LEAPP_CODEMOD_TEST_WARM=0` turns it off.
WARM = os.environ.get("LEAPP_CODEMOD_TEST_WARM", "1") != "0"
FORKSERVER_ENV = warmstart.ENV


def _start_server(folder: Path) -> tuple[subprocess.Popen, Path]:
    """Starts the warm-start server (it binds its socket once warm, about 8 CPU-s later); returns it and the socket."""
    log_path, sock = folder / "server.log", folder / "s"
    if len(str(sock)) > 100:            # a Unix socket's path is at most 107 bytes
        import tempfile
        sock = Path(tempfile.mkdtemp(prefix="lcm-fs-")) / "s"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAPP_CODEMOD_")}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1")       # as runner.parent starts the child
    with open(log_path, "wb") as log:
        server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("forkserver.py")), str(sock)],
                                  stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, start_new_session=True)
    return server, sock


def _await_server(pid: int, sock: Path, seconds: float = 300) -> str | None:
    """`PID:SOCKET` once the server's socket exists; None when the server died or took too long."""
    deadline = time.monotonic() + seconds
    while not sock.exists() and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        time.sleep(0.1)
    return f"{pid}:{sock}" if sock.exists() else None


def _stop_server(server: subprocess.Popen, owner: str) -> float:
    """Kills and reaps the server; returns the CPU seconds reaping added to this process's children."""
    before = _cpu_seconds()
    server.kill()
    server.wait()
    spent = _cpu_seconds() - before
    if _CPU_REPORT:
        with open(_CPU_REPORT, "a", encoding="utf-8") as out:
            out.write(json.dumps({"process": f"forkserver of {owner}", "children": round(spent, 3)}) + "\n")
    return spent


@pytest.fixture(scope="session")
def forkserver(tmp_path_factory):
    """The warm-start server's `PID:SOCKET`, or None when it did not come up (the child then starts as always).
    Each worker starts its own once its collection is done: the libraries the test modules import set
    variables (KMP_*, TORCHINDUCTOR_CACHE_DIR, LD_LIBRARY_PATH) that the server compares with each request's
    start-up environment, so a server started before collection (by xdist's controller) refuses them all."""
    server, sock = _start_server(tmp_path_factory.mktemp("forkserver"))
    yield _await_server(server.pid, sock)
    # Reaping the server adds its whole CPU (its children's too, each already reported under its test)
    # to this worker's children; the last test, whose teardown this is, does not count it.
    _REAPED["forkserver"] = _stop_server(server, os.environ.get("PYTEST_XDIST_WORKER", "controller"))


def _wants_warm(node) -> bool:
    return WARM and node.get_closest_marker("real_spawn") is None


@pytest.fixture(scope="session", autouse=True)
def _warm_session(request):
    """Starts the server when this worker runs an end-to-end test (`make test-fast` runs none)."""
    if not (WARM and any(item.get_closest_marker("e2e") for item in request.session.items)):
        yield
        return
    address = request.getfixturevalue("forkserver")
    if address:
        os.environ[FORKSERVER_ENV] = address
    yield
    os.environ.pop(FORKSERVER_ENV, None)


@pytest.fixture(scope="module", autouse=True)
def _spawn_of_module(request, _warm_session):
    yield from _spawn_mode(request)


@pytest.fixture(autouse=True)
def _spawn_of_test(request, _spawn_of_module):
    yield from _spawn_mode(request)


def _spawn_mode(request):
    """A module or test marked `real_spawn` runs without the server's address (its `run` starts a fresh
    interpreter); the address comes back after it."""
    address = os.environ.get(FORKSERVER_ENV)
    if address is None or _wants_warm(request.node):
        yield
        return
    del os.environ[FORKSERVER_ENV]
    try:
        yield
    finally:
        os.environ[FORKSERVER_ENV] = address


def pytest_sessionfinish(session: pytest.Session) -> None:
    """With `LEAPP_CODEMOD_TEST_CPU`: one more line per process (each xdist worker, and the controller)
    with its whole CPU: what the tests' lines do not hold is collection and start-up."""
    if _CPU_REPORT:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(_CPU_REPORT, "a", encoding="utf-8") as out:
            out.write(json.dumps({"process": os.environ.get("PYTEST_XDIST_WORKER", "controller"),
                                  "self": round(own.ru_utime + own.ru_stime, 3),
                                  "children": round(children.ru_utime + children.ru_stime, 3)}) + "\n")
