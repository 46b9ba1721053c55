"""The 26 question templates as data (SPEC §4.2).

Each template has a text with slots {X} {Y} {job} {city} {hobby}. Which instances exist, and
their golds and support, live in ``questions.py``; this module is only the table.
"""

from __future__ import annotations

from kbgym.universe.types import Template

_T = Template

TEMPLATES: tuple[Template, ...] = (
    _T("qc1_job", "QC1", "easy", 1, False, "What is the job of {X}?"),
    _T("qc1_hobby", "QC1", "easy", 1, False, "What is the hobby of {X}?"),
    _T("qc1_city", "QC1", "easy", 1, True, "In which city does {X} live?"),
    _T("qc2_spouse_job", "QC2", "easy", 2, False, "What is the job of the spouse of {X}?"),
    _T("qc2_father_hobby", "QC2", "easy", 2, False, "What is the hobby of the father of {X}?"),
    _T("qc2_mother_city", "QC2", "easy", 2, True, "In which city does the mother of {X} live?"),
    _T("qc3_spouse_father_hobby", "QC3", "easy", 3, False,
       "What is the hobby of the father of the spouse of {X}?"),
    _T("qc3_father_spouse_job", "QC3", "easy", 3, False,
       "What is the job of the spouse of the father of {X}?"),
    _T("qc3_spouse_mother_city", "QC3", "easy", 3, True,
       "In which city does the mother of the spouse of {X} live?"),
    _T("qc4_children", "QC4", "easy", 1, False, "How many children does {X} have?"),
    _T("qc4_friends", "QC4", "easy", 1, True, "How many friends does {X} have?"),
    _T("qc5_brother_job", "QC5", "easy", 2, False, "What is the job of the brother of {X}?"),
    _T("qc5_sister_hobby", "QC5", "easy", 2, False, "What is the hobby of the sister of {X}?"),
    _T("qc5_spouse_city", "QC5", "easy", 2, True, "In which city does the spouse of {X} live?"),
    _T("qc6_job_city", "QC6", "hard", 2, False, "Who is the {job} who lives in the city of {city}?"),
    _T("qc6_job_hobby", "QC6", "hard", 2, False, "Who is the {job} whose hobby is {hobby}?"),
    _T("qc6_job_city_hobby", "QC6", "hard", 3, True,
       "Who is the {job} who lives in the city of {city} and whose hobby is {hobby}?"),
    _T("qc7_common_friend", "QC7", "hard", 2, False, "Which friend of {X} is also a friend of {Y}?"),
    _T("qc7_child_friend", "QC7", "hard", 2, True, "Which child of {X} is a friend of {Y}?"),
    _T("qc8_grandchildren", "QC8", "hard", 2, False, "How many grandchildren does {X} have?"),
    _T("qc8_friend_job", "QC8", "hard", 2, False, "How many friends of {X} have the job of {job}?"),
    _T("qc8_spouse_friends", "QC8", "hard", 2, True, "How many friends does the spouse of {X} have?"),
    _T("qc9_older_pair", "QC9", "hard", 2, False, "Who is older, {X} or {Y}?"),
    _T("qc9_oldest_child", "QC9", "hard", 2, True, "Who is the oldest child of {X}?"),
    _T("qc10_spouse_job_city", "QC10", "hard", 3, False,
       "Whose spouse is the {job} who lives in the city of {city}?"),
    _T("qc10_spouse_job", "QC10", "hard", 2, True, "Whose spouse has the job of {job}?"),
)

BY_NAME: dict[str, Template] = {t.name: t for t in TEMPLATES}
SWAP = frozenset({"qc7_common_friend", "qc9_older_pair"})
RESERVED = tuple(t.name for t in TEMPLATES if t.reserved)
TRAINED_EASY = tuple(t.name for t in TEMPLATES if not t.reserved and t.tier == "easy")
TRAINED_HARD = tuple(t.name for t in TEMPLATES if not t.reserved and t.tier == "hard")
# The six two-slot trained templates of the gradient probe (§13).
TWO_SLOT = ("qc6_job_city", "qc6_job_hobby", "qc7_common_friend", "qc8_friend_job",
            "qc9_older_pair", "qc10_spouse_job_city")
