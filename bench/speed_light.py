"""The light commands, old against new (issue #33): ``python -m bench.speed_light [--rounds N]
[--facts N] [--old REF] [--profile DIR]``.

`pin`, `unpin`, `edit --importance`, `delete --yes` and a mistyped `--agent`, each as the
user runs it (``python -m app.cli``, its own process), on a store of ``--facts`` synthetic
facts (300 projects, some pinned) with its memory.md compiled. Old and new take turns in
rounds (``bench.speed.rounds_of``: old-new, then new-old), each on its own copy of the store
and its own fact each time. Figures: the child's CPU (user + sys) and wall, medians; the
load average of each side. Every run is checked: the command's output, and memory.md as the
command left it against what a full compile of the store gives now (a child that compiles in
memory, on the same tree) -- a fast command that leaves a stale memory.md is not one.

Byte-code is written and used as an installed Engram has it (``PYTHONDONTWRITEBYTECODE`` is
unset, one warm-up run per side), so neither side pays for compiling its sources.
``--profile DIR`` also writes a cProfile of each new command and its ``-X importtime``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.speed import (
    ROOT,
    Row,
    _median,
    child,
    cli,
    ensure_old,
    env_for,
    old_ref,
    rounds_of,
    timed,
)

SLUG = "speed"
# memory.md as a full compile makes it now, printed by a child on the tree measured
FULL = """
import sys
from datetime import datetime
from services.config import StoreConfig
from services.engram import Engram
from services.lifecycle.compile import CompileService
with Engram.open(StoreConfig(data_dir=sys.argv[1], semantic=False)) as e:
    md, _, _ = CompileService(e.agent(sys.argv[2]))._memory(datetime.now().date())
