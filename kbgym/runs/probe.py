"""The key-coverage gradient probe (SPEC §13): ``kbgym probe make`` and ``kbgym probe table``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from kbgym import bounds as B
from kbgym.errors import ConfigError
from kbgym.jsonio import sha256_hex
from kbgym.metrics.consistency import consistency
from kbgym.metrics.outcomes import (
    DEFAULT_RESAMPLES,
    bootstrap_indices,
    f1_gate,
    mean_diff_ci,
    paired,
    percentile_ci,
    resampled_sums,
    rho,
    rho_ci,
)
from kbgym.runs.logs import read_jsonl
from kbgym.seeding import stream
from kbgym.types import Question, Universe
from kbgym.worlds import world_of

GROUPS = ("exact", "exact_matched", "share2", "share1", "share0")


class ProbeSettings(BaseModel):
    """How a probe is made and tabled: questions per group (``probe make --per-group``),
    bootstrap resamples and the F1 gate's delta (``probe table --resamples --delta``); a
    sweep grid's ``probe`` section."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    per_group: B.PerGroup = 30
    resamples: B.Resamples = DEFAULT_RESAMPLES
    delta: B.Delta = 0.0


def trained_qids(train_log: Sequence[Mapping]) -> list[str]:
    """Distinct qids with a completed train_log row, in qid order."""
    return sorted({r["qid"] for r in train_log if not r.get("abandoned")},
                  key=lambda q: int(q[1:]))


def make_probe(universe: Universe, train_log: Sequence[Mapping], *, per_group: int = 30,
               seed: int | None = None, train_log_hash: str | None = None,
               **options: Any) -> dict:
    """The probe file object of a training run, in any world: the world supplies its
    candidates (:meth:`kbgym.worlds.World.probe_candidates`, given ``options``), and this one
    assembler draws them: per group one stream (``candidates.stream + group``), each pool (or
    each stratum's pool, in order) shuffled and its first ``per_group`` (or quota) taken; probe
    ids ``g0001`` ... in group order."""
    trained = [universe.question(qid) for qid in trained_qids(train_log)]
    c = world_of(universe).probe_candidates(universe, trained, per_group=per_group, **options)
    seed = c.seed if c.seed is not None else universe.meta["seed"] if seed is None else seed
    questions: list[Question] = []
    splits: dict[str, list[str]] = {}
    for group, pool in c.pools.items():
        rng = stream(seed, c.stream + group)
        splits[group] = []
        parts = ([(pool, per_group)] if c.quota is None
                 else [(pool.get(t, ()), n) for t, n in c.quota.items()])
        for candidates, n in parts:
            items = list(candidates)
            rng.shuffle(items)
            for item in items[:n]:
                gid = "g%04d" % (len(questions) + 1)
                questions.append(c.materialize(item, gid, group) if c.materialize else
                                 item.probe_item(gid, trained=group == "exact"))
                splits[group].append(gid)
    return {
        "schema_version": 1, "kind": "kbgym.probe", "universe_hash": universe.hash,
        "train_log_hash": train_log_hash,
        "per_group": per_group if c.quota is None else sum(c.quota.values()), "seed": seed,
        "questions": [q.to_json() for q in questions], "splits": splits, **c.fields,
    }


def read_train_log(run_dir: str | Path) -> tuple[list[dict], str]:
    """A run's train_log rows and the file's hash (recorded in probe files)."""
    path = Path(run_dir) / "train_log.jsonl"
    if not path.exists():
        raise ConfigError(f"{run_dir}: no train_log.jsonl - is it a training run directory?")
    if (Path(run_dir) / "meta.json").exists():
        from kbgym.runs.manifest import verify_run

        verify_run(run_dir)  # its train_log as meta.json records it
    rows = read_jsonl(path)
    if not rows:
        raise ConfigError(f"{run_dir}: no finished training iteration yet - nothing to make "
                          "a probe from")
    return rows, "sha256:" + sha256_hex(path.read_bytes())


