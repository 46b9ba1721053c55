"""``kbgym check``: the Gymnasium conformance checks."""

from __future__ import annotations


def add_parser(subparsers) -> None:
    from kbgym.worlds import generated

    p = subparsers.add_parser("check", help="Gymnasium conformance checks of the environment")
    p.add_argument("--world", choices=generated(),
                   help="check on the default universe of this world (default: the default "
                        "world's, as gym.make builds it)")
    p.set_defaults(func=cmd_check)


def cmd_check(args) -> int:
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import kbgym

    universe, label = None, ""
    if getattr(args, "world", None):
        from kbgym.worlds import world

        w = world(args.world)
        universe, label = w.generate(w.config({})), f" ({args.world})"
    for mode in ("train", "probe"):
        env = gym.make(kbgym.ENV_ID, mode=mode, **({"universe": universe} if universe else {}))
        check_env(env.unwrapped)
        env.close()
        print(f"check_env {mode}{label}: ok")
    return 0
