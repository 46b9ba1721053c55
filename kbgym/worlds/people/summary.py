"""The summary ``kbgym build`` prints for a generated people universe."""

from __future__ import annotations

from collections import Counter


def summarize(u) -> str:
    from kbgym.worlds.people.templates import TEMPLATES

    n_real = sum(not p.distractor for p in u.people)
    lines = [
        f"universe  seed={u.meta['seed']}  people={n_real} (+{len(u.people) - n_real} "
        f"distractors)  nodes={len(u.nodes)}  questions={len(u.questions)}  "
        f"birthdates={u.meta['birthdate_mode']}",
        f"hash      {u.hash}",
    ]
    split_names = list(u.splits)
    by = Counter((u.question(qid).template, s) for s in split_names for qid in u.splits[s])
    head = f"{'template':26s}" + "".join(f"{s:>9s}" for s in split_names)
    lines += ["", head]
    for t in TEMPLATES:
        mark = " R" if t.reserved else ""
        lines.append(f"{t.name + mark:26s}" + "".join(f"{by[(t.name, s)]:9d}" for s in split_names))
    lines.append(f"{'total':26s}" + "".join(f"{len(u.splits[s]):9d}" for s in split_names))
    short = {k: v for k, v in u.meta["split_shortfall"].items() if v}
    lines.append("shortfall " + (", ".join(f"{k}={v}" for k, v in short.items()) or "none"))
    lines += guess_lines(u)
    return "\n".join(lines)


def guess_lines(u) -> list[str]:
    """Templates a prior answers without reading (top canonical gold over 50 % of their
    questions; QC5's "unknown" always is) and templates with no questions."""
    from kbgym.worlds.people.guess import GUESSABLE_SHARE, answer_shares, guessable

    shares = answer_shares(u)
    flagged = [f"{t} {share:.0%} ({shares[t]['answer']!r})"
               for t, share in guessable(u).items() if not t.startswith("qc5_")]
    empty = [t for t, r in shares.items() if not r["n"]]
    return [f"guessable (top answer > {GUESSABLE_SHARE:.0%} of a template's questions; QC5's "
            f"'unknown' aside): {', '.join(flagged) or 'none'}",
            f"no questions: {', '.join(empty) or 'none'}"]
