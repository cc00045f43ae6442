"""SecretsStore over keyring and the lifecycle settings file.

The keyring backends here are fakes of the OS keyring (outside the product): an in-memory
one, one that is locked and one that is missing, set with ``keyring.set_keyring``."""

from __future__ import annotations

import json

import keyring
import pytest
from keyring.errors import KeyringLocked, NoKeyringError

from services.lifecycle.config import LifecycleConfig, load_config, save_config
from services.secrets import LLM_API_KEY, SecretsStore
from tests.fake_keyring import MemoryKeyring, in_memory_keyring


class LockedKeyring(MemoryKeyring):
    def get_password(self, service, username):
        raise KeyringLocked("locked")

    def set_password(self, service, username, password):
        raise KeyringLocked("locked")


class MissingKeyring(MemoryKeyring):
    def get_password(self, service, username):
        raise NoKeyringError("no backend")

    def set_password(self, service, username, password):
        raise NoKeyringError("no backend")


@pytest.fixture
def use_keyring():
    with in_memory_keyring():

        def use(backend):
            keyring.set_keyring(backend)
            return backend

        yield use


def test_keys_round_trip_through_the_keyring(use_keyring, tmp_path):
    kr = use_keyring(MemoryKeyring())
    s = SecretsStore()
    assert s.get(LLM_API_KEY) is None
    assert s.set(LLM_API_KEY, "sk-live-123")[0]
    assert kr.items[("engram", LLM_API_KEY)] == "sk-live-123"
    assert s.get(LLM_API_KEY) == "sk-live-123"
    ok, backend, msg = s.status()
    assert ok and "MemoryKeyring" in backend and "stored in" in msg
    assert s.delete(LLM_API_KEY)[0] and s.get(LLM_API_KEY) is None
    assert s.delete(LLM_API_KEY) == (True, f"{LLM_API_KEY} was not stored.")
    # the key never lands in the settings file
    cfg = LifecycleConfig(llm_endpoint="http://127.0.0.1:1", llm_model="m")
    save_config(tmp_path, cfg)
    assert "sk-live" not in (tmp_path / "settings.json").read_text()


def test_locked_keyring_is_explained_not_raised(use_keyring):
    use_keyring(LockedKeyring())
    s = SecretsStore()
    assert s.get(LLM_API_KEY) is None and "locked" in s.last_error
    ok, msg = s.set(LLM_API_KEY, "x")
    assert not ok and "unlock" in msg
    ok, _, msg = s.status()
    assert not ok and "locked" in msg


def test_missing_keyring_is_explained_not_raised(use_keyring):
    use_keyring(MissingKeyring())
    s = SecretsStore()
    assert s.get(LLM_API_KEY) is None
    ok, msg = s.set(LLM_API_KEY, "x")
    assert not ok and "no OS keyring is available" in msg
    from keyring.backends import fail

    use_keyring(fail.Keyring())
    ok, backend, msg = s.status()
    assert not ok and "no OS keyring" in msg and backend
    assert s.get(LLM_API_KEY) is None


def test_config_round_trip_keeps_other_sections(tmp_path):
    (tmp_path / "settings.json").write_text(json.dumps({"gui": {"theme": "dark"}}))
    cfg = load_config(tmp_path)
    assert cfg == LifecycleConfig() and cfg.budget("today") == 2000 and cfg.turns_per_summary == 6
    cfg.turns_per_summary = 4
    cfg.ttl_days["tmp"] = 3
    cfg.llm_endpoint = "http://localhost:11434"
    save_config(tmp_path, cfg)
    data = json.loads((tmp_path / "settings.json").read_text())
    assert data["gui"] == {"theme": "dark"}
    again = load_config(tmp_path)
    assert again.turns_per_summary == 4 and again.ttl_for("tmp") == 3
    assert again.ttl_for("proj:alpha") == 30 and again.ttl_for("rel:sam") is None
    assert again.llm_endpoint == "http://localhost:11434"


def test_bad_settings_fall_back_with_a_message(tmp_path):
    (tmp_path / "settings.json").write_text(
        '{"lifecycle": {"turns_per_summary": "six", "budget_week": 900, "ttl_days": {"tmp": -1}}}'
    )
    cfg = load_config(tmp_path)
    assert cfg.turns_per_summary == 6 and cfg.budget_week == 900
    assert cfg.ttl_for("tmp") == 7
    assert any("turns_per_summary" in p for p in cfg.problems)
    assert any("ttl_days" in p for p in cfg.problems)
    (tmp_path / "settings.json").write_text("{not json")
    cfg = load_config(tmp_path)
    assert cfg == LifecycleConfig() and "unreadable" in cfg.problems[0]
    save_config(tmp_path, cfg)  # the unreadable file is kept aside, not lost
    assert (tmp_path / "settings.json.unreadable").read_text() == "{not json"
    assert load_config(tmp_path).problems == []


@pytest.mark.slow  # a large store: the full suite runs it
def test_store_settings_and_agent_overrides_are_used(engram, transcript):
    from services.capture.sessions import ingest_session
    from services.lifecycle.compile import CompileService

    cfg = LifecycleConfig()
    cfg.turns_per_summary = 2
    cfg.budget_memory = 900
    save_config(engram.config.data_dir, cfg)
    engram.add_agent("small", workspace=None)
    engram.update_agent(
        "small", settings={"lifecycle": {"budget_memory": 120, "bogus": 1, "budget_week": "big"}}
    )
    small = engram.agent("small")
    big = engram.agent("big", create=True)
    assert ingest_session(big, transcript(5)).episodes_added == 3  # every 2 turns + the end
    for i in range(40):
        for m in (small, big):
            m.remember(
                f"Long remembered detail number {i} about the quarterly report pipeline",
                category="fact",
            )
    res_small = CompileService(small).compile().layers["memory"]
    res_big = CompileService(big).compile().layers["memory"]
    assert (res_small.budget, res_big.budget) == (120, 900)
    assert 100 < res_small.tokens <= 120 < res_big.tokens <= 900
    from services.lifecycle.config import config_for

    assert any("budget_week" in p and "agent small" in p for p in config_for(small).problems)
