"""Shared fixtures: real SQLite store, real Chroma client, real embedding model, temp dirs."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

# the team-store servers (PostgreSQL, Chroma), started once per session when a test asks
pytest_plugins = ["tests.teamstore.fixtures"]

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture
def store_backend(request):
    """'sqlite' (the local store) unless a module asks for both with
    ``pytestmark = pytest.mark.backends("sqlite", "postgres")``."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def store_config(store_backend, request, tmp_path):
    """A StoreConfig factory for the chosen backend: a fresh database (and Chroma database)
    per test on the session's PostgreSQL and Chroma servers (tests/teamstore/servers.py)."""
    from services.config import StoreConfig

    if store_backend == "sqlite":
        return lambda name, **kw: StoreConfig(data_dir=tmp_path / name, **kw)
    team = request.getfixturevalue("team_store")
    return lambda name, **kw: StoreConfig(
        data_dir=tmp_path / name, db_url=team.db_url, vector_url=team.chroma_url, **kw
    )


@pytest.fixture
def engram(store_config):
    from services.engram import Engram

    e = Engram.open(store_config("store"))
    assert e.semantic_enabled, e.semantic_error
    yield e
    e.close()


@pytest.fixture
def keyword_engram(store_config):
    """A store opened without the model (what a user without it gets)."""
    from services.engram import Engram

    e = Engram.open(store_config("kstore", semantic=False))
    yield e
    e.close()


@pytest.fixture
def agent(engram):
    return engram.agent("claude", create=True, kind="claude-code")


@pytest.fixture
def shared_dir():
    if not SHARED.exists():
        pytest.skip("../shared is not beside the checkout")
    return SHARED


@pytest.fixture
def cli(tmp_path, capsys):
    """Run the `engram` CLI in-process on a temp store: (exit code, stdout, stderr)."""
    from app.cli import main

    data = str(tmp_path / "cli-store")

    def run(*args):
        rc = main(["--data-dir", data, *args])
        out, err = capsys.readouterr()
        return rc, out, err

    return run


@pytest.fixture
def home_and_project(tmp_path, monkeypatch):
    """A $HOME and a project (the working directory) of the test's own, as the agents lay
    them out: a forget discovers agents' files only there, and rewrites them."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(proj)
    return home, proj


def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("backends")
    if marker and "store_backend" in metafunc.fixturenames:
        metafunc.parametrize("store_backend", marker.args, indirect=True)


_SERVER_FIXTURES = {"team_store", "pg_server", "chroma_server", "_pg_template", "own_server"}


_SPAWN_WORDS = ("subprocess", "sys.executable", "Popen", "multiprocessing")


def _spawns_processes(item) -> bool:
    """A module that imports subprocess (or the MCP stdio client, or tests/processes.py), or a
    test whose own code names a way to start a process, starts other processes."""
    module = getattr(item, "module", None)
    names = vars(module) if module is not None else {}
    if "subprocess" in names or any(
        _from(v, "tests.integration.mcp_client") or _from(v, "tests.processes")
        for v in names.values()
    ):
        return True
    try:
        source = inspect.getsource(item.function)
    except (AttributeError, OSError, TypeError):
        return False
    return any(word in source for word in _SPAWN_WORDS)


def _from(obj, module: str) -> bool:
    return getattr(obj, "__module__", None) == module or obj is sys.modules.get(module)


def _starts_servers(item) -> bool:
    """Uses the session's servers (a fixture) or starts its own (tests/teamstore/servers.py)."""
    if _SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    module = getattr(item, "module", None)
    names = vars(module) if module is not None else {}
    return any(_from(v, "tests.teamstore.servers") for v in names.values())


def pytest_collection_modifyitems(config, items):
    """Markers from where a test lives and what it uses, so the quick loop can leave out what
    is slow to start: `gui` (tests/gui), `postgres` (needs the session's PostgreSQL/Chroma
    servers), `subprocess` (starts processes), `bench` (tests/bench)."""
    here = Path(__file__).resolve().parent
    gui_dir, bench_dir = here / "gui", here / "bench"
    for item in items:
        parents = Path(str(item.fspath)).resolve().parents
        if gui_dir in parents:
            item.add_marker(pytest.mark.gui)
        if bench_dir in parents:
            item.add_marker(pytest.mark.bench)
        callspec = getattr(item, "callspec", None)
        on_postgres = callspec is not None and callspec.params.get("store_backend") == "postgres"
        if on_postgres or _starts_servers(item):
            item.add_marker(pytest.mark.postgres)
        if _spawns_processes(item):
            item.add_marker(pytest.mark.subprocess)


@pytest.fixture(autouse=True)
def _fresh_origin():
    """Where writes come from is process state (the CLI declares "cli", the app "app"): each
    test starts undeclared, as a fresh process would, whichever tests ran before it."""
    from models.identity import set_origin

    set_origin(None)
    yield
    set_origin(None)


@pytest.fixture(autouse=True)
def _create_missing_stores(monkeypatch):
    """Tests point --data-dir at fresh temp folders, which a person's CLI refuses without
    --init (a typo must not make an empty store): the suite says --init once, here, through
    the environment (subprocesses inherit it). tests/core/test_cli_data_dir.py unsets it."""
    monkeypatch.setenv("ENGRAM_INIT", "1")


@pytest.fixture(autouse=True)
def _no_daemon_autostart(monkeypatch):
    """A prompt hook with no daemon starts one that lives 30 minutes (app/daemon_autostart.py):
    tests that run the hook must not leave such daemons behind, so the suite turns it off
    (subprocesses inherit it); tests/integration/test_daemon_autostart.py turns it back on."""
    monkeypatch.setenv("ENGRAM_DAEMON_AUTOSTART", "0")
