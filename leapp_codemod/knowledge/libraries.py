"""Third-party libraries by what the scan does with them."""
from __future__ import annotations

# Native libraries LEAPP cannot trace: a call into them on pipeline data is LCM401 (foreign-library).
# Rotation and kinematics helpers count (ROS `tf_transformations`, `tf.transformations`, `tf2_geometry_msgs`,
# `pytransform3d`, numpy-quaternion's `quaternion`, `pyquaternion`): pure Python or NumPy on floats the trace
# never sees.
FOREIGN_ROOTS = frozenset({"scipy", "sklearn", "cv2", "skimage", "numba", "pandas", "PIL", "open3d",
                           "transforms3d", "quaternion", "numexpr", "jax", "tensorflow", "pinocchio", "mujoco",
                           "tf_transformations", "tf", "pytransform3d", "pyquaternion", "spatialmath",
                           "roboticstoolbox", "PyKDL", "pybullet", "trimesh", "casadi", "osqp", "cvxpy",
                           "tf2_geometry_msgs", "sapien", "pydrake", "ikpy", "kinpy", "klampt"})
# Foreign calls LEAPP 0.7.2 traces correctly all the same (guide: StandardScaler.transform records clone/sub/div).
TRACEABLE = frozenset({"sklearn.preprocessing.StandardScaler.transform"})
# Installed packages whose calls the rules judge themselves (or that never hold pipeline code): never
# followed into site-packages. FOREIGN_ROOTS are not followed either.
MODELED_ROOTS = frozenset({"torch", "numpy", "leapp", "leapp_codemod", "warp", "typing_extensions", "functorch",
                           "triton", "onnx", "onnxruntime", "_pytest", "pytest", "setuptools", "pip", "pkg_resources",
                           "matplotlib", "wandb", "tensorboard", "hydra", "omegaconf", "yaml", "click", "tqdm"})
# Loaded models the rules treat as one opaque traced call, whether or not their runtime is installed.
# Libraries whose calls compute an array from arrays (no device, no simulator): a value computed with them alone
# from a pipeline's outputs is arithmetic, not a new reading of the world.
ARRAY_MATH_ROOTS = frozenset({"numpy", "torch", "math"})
OPAQUE_MODELS = frozenset({"onnxruntime", "tensorrt", "openvino", "tflite_runtime"})
# Libraries whose objects compute in native code a LEAPP trace does not enter (a Rotation, a session).
NATIVE_ROOTS = FOREIGN_ROOTS | OPAQUE_MODELS
# Installed packages that only hold and route tensors (TensorDict: nested dicts of tensors with a batch shape).
# Their code is followed to reach the modules they wrap, but what it does itself (type-dispatch helpers,
# bookkeeping of names and shapes on fresh containers) is torch work on tensors or plain Python about them,
# never the pipeline's hazard: findings located there are not reported.
PLUMBING_ROOTS = frozenset({"tensordict"})
# Import names of public policy-learning libraries that projects copy into their own tree (a folder beside the
# project's package, edited or not). Such a copy's rollout loops are the library's, not the project's drivers
# (analysis/entry/vendored.py); the project's own code wins ties with it.
COPIED_LIBRARIES = frozenset({"rsl_rl", "diffusion_policy", "robomimic", "rl_games", "stable_baselines3", "skrl",
                              "tianshou", "sb3_contrib"})
# Folder names that hold third-party code copied into a project.
VENDOR_FOLDERS = frozenset({"third_party", "thirdparty", "3rdparty", "vendor", "vendored", "external", "extern"})
# Files that make a folder a project of its own (a copied library keeps its packaging and licence).
PACKAGING_FILES = ("setup.py", "pyproject.toml", "setup.cfg", "LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING")
# Modules a published library keeps to declare its release (`pkg/version.py`); project code rarely has one.
RELEASE_FILES = ("version", "_version")
# PIL `Image` methods that return a new image (typed as one, so the methods called on it are PIL's too).
PIL_IMAGE_RESULTS = frozenset({"crop", "resize", "convert", "rotate", "transpose", "filter", "copy", "point", "reduce",
                               "quantize", "getchannel", "transform"})


# Calls whose result is a TorchScript module: a network, and so are its attributes (its submodules).
SCRIPT_MODULE_LOADERS = frozenset({"torch.jit.load", "torch.jit.script", "torch.jit.trace"})

# Callables whose result's class is decided by data the scan does not read (a config value, a file):
# a receiver built by one of them is unknown, not "a library object".
RUNTIME_FACTORIES = frozenset({
    "hydra.utils.instantiate", "hydra.utils.call", "hydra.utils.get_class", "hydra.utils.get_method",
    "hydra.utils.get_object", "omegaconf.OmegaConf.to_object", "importlib.import_module", "torch.load",
    "pickle.load", "pickle.loads", "dill.load", "cloudpickle.load", "joblib.load", "copy.deepcopy", "copy.copy",
    "getattr", "eval", "globals", "locals", "vars",
})
