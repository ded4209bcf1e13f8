"""API vocabularies: which NumPy/torch/Python names the tool treats alike. One table per meaning, a line
above each saying what membership means; where two tables are meant to differ, the later one is written
as a set expression over the earlier, so the difference is the intended one and nothing else.

Readers: the analysis (`analysis/`), the rules, the entry discovery and `generate` (twins, output names).
"""
from __future__ import annotations

# ---------------------------------------------------------------- describing a tensor/array, not its values
# Attributes of a tensor/array that describe its shape: a value derived from them is a shape.
SHAPE_ATTRS = frozenset({"shape", "ndim"})
# Attributes of a tensor/array that describe it, not its values: never pipeline data.
META_ATTRS = frozenset({"dtype", "device", "is_cuda", "requires_grad", "training", "layout", "names",
                        "is_leaf", "grad_fn", "itemsize", "nbytes"})
# Parameter names of a training-mode switch (`def policy(self, obs, state, training)`): the export is the
# inference path, so such a parameter is False there, as `self.training` is (the module runs in eval mode).
TRAINING_FLAG_PARAMS = frozenset({"training", "is_training", "train_mode", "is_train", "train"})
# Methods that parse the command line into a namespace of settings (`args = parser.parse_args()`), and the calls
# and names that read the process environment or arguments: a value read from one is chosen before the program
# runs (a setting), never pipeline data, whatever it is later combined with.
COMMAND_LINE_PARSERS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args",
                                  "parse_known_intermixed_args"})
COMMAND_LINE_CALLS = frozenset({"tyro.cli", "os.getenv", "os.environ.get", "os.environ.__getitem__"})
COMMAND_LINE_VALUES = frozenset({"sys.argv", "os.environ"})
# Methods that read a node's parameters (ROS 2 `self.get_parameter("id").value`, ROS 1 `rospy.get_param`): a
# value read from one is a setting of the deployment, never pipeline data.
PARAMETER_READERS = frozenset({"get_parameter", "get_parameter_or", "get_parameters", "declare_parameter",
                               "get_param", "get_param_cached"})
# NumPy calls that allocate an array of a size they are given: an attribute only ever bound to one of them (and
# written in place) keeps that shape on every call.
NUMPY_ALLOCATORS = frozenset({"numpy.zeros", "numpy.ones", "numpy.full", "numpy.empty", "numpy.eye", "numpy.identity"})
# NumPy calls that allocate a fresh array shaped like their first argument: only its shape and dtype are used.
NUMPY_LIKE_ALLOCATORS = frozenset({"numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like"})
# Torch calls that allocate a tensor of a size they are given, filled with a constant: with no pipeline data among
# their arguments the tensor is a constant of the trace, not a traced value.
TORCH_ALLOCATORS = frozenset({"torch.zeros", "torch.ones", "torch.full", "torch.empty", "torch.eye"})
# Calls and methods whose result has as many entries as the data decides (the positions of the true entries, the
# selected values, the distinct values); `torch.where`/`numpy.where` are so with one argument only.
DATA_SIZED_CALLS = frozenset({"torch.nonzero", "torch.argwhere", "torch.masked_select", "torch.unique",
                              "torch.unique_consecutive", "numpy.nonzero", "numpy.flatnonzero", "numpy.argwhere",
                              "numpy.unique", "numpy.extract"})
DATA_SIZED_METHODS = frozenset({"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive"})
ONE_ARGUMENT_WHERE = frozenset({"torch.where", "numpy.where"})
# Keywords of an allocator that describe the buffer, never fill it (`np.zeros(n, dtype=x.dtype)`).
ALLOCATOR_LAYOUT_KEYWORDS = frozenset({"dtype", "device", "order", "like", "requires_grad", "layout"})
# Methods that return a shape (or a part of one) of their receiver.
SHAPE_METHODS = frozenset({"size", "dim", "numel", "nelement", "ndimension"})
# The rank of a value (`x.ndim`, `x.dim()`): a pipeline fixes it, so it is no run-time shape.
RANK_ATTRS = frozenset({"ndim"})
RANK_METHODS = frozenset({"dim", "ndimension"})
# Methods that return a Python value, not a tensor: their result is never pipeline data (the rules judge the call).
SCALAR_METHODS = frozenset({"item", "tolist", "__float__", "__int__", "__bool__", "__index__", "element_size",
                            "data_ptr", "is_contiguous", "is_floating_point", "get_device", "keys", "__len__",
                            "issubset", "issuperset", "isdisjoint"})
