"""Replacement bodies `generate` can write on its own: traceable equivalents of library functions
LEAPP does not map, built only from operations LEAPP does map (NumPy in, NumPy out)."""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Adapter:
    signature: str      # parameter list, without parentheses
    body: str           # function body, 4-space indented lines joined by "\n"
    why: str            # one line: why it is equivalent
    needs: tuple[str, ...] = ("numpy",)


_NORM_BODY = """\
if ord not in (None, 2, "fro"):
    raise NotImplementedError(f"only the Euclidean norm is covered, got ord={ord!r}")
return np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))"""

_INTERP_BODY = """\
if left is not None or right is not None or period is not None:
    raise NotImplementedError("only the default end clamping is covered")
xp = [float(v) for v in xp]
fp = [float(v) for v in fp]
x = x.astype(np.float64)
y = x * 0.0 + fp[0]
for i in range(len(xp) - 1):
    y = y + (fp[i + 1] - fp[i]) * np.clip((x - xp[i]) / (xp[i + 1] - xp[i]), 0.0, 1.0)
return y"""

_DIFF_BODY = """\
if n != 1 or prepend is not None or append is not None:
    raise NotImplementedError("only the first difference without prepend/append is covered")
moved = np.swapaxes(a, axis, -1)
return np.swapaxes(moved[..., 1:] - moved[..., :-1], axis, -1)"""

_GAUSS_BODY = """\
if order != 0 or output is not None or axis not in (-1, x.ndim - 1):
    raise NotImplementedError("only order=0 along the last axis is covered")
r = int(truncate * float(sigma) + 0.5) if radius is None else int(radius)
weights = np.exp(-0.5 * (np.arange(-r, r + 1) / float(sigma)) ** 2)
weights = weights / weights.sum()
n = x.shape[-1]
if r > n - 1:
    raise NotImplementedError("the kernel is wider than the signal")
if mode == "nearest":
    left, right = [x[..., :1]] * r, [x[..., -1:]] * r
elif mode == "reflect":
    left, right = [np.flip(x[..., :r], axis=-1)], [np.flip(x[..., n - r:], axis=-1)]
elif mode == "mirror":
    left, right = [np.flip(x[..., 1:r + 1], axis=-1)], [np.flip(x[..., n - r - 1:n - 1], axis=-1)]
elif mode == "constant":
    left, right = [x[..., :r] * 0.0 + cval], [x[..., :r] * 0.0 + cval]
else:
    raise NotImplementedError(f"mode {mode!r} is not covered")
padded = np.concatenate(left + [x] + right, axis=-1) if r else x
out = padded[..., 0:n] * weights[0].astype(x.dtype)
for i in range(1, 2 * r + 1):
    out = out + padded[..., i:i + n] * weights[i].astype(x.dtype)
return out"""

# Keyed by the function's own name and the module it is defined in (or re-exported from).
KNOWN: dict[str, Adapter] = {
    "numpy:deg2rad": Adapter("x, /, *args, **kwargs", "return x * (np.pi / 180.0)",
                             "deg2rad(x) is x * pi / 180"),
    "numpy:radians": Adapter("x, /, *args, **kwargs", "return x * (np.pi / 180.0)",
                             "radians(x) is x * pi / 180"),
    "numpy:rad2deg": Adapter("x, /, *args, **kwargs", "return x * (180.0 / np.pi)",
                             "rad2deg(x) is x * 180 / pi"),
    "numpy:degrees": Adapter("x, /, *args, **kwargs", "return x * (180.0 / np.pi)",
                             "degrees(x) is x * 180 / pi"),
    "numpy:reciprocal": Adapter("x, /, *args, **kwargs", "return 1.0 / x", "reciprocal(x) is 1 / x"),
    "numpy:fabs": Adapter("x, /, *args, **kwargs", "return np.abs(x)", "fabs is abs for floats"),
    "numpy:logaddexp": Adapter("x1, x2, /, *args, **kwargs",
                               "return np.maximum(x1, x2) + np.log1p(np.exp(-np.abs(x1 - x2)))",
                               "log(e^a + e^b) = max(a, b) + log1p(e^-|a - b|)"),
    "numpy.linalg:norm": Adapter("x, ord=None, axis=None, keepdims=False", _NORM_BODY,
                                 "the 2-norm is sqrt(sum(x * x)) over the same axes"),
    "numpy:interp": Adapter("x, xp, fp, left=None, right=None, period=None", _INTERP_BODY,
                            "piecewise-linear interpolation with end clamping as a sum of clipped ramps "
                            "(xp increasing, as np.interp requires)"),
    "numpy:diff": Adapter("a, n=1, axis=-1, prepend=None, append=None", _DIFF_BODY,
                          "first difference along `axis` by two shifted slices"),
    "scipy.ndimage:gaussian_filter1d": Adapter(
        'x, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *, radius=None',
        _GAUSS_BODY, "the same truncated, normalised Gaussian weights applied as a sum of shifted slices "
        "of the padded signal"),
    "scipy.special:expit": Adapter("x, /, *args, **kwargs", "return 1.0 / (1.0 + np.exp(-x))",
                                   "expit(x) is 1 / (1 + exp(-x))"),
    "scipy.special:logit": Adapter("x, /, *args, **kwargs", "return np.log(x / (1.0 - x))",
                                   "logit(x) is log(x / (1 - x))"),
}


