import ast

from leapp_codemod.analysis.infer.context import advances_world, is_self_attr, self_name_of
from leapp_codemod.knowledge.libraries import FOREIGN_ROOTS, NATIVE_ROOTS, OPAQUE_MODELS, TRACEABLE
from leapp_codemod.rules._helpers import show
from leapp_codemod.rules.base import Hit, Rule


def _root(name: str) -> str:
    return name.split(".", 1)[0]


def foreign_target(node: ast.Call, ctx) -> str | None:
    """Dotted name of the foreign callable, through module aliases and typed receivers."""
    name = ctx.call_name(node)
    if name and _root(name) in FOREIGN_ROOTS:
        return name
    func = node.func
    if isinstance(func, ast.Attribute):
        for type_name in ctx.types_of(func.value):
            if _root(type_name) in NATIVE_ROOTS:   # `sess.run(None, feeds)`: a native runtime too
                return f"{type_name}.{func.attr}"
        if is_self_attr(func.value, ctx.self_name) and ctx.cls is not None:
            key = ("foreign_held_origin", ctx.cls.id, func.value.attr)
            if key not in ctx.project.memo:
                ctx.project.memo[key] = _held_origin(func.value.attr, ctx.cls, ctx, 0)
            origin = ctx.project.memo[key]
            if origin is not None:   # named by the library's class that made the chain and the method called
                return f"{origin.split('(', 1)[0]}(...).{func.attr}"
    return None


_MAX_CHAIN = 6


def _held_origin(attr: str, cls, ctx, depth: int) -> str | None:
    """`self.model` bound to `self.arm.create_model()`, `self.arm` to `loader.load(path)`, ... down to
    `sapien.Engine()`: an object a foreign library made from another of its objects (a kinematics model, a
    scene). The dotted chain of calls, or None when some binding is not one."""
    values = [(klass, method, value) for klass in ctx.project.mro(cls) for method, value in klass.attr_values.get(attr, ())]
    origins = [_call_origin(value, klass, method, ctx, depth + 1) for klass, method, value in values]
    return origins[0] if origins and all(origins) else None


def _call_origin(value: ast.expr, klass, method: str, ctx, depth: int) -> str | None:
    if depth > _MAX_CHAIN or not isinstance(value, ast.Call) or klass.module not in ctx.project.modules:
        return None
    qualified = ctx.project.qualify(value.func, ctx.project.modules[klass.module])
    if qualified and _root(ctx.project.external_name(qualified)) in FOREIGN_ROOTS:
        name = ctx.project.external_name(qualified)
        return name if _names_a_class(name) else None
    func = value.func
    if not isinstance(func, ast.Attribute):
        return None
    base = None
    owner = klass.methods.get(method)
    if owner is not None and is_self_attr(func.value, self_name_of(owner)):
        base = _held_origin(func.value.attr, klass, ctx, depth)
    elif isinstance(func.value, ast.Call):   # `self.engine.create_scene().create_loader()`
        base = _call_origin(func.value, klass, method, ctx, depth + 1)
    elif owner is not None and isinstance(func.value, ast.Name):
        bound = owner.assigned(func.value.id)
        origins = [_call_origin(v, klass, method, ctx, depth + 1) for v in bound]
        base = origins[0] if origins and all(origins) else None
    return f"{base}(...).{func.attr}" if base and "(" not in base else f"{base}.{func.attr}" if base else None


def _receiver_data(node: ast.Call, ctx) -> bool:
    """`rot.apply(DOWN)`, `self.frame.as_matrix()`: a method of a foreign object built from pipeline data
    computes on that data even when every argument is a constant."""
    func = node.func
    if not isinstance(func, ast.Attribute) or ctx.call_name(node) or not ctx.is_data(func.value):
        return False
    return any(_root(t) in FOREIGN_ROOTS and _names_a_class(t) for t in ctx.types_of(func.value)) \
        and _built_from_data(func.value, ctx)


