"""`--save` adds learned rules to the project's settings file and keeps the rest of it as it was."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from mcptape.errors import UsageError
from mcptape.replay.config import load_config
from mcptape.replay.configfile import add_rules, save_target

NEW = ["tools/call[x]:result.content[*].text|uuid", 'notifications/message:params["a b"]']


@pytest.mark.parametrize(
    ("name", "text", "before"),
    [
        ("mcptape.toml", None, []),
        ("pyproject.toml", '[project]\nname = "x"\n', []),
        (
            "pyproject.toml",
            '[project]\nname = "x"\n\n[tool.mcptape]\nserver = "a b"\n\n[tool.z]\nx = 1\n',
            [],
        ),
        ("pyproject.toml", '[tool.mcptape]\nignore = ["a:b.c"]  # note\nstderr = true\n', ["a:b.c"]),
        (
            "pyproject.toml",
            '[tool.mcptape]\nignore = [\n  "a:b.c", # one\n  "x:y" # two\n]\n[tool.z]\n',
            ["a:b.c", "x:y"],
        ),
        ("pyproject.toml", '[tool.mcptape]\nignore = [\n  "a:b.c",\n  "x:y"]\n', ["a:b.c", "x:y"]),
        ("mcptape.toml", '# settings\nserver = "s"  # the server\nignore = []\nstderr = false\n', []),
    ],
)
def test_rules_are_added_after_the_ones_already_there(
    tmp_path: Path, name: str, text: str | None, before: list[str]
) -> None:
    """Whatever the layout of the file, its ignore reads back as the old rules then the new ones."""
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    assert add_rules(path, NEW) == NEW
    after = path.read_text()
    assert load_config(pyproject=path).ignore and [r.text for r in load_config(pyproject=path).ignore] == [
        *before,
        *NEW,
    ]
    if text is not None:
        for line in text.splitlines():  # every other line (comments included) is still there
            if "ignore" not in line and not line.strip().startswith('"'):
                assert line in after


def test_a_rule_already_there_is_not_added_twice(tmp_path: Path) -> None:
    """Saving the same rules again adds nothing and leaves the file untouched."""
    path = tmp_path / "mcptape.toml"
    add_rules(path, NEW)
    text = path.read_text()
    assert add_rules(path, [*NEW, NEW[0]]) == []
    assert path.read_text() == text


def test_the_file_is_the_one_replay_reads_else_a_new_mcptape_toml(tmp_path: Path) -> None:
    """--save writes where replay reads: the nearest settings file above, or ./mcptape.toml."""
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert save_target(sub) == sub / "mcptape.toml"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert save_target(sub) == tmp_path / "pyproject.toml"
    (tmp_path / "a" / "mcptape.toml").write_text("")
    assert save_target(sub) == tmp_path / "a" / "mcptape.toml"


def test_an_edit_keeps_the_file_mode(tmp_path: Path) -> None:
    """The file is replaced atomically with the mode it had."""
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "x"\n')
    os.chmod(path, 0o640)
    add_rules(path, NEW)
    assert path.stat().st_mode & 0o777 == 0o640
    assert tomllib.loads(path.read_text())["project"] == {"name": "x"}


def test_a_layout_it_cannot_edit_is_refused_and_the_file_left_alone(tmp_path: Path) -> None:
    """tool.mcptape written as a dotted key (no [tool.mcptape] header) is not edited: it says so."""
    path = tmp_path / "pyproject.toml"
    text = 'tool.mcptape.ignore = ["a:b"]\n'
    path.write_text(text)
    with pytest.raises(UsageError) as info:
        add_rules(path, NEW)
    assert "by hand" in (info.value.hint or "")
    assert path.read_text() == text