def known_adapter(function: str) -> Adapter | None:
    """The adapter for a defining "module:qualname", accepting private submodules
    (`scipy.special._ufuncs:expit` is `scipy.special:expit`)."""
    if function in KNOWN:
        return KNOWN[function]
    module, _, name = function.partition(":")
    parts = module.split(".")
    while parts:
        public = [p for p in parts if not p.startswith("_")]
        key = f"{'.'.join(public)}:{name}"
        if key in KNOWN:
            return KNOWN[key]
        parts = parts[:-1]
        if f"{'.'.join(parts)}:{name}" in KNOWN:
            return KNOWN[f"{'.'.join(parts)}:{name}"]
    return None


# The registry of `leapp_codemod.adapters` (name -> kind), kept here because that package imports
# torch and `generate` must not; tests/test_twins.py checks that it matches the registry.
_REGISTRY_FUNCTIONS = (
    "scipy.special.expit", "scipy.special.logit", "scipy.special.softmax",
    "numpy.deg2rad", "numpy.radians", "numpy.rad2deg", "numpy.degrees", "numpy.reciprocal", "numpy.fabs",
    "numpy.logaddexp", "numpy.hypot", "numpy.float_power", "numpy.arctan2", "numpy.atan2", "numpy.arctan",
    "numpy.atan", "numpy.arcsin", "numpy.asin", "numpy.arccos", "numpy.acos", "numpy.tan", "numpy.round",
    "numpy.around", "numpy.max", "numpy.amax", "numpy.min", "numpy.amin", "numpy.linalg.norm", "numpy.interp",
    "numpy.cross", "numpy.outer", "numpy.diff", "numpy.tile", "numpy.repeat", "numpy.pad", "numpy.take",
    "numpy.atleast_1d", "numpy.atleast_2d", "numpy.atleast_3d", "numpy.broadcast_to", "numpy.column_stack",
    "numpy.copy", "numpy.ascontiguousarray", "numpy.median", "numpy.percentile", "numpy.quantile",
    "numpy.average", "numpy.nan_to_num", "cv2.resize", "cv2.cvtColor",
)
_ROTATION = "scipy.spatial.transform.Rotation"
REGISTRY: dict[str, str] = {
    **{name: "function" for name in _REGISTRY_FUNCTIONS},
    _ROTATION: "class",
    **{f"{_ROTATION}.{m}": "constructor" for m in ("from_quat", "from_matrix", "from_rotvec", "from_euler")},
    **{f"{_ROTATION}.{m}": "method" for m in ("as_quat", "as_matrix", "as_rotvec", "as_euler", "apply", "inv",
                                              "magnitude", "__mul__")},
    "sklearn.preprocessing.StandardScaler.transform": "method",
    "sklearn.preprocessing.MinMaxScaler.transform": "method",
}


@lru_cache(maxsize=1)
def registry() -> dict[str, str]:
    """Name -> kind of every adapter in `leapp_codemod.adapters`; empty when the package is absent."""
    spec = importlib.util.find_spec("leapp_codemod.adapters")  # located, not imported (it imports torch)
    return dict(REGISTRY) if spec is not None else {}


def torch_adapter_names() -> frozenset[str]:
    """Dotted names ("cv2.resize") of the module-function adapters in `leapp_codemod.adapters`."""
    return frozenset(name for name, kind in registry().items() if kind == "function")


def torch_adapter(function: str) -> str | None:
    """The registry name of a torch adapter for a defining "module:qualname", if one exists."""
    module, _, name = function.partition(":")
    parts = module.split(".")
    candidates = [f"{module}.{name}"] + [f"{'.'.join(parts[:i])}.{name}" for i in range(len(parts) - 1, 0, -1)]
    candidates.append(f"{'.'.join(p for p in parts if not p.startswith('_'))}.{name}")
    names = torch_adapter_names()
    return next((c for c in candidates if c in names), None)
