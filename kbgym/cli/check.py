"""``kbgym check``: the Gymnasium conformance checks."""

from __future__ import annotations



def add_parser(subparsers) -> None:
    p = subparsers.add_parser("check", help="Gymnasium conformance checks of the environment")
    p.set_defaults(func=cmd_check)


def cmd_check(args) -> int:
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import kbgym

    for mode in ("train", "probe"):
        env = gym.make(kbgym.ENV_ID, mode=mode)
        check_env(env.unwrapped)
        env.close()
        print(f"check_env {mode}: ok")
    return 0
