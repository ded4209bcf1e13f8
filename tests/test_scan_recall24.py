"""Recall fixes of round s24, each on a fixture of its own shape (fixtures/scan_recall24)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(("app", "entry"), [("sonar", "ranger.py:Ranger.act"), ("depth", "probe.py:fused")])
def test_a_buffer_a_library_call_fills_carries_the_data_to_the_session(tmp_path, monkeypatch, app, entry):
    """`np.copyto(dst, src)` fills `dst` (a local or an attribute) with pipeline data: the ONNX Runtime call that
    reads it is on the pipeline (analysis/flow/dataflow._bind_written)."""
    found = check_marked("scan_recall24", tmp_path, monkeypatch, app, entry)
    assert any(category == "foreign-library" for _, _, category in found)


def test_definitions_inside_module_level_try_blocks_are_the_modules(tmp_path, monkeypatch):
    """A class defined in a module-level `try:` is an entry by name; the helper of the inner `try:` (not its
    `except ImportError:` fallback) is the one followed (analysis/model/index._defined_in_blocks)."""
    found = check_marked("scan_recall24", tmp_path, monkeypatch, "launcher", "gait.py:Gait.step")
    assert ("gait.py", 15, "foreign-library") in found


@pytest.mark.parametrize(("app", "entry", "line"), [("discrete", "steer.py:Steering.act", 15),
                                                    ("replay", "track.py:11-15", 12)])
def test_a_table_read_at_an_index_the_step_decides(tmp_path, monkeypatch, app, entry, line):
    """A NumPy table only the constructor builds, indexed by data; a clip indexed by a counter the inline range
    advances itself (rules/table_index._loaded_table, _advanced_counter)."""
    found = check_marked("scan_recall24", tmp_path, monkeypatch, app, entry)
    assert (line, "scalar-extraction") in {(n, category) for _, n, category in found}


def test_a_send_on_a_global_sdk_client_a_function_binds_is_io(tmp_path, monkeypatch):
    """`arm = None` at the top, `global arm; arm = ArmClient(host)` in `connect`: the global's type is the
    client's, and a method named as a send on a client of a library neither scanned nor installed is I/O
    (ModuleIndex.rebound_globals, infer/io.io_kind, knowledge/actuation.named_as_send)."""
    found = check_marked("scan_recall24", tmp_path, monkeypatch, "arm_global", "reach.py:step")
    assert found == {("reach.py", 19, "io-in-pipeline")}


def test_a_counter_the_range_wraps_by_the_clip_length_still_drives_the_lookup(tmp_path, monkeypatch):
    """`frame = (frame + 1) % clip.shape[0]`: the carried counter is state the range advances from itself and
    a setting (rules/table_index._advanced_counter)."""
    from scanfixture import scan_variant
    result = scan_variant("scan_recall24", tmp_path, monkeypatch, "replay", "track.py:11-15", "track.py",
                          "frame += 1", "frame = (frame + 1) % clip.shape[0]")
    assert ("scalar-extraction", 12) in {(f.category, f.line) for f in result.findings}


def test_an_ancestral_schedulers_step_draws_noise(tmp_path, monkeypatch):
    """knowledge/draws.NOISY_SCHEDULERS: the scheduler's class, typed from the constructor (the robots-style
    shape where the scheduler comes back from a helper is typed by the classes the project imports)."""
    found = check_marked("scan_recall24", tmp_path, monkeypatch, "denoiser", "chunker.py:Chunker.act")
    assert found == {("chunker.py", 18, "random-in-pipeline")}


def test_a_deterministic_scheduler_draws_nothing(tmp_path, monkeypatch):
    from scanfixture import scan_variant
    result = scan_variant("scan_recall24", tmp_path, monkeypatch, "denoiser", "chunker.py:Chunker.act",
                          "chunker.py", "EulerAncestralDiscreteScheduler", "DDIMScheduler")
    assert not [f for f in result.findings if f.category == "random-in-pipeline"]


def test_names_a_function_imports_in_its_body_are_imports_of_a_range_inside_it(tmp_path, monkeypatch):
    """`import cv2`, `from geo import heading_error as error_to` inside `fly`: the range at 13-16 follows the
    helper and knows `cv2.resize` (analysis/inline/scope_names.imported_only)."""
    found = check_marked("scan_recall24", tmp_path, monkeypatch, "local_imports", "fly.py:13-16")
    assert found == {("fly.py", 13, "foreign-library"), ("geo.py", 5, "scalar-extraction")}


def test_a_send_named_method_of_a_display_client_moves_a_view_not_the_robot(tmp_path, monkeypatch):
    """`ViewportCamera.SetJointTargets(...)`: a display client's class (knowledge/actuation.DISPLAY_WORDS) is no
    device the step sends to; the call stays one the scan does not follow."""
    from scanfixture import scan_variant
    result = scan_variant("scan_recall24", tmp_path, monkeypatch, "arm_global", "reach.py:step", "reach.py",
                          "ArmClient", "ViewportCamera")
    assert not [f for f in result.findings if f.category == "io-in-pipeline"]
