"""The client AutoEnv loads for ``kbgym``: kbgym.serve's typed client."""

from kbgym.serve import KBGymClient as KbgymEnv

__all__ = ["KbgymEnv"]
