"""The 26 question templates as data (SPEC §4.2).

Each template has a text with slots {X} {Y} {job} {city} {hobby} — the protocol's question
shapes (:data:`kbgym.worlds.people.forms.QUESTION_FORMS`), written once there. Which instances
exist, and their golds and support, live in ``questions.py``; this module is only the table.
"""

from __future__ import annotations

from kbgym.worlds.people.forms import QUESTION_FORMS
from kbgym.types import Template

_T = Template

TEMPLATES: tuple[Template, ...] = tuple(
    _T(name, category, tier, hops, reserved, QUESTION_FORMS[name])
    for name, category, tier, hops, reserved in (
        ("qc1_job", "QC1", "easy", 1, False),
        ("qc1_hobby", "QC1", "easy", 1, False),
        ("qc1_city", "QC1", "easy", 1, True),
        ("qc2_spouse_job", "QC2", "easy", 2, False),
        ("qc2_father_hobby", "QC2", "easy", 2, False),
        ("qc2_mother_city", "QC2", "easy", 2, True),
        ("qc3_spouse_father_hobby", "QC3", "easy", 3, False),
        ("qc3_father_spouse_job", "QC3", "easy", 3, False),
        ("qc3_spouse_mother_city", "QC3", "easy", 3, True),
        ("qc4_children", "QC4", "easy", 1, False),
        ("qc4_friends", "QC4", "easy", 1, True),
        ("qc5_brother_job", "QC5", "easy", 2, False),
        ("qc5_sister_hobby", "QC5", "easy", 2, False),
        ("qc5_spouse_city", "QC5", "easy", 2, True),
        ("qc6_job_city", "QC6", "hard", 2, False),
        ("qc6_job_hobby", "QC6", "hard", 2, False),
        ("qc6_job_city_hobby", "QC6", "hard", 3, True),
        ("qc7_common_friend", "QC7", "hard", 2, False),
        ("qc7_child_friend", "QC7", "hard", 2, True),
        ("qc8_grandchildren", "QC8", "hard", 2, False),
        ("qc8_friend_job", "QC8", "hard", 2, False),
        ("qc8_spouse_friends", "QC8", "hard", 2, True),
        ("qc9_older_pair", "QC9", "hard", 2, False),
        ("qc9_oldest_child", "QC9", "hard", 2, True),
        ("qc10_spouse_job_city", "QC10", "hard", 3, False),
        ("qc10_spouse_job", "QC10", "hard", 2, True),
    )
)
assert len(TEMPLATES) == len(QUESTION_FORMS) == 26

BY_NAME: dict[str, Template] = {t.name: t for t in TEMPLATES}
SWAP = frozenset({"qc7_common_friend", "qc9_older_pair"})
RESERVED = tuple(t.name for t in TEMPLATES if t.reserved)
TRAINED_EASY = tuple(t.name for t in TEMPLATES if not t.reserved and t.tier == "easy")
TRAINED_HARD = tuple(t.name for t in TEMPLATES if not t.reserved and t.tier == "hard")
# The six two-slot trained templates of the gradient probe (§13).
TWO_SLOT = ("qc6_job_city", "qc6_job_hobby", "qc7_common_friend", "qc8_friend_job",
            "qc9_older_pair", "qc10_spouse_job_city")
