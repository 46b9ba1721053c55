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

Up to ``DENSE_MAX_SLOTS`` (64k) document slots a query is scored densely instead, since there
numpy's per-call overhead, not the postings, is the cost (the default universe, ~6k notes: about
0.02-0.03 ms a query, against ~0.09 ms through MaxScore):

- each term's weights are computed once per *generation* (a counter bumped by every upsert and
  every effective remove, so anything depending on N, df, avgdl or slots is rebuilt after a
  change) and cached, as a full slot -> weight vector for common terms, else (slots, weights);
- a query adds them into one score per slot in sorted term order, takes the k-th best score of
  the rarest term's documents as a floor (at most the true k-th best), and ranks only the
  documents scoring at least that.

At every size, finished rankings are cached per generation, keyed by the sorted distinct query
terms (an LRU of ``RANK_CACHE``): the top k of a ranking is a prefix of any longer one, so a
cached top 10 answers pages 1 and 2, and repeating a query while the library is unchanged (a
forward phase, a probe exam) costs a dict lookup. The library never changes the index behind
the backend's back (iteration refresh only delays its upserts), so results never go stale.

Every path adds the same float64 terms in the same (sorted term) order, adding 0.0 where a
document lacks a term, so scores are bit-identical to the formula above.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import numpy as np

