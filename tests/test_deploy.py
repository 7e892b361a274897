"""The systemd unit and its settings file in deploy/: valid for systemd, and what they say
agrees with the command line and the settings."""

from __future__ import annotations

import configparser
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from dotenv import dotenv_values

from magdagdon.cli import build_parser
from magdagdon.settings import Settings

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
UNIT = DEPLOY / "magdagdon.service"
ENV_FILE = DEPLOY / "magdagdon.env"
INSTALLED = "/opt/magdagdon/bin/magdagdon"


PUZZLES = DEPLOY / "magdagdon-puzzles.service"
TIMER = DEPLOY / "magdagdon-puzzles.timer"


def unit(path: Path = UNIT) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    parser.read_string(path.read_text())
    return parser


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is missing")
@pytest.mark.parametrize("path", [UNIT, PUZZLES, TIMER], ids=lambda p: p.name)
def test_systemd_accepts_the_unit_without_a_warning(tmp_path: Path, path: Path) -> None:
    # verify checks that ExecStart's program exists: point it at this checkout's command.
    here = str(Path(sys.executable).with_name("magdagdon"))
    assert Path(here).exists()
    for each in (path, PUZZLES) if path == TIMER else (path,):  # (a timer needs its service)
        (tmp_path / each.name).write_text(each.read_text().replace(INSTALLED, here))
    copy = tmp_path / path.name
    done = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60
    )
    # An unknown key or a bad value is only a warning ("…, ignoring"): none is allowed.
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_the_unit_runs_an_unprivileged_service_that_restarts() -> None:
    service = unit()["Service"]
    assert service["User"] == service["Group"] == "magdagdon"
    assert service["EnvironmentFile"] == "/etc/magdagdon/magdagdon.env"
    assert service["Restart"] == "on-failure"
    assert "postgresql.service" in unit()["Unit"]["After"].split()
    assert service["NoNewPrivileges"] == "yes" and service["CapabilityBoundingSet"] == ""


def test_the_units_command_line_is_one_magdagdon_understands() -> None:
    program, *args = shlex.split(unit()["Service"]["ExecStart"])
    assert program == INSTALLED
    parsed = build_parser().parse_args(args)
    assert parsed.command == "serve" and parsed.host == "127.0.0.1"  # behind the proxy


def test_the_puzzles_timer_mines_the_servers_games_with_its_settings() -> None:
    service = unit(PUZZLES)["Service"]
    program, *args = shlex.split(service["ExecStart"])
    parsed = build_parser().parse_args(args)
    assert program == INSTALLED and parsed.command == "puzzles" and parsed.self_play is None
    assert service["EnvironmentFile"] == unit()["Service"]["EnvironmentFile"]
    assert service["User"] == "magdagdon" and service["Type"] == "oneshot"
    assert unit(TIMER)["Timer"]["OnUnitActiveSec"] == "1h"


def test_the_sqlite_database_lives_in_the_state_directory() -> None:
    state = f"/var/lib/{unit()['Service']['StateDirectory']}"
    assert unit()["Service"]["WorkingDirectory"] == state
    values = dotenv_values(ENV_FILE)
    assert values["MAGDAGDON_DATABASE_URL"] == f"sqlite:///{state}/magdagdon.db"


def test_the_example_settings_file_is_valid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MAGDAGDON_DATABASE_URL", "MAGDAGDON_LOG_LEVEL", "MAGDAGDON_DATABASE_WAIT"):
        monkeypatch.delenv(name, raising=False)  # the environment would win over the file
    values = dotenv_values(ENV_FILE)
    known = {f"MAGDAGDON_{name.upper()}" for name in Settings.model_fields}
    assert set(values) <= known
    settings = Settings(_env_file=ENV_FILE)  # type: ignore[call-arg]
    assert settings.database_url == "sqlite:////var/lib/magdagdon/magdagdon.db"
    assert settings.log_level == "info"
