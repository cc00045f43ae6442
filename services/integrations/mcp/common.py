"""What every tool module shares with the SDK: annotations, Engram's errors as tool errors, the
client's name, whether the client can ask its user, the ``recent`` resource's change notice,
and strict arguments (an unknown argument or a wrong value gets one plain sentence naming the
argument, never a validator's dump with a link)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable

from services.errors import EngramError

READ = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True}
ADDS = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True}


def server_version() -> str:
    from services.version import VERSION

    return VERSION


def hints(**kw):
    from mcp.types import ToolAnnotations

    return ToolAnnotations(open_world_hint=False, **kw)


def expected(fn):
    """Engram's own errors (not found, refused by the policy, bad input) reach the model as
    a readable tool error; anything else stays a crash the SDK reports generically."""

    from mcp.server.mcpserver.exceptions import ToolError

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(*args, **kwargs):
            try:
                return await fn(*args, **kwargs)
            except (EngramError, ValueError) as exc:
                raise ToolError(str(exc)) from exc

        return run_async

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (EngramError, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    return run


def client_name(ctx) -> str | None:
    """The client's name from the MCP handshake (``clientInfo.name``)."""
    try:
        params = ctx.session.client_params
    except Exception:  # no session (a direct call): no name
        return None
    info = getattr(params, "client_info", None) if params is not None else None
    return getattr(info, "name", None)


def can_ask(ctx) -> bool:
    """The client declared MCP elicitation: it can put a question to its user."""
    from mcp.types import ClientCapabilities, ElicitationCapability

    try:
        want = ClientCapabilities(elicitation=ElicitationCapability())
        return bool(ctx.session.check_client_capability(want))
    except Exception:  # no session (a direct call): nobody to ask
        return False


def recent_uri(slug: str) -> str:
    return f"engram://{slug}/recent.md"


def change_notice(slug: str) -> Callable[..., Awaitable[None]]:
    """Tells subscribers the ``recent`` resource changed (both protocol generations)."""
    uri = recent_uri(slug)

    async def changed(ctx) -> None:
        try:
            await ctx.notify_resource_updated(uri)
        except Exception:  # no listener, or no request context: nothing to tell
            pass
        try:
            await ctx.session.send_resource_updated(uri)
        except Exception:
            pass

    return changed


def harden(server) -> None:
    """Every tool refuses arguments it does not take (``additionalProperties: false`` in its
    schema, and checked), and a wrong value is reported as one sentence per argument."""
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ValidationError

    for tool in server._tool_manager.list_tools():
        schema = tool.parameters
        schema["additionalProperties"] = False
        allowed = set(schema.get("properties", {}))
        original = tool.run

        def make(name, allowed, original):
            async def run(arguments, context, convert_result=False):
                extra = sorted(set(arguments or {}) - allowed)
                if extra:
                    raise ToolError(
                        f"{name} has no argument {', '.join(map(repr, extra))}; it takes "
                        f"{', '.join(sorted(allowed)) or 'no arguments'}"
                    )
                try:
                    return await original(arguments, context, convert_result)
                except ToolError as exc:
                    if isinstance(exc.__cause__, ValidationError):
                        raise ToolError(plain_errors(name, exc.__cause__)) from None
                    raise

            return run

        object.__setattr__(tool, "run", make(tool.name, allowed, original))


def plain_errors(tool: str, exc) -> str:
    """A validator's errors as "k: must be at most 50; text: is required"."""
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(x) for x in err.get("loc", ())) or "arguments"
        msg = str(err.get("msg", "is not valid"))
        if err.get("type") == "missing":
            msg = "is required"
        parts.append(f"{where}: {msg[0].lower() + msg[1:] if msg else msg}")
    return f"invalid arguments for {tool}: " + "; ".join(parts)
