"""How ``engram mcp`` is reached: stdio (an agent starts the server), or Streamable HTTP on
a loopback address behind a bearer token (``engram mcp --http``)."""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from services.errors import InvalidInput
from services.integrations.mcp.resident import Resident
from services.integrations.mcp.server import build_server

if TYPE_CHECKING:
    from services.store.handle import EngramHandle

TOKEN_FILE = "mcp-token"


def token_path(data_dir: Path) -> Path:
    return Path(data_dir) / TOKEN_FILE


def ensure_token(data_dir: Path) -> str:
    """The HTTP transport's bearer token, made on first use (0600, never logged)."""
    path = token_path(data_dir)
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return path.read_text(encoding="ascii").strip()
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(token + "\n")
    return token


def parse_listen(value: str) -> tuple[str, int]:
    """``127.0.0.1:PORT`` (or ``localhost``/``[::1]``); anything not loopback is refused."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise InvalidInput(f"--http wants HOST:PORT on a loopback address, not {value!r}")
    host = host.strip("[]") or "127.0.0.1"
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise InvalidInput(
            f"{host} is not a loopback address: the MCP server listens on 127.0.0.1 (or ::1) "
            "only, so nothing outside this machine can reach the memory"
        )
    return host, int(port)


def _local_origin(origin: str, port: int) -> bool:
    from urllib.parse import urlsplit

    try:
        u = urlsplit(origin)
        return u.hostname in ("127.0.0.1", "localhost", "::1") and (u.port or 80) == port
    except ValueError:
        return False


class Guard:
    """ASGI wrapper: a bearer token on every request, and a browser's Origin only from this
    machine's own server (DNS rebinding: a web page must not reach the memory)."""

    def __init__(self, app, token: str, port: int):
        self.app, self.token, self.port = app, token, port

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        if origin and not _local_origin(origin, self.port):
            return await _reply(send, 403, "origin not allowed")
        auth = headers.get("authorization", "")
        given = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
        if not given or not hmac.compare_digest(given.encode(), self.token.encode()):
            return await _reply(
                send, 401, "missing or wrong bearer token (see `engram mcp token`)", bearer=True
            )
        return await self.app(scope, receive, send)


async def _reply(send, status: int, message: str, bearer: bool = False) -> None:
    import json

    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if bearer:
        headers.append((b"www-authenticate", b'Bearer realm="engram"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def http_app(server, token: str, host: str, port: int):
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = [f"{h}:{port}" for h in ("127.0.0.1", "localhost", "[::1]")]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts],
    )
    app = server.streamable_http_app(transport_security=security, host=host)
    return Guard(app, token, port)


def _warm_up(engram: EngramHandle, warm_up: bool, resident: Resident) -> None:
    """Started once the SDK is imported and the tools are built, so the model's and Chroma's
    imports do not compete with answering ``initialize``; recall waits for it. When the
    store's daemon serves, it answers recall with its loaded model, and this process loads
    its own only when it first does work itself (``resident.py``)."""
    if warm_up and not engram.semantic_enabled:
        from services.vectors.warmup import warm_up_in_background

        if resident.serving():
            resident.defer(lambda: warm_up_in_background(engram))
        else:
            warm_up_in_background(engram)


def serve_stdio(engram: EngramHandle, slug: str, warm_up: bool = False) -> None:
    resident = Resident(engram.config.data_dir, slug)
    server = build_server(engram, slug, resident)
    _warm_up(engram, warm_up, resident)
    server.run("stdio")


def serve_http(engram: EngramHandle, slug: str, listen: str, warm_up: bool = False) -> None:
    import uvicorn

    host, port = parse_listen(listen)
    resident = Resident(engram.config.data_dir, slug)
    server = build_server(engram, slug, resident)
    app = http_app(server, ensure_token(engram.config.data_dir), host, port)
    _warm_up(engram, warm_up, resident)
    uvicorn.run(app, host=host, port=port, log_level="warning")
