"""The README's examples run as written: its Python code, its command lines, its nginx
server block (in front of a real server, over TLS) and its PostgreSQL recipe (the role, the
database, a backup and a restore).

Commands meant for a real machine are run here with the fewest changes that make them
possible: no ``sudo``, the test's own PostgreSQL server, role and database names, and
directories under the test's temporary one.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import httpx2
import pytest
from sqlalchemy import create_engine, make_url, text

from magdagdon.cli import main

from .utils.api import new_game, play_to_end
from .utils.server import free_port, running_server, server_process

README = Path(__file__).resolve().parent.parent / "README.md"
MAGDAGDON = str(Path(sys.executable).with_name("magdagdon"))


def blocks(language: str) -> list[str]:
    """The README's fenced code blocks in ``language``, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", README.read_text(), re.M | re.S)


def shell_lines(*, containing: str) -> list[str]:
    """The lines of the README's ``sh`` blocks that contain ``containing``, in order."""
    return [
        line
        for block in blocks("sh")
        for line in block.splitlines()
        if containing in line and not line.startswith("#")
    ]


# --- Python ------------------------------------------------------------------------------------


def test_the_python_examples_run_and_print_what_they_say() -> None:
    examples = blocks("python")
    assert len(examples) >= 2
    namespace: dict[str, object] = {"__name__": "readme"}
    for code in examples:  # in order: a later example may use what an earlier one made
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(README), "exec"), namespace)
        said = [line.partition("#")[2].strip() for line in code.splitlines() if "print(" in line]
        for expected in filter(None, said):
            assert expected in out.getvalue(), (expected, out.getvalue())


# --- the command line --------------------------------------------------------------------------


def command_lines() -> list[list[str]]:
    """The README's ``magdagdon score`` and ``magdagdon check`` lines (indented blocks)."""
    found = re.findall(
        r"^    magdagdon ((?:score|check) .*?)(?:\s+#.*)?$", README.read_text(), re.M
    )
    return [shlex.split(line) for line in found]


@pytest.mark.parametrize("argv", command_lines(), ids=" ".join)
def test_the_score_and_check_lines_run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    out = capsys.readouterr().out
    comment = re.search(
        rf"magdagdon {re.escape(shlex.join(argv))}.*?#.*?\((\d+)\)", README.read_text()
    )
    if comment:  # "… # the score breakdown of a board (544)"
        assert f"total {comment[1]}" in out


def test_where_passkeys_and_transfer_codes_answer_is_what_the_server_does() -> None:
    """The README said "at localhost only" while a transfer code was issued at 127.0.0.1: the
    server takes loopback addresses too (``is_loopback_host``), and browsers refuse a passkey
    there."""
    from magdagdon.settings import is_loopback_host

    words = " ".join(README.read_text().split())
    assert is_loopback_host("127.0.0.1") and is_loopback_host("localhost")
    assert "localhost only" not in words
    assert "localhost, and loopback addresses such as 127.0.0.1" in words
    assert "this machine only: localhost and loopback addresses" in words


def test_the_command_lines_are_found() -> None:
    assert {argv[0] for argv in command_lines()} == {"score", "check"}


# --- nginx -------------------------------------------------------------------------------------


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        assert process.poll() is None, "nginx exited"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError("nginx did not listen")


