"""SPEC §10 as revised: the counter line comes last, so within a phase each observation's
text starts with the previous one's text minus the counter line (prompt caches reuse it)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.env import KBGymEnv
from kbgym.env.memory import NO_ACTIONS

COUNTER = "\n\nRemaining actions this phase: "

ACTIONS = st.one_of(
    st.builds(lambda q, p: {"action": "search", "query": q, "page": p},
              st.sampled_from(["job", "city", "friend", "Ann", ""]), st.integers(0, 3)),
    st.builds(lambda i: {"action": "read", "id": f"s{i:04d}"}, st.integers(1, 80)),
    st.builds(lambda t: {"action": "add", "text": t}, st.sampled_from(["A note.", "Index."])),
    st.builds(lambda a, b: {"action": "link", "source": f"s{a:04d}", "target": f"s{b:04d}"},
              st.integers(1, 70), st.integers(1, 70)),
    st.just({"action": "answer", "text": "x"}),
    st.just({"action": "done"}),
    st.just("not an action"),
    st.none(),
)


def without_counter(text: str) -> str:
    head, sep, tail = text.rpartition(COUNTER)
    assert sep and tail.endswith(".") and "\n" not in tail, "the counter line must come last"
    return head


@settings(max_examples=25, deadline=None)
@given(mode=st.sampled_from(["train", "probe"]), seed=st.integers(0, 50),
       actions=st.lists(ACTIONS, min_size=1, max_size=40))
def test_each_observation_extends_the_previous_within_a_phase(small_universe, mode, seed,
                                                              actions):
    env = KBGymEnv(small_universe, mode=mode, config={"memory_k": 60})
    obs, _ = env.reset(seed=seed)
    prev = obs
    for action in actions:
        obs, _, term, trunc, _ = env.step(action)
        if obs["phase"] == prev["phase"]:
            before = without_counter(prev["text"])
            if before.endswith(NO_ACTIONS):  # the empty-history placeholder is replaced
                before = before[: -len(NO_ACTIONS)]
            assert obs["text"].startswith(before)
            assert len(obs["text"]) > len(before)
        if term or trunc:
            break
        prev = obs
