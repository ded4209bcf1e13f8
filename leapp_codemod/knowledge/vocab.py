"""API vocabularies: which NumPy/torch/Python names and methods the analysis treats alike, one line
saying what membership means above each table."""
from __future__ import annotations

# Attributes of a tensor/array that describe its shape: a value derived from them is a shape.
SHAPE_ATTRS = frozenset({"shape", "ndim"})
# Attributes of a tensor/array that describe it, not its values: never pipeline data.
META_ATTRS = frozenset({"dtype", "device", "is_cuda", "requires_grad", "training", "layout", "names",
                        "is_leaf", "grad_fn", "itemsize", "nbytes"})
# Methods that return a shape (or a part of one) of their receiver.
SHAPE_METHODS = frozenset({"size", "dim", "numel", "nelement", "ndimension"})
# Methods that return a Python value, not a tensor: their result is never pipeline data (the rules judge the call).
SCALAR_METHODS = frozenset({"item", "tolist", "__float__", "__int__", "__bool__", "__index__", "element_size",
                            "data_ptr", "is_contiguous", "is_floating_point", "get_device", "keys", "__len__"})
# Builtins whose result is never pipeline data (a Python scalar, a string, a type, an iterator, nothing).
NON_DATA_BUILTINS = frozenset({"float", "int", "bool", "complex", "str", "repr", "len", "isinstance", "issubclass",
                               "type", "id", "hash", "print", "range", "callable", "hasattr", "getattr", "format",
                               "setattr", "super", "iter", "next", "open", "vars", "dir"})
# Trailing-underscore methods that change a tensor's flags, not its values: not in-place writes.
INPLACE_EXCEPTIONS = frozenset({"requires_grad_", "share_memory_", "retain_grad_"})
# Type and mode queries that return Python booleans about a tensor, not about its values.
TYPE_QUERIES = frozenset({"torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.is_storage",
                          "torch.is_grad_enabled", "torch.is_inference_mode_enabled", "torch.is_autocast_enabled",
                          "torch.jit.is_scripting", "torch.jit.is_tracing", "torch.onnx.is_in_onnx_export",
                          "torch.compiler.is_compiling", "torch.numel"})
# torch.nn containers whose elements are modules built in the constructor call.
CONTAINER_MODULES = ("torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict")
# ndarray methods whose result is again an ndarray when the receiver is one.
NDARRAY_RESULT_METHODS = frozenset({"astype", "reshape", "copy", "transpose", "squeeze", "flatten", "ravel", "clip",
                                    "swapaxes", "sum", "mean", "round", "cumsum", "min", "max"})
# Methods that return a copy (or a converted copy) of a tensor/array's values.
TENSOR_COPY_METHODS = frozenset({"clone", "detach", "copy", "to", "float", "double", "half", "contiguous",
                                 "cpu", "cuda", "numpy", "astype"})
# Methods of a Python list/deque/dict/set that change it in place.
CONTAINER_MUTATORS = frozenset({"append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft",
                                "clear", "remove", "rotate", "update", "setdefault", "add", "discard"})
# Methods that return the module itself: `Net(...).eval()` is still a `Net`.
SELF_RETURNING_METHODS = frozenset({"eval", "train", "to", "cuda", "cpu", "float", "double", "half",
                                    "requires_grad_", "share_memory"})
# Methods that return the same values on another device/dtype/layout: `self.x = self.x.to(dev)` writes no state.
SAME_VALUE_METHODS = frozenset({"to", "float", "double", "half", "cpu", "cuda", "contiguous", "detach", "type"})
