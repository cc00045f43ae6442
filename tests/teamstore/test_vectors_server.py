"""Vectors on a Chroma server: the same collection layout as the local store, and
`verify --repair` finds and fixes drift against the server."""

from __future__ import annotations

from services.ingest.pipeline import NewFact


def test_verify_repair_against_the_chroma_server(engram_pg):
    mem = engram_pg.agent("team", create=True)
    ids = [
        r.fact_id
        for r in mem.remember_many(
            [
                NewFact("The on-call rota changes every Monday at nine"),
                NewFact("Grafana dashboards live in the observability folder"),
                NewFact("Terraform state is kept in the eu-west-1 bucket"),
            ]
        )
    ]
    idx = engram_pg.index
    assert idx.client.__class__.__name__ != "PersistentClient" and idx.path is None
    assert idx.count(mem.agent_id) == 3
    assert engram_pg.verify().ok
    # drift: a vector lost, an orphan left behind, a stale document
    idx.delete(mem.agent_id, [ids[0]])
    idx.upsert(mem.agent_id, [999999], ["a vector whose fact is gone"])
    idx.upsert(mem.agent_id, [ids[1]], ["an old wording of the fact"])
    rep = engram_pg.verify()
    (chk,) = [c for c in rep.agents if c.slug == "team"]
    assert not rep.ok
    assert (chk.missing_vectors, chk.orphan_vectors, chk.stale_vectors) == (
        [ids[0]],
        [999999],
        [ids[1]],
    )
    engram_pg.verify(repair=True)
    assert engram_pg.verify().ok
    assert idx.all_ids(mem.agent_id) == set(ids)
    top = mem.search("who is on call this week", mode="semantic", k=1, touch=False)
    assert top[0].fact.id == ids[0]


def test_the_chroma_server_holds_ids_and_embeddings_but_no_text(engram_pg):
    mem = engram_pg.agent("team", create=True)
    fid = mem.remember("The payroll export runs on the last Friday of the month").fact_id
    got = engram_pg.index.collection(mem.agent_id).get(
        ids=[str(fid)], include=["documents", "embeddings", "metadatas"]
    )
    assert got["ids"] == [str(fid)] and len(got["embeddings"][0]) == 384
    assert got["documents"] == [None]
    assert "payroll" not in str(got["metadatas"])
    # a stale vector is still found, by the text's hash
    assert engram_pg.index.stale_ids(mem.agent_id, {fid: "another text"}) == [fid]


def test_verify_after_forget_finds_an_entity_name_left_behind(keyword_engram_pg):
    from models import Entity
    from services.forget.service import ForgetService

    mem = keyword_engram_pg.agent("team", create=True)
    mem.remember("The budget review is on Monday")
    Entity.create(agent=mem.agent_id, name="Zephyrine Okafor", key="zephyrine okafor")
    rep = ForgetService(keyword_engram_pg).verify(["Zephyrine Okafor"], agent="team")
    assert not rep.ok
    assert any("entity" in str(place) for place in rep.remaining), rep.remaining


def test_engram_reaches_a_chroma_server_behind_a_token_check(
    chroma_server, team_store, tmp_path, monkeypatch
):
    """Chroma 1.x's own server does not check tokens, so a team puts it behind a proxy that
    does: the proxy here (outside the product, the operator's part) refuses any request
    without the bearer token and forwards the rest to the real server."""
    import threading
    import urllib.error
    import urllib.request
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from services.config import StoreConfig
    from services.engram import Engram
    from services.teamstore import check_chroma

    token = "team-vector-token-7"
    seen = []

    class Proxy(BaseHTTPRequestHandler):
        def _forward(self):
            ok = self.headers.get("Authorization") == f"Bearer {token}"
            seen.append(ok)
            if not ok:
                self.send_response(401)
                self.end_headers()
                return
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
            req = urllib.request.Request(
                chroma_server.url + self.path,
                data=body,
                method=self.command,
                headers={"Content-Type": self.headers.get("Content-Type", "application/json")},
            )
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    status, data = r.status, r.read()
            except urllib.error.HTTPError as exc:
                status, data = exc.code, exc.read()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _forward

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        monkeypatch.delenv("ENGRAM_CHROMA_TOKEN", raising=False)
        ok, msg = check_chroma(url)
        assert not ok and msg.startswith("unauthorised:"), msg
        monkeypatch.setenv("ENGRAM_CHROMA_TOKEN", token)
        assert check_chroma(url)[0]
        e = Engram.open(
            StoreConfig(data_dir=tmp_path / "t", db_url=team_store.db_url, vector_url=url)
        )
        try:
            mem = e.agent("team", create=True)
            mem.remember("The on-call phone is in the second drawer")
            hits = mem.search("where is the on-call phone kept", mode="semantic", k=1)
            assert hits[0].fact.content == "The on-call phone is in the second drawer"
        finally:
            e.close()
        assert seen.count(False) == 1 and all(seen[1:])
    finally:
        server.shutdown()
