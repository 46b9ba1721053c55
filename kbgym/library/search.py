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
import re
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from bisect import bisect_right
from itertools import chain
from typing import Protocol, runtime_checkable

import numpy as np

from kbgym.library.layers import LayeredMap
from kbgym.protocol.ids import id_num
from kbgym.protocol.limits import MAX_PAGE, PAGE_SIZE
from kbgym.protocol.tokens import TOKEN_RE, tokenize


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


class _Chunks:
    """The strings of slots [0, n) as chunks that are never copied: a fold appends the tail
    as one more chunk (a numpy object array), so it costs the tail, not the 10^6 slots
    before it, and no collection walks the chunks it made (an ndarray is not tracked by
    the garbage collector; a list of 10^6 ids is walked by every collection it is in).
    A lookup bisects the chunks' starts."""

    __slots__ = ("chunks", "starts", "n")

    def __init__(self, chunks: list):
        self.chunks = chunks
        self.starts: list[int] = []
        n = 0
        for c in chunks:
            self.starts.append(n)
            n += len(c)
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> str:
        k = bisect_right(self.starts, i) - 1
        return self.chunks[k][i - self.starts[k]]

    def __iter__(self):
        return chain.from_iterable(self.chunks)

    @classmethod
    def join(cls, head: "Sequence[str] | np.ndarray | _Chunks", tail: list[str]) -> "_Chunks":
        """``head`` then ``tail``; only ``tail`` is copied."""
        chunks = head.chunks if isinstance(head, _Chunks) else [head]
        return cls([*chunks, np.array(tail, dtype=object)])

    @staticmethod
    def array(head: "Sequence[str] | np.ndarray | _Chunks", tail: list[str]) -> np.ndarray:
        """``head`` then ``tail`` in one numpy object array (a copy of every item)."""
        chunks = head.chunks if isinstance(head, _Chunks) else [head]
        return np.concatenate([np.array(c, dtype=object) for c in [*chunks, tail]])