def _built_from_data(receiver: ast.expr, ctx) -> bool:
    """The object was made by a project call given pipeline data (`rot = frame_of(q)`), or stored on self by
    a method (not the constructor) from what that method received (`self.frame = Rotation.from_rotvec(imu)`):
    not an object the pipeline reads its input from (a simulator's state, built once)."""
    if isinstance(receiver, ast.Name):
        # made here by a foreign call (`rot = Rotation.from_quat(q)`): that call is the finding, once, and the
        # adapter a twin puts in its place has the object's methods
        return any(isinstance(v, ast.Call) and ctx.args_data(v) and foreign_target(v, ctx) is None
                   for v in ctx.fn.assigned(receiver.id)) or _filled_with_data(receiver.id, ctx)
    if not (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)
            and receiver.value.id == ctx.self_name and ctx.cls is not None):
        return False
    return any(isinstance(value, ast.Call) and method != "__init__" and method in klass.methods
               and any(_passed_in(a, klass.methods[method]) for a in (*value.args, *(k.value for k in value.keywords)))
               for klass in ctx.project.mro(ctx.cls) for method, value in klass.attr_values.get(receiver.attr, ()))


def _filled_with_data(name: str, ctx) -> bool:
    """`pcd = o3d.geometry.PointCloud()` built empty, then `pcd.points = Vector3dVector(pts)`: the object holds
    the pipeline data assigned to its fields (the constructor reads nothing, so the method call is where the
    data meets the library)."""
    return any(isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == name for t in node.targets)
        and ctx.is_data(node.value) for node in ctx.fn.nodes)


def _passed_in(arg: ast.expr, method) -> bool:
    """An argument computed from a local or parameter of the method that stores the object (`imu[:3]`),
    not only from what the object holds (`self.model`) or constants."""
    own = method.positional_params[0] if method.is_method and method.positional_params else None
    return any(isinstance(n, ast.Name) and n.id != own for n in ast.walk(arg))


def _names_a_class(type_name: str) -> bool:
    """`scipy.spatial.transform.Rotation.from_quat`: an object of a foreign class, not the array a foreign
    function returns (`cv2.resize`, whose `.astype` is NumPy's)."""
    return any(part[:1].isupper() for part in type_name.split(".")[1:])


# PIL `Image` methods that compute nothing from the pixels (or are I/O, reported as such).
PIL_NON_PIXEL_METHODS = frozenset({"save", "show", "close", "verify", "getbands", "getexif", "load", "seek", "tell"})


def _pil_image(expr: ast.expr, ctx) -> bool:
    """A PIL image holding pipeline data: from `Image.open`/`Image.fromarray`, an image method of one
    (`frame.crop(...)`), a project function returning one, or a parameter callers hand one."""
    return any(t.startswith("PIL.") for t in ctx.types_of(expr)) and ctx.is_data(expr)


def _pil_hit(node: ast.Call, ctx) -> Hit | None:
    """`img.resize(...)`, `img.crop(...)` on a pipeline image, and `np.asarray(img)` of one: each runs PIL's native
    code on the pixels (the image is a value of the pipeline, not an object it reads its input from)."""
    func = node.func
    if isinstance(func, ast.Attribute) and not ctx.call_name(node) and func.attr not in PIL_NON_PIXEL_METHODS \
            and _pil_image(func.value, ctx):
        return Hit(node, f"`{show(node)}` runs PIL's native `Image.{func.attr}` on a pipeline image; LEAPP cannot "
                         "trace it", PIL_FIX)
    if ctx.call_name(node) in ("numpy.asarray", "numpy.array") and node.args and _pil_image(node.args[0], ctx):
        return Hit(node, f"`{show(node)}` copies a PIL image's pixels into a new array; LEAPP traces "
                         "`np.asarray` only of a traced array, so the pixels are exported as constants", PIL_FIX)
    return None


PIL_FIX = ("hand the pipeline the pixels as an array and resize/crop with torch ops (`torch.nn.functional."
           "interpolate`, slicing), or move the image preprocessing to the host before the exported pipeline")


def check(node: ast.Call, ctx):
    pil = _pil_hit(node, ctx)
    if pil is not None:
        yield pil
        return
    target = foreign_target(node, ctx)
    if target is None or target in TRACEABLE or advances_world(node) \
            or not (ctx.args_data(node) or _receiver_data(node, ctx)):
        return
    if _root(target) in OPAQUE_MODELS:
        yield Hit(node, f"`{show(node)}` runs the model in `{target.rpartition('.')[0]}`, a native runtime, on "
                        "pipeline data; LEAPP cannot trace it, so nothing after it is in the export",
                  "run the policy as a torch module for the export (the checkpoint the runtime's model was exported "
                  "from), or export the steps before and after the session as two pipelines around it")
        return
    yield Hit(node, f"`{show(node)}` calls native `{target}` on pipeline data; LEAPP cannot trace it",
              f"FunctionPatch `{ctx.fn.qualname}` with a torch implementation (`generate` writes the patch), "
              f"or move this step outside the exported pipeline")


