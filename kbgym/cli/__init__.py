"""The ``kbgym`` command line (docs/protocol.md §16).

One module per command, each with ``add_parser(subparsers)`` and its ``cmd_*`` functions; this
module only assembles them and turns errors the user can fix into one line and exit status 2,
never a traceback (``KBGYM_DEBUG=1`` shows one). An exception raised in the user's own code (a
curator's ``act``) is one line naming the user's file and line, and exit status 1.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from kbgym._moved import alias
from kbgym.cli import args as A
from kbgym.cli.common import CLIError
from kbgym.cli.usercode import report as report_user_error
from kbgym.cli.usercode import user_frame
from kbgym.errors import ConfigError, KBGymError

#: The command modules, in the order ``kbgym --help`` lists them; the worlds' own commands
#: (``World.commands``: ``kbgym adapt phantomwiki``, ``kbgym import corpus``) follow.
COMMANDS = ("build", "train", "test", "probe", "baseline", "sweep", "reproduce", "drift",
            "replay", "report", "plot", "view", "check", "demo", "serve", "bench")

__all__ = ["CLIError", "build_parser", "main"]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only`` (one of :data:`COMMANDS`), a parser that knows
    that command alone: what ``main`` parses a command line naming it with, so a command
    imports its own module and not every other command's (nor the worlds' commands)."""
    parser = A.OneLineParser(prog="kbgym", description="KBGym: train a knowledge base, examine it, "
                             "compare arms (docs/protocol.md)")
    parser.add_argument("--version", action="version", version=f"kbgym {version_line()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS if only is None else (only,):
        importlib.import_module(f"kbgym.cli.{name}").add_parser(sub)
    if only is not None:
        return parser
    from kbgym.worlds import worlds

    for w in worlds().values():
        for module in w.commands:
            importlib.import_module(module).add_parser(sub)
    return parser


def _command(argv: list[str]) -> str | None:
    """The command ``argv`` names, when it starts with one of :data:`COMMANDS` (else None:
    --help, --version, a world's command or a typo get the whole parser)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


# The world commands' modules of before the worlds move, for one release (kbgym/_moved.py).
__getattr__ = alias(__name__, {"adapt": "kbgym.worlds.phantomwiki.cli",
                               "corpus": "kbgym.worlds.corpus.cli"})


def version_line() -> str:
    """``0.2.0 (Python 3.11.9)``: the installed version, read from ``kbgym.__version__``."""
    from kbgym import __version__

    return f"{__version__} (Python {sys.version.split()[0]})"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(_command(sys.argv[1:] if argv is None else list(argv)))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ConfigError, CLIError, KBGymError) as err:
        print(f"kbgym {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as err:
        if A.debug():  # a ValueError from user code (a curator) keeps its traceback too
            raise
        frame = user_frame(err)
        if frame is not None:  # raised in the user's own curator, reader or factory
            return report_user_error(args.command, err, frame, args)
        text = str(err).splitlines()[0] if str(err) else repr(err)
        hint = "" if isinstance(err, OSError) else " (KBGYM_DEBUG=1 shows the traceback)"
        print(f"kbgym {args.command}: error: {text}{hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"kbgym {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # no traceback for users; KBGYM_DEBUG=1 shows it
        frame = None if A.debug() else user_frame(err)
        if frame is not None:
            return report_user_error(args.command, err, frame, args)
        return A.internal_error(args.command, err)
