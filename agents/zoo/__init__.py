"""The curator zoo: curators written the way an outside user would write them, and title
styles for the same links, used to check that the examiner credits structure, not wording
(``scripts/experiments/curator_zoo.py``, ``tests/agents/test_examiner_fairness.py``).

None of these is tuned to the scripted reader; several are careless or hostile on purpose.
:mod:`kbgym_agents.zoo.generated` makes random libraries from the hidden truth in many shapes
and wordings, some harmed (``scripts/experiments/examiner_audit.py``)."""
