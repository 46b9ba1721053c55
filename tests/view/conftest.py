"""Runs the view tests share: a small demo and a run whose curator writes hostile notes."""

from __future__ import annotations

import pytest

#: A note an agent could write: markup, a script end tag, a comment opener, the page's own
#: template markers, quotes, an ampersand entity and non-ASCII text.
HOSTILE = ("</script><script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"
           " <!-- {{JS}} {{DATA}} &amp; &lt;b&gt; 'single' \"double\" caf\u00e9 \u2603 </style>")


class HostileCurator:
    """Answers at once; in the backward phase adds HOSTILE (once per question), links it to
    note s0001, and is done. Reads only obs["text"]."""

    meta = {"model": "hostile"}

    def reset(self):
        self.plan = None

    def act(self, obs, info):
        if obs["phase"] == 1:
            return {"action": "answer", "text": "<b>unknown</b>"}
        if self.plan is None:
            self.plan = ["add", "link", "done"]
        step = self.plan.pop(0)
        if step == "add":
            return {"action": "add", "text": HOSTILE + " " + obs["text"].split("\n")[1][:60]}
        if step == "link":
            import re

            added = re.findall(r"-> added (s\d+)", obs["text"])
            return {"action": "link", "source": added[-1] if added else "s0001",
                    "target": "s0001"}
        return {"action": "done"}


@pytest.fixture(scope="session")
def small_demo(tmp_path_factory):
    """A small kbgym demo (60 people, 12 questions x 2 epochs): run, exams, probe table."""
    from kbgym.runs.demo import run_demo

    out = tmp_path_factory.mktemp("view-demo")
    return out, run_demo(out, n_people=60, train_size=12, per_group=8, curve_every=6,
                         plots=False, say=lambda *a: None)


@pytest.fixture(scope="session")
def hostile_run(tmp_path_factory):
    from kbgym.runs.train import TrainConfig, train
    from kbgym.worlds.people import UniverseConfig, generate

    u = generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20), eval_sizes=(10, 6)))
    out = tmp_path_factory.mktemp("view-hostile")
    train(u, HostileCurator(), out, config=TrainConfig(epochs=1, train_size=3, snapshot_every=2))
    return out, u