class BM25Index:
    """The default lexical backend (SPEC §7): an incremental inverted index with BM25.

    ``upsert`` of an indexed id replaces its text. ``remove`` of an unknown id is a no-op.
    ``refresh`` has nothing to do (the library owns the iteration-refresh dirty set).
    :meth:`fork` is copy-on-write: the fork shares every posting list, slot table and
    statistic with this index and copies only what one of the two changes afterwards.

    Storage (why forks are cheap): a term's postings are a frozen *head* (shared with forks,
    never written) and a small owned *tail* of postings added since, folded into a new head
    once it outgrows 1/TAIL_FRACTION of the head; the per-slot tables (ids, texts, numeric
    ids) are split the same way; a removed document is marked in a per-index dead mask
    (copied on its first write after a fork) instead of being erased from shared postings,
    and queries drop dead documents before ranking (a document's score is its own sum, so
    this changes no other score).
    """

    name = "bm25"
    #: Every hit is a live note: the library removes a note from the index when it deletes it.
    live_only = True
    #: Beyond one posting list, candidate (MaxScore) rounds stop at this many postings, or at
    #: a quarter of all slots if that is more; the rest is scored densely.
    SPARSE_MAX = 24_576
    #: Dead document slots tolerated (beyond the live count) before slots are renumbered.
    COMPACT_MIN = 4096
    #: A term whose posting list is this long, and at least 1/DMAP_FRACTION of all slots, gets
    #: a slot -> code map of its head (4 bytes a slot, shared by the index and its forks) so
    #: candidate lookups are one gather instead of a binary search. (1.17 M notes: about 20
    #: terms qualify; 16 against 8 took the uncached query p50 from 246 to 197 µs.)
    DMAP_MIN = 32_768
    DMAP_FRACTION = 16
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
    #: A tail (of a term's postings, or of the slot tables) is folded into a new head once it
    #: is longer than TAIL_MIN and than 1/TAIL_FRACTION of the head: amortised TAIL_FRACTION
    #: copies per posting, and a fork's first write to a term copies at most that tail.
    TAIL_MIN = 256
    TAIL_FRACTION = 32
    #: Head + tail of a term are concatenated once and kept (until the tail grows) up to this
    #: many postings; longer ones are looked up part by part.
    CAT_CACHE_MAX = 1 << 18

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1 = float(k1)
        self.b = float(b)
        # terms: one entry per term id in each list (copied on the first write after a fork)
        self._vocab: dict[str, int] = {}
        self._hs: list[np.ndarray] = []  # head slots (int64, ascending; frozen)
        self._hc: list[np.ndarray] = []  # head codes (intp; frozen)
        self._ts: list[np.ndarray] = []  # tail slots (capacity-grown; written only if owned)
        self._tc: list[np.ndarray] = []  # tail codes
        self._tn: list[int] = []  # used length of each tail
        self._df: list[int] = []  # live documents holding the term
        self._pdead: list[int] = []  # postings of dead documents among the term's
        self._maxtf: list[int] = []  # bounds for MaxScore; never tightened on removal
        self._mindl: list[int] = []
        self._terms_owned = True
        self._town: set[int] = set()  # the term ids whose tails this index may write
        self._cat: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # tid -> head + tail
        # (tf, dl) codes; code 0 is never a posting's and always weighs 0.0
        self._code_of: dict[tuple[int, int], int] = {}
        self._code_tf = np.zeros(64)
        self._code_dl = np.zeros(64)
        self._n_codes = 1
        self._codes_owned = True
        # document slots; a re-indexed document gets a fresh slot, so postings stay sorted
        # head: ids, texts, numeric ids of slots [0, _nh); a fold makes the ids and texts
        # :class:`_Chunks` (a list of 10^6 ids copied at each fold and walked by every garbage
        # collection took 40-90 ms in the middle of a stream at 1.2M notes), a compaction
        # one numpy object array
        self._sid_h: Sequence[str] | np.ndarray | _Chunks = []
        self._stx_h: Sequence[str] | np.ndarray | _Chunks = []
        self._snum_h = np.zeros(0, dtype=np.int64)
        self._sid_t: list[str] = []  # tail: slots [_nh, _n_slots)
        self._stx_t: list[str] = []
        self._snum_t = np.zeros(64, dtype=np.int64)
        self._stail_owned = True
        self._nh = 0
        self._n_slots = 0
        self._dead = np.zeros(64, dtype=bool)  # removed (or re-indexed) documents' slots
        self._dead_owned = True
        self._n_dead = 0
        self._doc_slot = LayeredMap()  # id -> slot of its live document
        self._total_len = 0
        self._acc = np.zeros(0)
        # slot -> code maps of very common terms' heads, keyed by the head array's id and
        # shared by every fork (a head never changes, so its map serves all who hold it)
        self._dmaps: OrderedDict[int, tuple] = OrderedDict()
        self._scratch = np.zeros(0, dtype=np.int32)  # all zero between queries
        self._where = np.zeros(0, dtype=np.int32)  # likewise
        self._base_key: tuple[float, int] | None = None
        self._base = np.zeros(1)
        self._hdisp: tuple | None = None  # (head nums, displaced head slots), see _lowest
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

    def _text(self, slot: int) -> str:
        nh = self._nh
        return self._stx_h[slot] if slot < nh else self._stx_t[slot - nh]

    def indexed_text(self, id: str) -> str | None:
        """The text ``id`` is indexed under (its old text while an edit is pending)."""
        slot = self._doc_slot.get(id)
        return None if slot is None else self._text(slot)

    def _nums(self, slots: np.ndarray) -> np.ndarray:
        """The numeric ids of ``slots``."""
        nh = self._nh
        if self._n_slots == nh or (len(slots) and slots.max() < nh):
            return self._snum_h[slots]
        out = np.empty(len(slots), dtype=np.int64)
        head = slots < nh
        out[head] = self._snum_h[slots[head]]
        out[~head] = self._snum_t[slots[~head] - nh]
        return out

    def _ids(self, slots: list[int]) -> list[str]:
        nh, head, tail = self._nh, self._sid_h, self._sid_t
        if not tail:
            return [head[s] for s in slots]
        return [head[s] if s < nh else tail[s - nh] for s in slots]

    def _post(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        """A term's postings (slots ascending, codes), dead documents included."""
        n = self._tn[tid]
        if not n:
            return self._hs[tid], self._hc[tid]
        c = self._cat.get(tid)
        if c is None:
            c = (np.concatenate((self._hs[tid], self._ts[tid][:n])),
                 np.concatenate((self._hc[tid], self._tc[tid][:n])))
            if len(c[0]) <= self.CAT_CACHE_MAX:
                self._cat[tid] = c
        return c

    def _parts(self, tid: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """A term's postings as (slots, codes) pieces in slot order, without concatenating."""
        n = self._tn[tid]
        if not n:
            return [(self._hs[tid], self._hc[tid])]
        if tid in self._cat:
            return [self._cat[tid]]
        return [(self._hs[tid], self._hc[tid]), (self._ts[tid][:n], self._tc[tid][:n])]

    def _plen(self, tid: int) -> int:
        return len(self._hs[tid]) + self._tn[tid]

    def _live(self, cand: np.ndarray, sc: np.ndarray) -> np.ndarray:
        """Positions of the candidates with a score > 0 whose document is alive."""
        keep = sc > 0
        if self._n_dead:
            keep &= ~self._dead[cand]
        return np.flatnonzero(keep)

    # -- copy-on-write ----------------------------------------------------------------------
    def fork(self) -> "BM25Index":
        """An index with the same content that shares all of it with this one; whichever of
        the two changes something afterwards copies just that (O(1) now)."""
        other = BM25Index.__new__(BM25Index)
        other.__dict__.update(self.__dict__)
        for ix in (self, other):
            ix._terms_owned = ix._codes_owned = ix._stail_owned = ix._dead_owned = False
            ix._town = set()
        other._doc_slot = self._doc_slot.fork()
        other._cat = dict(self._cat)
        other._acc = np.zeros(0)
        other._scratch = np.zeros(0, dtype=np.int32)
        other._where = np.zeros(0, dtype=np.int32)
        other._term_cache = dict(self._term_cache)
        other._rank_cache = OrderedDict(self._rank_cache)
        return other

    copy = fork

    def _own_terms(self) -> None:
        if not self._terms_owned:
            self._vocab = dict(self._vocab)
            for name in ("_hs", "_hc", "_ts", "_tc", "_tn", "_df", "_pdead", "_maxtf", "_mindl"):
                setattr(self, name, list(getattr(self, name)))
            self._terms_owned = True

    # -- mutation ---------------------------------------------------------------------------
    def upsert(self, id: str, text: str) -> None:
        self._gen += 1  # N, avgdl and maybe slots change: every cached weight and ranking goes
        if self._doc_slot.get(id) is not None:
            self.remove(id)
        toks = tokenize(text)
        dl = len(toks)
        slot = self._new_slot(id, text, id_num(id))
        self._doc_slot.add_new(id, slot)
        self._total_len += dl
        if not dl:
            return
        counts: dict[str, int] = {}
        for t in toks:
            counts[t] = counts.get(t, 0) + 1
        self._own_terms()
        vocab, code_of = self._vocab, self._code_of
        df, maxtf, mindl = self._df, self._maxtf, self._mindl
        town, tn, tsl, tcl, hs, cat = self._town, self._tn, self._ts, self._tc, self._hs, self._cat
        tail_min, frac = self.TAIL_MIN, self.TAIL_FRACTION
        for term, tf in counts.items():
            tid = vocab.get(term)
            if tid is None:
                tid = vocab[term] = len(self._hs)
                self._hs.append(_EMPTY_SLOTS)
                self._hc.append(_EMPTY_CODES)
                self._ts.append(np.zeros(4, dtype=np.int64))
                self._tc.append(np.zeros(4, dtype=np.intp))
                self._tn.append(0)
                self._town.add(tid)
                df.append(0)
                self._pdead.append(0)
                maxtf.append(tf)
                mindl.append(dl)
            code = code_of.get((tf, dl))
            if code is None:
                code = self._new_code(tf, dl)
            # append (slot, code) to the term's tail (inlined: the hot path)
            n = tn[tid]
            if tid not in town:
                tsl[tid], tcl[tid] = tsl[tid].copy(), tcl[tid].copy()
                town.add(tid)
            ts = tsl[tid]
            if n == len(ts):
                ts = tsl[tid] = _grow(ts, n + 1)
                tcl[tid] = _grow(tcl[tid], n + 1)
            ts[n] = slot
            tcl[tid][n] = code
            tn[tid] = n + 1
            if cat:
                cat.pop(tid, None)
            if n >= tail_min and n + 1 > len(hs[tid]) // frac:
                self._fold_term(tid)
            df[tid] += 1
            if tf > maxtf[tid]:
                maxtf[tid] = tf
            if dl < mindl[tid]:
                mindl[tid] = dl

    def bulk_load(self, docs: Iterable[tuple[str, str]]) -> None:
        """Index many (id, text) documents into an empty index at once: the same index that
        upserting them one by one in this order makes (slots, postings, statistics), built
        with a handful of sorts over all tokens instead of per-document Python work."""
        if self._doc_slot or self._n_slots:
            raise ValueError("bulk_load needs an empty index")
        cols = tuple(zip(*docs))
        if not cols:
            return
        ids, texts = list(cols[0]), list(cols[1])
        del cols
        n = len(ids)
        self._gen += 1
        vocab, tids, dl = _bulk_token_ids(texts)  # (terms in first-occurrence order)
        V = len(vocab)
        doc = np.repeat(np.arange(n, dtype=np.int64), dl)
        pair, tf = np.unique(tids * n + doc, return_counts=True)  # sorted by (term, doc)
        p_tid, p_doc = pair // n, pair % n
        p_dl = dl[p_doc]
        width = int(dl.max()) + 1
        pkey = tf * width + p_dl
        top = int(pkey.max())
        if top < 8 * len(pkey) + (1 << 20):  # distinct (tf, dl) keys by a presence table
            present = np.zeros(top + 1, dtype=bool)
            present[pkey] = True
            key = np.flatnonzero(present)
            rank = np.cumsum(present) - 1
            code_inv = rank[pkey]
            del present, rank
        else:
            key, code_inv = np.unique(pkey, return_inverse=True)
        del pkey
        c_tf, c_dl = key // width, key % width
        self._code_tf = np.zeros(max(64, len(key) + 1))
        self._code_dl = np.zeros(max(64, len(key) + 1))
        self._code_tf[1: len(key) + 1] = c_tf
        self._code_dl[1: len(key) + 1] = c_dl
        self._n_codes = len(key) + 1
        self._code_of = {(int(a), int(b)): c + 1
                         for c, (a, b) in enumerate(zip(c_tf.tolist(), c_dl.tolist()))}
        codes = (code_inv.reshape(-1) + 1).astype(np.intp)
        counts = np.bincount(p_tid, minlength=V)
        off = np.concatenate(([0], np.cumsum(counts)))
        starts = off[:-1]
        o = off.tolist()
        self._vocab = vocab
        self._hs = [p_doc[o[t]: o[t + 1]] for t in range(V)]
        self._hc = [codes[o[t]: o[t + 1]] for t in range(V)]
        self._ts = [_NO_TAIL_S] * V  # shared until a term's first append (not owned: copied)
        self._tc = [_NO_TAIL_C] * V
        self._tn = [0] * V
        self._town = set()
        self._terms_owned = True
        self._df = counts.tolist()
        self._pdead = [0] * V
        self._maxtf = np.maximum.reduceat(tf, starts).tolist() if V else []
        self._mindl = np.minimum.reduceat(p_dl, starts).tolist() if V else []
        self._codes_owned = True
        self._sid_h, self._stx_h = ids, texts
        self._snum_h = _bulk_nums(ids)
        self._nh = self._n_slots = n
        self._dead = np.zeros(max(64, 2 * n), dtype=bool)
        self._dead_owned = True
        self._doc_slot = LayeredMap(dict(zip(ids, range(n))))
        if len(self._doc_slot) != n:
            raise ValueError("bulk_load got the same id twice")
        self._total_len = int(dl.sum())

    def _fold_term(self, tid: int) -> None:
        """The tail joins the head (a new frozen head; the old one may live on in forks)."""
        n = self._tn[tid]
        self._hs[tid] = np.concatenate((self._hs[tid], self._ts[tid][:n]))
        self._hc[tid] = np.concatenate((self._hc[tid], self._tc[tid][:n]))
        self._ts[tid] = np.zeros(4, dtype=np.int64)
        self._tc[tid] = np.zeros(4, dtype=np.intp)
        self._tn[tid] = 0
        self._town.add(tid)
        self._cat.pop(tid, None)

    def _new_slot(self, id: str, text: str, num: int) -> int:
        if not self._stail_owned:
            self._sid_t, self._stx_t = list(self._sid_t), list(self._stx_t)
            self._snum_t = self._snum_t.copy()
            self._stail_owned = True
        slot = self._n_slots
        t = slot - self._nh
        if t == len(self._snum_t):
            self._snum_t = _grow(self._snum_t, t + 1)
        self._snum_t[t] = num
        self._sid_t.append(id)
        self._stx_t.append(text)
        self._n_slots = slot + 1
        if slot >= len(self._dead):  # (slots beyond _n_slots are never marked, even shared)
            self._dead = _grow(self._dead, slot + 1)
            self._dead_owned = True
        if t + 1 > max(self.TAIL_MIN, self._nh // self.TAIL_FRACTION):
            self._fold_slots()
        return slot

    def _fold_slots(self) -> None:
        t = self._n_slots - self._nh
        self._sid_h = _Chunks.join(self._sid_h, self._sid_t)
        self._stx_h = _Chunks.join(self._stx_h, self._stx_t)
        self._snum_h = np.concatenate((self._snum_h, self._snum_t[:t]))
        self._sid_t, self._stx_t = [], []
        self._snum_t = np.zeros(64, dtype=np.int64)
        self._stail_owned = True
        self._nh = self._n_slots

    def _new_code(self, tf: int, dl: int) -> int:
        if not self._codes_owned:
            self._code_of = dict(self._code_of)
            self._code_tf, self._code_dl = self._code_tf.copy(), self._code_dl.copy()
            self._codes_owned = True
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
        toks = tokenize(self._text(slot))
        self._total_len -= len(toks)
        if not self._dead_owned:
            self._dead = self._dead.copy()
            self._dead_owned = True
        self._dead[slot] = True
        self._n_dead += 1
        self._own_terms()
        for term in set(toks):
            tid = self._vocab[term]
            self._df[tid] -= 1
            dead = self._pdead[tid] = self._pdead[tid] + 1
            n = self._plen(tid)
            if dead * 2 > n and n >= 8:
                self._compact_term(tid)
        live = len(self._doc_slot)
        if self._n_dead > max(live, self.COMPACT_MIN):
            self._compact_slots()

    def _compact_term(self, tid: int) -> None:
        slots, codes = self._post(tid)
        keep = ~self._dead[slots]
        self._hs[tid], self._hc[tid] = slots[keep], codes[keep]
        self._ts[tid] = np.zeros(4, dtype=np.int64)
        self._tc[tid] = np.zeros(4, dtype=np.intp)
        self._tn[tid] = 0
        self._town.add(tid)
        self._pdead[tid] = 0
        self._cat.pop(tid, None)

    def _compact_slots(self) -> None:
        """Renumber live slots densely (order kept), dropping every dead one."""
        self._own_terms()
        n_old = self._n_slots
        alive = ~self._dead[:n_old]
        remap = np.cumsum(alive) - 1
        for tid in range(len(self._hs)):
            slots, codes = self._post(tid)
            keep = alive[slots]
            self._hs[tid], self._hc[tid] = remap[slots[keep]], codes[keep]
            self._ts[tid] = np.zeros(4, dtype=np.int64)
            self._tc[tid] = np.zeros(4, dtype=np.intp)
            self._tn[tid] = 0
            self._pdead[tid] = 0
        self._town = set(range(len(self._hs)))
        live_idx = np.flatnonzero(alive)
        nums = np.concatenate((self._snum_h, self._snum_t[: n_old - self._nh]))[live_idx]
        self._sid_h = _Chunks.array(self._sid_h, self._sid_t)[live_idx]
        self._stx_h = _Chunks.array(self._stx_h, self._stx_t)[live_idx]
        self._snum_h = nums
        self._sid_t, self._stx_t = [], []
        self._snum_t = np.zeros(64, dtype=np.int64)
        self._stail_owned = True
        self._nh = self._n_slots = len(self._sid_h)
        self._dead = np.zeros(max(64, 2 * self._n_slots), dtype=bool)
        self._dead_owned = True
        self._n_dead = 0
        self._doc_slot = LayeredMap({d: s for s, d in enumerate(self._sid_h)})
        self._cat = {}

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
        slots = self._post(tids[0])[0]
        if self._n_dead:
            slots = slots[~self._dead[slots]]
        for tid in tids[1:]:
            if not len(slots):
                break
            slots = slots[self._codes_at(tid, slots) != 0]
        return slots

    def slot_ids(self, slots: np.ndarray) -> list[str]:
        return self._ids(slots.tolist())

    def slot_nums(self, slots: np.ndarray) -> np.ndarray:
        return self._nums(slots)

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
        state["_acc"] = None  # scratch space: reallocated, never pickled
        state["_scratch"] = None
        state["_where"] = None
        state["_term_cache"] = {}  # caches: rebuilt on demand
        state["_rank_cache"] = OrderedDict()
        state["_cat"] = {}
        state["_dmaps"] = OrderedDict()  # (weak references: rebuilt on demand)
        state["_hdisp"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._hdisp = None
        # (an unpickled array can be a view of the pickle buffer; np.add.at into such a view
        # was measured ~40x slower, so scratch arrays are always fresh allocations and tails
        # are copied before their first write)
        self._acc = np.zeros(0)
        self._scratch = np.zeros(0, dtype=np.int32)
        self._where = np.zeros(0, dtype=np.int32)
        self._cache_gen = self._gen
        self._terms_owned = self._codes_owned = self._stail_owned = self._dead_owned = False
        self._town = set()

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
            slots, codes = self._post(tid)
            if self._pdead[tid]:
                live = ~self._dead[slots]
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
        """The ``need`` slots of ``slots`` (fewer than all of them) with the lowest numeric ids."""
        return slots[self._lowest(slots, need)]

    def _head_displaced(self) -> np.ndarray:
        """The head slots whose numeric id is below some earlier head slot's (ascending).

        Every other head slot has a higher id than all head slots before it, so those run in
        strictly increasing id order. Computed once per head (a head never changes; forks
        share it, and the entry is keyed by the head array itself)."""
        ent = self._hdisp
        head = self._snum_h
        if ent is None or ent[0] is not head:
            if len(head) > 1:
                prev = np.maximum.accumulate(head)[:-1]
                disp = np.flatnonzero(head[1:] <= prev) + 1
            else:
                disp = np.zeros(0, dtype=np.intp)
            ent = self._hdisp = (head, disp)
        return ent[1]

    def _lowest(self, slots: np.ndarray, need: int) -> np.ndarray:
        """Positions in ``slots`` (distinct live slots, more than ``need``) of the ``need``
        lowest numeric ids.

        Slots run mostly in id order (a re-indexed document moves to the end, into the tail),
        so when ``slots`` ascend, the answer is among the first ``need`` head slots that are
        not displaced (see :meth:`_head_displaced`), the displaced ones and the tail's: only
        those ids are looked at, however many ties there are."""
        m = len(slots)
        if m > 4 * need + 64 and slots[0] <= slots[-1] \
                and not (slots[1:] < slots[:-1]).any():
            i = int(np.searchsorted(slots, self._nh))  # slots[:i] in the head
            disp = self._head_displaced()
            if len(disp) * 8 < i:
                dpos = np.searchsorted(slots[:i], disp)  # where each would stand
                ok = dpos < i
                dpos = dpos[ok]
                dpos = dpos[slots[dpos] == disp[ok]]  # the displaced among slots[:i]
                first = np.arange(min(i, need + len(dpos)))
                if len(dpos):
                    first = first[~np.isin(first, dpos)][:need]
                else:
                    first = first[:need]
                pick = np.concatenate((first, dpos, np.arange(i, m)))
                if len(pick) > need:
                    nums = self._nums(slots[pick])
                    pick = pick[np.argpartition(nums, need - 1)[:need]]
                return pick
        nums = self._nums(slots)
        small = np.flatnonzero(nums <= nums[:need].max())
        if len(small) > need:
            small = small[np.argpartition(nums[small], need - 1)[:need]]
        return small

    def _ranked(self, cand: np.ndarray, sc: np.ndarray, k: int) -> list[tuple[str, float]]:
        """:meth:`_topk`, with a plain sort when the candidates are few."""
        if len(cand) > max(2 * k, 64):
            return self._topk(cand, sc, k)
        order = np.lexsort((self._nums(cand), -sc))[:k]
        return list(zip(self._ids(cand[order].tolist()), sc[order].tolist()))

    # -- large indexes: MaxScore over the postings ------------------------------------------
    def _ranked_postings(self, plan, base, avgdl, k) -> list[tuple[str, float]]:
        """Top k straight from the posting lists, pruned by MaxScore (see the module doc)."""
        T = len(plan)
        if T == 1:  # one term: its postings are the candidates
            tid, idf = plan[0]
            slots, codes = self._post(tid)
            sc = self._contrib(idf, base, codes)
            if self._pdead[tid]:
                live = self._live(slots, sc)
                return self._topk(slots[live], sc[live], k)
            return self._topk(slots, sc, k)
        # MaxScore: take the rarest terms as "essential" until the k-th best score among
        # their documents beats everything the other terms could give any other document
        lens = [self._plen(tid) for tid, _ in plan]
        by_len = sorted(range(T), key=lambda i: (lens[i], i))
        bounds = [self._bound(tid, idf, avgdl) for tid, idf in plan]
        cum = 0
        for j in range(1, T + 1):
            cum += lens[by_len[j - 1]]
            if j > 1 and cum > max(self.SPARSE_MAX, self._n_slots // 4):
                break
            if j < T and cum < k:
                continue
            ess = set(by_len[:j])
            posts = {i: self._post(plan[i][0]) for i in ess}
            cand = self._union([posts[i][0] for i in sorted(ess)])
            where = None  # slot -> position in cand (+1), for the essential lists, if long
            if j > 1 and len(cand) > self.SCRATCH_MIN:
                where = self._where_map()
                where[cand] = np.arange(1, len(cand) + 1, dtype=np.int32)
            sc = np.zeros(len(cand))
            for i, (tid, idf) in enumerate(plan):  # sorted term order
                if i in ess:  # every posting is a candidate
                    slots, codes = posts[i]
                    contrib = self._contrib(idf, base, codes)
                    if j == 1:
                        sc += contrib  # cand is this very list
                    elif where is not None:  # (a list's slots are distinct: a plain +=)
                        sc[where[slots] - 1] += contrib
                    else:
                        sc[np.searchsorted(cand, slots)] += contrib
                else:
                    self._add_term(sc, cand, tid, idf, base)
            if where is not None:
                where[cand] = 0
            if self._n_dead or j > 1:
                live = self._live(cand, sc)
                cand, sc = cand[live], sc[live]
            # (else every candidate holds the one essential term, so scores > 0)
            if j == T:
                return self._topk(cand, sc, k)
            if len(cand) >= k:
                kth = np.partition(sc, len(sc) - k)[len(sc) - k]
                if kth > sum(bounds[i] for i in by_len[j:]) * (1 + _MARGIN):
                    return self._topk(cand, sc, k, kth)
        return self._dense(plan, base, k)

    def _where_map(self) -> np.ndarray:
        """A second int32 scratch array over all slots (all zero between uses)."""
        if len(self._where) < self._n_slots:
            self._where = np.zeros(max(64, 2 * self._n_slots), dtype=np.int32)
        return self._where

    def _scratch_map(self) -> np.ndarray:
        """The int32 scratch array over all slots (all zero between uses)."""
        if len(self._scratch) < self._n_slots:
            self._scratch = np.zeros(max(64, 2 * self._n_slots), dtype=np.int32)
        return self._scratch

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

    #: Head maps kept in the cache shared by an index and its forks (least recently used go).
    DMAP_CACHE = 32

    def _dmap_of(self, tid: int) -> tuple[int, np.ndarray] | None:
        """The slot -> code map of the term's head (slots [0, L), L = its last slot + 1), if
        the term is common enough to have one; its tail (slots >= L) is looked up apart."""
        n = self._plen(tid)
        if n < max(self.DMAP_MIN, self._n_slots // self.DMAP_FRACTION):
            return None
        hs = self._hs[tid]
        if not len(hs):
            return None
        cache = self._dmaps
        ent = cache.get(id(hs))
        if ent is None or ent[0]() is not hs:
            L = int(hs[-1]) + 1
            arr = np.zeros(L, dtype=np.int32)
            arr[hs] = self._hc[tid]
            ent = cache[id(hs)] = (weakref.ref(hs), L, arr)
            while len(cache) > self.DMAP_CACHE:
                cache.popitem(last=False)
        else:
            cache.move_to_end(id(hs))
        return ent[1], ent[2]

    def _codes_at(self, tid: int, cand: np.ndarray) -> np.ndarray:
        """The term's code at each (ascending) candidate slot, 0 where it has no posting."""
        dm = self._dmap_of(tid)
        if dm is not None:
            L, arr = dm
            if not len(cand) or cand[-1] < L:
                return arr[cand]
            out = arr[np.minimum(cand, L - 1)]
            i0 = int(np.searchsorted(cand, L))
            out[i0:] = 0
            n = self._tn[tid]  # every posting beyond the head is in the tail
            self._lookup_into(out, cand, [(self._ts[tid][:n], self._tc[tid][:n])], i0)
            return out
        out = np.zeros(len(cand), dtype=np.intp)
        self._lookup_into(out, cand, self._parts(tid), 0)
        return out

    @staticmethod
    def _lookup_into(out: np.ndarray, cand: np.ndarray, parts, i0: int) -> None:
        """out[i] = the code of the posting at slot cand[i] (i >= i0), for postings in parts."""
        for slots, codes in parts:
            if not len(slots):
                continue
            if len(slots) < len(cand) - i0:  # look the shorter list up in the longer one
                pos = np.searchsorted(cand, slots)
                np.minimum(pos, len(cand) - 1, out=pos)
                found = np.flatnonzero(cand[pos] == slots)
                out[pos[found]] = codes[found]
            else:
                sub = cand[i0:]
                pos = np.searchsorted(slots, sub)
                np.minimum(pos, len(slots) - 1, out=pos)
                hit = np.flatnonzero(slots[pos] == sub)
                out[i0 + hit] = codes[pos[hit]]

    def _add_term(self, sc, cand, tid, idf, base) -> None:
        """sc[i] += the term's weight in document cand[i], for every candidate holding it.

        Candidates without the term get + 0.0 or nothing, which leaves a float64 sum as it is.
        """
        if self._dmap_of(tid) is None and min(self._plen(tid), len(cand)) > self.SCRATCH_MIN:
            scratch = self._scratch_map()  # a scratch map beats long searches
            parts = self._parts(tid)
            for slots, codes in parts:
                scratch[slots] = codes
            sc += np.take(idf * base, scratch[cand])
            for slots, _ in parts:
                scratch[slots] = 0
            return
        sc += np.take(idf * base, self._codes_at(tid, cand))

    def _dense(self, plan, base, k) -> list[tuple[str, float]]:
        if len(self._acc) < self._n_slots:
            self._acc = np.zeros(max(64, 2 * self._n_slots))
        acc = self._acc
        for tid, idf in plan:
            for slots, codes in self._parts(tid):  # (a part's slots are distinct)
                acc[slots] += self._contrib(idf, base, codes)
        view = acc[: self._n_slots]
        if self._n_dead:
            view[self._dead[: self._n_slots]] = 0.0
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

    def _topk(self, cand: np.ndarray, sc: np.ndarray, k: int,
              kth: float | None = None) -> list[tuple[str, float]]:
        """The best k of (slot, score) pairs: score descending, then numeric id ascending
        (``kth``: the k-th best score, if the caller has it already)."""
        m = len(sc)
        if m > k:
            top = sc.max()
            eq = np.flatnonzero(sc == top) if kth is None or kth == top else None
            if eq is not None and len(eq) >= k:  # common with short, frequent terms: the top
                gt = eq[:0]                        # score alone fills k
                need = k
            else:
                if kth is None:
                    kth = np.partition(sc, m - k)[m - k]
                gt = np.flatnonzero(sc > kth)
                eq = np.flatnonzero(sc == kth)
                need = k - len(gt)
            if len(eq) > need:  # the `need` smallest ids among the ties
                eq = eq[self._lowest(cand[eq], need)]
            sel = np.concatenate((gt, eq))
            cand, sc = cand[sel], sc[sel]
        order = np.lexsort((self._nums(cand), -sc))
        return list(zip(self._ids(cand[order].tolist()), sc[order].tolist()))


#: ASCII text -> tokens by str.translate + split: letters and digits kept, every other
#: character but NUL (the document separator, a token of its own) a space.
_ASCII_SPLIT = str.maketrans({chr(c): " " for c in range(1, 128) if not chr(c).isalnum()})


def _bulk_token_ids(texts: list[str]) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """(vocabulary in first-occurrence order, the term id of every token of every text in
    order, each text's token count): ``tokenize`` of each text, done for all texts at once.
    The texts are joined by NUL, casefolded and split together: for ASCII by
    ``str.translate`` and ``split`` (what ``[^\\W_]+`` matches in ASCII: letters and
    digits), else by one ``findall``; NUL matches neither and marks where a text ends."""
    n = len(texts)
    joined = " \x00 ".join(texts)
    if joined.count("\x00") != n - 1:  # a text holds NUL itself: one at a time
        toks = [TOKEN_RE.findall(t.casefold()) for t in texts]
        flat = list(chain.from_iterable(toks))
        vocab = {w: i for i, w in enumerate(dict.fromkeys(flat))}
        return (vocab, np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64,
                                   count=len(flat)),
                np.fromiter(map(len, toks), dtype=np.int64, count=n))
    joined = joined.casefold()  # (casefolding is per character: the same as text by text)
    if joined.isascii():
        flat = joined.translate(_ASCII_SPLIT).split()
    else:
        flat = _TOKEN_OR_NUL.findall(joined)
    del joined
    keys = dict.fromkeys(flat)
    keys.pop("\x00", None)
    vocab = {w: i for i, w in enumerate(keys)}
    V = len(vocab)
    ids = dict(vocab)
    ids["\x00"] = V
    tids = np.fromiter(map(ids.__getitem__, flat), dtype=np.int64, count=len(flat))
    del flat
    mark = tids == V
    marks = np.flatnonzero(mark)
    dl = np.diff(np.concatenate(([-1], marks, [len(tids)]))) - 1
    if len(marks):
        tids = tids[~mark]
    return vocab, tids, dl.astype(np.int64)


_TOKEN_OR_NUL = re.compile(TOKEN_RE.pattern + "|\x00")


def _bulk_nums(ids: list[str]) -> np.ndarray:
    """``id_num`` of every id; ids of the usual form (``s`` and ASCII digits) parsed at once."""
    n = len(ids)
    joined = "\x00".join(ids)
    if joined[:1] == "s" and joined.count("\x00s") == n - 1 and joined.isascii():
        digits = joined[1:].replace("\x00s", " ")
        if digits.replace(" ", "").isdigit() and "  " not in digits and digits[-1:] != " " \
                and digits[:1] != " ":
            out = np.fromstring(digits, dtype=np.int64, sep=" ")
            if len(out) == n:
                return out
    return np.fromiter(map(id_num, ids), dtype=np.int64, count=n)


_EMPTY_SLOTS = np.zeros(0, dtype=np.int64)
_NO_TAIL_S = np.zeros(4, dtype=np.int64)  # the empty tail bulk-loaded terms share (read-only)
_NO_TAIL_C = np.zeros(4, dtype=np.intp)
_NO_TAIL_S.flags.writeable = _NO_TAIL_C.flags.writeable = False
_EMPTY_CODES = np.zeros(0, dtype=np.intp)


def make_backend(name: str = "bm25") -> SearchBackend:
    """A fresh backend by name; only ``bm25`` ships with the core package."""
    if name == "bm25":
        return BM25Index()
    raise ValueError(f"unknown search backend {name!r}; expected 'bm25' or pass an instance")
