"""KBGym: a Gymnasium environment in which agents train a knowledge base.

``import kbgym`` registers ``kbgym/KBGym-v0`` (a string entry point, so nothing heavy is
imported here) and exposes ``parse_action`` lazily.
"""

import gymnasium

__version__ = "0.1.0"

ENV_ID = "kbgym/KBGym-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="kbgym.env:KBGymEnv", nondeterministic=False)

__all__ = ["ENV_ID", "parse_action", "KBGymEnv", "KBGymConfig", "__version__"]


def __getattr__(name: str):
    if name == "parse_action":
        from kbgym.env.actions import parse_action

        return parse_action
    if name in ("KBGymEnv", "KBGymConfig"):
        import kbgym.env

        return getattr(kbgym.env, name)
    raise AttributeError(f"module 'kbgym' has no attribute {name!r}")
