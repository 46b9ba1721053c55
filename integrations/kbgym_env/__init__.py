"""KBGym as an installable OpenEnv environment package (``openenv-kbgym_env``), so that
``AutoEnv.from_env("kbgym", base_url=...)`` and ``openenv validate`` find it. The models,
client and server are kbgym's own (:mod:`kbgym.serve`)."""

from .client import KbgymEnv
from .models import KbgymAction, KbgymObservation, KbgymState

__all__ = ["KbgymAction", "KbgymEnv", "KbgymObservation", "KbgymState"]