# Type, dtype and mode queries that answer about a tensor's type (Python booleans, dtype facts), not its values.
TYPE_QUERIES = frozenset({"torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.is_storage",
                          "torch.is_grad_enabled", "torch.is_inference_mode_enabled", "torch.is_autocast_enabled",
                          "torch.jit.is_scripting", "torch.jit.is_tracing", "torch.onnx.is_in_onnx_export",
                          "torch.compiler.is_compiling", "torch.numel", "numpy.isscalar", "numpy.iterable",
                          # facts of a dtype (machine epsilon, limits), whatever value names the dtype
                          "numpy.finfo", "numpy.iinfo", "torch.finfo", "torch.iinfo", "numpy.issubdtype",
                          "numpy.result_type", "numpy.promote_types", "numpy.can_cast"})
# NumPy functions that answer with the shape of their argument (Python ints), no array data: never an untraced
# NumPy computation (what is done with the shape is the shape rules' business).
NUMPY_SHAPE_QUERIES = frozenset({"numpy.shape", "numpy.ndim", "numpy.size"})
# Builtins whose result is never pipeline data (a Python scalar, a string, a type, an iterator, nothing).
NON_DATA_BUILTINS = frozenset({"float", "int", "bool", "complex", "str", "repr", "len", "isinstance", "issubclass",
                               "type", "id", "hash", "print", "range", "callable", "hasattr", "getattr", "format",
                               "setattr", "super", "iter", "next", "open", "vars", "dir"})

# ---------------------------------------------------------------- the same values, moved or copied
# Methods that move a tensor/module to another device or dtype and return it.
DEVICE_DTYPE_MOVES = frozenset({"to", "float", "double", "half", "cpu", "cuda"})
# Calls only training code makes (`loss.backward()`, `optim.zero_grad()`): a scope with one is no deploy path.
GRADIENT_CALLS = frozenset({"backward", "zero_grad"})
# Methods that return a copy (or a converted copy) of a tensor/array's values.
TENSOR_COPY_METHODS = DEVICE_DTYPE_MOVES | {"clone", "detach", "copy", "contiguous", "numpy", "astype"}
# ... of those, the ones that make a fresh copy on every device and dtype (a `.to()` may return the receiver).
FRESH_COPY_METHODS = TENSOR_COPY_METHODS - DEVICE_DTYPE_MOVES
# Methods that return the same values on another device/dtype/layout: `self.x = self.x.to(dev)` writes no state.
SAME_VALUE_METHODS = DEVICE_DTYPE_MOVES | {"contiguous", "detach", "type"}
# Methods that return the module itself: `Net(...).eval()` is still a `Net`.
SELF_RETURNING_METHODS = DEVICE_DTYPE_MOVES | {"eval", "train", "requires_grad_", "share_memory"}
# Methods that convert a value without changing what it names (`torque.numpy().copy()` is `torque`): an
# output named after the receiver, shape changes and scalar extraction included.
NAME_KEEPING_CONVERSIONS = TENSOR_COPY_METHODS | {"squeeze", "unsqueeze", "reshape", "view", "flatten", "ravel",
                                                  "item", "tolist"}

# ---------------------------------------------------------------- NumPy arrays
# The public methods of `numpy.ndarray` (NumPy 1.26-2.x). A call of any other name (`.items()`, `.cpu()`)
# says the receiver is not an ndarray at that point, whatever else the name is bound to elsewhere.
NDARRAY_METHODS = frozenset({
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "byteswap", "choose", "clip", "compress",
    "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal", "dot", "dump", "dumps", "fill", "flatten",
    "getfield", "item", "itemset", "max", "mean", "min", "newbyteorder", "nonzero", "partition", "prod", "ptp",
    "put", "ravel", "repeat", "reshape", "resize", "round", "searchsorted", "setfield", "setflags", "sort",
    "squeeze", "std", "sum", "swapaxes", "take", "to_device", "tobytes", "tofile", "tolist", "tostring", "trace",
    "transpose", "var", "view",
})
# ndarray methods whose result is again an ndarray when the receiver is one (what NumPy-ness follows).
NDARRAY_RESULT_METHODS = NDARRAY_METHODS & {"astype", "reshape", "copy", "transpose", "squeeze", "flatten", "ravel",
                                            "clip", "swapaxes", "sum", "mean", "round", "cumsum", "min", "max"}

# ---------------------------------------------------------------- changing the receiver
# Methods of a Python list/deque/dict/set that change it in place.
CONTAINER_MUTATORS = frozenset({"append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft",
                                "clear", "remove", "rotate", "update", "setdefault", "add", "discard"})
