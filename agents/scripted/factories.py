"""Entry points for ``kbgym.plugins.make_agent`` (declared in pyproject.toml under
``kbgym.agents``). Each factory names the options it takes (most take none; an unknown option
is a one-line error naming it, ``kbgym.plugins.make_agent``); the endpoint flags of the command
line go only to agents that take them."""

from __future__ import annotations

from pydantic import validate_call

from kbgym import agent_factory
from kbgym import bounds as B
from kbgym_agents.scripted.curator import ContentWriter, IndexCurator, NoopCurator, RandomCurator
from kbgym_agents.scripted.reader import EvidenceReader, ScriptedReader, StrictReader
from kbgym_agents.scripted.train import TrainAgent


@agent_factory
def reader() -> ScriptedReader:
    """``scripted-reader``: the exam reader."""
    return ScriptedReader()


@agent_factory
def strict_reader() -> StrictReader:
    """``scripted-reader-strict``: the first reader, which credits only the project's own index
    titles (kept for comparison)."""
    return StrictReader()


@agent_factory
def evidence_reader() -> EvidenceReader:
    """``scripted-reader-evidence``: the reader on the evidence toolset (locate, expand)."""
    return EvidenceReader()


@agent_factory
def index_trainer() -> TrainAgent:
    """``scripted-index``: the scripted reader in forward, the index curator in backward."""
    return TrainAgent(ScriptedReader(), IndexCurator())


@agent_factory
def typed_index_trainer() -> TrainAgent:
    """``scripted-index-typed``: the index curator linking members as ``member_of`` (an env
    with ``typed_links=True``)."""
    return TrainAgent(ScriptedReader(), IndexCurator(link_type="member_of"))


@agent_factory
def content_trainer() -> TrainAgent:
    """``scripted-content``: the reader, then the content writer (the shortcut)."""
    return TrainAgent(ScriptedReader(), ContentWriter())


@agent_factory
def noop_trainer() -> TrainAgent:
    """``scripted-noop``: the reader, then ``done()``."""
    return TrainAgent(ScriptedReader(), NoopCurator())


@agent_factory
@validate_call
def random_trainer(seed: B.Seed = 0) -> TrainAgent:
    """``scripted-random``: the reader, then seeded random backward actions."""
    return TrainAgent(ScriptedReader(), RandomCurator(seed))


@agent_factory
def pw_reader():
    """``scripted-pw-reader``: the PhantomWiki exam reader."""
    from kbgym_agents.scripted.pw import PWReader

    return PWReader()


@agent_factory
def pw_index_trainer():
    """``scripted-pw-index``: the PW reader in forward, the PW index curator in backward."""
    from kbgym_agents.scripted.pw import PWIndexCurator, PWReader

    return TrainAgent(PWReader(), PWIndexCurator())
