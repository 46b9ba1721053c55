"""The typed action, observation and state (kbgym.serve's, under OpenEnv's naming rule)."""

from kbgym.serve import KBGymAction as KbgymAction
from kbgym.serve import KBGymObservation as KbgymObservation
from kbgym.serve import KBGymState as KbgymState

__all__ = ["KbgymAction", "KbgymObservation", "KbgymState"]
