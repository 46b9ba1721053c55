"""Every ``ERROR: ...`` result (docs/protocol.md §8.3): an action the environment refused.
Each costs a step and changes nothing. The fixed strings are constants; the others are built
by the ``err_*`` functions. :func:`is_error` tells an error from any other result."""

from __future__ import annotations

PREFIX = "ERROR"


def is_error(result: str) -> bool:
    """Whether a result is an error (it starts with ``ERROR``)."""
    return result.startswith(PREFIX)


def error_message(result: str) -> str | None:
    """What an error result says after ``ERROR: ``; None for any other result."""
    if not is_error(result):
        return None
    return result[len(PREFIX):].lstrip(": ").rstrip()


# -- reading an action (§8.3 steps 1-4) ----------------------------------------------------------
ERR_NO_ACTION = "ERROR: no action was given"
ERR_BAD_INPUT = "ERROR: bad input: could not read an action"
ERR_TYPES_DISABLED = "ERROR: bad input: link types are disabled"
ERR_UNKNOWN_TYPE = "ERROR: bad input: type is not a known link type"


def err_unknown_action(name: str) -> str:
    return f"ERROR: unknown action {name}"


def err_not_available(name: str) -> str:
    return f"ERROR: {name} is not available in this phase"


def err_field_missing(field: str) -> str:
    return f"ERROR: bad input: {field} is missing"


def err_field_string(field: str) -> str:
    return f"ERROR: bad input: {field} must be a string"


def err_field_ids(field: str) -> str:
    return f"ERROR: bad input: {field} must be a list of note ids"


def err_field_integer(field: str) -> str:
    return f"ERROR: {field} must be an integer"


def err_field_terms(field: str) -> str:
    return f"ERROR: bad input: {field} must be a string or a list of strings"


def err_field_link_types(field: str) -> str:
    return f"ERROR: bad input: {field} must be a list of link types"


# -- input limits (§8.3) -------------------------------------------------------------------------
def err_too_deep(depth: int) -> str:
    return f"ERROR: bad input: nested deeper than {depth} levels"


def err_too_many_chars(limit: int) -> str:
    return f"ERROR: bad input: more than {limit} characters"


def err_too_many_values(limit: int) -> str:
    return f"ERROR: bad input: more than {limit} values"


def err_lone_surrogate(ch: str) -> str:
    return f"ERROR: bad input: lone surrogate U+{ord(ch):04X} is not valid Unicode"


ERR_LONG_INTEGER = "ERROR: bad input: an integer longer than 300 digits"

# -- meaning (§8.3 step 5) -----------------------------------------------------------------------
ERR_EMPTY_QUERY = "ERROR: query must not be empty"
ERR_PAGE_INTEGER = "ERROR: page must be an integer"
ERR_EMPTY_TEXT = "ERROR: note text must not be empty"
ERR_SELF_LINK = "ERROR: cannot link a note to itself"
ERR_SELF_MERGE = "ERROR: cannot merge a note into itself"
ERR_TARGETS_EMPTY = "ERROR: targets is empty"
ERR_EMPTY_TERMS = "ERROR: terms must not be empty"
ERR_HOPS_EDGE_TYPE = "ERROR: hops > 1 needs exactly one edge type"
ERR_HOPS_MIN = "ERROR: hops must be at least 1"
ERR_LINKS_PAGE_MIN = "ERROR: links_page must be at least 1"


def err_page_range(max_page: int = 12) -> str:
    return f"ERROR: page must be between 1 and {max_page}"


def err_no_such_note(node_id: str) -> str:
    return f"ERROR: no such note {node_id}"


def err_text_too_long(cap: int) -> str:
    return f"ERROR: note text is longer than {cap} characters"


def err_invisible_char(ch: str) -> str:
    return (f"ERROR: note text contains the control or invisible character U+{ord(ch):04X} - "
            "write plain text")


def err_too_many_targets(n: int, cap: int = 40) -> str:
    return (f"ERROR: targets has {n} ids, more than {cap} - link only the notes that actually "
            "belong, in several calls if needed")


def err_already_linked(source: str, target: str) -> str:
    return f"ERROR: {source} already links to {target}"


def err_not_linked(source: str, target: str) -> str:
    return f"ERROR: {source} does not link to {target}"


def err_links_page_none(node_id: str) -> str:
    return f"ERROR: links_page must be 1 - {node_id} has no links"


def err_links_page_range(node_id: str, pages: int, n: int) -> str:
    return f"ERROR: links_page must be between 1 and {pages} - {node_id} has {n} links"


def err_links_page_one(node_id: str) -> str:
    return f"ERROR: links_page must be 1 - {node_id} shows all its links at once"


# -- the episode ---------------------------------------------------------------------------------
EPISODE_OVER = "ERROR: episode is over - call reset()"


def err_internal(exc_name: str) -> str:
    return f"ERROR: internal error ({exc_name}) - the action was not applied"
