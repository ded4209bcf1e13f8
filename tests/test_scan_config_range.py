"""A setting an inline range tests through a local the script binds before its loop from the project's own
config file (`noisy = cfg["add_sensor_noise"]`, `conf/deploy.json` says false): the block it guards is dead,
not the pipeline's; with the config saying true the noise draw is reported again
(analysis/model/config_values.function_config_constants, analysis/inline/function._bound_before)."""
from __future__ import annotations

import pytest
from scanfixture import check_marked, scan_variant


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAPP_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))


def test_a_config_the_project_ships_decides_the_block_a_range_tests(tmp_path, monkeypatch):
    assert check_marked("scan_config_range", tmp_path, monkeypatch, "glider", "fly.py:14-17")


def test_the_config_saying_true_keeps_the_block(tmp_path, monkeypatch):
    result = scan_variant("scan_config_range", tmp_path, monkeypatch, "glider", "fly.py:14-17", "conf/deploy.json",
                          '"add_sensor_noise": false', '"add_sensor_noise": true')
    assert ("random-in-pipeline", 16) in {(f.category, f.line) for f in result.findings}