def make_probe_from_run(universe: Universe, run_dir: str | Path, per_group: int = 30,
                        seed: int | None = None, **options: Any) -> dict:
    """:func:`make_probe` over ``run_dir/train_log.jsonl`` (its hash recorded)."""
    rows, digest = read_train_log(run_dir)
    return make_probe(universe, rows, per_group=per_group, seed=seed, train_log_hash=digest,
                      **options)


def _cell(arm_rows: list[Mapping], base_rows: list[Mapping], idx: np.ndarray | None,
          delta: float) -> dict:
    steps_a = [r["steps"] for r in arm_rows]
    steps_b = [r["steps"] for r in base_rows]
    f1_a = [r["f1"] for r in arm_rows]
    f1_b = [r["f1"] for r in base_rows]
    n = len(arm_rows)
    cell = {"n": n, "mean_steps": float(np.mean(steps_a)) if n else None,
            "f1": float(np.mean(f1_a)) if n else None,
            "f1_diff": float(np.mean(f1_a) - np.mean(f1_b)) if n else None,
            "rho": rho(steps_a, steps_b) if n else None, "ci": None, "f1_diff_ci": None,
            "star": False, "f1_loss": False}
    if n and idx is not None:
        lo, hi = rho_ci(steps_a, steps_b, idx)
        cell["ci"] = [lo, hi]
        cell["f1_diff_ci"] = list(mean_diff_ci(f1_a, f1_b, idx))
        cell["star"], cell["f1_loss"] = f1_gate(hi, cell["f1_diff_ci"][1], delta)
    cell.update(nav_cell(arm_rows, base_rows, idx, delta))
    return cell


#: A real navigator saving of which the reader captures less than this share is a blind spot.
BLIND_SPOT_SHARE = 0.5


def nav_cell(arm_rows: Sequence[Mapping], base_rows: Sequence[Mapping], idx: np.ndarray | None,
             delta: float = 0.0) -> dict:
    """The ideal navigator's side of one arm × group (docs/protocol.md §12.6), paired row by
    row with the base arm and resampled with the same matrix ``idx`` as ρ:

    - ``rho_nav`` = Σ nav_steps(arm) / Σ nav_steps(base), its CI ``rho_nav_ci``;
    - ``nav_steps`` and ``nav_f1`` (the arm's means), ``nav_f1_diff`` with its CI, and
      ``nav_f1_loss`` when that CI lies below −δ (support the library lost);
    - ``blind_spot``: ``nav_saving`` (navigator steps per question saved against the base)
      with ``nav_saving_ci``, ``reader_saving`` (the reader's), ``share`` (reader / navigator
      saving, None unless the navigator saves) and ``flagged`` (:func:`blind_spot`); when
      the arm's library has chains (rows with ``nav_steps_unchained``), also
      ``chain_saving``, the navigator's steps per question its chains save, with
      ``chain_saving_ci`` and ``chain_blind``.

    Only questions with a navigator figure on both arms count (``n_nav``); when any row was
    examined before the navigator existed (no ``nav_steps`` field), every value is None: the
    columns are left out, not faked."""
    out: dict = {"n_nav": 0, "rho_nav": None, "rho_nav_ci": None, "nav_steps": None,
                 "nav_f1": None, "nav_f1_diff": None, "nav_f1_diff_ci": None,
                 "nav_f1_loss": False, "blind_spot": None}
    if not arm_rows or any("nav_steps" not in r for r in (*arm_rows, *base_rows)):
        return out
    mask = [a["nav_steps"] is not None and b["nav_steps"] is not None
            for a, b in zip(arm_rows, base_rows)]
    n = sum(mask)
    if not n:
        return out

    def masked(rows, key):
        return [float(r[key]) if m else 0.0 for r, m in zip(rows, mask)]

    na, nb = masked(arm_rows, "nav_steps"), masked(base_rows, "nav_steps")
    fa, fb = masked(arm_rows, "nav_f1"), masked(base_rows, "nav_f1")
    sa, sb = masked(arm_rows, "steps"), masked(base_rows, "steps")
    nav_saving = (sum(nb) - sum(na)) / n
    reader_saving = (sum(sb) - sum(sa)) / n
    out.update(n_nav=n, rho_nav=rho(na, nb), nav_steps=sum(na) / n, nav_f1=sum(fa) / n,
               nav_f1_diff=(sum(fa) - sum(fb)) / n)
    # the arm's steps with its chains cut (rows without the field: a library without chains)
    ua = ([float(unchained_steps(r)) if m else 0.0 for r, m in zip(arm_rows, mask)]
          if any("nav_steps_unchained" in r for r in arm_rows) else None)
    saving_ci = chain_ci = None
    if idx is not None:
        # one gather per side serves rho_nav and the saving (steps are whole numbers, so
        # Σbase − Σarm is the resample's summed difference exactly)
        arm_b, base_b = resampled_sums(na, idx), resampled_sums(nb, idx)
        kept = n if n == len(mask) else resampled_sums(mask, idx)
        with np.errstate(divide="ignore", invalid="ignore"):
            out["rho_nav_ci"] = _ci_list(percentile_ci(arm_b / base_b))
            saving_ci = _ci_list(percentile_ci((base_b - arm_b) / kept))
            if ua is not None:
                chain_ci = _ci_list(percentile_ci((resampled_sums(ua, idx) - arm_b) / kept))
        out["nav_f1_diff_ci"] = list(mean_diff_ci(fa, fb, idx, None if n == len(mask)
                                                  else mask))
        out["nav_f1_loss"] = bool(out["nav_f1_diff_ci"][1] < -delta)
    out["blind_spot"] = blind_spot(nav_saving, saving_ci, reader_saving,
                                   None if ua is None else ((sum(ua) - sum(na)) / n, chain_ci))
    return out


