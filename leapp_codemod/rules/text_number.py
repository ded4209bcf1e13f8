"""LCM109: pipeline numbers formatted into text the step goes on computing with (a prompt listing the joint
angles, a command string): each number is read out of the trace as a Python value and printed."""
import ast
import re
import string

from leapp_codemod.analysis.infer.context import parent_map
from leapp_codemod.knowledge.io import LOGGING_METHODS
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules._text_values import holds_text
from leapp_codemod.rules.base import Hit, Rule
from leapp_codemod.rules.scalar_cast import CASTS, kept_formatted, python_number

# builtins that turn one value into its text
_TO_TEXT = frozenset({"str", "repr", "format", "ascii"})


def formatted_values(node: ast.AST, ctx) -> list[ast.expr]:
    """What `node` turns into text: the fields of an f-string, the arguments of `"...".format(...)`, the right side
    of `"..." % (...)`, the argument of `str()`/`repr()`/`format()`, the iterable `map(str, ...)` formats item by
    item. Empty for anything else, and for the format spec nested in an f-string field (`{v:.{n}f}`)."""
    if isinstance(node, ast.JoinedStr):
        if isinstance(parent_map(ctx.fn).get(id(node)), ast.FormattedValue):
            return []
        return [v.value for v in node.values if isinstance(v, ast.FormattedValue)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _text(node.left, ctx):
        return list(node.right.elts) if isinstance(node.right, ast.Tuple) else [node.right]
    if not isinstance(node, ast.Call):
        return []
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "format" and _text(func.value, ctx):
        return [*node.args, *(k.value for k in node.keywords)]
    name = ctx.builtin(node)
    if name in _TO_TEXT and node.args:
        return [node.args[0]]
    if name == "map" and len(node.args) == 2 and _formats(node.args[0], ctx):
        return [node.args[1]]
    return []


# a conversion that prints a number (`{v:.3f}`, `%5.2f`, `{:d}`): what says the text holds a number, not a name
_NUMBER_SPEC = re.compile(r"[bdeEfFgGnoxX%]$")
_PERCENT_NUMBER = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[diouxXeEfFgG]")


def numeric_conversion(node: ast.AST) -> bool:
    """Does the template print a number: an f-string field with a numeric format spec, a `.format` template or a
    `%` template with a numeric conversion, `format(v, ".2f")`?"""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) and isinstance(v.format_spec, ast.JoinedStr)
                   and _NUMBER_SPEC.search("".join(c.value for c in v.format_spec.values
                                                   if isinstance(c, ast.Constant) and isinstance(c.value, str)))
                   for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
        return bool(_PERCENT_NUMBER.search(node.left.value))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Constant) \
            and isinstance(node.func.value.value, str):
        try:
            fields = list(string.Formatter().parse(node.func.value.value))
        except ValueError:
            return False
        return any(spec and _NUMBER_SPEC.search(spec) for _, _, spec, _ in fields)
    if isinstance(node, ast.Call) and len(node.args) == 2 and isinstance(node.args[1], ast.Constant):
        return isinstance(node.args[1].value, str) and bool(_NUMBER_SPEC.search(node.args[1].value))
    return False


def _text(e: ast.expr, ctx) -> bool:
    return isinstance(e, ast.Constant) and isinstance(e.value, str) or isinstance(e, ast.JoinedStr) \
        or holds_text(ctx.fn, e)


def _formats(func: ast.expr, ctx) -> bool:
    """`str`, `repr` or a bound `"{:.2f}".format`: what `map` applies to each item."""
    if isinstance(func, ast.Name):
        return func.id in ("str", "repr") and func.id not in ctx.fn.params and not ctx.fn.assigned(func.id)
    return isinstance(func, ast.Attribute) and func.attr == "format" and _text(func.value, ctx)


def _pipeline_number(value: ast.expr, ctx) -> bool:
    """Pipeline data that is a number or an array of numbers: not a shape, not text travelling with the data,
    not a field of a middleware message (the input being made), not a Python number the step carries (its own
    finding), not a cast or `.item()` (reported as such)."""
    if _cast(value, ctx):
        return False
    return ctx.is_data(value) and not ctx.is_shape(value) and not holds_text(ctx.fn, value) \
        and not ctx.is_message_field(value) and not python_number(value, ctx) and not _path(value, ctx)


def _cast(value: ast.expr, ctx) -> bool:
    return isinstance(value, ast.Call) and (ctx.builtin(value) in CASTS or isinstance(value.func, ast.Attribute)
                                            and value.func.attr in ("item", "tolist"))


def _path(value: ast.expr, ctx, depth: int = 0) -> bool:
    """A file system path (`Path(root) / name`, `os.path.join(...)`, or a local bound only to one): text, not a
    number."""
    if depth > 2:
        return False
    if isinstance(value, ast.NamedExpr):
        return _path(value.value, ctx, depth + 1)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):
        return _path(value.left, ctx, depth + 1)
    if isinstance(value, ast.Call):
        return (ctx.call_name(value) or "").startswith(("pathlib.", "os.path.", "os.fspath"))
    if isinstance(value, ast.Name):
        bound = ctx.fn.assigned(value.id)
        return bool(bound) and all(_path(v, ctx, depth + 1) for v in bound)
    return False


