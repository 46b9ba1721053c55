"""The Gymnasium environment: actions, spaces, memory and ``KBGymEnv``.

``KBGymEnv`` is imported lazily so that ``kbgym.env.actions`` stays light to import.
"""

from kbgym.env.config import KBGymConfig

__all__ = ["KBGymEnv", "KBGymConfig"]


def __getattr__(name: str):
    if name == "KBGymEnv":
        from kbgym.env.env import KBGymEnv

        return KBGymEnv
    raise AttributeError(f"module 'kbgym.env' has no attribute {name!r}")
