"""``kbgym serve``: KBGym over OpenEnv (the ``openenv`` extra)."""

from __future__ import annotations

from kbgym.cli import args as A
from kbgym.cli.common import UNIVERSE_HELP, CLIError


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
    p.add_argument("--library", action="append", default=[], metavar="NAME=SNAPSHOT",
                   help="a start library clients may name in reset(library=NAME), besides "
                        "B1 (repeatable)")
    p.add_argument("--train-splits", default="train", metavar="SPLIT[,SPLIT]",
                   help="splits whose questions train episodes may use (their golds are "
                        "shown in the backward phase; default train); probe episodes may "
                        "use every split and never see a gold")
    p.add_argument("--idle-timeout", type=A.float_range(1, 10**6), default=300.0,
                   help="close a session after this many seconds without a message, "
                        "1-1e+06 (default 300)")
    p.add_argument("--handshake-timeout", type=A.float_range(0.5, 3600), default=10.0,
                   help="close a connection that has not sent its whole request or "
                        "WebSocket handshake after this many seconds, 0.5-3600 (default 10)")
    p.add_argument("--exam-log", metavar="FILE",
                   help="append each probe episode's score (library, qid, f1, em) to this "
                        "JSONL file; clients never receive a probe score")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args) -> int:
    from kbgym.serve import ServerPolicy, make_app, parse_libraries  # ConfigError without openenv

    splits = tuple(s.strip() for s in args.train_splits.split(",") if s.strip())
    if not splits:
        raise CLIError("--train-splits: give at least one split name")
    if args.exam_log is not None:
        from kbgym.runs.outdir import refuse_link

        refuse_link(args.exam_log, "exam log")
    policy = ServerPolicy(train_splits=splits, idle_timeout_s=args.idle_timeout,
                          exam_log=args.exam_log)
    app = make_app(args.universe, {"reward": args.reward, "reward_k": args.reward_k},
                   args.max_sessions, libraries=parse_libraries(args.library), policy=policy)
    announced_server(app, args.host, args.port, args.handshake_timeout).run()
    return 0


def announced_server(app, host: str, port: int, handshake_timeout_s: float = 10.0):
    """A uvicorn server (warnings only in its log) that prints where it listens once the
    socket is bound: ``kbgym serve: listening on http://127.0.0.1:8000 (...)``. A port already
    taken prints nothing of ours: uvicorn's error and exit status stand."""
    import uvicorn

    class Announced(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            if self.started:
                bound = [s.getsockname() for srv in getattr(self, "servers", [])
                         for s in (srv.sockets or [])]
                where = f"{bound[0][0]}:{bound[0][1]}" if bound else f"{host}:{port}"
                print(f"kbgym serve: listening on http://{where} (WebSocket /ws; "
                      "Ctrl+C stops it)", flush=True)

    from kbgym.serve import server_config

    return Announced(server_config(app, host, port, handshake_timeout_s))
