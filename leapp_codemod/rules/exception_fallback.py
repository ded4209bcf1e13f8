"""LCM203: a `try:` around pipeline computation whose `except` block computes the same result another way (a
fallback gait when the policy raises, a second preprocessing path): the trace holds the path the traced calls
took, and nothing in the export says which."""
import ast

from leapp_codemod.knowledge.leapp import FALLBACK_STRUCTURAL_ERRORS
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule

# exceptions that guard imports, iteration and interrupts, not a computation on the data
_NOT_COMPUTATION = frozenset({"ImportError", "ModuleNotFoundError", "StopIteration", "StopAsyncIteration",
                              "KeyboardInterrupt", "GeneratorExit", "AttributeError", "NameError"})


# lookups that fail on the structure of a value (a missing key, an index past the end), which is the same on every
# call of a pipeline whose shapes and keys are fixed: the traced path is the shipped path
_STRUCTURAL = FALLBACK_STRUCTURAL_ERRORS
# calls that only read what a value holds: a `try` made of them fails on structure, never on the numbers
_READ_CALLS = frozenset({"getattr", "hasattr", "len", "isinstance", "get", "astype", "copy", "reshape", "ravel",
                         "flatten", "squeeze", "tolist", "item", "numpy", "cpu", "detach", "to", "float", "int",
                         "asarray", "array", "tuple", "list", "dict"})


def _data_index(body: list[ast.stmt], ctx) -> bool:
    """Does the block index at a position pipeline data gives (`path[nearest + 1]`, past the end for some data)?"""
    return any(isinstance(n, ast.Subscript) and ctx.is_data(n.slice) and not ctx.is_shape(n.slice)
               for stmt in body for n in ast.walk(stmt))


def _reads_only(body: list[ast.stmt], ctx) -> bool:
    """Is every call in the block a read (`data.cvel[i, 0:3].astype(np.float32)`, `getattr(d, "ndim", 1)`) at
    positions that are no pipeline data?"""
    if _data_index(body, ctx):
        return False
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name not in _READ_CALLS:
                return False
    return True


def _caught(handler: ast.ExceptHandler) -> list[str]:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type] if handler.type else []
    return [k.attr if isinstance(k, ast.Attribute) else k.id if isinstance(k, ast.Name) else "" for k in kinds]


def _results(body: list[ast.stmt]) -> tuple[set[str], list[ast.Return]]:
    """The names the statements bind by `=` (any depth, nested functions left out) and their `return`s."""
    names, returns, stack = set(), [], list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Assign):
            names |= {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Return) and node.value is not None \
                and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            returns.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return names, returns


def _computes_with_data(body: list[ast.stmt], ctx) -> bool:
    """Does a statement of the `try` body bind or return a value computed from pipeline data?"""
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)) and node.value is not None \
                and ctx.is_data(node.value) and not ctx.is_shape(node.value):
            return True
    return False


def fallback_handler(node: ast.Try, ctx) -> ast.ExceptHandler | None:
    """The first `except` block that computes what the `try` body computes (binds one of the names it binds with
    pipeline data, or returns a value where it returns one), for a body that computes with pipeline data. Not
    a block that only logs, re-raises or returns nothing, nor one catching an import or iteration error."""
    if not node.handlers or _reads_only(node.body, ctx) or not _computes_with_data(node.body, ctx):
        return None
    bound, _ = _results(node.body)
    for handler in node.handlers:
        caught = _caught(handler)
        if any(kind in _NOT_COMPUTATION for kind in caught) or (
                caught and set(caught) <= _STRUCTURAL and not _data_index(node.body, ctx)):
            continue
        if all(isinstance(s, (ast.Raise, ast.Pass, ast.Continue, ast.Break)) or ctx.only_io([s])
               for s in handler.body):
            continue
        names, handler_returns = _results(handler.body)
        if (names & bound or handler_returns) and _gives_value(handler.body, ctx) \
                and not _retries(node.body, handler.body):
            return handler
    return None


def _retries(body: list[ast.stmt], handler: list[ast.stmt]) -> bool:
    """Does the handler only run again what the body computes (`torch.cuda.empty_cache(); out = model(x)`)? Then
    both paths record the same operations."""
    def values(stmts):
        return {ast.dump(n.value) for s in stmts for n in ast.walk(s)
                if isinstance(n, (ast.Assign, ast.AnnAssign, ast.Return)) and n.value is not None}
    again = values(handler)
    return bool(again) and again <= values(body)


def _gives_value(body: list[ast.stmt], ctx) -> bool:
    """Does a statement of the block bind or return a value, a literal default (`gain = 1.0`) and a constant array
    (`return np.zeros(3)`) alike? `None` and a status (`return False`, `ok = False`) give none: the caller tests
    them, they are no result; nor is handing back an object the function was given (`return response`)."""
    return any(isinstance(n, (ast.Assign, ast.AnnAssign, ast.Return)) and n.value is not None
               and not (isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id in ctx.fn.params)
               and not (isinstance(n.value, ast.Constant)
                        and (n.value.value is None or isinstance(n.value.value, bool)))
               for stmt in body for n in ast.walk(stmt))