RULE = Rule(
    code="LCM401", name="foreign-library-call", category="foreign-library", severity="error",
    summary="SciPy / OpenCV / scikit-learn / other native call on pipeline data",
    what="Flags calls into SciPy, OpenCV, scikit-image, pandas, Numba and similar native libraries, through any "
         "import alias (`import cv2 as cv`, `from scipy.special import expit as sigmoid`), when they receive "
         "pipeline data, and methods of a foreign object another method built from pipeline data "
         "(`self.frame.as_matrix()` after `self.frame = Rotation.from_rotvec(imu)`). A method of an object made "
         "in the same function (`rot = Rotation.from_quat(q); rot.apply(v)`) is not reported again: the call "
         "that made it is. A PIL image is a value of the pipeline, not such an object: every pixel method on one "
         "that holds pipeline data (`img.resize(...)`, `img.crop(...)`, `img.convert('L')`, also on an image a "
         "helper returns or is handed) and `np.asarray(img)` of one are reported; an image the step reads "
         "(`Image.open(path)`, `cv2.imread`) holds the pipeline's input, and its size fields (`img.size`, "
         "`img.width`) are its fixed shape, not data. A simulator engine's step (`mujoco.mj_step(m, d)` in a "
         "project environment's `step` the scan follows) is the world moving on, not a computation: not reported. "
         "A model run by a native runtime (`sess.run(None, feeds)` on an ONNX Runtime `InferenceSession`, TensorRT, "
         "OpenVINO, TFLite) on pipeline data is reported too.",
    why="Native code does not see LEAPP's traced values: OpenCV is completely silent, SciPy ufuncs log 'numpy "
        "ufunc ...', `Rotation` only warns about internals. The result is a plain array: the output either raises "
        "'received non-traced tensors' or is frozen to the traced value, and an input is often pruned as "
        "'not used in the computation'. Checked with the installed leapp 0.7.2 and Pillow: `Image.fromarray(a)"
        ".resize(...)` then `np.asarray` exports a constant that fails validation on the next sample, the same "
        "resize with `torch.nn.functional.interpolate` validates (tests/test_leapp_pil_image.py). An ONNX Runtime "
        "session given a traced array returns a plain one: `output_tensors` then raises 'received non-traced "
        "tensors: {ndarray}' (checked with the installed leapp 0.7.2 and onnxruntime).",
    fix="Replace the call with torch ops during tracing: `leapp.FunctionPatch(<module that looks the helper up>, "
        "'<helper>', torch_version)`. `generate` writes the patch and a parity check against the original.",
    example="from scipy.special import expit\ncontact = expit(logits.numpy())",
    fixed_example="contact = torch.sigmoid(logits)",
    node_types=(ast.Call,), check=check,
    valid=(
        "from scipy.special import expit\ndef step(obs, cfg):\n    gain = float(expit(cfg.logit))\n    return obs * gain\n",
    ),
    invalid=(
        "import cv2 as cv\ndef step(frame):\n    return cv.resize(frame, (64, 64))  # error\n",
        "from scipy.special import expit as sigmoid\ndef step(logits):\n    return sigmoid(logits)  # error\n",
        ("from scipy.spatial.transform import Rotation\ndef step(q):\n    rot = Rotation.from_quat(q)  # error\n"
         "    return rot.apply([0.0, 0.0, -1.0])\n"),
        ("import numpy as np\nfrom PIL import Image\ndef shrink(img: Image.Image):\n    w, h = img.size\n"
         "    return img.crop((0, 0, h, h)).resize((32, 32))  # error\n"
         "def step(frame):\n    img = Image.fromarray(frame)  # error\n    small = shrink(img)\n"
         "    return np.asarray(small.convert('L')) / 255.0  # error\n"),
        # a policy an ONNX Runtime session runs, the session built in the constructor
        ("import numpy as np\nimport onnxruntime as ort\nclass Driver:\n    def __init__(self, path):\n"
         "        self.sess = ort.InferenceSession(path)\n    def step(self, obs):\n"
         "        out = self.sess.run(None, {'obs': obs[None]})[0]  # error\n        return np.clip(out, -1, 1)\n"),
    ),
)
