"""The library (SPEC §6, §7, §15.2): the note graph with hidden provenance, search backends,
the dedup guard, statistics, snapshots, and the result strings of the reader/curator tools."""

from kbgym.library.apply import (
    EDIT_ACTIONS,
    apply_edit,
    format_link_many,
    is_replayable,
    read_result,
    replay_edit,
    replay_row,
    search_result,
)
from kbgym.library.dedup import DedupGuard, token_cosine
from kbgym.library.graph import (
    LINK_TYPES,
    AddOutcome,
    EditOutcome,
    Library,
    LinkManyOutcome,
    Node,
    format_id,
    id_num,
    normalize_text,
)
from kbgym.library.search import BM25Index, SearchBackend, make_backend
from kbgym.protocol.tokens import tokenize
from kbgym.library.snapshot import load_snapshot, snapshot_hash, write_snapshot
from kbgym.library.stats import (
    index_coverage,
    index_coverage_2hop,
    question_index_coverage,
    recompute_stats,
)

__all__ = [
    "EDIT_ACTIONS", "LINK_TYPES", "AddOutcome", "BM25Index", "DedupGuard", "EditOutcome",
    "Library", "LinkManyOutcome", "Node", "SearchBackend", "apply_edit", "format_id",
    "format_link_many", "id_num", "index_coverage", "index_coverage_2hop",
    "is_replayable", "load_snapshot", "make_backend", "normalize_text", "question_index_coverage",
    "read_result", "recompute_stats", "replay_edit", "replay_row", "search_result",
    "snapshot_hash", "tokenize", "token_cosine", "write_snapshot",
]
