"""SPEC §10 memory rendering and the §8.3 collapse_repeats option."""

from __future__ import annotations

import pytest

from kbgym.env.actions import FORWARD_TOOLS, Add, Done, Read, Search, parse_action
from kbgym.env.memory import Memory, collapsed_result, result_ids

TASK = "TRAIN QUESTION q0001 [phase 1: answer it]\nWhat is the job of Ann Bell?"
HITS = "page 1:\n- s0001: Ann Bell is a doctor.\n- s0007: Ann Bell lives in Paris."
READ = "s0001: Ann Bell is a doctor.\nlinks:\n- s0002: Carl Dunn is a friend of Ann Bell."


def test_render_empty():
    mem = Memory(k=30, task=TASK)
    assert mem.render(15) == (
        "TRAIN QUESTION q0001 [phase 1: answer it]\nWhat is the job of Ann Bell?\n\n"
        "Recent actions (oldest first):\n"
        "(no actions yet)\n\n"
        "Remaining actions this phase: 15."
    )
    assert Memory(k=30, task=TASK, layout="counter_first").render(15) == (
        "TRAIN QUESTION q0001 [phase 1: answer it]\nWhat is the job of Ann Bell?\n\n"
        "Remaining actions this phase: 15.\n"
        "Recent actions (oldest first):\n"
        "(no actions yet)"
    )


def test_render_entries_exact():
    mem = Memory(k=30, task="QUESTION q0002\nWho?")
    mem.push(Search(query="Ann Bell"), HITS)
    mem.push(Read(id="s0001"), READ)
    mem.push(parse_action({"action": "add", "text": "x"}, allowed=FORWARD_TOOLS),
             "ERROR: add is not available in this phase")  # fmt: skip
    mem.push(parse_action(None), "ERROR: no action was given")
    mem.push(parse_action("gibberish"), "ERROR: bad input: could not read an action")
    assert mem.render(10) == (
        "QUESTION q0002\nWho?\n\n"
        "Recent actions (oldest first):\n"
        "- search(query='Ann Bell', page=1) -> page 1:\n"
        "- s0001: Ann Bell is a doctor.\n"
        "- s0007: Ann Bell lives in Paris.\n"
        "- read(id='s0001') -> s0001: Ann Bell is a doctor.\nlinks:\n"
        "- s0002: Carl Dunn is a friend of Ann Bell.\n"
        "- add(text='x') -> ERROR: add is not available in this phase\n"
        "- ?(None) -> ERROR: no action was given\n"
        "- ?('gibberish') -> ERROR: bad input: could not read an action\n\n"
        "Remaining actions this phase: 10."
    )


def test_fifo_keeps_last_k_and_results_whole():
    mem = Memory(k=3, task="T")
    long_result = "y" * 5000
    for i in range(5):
        mem.push(Read(id=f"s{i:04d}"), long_result if i == 4 else f"r{i}")
    calls = [c for c, _ in mem.entries]
    assert calls == ["read(id='s0002')", "read(id='s0003')", "read(id='s0004')"]
    assert mem.entries[-1][1] == long_result
    assert len(mem) == 3
    assert mem.render(0).endswith(f"- read(id='s0004') -> {long_result}\n\n"
                                  "Remaining actions this phase: 0.")


def test_k_zero_and_validation():
    mem = Memory(k=0, task="T")
    mem.push(Done(), "phase complete")
    assert mem.render(1).endswith("(no actions yet)\n\nRemaining actions this phase: 1.")
    with pytest.raises(ValueError):
        Memory(k=-1)


def test_set_task_keeps_fifo_clear_empties_it():
    mem = Memory(k=30, task="phase 1")
    mem.push(Search(query="x"), "(no hits)")
    mem.set_task("phase 2")
    assert mem.render(30) == (
        "phase 2\n\nRecent actions (oldest first):\n"
        "- search(query='x', page=1) -> (no hits)\n\nRemaining actions this phase: 30."
    )
    mem.clear()
    assert mem.task == "phase 2"
    assert mem.render(30).endswith("Recent actions (oldest first):\n(no actions yet)\n\n"
                                   "Remaining actions this phase: 30.")