def unchained_steps(row: Mapping) -> int | None:
    """The navigator's steps on a row's question with the library's chains cut: its
    ``nav_steps_unchained``, or its ``nav_steps`` where the library has no chains."""
    got = row.get("nav_steps_unchained")
    return row["nav_steps"] if got is None else got


def _ci_list(ci: tuple[float, float] | None) -> list[float] | None:
    return None if ci is None else [ci[0], ci[1]]


def blind_spot(nav_saving: float, nav_saving_ci: Sequence[float] | None,
               reader_saving: float,
               chains: tuple[float, Sequence[float] | None] | None = None) -> dict:
    """The blind-spot record of one arm × group: steps per question saved against the base by
    the navigator (with its CI) and by the reader, the share the reader captured (None
    unless the navigator saves), and ``flagged`` when the navigator's saving is real (CI
    lower bound above 0) and the share is below :data:`BLIND_SPOT_SHARE`.

    ``chains`` = (steps per question the arm's chains save the navigator, its CI), for a
    library with chains (links between original notes, which the exam reader seldom
    follows). The record then carries them as ``chain_saving`` / ``chain_saving_ci`` and
    ``chain_blind``: the navigator relies on the chains (CI lower bound above 0) and the
    reader falls short of the navigator by more than half of what they save; such an arm
    is ``flagged`` too, whatever its share (the library relies on chains the exam does not
    credit)."""
    share = reader_saving / nav_saving if nav_saving > 0 else None
    ci = list(nav_saving_ci) if nav_saving_ci is not None else None
    out = {"nav_saving": nav_saving, "nav_saving_ci": ci, "reader_saving": reader_saving,
           "share": share,
           "flagged": bool(ci is not None and ci[0] > 0 and share is not None
                           and share < BLIND_SPOT_SHARE)}
    if chains is not None:
        saving, cci = chains[0], list(chains[1]) if chains[1] is not None else None
        blind = bool(cci is not None and cci[0] > 0
                     and nav_saving - reader_saving > BLIND_SPOT_SHARE * saving)
        out.update(chain_saving=saving, chain_saving_ci=cci, chain_blind=blind,
                   flagged=out["flagged"] or blind)
    return out


