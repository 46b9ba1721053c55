"""Token costs from run logs: price tables, cached-token shares and money per correct answer.

Agents report three counts per step: prompt tokens (``tokens_in``), completion tokens
(``tokens_out``) and the part of the prompt the server read from its prefix cache
(``tokens_cached``, a part of ``tokens_in``; 0 when the server does not say, and absent from
logs written before it was recorded, which reads as 0).

A price table maps model names to US dollars per million tokens::

    {
      "gpt-5-mini": {"in": 0.25, "cached_in": 0.025, "out": 2.0},
      "*": {"in": 0.0, "out": 0.0}
    }

- ``in`` and ``out`` are required; ``cached_in`` (the price of a cached prompt token) is
  optional and defaults to ``in``, i.e. no discount.
- A model is matched exactly, then by the longest key that prefixes its name, then by ``"*"``.
- The table is a mapping or a ``.json`` file (``.yaml``/``.yml`` too when PyYAML is installed).

Costs come in two versions: with the cache discount (cached prompt tokens at ``cached_in``)
and without it (every prompt token at ``in``), so a run shows what the cache saved.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError

FALLBACK = "*"


def _price(model: str, field: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value) or value < 0:
        raise ConfigError(f"price table: {model!r} {field} must be a non-negative number of "
                          f"USD per 1M tokens, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class PriceTable:
    prices: Mapping[str, Mapping[str, float]]

    @classmethod
    def load(cls, spec: Any) -> "PriceTable":
        """A table from a mapping, a PriceTable or a JSON/YAML file path."""
        if isinstance(spec, PriceTable):
            return spec
        if isinstance(spec, (str, Path)):
            try:
                return cls.load(_read(Path(spec)))
            except ConfigError as err:  # name the file in the one-line error
                text = str(err)
                raise ConfigError(text if str(spec) in text else f"{spec}: {text}") from None
        if not isinstance(spec, Mapping):
            raise ConfigError("a price table maps model names to {in, out[, cached_in]} USD "
                              "per 1M tokens")
        table = {}
        for model, p in spec.items():
            if not isinstance(p, Mapping) or not {"in", "out"} <= set(p):
                raise ConfigError(f"price for {model!r} needs 'in' and 'out' (USD per 1M "
                                  f"tokens), and may give 'cached_in'")
            unknown = set(p) - {"in", "out", "cached_in"}
            if unknown:
                raise ConfigError(f"price for {model!r}: unknown field(s) "
                                  f"{', '.join(sorted(map(str, unknown)))}; expected in, out, "
                                  f"cached_in")
            price = {"in": _price(model, "in", p["in"]), "out": _price(model, "out", p["out"])}
            price["cached_in"] = _price(model, "cached_in", p.get("cached_in", price["in"]))
            table[str(model)] = price
        return cls(table)

    def price(self, model: str | None) -> Mapping[str, float] | None:
        """The model's prices: exact name, longest prefix, then ``"*"``; None if none."""
        if model is not None:
            if model in self.prices:
                return self.prices[model]
            keys = [k for k in self.prices if k != FALLBACK and model.startswith(k)]
            if keys:
                return self.prices[max(keys, key=len)]
        return self.prices.get(FALLBACK)

    def cost(self, model: str | None, tokens_in: int, tokens_out: int,
             tokens_cached: int = 0) -> float | None:
        """Dollars for the counts (cached prompt tokens at ``cached_in``; leave
        ``tokens_cached`` at 0 for the price without the discount), None when unpriced."""
        p = self.price(model)
        if p is None:
            return None
        cached = min(max(0, tokens_cached), tokens_in)
        return ((tokens_in - cached) * p["in"] + cached * p["cached_in"]
                + tokens_out * p["out"]) / 1_000_000


def _read(path: Path) -> Any:
    from kbgym.safeload import read_data

    return read_data(path, "price table")


def tokens_of(rows: Sequence[Mapping]) -> tuple[int, int, int]:
    """(in, out, cached) summed over log rows; rows without ``tokens_cached`` count 0."""
    return (sum(int(r.get("tokens_in", 0) or 0) for r in rows),
            sum(int(r.get("tokens_out", 0) or 0) for r in rows),
            sum(int(r.get("tokens_cached", 0) or 0) for r in rows))


def cached_share(tokens_in: int, tokens_cached: int) -> float | None:
    """The share of prompt tokens read from the cache (None without prompt tokens)."""
    return tokens_cached / tokens_in if tokens_in else None


def exam_costs(rows: Sequence[Mapping], model: str | None = None,
               prices: Any = None) -> dict:
    """Tokens per question and per run for test_log rows, the cached share, and with a price
    table the cost and the cost per correct answer (EM = 1), with and without the cache
    discount. Values are None when undefined (no correct answer, no price)."""
    n = len(rows)
    t_in, t_out, cached = tokens_of(rows)
    correct = sum(1 for r in rows if r.get("em") == 1.0)
    out: dict[str, Any] = {
        "n": n, "correct": correct, "tokens_in": t_in, "tokens_out": t_out,
        "tokens_cached": cached, "cached_share": cached_share(t_in, cached),
        "tokens_per_question": (t_in + t_out) / n if n else None,
        "tokens_per_correct": (t_in + t_out) / correct if correct else None,
        "cost_usd": None, "cost_per_correct_usd": None,
        "cost_usd_no_cache": None, "cost_per_correct_usd_no_cache": None,
    }
    if prices is not None:
        table = PriceTable.load(prices)
        for suffix, n_cached in (("", cached), ("_no_cache", 0)):
            cost = table.cost(model, t_in, t_out, n_cached)
            out["cost_usd" + suffix] = cost
            out["cost_per_correct_usd" + suffix] = \
                cost / correct if cost is not None and correct else None
    return out


def format_costs(costs: Mapping[str, Mapping]) -> str:
    """A fixed-width table: one row per arm (or epoch) of :func:`exam_costs` results."""
    lines = [f"{'arm':14s}{'n':>5s}{'correct':>8s}{'tok in':>10s}{'cached':>10s}"
             f"{'share':>7s}{'tok out':>9s}{'$/correct':>11s}{'no cache':>11s}"]
    for arm, c in costs.items():
        share = "-" if c["cached_share"] is None else f"{c['cached_share']:.2f}"
        lines.append(f"{str(arm):14s}{c['n']:5d}{c['correct']:8d}{c['tokens_in']:10d}"
                     f"{c['tokens_cached']:10d}{share:>7s}{c['tokens_out']:9d}"
                     f"{_money(c['cost_per_correct_usd']):>11s}"
                     f"{_money(c['cost_per_correct_usd_no_cache']):>11s}")
    return "\n".join(lines)


def _money(x: float | None) -> str:
    return "-" if x is None else f"{x:.4g}"
