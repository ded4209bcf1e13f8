"""Each scan setting is declared once (settings.SETTINGS); the config key, Config field, click option and
help are made from it. Plus ruff's conventions on top: did-you-mean, --show-settings, --show-files,
force-exclude."""
import dataclasses
import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from leapp_codemod.cli import lint, main, scan
from leapp_codemod.config import KEYS, Config, ConfigError, load_config
from leapp_codemod.settings import SETTINGS

HAZARD = "def step(obs):\n    return obs.abs().max().item()\n"


def _options(command) -> dict:
    return {p.name: p for p in command.params}


def test_every_setting_is_a_config_field_a_key_and_an_option_with_its_help():
    fields = [f.name for f in dataclasses.fields(Config)]
    assert fields == [s.attr for s in SETTINGS] + ["source"]
    assert KEYS == {s.key for s in SETTINGS}
    for command in (scan, lint):
        options = _options(command)
        for setting in SETTINGS:
            if setting.flag and command.name in setting.commands:
                assert options[setting.attr].opts == [setting.option]
                assert options[setting.attr].help == setting.help
            else:
                assert setting.attr not in options


def test_every_setting_is_documented_in_the_readme():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    missing = [s.key for s in SETTINGS if f"{s.key} =" not in readme and f"`{s.key}`" not in readme]
    assert missing == []


def _project(tmp_path: Path, config: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.leapp-codemod]\n{config}")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "policy.py").write_text(HAZARD)
    (tmp_path / "app" / "gen").mkdir()
    (tmp_path / "app" / "gen" / "old.py").write_text(HAZARD)
    return tmp_path


@pytest.mark.parametrize(("written", "suggested"), [("selct", "select"), ("extend_exclude", "extend-exclude"),
                                                    ("force_exclud", "force-exclude")])
def test_unknown_config_key_suggests_the_closest(tmp_path, written, suggested):
    _project(tmp_path, f"{written} = []\n")
    with pytest.raises(ConfigError, match=f"unknown key '{written}'.*did you mean '{suggested}'"):
        load_config(tmp_path)


def test_a_key_of_the_wrong_kind_names_what_it_must_be(tmp_path):
    _project(tmp_path, "force-exclude = 'yes'\n")
    with pytest.raises(ConfigError, match="force-exclude must be true or false"):
        load_config(tmp_path)


def test_unknown_rule_name_suggests_the_closest(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, ""))
    result = CliRunner().invoke(main, ["scan", "app", "--select", "item-tolst"])
    assert result.exit_code == 2
    assert "did you mean 'item-tolist'" in result.output
    result = CliRunner().invoke(main, ["explain", "item-tolis"])
    assert result.exit_code == 2 and "did you mean 'item-tolist'" in result.output


def test_show_settings_says_where_each_value_came_from(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, "exclude = ['gen']\nselect = ['LCM1']\n"))
    result = CliRunner().invoke(main, ["scan", "app", "--show-settings", "--extend-exclude", "x", "--ignore",
                                       "LCM102"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert 'exclude = ["gen"]  # config' in lines
    assert 'select = ["LCM1"]  # config' in lines
    assert 'extend-exclude = ["x"]  # command line' in lines
    assert 'ignore = ["LCM102"]  # command line' in lines
    assert "force-exclude = false  # default" in lines
    assert len([line for line in lines if " = " in line]) == len(SETTINGS)


def test_show_files_lists_what_discovery_keeps(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, "exclude = ['gen']\n"))
    result = CliRunner().invoke(main, ["scan", "app", "--show-files"])
    assert result.exit_code == 0
    assert result.output.splitlines() == ["app/policy.py"]
    result = CliRunner().invoke(main, ["scan", "app", "--show-files", "--exclude", "policy.py"])
    assert result.output.splitlines() == ["app/gen/old.py"]


def _tree_hash(root: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(root.rglob("*.py")))).hexdigest()


def test_force_exclude_applies_to_files_named_on_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, "exclude = ['gen']\n"))
    before = _tree_hash(tmp_path)
    named = ["lint", "app/gen/old.py"]
    assert CliRunner().invoke(main, named).exit_code == 1          # named files are checked (ruff's default)
    assert CliRunner().invoke(main, [*named, "--force-exclude"]).exit_code == 0
    both = CliRunner().invoke(main, ["lint", "app/gen/old.py", "app/policy.py", "--force-exclude", "--format",
                                     "concise"])
    assert both.exit_code == 1
    assert "app/policy.py:2" in both.output and "old.py" not in both.output
    (tmp_path / "pyproject.toml").write_text("[tool.leapp-codemod]\nexclude = ['gen']\nforce-exclude = true\n")
    assert CliRunner().invoke(main, named).exit_code == 0
    assert _tree_hash(tmp_path) == before