def check(node: ast.Try, ctx):
    handler = fallback_handler(node, ctx)
    if handler is None:
        return
    caught = show(handler.type) if handler.type is not None else "any exception"
    yield Hit(node, f"the `try` block computes with pipeline data and its `except {caught}` block (line "
                    f"{handler.lineno}) gives the result another way (a default counts): LEAPP records only the "
                    "path the traced calls ran, so the export holds one of the two, with nothing in it saying which",
              "make the fallback a decision the host takes before calling the exported step (export each path "
              "as its own step), or drop the `except` path from the pipeline")


RULE = Rule(
    code="LCM203", name="exception-fallback", category="tensor-branch", severity="error",
    summary="`try`/`except` around pipeline computation whose `except` block computes the result another way",
    what="Flags a `try:` whose body binds or returns a value computed from pipeline data and one of whose `except` "
         "blocks gives the result another way: it binds a name the body binds or returns (a second preprocessing "
         "path, an early exit). A default is a fallback like any other: a literal (`out = 0.0`) and a constant "
         "array (`return np.zeros(3)`) are treated alike. Not flagged: a body that only reads (indexing, "
         "attributes, `getattr`, `.astype`, `dict.get`) and handlers that catch only lookup errors (`KeyError`, "
         "`IndexError`), which fail on a value's structure, the same on every call of the pipeline, unless an "
         "index is pipeline data (`path[nearest + 1]`); `except` blocks that only log, print, re-raise, `pass`, "
         "return nothing, bind `None`, report a status (`return False`) or hand back an object the function was "
         "given (`return response`), a retry of the same "
         "computation, and handlers of import, iteration and attribute errors (`ImportError`, `StopIteration`, "
         "`AttributeError`).",
    why="A trace records the operations that ran. When a traced call raised inside the `try`, LEAPP keeps the "
        "handler's operations (the ops of the body before the raise are left unused) and the export is the fallback "
        "path; when it did not, the fallback is not in the export at all, whether it computes or returns a "
        "constant. Which one the export holds is not logged. Checked with the installed leapp 0.7.2: a step whose "
        "first traced call falls back from `torch.linalg.cholesky` to `torch.tanh` exports the `tanh` path only "
        "(its graph has no cholesky); validation passes the first sample and fails the later ones that took the "
        "`try` path. A `try` that only reads (`x[idx].astype(np.float32)`, `except Exception: return np.zeros(3)`) "
        "exports the read and validates (tests/test_leapp_fallback_read.py): its failure depends on structure, "
        "which the export fixes anyway.",
    fix="Decide on the host which path runs and export each path as its own step, or remove the fallback from the "
        "exported function (validate the input before the call instead of catching the failure inside it).",
    example="try:\n    target = policy(obs)\nexcept RuntimeError:\n    target = fallback_gait(obs)",
    fixed_example="target = policy(obs)   # the host checks obs before the call and runs the fallback itself",
    node_types=(ast.Try,), check=check,
    valid=(
        "import logging\nimport numpy as np\ndef step(obs):\n    try:\n        out = np.tanh(obs)\n"
        "    except ValueError:\n        logging.error('bad obs')\n        raise\n    return out\n",
        "import numpy as np\ndef step(obs):\n    try:\n        import scipy\n    except ImportError:\n"
        "        scipy = None\n    return np.tanh(obs)\n",
        "import numpy as np\ndef step(obs, table):\n    try:\n        gain = table['gain']\n    except KeyError:\n"
        "        gain = 1.0\n    return np.tanh(obs) * gain\n",
        # a retry of the same computation records the same operations
        "import torch\ndef step(obs, model):\n    try:\n        out = model(obs)\n    except RuntimeError:\n"
        "        torch.cuda.empty_cache()\n        out = model(obs)\n    return out\n",
        # a read fails on structure only: a constant array default is a default like `1.0`
        "import numpy as np\ndef step(obs):\n    try:\n        head = obs[np.array([0, 1, 2])].astype(np.float32)\n"
        "    except Exception:\n        return np.zeros(3, dtype=np.float32)\n    return np.tanh(head)\n",
        "import numpy as np\ndef step(obs, frames):\n    try:\n        ref = np.tanh(frames['ref']) * obs\n"
        "    except KeyError:\n        ref = np.zeros(3)\n    return ref\n",
    ),
    invalid=(
        "import numpy as np\ndef step(obs, policy):\n    try:  # error\n        out = policy(obs)\n"
        "    except RuntimeError:\n        out = np.tanh(obs)\n    return out\n",
        "import numpy as np\ndef step(obs):\n    try:  # error\n        return np.linalg.solve(obs, obs[0])\n"
        "    except Exception:\n        print('singular')\n        return obs[0] * 0.5\n",
        # a computation's constant default, literal or array alike
        "import numpy as np\ndef step(obs):\n    try:  # error\n        w = np.linalg.solve(obs, obs[0])\n"
        "    except np.linalg.LinAlgError:\n        return np.zeros(3)\n    return w * 2.0\n",
        # a lookup at a position the data gives fails for some data
        "import numpy as np\ndef step(obs, path):\n    i = np.argmin(np.abs(path - obs))\n"
        "    try:  # error\n        nxt = path[i + 1]\n    except IndexError:\n        nxt = path[0]\n"
        "    return nxt - obs\n",
        "import numpy as np\ndef step(obs, decode):\n    try:  # error\n        img = decode(obs) / 255.0\n"
        "    except ValueError:\n        img = 0.0\n    return np.tanh(img)\n",
    ),
)