def probe_table(arms: Mapping[str, Sequence[Mapping]], probe: Mapping, *, base: str = "B1",
                seed: int | None = None, resamples: int = DEFAULT_RESAMPLES,
                delta: float = 0.0, m: int | None = None) -> dict:
    """rho, CI, mean steps, F1 and the F1 gate for every arm × group, paired with ``base`` on
    gids.

    Formula (1): a cell is starred when its ρ CI lies below 1 **and** the paired CI of
    F1(arm) − F1(base) does not lie entirely below −``delta``; a cell whose F1-difference CI
    does lie below −δ is an F1 loss (``f1_loss``, printed ``F1↓``) whatever its steps.

    Repeated exams (rows with ``repeat``): rho, steps and F1 come from the first repeat, and
    ``jaccard`` is the mean pairwise Jaccard of the evidence sets over all repeats (None for
    a single run; :mod:`kbgym.metrics.consistency`).

    The same R×n resample matrix (stream ``probe/bootstrap/{group}``) serves every arm. The
    table is repeated over the gids where the base arm exhausted its budget
    (``/exhausted``) and over the rest (``/rest``), each with its own matrix.
    """
    seed = probe.get("seed", 0) if seed is None else seed
    repeated = arms  # every repeat's rows; the rest of the table uses the first repeat's
    arms = {arm: [r for r in rows if not r.get("repeat")] for arm, rows in arms.items()}
    if base not in arms:
        raise ValueError(f"the base arm {base!r} is missing; arms: {', '.join(arms)}")
    out: dict = {"base": base, "resamples": resamples, "delta": delta, "groups": {}}
    if m is not None:  # the exam budget, when the caller knows it (the legend names it)
        out["m"] = m
    order = [g for g in GROUPS if g in probe["splits"]]
    order += [g for g in probe["splits"] if g not in order]  # e.g. PW probes' own groups
    for group in order:
        gids = probe["splits"][group]
        base_by = {r["qid"]: r for r in arms[base] if r["split"] == group}
        base_rows = [base_by[g] for g in gids if g in base_by]
        subsets = {
            "all": base_rows,
            "exhausted": [r for r in base_rows if r["status"] == "unanswered"],
            "rest": [r for r in base_rows if r["status"] != "unanswered"],
        }
        out["groups"][group] = {}
        for subset, rows_b in subsets.items():
            name = f"probe/bootstrap/{group}" + ("" if subset == "all" else f"/{subset}")
            idx = bootstrap_indices(seed, name, len(rows_b), resamples) if rows_b else None
            cells = {}
            for arm, rows in arms.items():
                pairs = paired([r for r in rows if r["split"] == group], rows_b)
                cells[arm] = _cell([a for a, _ in pairs], [b for _, b in pairs], idx, delta)
                gids_here = {b["qid"] for b in rows_b}
                cells[arm]["jaccard"] = consistency(
                    r for r in repeated[arm] if r["split"] == group and r["qid"] in gids_here)
            out["groups"][group][subset] = cells
    return out


def mark(cell: Mapping) -> str:
    """``*`` for a starred cell, ``F1↓`` for an F1 loss, else blank."""
    return "*" if cell.get("star") else ("F1↓" if cell.get("f1_loss") else "")


def has_nav(table: Mapping, subset: str = "all") -> bool:
    """Whether any cell of the table has the navigator's figures."""
    return any(c.get("rho_nav") is not None for g in table["groups"].values()
               for c in g[subset].values())