def _message_only(node: ast.AST, ctx) -> bool:
    """Text that only leaves with a log line, a print, an error, or an `except` block's report."""
    if ctx.only_logged(node) or ctx.in_error_handler(node):
        return True
    parents = parent_map(ctx.fn)
    parent = parents.get(id(node))
    while parent is not None:
        if isinstance(parent, (ast.Raise, ast.Assert)):
            return True
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.Return)) and parent.value is node \
                and kept_formatted(parent, ctx) is not None:
            return True   # LCM102 reports an f-string the step keeps or returns
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) \
                and parent.func.attr in LOGGING_METHODS and isinstance(parents.get(id(parent)), ast.Expr):
            return True   # `overwatch.info(f"...")`: a logger the scan cannot type, whose answer is dropped
        if isinstance(parent, ast.stmt):
            return False
        parent = parents.get(id(parent))
    return False


def check(node: ast.AST, ctx):
    values = formatted_values(node, ctx)
    if not values or _message_only(node, ctx):
        return
    if any(_cast(v, ctx) and ctx.is_data(v.args[0] if v.args else v.func.value) for v in values):
        return   # a cast or `.item()` in the same text: LCM101/LCM102 report it, once
    numeric = numeric_conversion(node)
    number = next((v for v in values if (numeric or ctx.is_numpy(v)) and _pipeline_number(v, ctx)), None)
    if number is None:
        return
    yield Hit(node, f"`{show(node)}` formats pipeline data (`{show(number)}`) into text the step goes on using: "
                    "each number is read out of the trace as a Python value, so the text (and the tokens or "
                    "values made from it) is a constant of the export",
              "keep the numbers as a tensor input of the model (a state vector next to the tokens), or build the "
              "text outside the exported step and make the tokenized text an input of it")


RULE = Rule(
    code="LCM109", name="number-into-text", category="scalar-extraction", severity="error",
    summary="pipeline numbers formatted into text the step goes on using (a prompt, a command string)",
    what="Flags f-strings, `str.format`, `%` formatting and `str()`/`repr()`/`format()` (also `map(str, ...)`) that "
         "turn pipeline data into text (printed as a number, `{v:.3f}`, `%5.2f`, or a NumPy array of it), the items of a pipeline array iterated for it included "
         "(`\", \".join(f\"{v:.2f}\" for v in state)`), when the text goes on into the step's computation: a prompt "
         "handed to a tokenizer or a model, a value of the result. Not flagged: text only logged, printed, raised or "
         "built in an `except` block, or handed to a logging method (`.info(...)`) whose answer is dropped; shapes, "
         "dtypes, file paths and text travelling with the data (an instruction string); "
         "casts and `.item()` inside the field (reported by LCM101/LCM102); an f-string the step keeps or returns "
         "whole (reported by LCM102).",
    why="Formatting calls `__format__`/`__str__` on the value: a traced tensor or array gives plain Python text, and "
        "LEAPP records nothing (no log line at all, not even DEBUG). Whatever is computed from the text (token ids, "
        "a parsed command) is a constant of the export holding the numbers of the tracing call. Checked with the "
        "installed leapp 0.7.2: a step whose token ids come from `\", \".join(f\"{v:.1f}\" for v in x)` traces and "
        "exports silently; validation passes the first sample and reports a mismatch on every later one.",
    fix="Give the numbers to the model as a tensor (a state input next to the tokens), or format and tokenize the "
        "text outside the exported step and declare the token ids an input.",
    example="state_text = \", \".join(f\"{v:.3f}\" for v in joints)\nids = tokenizer(f\"{task} [state: {state_text}]\")",
    fixed_example="ids = tokenizer(task)\nout = model(ids, torch.as_tensor(joints))   # the state as a tensor input",
    node_types=(ast.JoinedStr, ast.Call, ast.BinOp), check=check,
    valid=(
        "import numpy as np\ndef step(obs):\n    q = np.tanh(obs)\n    print(f\"q0 {q[0]:.2f}\")\n    return q\n",
        "def step(obs, note: str, encode):\n    ids = encode(f\"{note} ({obs.shape[0]} values)\")\n"
        "    return obs * ids\n",
        "import numpy as np\ndef step(obs):\n    q = np.tanh(obs)\n    if q.size != 4:\n"
        "        raise ValueError('bad state %s' % q)\n    return q\n",
    ),
    invalid=(
        "import numpy as np\ndef step(obs, encode):\n    q = np.tanh(obs)\n"
        "    text = ' '.join(f'{v:.2f}' for v in q)  # error\n    return encode(text)\n",
        "import numpy as np\ndef step(obs, encode):\n    q = np.tanh(obs)\n"
        "    return encode('grip %.3f' % q[0])  # error\n",
        "import numpy as np\ndef step(obs, encode):\n    q = np.tanh(obs)\n"
        "    return encode(','.join(map(str, q)))  # error\n",
    ),
)
