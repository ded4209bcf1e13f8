"""Is an operand a torch tensor or a NumPy array? Asked of the two sides of one operation that may mix them
(LCM110). Both answers are strict: an expression is a torch tensor when the way it gets its value makes one (a
torch function's answer, a torch-only method, a model's call, a local whose binding above the read is one, an
attribute every binding of which is one), and a NumPy array when the NumPy-ness the data flow tracks says so and
no part of it is a torch tensor. An operand neither answer is sure of is neither: the rule stays silent."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.walk import is_self_attr

# `torch.` names whose answer is no tensor: modules, devices, sizes, contexts, settings, loaders.
_NOT_TENSOR_PREFIXES = (
    "torch.nn.", "torch.jit.", "torch.cuda.", "torch.backends.", "torch.distributions.", "torch.optim.",
    "torch.utils.", "torch.autograd.", "torch.onnx.", "torch.export.", "torch.fx.", "torch.distributed.",
    "torch.multiprocessing.", "torch.hub.", "torch.random.", "torch.testing.", "torch.set_", "torch.get_",
    "torch.is_", "torch.device", "torch.Size", "torch.no_grad", "torch.inference_mode", "torch.enable_grad",
    "torch.manual_seed", "torch.load", "torch.save", "torch.finfo", "torch.iinfo", "torch.Generator",
    "torch.numel", "torch.compile", "torch.dtype",
)
# Methods a NumPy array does not have and a torch tensor answers with a tensor.
TORCH_ONLY_METHODS = frozenset({
    "unsqueeze", "detach", "cuda", "cpu", "float", "double", "half", "contiguous", "clone", "permute", "to",
    "sigmoid", "softmax", "tanh", "exp", "log", "sqrt", "neg", "expand", "type_as", "view_as", "masked_fill",
    "narrow", "unflatten", "clamp", "relu", "abs_", "clamp_", "mul", "add", "sub", "div",
})
# Methods both kinds have that answer a value of the receiver's kind.
SAME_KIND_METHODS = frozenset({
    "reshape", "view", "squeeze", "flatten", "transpose", "clip", "sum", "mean", "abs", "round", "repeat", "flip",
    "cumsum", "prod", "copy", "astype",
})
# NumPy functions that build an array whatever their arguments (`np.array([0.5, 0.5])`, `np.zeros(3)`), and the
# casts to a 0-d value LEAPP rejects beside a traced tensor (`np.float32(x)`: NotImplementedError). Any other NumPy
# function called on numbers, shapes or settings only (`np.sqrt(dk)`, `np.log(2 * np.pi)`, `np.ceil(t / dt)`,
# `np.clip(n, 0, cap)`) answers a NumPy number: a float64 traces like a Python float, and the rule does not guess.
ARRAY_BUILDERS = frozenset(f"numpy.{f}" for f in (
    "array", "asarray", "ascontiguousarray", "asanyarray", "zeros", "ones", "full", "empty", "eye", "identity",
    "arange", "linspace", "logspace", "diag", "tile", "repeat", "stack", "concatenate", "hstack", "vstack",
    "float32", "float16", "int32", "int64", "load", "loadtxt", "genfromtxt", "fromiter", "frombuffer"))

# How deep the two questions follow sub-expressions and bindings before answering "not sure".
MAX_OPERAND_DEPTH = 64


def _binding_above(fn, name: str, line: int) -> list[ast.expr]:
    """The value of the `=` binding of `name` nearest above `line`, or every binding when none is above (a
    loop-carried or later-bound name)."""
    values = list(fn.assigned(name))
    above = [v for v in values if getattr(v, "lineno", 0) < line]
    return [max(above, key=lambda v: v.lineno)] if above else values


def _bound_outside(fn, module, name: str) -> ast.expr | None:
    """The value a name the function does not bind holds: for an inline range's input, the value it was last
    bound to before the range; for a module global (`GOAL = np.array(...)`), its value."""
    outer = fn.outer_values.get(name) if fn.outer_values else None
    if isinstance(outer, ast.expr):
        return outer
    return module.globals.get(name) if name not in fn.params else None


def _annotated_tensor(fn, name: str) -> bool:
    args = fn.node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name and arg.annotation is not None:
            return ast.unparse(arg.annotation).split(".")[-1] == "Tensor"
    return False


class OperandKindQuestions:
    """Mixed into `FunctionContext`. Answers are kept per expression node (and names being followed): the two
    questions ask each other of the same sub-expressions, which is exponential in an operator chain's depth
    without it."""

    def _remembered(self, question: str, e: ast.expr | None, seen: frozenset, ask) -> bool:
        answers = self.__dict__.setdefault("_operand_answers", {})
        key = (question, id(e), seen)
        if key in answers:
            return answers[key][0]
        depth = self.__dict__.get("_operand_depth", 0)
        if depth >= MAX_OPERAND_DEPTH:   # a generated operator chain: unsure, so the rule stays silent
            return False
        self.__dict__["_operand_depth"] = depth + 1
        try:
            answers[key] = (ask(e, seen), e)   # the node is kept so that its id is not reused
        finally:
            self.__dict__["_operand_depth"] = depth
        return answers[key][0]

    def is_torch(self, e: ast.expr | None, seen: frozenset = frozenset()) -> bool:
        return self._remembered("torch", e, seen, self._is_torch)

    def _is_torch(self, e: ast.expr | None, seen: frozenset) -> bool:
        if isinstance(e, ast.Name):
            if e.id in seen:
                return False
            if _annotated_tensor(self.fn, e.id):
                return True
            values = [] if e.id in self.fn.params else _binding_above(self.fn, e.id, getattr(e, "lineno", 0))
            outside = None if values else _bound_outside(self.fn, self.module, e.id)
            if outside is not None:
                return self.is_torch(outside, seen | {e.id})
            return bool(values) and all(self.is_torch(v, seen | {e.id}) for v in values)
        if isinstance(e, ast.Attribute):
            return self._torch_attribute(e, seen)
        if isinstance(e, ast.Subscript):
            return self.is_torch(e.value, seen)
        if isinstance(e, ast.UnaryOp):
            return self.is_torch(e.operand, seen)
        if isinstance(e, ast.BinOp):   # `t * 2.0` is a tensor; `t * gain` with `gain` an array is the mix itself
            sides = (e.left, e.right)
            return any(self.is_torch(s, seen) for s in sides) and not any(self._numpy_only(s, seen) for s in sides)
        if isinstance(e, ast.Call):
            return self._torch_call(e, seen)
        return False

    def is_numpy_array(self, e: ast.expr | None) -> bool:
        """A NumPy value no part of which is a torch tensor (an `np.float64` cast excepted: it traces)."""
        return self._numpy_only(e, frozenset())

    def _torch_attribute(self, e: ast.Attribute, seen: frozenset) -> bool:
        key = f"self.{e.attr}"   # an attribute rebound from itself (`self.w = self.w.to(dev)`) is asked once
        if not (is_self_attr(e, self.self_name) and self.cls is not None) or key in seen:
            return False
        values = [v for klass in self.project.mro(self.cls) for _, v in klass.attr_values.get(e.attr, ())]
        return bool(values) and all(isinstance(v, ast.Call) and self._torch_call(v, seen | {key}) for v in values)

    def _torch_call(self, e: ast.Call, seen: frozenset) -> bool:
        func = e.func
        module_function = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id in self.module.imports and not self._is_local(func.value)   # `np.tanh(x)`
        if isinstance(func, ast.Attribute) and not module_function:
            if func.attr in TORCH_ONLY_METHODS and not self._numpy_only(func.value, seen):
                return func.attr != "to" or self.is_torch(func.value, seen) or bool(e.args) or bool(e.keywords)
            if func.attr in SAME_KIND_METHODS:
                return self.is_torch(func.value, seen)
        name = self.call_name(e) or ""
        if name.startswith("torch."):
            return not name.startswith(_NOT_TENSOR_PREFIXES)
        return self._model_call(e)

    def _model_call(self, e: ast.Call) -> bool:
        """`self.policy(obs)` with `self.policy` a torch module (by its type), or `self(obs)` in a module."""
        func, cls = e.func, self.cls
        if cls is None:
            return isinstance(func, ast.Name) and self._bound_to_module(func)
        if isinstance(func, ast.Name) and func.id != self.self_name:
            return self._bound_to_module(func)
        if isinstance(func, ast.Name):
            return self.project.is_nn_module(cls)
        if not (is_self_attr(func, self.self_name)):
            return False
        for type_name in self.attr_types(cls, func.attr):
            if type_name.startswith(("torch.nn.", "nn.")):
                return True
            klass = self.class_for_type(type_name)
            if klass is not None and self.project.is_nn_module(klass):
                return True
        return False

    def _bound_to_module(self, name: ast.Name) -> bool:
        """A local name (or an inline range's input) bound to a torch module built or loaded where it is bound
        (`net = nn.Sequential(...)`, `policy = torch.jit.load(path)`, `actor = Actor(cfg)` of a module class)."""
        values = list(self.fn.assigned(name.id)) or [_bound_outside(self.fn, self.module, name.id)]
        return bool(values) and all(isinstance(v, ast.Call) and self._builds_module(v) for v in values)

    def _builds_module(self, call: ast.Call) -> bool:
        if isinstance(call.func, ast.Attribute) and call.func.attr in ("to", "eval", "cuda", "cpu", "float"):
            return isinstance(call.func.value, ast.Call) and self._builds_module(call.func.value)
        name = self.qualify(call.func) or ""
        if name.startswith("torch.nn.") or name in ("torch.jit.load", "torch.jit.script"):
            return True
        klass = self.class_for_type(self.project.qualify(call.func, self.module) or "")
        return klass is not None and self.project.is_nn_module(klass)

    def _numpy_only(self, e: ast.expr | None, seen: frozenset) -> bool:
        return self._remembered("numpy", e, seen, self._is_numpy_only)

    def _is_numpy_only(self, e: ast.expr | None, seen: frozenset) -> bool:
        if e is None or self.is_torch(e, seen):
            return False
        if isinstance(e, ast.Name):
            if e.id in seen:
                return False
            values = [] if e.id in self.fn.params else _binding_above(self.fn, e.id, getattr(e, "lineno", 0))
            if values:
                return all(self._numpy_only(v, seen | {e.id}) for v in values)
            outside = _bound_outside(self.fn, self.module, e.id)
            if outside is not None and self._numpy_only(outside, seen | {e.id}):
                return True
            return self.is_numpy(e)
        if isinstance(e, (ast.Subscript, ast.UnaryOp)):
            return self._numpy_only(e.value if isinstance(e, ast.Subscript) else e.operand, seen)
        if isinstance(e, ast.BinOp):
            sides = (e.left, e.right)
            return any(self._numpy_only(s, seen) for s in sides) and not any(self.is_torch(s, seen) for s in sides)
        if isinstance(e, ast.Call):
            name = self.call_name(e) or ""
            if any(self.is_torch(a, seen) for a in e.args):
                return False
            if name.startswith("numpy.") and not name.startswith(("numpy.random.", "numpy.linalg.")):
                return name in ARRAY_BUILDERS or any(self._numpy_only(a, seen) for a in e.args)
            return self.is_numpy(e)
        if isinstance(e, ast.Attribute) and is_self_attr(e, self.self_name) and self.cls is not None:
            key = f"self.{e.attr}"
            values = [v for klass in self.project.mro(self.cls) for _, v in klass.attr_values.get(e.attr, ())]
            if key in seen:
                return False
            if values:   # every binding an array (`self.scale = np.array(...)`), none a NumPy number
                return self.is_numpy(e) and all(self._numpy_only(v, seen | {key}) for v in values)
        if isinstance(e, ast.Attribute):
            return self.is_numpy(e)
        return False