def format_table(table: Mapping, subset: str = "all") -> str:
    """A fixed-width text table: one row per arm × group, with the F1 gate (formula (1)).
    The group and arm columns widen to the longest name, so every row stays aligned; the
    J column (evidence-set consistency) appears when some arm was examined repeatedly; the
    navigator's columns (mean steps, rho_nav and its CI, F1) and the blind-spot lines
    (:func:`format_blind_spots`) when some arm's rows carry its figures."""
    groups = table["groups"]
    order = [g for g in GROUPS if g in groups] + [g for g in groups if g not in GROUPS]
    gw = max([14] + [len(g) + 2 for g in order])
    aw = max([12] + [len(a) + 2 for g in order for a in groups[g][subset]])
    with_j = any(c.get("jaccard") is not None for g in order for c in groups[g][subset].values())
    with_nav = has_nav(table, subset)
    head = (f"{'group':{gw}s}{'arm':{aw}s}{'n':>4s}{'steps':>8s}{'rho':>7s}{'':4s}{'95% CI':13s}"
            f"{'F1':>6s}{'dF1':>8s}  {'dF1 95% CI':15s}")
    if with_nav:
        head += f"{'nav':>6s}{'rho_nav':>8s}  {'95% CI':13s}{'navF1':>6s}{'':4s}"
    lines = [head + (f"{'J':>7s}" if with_j else "")]
    for group in order:
        for arm, c in groups[group][subset].items():
            if not c["n"]:
                lines.append(f"{group:{gw}s}{arm:{aw}s}{0:4d}")
                continue
            ci = f"{c['ci'][0]:.3f}-{c['ci'][1]:.3f}" if c["ci"] else ""
            dci = (f"{c['f1_diff_ci'][0]:+.3f}..{c['f1_diff_ci'][1]:+.3f}"
                   if c.get("f1_diff_ci") else "")
            row = (f"{group:{gw}s}{arm:{aw}s}{c['n']:4d}{c['mean_steps']:8.2f}"
                   f"{c['rho']:7.3f}{mark(c):4s}{ci:13s}{c['f1']:6.3f}"
                   f"{c['f1_diff']:+8.3f}  {dci:15s}")
            if with_nav:
                if c.get("rho_nav") is None:
                    row += f"{'-':>6s}{'-':>8s}  {'':13s}{'-':>6s}{'':4s}"
                else:
                    nci = (f"{c['rho_nav_ci'][0]:.3f}-{c['rho_nav_ci'][1]:.3f}"
                           if c.get("rho_nav_ci") else "")
                    row += (f"{c['nav_steps']:6.2f}{c['rho_nav']:8.3f}  {nci:13s}"
                            f"{c['nav_f1']:6.3f}{'F1↓' if c.get('nav_f1_loss') else '':4s}")
            if with_j:
                j = c.get("jaccard")
                row += f"{j:7.3f}" if j is not None else f"{'-':>7s}"
            lines.append(row.rstrip())
    lines.append("* = rho CI below 1 and no F1 loss; F1↓ = the F1-difference CI lies below "
                 f"-delta (delta = {table.get('delta', 0.0):g})" +
                 ("; J = mean pairwise Jaccard of evidence sets over repeated exams"
                  if with_j else ""))
    if with_nav:
        lines.append("nav = the ideal navigator's steps (a reader that knows the support; "
                     "docs/protocol.md §12.6), rho_nav = its steps(arm) / steps"
                     f"({table['base']}), navF1 = its F1 (F1↓: the library lost support)")
        lines += ["", format_blind_spots(table, subset)]
    return "\n".join(lines)


BLIND_SPOT_NOTE = (
    "BLIND SPOT: an ideal navigator saves these steps on this library (CI above 0) but the "
    "reader takes less than half of them - the examiner's reader, not the curator, is the "
    "limit here, and the reader's rho understates what the library offers. (chains): the "
    "navigator relies on links between original notes (chains: the steps they save, CI "
    "above 0), which the reader seldom follows, and the reader falls short of the navigator "
    "by more than half of that.")


