"""A step that returns nothing and sends its result out: which send call, and which of its arguments (or which
field of a message object built for it) carries the step's data. Read from the source without importing it.

The value sent is found by dataflow: the arguments of the send, and the arguments and assigned fields of a
message object built in the call (or in a local assigned once before it), are the candidates; a candidate
carries the step's data when it reads a local the step computed (or calls a model the instance holds).
Constants (a topic, a channel number, a joint-name list) and values only passed through from the inputs (a
header built from the input's stamp) stay host side. `SentValue.selectors` says where the value is at run
time (`boundary.sent_result`): the send's argument (position or keyword), then each field (a constructor's
argument position or keyword, an assigned attribute, a dict key)."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.generate.literals import line_text_literal, selector_literal, tuple_literal
from leapp_codemod.knowledge.io import SEND_METHODS
from leapp_codemod.knowledge.vocab import LIBRARY_NAMES

Selector = int | str


@dataclass(frozen=True)
class SentValue:
    sender: tuple[str, ...]            # attribute path from the instance, then the send method
    selectors: tuple[Selector, ...]    # the send's argument, then the fields of objects built for it
    value: ast.expr                    # the expression that carries the step's data
    call: ast.Call                     # the send call
    keyword: str | None = None         # the keyword or field name the value is passed under, if any
    host_reads: tuple[tuple[int, str], ...] = ()   # (line, `msg.header.stamp`): input fields only the host-side
                                                   # arguments of the send read (a header from the input's stamp)


@dataclass(frozen=True)
class SentLiterals:
    """What the integration module says about the send (SENT, SENT_VALUE, SENT_HOST_READS), as literals."""
    sender: str
    value: str
    where: str          # SENT_VALUE in words, for the module's comment
    host_reads: str     # '' when the host side of the send reads no input field


def sent_literals(sender: tuple[str, ...], selectors: tuple[Selector, ...], host_reads: tuple
                  ) -> SentLiterals | None:
    if not sender:
        return None
    return SentLiterals(tuple_literal(sender), selector_literal(selectors), describe_selectors(selectors),
                        line_text_literal(host_reads) if host_reads else "")


@dataclass(frozen=True)
class _Candidate:
    selectors: tuple[Selector, ...]
    value: ast.expr
    keyword: str | None


def sends(fn: ast.FunctionDef) -> list[ast.Call]:
    """The calls of a send method (`publish`, `write`, ...) in `fn`, in source order."""
    return sorted((n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                   and n.func.attr in SEND_METHODS), key=lambda n: (n.lineno, n.col_offset))


def _receiver_path(node: ast.expr, first: str) -> tuple[str, ...] | None:
    """`self.cmd_pub` -> ("cmd_pub",): the attribute path from the method's first parameter, or None."""
    path: list[str] = []
    while isinstance(node, ast.Attribute):
        path.insert(0, node.attr)
        node = node.value
    return tuple(path) if isinstance(node, ast.Name) and node.id == first and path else None


def own_nodes(fn: ast.FunctionDef):
    """The nodes of `fn`'s body, not of nested functions, classes or lambdas."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _target_names(e.value if isinstance(e, ast.Starred) else e)]
    return []


def local_bindings(fn: ast.FunctionDef) -> dict[str, list[ast.expr | None]]:
    """Local name -> the values assigned to it (None: bound by a loop, `with ... as`, an augmented assignment)."""
    bound: dict[str, list[ast.expr | None]] = {}
    for node in own_nodes(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in _target_names(target):
                    bound.setdefault(name, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            for name in _target_names(node.target):
                bound.setdefault(name, []).append(node.value)
        elif isinstance(node, ast.NamedExpr):
            bound.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, ast.AugAssign):
            for name in _target_names(node.target):
                bound.setdefault(name, []).append(None)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            for name in _target_names(node.target):
                bound.setdefault(name, []).append(None)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                for name in _target_names(item.optional_vars) if item.optional_vars is not None else ():
                    bound.setdefault(name, []).append(None)
    return bound


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


_COMPUTING = (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp, ast.ListComp, ast.SetComp,
              ast.DictComp, ast.GeneratorExp, ast.Subscript)


def computed_locals(fn: ast.FunctionDef, params: set[str]) -> set[str]:
    """Locals the step computes: bound by an expression that computes something (a call, an operator, an index)
    from the inputs, the instance or another computed local, or bound by a loop or an augmented assignment.
    A plain alias of an input's field (`stamp = msg.header.stamp`) or a constant is not computed."""
    bound = local_bindings(fn)
    computed: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, values in bound.items():
            if name in computed:
                continue
            for value in values:
                if value is None or _loads(value) & computed or (
                        _loads(value) & (params | set(bound)) and any(isinstance(n, _COMPUTING)
                                                                     for n in ast.walk(value))):
                    computed.add(name)
                    changed = True
                    break
    return computed


