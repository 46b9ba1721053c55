"""Scripted agents (no language model): the reader, the curators and the train-agent wrapper.

- ``ScriptedReader``: answers every question class with search/read/answer, using index notes
  when the library has them;
- ``IndexCurator``: the backward-phase curator that builds complete, precise index notes;
- ``ContentWriter``: the shortcut baseline, which writes the verified answer as a sentence;
- ``NoopCurator``: calls done at once;
- ``RandomCurator``: seeded random valid and invalid actions, then done;
- ``TrainAgent(reader, curator)``: the reader in forward, the curator in backward.
"""

from kbgym_agents.scripted.curator import ContentWriter, IndexCurator, NoopCurator, RandomCurator
from kbgym_agents.scripted.reader import ScriptedReader
from kbgym_agents.scripted.train import TrainAgent

__all__ = ["ScriptedReader", "IndexCurator", "ContentWriter", "NoopCurator", "RandomCurator",
           "TrainAgent"]
