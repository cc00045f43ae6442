"""Engram's MCP server (``engram mcp``) and its registration in the agents' configs.

Each tool domain has a plain module (SDK-free: the write-policy table and the benchmark call
it in-process) and a ``*_tools`` module that names, describes and types its tools for the SDK:

    server.py        the server for one agent, put together from the modules below
    transports.py    stdio, and Streamable HTTP on loopback behind a bearer token
    fast_start.py    answers ``initialize`` (and the first ``tools/list``) before the SDK loads
    common.py        annotations, errors as tool errors, client name, strict arguments
    memory.py        remember / correct / recall / list / context      (memory_tools.py)
    forget.py        forget and delete requests, elicitation questions  (forget_tools.py)
    entities.py      entities, relations, the episode timeline          (entity_tools.py)
    prompts.py       prompts a user can pick in their client
    review.py        requests waiting for the person; the "review MCP writes" setting
    status.py        the desktop app's view: registrations and the review setting
    agent_config.py  Engram's entry in each agent's MCP config file
"""
