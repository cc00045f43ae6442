"""`engram completion bash|zsh`: the shell's completion script, made from the parser itself
(shtab), so it never falls behind the commands."""

from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser(
        "completion",
        help="print the shell completion script",
        description='bash: eval "$(engram completion bash)" in ~/.bashrc; zsh: '
        "engram completion zsh > ~/.zfunc/_engram (a folder on $fpath)",
    )
    p.add_argument("shell", choices=["bash", "zsh"], help="which shell")
    p.set_defaults(func=cmd_completion)


def cmd_completion(args, ctx) -> int:
    import shtab

    from app.cli import build_parser

    sys.stdout.write(shtab.complete(build_parser(), shell=args.shell))
    return 0