from kbgym.protocol.ids import id_num
from kbgym.protocol.limits import MAX_PAGE, PAGE_SIZE
from kbgym.protocol.tokens import tokenize



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
    #: Indexes with at most this many document slots are scored densely from cached per-term
    #: weights (:meth:`_ranked_dense`); larger ones go through MaxScore (:meth:`_ranked_postings`).
    #: (Measured on generated universes: dense wins at p50 up to ~70k slots, and at p95 beyond.)
    DENSE_MAX_SLOTS = 65_536
    #: In the dense path, a term on at least 1/DENSE_TERM_FRACTION of all slots is cached as a
    #: full slot -> weight vector (one vector add per query), rarer ones as (slots, weights).
    #: At most DENSE_TERM_FRACTION * avgdl terms qualify, so the vectors stay within
    #: 8 * DENSE_TERM_FRACTION * (total tokens) bytes.
    DENSE_TERM_FRACTION = 8
    #: Per-term weights cached for the current generation (dense path), at most this many.
    TERM_CACHE = 4096
    #: Rankings cached for the current generation, least recently used dropped first; 0 = off.
    RANK_CACHE = 256
    #: The dense path ranks 2k hits when asked for k, up to this many (the last page), so that
    #: paging on through a query mostly hits the cache: page 1 ranks 10, page 3 ranks 30 and
    #: page 7 ranks 60, and the pages between are free. Ranking 2k instead of k costs a few
    #: percent; ranking 60 for every first page would cost ~20-30% more.
    RANK_PREFETCH = MAX_PAGE * PAGE_SIZE

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
        # caches valid for one generation; _gen changes on every upsert and effective remove
        self._gen = 0
        self._cache_gen = 0
        self._term_cache: dict[int, tuple[np.ndarray, np.ndarray | None]] = {}
        # sorted distinct query terms -> (k ranked for, top-k ranking), least recently used first
        self._rank_cache: OrderedDict[tuple[str, ...], tuple[int, list]] = OrderedDict()

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
        self._gen += 1  # N, avgdl and maybe slots change: every cached weight and ranking goes
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
            known = vocab.get(term)
            if known is None:
                tid = vocab[term] = len(self._ps)
                self._ps.append(np.zeros(4, dtype=np.int64))
                self._pc.append(np.zeros(4, dtype=np.intp))
                self._pn.append(0)
                self._pdead.append(0)
                self._df.append(0)
                self._maxtf.append(tf)
                self._mindl.append(dl)
            else:
                tid = known
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
            codes = self._dmap.get(tid)
            if codes is not None:
                codes[slot] = code
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
        self._gen += 1
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

    def slots_containing(self, terms: Iterable[str]) -> np.ndarray:
        """Slots (ascending) of the indexed documents whose indexed text holds every term.

        An intersection of the terms' live postings, rarest list first, each further term
        looked up by binary search in its sorted posting list (``locate``, SPEC §18)."""
        tids = []
        for term in set(terms):
            tid = self._vocab.get(term)
            if tid is None or self._df[tid] <= 0:
                return np.zeros(0, dtype=np.int64)
            tids.append(tid)
        if not tids:
            raise ValueError("slots_containing needs at least one term")
        tids.sort(key=lambda t: self._df[t])
        n = self._pn[tids[0]]
        slots = self._ps[tids[0]][:n]
        if self._pdead[tids[0]]:
            slots = slots[self._pc[tids[0]][:n] != 0]
        for tid in tids[1:]:
            if not len(slots):
                break
            n = self._pn[tid]
            ps, pc = self._ps[tid][:n], self._pc[tid][:n]
            dm = self._dmap.get(tid)
            if dm is None and n >= max(self.DMAP_MIN, self._n_slots // self.DMAP_FRACTION):
                dm = np.zeros(len(self._slot_num), dtype=np.int32)  # as MaxScore builds it
                dm[ps] = pc
                self._dmap[tid] = dm
            if dm is not None:  # a very common term: one gather from its slot -> code map
                slots = slots[dm[slots] != 0]
                continue
            pos = np.searchsorted(ps, slots)
            np.minimum(pos, n - 1, out=pos)
            slots = slots[(ps[pos] == slots) & (pc[pos] != 0)]
        return slots

    def slot_ids(self, slots: np.ndarray) -> list[str]:
        ids = self._slot_id
        return [ids[s] for s in slots.tolist()]

    def slot_nums(self, slots: np.ndarray) -> np.ndarray:
        return self._slot_num[slots]

    def slot_of(self, id: str) -> int | None:
        return self._doc_slot.get(id)

    def refresh(self) -> None:
        """Nothing to do: every upsert and remove is applied at once."""

    def clear_cache(self) -> None:
        """Drop the cached term weights and rankings (never needed for correctness: they are
        dropped on every upsert and remove anyway; for benchmarks and memory)."""
        self._term_cache.clear()
        self._rank_cache.clear()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_acc"] = len(self._acc)  # scratch space: reallocated, never pickled
        state["_scratch"] = None
        state["_term_cache"] = {}  # caches: rebuilt on demand
        state["_rank_cache"] = OrderedDict()
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        # (an unpickled array can be a view of the pickle buffer; np.add.at into such a view
        # was measured ~40x slower, so the accumulator is always a fresh allocation)
        self._acc = np.zeros(state["_acc"])
        self._scratch = np.zeros(0, dtype=np.int32)
        self._gen = state.get("_gen", 0)  # (pickles from before the caches lack these)
        self._cache_gen = self._gen
        self._term_cache = {}
        self._rank_cache = OrderedDict()

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
        other._term_cache = {}
        other._rank_cache = OrderedDict()
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
        terms = tuple(sorted(set(tokenize(text))))
        if self._cache_gen != self._gen:  # the index changed since the caches were filled
            self.clear_cache()
            self._cache_gen = self._gen
        # The ranking depends only on the distinct terms and the index, and the top k of a
        # ranking is a prefix of its top k' for k' > k (the order is total), so a cached
        # ranking answers any k it covers: k <= its k', or all it has if that is fewer than k'.
        cache = self._rank_cache
        hit = cache.get(terms)
        if hit is not None:
            cache.move_to_end(terms)  # now the most recently used
            if k <= hit[0] or len(hit[1]) < hit[0]:
                return hit[1][:k]
        plan = []  # in sorted term order: (tid, idf)
        for term in terms:
            tid = self._vocab.get(term)
            if tid is None:
                continue
            df = self._df[tid]
            if df <= 0:
                continue
            plan.append((tid, math.log(1 + (n_docs - df + 0.5) / (df + 0.5))))
        if not plan:
            return []
        avgdl = self._total_len / n_docs
        base = self._base_table(avgdl)
        if self._n_slots <= self.DENSE_MAX_SLOTS:
            kk = max(k, min(2 * k, self.RANK_PREFETCH)) if self.RANK_CACHE > 0 else k
            res = self._ranked_dense(plan, base, kk)
        else:
            kk = k
            res = self._ranked_postings(plan, base, avgdl, k)
        if self.RANK_CACHE > 0:
            cache[terms] = (kk, res)
            if len(cache) > self.RANK_CACHE:
                cache.popitem(last=False)  # the least recently used
            return res[:k]
        return res

    # -- small indexes: dense scoring from cached term weights ------------------------------
    def _term_weights(self, tid: int, idf: float, base: np.ndarray):
        """A term's weights for this generation: ``(vec, None)`` with vec[slot] the weight
        (0.0 where absent) for a common term, else ``(slots, weights)`` over its live postings.
        Cached until the next upsert or remove."""
        entry = self._term_cache.get(tid)
        if entry is None:
            n = self._pn[tid]
            slots, codes = self._ps[tid][:n], self._pc[tid][:n]
            if self._pdead[tid]:
                live = codes != 0
                slots, codes = slots[live], codes[live]
            w = self._contrib(idf, base, codes)
            if len(slots) * self.DENSE_TERM_FRACTION >= self._n_slots:
                vec = np.zeros(self._n_slots)
                vec[slots] = w
                entry = (vec, None)
            else:
                entry = (slots, w)
            if len(self._term_cache) >= self.TERM_CACHE:
                self._term_cache.clear()
            self._term_cache[tid] = entry
        return entry

    def _ranked_dense(self, plan, base, k) -> list[tuple[str, float]]:
        """Top k by summing every term's weights into one score per slot.

        ``acc`` starts at 0.0 and gets each term in sorted order: a dense add (+ 0.0 where the
        document lacks the term) or an add at the term's slots (each once per list), so every
        score is the §7 sum bit for bit. Every step is one numpy call over at most all slots,
        so a query costs a few dozen calls however common its terms are.
        """
        if len(plan) == 1:
            vec, w = self._term_weights(plan[0][0], plan[0][1], base)
            if w is not None:  # one rare term: its live postings are the hits
                return self._ranked(vec, w, k)
        acc = np.zeros(self._n_slots)
        pool = None  # the rarest term's slots (all score > 0), if it has at least k of them
        for tid, idf in plan:
            vec, w = self._term_weights(tid, idf, base)
            if w is None:
                acc += vec
            else:
                acc[vec] += w
                if len(vec) >= k and (pool is None or len(vec) < len(pool)):
                    pool = vec
        # Candidates: scores >= a floor that is at most the k-th best score, namely the k-th
        # best among the pool's documents (k documents score at least that much); without a
        # pool, every score > 0. (Partitions run on negated scores: np.partition was measured ~8x
        # slower on a mostly-zero array with kth near its end than with kth near its start.)
        if pool is not None:
            floor = -np.partition(-acc[pool], k - 1)[k - 1]
            cand = np.flatnonzero(acc >= floor)
        else:
            cand = np.flatnonzero(acc > 0.0)
        sc = acc[cand]
        if len(cand) > k:  # keep scores above the k-th best, then ties at it by lowest id
            kth = -np.partition(-sc, k - 1)[k - 1]
            above = cand[sc > kth]
            tie = cand[sc == kth]
            if len(above) + len(tie) > k:
                tie = self._lowest_ids(tie, k - len(above))
            cand = np.concatenate((above, tie))
            sc = acc[cand]
        return self._ranked(cand, sc, k)

    def _lowest_ids(self, slots: np.ndarray, need: int) -> np.ndarray:
        """The ``need`` slots of ``slots`` (fewer than all of them) with the lowest numeric ids.

        Slots run mostly in id order (only a re-indexed document moves to the end), so the first
        ``need`` bound the answer and usually are it."""
        nums = self._slot_num[slots]
        small = np.flatnonzero(nums <= nums[:need].max())
        if len(small) > need:
            small = small[np.argpartition(nums[small], need - 1)[:need]]
        return slots[small]

    def _ranked(self, cand: np.ndarray, sc: np.ndarray, k: int) -> list[tuple[str, float]]:
        """:meth:`_topk`, with a plain sort when the candidates are few."""
        if len(cand) > max(2 * k, 64):
            return self._topk(cand, sc, k)
        order = np.lexsort((self._slot_num[cand], -sc))[:k]
        ids = self._slot_id
        pairs = zip(cand[order].tolist(), sc[order].tolist())
        return [(ids[s], sv) for s, sv in pairs]

    # -- large indexes: MaxScore over the postings ------------------------------------------
    def _ranked_postings(self, plan, base, avgdl, k) -> list[tuple[str, float]]:
        """Top k straight from the posting lists, pruned by MaxScore (see the module doc)."""
        plan = [(tid, idf, self._ps[tid][: self._pn[tid]], self._pc[tid][: self._pn[tid]])
                for tid, idf in plan]  # fmt: skip
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
        return [(ids[s], sv) for s, sv in pairs]


def make_backend(name: str = "bm25") -> SearchBackend:
    """A fresh backend by name; only ``bm25`` ships with the core package."""
    if name == "bm25":
        return BM25Index()
    raise ValueError(f"unknown search backend {name!r}; expected 'bm25' or pass an instance")