def format_blind_spots(table: Mapping, subset: str = "all") -> str:
    """The blind-spot lines: per arm and group, the steps per question saved against the
    base by the ideal navigator (with its paired CI) and by the reader, the share the reader
    captured, and ``BLIND SPOT`` where the navigator's saving is real and the reader captures
    less than half of it."""
    groups = table["groups"]
    order = [g for g in GROUPS if g in groups] + [g for g in groups if g not in GROUPS]
    gw = max([14] + [len(g) + 2 for g in order])
    aw = max([12] + [len(a) + 2 for g in order for a in groups[g][subset]])
    lines = [f"blind spots: steps per question saved against {table['base']} by the ideal "
             "navigator (95% CI) and by the reader, and the share of the navigator's saving "
             "the reader captured"]
    flagged = False
    for group in order:
        for arm, c in groups[group][subset].items():
            b = c.get("blind_spot")
            if arm == table["base"] or b is None:
                continue
            ci = (f"[{b['nav_saving_ci'][0]:+.2f}, {b['nav_saving_ci'][1]:+.2f}]"
                  if b.get("nav_saving_ci") else "")
            share = f"{b['share']:.2f}" if b["share"] is not None else "-"
            line = (f"{group:{gw}s}{arm:{aw}s}navigator {b['nav_saving']:+6.2f} {ci:17s}"
                    f"reader {b['reader_saving']:+6.2f}   share {share:>5s}")
            if "chain_saving" in b:
                cci = (f" [{b['chain_saving_ci'][0]:+.2f}, {b['chain_saving_ci'][1]:+.2f}]"
                       if b.get("chain_saving_ci") else "")
                line += f"   chains {b['chain_saving']:+.2f}{cci}"
            if b["flagged"]:
                line += "   BLIND SPOT" + (" (chains)" if b.get("chain_blind") else "")
                flagged = True
            lines.append(line)
    if len(lines) == 1:
        lines.append("(no arm to compare)")
    lines.append(BLIND_SPOT_NOTE if flagged else
                 f"no blind spot: wherever the navigator saves steps against {table['base']}, "
                 "the reader captures at least half of them (or the saving is not real)")
    return "\n".join(lines)


ARM_MEANING = {
    "B1": "B1 = the untrained library, the base: rho = steps(arm) / steps(B1) on the same "
          "questions",
    "prior": "prior = each template's most frequent training answer in one step, reading "
             "nothing: what guessing alone scores",
}


def legend(table: Mapping, m: int | None = None) -> list[str]:
    """One line per term of a ρ table (docs/protocol.md §13): its groups, its B1 and prior
    arms, and - when every reading arm scores F1 1.000 - why."""
    groups = table["groups"]
    m = table.get("m", m)
    parts = []
    if "exact" in groups:
        parts.append("exact = the trained questions")
    if "exact_matched" in groups:
        parts.append("exact_matched = those of the six two-key templates")
    shares = [g for g in ("share2", "share1", "share0") if g in groups]
    if shares:
        parts.append(f"{'/'.join(shares)} = fresh questions with {'/'.join(g[-1] for g in shares)}"
                     " of their keys among the training keys")
    lines = ["; ".join(parts)] if parts else []
    arms = {a for g in groups.values() for a in g["all"]}
    lines += [text for arm, text in ARM_MEANING.items() if arm in arms]
    f1s = [c["f1"] for g in groups.values() for a, c in g["all"].items()
           if a != "prior" and c["n"]]
    if f1s and all(f == 1.0 for f in f1s):
        budget = f"the budget m = {m}" if m is not None else "this budget"
        lines.append(f"F1 = 1.000 for every reading arm at {budget}: the reader finds every "
                     "answer in time on any library that keeps the original notes, so training "
                     "shows in steps (rho), not in F1; a tight budget (e.g. --m 6) makes F1 move")
    return lines
