"""LEAPP facts several parts of the tool rely on, each defined once. Plain data: importing this module
imports nothing else (scan, generate, run and the generated module all read it)."""
from __future__ import annotations

# LEAPP exporters `run` tries, in the order of the fallback ladder, and the format each one writes.
FORMAT_OF = {"onnx": "onnx", "onnx-torchscript": "onnx", "pt2": "pt2", "jit-script": "jit", "jit-trace": "jit"}
EXPORTERS = tuple(FORMAT_OF)
FORMATS = tuple(dict.fromkeys(FORMAT_OF.values()))

# The signed dtype that holds every value of an unsigned dtype LEAPP cannot export.
SIGNED_FOR = {"uint16": "int32", "uint32": "int64", "uint64": "int64"}

# How close a replacement or an exported model must come to the original: |got - expected| <=
# ATOL + RTOL * |expected|, elementwise.
RTOL, ATOL = 1e-3, 1e-5

# The first line of every module `generate` writes; `generate` and `scan`/`lint` recognize it by this.
GENERATED_HEADER = "# leapp-codemod-generated sha256="

# Words of a validation failure where the exported model could not even be loaded or run by its runtime
# (ONNX Runtime refusing a graph whose operands have different types): no value was compared, so host-side
# lines of the step cannot explain it.
MODEL_NOT_LOADED = ("Load model from", "[ONNXRuntimeError]")
# Words of an exporter's error where the model it wrote is not a valid model (the ONNX checker, or ONNX Runtime
# refusing to load it): the exporter's own failure, whatever LEAPP signalled while tracing, and one that another
# exporter may not repeat.
MODEL_INVALID = ("This is an invalid model", "Load model from", "checker.ValidationError")

# NumPy functions that read only an array's shape or dtype: LEAPP 0.7.2 logs "No torch equivalent for numpy
# function ndim. Operation will not be traced." for them (NumPy calls `np.ndim` inside `np.clip`, `np.sqrt`
# ...), but their result is a static number of the trace, so no computation leaves it: not a cause, not a signal.
SHAPE_ONLY_NUMPY = frozenset({"ndim", "shape", "size", "result_type", "min_scalar_type", "iterable", "isscalar"})
UNMAPPED_NUMPY_RECORD = r"No torch equivalent for numpy function (\w+)\b"

# What a LEAPP 0.7.2 input boundary (`annotate.input_tensors`) declares as graph inputs, checked by tracing each
# kind (tests/test_leapp_boundary_types.py): torch tensors and NumPy arrays, also as the leaves of lists, tuples and
# dicts whose structure is the same on every call (one port per leaf: `x_0`, `x_key`). Every other value is passed
# through as a constant of the graph (LEAPP warns "Non-tracable input ... will be passed through as a constant"):
# a deque whatever it holds (the boundary recurses into lists, tuples and mappings only), a Python or NumPy
# number, a list or dict of numbers, an object. A list whose length changes between calls fails at the next call
# ("Reentering NODE with new i/o x_1").
BOUNDARY_RECURSES_INTO = frozenset({"list", "tuple", "dict"})
BOUNDARY_PASSES_WHOLE = frozenset({"deque"})

