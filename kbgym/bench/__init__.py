"""KBGym-Bench (docs/bench.md): a frozen, versioned release of universes, train slices,
probes, budgets and the pinned reader (:mod:`kbgym.bench.release`); ``kbgym bench run``
(:mod:`kbgym.bench.run`) writes a result package (:mod:`kbgym.bench.package`) whose scores
(:mod:`kbgym.bench.scores`) ``kbgym bench verify`` (:mod:`kbgym.bench.verify`) recomputes
without calling any model; the leaderboard (:mod:`kbgym.bench.board`) and the dataset export
(:mod:`kbgym.bench.export`) are built from them.

The bench reaches the worlds only through :mod:`kbgym.bench.worlds`.
"""
