"""Rules learned for a server apply to that server's recordings only, and say which file they came
from (issue 27, item 4). A settings file without `learned` tables reads and applies as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.commands.learning import learn_and_report
from mcptape.errors import UsageError
from mcptape.replay.api import replay
from mcptape.replay.config import Identity, load_config
from mcptape.replay.configfile import add_learned
from mcptape.replay.scope import identity_of, with_learned
from mcptape.replay.settings import ReplaySettings
from mcptape.transcript import open_transcript
from tests.replay.conftest import ENV_SERVER, RECORDED, rp

pytestmark = pytest.mark.slow

EVERYONE = "notifications/message:params.data.elapsed"
GREET = ("tools/call:result.content[*].text", "tools/call:result.structuredContent.result")
SETTINGS = f"""\
# project settings
ignore = ["notifications/message:params.data.elapsed"]   # every server's, as before

[[learned]]
server = "rp-server"
ignore = ['{GREET[0]}', '{GREET[1]}']

[[learned]]
server = "another-server"
ignore = ["tools/call:result._meta"]

[[learned]]
command = ["python", "x.py"]
ignore = ["resources/read:result"]
"""


def test_learned_tables_are_read_with_their_server_and_file(tmp_path: Path) -> None:
    """Each table's rules name the file and the server; a recording gets the tables that match it
    (by serverInfo name, else by recorded command) and never another server's."""
    path = tmp_path / "mcptape.toml"
    path.write_text(SETTINGS)
    config = load_config(pyproject=path)
    assert [(r.text, r.origin) for r in config.ignore] == [(EVERYONE, str(path))]
    rp_rules = config.rules_for(Identity("rp-server", ("anything",)))
    assert [r.text for r in rp_rules] == list(GREET)
    assert rp_rules[0].origin == f"{path}, learned for server 'rp-server'"
    by_command = config.rules_for(Identity(None, ("python", "x.py")))
    assert [(r.text, r.origin) for r in by_command] == [
        ("resources/read:result", f"{path}, learned for command python x.py")
    ]
    assert config.rules_for(Identity("mcp-time", ("python", "y.py"))) == []


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('ignore = ["a:b"]', "names no server"),
        ('server = "s"\nwhen = 1', "unknown key 'when'"),
        ('server = ""', "server must be a server name"),
        ('command = []\nignore = ["a:b"]', "server is empty"),
    ],
)
def test_a_learned_table_it_cannot_read_is_a_usage_error(tmp_path: Path, table: str, message: str) -> None:
    """A table naming no server, an unknown key, an empty name or command: one error naming the file."""
    path = tmp_path / "mcptape.toml"
    path.write_text(f"[[learned]]\n{table}\n")
    with pytest.raises(UsageError, match=message) as caught:
        load_config(pyproject=path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("name", "before", "header"),
    [
        ("mcptape.toml", '# mine\nignore = ["exec:pid"]  # keep\n', "[[learned]]"),
        ("pyproject.toml", '[project]\nname = "p"\n\n[tool.mcptape]\nignore = ["exec:pid"]\n', None),
        ("pyproject.toml", '[project]\nname = "p"\n', None),
    ],
)
def test_save_puts_rules_in_their_servers_table_and_keeps_the_rest(
    tmp_path: Path, name: str, before: str, header: str | None
) -> None:
    """A first save makes the server's table, a second adds to it, another server gets its own;
    comments, the top-level ignore and a rule already there for every server stay as they were."""
    path = tmp_path / name
    path.write_text(before)
    assert add_learned(path, "rp-server", ["rp"], ["a:b", "exec:pid"]) == (
        ["a:b"] if "exec:pid" in before else ["a:b", "exec:pid"]
    )
    assert add_learned(path, "rp-server", ["rp"], ["a:b", "c:d"]) == ["c:d"]
    assert add_learned(path, None, ["python", "x.py"], ["e:f"]) == ["e:f"]
    text = path.read_text()
    assert text.startswith(before)
    assert text.count(header or "[[tool.mcptape.learned]]") == 2
    config = load_config(pyproject=path)
    assert [r.text for r in config.ignore] == (["exec:pid"] if "exec:pid" in before else [])
    everyone = "exec:pid" in before
    assert [r.text for r in config.rules_for(Identity("rp-server", ()))] == (
        ["a:b", "c:d"] if everyone else ["a:b", "exec:pid", "c:d"]
    )
    assert [r.text for r in config.rules_for(Identity(None, ("python", "x.py")))] == ["e:f"]


def test_a_learned_array_it_cannot_edit_is_refused_and_left_alone(tmp_path: Path) -> None:
    """`learned = [{...}]` written inline: the rules to add by hand are named, the file is unchanged."""
    path = tmp_path / "mcptape.toml"
    text = 'learned = [{server = "rp-server", ignore = ["a:b"]}]\n'
    path.write_text(text)
    with pytest.raises(UsageError, match="by hand"):
        add_learned(path, "rp-server", [], ["c:d"])
    assert path.read_text() == text


def test_only_the_rules_learned_for_the_recordings_server_apply(tmp_path: Path, v1_tape: Path) -> None:
    """rp-server v2 answers another greeting: rp-server's learned rules hide it and name their file
    and server; another server's rule is not applied (no 'hid nothing' for it); the top-level one
    still applies to every server."""
    path = tmp_path / "mcptape.toml"
    path.write_text(SETTINGS)
    result = replay(v1_tape, rp("--v2"), config=load_config(pyproject=path))
    assert result.same, result.render()
    assert [r.text for r in result.diff.rules if r.origin != "built-in"] == [EVERYONE, *GREET]
    text = result.render()
    assert f"{GREET[0]} ({path}, learned for server 'rp-server'): hid 1" in text
    assert "another-server" not in text and "tools/call:result._meta" not in text
    assert f"ignore rule {EVERYONE} ({path}) hid nothing" in text


def test_learn_save_scopes_the_rules_to_the_recordings_server(
    tmp_path: Path,
    env_tape: Path,
    v1_tape: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`replay --learn 2 --save` learns the nonce, saves it for server 'rp-env' and says so; the
    saved rule applies to rp-env's recording and not to rp-server's."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "mcptape.toml"
    path.write_text("")
    settings = ReplaySettings.resolve(set_env={"GREETING": RECORDED["GREETING"]})
    assert learn_and_report(env_tape, ENV_SERVER, 2, True, False, settings) == 0
    report = capsys.readouterr().out
    assert f"saved 2 rule(s) to {path} for server 'rp-env'" in report, report
    text = path.read_text()
    assert "[[learned]]\nserver = 'rp-env'\n" in text and "tools/call[nonce]" in text
    saved = ReplaySettings.resolve(config=load_config(pyproject=path))
    assert identity_of(open_transcript(env_tape)) == Identity(
        "rp-env", tuple(open_transcript(env_tape).header.command)
    )
    assert len(with_learned(saved, open_transcript(env_tape)).rules) == 2
    assert with_learned(saved, open_transcript(v1_tape)).rules == ()