# Container mutators whose call returns nothing of the container's content: a container only these touch is
# never read (`pop`/`setdefault` hand an item back, so they are reads).
FILLING_MUTATORS = frozenset({"append", "appendleft", "extend", "extendleft", "insert", "clear", "remove", "add",
                              "discard", "update"})
# Methods that write into their receiver (a container filled, a queue handed an item, an array filled or
# sorted in place): the receiver is what they change. Trailing-underscore tensor methods are in-place too.
WRITING_METHODS = CONTAINER_MUTATORS | {"put", "put_nowait", "fill", "sort", "resize", "itemset"}
# Methods whose result may share the receiver's object or memory (an element, a view): filling the result
# fills the receiver.
SHARING_METHODS = frozenset({"pop", "popleft", "get", "setdefault", "view", "view_as", "reshape", "squeeze",
                             "unsqueeze", "transpose", "permute", "swapaxes", "expand", "expand_as", "narrow",
                             "select", "detach", "ravel", "flatten", "values", "items", "as_strided", "unfold",
                             "numpy", "__getitem__"})
# ndarray methods that change only the array's flags (writeable, aligned): no value goes in or out.
NDARRAY_FLAG_METHODS = frozenset({"setflags"})
# Trailing-underscore methods that change a tensor's flags, not its values: not in-place writes.
INPLACE_EXCEPTIONS = frozenset({"requires_grad_", "share_memory_", "retain_grad_"})
# Library functions that write into their first argument (`np.copyto(dst, src)`, `np.put(a, idx, v)`); any call
# with `out=` writes that keyword's value.
ARGUMENT_WRITERS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "shuffle", "put_along_axis",
                              "index_put_", "setattr"})
# OpenCV drawing functions: they draw into the image they are handed (their first argument) and do nothing else.
DRAWING_FUNCTIONS = frozenset(f"cv2.{n}" for n in ("rectangle", "circle", "line", "arrowedLine", "putText",
                                                   "drawMarker", "ellipse", "polylines", "fillPoly",
                                                   "fillConvexPoly", "drawContours"))
# In-place tensor methods that overwrite every element (given one argument): the old value is not read.
OVERWRITING_METHODS = frozenset({"copy_", "zero_", "fill_"})
# Builtins that return the names bound in a scope: a test on them (`"avg" not in locals()`) asks whether an
# earlier pass has bound a name yet.
NAMESPACE_CALLS = frozenset({"locals", "globals", "vars"})
# Calls in a driver loop that redefine the object they are called on (`hist.append(obs)`, `buf.mul_(g)`):
# the list/deque growers and in-place tensor arithmetic (sets and removals do not feed a pipeline).
LOOP_MUTATORS = (CONTAINER_MUTATORS - {"remove", "add", "discard"}) | OVERWRITING_METHODS \
    | {"add_", "mul_", "sub_", "div_", "clamp_", "roll", "put"}
# Methods that change their receiver or the world; a call of one inside a twin is a side effect
# (deque-only and rotation methods never appear on the values a twin handles; writes, sends, ndarray setters do).
SIDE_EFFECT_METHODS = (CONTAINER_MUTATORS - {"appendleft", "extendleft", "popleft", "rotate"}) \
    | {"write", "put", "send", "__setitem__", "sort", "fill", "resize", "itemset", "setflags", "tofile", "dump"}