sys.stdout.write(md)
"""


def _env(root: Path) -> dict:
    env = env_for(root, ENGRAM_NO_DAEMON="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _memory_md(data: Path) -> str:
    return (data / "agents" / SLUG / "memory.md").read_text(encoding="utf-8")


def full_compile(root: Path, data: Path) -> str:
    p = subprocess.run(
        [sys.executable, "-c", FULL, str(data), SLUG],
        capture_output=True,
        text=True,
        env=_env(root),
        cwd=root,
        timeout=600,
    )
    if p.returncode:
        raise RuntimeError(p.stderr.strip()[-500:])
    return p.stdout


def build(old: Path, work: Path, facts: int) -> Path:
    """The store: ``facts`` synthetic facts written by the old tree, one in 450 pinned, one in
    97 more important, then compiled (memory.md on disk, as an agent has it)."""
    base = work / "base"
    got = child(old, "build", base, facts, 0, slug=SLUG)
    if "error" in got:
        raise RuntimeError(f"building the store: {got['error']}")
    with sqlite3.connect(base / "engram.db") as db:
        db.execute("UPDATE fact SET pinned = 1 WHERE id % 450 = 7")
        db.execute("UPDATE fact SET importance = 0.9 WHERE id % 97 = 3")
    p = subprocess.run(
        cli(old, base, "compile", "--agent", SLUG), capture_output=True, env=_env(old), cwd=old
    )
    if p.returncode:
        raise RuntimeError(p.stderr.decode()[-500:])
    return base


def _ids(data: Path) -> dict[str, list[int]]:
    """Facts for each command: pinned ones to unpin, others (spread over the projects) to
    pin, edit and delete; each is used once."""
    with sqlite3.connect(f"file:{data / 'engram.db'}?mode=ro", uri=True) as db:
        pinned = [i for (i,) in db.execute("SELECT id FROM fact WHERE pinned ORDER BY id")]
        other = [
            i
            for (i,) in db.execute(
                "SELECT id FROM fact WHERE NOT pinned AND status = 'active' ORDER BY id"
            )
        ]
    spread = other[50::37]
    return {"pin": spread[0::3], "edit": spread[1::3], "delete": spread[2::3], "unpin": pinned}


# (label, ids' key, command words, what the output must show); {id} is the fact
COMMANDS = (
    ("`pin`", "pin", ["pin", "{id}"], "id"),
    ("`unpin`", "unpin", ["unpin", "{id}"], "id"),
    ("`edit --importance`", "edit", ["edit", "{id}", "--importance", "0.8"], "id"),
    ("`delete --yes`", "delete", ["delete", "{id}", "--yes"], "id"),
    ("`recall --agent typo`", "", ["recall", "--agent", "typo", "deploy"], "typo"),
)


def _output_ok(kind: str, fid: int, p: subprocess.CompletedProcess) -> bool:
    if kind == "id":
        return p.returncode == 0 and p.stdout.strip() == str(fid)
    return p.returncode != 0 and "no agent 'typo'" in p.stderr


def rows(old: Path, new: Path, stores: dict[str, Path], rounds: int, facts: int) -> list[Row]:
    ids = {side: {k: iter(v) for k, v in _ids(stores[side]).items()} for side in stores}
    out = []
    for label, key, words, kind in COMMANDS:

        def one(side: str, root: Path, key=key, words=words, kind=kind) -> dict:
            fid = next(ids[side][key]) if key else 0
            data = stores[side]
            cmd = cli(root, data, *[w.format(id=fid) for w in words])
            wall, cpu, p = timed(cmd, _env(root), cwd=root)
            ok = _output_ok(kind, fid, p)
            same = _memory_md(data) == full_compile(root, data)
            return {"wall_s": wall, "cpu_s": cpu, "ok": ok, "same": same}

        o, n, ld = rounds_of(rounds, lambda: one("old", old), lambda: one("new", new))

        def check(rs: list[dict]) -> str:
            return f"output {sum(r['ok'] for r in rs)}/{len(rs)}, memory.md = full compile {sum(r['same'] for r in rs)}/{len(rs)}"

        checks = f"old: {check(o)}; new: {check(n)}"
        size = f"@{facts // 1000}k"
        for fig, unit in (("cpu_s", "CPU"), ("wall_s", "wall")):
            out.append(
                Row(
                    f"CLI {label} {size}, {unit}", "s", _median(o, fig), _median(n, fig), ld, checks
                )
            )
    return out


def profile(new: Path, data: Path, into: Path) -> None:
    """A cProfile and an ``-X importtime`` of each command, new tree, on a copy of the store."""
    into.mkdir(parents=True, exist_ok=True)
    ids = {k: iter(v) for k, v in _ids(data).items()}
    for _label, key, words, _kind in COMMANDS:
        fid = next(ids[key]) if key else 0
        args = [w.format(id=fid) for w in words]
        name = words[0] if words[0] != "recall" else "typo"
        prof = ["-m", "cProfile", "-o", str(into / f"{name}.prof")]
        subprocess.run(
            [sys.executable, *prof, "-m", "app.cli", "--data-dir", str(data), *args],
            capture_output=True,
            env=_env(new),
            cwd=new,
        )
        fid = next(ids[key]) if key else 0
        args = [w.format(id=fid) for w in words]
        p = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "app.cli", "--data-dir", str(data), *args],
            capture_output=True,
            text=True,
            env=_env(new),
            cwd=new,
        )
        (into / f"{name}.importtime").write_text(p.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.speed_light")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--facts", type=int, default=20_000)
    ap.add_argument("--old", help="git ref of the old tree (default: merge-base with main)")
    ap.add_argument("--profile", help="also write profiles of the new commands here")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args(argv)
    sha = old_ref(args.old)
    old, new = ensure_old(sha), ROOT
    work = Path(tempfile.mkdtemp(prefix="engram-light-"))
    try:
        base = build(old, work, args.facts)
        stores = {side: work / side for side in ("old", "new")}
        for side, root in (("old", old), ("new", new)):
            shutil.copytree(base, stores[side])
            subprocess.run(  # warm-up: byte-code written, page cache filled
                cli(root, stores[side], "list", "--agent", SLUG, "--limit", "1"),
                capture_output=True,
                env=_env(root),
                cwd=root,
            )
        print(f"old = {sha} ({old}), new = {new}; {args.rounds} rounds", flush=True)
        print("| figure | old | new | old/new | result check |\n|---|---|---|---|---|")
        got = rows(old, new, stores, args.rounds, args.facts)
        for r in got:
            print(r.line(), flush=True)
        if args.profile:
            prof = work / "profiled"
            shutil.copytree(base, prof)
            profile(new, prof, Path(args.profile))
        if args.json:
            Path(args.json).write_text(json.dumps([r.__dict__ for r in got], indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