def test_push_accepts_a_prerendered_call():
    mem = Memory(task="T")
    assert mem.push("custom(x=1)", "ok") == "ok"
    assert mem.entries == (("custom(x=1)", "ok"),)


def test_result_ids():
    assert result_ids(HITS) == ["s0001", "s0007"]
    assert result_ids(READ) == ["s0001", "s0002"]
    typed = "s0010: Index of doctors.\nlinks:\n- s0001 [member_of]: Ann Bell is a doctor."
    assert result_ids(typed) == ["s0010", "s0001"]
    assert result_ids("s0003: Note s0009: mentioned inline.\nlinks: (none)") == ["s0003"]
    assert result_ids("(no hits)") == []
    assert result_ids("page 3:\n- s10000: x\n- s0001: y\n- s10000: z") == ["s10000", "s0001"]


def test_collapsed_result_text():
    assert collapsed_result("search", HITS) == (
        "same search as before, same result (2 notes: s0001, s0007) - use these ids, "
        "or try something else"
    )
    assert collapsed_result("search", "(no hits)") == (
        "same search as before, same result (0 notes: none) - use these ids, or try something else"
    )


def test_collapse_repeats_off_by_default():
    mem = Memory(task="T")
    mem.push(Search(query="x"), HITS)
    assert mem.push(Search(query="x"), HITS) == HITS


def test_collapse_repeats():
    mem = Memory(task="T", collapse_repeats=True)
    assert mem.push(Search(query="Ann Bell"), HITS) == HITS
    # the same canonical action (page=1 default vs explicit) and the same result: collapsed
    shown = mem.push(parse_action({"action": "search", "query": "Ann Bell", "page": "1"}), HITS)
    assert shown == collapsed_result("search", HITS)
    assert mem.entries[-1] == ("search(query='Ann Bell', page=1)", shown)
    # a different page is a different action
    assert mem.push(Search(query="Ann Bell", page=2), "(page 2 is empty - no further matches)") == (
        "(page 2 is empty - no further matches)"
    )
    # read: same id (after stripping), same result
    assert mem.push(Read(id="s0001"), READ) == READ
    assert mem.push(parse_action({"action": "read", "id": " s0001 "}), READ) == (
        "same read as before, same result (2 notes: s0001, s0002) - use these ids, "
        "or try something else"
    )
    # the same read with a changed result is shown in full, and becomes the new reference
    changed = READ + "\n- s0009: New link."
    assert mem.push(Read(id="s0001"), changed) == changed
    assert mem.push(Read(id="s0001"), changed).startswith("same read as before")


def test_collapse_repeats_scope():
    mem = Memory(task="T", collapse_repeats=True)
    # a repeated search/read with the same result collapses even when it is an error
    # (SPEC §8.3 makes no exception); other actions and unparsed input never collapse
    err = "ERROR: no such note s9999"
    assert mem.push(Read(id="s9999"), err) == err
    assert mem.push(Read(id="s9999"), err) == (
        "same read as before, same result (0 notes: none) - use these ids, or try something else")
    assert mem.push(Add(text="x"), "added s0100") == "added s0100"
    assert mem.push(Add(text="x"), "added s0100") == "added s0100"
    bad = parse_action({"action": "search"})
    assert mem.push(bad, bad.error) == bad.error
    assert mem.push(bad, bad.error) == bad.error
    # a phase boundary (set_task or new_phase) resets the tracking; clear() too
    mem.push(Search(query="x"), HITS)
    mem.set_task("phase 2")
    assert mem.push(Search(query="x"), HITS) == HITS
    mem.new_phase()
    assert mem.push(Search(query="x"), HITS) == HITS
    mem.clear()
    assert mem.push(Search(query="x"), HITS) == HITS
    assert mem.push(Search(query="x"), HITS).startswith("same search as before")
