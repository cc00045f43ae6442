"""Connecting to a team store: its password from the OS keyring, and a connection test that
says in one line what is wrong (refused, unauthorised, unreachable).

The password is never written to Engram's files: it is in the keyring under
``team-store:<url without password>``, or libpq finds it itself (``~/.pgpass``,
``PGPASSFILE``, a ``service=`` entry in ``pg_service.conf``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlparse

if TYPE_CHECKING:
    from services.ingest.rule_key import RuleKey
    from services.store.handle import EngramHandle


def keyring_name(url: str) -> str:
    u = urlparse(url)
    host = f"{u.hostname or ''}:{u.port or 5432}"
    return f"team-store:{u.username or ''}@{host}{u.path}"


def database_password(url: str) -> str | None:
    """The keyring's password for a PostgreSQL URL without one; None leaves it to libpq."""
    from models.db import is_postgres_url

    if not is_postgres_url(url) or urlparse(url).password:
        return None
    try:  # quietly: no keyring (a server, CI) is normal here, libpq may have the password
        import keyring

        return keyring.get_password("engram", keyring_name(url)) or None
    except Exception:
        return None


def save_password(url: str, password: str) -> tuple[bool, str]:
    from services.secrets import SecretsStore

    return SecretsStore().set(keyring_name(url), password)


@dataclass
class ConnectionCheck:
    ok: bool
    database: str  # one line on the database
    vectors: str  # one line on the Chroma server


def check_connection(db_url: str, chroma_url: str | None = None, timeout: int = 5):
    """Try the database (and the Chroma server): each part's verdict in one line."""
    return ConnectionCheck(*_check(db_url, chroma_url, timeout))


def _check(db_url, chroma_url, timeout) -> tuple[bool, str, str]:
    db_ok, db_msg = check_database(db_url, timeout)
    if not chroma_url:
        return db_ok, db_msg, "no Chroma server set (vectors stay local)"
    v_ok, v_msg = check_chroma(chroma_url, timeout)
    return db_ok and v_ok, db_msg, v_msg


def check_database(url: str, timeout: int = 5) -> tuple[bool, str]:
    from models.db import is_postgres_url, open_postgres

    if not is_postgres_url(url):
        return False, "not a PostgreSQL URL (postgresql://user@host:5432/dbname)"
    u = urlparse(url)
    where = f"{u.hostname or 'localhost'}:{u.port or 5432}"
    db = open_postgres(url, database_password(url))
    db.connect_params["connect_timeout"] = timeout
    try:
        db.connect()
        version = db.execute_sql("SHOW server_version").fetchone()[0]
        return True, f"connected to PostgreSQL {version} at {where} as {u.username or 'default'}"
    except Exception as exc:
        return False, explain_database_error(str(exc), where)
    finally:
        if not db.is_closed():
            db.close()


def explain_database_error(text: str, where: str) -> str:
    from models.db import explain_connect_error

    return explain_connect_error(text, where)


