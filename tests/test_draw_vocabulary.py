"""The draws `run` carries out as host-fed inputs are draws the scan reports (knowledge/draws.py): one
vocabulary of what draws, and `run`'s tables only say which of those it can feed."""
from leapp_codemod.knowledge import draws as known
from leapp_codemod.runner import draws as carried


def test_the_functions_run_wraps_are_draws_the_scan_reports():
    dotted = {f"{module}.{name}" for module, names in carried.DRAW_FUNCTIONS.items() for name in names}
    assert dotted, "run wraps no draw function"
    torch_names = {name for name in dotted if name.startswith("torch.")}
    numpy_names = dotted - torch_names
    assert torch_names <= known.TORCH_RANDOM
    assert all(name.startswith(known.RANDOM_MODULES) and name not in known.NOT_DRAWS for name in numpy_names)


def test_the_methods_run_wraps_are_draw_methods_the_scan_reports():
    assert set(carried.GENERATOR_METHODS) <= known.GENERATOR_DRAWS
    assert set(carried.TENSOR_FILLS) <= known.RANDOM_INPLACE_METHODS
