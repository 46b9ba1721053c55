"""``kbgym serve``: KBGym over OpenEnv (the ``openenv`` extra)."""

from __future__ import annotations

from kbgym.cli import args as A
from kbgym.cli.common import UNIVERSE_HELP


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("serve", help="serve KBGym over OpenEnv (needs the openenv extra)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1, this machine only)")
    p.add_argument("--port", type=A.int_range(1, 65535), default=8000,
                   help="TCP port, 1-65535 (default 8000)")
    p.add_argument("--universe", help=UNIVERSE_HELP)
    p.add_argument("--reward", choices=("answer", "curation", "both"), default="answer",
                   help="the reward: the forward answer's F1, the curation reward of the "
                        "backward phase, or both (default answer)")
    p.add_argument("--reward-k", type=A.int_range(0, 10_000), default=16,
                   help="other training questions in the curation reward's pool, 0-10000 "
                        "(default 16)")
    p.add_argument("--max-sessions", type=A.int_range(1, 1024), default=8,
                   help="concurrent WebSocket sessions, 1-1024 (default 8)")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args) -> int:
    from kbgym.serve import serve  # a one-line ConfigError without the openenv extra

    serve(args.host, args.port, args.universe,
          {"reward": args.reward, "reward_k": args.reward_k}, args.max_sessions)
    return 0
