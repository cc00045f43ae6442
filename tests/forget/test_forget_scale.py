"""A forget at scale checks the very vectors Chroma held, not the texts embedded again
(issue #33: re-embedding was 6 s of a 1 % forget at 10k facts). Real store, real Chroma,
real model, through the CLI."""

from __future__ import annotations

import pytest

from app.cli import main

pytestmark = pytest.mark.slow  # full forgets with the model loaded

PET = "My secret pet is named Quetzalcoatlus Borogove"
THIRD = "Deploys on Fridays behind a canary release"
OLDER = "An older wording about the family's reptile, from before an edit"


def _run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_the_check_after_a_forget_finds_the_stored_vector_not_a_new_embedding(
    tmp_path, capsys, monkeypatch
):
    """The fact's vector was made from another wording (written before an edit; nothing
    embeds ``PET`` itself). A purge that only marks the vector deleted (an older Engram's,
    a crash half way: simulated by swapping the rebuild for Chroma's own ``delete``) leaves
    it in Chroma's files, and the receipt must say so: the check looks for the bytes Chroma
    held, which embedding the text again would never find."""
    import numpy as np

    from services.config import StoreConfig
    from services.engram import Engram
    from services.forget import purge
    from services.forget.raw_scan import vector_bytes_present

    d = tmp_path / "store"
    with Engram.open(StoreConfig(data_dir=d, semantic=False)) as e:  # rows, no vectors yet
        a = e.agent("a", create=True)
        a.remember("Prefers pnpm over npm")
        a.remember(PET)
        a.remember(THIRD)
    with Engram.open(StoreConfig(data_dir=d)) as e:
        aid = e.agent("a").agent_id
        rows = {c: i for i, c in e.db.execute_sql("SELECT id, content FROM fact").fetchall()}
        stale = e.embedder.embed([OLDER])
        e.index.upsert(aid, [rows[PET]], [PET], stale)
        kept = [rows["Prefers pnpm over npm"], rows[THIRD]]
        e.index.upsert(aid, kept, ["Prefers pnpm over npm", THIRD])
        assert float(e.embedder.embed([PET])[0] @ stale[0]) < 0.9  # not the text's vector
    chroma = d / "chroma"
    assert vector_bytes_present([chroma], stale)

    monkeypatch.setattr(purge, "_rebuild", lambda idx, aid, drop: idx.delete(aid, drop))
    rc, out, err = _run(capsys, "--data-dir", str(d), "forget", "--agent", "a", "--fact",
                        str(rows[PET]), "--yes")  # fmt: skip
    assert "remaining_after_verify 1" in out, out + err
    assert "still present: vector (float32 bytes of the embedding of string 1" in out, out
    monkeypatch.undo()

    # the real purge rewrites the collection: the bytes left above go with the next forget
    rc, out, err = _run(capsys, "--data-dir", str(d), "forget", "--agent", "a", "--fact",
                        str(rows[THIRD]), "--yes")  # fmt: skip
    assert rc == 0 and "remaining_after_verify 0" in out, out + err
    assert vector_bytes_present([chroma], np.asarray(stale)) == []
    rc, out, _ = _run(capsys, "--data-dir", str(d), "recall", "--agent", "a", "pnpm")
    assert "Prefers pnpm over npm" in out
