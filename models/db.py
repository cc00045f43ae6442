"""Database factory: one place decides how the store is opened.

The URL names the store so that no service assumes a local file: a plain path or
``sqlite:///path`` opens SQLite; ``postgresql://user@host:port/db`` opens a team store on
PostgreSQL (psycopg2). A team store's password never sits in Engram's files: it comes from
the URL's caller (the OS keyring, see ``services.teamstore``) or from libpq itself
(``~/.pgpass``, ``PGPASSFILE``, ``PGSERVICE``/``?service=``).
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

import peewee
from peewee import SqliteDatabase

from models.filelock import exclusive_lock

database_proxy = peewee.DatabaseProxy()

# WAL lets the GUI read while a hook writes; busy_timeout turns "database is locked" into a
# wait; secure_delete zeroes freed pages so forgotten text does not linger in free pages.
SQLITE_PRAGMAS = {
    "busy_timeout": 30000,  # first: the pragmas after it may have to wait for a lock
    "journal_mode": "wal",
    "foreign_keys": 1,
    "synchronous": "normal",
    "secure_delete": 1,
    "cache_size": -32000,
    "temp_store": "memory",
}


def sqlite_path_from_url(url: str) -> Path | None:
    if url.startswith("sqlite:///"):
        return Path(url[len("sqlite:///") :])
    if "://" not in url:
        return Path(url)
    return None


PG_SCHEMES = ("postgres://", "postgresql://", "postgresext://")


def is_postgres_url(url: str) -> bool:
    return url.startswith(PG_SCHEMES)


def is_postgres(db) -> bool:
    """The bound database (a proxy or a database) is a PostgreSQL one."""
    target = getattr(db, "obj", db)
    return isinstance(target, peewee.PostgresqlDatabase)


def open_postgres(url: str, password: str | None = None) -> peewee.PostgresqlDatabase:
    u = urlparse(url)
    opts = {k: v[-1] for k, v in parse_qs(u.query).items()}
    kwargs: dict = {k: v for k, v in opts.items() if k in LIBPQ_OPTIONS}
    if u.hostname:
        kwargs["host"] = u.hostname
    if u.port:
        kwargs["port"] = u.port
    if u.username:
        kwargs["user"] = unquote(u.username)
    pw_ = unquote(u.password) if u.password else password
    if pw_:
        kwargs["password"] = pw_
    dbname = unquote(u.path.lstrip("/"))
    bounds = {"options": bounded_options(), "connect_timeout": kwargs.get("connect_timeout", 10)}
    if not dbname:
        # no database named (``postgresql:///?service=team``): hand libpq the URL itself, so
        # the service entry (or libpq's defaults) names it
        return peewee.PostgresqlDatabase(
            "postgresql://" + url.split("://", 1)[1],
            **({"password": pw_} if pw_ else {}),
            **bounds,
        )
    kwargs.update(bounds)
    return peewee.PostgresqlDatabase(dbname, **kwargs)


# Every team connection is bounded: a statement, a wait for a lock (row, table or an
# advisory writer lock) and a transaction left idle all end with an error the CLI and the app
# can say in one line, never a hang. Seconds; ENGRAM_PG_*_TIMEOUT override them.
TIMEOUTS = {
    "statement_timeout": ("ENGRAM_PG_STATEMENT_TIMEOUT", 120),
    "lock_timeout": ("ENGRAM_PG_LOCK_TIMEOUT", 20),
    "idle_in_transaction_session_timeout": ("ENGRAM_PG_IDLE_TIMEOUT", 120),
}


def bounded_options() -> str:
    return " ".join(f"-c {k}={int(_seconds(k) * 1000)}" for k in TIMEOUTS)


def _seconds(setting: str) -> float:
    import os

    env, default = TIMEOUTS[setting]
    try:
        return float(os.environ.get(env, default))
    except ValueError:
        return float(default)


def explain_connect_error(text: str, where: str) -> str:
    """One line on why a team store did not open: refused, unauthorised, unreachable."""
    low = text.lower()
    if "password authentication failed" in low or "no password supplied" in low:
        return (
            f"unauthorised: {where} refused the user name or password (check the keyring "
            "entry or ~/.pgpass)"
        )
    if "does not exist" in low and "database" in low:
        return f"no such database on {where} (ask the team's admin to create it)"
    if "connection refused" in low:
        return f"refused: nothing listens on {where} (is PostgreSQL running on that port?)"
    if "could not translate host name" in low or "name or service not known" in low:
        return f"unreachable: the host name in {where} does not resolve"
    if "timeout" in low or "no route to host" in low or "network is unreachable" in low:
        return f"unreachable: {where} did not answer (network, VPN or firewall)"
    if "pg_hba.conf" in low:
        return f"unauthorised: {where} does not accept this user from this machine (pg_hba.conf)"
    first = text.strip().splitlines()[0] if text.strip() else text
    return f"cannot connect to {where}: {first}"


def explain_timeout(text: str) -> str | None:
    """One line for a bounded wait that ran out (None: not one of those)."""
    if text.startswith(("lock wait:", "statement timeout:")):
        return text.strip()
    low = text.lower()
    if "lock timeout" in low:
        return (
            "lock wait: another client held this store's lock longer than "
            f"{_seconds('lock_timeout'):g} s (ENGRAM_PG_LOCK_TIMEOUT); try again"
        )
    if "statement timeout" in low:
        return (
            "statement timeout: the team store did not answer in time (ENGRAM_PG_STATEMENT_TIMEOUT)"
        )
    return None


# what libpq accepts in a URL's query string and Engram passes on (service file, TLS)
LIBPQ_OPTIONS = {
    "host",  # a Unix socket directory: postgresql://ada@/engram?host=/var/run/postgresql
    "service",
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "passfile",
    "application_name",
    "connect_timeout",
}


def open_database(url: str, password: str | None = None) -> peewee.Database:
    """Create (but do not bind) the database named by ``url``."""
    if is_postgres_url(url):
        return open_postgres(url, password)
    path = sqlite_path_from_url(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # BEGIN IMMEDIATE: a deferred transaction that reads then writes can fail with
        # SQLITE_BUSY without waiting on busy_timeout; taking the write lock up front makes
        # concurrent writers (GUI, compile worker, agents' hooks) queue instead of failing.
        return SqliteDatabase(
            str(path),
            pragmas=SQLITE_PRAGMAS,
            check_same_thread=False,
            timeout=30,
            lock_type="IMMEDIATE",
        )
    from playhouse.db_url import connect

    return connect(url)


def connect_database(url: str, password: str | None = None) -> peewee.Database:
    """Open the database, bind the models to it and bring the schema up to date."""
    db = open_database(url, password)
    database_proxy.initialize(db)
    path = sqlite_path_from_url(url)
    # Two hooks starting at once on a new store both switch it to WAL and migrate it; the
    # loser of that race sees "database is locked". One opener at a time, per store.
    with _open_lock(path):
        _connect(db)
        try:
            _bring_up_to_date(db, path)
        except Exception:
            db.close()  # a refused store keeps no connection (nor its -wal/-shm files)
            raise
    return db


def _bring_up_to_date(db, path: Path | None) -> None:
    from models.schema import migrate

    if is_postgres(db):
        from models.schema import pending

        if not pending(db):  # a store up to date takes no lock, so nobody can hold it shut
            migrate(db)  # applies nothing; refuses a store from a newer Engram
            return
        with db.atomic():
            # two clients opening a new team store at once: one migrates, one waits
            db.execute_sql("SELECT pg_advisory_xact_lock(4242014)")
            migrate(db)
        return
    migrate(db)
    if path is not None and path.is_file():
        from models.instance import settle

        settle(db, path)  # a copy or a restored file is not the store it came from


def _connect(db) -> None:
    if not is_postgres(db):
        db.connect(reuse_if_open=True)
        return
    try:
        db.connect(reuse_if_open=True)
    except peewee.OperationalError as exc:
        p = db.connect_params
        where = f"{p.get('host', 'localhost')}:{p.get('port', 5432)}"
        raise TeamStoreUnavailable(explain_connect_error(str(exc), where)) from None


class TeamStoreUnavailable(peewee.OperationalError):
    """The team store did not open; the message says why in one line."""


def _open_lock(path: Path | None):
    if path is None:
        return nullcontext()
    return exclusive_lock(Path(str(path) + ".open-lock"))


WRITER_LOCK_SPACE = 4242  # advisory lock keys before schema v12: (this, agent id)


@contextmanager
def writer_lock(db, agent_id: int):
    """One writer per agent at a time on a team store: the exact/near-duplicate check and
    the insert must see each other's rows, or two clients saying the same thing at once
    would store it twice. SQLite serialises writers itself (BEGIN IMMEDIATE).

    On PostgreSQL it is a row lock taken through the owner's function (schema v12): held to
    the end of the transaction opened here, only on an agent the caller sees, and a wait
    for it is bounded and names who holds it. Advisory locks are a namespace every role
    can take, so one member could hold every client out."""
    if not is_postgres(db):
        yield
        return
    with db.atomic():
        try:
            with db.atomic():  # a savepoint: a refused lock leaves the transaction usable
                db.execute_sql(
                    "SELECT engram_lock_agent(%s, %s)",
                    (int(agent_id), int(_seconds("lock_timeout") * 1000)),
                )
        except peewee.OperationalError as exc:
            raise peewee.OperationalError(_lock_wait(db, agent_id, str(exc))) from None
        yield


def _lock_wait(db, agent_id: int, text: str) -> str:
    if "lock timeout" not in text.lower():
        return explain_timeout(text) or text
    holder = db.execute_sql("SELECT engram_lock_holder(%s)", (int(agent_id),)).fetchone()[0]
    return (
        f"lock wait: {holder or 'another client'} held the writer lock of agent {agent_id} "
        f"longer than {_seconds('lock_timeout'):g} s (ENGRAM_PG_LOCK_TIMEOUT); try again"
    )
