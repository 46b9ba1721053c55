"""KBGym: a Gymnasium environment in which agents train a knowledge base.

``import kbgym`` registers the environment (a string entry point, so nothing heavy is
imported here) and exposes ``parse_action`` lazily. Gymnasium itself (and numpy with it) is
not imported by ``import kbgym``: the ids are registered at once when gymnasium is already
imported, else the moment it is (a one-shot import hook), so ``kbgym build`` and the other
commands that never make an environment do not pay for it.

Ids (the version goes up whenever reward, budgets or observation semantics change):

- ``kbgym/KBGym-v1`` (current): the observation's counter line comes last, so within a phase
  each observation extends the previous one (prompt-cache friendly); ``read`` pages the links
  of a note with more than 100 of them; inputs beyond the documented limits are refused.
- ``kbgym/KBGym-v0``: the first layout (counter line before the history), kept so old code
  keeps running; Gymnasium warns that it is out of date. Everything else is as in v1.
"""

import sys

from kbgym import registry as _registry
from kbgym._lazy import lazy_attributes
from kbgym.registry import agent_factory

__version__ = "0.2.0"

ENV_ID = "kbgym/KBGym-v1"
LEGACY_ENV_IDS = {"kbgym/KBGym-v0": {"obs_layout": "counter_first"}}



def _register_envs(gymnasium) -> None:
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="kbgym.env:KBGymEnv", nondeterministic=False)
    for _id, _kwargs in LEGACY_ENV_IDS.items():
        if _id not in gymnasium.registry:
            gymnasium.register(id=_id, entry_point="kbgym.env:KBGymEnv",
                               nondeterministic=False, kwargs=_kwargs)


class _RegisterOnImport:
    """A meta path finder and loader: finds gymnasium with the other finders (once) and
    registers the ids right after the module has run, before anything can ask its registry."""

    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = None
        for finder in sys.meta_path:  # (what importlib.util.find_spec does, without its import)
            find = getattr(finder, "find_spec", None)
            spec = find(name, None) if find is not None else None
            if spec is not None:
                break
        if spec is not None and spec.loader is not None:
            self._loader, spec.loader = spec.loader, self
        return spec

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        module.__loader__ = module.__spec__.loader = self._loader  # (its own, from now on)
        self._loader.exec_module(module)
        _register_envs(module)


if "gymnasium" in sys.modules:
    _register_envs(sys.modules["gymnasium"])
elif not any(isinstance(f, _RegisterOnImport) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterOnImport())



def _curation_reward(env):
    """``KBGymConfig(reward="curation"|"both")``: the curation reward of the run layer,
    given to the env as an object (the env layer never imports the run layer)."""
    from kbgym.runs.curation import CurationReward

    return CurationReward.for_env(env)


_registry.register_reward("curation", _curation_reward)
_registry.register_reward("both", _curation_reward)

__all__ = ["ENV_ID", "agent_factory", "parse_action", "KBGymEnv", "KBGymConfig", "__version__"]

__getattr__ = lazy_attributes(__name__, {"parse_action": "kbgym.env.actions",
                                         "KBGymEnv": "kbgym.env", "KBGymConfig": "kbgym.env"})
