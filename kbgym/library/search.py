"""Search (SPEC §7): the ``SearchBackend`` protocol, the default incremental BM25 index, and
the page formatting of search results.

BM25, exactly as scored here (every operation in this order, in float64)::

    tokens(text) = re.findall(r"[^\\W_]+", text.casefold())
    idf(t)       = math.log(1 + (N - df + 0.5) / (df + 0.5))
    w(t, d)      = idf(t) * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)))
    score(d)     = 0.0 + w(t1, d) + w(t2, d) + ...   over the distinct query terms, sorted

N is the number of indexed documents, df the number holding the term, dl a document's token
count and avgdl = (sum of dl) / N, all over the current index. Documents scoring 0 are never
returned; ties go to the lower id (numeric order, so s9999 < s10000).

The index is built for libraries of 10^6 notes (a query in well under a millisecond when it
names a person or a place; a few milliseconds when it holds only words like "of" or "is"):

- postings are numpy arrays of (document slot, (tf, dl) code), grown by amortised doubling; a
  re-indexed document gets a fresh slot, so every posting list stays sorted by slot; removal
  tombstones a posting (code 0, weight 0.0) found by binary search, and lists and slots are
  compacted once tombstones dominate;
- weights come from a per-query table over the distinct (tf, dl) codes, gathered per posting;
- MaxScore: the rarest terms' documents are scored first; once the k-th best of them beats the
  most the remaining terms could give any other document, only they are ranked. Their other
  terms are looked up through a slot -> code map (kept for very common terms), a scratch map,
  or a binary search, whichever is cheapest; otherwise all postings are accumulated densely;
- the top k is a partial sort with exact tie handling (score, then numeric id).

Every path adds the same float64 terms in the same (sorted term) order, adding 0.0 where a
document lacks a term, so scores are bit-identical to the formula above.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import numpy as np

from kbgym.library.graph import id_num

TOKEN_RE = re.compile(r"[^\W_]+")

#: Page defaults (SPEC §1).
PAGE_SIZE = 5
MAX_PAGE = 12


def tokenize(text: str) -> list[str]:
    """The §7 tokens of ``text``: casefolded runs of letters and digits."""
    return TOKEN_RE.findall(text.casefold())


@runtime_checkable
class SearchBackend(Protocol):
    """What the library needs from a search index (SPEC §7).

    ``query`` returns at most ``k`` (id, score) pairs with score > 0, ordered by score
    descending, then id ascending in numeric id order.
    """

    def upsert(self, id: str, text: str) -> None: ...

    def remove(self, id: str) -> None: ...

    def query(self, text: str, k: int) -> list[tuple[str, float]]: ...

    def refresh(self) -> None: ...


# ---------------------------------------------------------------------------------------------
# Page formatting


def format_page(page: int, hits: Iterable[tuple[str, str]]) -> str:
    """``page {p}:`` plus one ``\\n- {id}: {text}`` per (id, text); the empty-page strings
    when there are none."""
    lines = [f"\n- {i}: {t}" for i, t in hits]
    if lines:
        return f"page {page}:" + "".join(lines)
    if page == 1:
        return "(no hits)"
    return f"(page {page} is empty - no further matches)"


def page_slice(hits: list, page: int, page_size: int = PAGE_SIZE) -> list:
    """The hits shown on 1-based ``page``."""
    return hits[(page - 1) * page_size : page * page_size]


# ---------------------------------------------------------------------------------------------
# BM25

_MARGIN = 1e-9  # relative safety margin on the MaxScore bound


def _grow(arr: np.ndarray, need: int) -> np.ndarray:
    cap = max(4, len(arr))
    while cap < need:
        cap *= 2
    out = np.zeros(cap, dtype=arr.dtype)
    out[: len(arr)] = arr
    return out


def _union_sorted(parts: list[np.ndarray]) -> np.ndarray:
    x = parts[0].copy() if len(parts) == 1 else np.concatenate(parts)
    if len(parts) == 1:
        return x  # one posting list is already sorted and duplicate-free
    x.sort()
    if len(x) < 2:
        return x
    keep = np.empty(len(x), dtype=bool)
    keep[0] = True
    np.not_equal(x[1:], x[:-1], out=keep[1:])
    return x[keep]


class BM25Index:
    """The default lexical backend (SPEC §7): an incremental inverted index with BM25.

    ``upsert`` of an indexed id replaces its text. ``remove`` of an unknown id is a no-op.
    ``refresh`` has nothing to do (the library owns the iteration-refresh dirty set).
    """

    name = "bm25"
    #: Beyond one posting list, candidate (MaxScore) rounds stop at this many postings, or at
    #: a quarter of all slots if that is more; the rest is scored densely.
    SPARSE_MAX = 24_576
    #: Dead document slots tolerated (beyond the live count) before slots are renumbered.
    COMPACT_MIN = 4096
    #: A term whose posting list is this long, and at least 1/DMAP_FRACTION of all slots, gets
    #: a slot -> code map so candidate lookups are one gather instead of a binary search.
    DMAP_MIN = 32_768
    DMAP_FRACTION = 8
    #: Lookups between two lists both longer than this go through a scratch slot map.
    SCRATCH_MIN = 4096

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1 = float(k1)
        self.b = float(b)
        # terms
        self._vocab: dict[str, int] = {}
        self._ps: list[np.ndarray] = []  # per term: posting slots (int64, ascending)
        self._pc: list[np.ndarray] = []  # per term: posting codes (intp; 0 = tombstone)
        self._pn: list[int] = []  # used length of the posting arrays
        self._pdead: list[int] = []  # tombstones among them
        self._df: list[int] = []
        self._maxtf: list[int] = []  # bounds for MaxScore; never tightened on removal
        self._mindl: list[int] = []
        # (tf, dl) codes; code 0 is the tombstone and always weighs 0.0
        self._code_of: dict[tuple[int, int], int] = {}
        self._code_tf = np.zeros(64)
        self._code_dl = np.zeros(64)
        self._n_codes = 1
        # document slots; a re-indexed document gets a fresh slot, so postings stay sorted
        self._slot_num = np.zeros(64, dtype=np.int64)
        self._slot_id: list[str | None] = []
        self._slot_text: list[str | None] = []
        self._n_slots = 0
        self._doc_slot: dict[str, int] = {}
        self._total_len = 0
        self._acc = np.zeros(64)
        self._dmap: dict[int, np.ndarray] = {}  # term -> code per slot (0 = absent)
        self._scratch = np.zeros(0, dtype=np.int32)  # all zero between queries
        self._base_key: tuple[float, int] | None = None
        self._base = np.zeros(1)

    # -- introspection ----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._doc_slot)

    def __contains__(self, id: object) -> bool:
        return id in self._doc_slot

    def indexed_text(self, id: str) -> str | None:
        """The text ``id`` is indexed under (its old text while an edit is pending)."""
        slot = self._doc_slot.get(id)
        return None if slot is None else self._slot_text[slot]

    # -- mutation ---------------------------------------------------------------------------
    def upsert(self, id: str, text: str) -> None:
        if id in self._doc_slot:
            self.remove(id)
        num = id_num(id)
        toks = tokenize(text)
        dl = len(toks)
        slot = self._n_slots
        if slot == len(self._slot_num):
            self._slot_num = _grow(self._slot_num, slot + 1)
            self._acc = np.zeros(len(self._slot_num))
            for tid, dm in self._dmap.items():
                self._dmap[tid] = _grow(dm, len(self._slot_num))
        self._slot_num[slot] = num
        self._slot_id.append(id)
        self._slot_text.append(text)
        self._n_slots = slot + 1
        self._doc_slot[id] = slot
        self._total_len += dl
        if not dl:
            return
        counts: dict[str, int] = {}
        for t in toks:
            counts[t] = counts.get(t, 0) + 1
        vocab, code_of = self._vocab, self._code_of
        for term, tf in counts.items():
            tid = vocab.get(term)
            if tid is None:
                tid = vocab[term] = len(self._ps)
                self._ps.append(np.zeros(4, dtype=np.int64))
                self._pc.append(np.zeros(4, dtype=np.intp))
                self._pn.append(0)
                self._pdead.append(0)
                self._df.append(0)
                self._maxtf.append(tf)
                self._mindl.append(dl)
            code = code_of.get((tf, dl))
            if code is None:
                code = self._new_code(tf, dl)
            n = self._pn[tid]
            ps = self._ps[tid]
            if n == len(ps):
                ps = self._ps[tid] = _grow(ps, n + 1)
                self._pc[tid] = _grow(self._pc[tid], n + 1)
            ps[n] = slot
            self._pc[tid][n] = code
            dm = self._dmap.get(tid)
            if dm is not None:
                dm[slot] = code
            self._pn[tid] = n + 1
            self._df[tid] += 1
            if tf > self._maxtf[tid]:
                self._maxtf[tid] = tf
            if dl < self._mindl[tid]:
                self._mindl[tid] = dl

    def _new_code(self, tf: int, dl: int) -> int:
        code = self._n_codes
        if code == len(self._code_tf):
            self._code_tf = _grow(self._code_tf, code + 1)
            self._code_dl = _grow(self._code_dl, code + 1)
        self._code_tf[code] = tf
        self._code_dl[code] = dl
        self._code_of[(tf, dl)] = code
        self._n_codes = code + 1
        return code

    def remove(self, id: str) -> None:
        slot = self._doc_slot.pop(id, None)
        if slot is None:
            return
        toks = tokenize(self._slot_text[slot])  # type: ignore[arg-type]
        self._total_len -= len(toks)
        for term in set(toks):
            tid = self._vocab[term]
            n = self._pn[tid]
            ps = self._ps[tid]
            pos = int(np.searchsorted(ps[:n], slot))
            self._pc[tid][pos] = 0
            dm = self._dmap.get(tid)
            if dm is not None:
                dm[slot] = 0
            self._df[tid] -= 1
            dead = self._pdead[tid] = self._pdead[tid] + 1
            if dead * 2 > n and n >= 8:
                self._compact_term(tid)
        self._slot_id[slot] = None
        self._slot_text[slot] = None
        live = len(self._doc_slot)
        if self._n_slots - live > max(live, self.COMPACT_MIN):
            self._compact_slots()

    def _compact_term(self, tid: int) -> None:
        n = self._pn[tid]
        codes = self._pc[tid][:n]
        keep = codes != 0
        slots = self._ps[tid][:n][keep]
        codes = codes[keep]
        cap = max(4, 2 * len(slots))
        ps = np.zeros(cap, dtype=np.int64)
        pc = np.zeros(cap, dtype=np.intp)
        ps[: len(slots)] = slots
        pc[: len(codes)] = codes
        self._ps[tid], self._pc[tid] = ps, pc
        self._pn[tid] = len(slots)
        self._pdead[tid] = 0

    def _compact_slots(self) -> None:
        """Renumber live slots densely (order kept), dropping every tombstone."""
        n_old = self._n_slots
        alive = np.fromiter((i is not None for i in self._slot_id), dtype=bool, count=n_old)
        remap = np.cumsum(alive) - 1
        for tid in range(len(self._ps)):
            n = self._pn[tid]
            codes = self._pc[tid][:n]
            keep = codes != 0
            slots = remap[self._ps[tid][:n][keep]]
            codes = codes[keep]
            cap = max(4, 2 * len(slots))
            ps = np.zeros(cap, dtype=np.int64)
            pc = np.zeros(cap, dtype=np.intp)
            ps[: len(slots)] = slots
            pc[: len(codes)] = codes
            self._ps[tid], self._pc[tid] = ps, pc
            self._pn[tid] = len(slots)
            self._pdead[tid] = 0
        live_idx = np.flatnonzero(alive)
        nums = self._slot_num[live_idx]
        self._slot_num = np.zeros(max(64, 2 * len(nums)), dtype=np.int64)
        self._slot_num[: len(nums)] = nums
        self._acc = np.zeros(len(self._slot_num))
        self._dmap = {}  # rebuilt on demand
        self._slot_id = [self._slot_id[i] for i in live_idx.tolist()]
        self._slot_text = [self._slot_text[i] for i in live_idx.tolist()]
        self._n_slots = len(self._slot_id)
        self._doc_slot = {d: s for s, d in enumerate(self._slot_id)}  # type: ignore[misc]

    def refresh(self) -> None:
        """Nothing to do: every upsert and remove is applied at once."""

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_acc"] = len(self._acc)  # scratch space: reallocated, never pickled
        state["_scratch"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        # (an unpickled array can be a view of the pickle buffer; np.add.at into such a view
        # was measured ~40x slower, so the accumulator is always a fresh allocation)
        self._acc = np.zeros(state["_acc"])
        self._scratch = np.zeros(0, dtype=np.int32)

    def copy(self) -> "BM25Index":
        other = BM25Index.__new__(BM25Index)
        other.__dict__.update(self.__dict__)
        other._vocab = dict(self._vocab)
        other._ps = [a.copy() for a in self._ps]
        other._pc = [a.copy() for a in self._pc]
        for name in ("_pn", "_pdead", "_df", "_maxtf", "_mindl", "_slot_id", "_slot_text"):
            setattr(other, name, list(getattr(self, name)))
        other._code_of = dict(self._code_of)
        other._code_tf = self._code_tf.copy()
        other._code_dl = self._code_dl.copy()
        other._slot_num = self._slot_num.copy()
        other._doc_slot = dict(self._doc_slot)
        other._acc = np.zeros(len(self._acc))
        other._dmap = {t: a.copy() for t, a in self._dmap.items()}
        other._scratch = np.zeros(0, dtype=np.int32)
        return other

    # -- scoring ----------------------------------------------------------------------------
    def _base_table(self, avgdl: float) -> np.ndarray:
        """tf*(k1+1)/(tf + k1*(1 - b + b*dl/avgdl)) for every (tf, dl) code; 0 for code 0."""
        key = (avgdl, self._n_codes)
        if self._base_key != key:
            k1, b = self.k1, self.b
            tf = self._code_tf[: self._n_codes]
            dl = self._code_dl[: self._n_codes]
            base = tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
            base[0] = 0.0
            self._base, self._base_key = base, key
        return self._base

    def _bound(self, tid: int, idf: float, avgdl: float) -> float:
        k1, b = self.k1, self.b
        tf, dl = self._maxtf[tid], self._mindl[tid]
        return idf * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)))

    def query(self, text: str, k: int) -> list[tuple[str, float]]:
        n_docs = len(self._doc_slot)
        if k <= 0 or n_docs == 0 or self._total_len == 0:
            return []
        plan = []  # in sorted term order: (tid, idf, slots view, codes view)
        for term in sorted(set(tokenize(text))):
            tid = self._vocab.get(term)
            if tid is None:
                continue
            df = self._df[tid]
            if df <= 0:
                continue
            n = self._pn[tid]
            idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
            plan.append((tid, idf, self._ps[tid][:n], self._pc[tid][:n]))
        if not plan:
            return []
        avgdl = self._total_len / n_docs
        base = self._base_table(avgdl)
        T = len(plan)
        if T == 1:  # one term: its postings are the candidates
            _tid, idf, slots, codes = plan[0]
            sc = self._contrib(idf, base, codes)
            if self._pdead[plan[0][0]]:
                live = np.flatnonzero(sc > 0)
                return self._topk(slots[live], sc[live], k)
            return self._topk(slots, sc, k)
        # MaxScore: take the rarest terms as "essential" until the k-th best score among
        # their documents beats everything the other terms could give any other document
        by_len = sorted(range(T), key=lambda i: (len(plan[i][2]), i))
        bounds = [self._bound(plan[i][0], plan[i][1], avgdl) for i in range(T)]
        cum = 0
        for j in range(1, T + 1):
            cum += len(plan[by_len[j - 1]][2])
            if j > 1 and cum > max(self.SPARSE_MAX, self._n_slots // 4):
                break
            if j < T and cum < k:
                continue
            ess = set(by_len[:j])
            cand = self._union([plan[i][2] for i in sorted(ess)])
            sc = np.zeros(len(cand))
            for i, (tid, idf, slots, codes) in enumerate(plan):  # sorted term order
                if i in ess:  # every posting is a candidate
                    contrib = self._contrib(idf, base, codes)
                    if j == 1:
                        sc += contrib  # cand is this very list
                    else:
                        np.add.at(sc, np.searchsorted(cand, slots), contrib)
                else:
                    self._add_term(sc, cand, tid, idf, base, slots, codes)
            live = np.flatnonzero(sc > 0)
            if j == T:
                return self._topk(cand[live], sc[live], k)
            if len(live) >= k:
                s_live = sc[live]
                kth = np.partition(s_live, len(s_live) - k)[len(s_live) - k]
                if kth > sum(bounds[i] for i in by_len[j:]) * (1 + _MARGIN):
                    return self._topk(cand[live], s_live, k)
        return self._dense(plan, base, k)

    @staticmethod
    def _contrib(idf: float, base: np.ndarray, codes: np.ndarray) -> np.ndarray:
        if len(codes) > len(base):
            return np.take(idf * base, codes)
        return idf * np.take(base, codes)

    def _union(self, parts: list[np.ndarray]) -> np.ndarray:
        """Sorted distinct slots of several posting lists."""
        if len(parts) == 1:
            return parts[0]
        total = sum(len(p) for p in parts)
        if total * 16 < self._n_slots:
            return _union_sorted(parts)
        mark = np.zeros(self._n_slots, dtype=bool)
        for p in parts:
            mark[p] = True
        return np.flatnonzero(mark)

    def _add_term(self, sc, cand, tid, idf, base, slots, codes) -> None:
        """sc[i] += the term's weight in document cand[i], for every candidate holding it.

        Candidates without the term get + 0.0 or nothing, which leaves a float64 sum as it is.
        """
        dm = self._dmap.get(tid)
        if dm is None and len(slots) >= max(self.DMAP_MIN, self._n_slots // self.DMAP_FRACTION):
            dm = np.zeros(len(self._slot_num), dtype=np.int32)
            dm[slots] = codes
            self._dmap[tid] = dm
        if dm is not None:
            sc += np.take(idf * base, dm[cand])
        elif min(len(slots), len(cand)) > self.SCRATCH_MIN:  # a scratch map beats long searches
            scratch = self._scratch
            if len(scratch) < self._n_slots:
                scratch = self._scratch = np.zeros(len(self._slot_num), dtype=np.int32)
            scratch[slots] = codes
            sc += np.take(idf * base, scratch[cand])
            scratch[slots] = 0
        elif len(slots) < len(cand):  # look the shorter list up in the longer one
            pos = np.searchsorted(cand, slots)
            np.minimum(pos, len(cand) - 1, out=pos)
            found = np.flatnonzero(cand[pos] == slots)
            np.add.at(sc, pos[found], self._contrib(idf, base, codes[found]))
        else:
            pos = np.searchsorted(slots, cand)
            np.minimum(pos, len(slots) - 1, out=pos)
            hit = np.flatnonzero(slots[pos] == cand)
            np.add.at(sc, hit, self._contrib(idf, base, codes[pos[hit]]))

    def _dense(self, plan, base, k) -> list[tuple[str, float]]:
        acc = self._acc
        for _tid, idf, slots, codes in plan:
            np.add.at(acc, slots, self._contrib(idf, base, codes))
        view = acc[: self._n_slots]
        top = view.max()
        if top <= 0.0:
            res = []
        else:
            cand = np.flatnonzero(view == top)
            if len(cand) < k:
                cand = np.flatnonzero(view > 0.0)
            res = self._topk(cand, view[cand], k)
        view.fill(0.0)
        return res

    def _topk(self, cand: np.ndarray, sc: np.ndarray, k: int) -> list[tuple[str, float]]:
        """The best k of (slot, score) pairs: score descending, then numeric id ascending."""
        m = len(sc)
        if m > k:
            top = sc.max()
            eq = np.flatnonzero(sc == top)
            if len(eq) >= k:  # common with short, frequent terms: the top score alone fills k
                gt = eq[:0]
                need = k
            else:
                kth = np.partition(sc, m - k)[m - k]
                gt = np.flatnonzero(sc > kth)
                eq = np.flatnonzero(sc == kth)
                need = k - len(gt)
            if len(eq) > need:
                # the `need` smallest ids among the ties; slots run mostly in id order, so the
                # first `need` ties bound them and only a few others need a look
                nums = self._slot_num[cand[eq]]
                small = np.flatnonzero(nums <= nums[:need].max())
                if len(small) > need:
                    small = small[np.argpartition(nums[small], need - 1)[:need]]
                eq = eq[small]
            sel = np.concatenate((gt, eq))
            cand, sc = cand[sel], sc[sel]
        order = np.lexsort((self._slot_num[cand], -sc))
        ids = self._slot_id
        pairs = zip(cand[order].tolist(), sc[order].tolist())
        return [(ids[s], sv) for s, sv in pairs]  # type: ignore[misc]


def make_backend(name: str = "bm25") -> SearchBackend:
    """A fresh backend by name; only ``bm25`` ships with the core package."""
    if name == "bm25":
        return BM25Index()
    raise ValueError(f"unknown search backend {name!r}; expected 'bm25' or pass an instance")
