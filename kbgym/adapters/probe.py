"""The probe of a training run on any universe (SPEC §13, §17): the PW probe on a PhantomWiki
universe (exact/share1/share0 by person keys), the shared-entity probe on an imported corpus,
and the §13 key-coverage probe on a generated universe. ``kbgym probe make`` and the sweep's
runs both make their probe here, so the two cannot route differently."""

from __future__ import annotations

from pathlib import Path

from kbgym.runs.probe import make_probe_from_run
from kbgym.universe.types import Universe


def make_probe_for_run(universe: Universe, run_dir: str | Path, *, per_group: int = 30,
                       seed: int | None = None) -> dict:
    """The probe object of ``run_dir`` (its train_log) on ``universe``. ``per_group`` does not
    apply to the PW probe, whose quota is each template's smallest pool."""
    source = universe.meta.get("source")
    if source == "phantomwiki":
        from kbgym.adapters.phantomwiki.probe import make_pw_probe_from_run

        return make_pw_probe_from_run(universe, run_dir, seed=seed)
    if source == "corpus":
        from kbgym.adapters.corpus import make_corpus_probe_from_run

        return make_corpus_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)
    return make_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)
