"""Networks that are parts of another network, and steps that hand a network's `forward` to a sampler.

- **Built through a factory.** `self.net = NETS[kind](width=...)` with `NETS = {"s": net_small, ...}` and
  `def net_small(**kw): return Denoiser(depth=6, **kw)`, or `self.net = make_denoiser(cfg)`: the class the
  factory returns is built and kept like `self.net = Denoiser(...)` (see `ordering.built_on_self`).
- **Called only by another network.** A network's `forward` whose every project caller is a method of
  another network (a block the trunk's `forward` calls) is a sub-block: it ranks below its best caller
  that is a candidate, or loses PART_PENALTY when none is.
- **A bound `forward` handed over.** `sample_fn = self.head.net.forward` then
  `self.diffusion.p_sample_loop(sample_fn, shape, noise)`: the step runs the network through the sampler it
  hands it to, whatever package the sampler or the rest of the model sits in.
"""
from __future__ import annotations

import ast
from dataclasses import replace

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.model import Entrypoint

PART_PENALTY = 2    # what a network's part loses (see `ordering.below_parts`)
SUB_BLOCK = "a sub-block of another network"


def factory_built(call: ast.Call, module: ModuleIndex, project) -> list[ClassInfo]:
    """The project classes a factory call builds: a project function returning `Cls(...)`, or an item of a
    module-level dict of such functions (`NETS[kind](...)`)."""
    func = call.func
    if isinstance(func, ast.Subscript) and isinstance(func.value, (ast.Name, ast.Attribute)):
        table = _module_dict(project, project.qualify(func.value, module))
        return [cls for value, where in table for cls in _returned_classes(project.lookup(
            project.qualify(value, where) or ""), project)] if table else []
    if isinstance(func, (ast.Name, ast.Attribute)):
        return _returned_classes(project.lookup(project.qualify(func, module) or ""), project)
    return []


def _module_dict(project, qualified: str | None) -> list[tuple[ast.expr, ModuleIndex]]:
    """The values of a module-level dict literal `qualified` names, each with the module defining it."""
    if not qualified:
        return []
    owner, _, name = qualified.rpartition(".")
    module = project.module_named(owner)
    if module is not None and name in module.imports:
        return _module_dict(project, module.imports[name]) if module.imports[name] != qualified else []
    value = module.globals.get(name) if module is not None else None
    if not isinstance(value, ast.Dict):
        return []
    return [(v, module) for v in value.values if isinstance(v, (ast.Name, ast.Attribute))]


def _returned_classes(fn, project) -> list[ClassInfo]:
    if not isinstance(fn, FunctionInfo) or fn.is_method:
        return []
    module = project.modules[fn.module]
    out = []
    for node in ast.walk(fn.node):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, (ast.Name, ast.Attribute)):
            cls = project.class_of(project.qualify(node.value.func, module))
            if cls is not None and cls not in out:
                out.append(cls)
    return out


def bound_forwards(fn: FunctionInfo) -> set[str]:
    """Local names `fn` binds to a network's bound `forward` (`sample_fn = self.model.forward`)."""
    return {t.id for node in fn.nodes if isinstance(node, ast.Assign) and _is_bound_forward(node.value)
            for t in node.targets if isinstance(t, ast.Name)}


def _is_bound_forward(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Attribute) and (expr.attr == "forward" or expr.attr.startswith("forward_")) \
        and isinstance(expr.ctx, ast.Load)


def hands_a_forward(call: ast.Call, forwards: set[str]) -> bool:
    """Does the call hand a bound `forward` (or a local name bound to one) to the function it calls?"""
    for arg in [*call.args, *(kw.value for kw in call.keywords)]:
        if _is_bound_forward(arg) or (isinstance(arg, ast.Name) and arg.id in forwards):
            return True
    return False


def below_calling_networks(ranked: list[Entrypoint], callers: dict[str, set[str]], is_network,
                           same_network=None) -> list[Entrypoint]:
    """`callers`: function id -> ids of the project functions that call it; `is_network(fid)`: is that a
    method of an nn.Module; `same_network(caller, callee)`: is the caller a method of the callee's class or of a
    subclass of it (a training subclass's `training_step` running `self(x)` is the network's own code). A
    network's `forward` every caller of which is another network's method goes one point below the best of
    those callers that is a candidate, or loses PART_PENALTY when none is (unless it already lost it as a part)."""
    scores = {c.id: c for c in ranked if c.kind == "function"}
    same_network = same_network or (lambda caller, callee: caller.rpartition(".")[0] == callee.rpartition(".")[0])
    out = []
    for c in ranked:
        calling = {f for f in callers.get(c.id, ()) if f != c.id}
        if (c.kind != "function" or not c.qualname.endswith(".forward") or not calling or not is_network(c.id)
                or not all(is_network(f) and not same_network(f, c.id) for f in calling)):
            out.append(c)
            continue
        best = max((scores[f] for f in sorted(calling) if f in scores), key=lambda e: e.score, default=None)
        if best is not None and c.score >= best.score:
            c = replace(c, score=best.score - 1, reasons=(
                *c.reasons, f"{SUB_BLOCK}: only {best.qualname} calls it (ranked below it)"))
        elif best is None and not any(r.startswith("a part of another model") for r in c.reasons):
            c = replace(c, score=c.score - PART_PENALTY, reasons=(
                *c.reasons, f"{SUB_BLOCK}: only other networks' methods call it (-{PART_PENALTY})"))
        out.append(c)
    return out


def same_class_line(caller: str, callee: str, functions: dict, project) -> bool:
    """Is function `caller` a method of the class of method `callee`, or of a subclass of it?"""
    a, b = functions.get(caller), functions.get(callee)
    if a is None or b is None or a.class_name is None or b.class_name is None:
        return False
    owner = project.modules[a.module].classes.get(a.class_name)
    return owner is not None and any(k.module == b.module and k.name == b.class_name for k in project.mro(owner))
