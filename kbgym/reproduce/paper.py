"""The paper's own figures that ``kbgym reproduce`` compares with (SPEC §19, docs/protocol.md
§19; the abstract and §I of "Training Knowledge Bases"). Single seed, gpt-5-mini as reader
and curator, 500 people, 100 training questions × 2 epochs, N1 = M = 15, n = 30 per group.
"""

from __future__ import annotations

#: E2, the gradient probe: ρ of the trained library per group (``*`` = CI below 1).
RHO = {"exact": 0.686, "share2": 0.935, "share1": 1.032, "share0": 0.904}
RHO_EXACT_CI = (0.52, 0.84)
#: E2: F1 of B1 and of the trained library per group (the abstract's +0.167 / +0.100 / 0
#: are share2 / share1 / share0).
F1_B1 = {"exact": 0.700, "share2": 0.600, "share1": 0.767, "share0": 0.833}
F1_TRAINED = {"exact": 0.800, "share2": 0.767, "share1": 0.867, "share0": 0.833}
F1_GAIN = {g: round(F1_TRAINED[g] - F1_B1[g], 3) for g in F1_B1}
#: The coverage table (120 pooled probe questions): per point of index_coverage against B1.
SAVED_PER_POINT = {"trained": 0.039, "B3": 0.025}
F1_PER_POINT = {"trained": 0.0033, "B3": 0.0018}
SAVED_RATIO = 1.6  # the abstract's "1.6x the steps saved" (0.039 / 0.025)
F1_RATIO = 1.8  # the abstract's "1.8x the accuracy" (0.0033 / 0.0018)
INDEX_COVERAGE = {"trained": 0.276, "B3": 1.0}
#: E4 and the baselines: links of the trained library and of B3, link precision.
LINKS = {"trained": 1913, "B3": 196_112}
PRECISION = 0.94
#: The PhantomWiki arm (an official generation: 16 family trees, 405 people, depth 6).
PW_RHO = {"exact": 0.769, "share1": 0.914, "share0": 1.029}
PW_RHO_EXACT_CI = (0.68, 0.86)
PW_F1_EXACT = 0.880
#: Coverage growth: 24.8 % at iteration 100 (100 distinct questions), 27.6 % at 200 (the
#: same 100 again), 0.25 points per question in epoch 1.
COVERAGE_AT_100 = 0.248
COVERAGE_AT_200_REPEATED = 0.276
POINTS_PER_QUESTION = 0.25
#: Points gained per repeated question over points per new one (epoch 2 vs epoch 1).
REPEAT_RATIO = round(((COVERAGE_AT_200_REPEATED - COVERAGE_AT_100) / 100)
                     / (COVERAGE_AT_100 / 100), 3)
#: The paper's training questions; "four times the questions closes the gap" is 400.
QUESTIONS = 100
