"""Entry point of the packaged app: one binary for the desktop app and the CLI.

``engram`` alone (or with GUI flags) starts the app; ``engram <command> ...`` runs the CLI
(what agents' hooks call); ``engram --self-test`` checks the bundle (model, store, keyring,
Qt) and exits.
"""

import sys

GUI_ONLY_FLAGS = {"--demo-if-empty", "--exit-after-first-paint"}


def wants_cli(argv: list[str]) -> bool:
    args = iter(argv)
    for a in args:
        if a == "--data-dir":
            next(args, None)
        elif a in ("-h", "--help"):
            return True
        elif not a.startswith("-"):
            return True
    return False


def main() -> int:
    argv = sys.argv[1:]
    if "--self-test" in argv:
        from app.selftest import run_self_test

        return run_self_test()
    if wants_cli(argv) and not GUI_ONLY_FLAGS.intersection(argv):
        from app.cli import main as cli_main

        return cli_main(argv)
    from app.main import main as gui_main

    return gui_main(sys.argv)


if __name__ == "__main__":
    sys.exit(main())