# ---------------------------------------------------------------- pure calls (twins)
# Methods of torch tensors and NumPy arrays that return a new value and change nothing. A method call
# on a value is presumed pure only when its name is here: `hist.push(x)` on a parameter is not.
PURE_METHODS = frozenset({
    "abs", "absolute", "all", "any", "amax", "amin", "argmax", "argmin", "argsort", "astype", "bool", "ceil",
    "clamp", "clip", "clone", "conj", "contiguous", "copy", "cos", "cpu", "cross", "cumprod", "cumsum", "detach",
    "diag", "diagonal", "dim", "div", "dot", "double", "eq", "exp", "expand", "expand_as", "flatten", "flip",
    "float", "floor", "gather", "ge", "gt", "half", "index_select", "int", "isfinite", "isnan", "le", "log",
    "log1p", "long", "lt", "masked_fill", "matmul", "max", "mean", "min", "mul", "ne", "neg", "norm", "numel",
    "numpy", "permute", "pow", "prod", "ravel", "reciprocal", "relu", "repeat", "reshape", "round", "rsqrt",
    "sigmoid", "sign", "sin", "size", "softmax", "sqrt", "square", "squeeze", "std", "sub", "sum", "swapaxes",
    "t", "take", "tanh", "tile", "to", "tolist", "transpose", "type", "type_as", "unsqueeze", "var", "view",
    "view_as", "where", "item", "new_tensor", "new_zeros", "new_ones", "new_full",
})
# Method names a torch tensor, a NumPy array or a Python container answers to. A method of any other name
# called on a parameter nothing types (`model.predict_action(obs)`) is not a data method: it runs code the
# scan has to follow or list as not followed. Trailing-underscore names (in-place tensor methods) count too.
DATA_METHOD_NAMES = PURE_METHODS | NDARRAY_METHODS | TENSOR_COPY_METHODS | SHAPE_METHODS | SCALAR_METHODS \
    | SELF_RETURNING_METHODS | CONTAINER_MUTATORS | {
        "add", "addmm", "bmm", "chunk", "split", "unbind", "narrow", "select", "scatter", "index_put", "masked_select",
        "new_empty", "topk", "sort", "log_softmax", "argmax", "max", "min", "sum", "mean", "nan_to_num", "roll",
        "unfold", "stride", "storage", "pin_memory", "items", "keys", "values", "get", "copy", "index", "count",
        "split", "join", "format", "strip", "lower", "upper", "replace", "startswith", "endswith", "cumsum", "mm",
        "logical_and", "logical_or", "logical_not", "all", "any", "square", "erf", "atan2", "arctan2", "acos",
        "asin", "atan", "tan", "lerp", "minimum", "maximum", "fmod", "remainder", "floor_divide", "true_divide",
        "repeat_interleave", "expand", "broadcast_to", "movedim", "moveaxis", "flip", "fliplr", "rot90", "unique",
        "nonzero", "masked_scatter", "index_add", "index_copy", "index_fill", "mode", "median", "kthvalue",
        "quantile", "nanmean", "nansum", "diff", "trunc", "frac", "sinh", "cosh", "asinh", "acosh", "atanh", "exp2",
        "expm1", "log2", "log10", "hypot", "outer", "inner", "einsum", "det", "inverse", "pinverse", "svd", "qr",
        "norm", "renorm", "normalize", "cross", "bernoulli", "multinomial", "uniform_", "normal_", "sample",
        "rsample", "log_prob", "entropy", "cdf", "icdf",
    }
# Builtins a twin may call freely.
# Tensor methods that take sizes, indices or operands and change none of them (`scores.topk(self.k)`); with
# PURE_METHODS, the methods an attribute can be handed to without being mutated.
SIZE_TAKING_METHODS = frozenset({"topk", "kthvalue", "sort", "index_select", "narrow", "chunk", "split", "unbind",
                                 "repeat_interleave", "masked_select", "new_empty", "roll", "quantile", "bmm", "mm",
                                 "addmm", "einsum", "outer", "inner", "lerp", "maximum", "minimum", "remainder",
                                 "fmod", "true_divide", "floor_divide", "hypot", "atan2", "arctan2", "broadcast_to"})

PURE_BUILTINS = frozenset({"abs", "min", "max", "len", "float", "int", "bool", "round", "tuple", "list"})
# Libraries (qualified roots) whose functions a twin may call freely.
PURE_LIBRARIES = ("torch", "numpy", "math")
# Table libraries: building a table keeps nothing outside it (what leaves it is a method's file write).
TABLE_LIBRARIES = ("pandas", "polars")

# ---------------------------------------------------------------- library names as written in code
# The usual local names of the tensor libraries (`import torch.nn.functional as F`): a call through one
# takes a tensor and keeps nothing.
TENSOR_LIBRARY_NAMES = frozenset({"torch", "np", "numpy", "F", "nn", "math"})
# ... and of the native libraries next to them: a call through one computes a value, it names no output.
LIBRARY_NAMES = TENSOR_LIBRARY_NAMES | {"scipy", "cv2", "cv", "ndi", "special"}
# torch.nn containers whose elements are modules built in the constructor call.
CONTAINER_MODULES = ("torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict")

# Calls that return their first argument's callable wrapped: calling the result runs that function
# (`torch.compile(self._plan)`, `functools.partial(f, k=1)`; `functools.wraps(f)(g)` and
# `functools.update_wrapper(g, f)` run the wrapper `g`).
CALLABLE_WRAPPERS = frozenset({"torch.compile", "torch.jit.script", "torch.jit.trace", "functools.partial",
                               "functools.update_wrapper", "functools.wraps", "functools.lru_cache",
                               "functools.cache", "torch.no_grad", "torch.inference_mode"})

