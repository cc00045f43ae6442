"""The optional LLM path against a local HTTP server that speaks the OpenAI chat completions
API. That server is the one fake here: it stands in for an external provider (OpenAI,
Ollama, llama.cpp). The API key is read through ``SecretsStore`` from an in-memory keyring
backend (a fake of the OS keyring, also outside the product). The store is real."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from services.capture.llm_extract import llm_extract, parse_facts_json
from services.capture.sessions import ingest_session
from services.errors import EngramError
from services.lifecycle.compile import CompileService
from services.lifecycle.llm import ChatClient, LLMError, check_provider
from services.secrets import LLM_API_KEY, SecretsStore
from services.vectors.tokens import count_tokens
from tests.fake_keyring import in_memory_keyring


class FakeProvider:
    """Answers POST /v1/chat/completions with ``self.answer`` as the message content."""

    def __init__(self):
        self.answer = "[]"
        self.status = 200
        self.requests: list[dict] = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                provider.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": json.loads(body)}
                )
                if self.path != "/v1/chat/completions":
                    self.send_response(404)
                    self.end_headers()
                    return
                payload = json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": provider.answer},
                            }
                        ],
                    }
                )
                self.send_response(provider.status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(payload.encode())

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@pytest.fixture
def provider():
    p = FakeProvider()
    yield p
    p.close()


@pytest.fixture
def fake_keyring():
    with in_memory_keyring() as kr:
        yield kr


@pytest.fixture
def llm_config(lc_config, provider):
    lc_config.llm_endpoint = provider.url
    lc_config.llm_model = "test-model"
    lc_config.llm_timeout = 5
    return lc_config


def test_llm_extraction_stores_validated_facts(
    agent, transcript, provider, fake_keyring, llm_config
):
    SecretsStore().set(LLM_API_KEY, "sk-test-key-from-keyring")
    provider.answer = json.dumps(
        [
            {"fact": "Prefers pnpm over npm", "importance": 0.8, "category": "pref"},
            {
                "fact": "Orders service runs on Postgres",
                "importance": 0.7,
                "category": "proj:orders",
            },
        ]
    )
    path = transcript(4, assistant_claims="ASSISTANT-ONLY-CLAIM you prefer yarn.")
    llm_config.llm_review = False  # by default they wait in the review inbox (next test)
    r = ingest_session(agent, path, config=llm_config)
    assert r.extractor == "llm" and r.facts_added == 2 and not r.warnings
    got = {(f.content, f.category, f.importance) for f in agent.list()}
    assert got == {
        ("Prefers pnpm over npm", "pref", 0.8),
        ("Orders service runs on Postgres", "proj:orders", 0.7),
    }
    (req,) = provider.requests
    assert req["headers"]["Authorization"] == "Bearer sk-test-key-from-keyring"
    assert req["body"]["model"] == "test-model"
    sent = json.dumps(req["body"]["messages"])
    assert "I prefer pnpm over npm" in sent
    assert "ASSISTANT-ONLY-CLAIM" not in sent  # only the user's words go to the model


def test_llm_facts_go_to_the_review_inbox_by_default(
    agent, transcript, provider, fake_keyring, llm_config
):
    provider.answer = json.dumps(
        [{"fact": "Deploys go through the staging cluster", "importance": 0.7, "category": "fact"}]
    )
    r = ingest_session(agent, transcript(2), config=llm_config)
    assert r.extractor == "llm" and r.facts_pending == 1
    # nothing is active memory before the user says so
    assert [f.status for f in agent.list()] == ["pending"]
    (item,) = agent.review.items()
    assert item.fact.content == "Deploys go through the staging cluster"
    assert item.reason == "llm"
    agent.review.accept([item.fact.id])
    assert [(f.content, f.status) for f in agent.list()] == [
        ("Deploys go through the staging cluster", "active")
    ]


def test_malformed_json_falls_back_to_offline_extractor(
    agent, transcript, provider, fake_keyring, llm_config
):
    provider.answer = '[{"fact": "Prefers pnpm", "importance": 0.8, "category": "pref"'  # cut off
    r = ingest_session(agent, transcript(3), config=llm_config)
    assert r.extractor == "deterministic"
    assert any("not valid JSON" in w and "offline extractor" in w for w in r.warnings)
    contents = {f.content for f in agent.list()}
    # the deterministic facts, nothing from the broken answer
    assert contents == {
        "I prefer pnpm over npm for every project.",
        "We decided to use Postgres for the orders service.",
    }
    assert "authorization" not in {k.lower() for k in provider.requests[0]["headers"]}  # no key set


def test_one_bad_item_rejects_the_whole_answer(
    agent, transcript, provider, fake_keyring, llm_config
):
    provider.answer = json.dumps(
        [
            {"fact": "Prefers pnpm", "importance": 0.8, "category": "pref"},
            {"fact": "Likes tea", "importance": "high", "category": "pref"},
        ]
    )
    r = ingest_session(agent, transcript(1), config=llm_config)
    assert r.extractor == "deterministic"
    assert any("'importance' must be a number" in w for w in r.warnings)
    assert [f.content for f in agent.list()] == ["I prefer pnpm over npm for every project."]


@pytest.mark.parametrize(
    "answer,message",
    [
        ("Sure! Here are the facts: none", "not valid JSON"),
        ('{"fact": "x", "importance": 1, "category": "pref"}', "must be a JSON array"),
        ('[{"fact": "", "importance": 0.5, "category": "pref"}]', "non-empty text"),
        ('[{"fact": "x", "importance": 1.5, "category": "pref"}]', "from 0 to 1"),
        ('[{"fact": "x", "importance": 0.5, "category": "shell"}]', "unknown category"),
        ('["just a string"]', "is not an object"),
    ],
)
def test_validation_messages(answer, message):
    with pytest.raises(LLMError, match=message):
        parse_facts_json(answer)


def test_fenced_json_and_wrapper_are_accepted():
    facts = parse_facts_json(
        '```json\n{"facts": [{"fact": "Uses  zsh", "importance": 0.5, "category": "env"}]}\n```'
    )
    assert [(f.content, f.category) for f in facts] == [("Uses zsh", "env")]


def test_provider_errors_are_clear(provider):
    provider.status = 500
    client = ChatClient(provider.url, "m", timeout=5)
    with pytest.raises(LLMError, match="HTTP 500"):
        llm_extract(client, ["I prefer tea"])
    dead = ChatClient("http://127.0.0.1:9", "m", timeout=2)
    with pytest.raises(LLMError, match="unreachable"):
        dead.chat([{"role": "user", "content": "hi"}])
    assert issubclass(LLMError, EngramError)
    with pytest.raises(LLMError, match="not an http"):
        ChatClient("file:///etc/passwd", "m").chat([])


def test_llm_rewrite_of_layers(agent, provider, fake_keyring, llm_config):
    llm_config.llm_compile = True
    ids = [
        agent.remember("Prefers pnpm over npm", category="pref").fact_id,
        agent.remember("Runs Fedora on the work laptop", category="env").fact_id,
    ]
    provider.answer = "- Uses pnpm; works on Fedora."
    result = CompileService(agent, llm_config).compile()
    assert "today" in result.rewritten
    today = result.layers["today"]
    from services.store.untrusted import DATA_NOTICE

    # the rewrite is framed as data like every layer an agent loads
    assert today.markdown == f"> {DATA_NOTICE}\n\n- Uses pnpm; works on Fedora.\n"
    assert today.tokens == count_tokens(today.markdown)
    assert today.provenance == [[3, sorted(ids)]]
    assert "Prefers pnpm over npm" in result.layers["memory"].markdown  # memory.md stays extractive
    # an answer over budget is not used
    frame = count_tokens(f"> {DATA_NOTICE}")
    llm_config.budget_today = 45 + frame
    provider.answer = "- " + "very long rewrite " * 50
    result = CompileService(agent, llm_config).compile()
    assert "today" not in result.rewritten
    assert any("kept extractive" in w for w in result.warnings)
    assert (
        result.layers["today"].tokens <= 45 + frame
        and "Prefers pnpm" in result.layers["today"].markdown
    )


@pytest.mark.parametrize("endpoint", ["{u}", "{u}/", "{u}/v1", "{u}/v1/chat/completions"])
def test_endpoint_forms_and_check(provider, fake_keyring, llm_config, endpoint):
    llm_config.llm_endpoint = endpoint.format(u=provider.url)
    ok, msg = check_provider(llm_config)
    assert ok and msg.startswith(f"{provider.url}/v1/chat/completions answered")
    assert provider.requests[-1]["path"] == "/v1/chat/completions"
    llm_config.llm_model = None
    assert check_provider(llm_config) == (False, "no LLM endpoint and model configured")


def test_local_server_without_a_key(agent, transcript, provider, fake_keyring, llm_config):
    """A local server (Ollama, LM Studio, llama.cpp) needs no key: none in the keyring, no
    Authorization header; its facts still pass validation and wait for review."""
    llm_config.llm_endpoint = provider.url + "/v1"  # LM Studio's documented base URL form
    provider.answer = json.dumps(
        [{"fact": "Runs CI on a self-hosted runner", "importance": 0.6, "category": "env"}]
    )
    r = ingest_session(agent, transcript(2), config=llm_config)
    (req,) = provider.requests
    assert req["path"] == "/v1/chat/completions"
    assert "Authorization" not in req["headers"]
    assert r.facts_pending == 1 and agent.review.items()[0].reason == "llm"
