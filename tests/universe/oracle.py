"""An independent, deliberately naive oracle for KBGym universes (SPEC §2.2, §3, §4, §5).

It re-derives every question's golds, support and keys from nothing but the people table
(``u.people``), the node list (used only to look node ids up by their rendered sentence) and
the question's template name and text. It never calls into the generator's question or split
code: slots are parsed back out of the text with the template texts of SPEC §4.2, and answers
are computed with plain loops over all people (all-pairs where needed; test sizes are small).
The split pools are the exception: ``pools`` walks per-person tables and friend lists so
that the 3,800-person universe stays cheap, and is checked equal to ``pools_all_pairs``.

Everything the SPEC pins that the tests compare against is written out here again, by hand,
on purpose (vocabularies, template table, sentence forms, number words).
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass

# --------------------------------------------------------------------------------------------
# SPEC §2.2 vocabularies, copied by hand
# --------------------------------------------------------------------------------------------

MALE_FIRST = (
    "Arthur Bernard Cedric Desmond Edmund Felix Gideon Harold Ivor Jasper Leopold Milo Nigel "
    "Oswald Percival Quentin Rupert Silas Tobias Victor"
).split()
FEMALE_FIRST = (
    "Agatha Beatrice Clara Dorothy Eleanor Florence Greta Harriet Imogen Josephine Lavinia Mabel "
    "Nora Olive Philippa Rosalind Sylvia Theodora Ursula Winifred"
).split()
SURNAMES = (
    "Abernathy Ashdown Ashworth Blackwood Bramley Brightwater Calloway Coldwell Dalrymple "
    "Davenport Ellsworth Everly Fairbanks Fenwick Galloway Hargreaves Hawthorne Holloway Kingsley "
    "Langley Merriweather Montague Northcott Oakley Pemberton Penhaligon Quimby Radcliffe "
    "Rutherford Sinclair Stanhope Thackeray Thistlewood Underhill Vance Wainwright Westbrook "
    "Whitlock Winslow Yardley"
).split()
JOBS = (
    "arborist baker beekeeper blacksmith bookbinder brewer butcher candlemaker carpenter "
    "cartographer cobbler cooper dyer engraver farrier fletcher florist glassblower glazier "
    "goldsmith grocer herbalist innkeeper jeweler joiner locksmith mason miller milliner miner "
    "potter printer roofer saddler sailor shepherd shipwright silversmith stonecutter surveyor "
    "tailor tanner thatcher tinsmith turner upholsterer vintner weaver wheelwright woodcarver"
).split()
HOBBIES = [
    h.strip() for h in (
        "archery, astronomy, baking, birdwatching, bowling, calligraphy, canoeing, chess, cooking, "
        "crosswords, cycling, dancing, embroidery, fencing, fishing, gardening, hiking, "
        "jigsaw puzzles, juggling, kayaking, kite flying, knitting, model trains, orienteering, "
        "origami, painting, photography, quilting, rock climbing, rowing, sculpting, singing, "
        "sketching, skiing, stamp collecting, surfing, swimming, tennis, woodworking, yoga"
    ).split(",")
]
CITIES = (
    "Ambleford Ashcombe Briarwick Coldharbour Dunmere Elmstead Fenmarch Foxhollow Greywater "
    "Hartwell Kingsreach Larkspur Marrowby Northwold Oakhaven Pennymoor Ravensholt Saltmarsh "
    "Stonebridge Thornbury"
).split()
SYLLABLES = (
    "ba bel cor da el fen gar hal in jo kel lan mor ne or pel quin ro sal tor ul va wen yor"
).split()
NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
MONTHS = (
    "January February March April May June July August September October November December"
).split()

assert len(MALE_FIRST) == 20 and len(FEMALE_FIRST) == 20 and len(SURNAMES) == 40
assert len(JOBS) == 50 and len(HOBBIES) == 40 and len(CITIES) == 20 and len(NUMBER_WORDS) == 21

# --------------------------------------------------------------------------------------------
# SPEC §4.2 template table, copied by hand (table order)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class T:
    name: str
    category: str
    hops: int
    reserved: bool
    text: str
    swap: bool = False

    @property
    def tier(self) -> str:
        return "easy" if int(self.category[2:]) <= 5 else "hard"


TEMPLATES = (
    T("qc1_job", "QC1", 1, False, "What is the job of {X}?"),
    T("qc1_hobby", "QC1", 1, False, "What is the hobby of {X}?"),
    T("qc1_city", "QC1", 1, True, "In which city does {X} live?"),
    T("qc2_spouse_job", "QC2", 2, False, "What is the job of the spouse of {X}?"),
    T("qc2_father_hobby", "QC2", 2, False, "What is the hobby of the father of {X}?"),
    T("qc2_mother_city", "QC2", 2, True, "In which city does the mother of {X} live?"),
    T("qc3_spouse_father_hobby", "QC3", 3, False,
      "What is the hobby of the father of the spouse of {X}?"),
    T("qc3_father_spouse_job", "QC3", 3, False,
      "What is the job of the spouse of the father of {X}?"),
    T("qc3_spouse_mother_city", "QC3", 3, True,
      "In which city does the mother of the spouse of {X} live?"),
    T("qc4_children", "QC4", 1, False, "How many children does {X} have?"),
    T("qc4_friends", "QC4", 1, True, "How many friends does {X} have?"),
    T("qc5_brother_job", "QC5", 2, False, "What is the job of the brother of {X}?"),
    T("qc5_sister_hobby", "QC5", 2, False, "What is the hobby of the sister of {X}?"),
    T("qc5_spouse_city", "QC5", 2, True, "In which city does the spouse of {X} live?"),
    T("qc6_job_city", "QC6", 2, False, "Who is the {job} who lives in the city of {city}?"),
    T("qc6_job_hobby", "QC6", 2, False, "Who is the {job} whose hobby is {hobby}?"),
    T("qc6_job_city_hobby", "QC6", 3, True,
      "Who is the {job} who lives in the city of {city} and whose hobby is {hobby}?"),
    T("qc7_common_friend", "QC7", 2, False, "Which friend of {X} is also a friend of {Y}?",
      swap=True),
    T("qc7_child_friend", "QC7", 2, True, "Which child of {X} is a friend of {Y}?"),
    T("qc8_grandchildren", "QC8", 2, False, "How many grandchildren does {X} have?"),
    T("qc8_friend_job", "QC8", 2, False, "How many friends of {X} have the job of {job}?"),
    T("qc8_spouse_friends", "QC8", 2, True, "How many friends does the spouse of {X} have?"),
    T("qc9_older_pair", "QC9", 2, False, "Who is older, {X} or {Y}?", swap=True),
    T("qc9_oldest_child", "QC9", 2, True, "Who is the oldest child of {X}?"),
    T("qc10_spouse_job_city", "QC10", 3, False,
      "Whose spouse is the {job} who lives in the city of {city}?"),
    T("qc10_spouse_job", "QC10", 2, True, "Whose spouse has the job of {job}?"),
)
BY_NAME = {t.name: t for t in TEMPLATES}
assert len(TEMPLATES) == 26 and sum(t.reserved for t in TEMPLATES) == 10

RESERVED = tuple(t.name for t in TEMPLATES if t.reserved)
HARD_TRAINED = tuple(t.name for t in TEMPLATES if not t.reserved and t.tier == "hard")
EASY_TRAINED = tuple(t.name for t in TEMPLATES if not t.reserved and t.tier == "easy")


class OracleError(AssertionError):
    """The generated question violates an 'emitted when' condition or cannot be parsed."""


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------


def idnum(node_id: str) -> int:
    return int(node_id[1:])


def derive(seed: int, name: str) -> int:
    return int.from_bytes(hashlib.sha256(f"kbgym:{seed}:{name}".encode()).digest()[:8], "big")


def count_golds(n: int) -> tuple[str, ...]:
    return (str(n), NUMBER_WORDS[n]) if n <= 20 else (str(n),)


def list_golds(names: list[str]) -> tuple[str, ...]:
    names = sorted(names)
    joined = ", ".join(names)
    if len(names) == 2:
        return (joined, names[0], names[1])
    return (joined,)


def render_date(born: str) -> str:
    y, m, d = born.split("-")
    return f"{MONTHS[int(m) - 1]} {int(d)}, {y}"


def render(kind: str, subj, obj, people_by_pid) -> str:
    """The §3 sentence of one fact, written out again by hand."""
    n = subj.name
    if kind == "job":
        return f"{n}'s job is {obj}."
    if kind == "hobby":
        return f"{n}'s hobby is {obj}."
    if kind == "city":
        return f"{n} lives in the city of {obj}."
    if kind == "born":
        return f"{n} was born on {render_date(obj)}."
    other = people_by_pid[obj].name
    if kind == "married":
        return f"{n} is married to {other}."
    if kind == "child_of":
        return f"{n} is a child of {other}."
    if kind == "parent_of":
        word = "father" if subj.gender == "male" else "mother"
        return f"{n} is the {word} of {other}."
    if kind == "friend_of":
        return f"{n} is a friend of {other}."
    raise ValueError(kind)


def naive_keys(text: str, people, vocab) -> tuple[str, ...]:
    """§4.3 keys, by trying every roster name and vocabulary value against the text."""
    out = set()
    candidates = [("person", p.name) for p in people]
    candidates += [("job", v) for v in vocab["jobs"]]
    candidates += [("hobby", v) for v in vocab["hobbies"]]
    candidates += [("city", v) for v in vocab["cities"]]
    low = text.lower()
    for kind, v in candidates:
        if v.lower() not in low:  # cheap pre-filter; the regex below decides
            continue
        if re.search(r"(?<!\w)" + re.escape(v) + r"(?!\w)", text, flags=re.IGNORECASE):
            out.add(f"{kind}:{v}")
    return tuple(sorted(out))


# --------------------------------------------------------------------------------------------
# the oracle
# --------------------------------------------------------------------------------------------


class Oracle:
    def __init__(self, u):
        self.u = u
        self.people = list(u.people)
        self.by_pid = {p.pid: p for p in self.people}
        self.by_name = {p.name: p for p in self.people}
        self.order = {p.pid: i for i, p in enumerate(self.people)}
        self.real = [p for p in self.people if not p.distractor]
        self.vocab = u.vocab
        self.node_by_text: dict[str, object] = {}
        for n in u.nodes:
            if n.text in self.node_by_text:
                raise OracleError(f"two nodes share the text {n.text!r}")
            self.node_by_text[n.text] = n
        self._regex = {}
        # a full name is "First Surname"; the parsed string must then be on the roster
        names = r"[A-Z][a-z]+ [A-Z][a-z]+"
        alts = {
            k: "|".join(re.escape(v) for v in sorted(vocab_list, key=len, reverse=True))
            for k, vocab_list in (("job", u.vocab["jobs"]), ("hobby", u.vocab["hobbies"]),
                                  ("city", u.vocab["cities"]))
        }
        for t in TEMPLATES:
            pat = re.escape(t.text)
            for slot in ("X", "Y"):
                pat = pat.replace(re.escape("{" + slot + "}"), f"(?P<{slot}>{names})")
            for slot in ("job", "hobby", "city"):
                pat = pat.replace(re.escape("{" + slot + "}"), f"(?P<{slot}>{alts[slot]})")
            self._regex[t.name] = re.compile(pat)

    # ---- naive relation lookups (loops over the whole table, no indexes) -------------------

    def person(self, name: str):
        for p in self.people:
            if p.name == name:
                return p
        raise OracleError(f"no person named {name!r}")

    def spouse(self, x):
        if x.spouse is None:
            return None
        for p in self.people:
            if p.pid == x.spouse:
                return p
        raise OracleError(f"dangling spouse of {x.pid}")

    def parents(self, x):
        return [p for p in self.people if p.pid in x.parents]

    def father(self, x):
        fs = [p for p in self.parents(x) if p.gender == "male"]
        if len(fs) > 1:
            raise OracleError(f"{x.pid} has two fathers")
        return fs[0] if fs else None

    def mother(self, x):
        ms = [p for p in self.parents(x) if p.gender == "female"]
        if len(ms) > 1:
            raise OracleError(f"{x.pid} has two mothers")
        return ms[0] if ms else None

    def children(self, x):
        return [p for p in self.people if p.pid in x.children]

    def friends(self, x):
        return [p for p in self.people if p.pid in x.friends]

    def siblings(self, x):
        out = []
        for par in self.parents(x):
            for c in self.children(par):
                if c.pid != x.pid and c not in out:
                    out.append(c)
        return out

    # ---- node lookups ---------------------------------------------------------------------

    def node(self, kind: str, subj, obj) -> str:
        """The id of the node stating (kind, subj, obj), found by its rendered sentence."""
        text = render(kind, subj, obj, self.by_pid)
        n = self.node_by_text.get(text)
        if n is None:
            raise OracleError(f"no node with text {text!r}")
        f = n.fact
        if (f.kind, f.subject, f.object) != (kind, subj.pid, obj):
            raise OracleError(f"node {n.id} {text!r} has fact {f} != {(kind, subj.pid, obj)}")
        return n.id

    def all_parent_of(self, x) -> list[str]:
        return [self.node("parent_of", x, c.pid) for c in self.children(x)]

    def all_friend_of(self, x) -> list[str]:
        return [self.node("friend_of", x, f.pid) for f in self.friends(x)]

    # ---- parsing --------------------------------------------------------------------------

    def parse(self, template: str, text: str) -> dict:
        m = self._regex[template].fullmatch(text)
        if m is None:
            raise OracleError(f"text {text!r} does not match template {template}")
        return {k: v for k, v in m.groupdict().items() if v is not None}

    def _subject(self, slots, slot="X"):
        p = self.person(slots[slot])
        if p.distractor:
            raise OracleError(f"distractor {p.name} is a question subject")
        return p

    def _matches(self, job=None, city=None, hobby=None):
        out = []
        for p in self.people:  # everyone, distractors included
            if job is not None and p.job != job:
                continue
            if city is not None and p.city != city:
                continue
            if hobby is not None and p.hobby != hobby:
                continue
            out.append(p)
        return out

    def _unique_real(self, **kw):
        ms = self._matches(**kw)
        if len(ms) != 1:
            raise OracleError(f"{kw} matches {len(ms)} people, not exactly one")
        if ms[0].distractor:
            raise OracleError(f"{kw} matches only a distractor")
        return ms[0]

    # ---- evaluation -----------------------------------------------------------------------

    def evaluate(self, template: str, text: str):
        """(golds, support ids in id order, unanswerable) for one question, re-derived."""
        s = self.parse(template, text)
        support: list[str] = []
        unans = False
        N = self.node

        def need(cond, why):
            if not cond:
                raise OracleError(f"{template}: emitted although {why}: {text!r}")

        if template in ("qc1_job", "qc1_hobby", "qc1_city"):
            x = self._subject(s)
            attr = template.split("_")[1]
            golds = (getattr(x, attr),)
            support = [N(attr, x, getattr(x, attr))]
        elif template == "qc2_spouse_job":
            x = self._subject(s)
            sp = self.spouse(x)
            need(sp is not None, "X is unmarried")
            golds = (sp.job,)
            support = [N("married", x, sp.pid), N("job", sp, sp.job)]
        elif template == "qc2_father_hobby":
            x = self._subject(s)
            f = self.father(x)
            need(f is not None, "X has no father")
            golds = (f.hobby,)
            support = [N("parent_of", f, x.pid), N("hobby", f, f.hobby)]
        elif template == "qc2_mother_city":
            x = self._subject(s)
            mo = self.mother(x)
            need(mo is not None, "X has no mother")
            golds = (mo.city,)
            support = [N("parent_of", mo, x.pid), N("city", mo, mo.city)]
        elif template == "qc3_spouse_father_hobby":
            x = self._subject(s)
            sp = self.spouse(x)
            need(sp is not None, "X is unmarried")
            f = self.father(sp)
            need(f is not None, "X's spouse has no father")
            golds = (f.hobby,)
            support = [N("married", x, sp.pid), N("parent_of", f, sp.pid), N("hobby", f, f.hobby)]
        elif template == "qc3_father_spouse_job":
            x = self._subject(s)
            f = self.father(x)
            need(f is not None, "X has no father")
            w = self.spouse(f)
            need(w is not None, "X's father is unmarried")
            golds = (w.job,)
            support = [N("parent_of", f, x.pid), N("married", f, w.pid), N("job", w, w.job)]
        elif template == "qc3_spouse_mother_city":
            x = self._subject(s)
            sp = self.spouse(x)
            need(sp is not None, "X is unmarried")
            mo = self.mother(sp)
            need(mo is not None, "X's spouse has no mother")
            golds = (mo.city,)
            support = [N("married", x, sp.pid), N("parent_of", mo, sp.pid), N("city", mo, mo.city)]
        elif template == "qc4_children":
            x = self._subject(s)
            ch = self.children(x)
            need(len(ch) >= 1, "X has no child")
            golds = count_golds(len(ch))
            support = self.all_parent_of(x)
        elif template == "qc4_friends":
            x = self._subject(s)
            fr = self.friends(x)
            need(len(fr) >= 1, "X has no friend")
            golds = count_golds(len(fr))
            support = self.all_friend_of(x)
        elif template in ("qc5_brother_job", "qc5_sister_hobby"):
            x = self._subject(s)
            g = "male" if template == "qc5_brother_job" else "female"
            need(not any(sib.gender == g for sib in self.siblings(x)), f"X has a {g} sibling")
            golds, support, unans = ("unknown",), [], True
        elif template == "qc5_spouse_city":
            x = self._subject(s)
            need(self.spouse(x) is None, "X is married")
            golds, support, unans = ("unknown",), [], True
        elif template == "qc6_job_city":
            p = self._unique_real(job=s["job"], city=s["city"])
            golds = (p.name,)
            support = [N("job", p, p.job), N("city", p, p.city)]
        elif template == "qc6_job_hobby":
            p = self._unique_real(job=s["job"], hobby=s["hobby"])
            golds = (p.name,)
            support = [N("job", p, p.job), N("hobby", p, p.hobby)]
        elif template == "qc6_job_city_hobby":
            p = self._unique_real(job=s["job"], city=s["city"], hobby=s["hobby"])
            golds = (p.name,)
            support = [N("job", p, p.job), N("city", p, p.city), N("hobby", p, p.hobby)]
        elif template == "qc7_common_friend":
            x, y = self._subject(s, "X"), self._subject(s, "Y")
            need(x.pid != y.pid, "X == Y")
            common = [f for f in self.friends(x) if f in self.friends(y)]
            need(1 <= len(common) <= 2, f"|fr(X) & fr(Y)| = {len(common)}")
            golds = list_golds([c.name for c in common])
            support = self.all_friend_of(x) + self.all_friend_of(y)
        elif template == "qc7_child_friend":
            x, y = self._subject(s, "X"), self._subject(s, "Y")
            need(x.pid != y.pid, "X == Y")
            common = [c for c in self.children(x) if c in self.friends(y)]
            need(1 <= len(common) <= 2, f"|ch(X) & fr(Y)| = {len(common)}")
            golds = list_golds([c.name for c in common])
            support = self.all_parent_of(x) + self.all_friend_of(y)
        elif template == "qc8_grandchildren":
            x = self._subject(s)
            grand = []
            support = self.all_parent_of(x)
            for c in self.children(x):
                support += self.all_parent_of(c)
                for g in self.children(c):
                    if g not in grand:
                        grand.append(g)
            need(len(grand) >= 1, "X has no grandchild")
            golds = count_golds(len(grand))
        elif template == "qc8_friend_job":
            x = self._subject(s)
            fr = self.friends(x)
            k = sum(1 for f in fr if f.job == s["job"])
            need(k >= 1, "no friend of X holds the job")
            golds = count_golds(k)
            support = self.all_friend_of(x) + [N("job", f, f.job) for f in fr]
        elif template == "qc8_spouse_friends":
            x = self._subject(s)
            sp = self.spouse(x)
            need(sp is not None, "X is unmarried")
            fr = self.friends(sp)
            need(len(fr) >= 1, "X's spouse has no friend")
            golds = count_golds(len(fr))
            support = [N("married", x, sp.pid)] + self.all_friend_of(sp)
        elif template == "qc9_older_pair":
            x, y = self._subject(s, "X"), self._subject(s, "Y")
            need(x.pid != y.pid, "X == Y")
            need(y in self.friends(x) and x in self.friends(y), "X and Y are not friends")
            need(x.born != y.born, "X and Y share a birth date")
            older = x if x.born < y.born else y
            golds = (older.name,)
            support = [N("born", x, x.born), N("born", y, y.born)]
        elif template == "qc9_oldest_child":
            x = self._subject(s)
            ch = self.children(x)
            need(len(ch) >= 2, "X has fewer than two children")
            first = min(c.born for c in ch)
            oldest = [c for c in ch if c.born == first]
            need(len(oldest) == 1, "the oldest child is tied")
            golds = (oldest[0].name,)
            support = self.all_parent_of(x) + [N("born", c, c.born) for c in ch]
        elif template == "qc10_spouse_job_city":
            p = self._unique_real(job=s["job"], city=s["city"])
            q = self.spouse(p)
            need(q is not None, "the matched person is unmarried")
            golds = (q.name,)
            support = [N("job", p, p.job), N("city", p, p.city), N("married", p, q.pid)]
        elif template == "qc10_spouse_job":
            married = [p for p in self.people if p.job == s["job"] and p.spouse is not None]
            need(len(married) == 1, f"{len(married)} married people hold the job")
            p = married[0]
            need(not p.distractor, "the match is a distractor")
            q = self.spouse(p)
            golds = (q.name,)
            support = [N("job", p, p.job), N("married", p, q.pid)]
        else:
            raise OracleError(f"unknown template {template}")

        support = tuple(sorted(set(support), key=idnum))
        return tuple(golds), support, unans

    def keys(self, text: str) -> tuple[str, ...]:
        return naive_keys(text, self.people, self.vocab)

    # ---- pools (§4.1 pool order), by brute force ------------------------------------------

    def instance(self, template: str, text: str) -> tuple:
        """The order-free identity of a question instance (pids / vocab values)."""
        s = self.parse(template, text)
        t = BY_NAME[template]
        if template.startswith("qc6") or template == "qc10_spouse_job_city":
            kw = {k: s[k] for k in ("job", "city", "hobby") if k in s}
            return (self._matches(**kw)[0].pid,)
        if template == "qc10_spouse_job":
            return tuple(p.pid for p in self.people if p.job == s["job"] and p.spouse)
        x = self.person(s["X"]).pid
        if "Y" in s:
            y = self.person(s["Y"]).pid
            if t.swap:
                x, y = sorted((x, y), key=self.order.get)
            return (x, y)
        if "job" in s:
            return (x, s["job"])
        return (x,)

    def pools(self) -> dict[str, list[tuple]]:
        """Every template's full pool, in §4.1 pool order, as instance identities.

        The same pools as :meth:`pools_all_pairs` (the tests check it on small universes),
        from per-person tables built in one pass over the people and pairs enumerated from
        friend lists instead of every pair of people: the "repeat" birthdate universe (3,800
        people and as many distractors) costs seconds instead of half a minute."""
        real = self.real
        pos = {p.pid: i for i, p in enumerate(real)}  # the order the all-pairs loops walk
        P: dict[str, list[tuple]] = {t.name: [] for t in TEMPLATES}
        by_pid = self.by_pid
        kids_of: dict[str, list] = {p.pid: [] for p in self.people}
        parents_of: dict[str, list] = {p.pid: [] for p in self.people}
        for p in self.people:  # who lists whom, in table order (as the naive lookups return)
            for c in p.children:
                if c in by_pid:
                    kids_of[p.pid].append(by_pid[c])
            for q in p.parents:
                if q in by_pid:
                    parents_of[p.pid].append(by_pid[q])
        for pid in parents_of:
            parents_of[pid].sort(key=lambda q: self.order[q.pid])
            kids_of[pid].sort(key=lambda q: self.order[q.pid])

        def one(xs, gender):
            got = [q for q in xs if q.gender == gender]
            return got[0] if got else None

        def spouse(x):
            return by_pid[x.spouse] if x.spouse is not None else None

        fr = {p.pid: {f for f in p.friends if f in by_pid} for p in real}
        ch = {p.pid: [c.pid for c in kids_of[p.pid]] for p in real}
        fans: dict[str, list[str]] = {}  # f -> every real y that lists f as a friend
        for y in real:
            for f in fr[y.pid]:
                fans.setdefault(f, []).append(y.pid)
        count: dict[tuple, int] = {}  # everyone, distractors included (as _matches counts)
        for p in self.people:
            for k in ((p.job, p.city, None), (p.job, None, p.hobby), (p.job, p.city, p.hobby)):
                count[k] = count.get(k, 0) + 1
        married_jobs: dict[str, int] = {}
        for p in self.people:
            if p.spouse is not None:
                married_jobs[p.job] = married_jobs.get(p.job, 0) + 1
        for x in real:
            sp = spouse(x)
            fa, mo = one(parents_of[x.pid], "male"), one(parents_of[x.pid], "female")
            sibs = {c.pid: c for par in parents_of[x.pid] for c in kids_of[par.pid]
                    if c.pid != x.pid}.values()
            kids = kids_of[x.pid]
            P["qc1_job"].append((x.pid,))
            P["qc1_hobby"].append((x.pid,))
            P["qc1_city"].append((x.pid,))
            if sp:
                P["qc2_spouse_job"].append((x.pid,))
            if fa:
                P["qc2_father_hobby"].append((x.pid,))
            if mo:
                P["qc2_mother_city"].append((x.pid,))
            if sp and one(parents_of[sp.pid], "male"):
                P["qc3_spouse_father_hobby"].append((x.pid,))
            if fa and spouse(fa):
                P["qc3_father_spouse_job"].append((x.pid,))
            if sp and one(parents_of[sp.pid], "female"):
                P["qc3_spouse_mother_city"].append((x.pid,))
            if kids:
                P["qc4_children"].append((x.pid,))
            if fr[x.pid]:
                P["qc4_friends"].append((x.pid,))
            if not any(b.gender == "male" for b in sibs):
                P["qc5_brother_job"].append((x.pid,))
            if not any(b.gender == "female" for b in sibs):
                P["qc5_sister_hobby"].append((x.pid,))
            if not sp:
                P["qc5_spouse_city"].append((x.pid,))
            if count[(x.job, x.city, None)] == 1:
                P["qc6_job_city"].append((x.pid,))
            if count[(x.job, None, x.hobby)] == 1:
                P["qc6_job_hobby"].append((x.pid,))
            if count[(x.job, x.city, x.hobby)] == 1:
                P["qc6_job_city_hobby"].append((x.pid,))
            # y shares a friend with x only if y lists one of x's friends
            near = {y for f in fr[x.pid] for y in fans.get(f, ())}
            for y in sorted(near, key=pos.__getitem__):
                if (self.order[y] > self.order[x.pid]
                        and 1 <= len(fr[x.pid] & fr[y]) <= 2):
                    P["qc7_common_friend"].append((x.pid, y))
            if kids:
                near = {y for c in ch[x.pid] for y in fans.get(c, ())}
                for y in sorted(near, key=pos.__getitem__):
                    if y == x.pid:
                        continue
                    k = sum(1 for c in ch[x.pid] if c in fr[y])
                    if 1 <= k <= 2:
                        P["qc7_child_friend"].append((x.pid, y))
            if any(ch[c] for c in ch[x.pid]):
                P["qc8_grandchildren"].append((x.pid,))
            friend_jobs = {by_pid[f].job for f in fr[x.pid]}
            for job in self.vocab["jobs"]:
                if job in friend_jobs:
                    P["qc8_friend_job"].append((x.pid, job))
            if sp and fr[sp.pid]:
                P["qc8_spouse_friends"].append((x.pid,))
            for y in sorted((f for f in fr[x.pid] if f in pos), key=pos.__getitem__):
                if self.order[y] > self.order[x.pid] and by_pid[y].born != x.born:
                    P["qc9_older_pair"].append((x.pid, y))
            if len(kids) >= 2:
                first = min(c.born for c in kids)
                if sum(c.born == first for c in kids) == 1:
                    P["qc9_oldest_child"].append((x.pid,))
            if sp and count[(x.job, x.city, None)] == 1:
                P["qc10_spouse_job_city"].append((x.pid,))
            if sp and married_jobs.get(x.job, 0) == 1:
                P["qc10_spouse_job"].append((x.pid,))
        return P

    def pools_all_pairs(self) -> dict[str, list[tuple]]:
        """Every template's full pool, in §4.1 pool order: the naive reference, all pairs of
        people walked with the table-scanning lookups above."""
        real = self.real
        P: dict[str, list[tuple]] = {t.name: [] for t in TEMPLATES}
        # plain per-person sets, built once by loops (all-pairs below stays affordable)
        fr = {p.pid: {f.pid for f in self.friends(p)} for p in real}
        ch = {p.pid: [c.pid for c in self.children(p)] for p in real}
        married_jobs: dict[str, list] = {}
        for p in self.people:
            if p.spouse is not None:
                married_jobs.setdefault(p.job, []).append(p)
        for x in real:
            sp = self.spouse(x)
            fa, mo = self.father(x), self.mother(x)
            sibs = self.siblings(x)
            kids = [self.by_pid[c] for c in ch[x.pid]]
            P["qc1_job"].append((x.pid,))
            P["qc1_hobby"].append((x.pid,))
            P["qc1_city"].append((x.pid,))
            if sp:
                P["qc2_spouse_job"].append((x.pid,))
            if fa:
                P["qc2_father_hobby"].append((x.pid,))
            if mo:
                P["qc2_mother_city"].append((x.pid,))
            if sp and self.father(sp):
                P["qc3_spouse_father_hobby"].append((x.pid,))
            if fa and self.spouse(fa):
                P["qc3_father_spouse_job"].append((x.pid,))
            if sp and self.mother(sp):
                P["qc3_spouse_mother_city"].append((x.pid,))
            if kids:
                P["qc4_children"].append((x.pid,))
            if fr[x.pid]:
                P["qc4_friends"].append((x.pid,))
            if not any(b.gender == "male" for b in sibs):
                P["qc5_brother_job"].append((x.pid,))
            if not any(b.gender == "female" for b in sibs):
                P["qc5_sister_hobby"].append((x.pid,))
            if not sp:
                P["qc5_spouse_city"].append((x.pid,))
            if len(self._matches(job=x.job, city=x.city)) == 1:
                P["qc6_job_city"].append((x.pid,))
            if len(self._matches(job=x.job, hobby=x.hobby)) == 1:
                P["qc6_job_hobby"].append((x.pid,))
            if len(self._matches(job=x.job, city=x.city, hobby=x.hobby)) == 1:
                P["qc6_job_city_hobby"].append((x.pid,))
            for y in real:
                if self.order[y.pid] <= self.order[x.pid]:
                    continue
                if 1 <= len(fr[x.pid] & fr[y.pid]) <= 2:
                    P["qc7_common_friend"].append((x.pid, y.pid))
            if kids:
                for y in real:
                    if y.pid == x.pid:
                        continue
                    k = sum(1 for c in ch[x.pid] if c in fr[y.pid])
                    if 1 <= k <= 2:
                        P["qc7_child_friend"].append((x.pid, y.pid))
            if any(ch[c] for c in ch[x.pid]):
                P["qc8_grandchildren"].append((x.pid,))
            friend_jobs = {self.by_pid[f].job for f in fr[x.pid]}
            for job in self.vocab["jobs"]:
                if job in friend_jobs:
                    P["qc8_friend_job"].append((x.pid, job))
            if sp and fr[sp.pid]:
                P["qc8_spouse_friends"].append((x.pid,))
            for y in real:
                if (self.order[y.pid] > self.order[x.pid] and y.pid in fr[x.pid]
                        and y.born != x.born):
                    P["qc9_older_pair"].append((x.pid, y.pid))
            if len(kids) >= 2:
                first = min(c.born for c in kids)
                if sum(c.born == first for c in kids) == 1:
                    P["qc9_oldest_child"].append((x.pid,))
            if sp and len(self._matches(job=x.job, city=x.city)) == 1:
                P["qc10_spouse_job_city"].append((x.pid,))
            if sp and len(married_jobs.get(x.job, [])) == 1:
                P["qc10_spouse_job"].append((x.pid,))
        return P

    def expected_splits(self, seed: int, sizes, eval_sizes, hard_frac):
        """§5 replayed on the oracle's pools: split -> [(template, instance, flavor)]."""
        pools = self.pools()
        rng = random.Random(derive(seed, "splits"))
        for t in TEMPLATES:
            rng.shuffle(pools[t.name])

        def take(names, n):
            out = []
            while len(out) < n and any(pools[t] for t in names):
                for t in names:
                    if len(out) >= n:
                        break
                    if pools[t]:
                        out.append((t, pools[t].pop(0)))
            return out

        def mixed(n):
            h = int(n * hard_frac + 0.5)
            return take(HARD_TRAINED, h) + take(EASY_TRAINED, n - h)

        train = [(t, i, None) for t, i in mixed(sizes[0])]
        test_in = [(t, i, None) for t, i in mixed(sizes[1])]
        test_out = [(t, i, None) for t, i in take(RESERVED, sizes[2])]
        ev = [(t, i, "in") for t, i in mixed(eval_sizes[0])]
        ev += [(t, i, "out") for t, i in take(RESERVED, eval_sizes[1])]
        return {"train": train, "test_in": test_in, "test_out": test_out, "eval": ev}