def check_chroma(url: str, timeout: int = 5) -> tuple[bool, str]:
    import urllib.error
    import urllib.request

    u = urlparse(url)
    if u.scheme not in ("http", "https") or not u.hostname:
        return False, "not a Chroma server URL (http://host:8000)"
    where = f"{u.hostname}:{u.port or 8000}"
    from services.vectors.index import chroma_token

    token = chroma_token(url)
    req = urllib.request.Request(
        f"{u.scheme}://{where}/api/v2/heartbeat",
        headers={"Authorization": f"Bearer {token}"} if token else {},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
        return True, f"Chroma server answers at {where}"
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            return False, f"unauthorised: the Chroma server at {where} refused the request"
        return False, f"the Chroma server at {where} answered HTTP {exc.code}"
    except OSError as exc:  # URLError and timeouts are OSErrors
        reason = str(getattr(exc, "reason", exc)).lower()
        if "refused" in reason:
            return False, f"refused: nothing listens on {where} (is `chroma run` running?)"
        return False, f"unreachable: {where} did not answer ({reason})"


CHANNEL = "engram_changes"  # schema v4's statement triggers notify here


class ChangeListener:
    """LISTEN for other clients' writes on a team store (schema v4 triggers NOTIFY on every
    write to agents, facts, episodes, layers and the audit trail). A connection of its own,
    never in a transaction; ``fileno`` lets the app wake on the socket, ``drain`` says
    whether anything arrived. Not a team store: ``available`` is False."""

    def __init__(self, engram: EngramHandle | None, url: str | None = None):
        from models.db import is_postgres, open_postgres

        self.conn = None
        if url is not None:  # a sync server, not the store this process works on
            db = open_postgres(url, database_password(url))
        elif engram is not None and is_postgres(engram.db):
            db = engram.db
        else:
            return
        # the same connection parameters as the store's own (URL, service entry, password)
        self.conn = db._adapter.connect(db, **db.connect_params)
        self.conn.autocommit = True
        with self.conn.cursor() as cur:
            cur.execute(f"LISTEN {CHANNEL}")

    @classmethod
    def for_url(cls, url: str) -> ChangeListener:
        """LISTEN on a PostgreSQL store this client syncs with (its others' writes are what
        the next sync round pulls). Raises when the server does not answer."""
        return cls(None, url)

    @property
    def available(self) -> bool:
        return self.conn is not None

    def fileno(self) -> int:
        return self.conn.fileno() if self.conn is not None else -1

    def drain(self) -> list[str]:
        """Tables changed since the last call (empty: nothing, or not a team store)."""
        if self.conn is None:
            return []
        self.conn.poll()
        got = [n.payload for n in self.conn.notifies]
        self.conn.notifies.clear()
        return got

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def set_team_visibility(db, slug: str, visibility: str) -> None:
    """Share or privatise an agent on a team store: its owner only, checked by the server."""
    import peewee

    from services.errors import InvalidInput, NotFound

    try:
        with db.atomic():
            db.execute_sql("SELECT engram_set_visibility(%s, %s)", (slug, visibility))
    except peewee.DatabaseError as exc:
        text = str(exc).strip().splitlines()[0]
        if text.startswith("no agent"):
            raise NotFound(text) from None
        if "only its owner" in text:
            raise InvalidInput(text) from None
        raise


def add_member(db, name: str, password: str) -> None:
    """A login role for one person in the team (needs the admin's connection)."""
    import peewee

    from models.access import create_member
    from services.errors import InvalidInput

    try:
        with db.atomic():
            create_member(db, name, password)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    except peewee.DatabaseError as exc:
        if "permission denied" in str(exc).lower() or "must have" in str(exc).lower():
            raise InvalidInput(
                "only the team store's admin role can add members (connect as it)"
            ) from None
        raise


REWROTE = "team store: rewrote "


def tables_rewritten(notes: list[str]) -> int | None:
    """How many tables a team store's compaction rewrote (None: not a team store)."""
    if not any(n.startswith("team store:") for n in notes):
        return None
    for n in notes:
        if n.startswith(REWROTE):
            return int(n[len(REWROTE) :].split(" ", 1)[0])
    return 0


def compact_team_store(db, tables) -> list[str]:
    """Rewrite the tables that held forgotten text, through the owner's function (a member
    may not VACUUM tables it does not own). Returns what actually ran, for the receipt."""
    import os

    # rewriting a large table outlasts the ordinary statement bound; the lock wait stays
    # bounded (lock_timeout), so a busy store fails this step clearly instead of hanging
    limit = int(float(os.environ.get("ENGRAM_PG_COMPACT_TIMEOUT", 900)) * 1000)
    try:
        with db.atomic():
            db.execute_sql(f"SET LOCAL statement_timeout = {limit}")
            done = db.execute_sql("SELECT engram_compact(%s)", (list(tables),)).fetchone()[0]
    except Exception as exc:  # no function (a store before v8): say so, never claim it ran
        return [f"team store: NOT compacted ({str(exc).strip().splitlines()[0]})"]
    missed = [t for t in tables if t not in done]
    notes = [f"{REWROTE}{len(done)} table(s): {', '.join(done)} (CLUSTER, as their owner)"]
    if missed:
        notes.append(f"team store: not rewritten: {', '.join(missed)}")
    return notes + clear_text_statistics(db)


def clear_text_statistics(db) -> list[str]:
    """Drop the planner's sampled values of memory text (none unless an ANALYZE ran with a
    statistics target above 0, which schema v12 sets to 0), through the owner's function."""
    try:
        with db.atomic():
            cleared = db.execute_sql("SELECT engram_clear_text_stats()").fetchone()[0]
    except Exception as exc:  # a store before v12: say so
        return [f"team store: statistics NOT checked ({str(exc).strip().splitlines()[0]})"]
    if not cleared:
        return []
    return [f"team store: cleared planner statistics of {', '.join(cleared)}"]


def team_forget_key(db) -> RuleKey | None:
    """The key every client of a team store hashes forget rules with, so a rule made on one
    laptop blocks the text on every other: from schema v15 the server hashes and the key
    never leaves it (before, v8 let the team read it). None: a local store, or a team store
    from before v8."""
    from models.db import is_postgres
    from models.server_forget import has_rule_hash
    from services.ingest.rule_key import RuleKey

    if not is_postgres(db):
        return None
    if has_rule_hash(db):
        return RuleKey(db=db)
    if not db.execute_sql("SELECT to_regclass('team_secret') IS NOT NULL").fetchone()[0]:
        return None
    row = db.execute_sql("SELECT value FROM team_secret WHERE name = 'forget'").fetchone()
    return RuleKey(bytes(row[0])) if row else None


def receipt_roles(db, ids) -> dict[int, tuple[str, int | None]]:
    """Per forget receipt, as the server recorded it: the database role that wrote it and
    how many audit events were erased under it (None: a store before schema v12). Empty on
    a local store. The witness of who forgot, whatever a client says about itself."""
    from models.db import is_postgres

    ids = [int(i) for i in ids]
    if not ids or not is_postgres(db):
        return {}
    rows = db.execute_sql(
        "SELECT id, by_role FROM forget_receipt WHERE id = ANY(%s)", (ids,)
    ).fetchall()
    erased: dict[int, int] | None = None
    try:
        with db.atomic():
            erased = dict(
                db.execute_sql(
                    "SELECT receipt_id, count(*) FROM audit_erasure WHERE receipt_id = ANY(%s) "
                    "GROUP BY receipt_id",
                    (ids,),
                ).fetchall()
            )
    except Exception:  # no audit_erasure: a store before v12
        pass
    return {int(i): (r, None if erased is None else erased.get(int(i), 0)) for i, r in rows if r}


def audit_roles(db, ids) -> dict[int, str]:
    """The database role that wrote each audit event, as the server stamped it (schema v12;
    empty on a local store or an older one). ``by_user`` beside it is the client's label."""
    from models.db import is_postgres

    ids = [int(i) for i in ids]
    if not ids or not is_postgres(db):
        return {}
    try:
        with db.atomic():
            rows = db.execute_sql(
                "SELECT id, db_role FROM audit_event WHERE id = ANY(%s)", (ids,)
            ).fetchall()
    except Exception:  # no db_role column: a store before v12
        return {}
    return {int(i): r for i, r in rows if r}


@dataclass
class TeamAgent:
    slug: str
    owner: str | None
    visibility: str
    mine: bool  # the connected role owns it (only the owner may share or privatise it)


def team_agents(engram: EngramHandle | None) -> list[TeamAgent]:
    """The agents this role sees on a team store, with who owns them (empty: a local store,
    or no store open, as in a dialog opened before one is)."""
    from models.db import is_postgres

    if engram is None or not is_postgres(engram.db):
        return []
    rows = engram.db.execute_sql(
        "SELECT slug, owner, visibility, owner = session_user FROM agent ORDER BY slug"
    ).fetchall()
    return [TeamAgent(s, o, v, bool(m)) for s, o, v, m in rows]
