"""The Gymnasium environment: actions, spaces, memory and ``KBGymEnv``.

``KBGymEnv`` is imported lazily so that ``kbgym.env.actions`` stays light to import.
"""

from kbgym._lazy import lazy_attributes
from kbgym.env.config import KBGymConfig

__all__ = ["KBGymEnv", "KBGymConfig"]

__getattr__ = lazy_attributes(__name__, {"KBGymEnv": "kbgym.env.env"})