# Progress-bar calls a `for` loop iterates: they yield their first argument's items unchanged
# (`for i in tqdm(range(n))` counts like `for i in range(n)`). `trange(n)` is `tqdm(range(n))`.
PROGRESS_WRAPPERS = frozenset({"tqdm", "track", "progressbar", "alive_it"})
PROGRESS_RANGES = frozenset({"trange"})

# Calls that call their first argument on the items of the others (`map(self.encode, frames)`,
# `filter(keep, xs)`, `functools.reduce(step, xs)`): the function runs on each item.
ELEMENT_APPLIERS = frozenset({"map", "filter", "itertools.starmap", "functools.reduce"})

# Decorators that run a function once per set of arguments and keep its result (`@functools.lru_cache()` under
# `@property`, `@cached_property`): what its body reads is read once, a constant of every later call.
CACHING_DECORATORS = frozenset({"functools.lru_cache", "functools.cache", "functools.cached_property"})

# Calls that return a copy of their one argument, the same kind of value (`copy.copy(self.joint_state_msg)`).
VALUE_COPY_CALLS = frozenset({"copy.copy", "copy.deepcopy"})

# Name parts that say a value is a probability distribution when the scan cannot type it (`dist`, `action_dist`,
# `action_distrib`, `pi`, `_g_distribution`, `probs`): `.sample()` on one draws random numbers.
DISTRIBUTION_WORDS = frozenset({"dist", "distr", "distrib", "distribs", "dists", "distribution", "distributions",
                                "probs", "pd", "pi"})

# Calls that return a Python sequence of separate values (`struct.unpack` of message bytes, `list(x)`, `tuple(x)`,
# `map(f, x)`): an array built from one holds numbers, not the traced values they came from.
PYTHON_SEQUENCE_CALLS = frozenset({"struct.unpack", "struct.unpack_from", "list", "tuple", "map"})

# `math` functions with an elementwise torch and NumPy equivalent of the same value: name -> (torch, numpy).
# A twin calls the torch one on a tensor, the NumPy one on an array, and `math`'s own on a Python number.
MATH_TWINS = {
    "sin": ("sin", "sin"), "cos": ("cos", "cos"), "tan": ("tan", "tan"), "asin": ("asin", "arcsin"),
    "acos": ("acos", "arccos"), "atan": ("atan", "arctan"), "atan2": ("atan2", "arctan2"),
    "sinh": ("sinh", "sinh"), "cosh": ("cosh", "cosh"), "tanh": ("tanh", "tanh"), "asinh": ("asinh", "arcsinh"),
    "acosh": ("acosh", "arccosh"), "atanh": ("atanh", "arctanh"), "exp": ("exp", "exp"),
    "expm1": ("expm1", "expm1"), "log1p": ("log1p", "log1p"), "log2": ("log2", "log2"),
    "log10": ("log10", "log10"), "sqrt": ("sqrt", "sqrt"), "fabs": ("abs", "abs"), "hypot": ("hypot", "hypot"),
    "copysign": ("copysign", "copysign"), "degrees": ("rad2deg", "degrees"), "radians": ("deg2rad", "radians"),
    "fmod": ("fmod", "fmod"),
}

# The legacy typed tensor constructors -> the dtype each one makes. LEAPP 0.7.2 patches only `torch.tensor`,
# `torch.as_tensor` and `torch.from_numpy`: one of these applied to pipeline data returns a plain tensor.
LEGACY_TENSOR_DTYPES = {
    "Tensor": "torch.float32", "FloatTensor": "torch.float32", "DoubleTensor": "torch.float64",
    "HalfTensor": "torch.float16", "BFloat16Tensor": "torch.bfloat16", "LongTensor": "torch.int64",
    "IntTensor": "torch.int32", "ShortTensor": "torch.int16", "CharTensor": "torch.int8",
    "ByteTensor": "torch.uint8", "BoolTensor": "torch.bool",
}
LEGACY_TENSOR_CONSTRUCTORS = {f"{module}.{name}": dtype for name, dtype in LEGACY_TENSOR_DTYPES.items()
                              for module in ("torch", "torch.cuda") if (module, name) != ("torch.cuda", "Tensor")}