@contextlib.contextmanager
def nginx(server_block: str, workdir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run nginx with ``server_block`` in its ``http`` block, everything under ``workdir``."""
    for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (workdir / name).mkdir()
    user = "user root;" if os.geteuid() == 0 else ""  # workers may read the temporary files
    conf = workdir / "nginx.conf"
    conf.write_text(
        f"""{user}
worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log;
events {{}}
http {{
    access_log {workdir}/access.log;
    client_body_temp_path {workdir}/body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
{server_block}
}}
"""
    )
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    files = ["-p", str(workdir), "-e", str(workdir / "error.log"), "-c", str(conf)]
    check = subprocess.run([nginx, "-t", *files], capture_output=True)
    assert check.returncode == 0, check.stderr.decode()
    process = subprocess.Popen(
        [nginx, *files, "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.process
@pytest.mark.skipif(
    not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()) or not shutil.which("openssl"),
    reason="nginx or openssl is not installed",
)
def test_the_nginx_server_block_serves_the_game_over_tls(tmp_path: Path) -> None:
    (block,) = [b for b in blocks("nginx") if "listen 443" in b]
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    http_port, https_port = free_port(), free_port()
    log = tmp_path / "server.log"
    # The settings line the README gives for nginx on the same host.
    (trusted,) = re.findall(
        r"^    (MAGDAGDON_TRUSTED_PROXIES=127\.0\.0\.1)$", README.read_text(), re.M
    )
    name, _, value = trusted.partition("=")
    with server_process(
        f"sqlite:///{tmp_path / 'n.db'}", log=log, log_level="info", env={name: value}
    ) as server:
        app_port = server.url.rpartition(":")[2]
        here = (
            block.replace("listen [::]:80;", "")
            .replace("listen [::]:443 ssl http2;", "")
            .replace("listen 80;", f"listen 127.0.0.1:{http_port};")
            .replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;")
            .replace("/etc/letsencrypt/live/magdagdon.example.org/fullchain.pem", str(cert))
            .replace("/etc/letsencrypt/live/magdagdon.example.org/privkey.pem", str(key))
            .replace("http://127.0.0.1:8000", f"http://127.0.0.1:{app_port}")
        )
        assert here.count("127.0.0.1:") == 3 and str(cert) in here and str(key) in here
        nginx_dir = tmp_path / "nginx"
        nginx_dir.mkdir()
        with nginx(here, nginx_dir) as process:
            _wait_for_port(https_port, process)
            base = f"https://127.0.0.1:{https_port}"
            with httpx2.Client(base_url=base, verify=False) as client:
                page = client.get("/")
                assert page.status_code == 200 and "MAGDAGDON" in page.text
                assert page.headers["strict-transport-security"] == "max-age=63072000"
                me = client.get("/api/players/me", headers={"X-Forwarded-For": "198.51.100.9"})
                assert "secure" in me.headers["set-cookie"].lower()  # X-Forwarded-Proto
                rid = me.headers["x-request-id"]
                assert re.fullmatch(r"[0-9a-f]{32}", rid)  # nginx's $request_id
                # Host $http_host: a redirect keeps the non-standard port.
                moved = client.get("/api/health/", follow_redirects=False)
                assert moved.headers["location"] == f"{base}/api/health"
                assert client.get("/api/health/", follow_redirects=True).status_code == 200
            plain = httpx2.get(f"http://127.0.0.1:{http_port}/x?y=1", follow_redirects=False)
            assert plain.status_code == 301
            assert plain.headers["location"] == "https://127.0.0.1/x?y=1"
    lines = log.read_text().splitlines()
    (line,) = [line for line in lines if f"[{rid}]" in line]
    # The client's address, not nginx's (which speaks HTTP/1.0 to the server).
    assert re.search(r'access: 198\.51\.100\.9 "GET /api/players/me HTTP/1\.[01]" 200$', line)


@pytest.mark.process
@pytest.mark.skipif(
    not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()), reason="nginx is not installed"
)
def test_the_nginx_upstream_sends_requests_to_each_host_in_turn(tmp_path: Path) -> None:
    """The several-hosts upstream block, with the lines the README adds to ``location /``, in
    front of two servers: requests go to each in turn, and on to the other when one is gone."""
    (upstream,) = [b for b in blocks("nginx") if b.startswith("upstream magdagdon")]
    text = README.read_text()
    extra = ["proxy_pass http://magdagdon;", "proxy_http_version 1.1;"]
    extra.append('proxy_set_header Connection "";')
    assert all(f"`{line}`" in text for line in extra)
    db = f"sqlite:///{tmp_path / 'u.db'}"
    logs = [tmp_path / "host0.log", tmp_path / "host1.log"]
    with (
        server_process(db, log=logs[0], log_level="info") as first,
        server_process(db, log=logs[1], log_level="info") as second,
    ):
        port = free_port()
        here = upstream.replace("10.0.0.11:8000", first.url.removeprefix("http://"))
        here = here.replace("10.0.0.12:8000", second.url.removeprefix("http://"))
        location = "\n        ".join(extra)
        here += f"server {{\n    listen 127.0.0.1:{port};\n"
        here += f"    location / {{\n        {location}\n    }}\n}}\n"
        nginx_dir = tmp_path / "nginx"
        nginx_dir.mkdir()
        with nginx(here, nginx_dir) as process:
            _wait_for_port(port, process)

            def served(expected: list[int]) -> list[int]:
                """The requests each has logged (nginx's: HTTP/1.1), once they are there."""
                deadline = time.monotonic() + 5
                while True:
                    seen = [log.read_text().count('"GET /api/ready HTTP/1.1" 200') for log in logs]
                    if seen == expected or time.monotonic() > deadline:
                        return seen
                    time.sleep(0.05)

            with httpx2.Client(base_url=f"http://127.0.0.1:{port}") as client:
                for _ in range(4):
                    assert client.get("/api/ready").status_code == 200
                assert served([2, 2]) == [2, 2]
                first.kill()
                for _ in range(4):
                    assert client.get("/api/ready").status_code == 200
                assert served([2, 6]) == [2, 6]


# --- PostgreSQL --------------------------------------------------------------------------------


def as_here(line: str, name: str, env_file: Path, state: Path) -> str:
    """A README command line as it can run here (see the module's docstring)."""
    line = line.partition("  #")[0]
    line = line.replace("sudo -u postgres ", "").replace("sudo -u magdagdon ", "")
    line = line.replace("sudo ", "").replace("-o magdagdon -g magdagdon ", "")
    line = line.replace("/opt/magdagdon/bin/magdagdon", MAGDAGDON)
    line = line.replace("/etc/magdagdon/magdagdon.env", str(env_file))
    line = line.replace("/var/lib/magdagdon", str(state))
    line = line.replace("2026-12-01", date.today().isoformat())
    # The role and the database: the word magdagdon standing alone.
    return re.sub(r"(?<![\w/.-])magdagdon(?![\w.-])", name, line)


def run_shell(line: str, cwd: Path, env: dict[str, str], stdin: str = "") -> None:
    done = subprocess.run(
        ["bash", "-c", line],
        cwd=cwd,
        env={**os.environ, **env},
        input=stdin.encode(),
        capture_output=True,
        timeout=120,
        start_new_session=True,  # no terminal: createuser -P reads the password from stdin
    )
    assert done.returncode == 0, (line, done.stderr.decode())


@pytest.mark.process
@pytest.mark.skipif(not shutil.which("pg_dump"), reason="the PostgreSQL client is not installed")
def test_the_postgresql_recipe_makes_a_database_that_migrates_and_restores(
    postgres_server_url: str, tmp_path: Path
) -> None:
    server = make_url(postgres_server_url)
    if server.host not in ("127.0.0.1", "localhost"):
        pytest.skip("the README's commands name a PostgreSQL on 127.0.0.1")
    name = f"magdagdon_readme_{secrets.token_hex(3)}"
    password = f"pw-{secrets.token_hex(6)}"
    env = {
        "PGHOST": "127.0.0.1",
        "PGPORT": str(server.port or 5432),
        "PGUSER": server.username or "postgres",  # `sudo -u postgres`
        "PGPASSWORD": password,
    }

    def lines(containing: str) -> list[str]:
        return [
            as_here(line, name, tmp_path / "none.env", tmp_path)
            for line in shell_lines(containing=containing)
        ]

    create = lines("createuser -P") + lines("createdb -O")[:1]
    assert len(create) == 2
    (url_line,) = re.findall(r"`MAGDAGDON_DATABASE_URL=(postgresql[^`]*)`", README.read_text())
    readme_url = make_url(url_line)
    assert readme_url.username == readme_url.database == "magdagdon"
    url = readme_url.set(
        username=name, password=password, database=name, port=server.port
    ).render_as_string(hide_password=False)
    admin = create_engine(postgres_server_url, isolation_level="AUTOCOMMIT")
    try:
        run_shell(create[0], tmp_path, env, stdin=f"{password}\n{password}\n")
        run_shell(create[1], tmp_path, env)
        # As the role the recipe made (not a superuser): the migrations may create tables.
        with admin.connect() as conn:
            assert not conn.execute(
                text("SELECT rolsuper FROM pg_roles WHERE rolname = :n"), {"n": name}
            ).scalar()
        done = subprocess.run(
            [MAGDAGDON, "migrate"],
            env={**os.environ, "MAGDAGDON_DATABASE_URL": url},
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        with running_server(url) as base, httpx2.Client(base_url=base) as client:
            final = play_to_end(client, new_game(client, "survival", seed=181))
            cookies = dict(client.cookies)
        (dump,) = lines("pg_dump -Fc")
        run_shell(dump, tmp_path, env)
        restore = [
            line
            for line in lines("")
            if line.split()[:1] in (["dropdb"], ["createdb"], ["pg_restore"])
        ]
        assert [line.split()[0] for line in restore] == [
            "createdb",
            "dropdb",
            "createdb",
            "pg_restore",
        ]
        for line in restore[1:]:
            run_shell(line, tmp_path, env)
        with (
            running_server(url) as base,
            httpx2.Client(base_url=base, cookies=cookies) as client,
        ):
            rows = client.get("/api/highscores/survival?scope=me").json()["rows"]
            assert [r["score"] for r in rows] == [final["final_score"]["total"]]
            assert client.get(f"/api/games/{final['id']}/replay").status_code == 200
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            conn.execute(text(f'DROP ROLE IF EXISTS "{name}"'))
        admin.dispose()


# --- SQLite backup and restore -----------------------------------------------------------------


@pytest.mark.process
def test_the_sqlite_backup_and_restore_lines_bring_back_the_game(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    env_file = tmp_path / "magdagdon.env"
    env_file.write_text(f"MAGDAGDON_DATABASE_URL=sqlite:///{state}/magdagdon.db\n")
    (backup,) = [
        as_here(line, "magdagdon", env_file, state) for line in shell_lines(containing=" backup ")
    ]
    restore = [
        as_here(line, "magdagdon", env_file, state)
        for line in shell_lines(containing="/var/lib/magdagdon/magdagdon.db")
        if "systemctl" not in line
    ]
    assert [line.split()[0] for line in restore] == ["rm", "install"]
    url = f"sqlite:///{state}/magdagdon.db"
    with running_server(url) as base, httpx2.Client(base_url=base) as client:
        final = play_to_end(client, new_game(client, "peaceful", seed=99))
        cookies = dict(client.cookies)
        run_shell(backup, tmp_path, {})
        # After the backup: a game the restore will undo (its commits may sit in the WAL).
        later = play_to_end(client, new_game(client, "peaceful", seed=100))
    # The server stopped, as `systemctl stop` would.
    for line in restore:
        run_shell(line, tmp_path, {})
    with running_server(url) as base, httpx2.Client(base_url=base, cookies=cookies) as client:
        rows = client.get("/api/highscores/peaceful?scope=me").json()["rows"]
        assert [r["score"] for r in rows] == [final["final_score"]["total"]]
        assert client.get(f"/api/games/{later['id']}").status_code == 404