# A NumPy function LEAPP 0.7.2 maps, called on traced arrays with `dtype=` a type object (`np.float32`, `float`),
# raises NotImplementedError ("argument of type: <class 'type'>") while tracing: LEAPP forwards the keyword to the
# torch op, which takes no NumPy type (tests/test_leapp_recall15_facts.py: `np.concatenate`, `np.stack`, `np.sum`,
# `np.add`, `np.zeros_like`). A dtype written as a string (`dtype="float32"`) traces, and so do `np.array` and
# `np.asarray`, which LEAPP patches on their own.
DTYPE_TYPE_ACCEPTED = frozenset({"numpy.array", "numpy.asarray"})
# A torch tensor and a NumPy array in one arithmetic or comparison operation (`+ - * / @ ** > ==`, augmented
# assignments too), checked with the installed leapp 0.7.2 (tests/test_leapp_mixed_operands.py; LCM110):
# - a traced torch tensor with a NumPy array that is not traced (an attribute `self.scale = np.array(...)`, a 0-d
#   array, an `np.float32` scalar), in either order: TypeError while tracing ("mul(): argument 'other' ... must be
#   Tensor, not numpy.ndarray"; NotImplementedError for an `np.float32` scalar); `torch.from_numpy(x) * x` too.
# - a traced NumPy array with a torch tensor that is not traced (`x * self.gain_t`, `x * torch.as_tensor(x)`):
#   torch computes a plain tensor outside the trace; `output_tensors` rejects it ("received non-traced tensors"),
#   and mixed into traced values (`torch.as_tensor(x) + x * gain_t`) it is silently a constant of the export.
# - `np.float64` scalars (a subclass of Python float: `t * np.sqrt(2.0)`) trace like Python numbers.
MIXED_TORCH_NUMPY_RAISES = ("TypeError", "NotImplementedError")
# A `try` in a traced step: the export holds the path the traced samples ran; an `except` block the trace did not
# run is not in it, whether it computes another way or returns a constant (LCM203). A `try` that only reads a
# value (indexing, `.astype`, `getattr`) fails on the value's structure, fixed for the pipeline: with a constant
# `except` it exports the read and validates (tests/test_leapp_fallback_read.py).
FALLBACK_STRUCTURAL_ERRORS = frozenset({"KeyError", "IndexError", "LookupError"})
# TorchScript in a traced step (tests/test_leapp_torchscript.py; LCM111): a `@torch.jit.script` function called
# on traced tensors answers a plain tensor outside the trace (`output_tensors`: "received non-traced tensors"),
# branch or not; a scripted module (`torch.jit.script(Net())`) or `torch.jit.load` of a traced one exports as a
# module and validates; a scripted module whose `forward` branches on values raises NotImplementedError while
# tracing ("argument of type: <class '...GraphModuleImpl'>").
SCRIPT_DECORATORS = frozenset({"torch.jit.script"})
# A write into a traced array or tensor through an index that is a plain NumPy array (`y[mask] = 0` with `mask`
# from an unmapped NumPy function such as `np.isin`, or a constant `IDX = np.array([3, 0, 2, 1])`, a boolean or an
# integer array, alone or inside a tuple key, `=` or `+=`) raises NotImplementedError ("argument of type: <class
# 'numpy.ndarray'>") while tracing in LEAPP 0.7.2: the key goes into the graph as an ndarray, which torch.fx cannot
# take (checked for NumPy and torch destinations, tests/test_leapp_plain_index_write.py; LCM114). Reading through
# such an index traces, and so do writes through a list, a traced mask (`y[y > c] = 0`) or a torch tensor index.
PLAIN_INDEX_WRITE_RAISES = ("a write into a traced array or tensor through an index that is a plain NumPy array "
                            "raises NotImplementedError while tracing in LEAPP 0.7.2")
# A torch module traced in training mode (no `.eval()`), checked with the installed leapp 0.7.2
# (tests/test_leapp_train_mode.py; LCM706): with BatchNorm the traced calls normalise with each batch's statistics
# while the export (LEAPP compiles its graph module after `.eval()`) uses the running ones the tracing calls moved,
# so validation fails; with Dropout the export keeps the random mask (two runs on one input differ) and validation
# fails; a normaliser whose `forward` updates its statistics under `if self.training:` is exported with the values
# of one tracing call and matches neither the app nor the model in evaluation mode. The same models put in
# evaluation mode before tracing export, validate and match the model on fresh inputs.
TRAIN_MODE_EXPORT = ("LEAPP 0.7.2 traces the model in training mode: the export fails validation and, with "
                     "Dropout, stays random")