# NumPy functions that build an array from their arguments alone (no file, no random state): a module-level
# name bound to one of them over literals is a constant table (rules/table_index.py, generate's `twin_take`).
NUMPY_TABLE_BUILDERS = frozenset({
    "array", "asarray", "linspace", "arange", "eye", "zeros", "ones", "full", "diag", "deg2rad", "radians", "sin",
    "cos", "exp", "sqrt", "outer", "stack", "concatenate", "float32", "float64", "int64", "int32"})

# Bases whose class-body annotations are constructor fields (`Pose(x=1.0)`), not class constants.
FIELD_CLASS_BASES = frozenset({"NamedTuple", "TypedDict", "BaseModel", "BaseSettings", "Struct"})

# NumPy scalar types, called as constructors (`np.float32(x)`): the torch dtype each one converts to. They are
# types, not functions: a FunctionPatch would put a function in their place, and every use of the name as a
# dtype (`astype(np.float32)`, `dtype=np.float32`) would fail while tracing. Twins convert a traced value to
# the dtype instead (`twin_numpy_scalar`), and a host number keeps the original constructor.
NUMPY_SCALAR_TYPES = {
    "float16": "torch.float16", "half": "torch.float16", "float32": "torch.float32", "single": "torch.float32",
    "float64": "torch.float64", "double": "torch.float64", "int8": "torch.int8", "int16": "torch.int16",
    "int32": "torch.int32", "intc": "torch.int32", "int64": "torch.int64", "int_": "torch.int64",
    "intp": "torch.int64", "longlong": "torch.int64", "uint8": "torch.uint8", "ubyte": "torch.uint8",
    "bool_": "torch.bool", "bool": "torch.bool",
}

# Methods (`t.argmax(dim=-1)`, `np.argmax(a, axis=1)`) that return the positions of the largest or smallest entries
# along the axis given, which the result no longer has: the discrete choice per row of a batch. Of a batch of one
# (`(1, n_actions)` logits), the result has one entry, and `[0]` of it is a single number, not a row.
AXIS_INDEX_REDUCTIONS = frozenset({"argmax", "argmin"})

# Methods of containers and of tensors/arrays: calling them on an unknown receiver runs no project code.
PLAIN_METHODS = frozenset({
    "append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft", "remove", "clear", "get",
    "items", "keys", "values", "update", "setdefault", "copy", "clone", "detach", "cpu", "cuda", "numpy", "to",
    "float", "double", "half", "long", "int", "bool", "item", "tolist", "reshape", "view", "squeeze",
    "unsqueeze", "flatten", "permute", "transpose", "contiguous", "astype", "sum", "mean", "max", "min",
    "format", "join", "split", "strip", "startswith", "endswith", "replace", "lower", "upper", "discard",
    "index", "count", "sort", "reverse", "put_nowait", "get_nowait", "wait", "acquire", "release",
    "write", "flush", "close", "read", "readline", "info", "debug", "warning", "error", "exception", "log",
})

# Words of a name that holds a representation a model computes for another model (`depth_embedding`,
# `img_features`, `z_latent`): what a perception or pre-compute stage hands on, not an action.
REPRESENTATION_WORDS = frozenset({"embedding", "embeddings", "embed", "embeds", "emb", "feature", "features",
                                  "feat", "feats", "latent", "latents", "encoding", "encodings", "descriptor",
                                  "descriptors", "flow", "detection", "detections", "boxes", "bboxes", "keypoints",
                                  "segmentation", "masks"})
# Words of a method name that says it runs a perception model for the policy, not the policy: `detector.detect()`,
# `seg.segment(img)`. Its call is a stage before the step.
PERCEPTION_METHOD_WORDS = frozenset({"detect", "detection", "detections", "segment", "segmentation"})
# Words of a name that holds what a policy step sends out.
OUTPUT_ACTION_WORDS = frozenset({"action", "actions", "act", "acts", "cmd", "cmds", "command", "commands",
                                 "control", "controls", "target", "targets", "torque", "torques", "steer",
                                 "steering", "twist"})

# Calls whose result is a model: `policy = torch.jit.load(path)`, `runner.get_inference_policy()`.
MODEL_LOADERS = ("jit.load", "torch.load", "InferenceSession", "get_inference_policy", "load_policy",
                 "load_model", "load_checkpoint")
# ... and a class's own loader: `PPO.load(path)`, `Planner.from_pretrained(d)`, `ALGOS[name].restore(p)` (a class,
# or a table of classes, spelled with a capital; `json.load`, `np.load` read data from modules).
CLASS_LOADERS = frozenset({"load", "from_pretrained", "restore", "load_from_checkpoint", "from_checkpoint"})