def _dotted_root(func: ast.expr) -> str | None:
    while isinstance(func, ast.Attribute):
        func = func.value
    return func.id if isinstance(func, ast.Name) else None


def _is_constructor(node: ast.expr) -> bool:
    """`JointCommand(...)`, `msgs.Frame(...)`: a message object built from its arguments (a capitalised class
    that is not a library's tensor type such as `torch.Tensor`)."""
    if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg is None for k in node.keywords):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return bool(name[:1].isupper()) and _dotted_root(func) not in LIBRARY_NAMES


def built_locals(fn: ast.FunctionDef) -> dict[str, tuple[ast.Call | None, list[tuple[str, ast.expr]]]]:
    """Locals assigned once from a constructor (`frame = Frame(...)`) -> (that call, the fields assigned on them
    afterwards: `frame.data = cmd`)."""
    bound = local_bindings(fn)
    built = {name: (values[0], []) for name, values in bound.items()
             if len(values) == 1 and values[0] is not None and _is_constructor(values[0])}
    for node in sorted((n for n in own_nodes(fn) if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
        for target in node.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in built:
                built[target.value.id][1].append((target.attr, node.value))
    return built


def sent_candidates(node: ast.expr, selectors: tuple[Selector, ...], keyword: str | None, built, seen: frozenset
                ) -> list[_Candidate]:
    """The leaves of a sent argument: a message object built in the call (or in a local assigned once) and a
    dict literal with string keys are looked into, field by field."""
    if isinstance(node, ast.Name) and node.id in built and node.id not in seen:
        call, fields = built[node.id]
        inner = sent_candidates(call, selectors, keyword, built, seen | {node.id})
        for attr, value in fields:
            inner += sent_candidates(value, (*selectors, attr), attr, built, seen | {node.id})
        return inner
    if _is_constructor(node):
        out: list[_Candidate] = []
        for i, arg in enumerate(node.args):
            out += sent_candidates(arg, (*selectors, i), keyword, built, seen)
        for kw in node.keywords:
            out += sent_candidates(kw.value, (*selectors, kw.arg), kw.arg, built, seen)
        return out
    if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                                        for k in node.keys):
        return [c for k, v in zip(node.keys, node.values)
                for c in sent_candidates(v, (*selectors, k.value), k.value, built, seen)]
    return [_Candidate(selectors, node, keyword)]


def _self_call(node: ast.expr, first: str) -> bool:
    """Calls something the instance holds (`self.policy(obs)`, `self.actor.act(x)`)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and _dotted_root(n.func) == first
               for n in ast.walk(node))


def _send_candidates(fn: ast.FunctionDef, call: ast.Call) -> list[_Candidate]:
    built = built_locals(fn)
    found: list[_Candidate] = []
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return []
        found += sent_candidates(arg, (i,), None, built, frozenset())
    for kw in call.keywords:
        if kw.arg is None:
            return []
        found += sent_candidates(kw.value, (kw.arg,), kw.arg, built, frozenset())
    return found


def data_candidates(fn: ast.FunctionDef, call: ast.Call, first: str) -> tuple[list[_Candidate], list[_Candidate]]:
    """(candidates that carry the step's data, candidates that are not constants) of one send call."""
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    for extra in (fn.args.vararg, fn.args.kwarg):
        if extra is not None:
            params.add(extra.arg)
    computed = computed_locals(fn, params)
    every = _send_candidates(fn, call)
    local = params | set(local_bindings(fn))
    varying = [c for c in every if _loads(c.value) & local]
    data = [c for c in varying if _loads(c.value) & computed or _self_call(c.value, first)]
    return data, varying


def _pick(fn: ast.FunctionDef, call: ast.Call, first: str) -> _Candidate | None:
    data, varying = data_candidates(fn, call, first)
    if len(data) == 1:
        return data[0]
    if not data and len(varying) == 1:
        return varying[0]
    return None


def sent_value(fn: ast.FunctionDef, is_method: bool) -> SentValue | None:
    """A method that returns nothing and sends its data out through a send method of an attribute of the
    instance (`self.cmd_pub.publish(cmd * 0.5)`, `self.bus.publish("/cmd", Cmd(header, names, cmd.numpy()))`):
    the send and where the data is in it; None when no send, or not exactly one send, carries the data."""
    args = fn.args.posonlyargs + fn.args.args
    if not is_method or not args:
        return None
    first = args[0].arg
    own = [c for c in sends(fn) if _receiver_path(c.func.value, first) is not None]
    if len(own) > 1:   # several sends: the one that carries the step's data, when only one does
        own = [c for c in own if data_candidates(fn, c, first)[0]]
    if len(own) != 1:
        return None
    call = own[0]
    picked = _pick(fn, call, first)
    if picked is None:
        return None
    others = [c.value for c in _send_candidates(fn, call) if c.value is not picked.value]
    return SentValue((*_receiver_path(call.func.value, first), call.func.attr), picked.selectors, picked.value,
                     call, picked.keyword, _host_reads(others, picked.value, {a.arg for a in args[1:]}))


def _chains(node: ast.AST, params: set[str]) -> list[tuple[int, str]]:
    """(line, dotted text) of every attribute chain on a parameter in `node` (`msg.header`, `msg.header.stamp`)."""
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and _dotted_root(sub) in params:
            try:
                found.append((sub.lineno, ast.unparse(sub)))
            except ValueError:
                continue
    return [(line, text) for line, text in found if "(" not in text and "[" not in text]


def _host_reads(others: list[ast.expr], value: ast.expr, params: set[str]) -> tuple[tuple[int, str], ...]:
    """Input fields the host-side arguments of the send read and the value sent does not: reading them there
    does not make them inputs of the export."""
    data = [text for _, text in _chains(value, params)]
    related = lambda a, b: a == b or a.startswith(b + ".") or b.startswith(a + ".")  # noqa: E731
    return tuple(sorted({(line, text) for node in others for line, text in _chains(node, params)
                         if not any(related(text, d) for d in data)}))


def describe_selectors(selectors: tuple[Selector, ...]) -> str:
    """`(1, 2)` -> "argument 1 of the send call, then argument 2 of the object built for it"."""
    if not selectors:
        return ""
    head, *fields = selectors
    words = [f"argument {head}" if isinstance(head, int) else f"keyword argument `{head}`"]
    words[0] += " of the send call"
    for field in fields:
        words.append(f"argument {field} of the object built for it" if isinstance(field, int)
                     else f"its field `{field}`")
    return ", then ".join(words)


def _payload(fn: ast.FunctionDef, call: ast.Call, first: str | None) -> list[ast.expr]:
    """What a send call sends that is not a constant (a topic, a channel, a name list): the data candidates when
    any, else every varying one."""
    if first is None:
        values = [*call.args, *(k.value for k in call.keywords)]
        return [v for v in values if not isinstance(v, ast.Constant)]
    data, varying = data_candidates(fn, call, first)
    return [c.value for c in (data or varying)]


def send_hint(fn: ast.FunctionDef) -> str:
    """Where a step that returns nothing sends its result out, and what to export instead."""
    found = sends(fn)
    if not found:
        return ""
    args = fn.args.posonlyargs + fn.args.args
    first = args[0].arg if args else None
    parts = []
    for c in found:
        sent = _payload(fn, c, first)
        parts.append(f"at line {c.lineno}: `{ast.unparse(c)}` (the value sent: "
                     f"{', '.join(f'`{ast.unparse(a)}`' for a in sent)})" if sent
                     else f"at line {c.lineno}: `{ast.unparse(c)}`")
    return (f" (it sends its result out {'; '.join(parts)}; the output is the one value a single send call of an "
            "attribute of `self` carries that the step computed (an argument, or a field of a message built for "
            "it); with several such values, or several sends that carry data, the one to export is not known); "
            "pass --entry with the function that computes the value sent, or a statement range FILE:START-END of "
            "one block that ends before the send")
