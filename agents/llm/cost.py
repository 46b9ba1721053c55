"""Token costs (SPEC §12.1): prices, cost per correct answer, and the break-even N*.

A price table maps a model name to US dollars per million tokens, in and out::

    {"gpt-5-mini-2025-08-07": {"in": 0.25, "out": 2.0}}

It may be given as a mapping or as a JSON/YAML file. Models are matched exactly, then by the
longest table key that prefixes the name. Token counts come from the run logs, which every
runner writes (``test_log.jsonl``/``train_log.jsonl`` rows, ``meta.json`` ``tokens`` and
``dedup.judge_tokens``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError
from kbgym.metrics.outcomes import break_even


@dataclass(frozen=True)
class PriceTable:
    prices: Mapping[str, Mapping[str, float]]

    @classmethod
    def load(cls, spec: Any) -> "PriceTable":
        if isinstance(spec, PriceTable):
            return spec
        if isinstance(spec, (str, Path)):
            path = Path(spec)
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                raise ConfigError(f"no such price table: {path}") from None
            if path.suffix in (".yaml", ".yml"):
                import yaml

                spec = yaml.safe_load(text)
            else:
                spec = json.loads(text)
        if not isinstance(spec, Mapping):
            raise ConfigError("a price table maps model names to {in, out} dollars per 1M tokens")
        table = {}
        for model, p in spec.items():
            if not isinstance(p, Mapping) or not {"in", "out"} <= set(p):
                raise ConfigError(f"price for {model!r} needs 'in' and 'out' (USD per 1M tokens)")
            table[str(model)] = {"in": float(p["in"]), "out": float(p["out"])}
        return cls(table)

    def price(self, model: str) -> Mapping[str, float] | None:
        if model in self.prices:
            return self.prices[model]
        keys = [k for k in self.prices if model.startswith(k)]
        return self.prices[max(keys, key=len)] if keys else None

    def cost(self, model: str, tokens_in: int, tokens_out: int) -> float | None:
        """Dollars for the token counts, or None when the model has no price."""
        p = self.price(model)
        if p is None:
            return None
        return (tokens_in * p["in"] + tokens_out * p["out"]) / 1_000_000


def tokens_of(rows: Sequence[Mapping]) -> tuple[int, int]:
    return (sum(int(r.get("tokens_in", 0)) for r in rows),
            sum(int(r.get("tokens_out", 0)) for r in rows))


def exam_costs(rows: Sequence[Mapping], model: str | None = None,
               prices: Any = None) -> dict:
    """Tokens per question and per run for test_log rows; with prices, the cost per correct
    answer (EM = 1). Values are None when undefined (no correct answer, no price)."""
    n = len(rows)
    t_in, t_out = tokens_of(rows)
    correct = sum(1 for r in rows if r.get("em") == 1.0)
    out: dict[str, Any] = {
        "n": n, "correct": correct, "tokens_in": t_in, "tokens_out": t_out,
        "tokens_per_question": (t_in + t_out) / n if n else None,
        "tokens_per_correct": (t_in + t_out) / correct if correct else None,
        "cost_usd": None, "cost_per_correct_usd": None,
    }
    if prices is not None and model is not None:
        cost = PriceTable.load(prices).cost(model, t_in, t_out)
        out["cost_usd"] = cost
        out["cost_per_correct_usd"] = cost / correct if cost is not None and correct else None
    return out


def break_even_report(train_meta: Mapping, base_rows: Sequence[Mapping],
                      trained_rows: Sequence[Mapping]) -> dict:
    """N* = C_train / (c0 − cT) (§12.1) from a run's meta.json and two exams on the same
    questions. C_train counts all training tokens, judge included; c0 and cT are the mean
    answering tokens per question on B1 and on the trained library over the shared qids."""
    tokens = train_meta.get("tokens", {}).get("train", [0, 0])
    judge = (train_meta.get("dedup") or {}).get("judge_tokens") or [0, 0]
    if isinstance(judge, Mapping):
        judge = [judge.get("in", 0), judge.get("out", 0)]
    c_train = int(sum(tokens)) + int(sum(judge))
    base = {r["qid"]: r for r in base_rows}
    shared = [r for r in trained_rows if r["qid"] in base]
    if not shared:
        return {"c_train": c_train, "n": 0, "c0": None, "cT": None, "n_star": None}
    c0 = sum(base[r["qid"]]["tokens_in"] + base[r["qid"]]["tokens_out"] for r in shared) \
        / len(shared)
    ct = sum(r["tokens_in"] + r["tokens_out"] for r in shared) / len(shared)
    return {"c_train": c_train, "n": len(shared), "c0": c0, "cT": ct,
            "n_star": break_even(c_train, c0, ct)}
