"""The KBGym error hierarchy. Messages are one line and say how to fix the problem.

Errors here are for API misuse and bad files. An agent's bad action is never an exception:
it becomes an ``ERROR: ...`` result string inside the environment.
"""

from __future__ import annotations


class KBGymError(Exception):
    """Base class of every error KBGym raises on purpose."""


class ConfigError(KBGymError, ValueError):
    """A configuration value or file is invalid."""


class LibraryFrozenError(KBGymError):
    """A mutation was attempted on a frozen library."""


class LibraryOpError(KBGymError):
    """A library operation was refused; ``str(err)`` is the SPEC §8 result string."""


class SnapshotIntegrityError(KBGymError):
    """A snapshot's content hash does not match its contents, or its shape is wrong."""


class ReplayMismatchError(KBGymError):
    """A replayed action produced a result different from the recorded one."""

    def __init__(self, row: dict, expected: str, got: str):
        self.row, self.expected, self.got = row, expected, got
        super().__init__(
            f"replay mismatch at {row.get('qid')} step {row.get('step')}: "
            f"expected {expected!r}, got {got!r}"
        )


class ResetNeeded(KBGymError):
    """``step`` was called before the first ``reset``."""


def first_error(err, where: str = "") -> str:
    """One line from a pydantic ``ValidationError``: where, what was wrong, what was given."""
    e = err.errors()[0]
    inner = (e.get("ctx") or {}).get("error")
    if isinstance(inner, ConfigError):  # a nested model already said it in one line
        return f"{where}: {inner}" if where else str(inner)
    # a union's member names ("list[str]", "str") are not fields: answers.0, not answers.list[str].0
    field = ".".join(str(p) for p in e["loc"] if not (isinstance(p, str) and (
        "[" in p or p in ("str", "int", "float", "bool", "list", "dict", "none"))))
    parts = [p for p in (where, field) if p]
    prefix = ": ".join(parts) + ": " if parts else ""
    if e["type"] == "extra_forbidden":
        return f"{prefix}unknown key"
    ctx = e.get("ctx") or {}
    msg = {"greater_than_equal": f"must be at least {ctx.get('ge')}",
           "less_than_equal": f"must be at most {ctx.get('le')}",
           "greater_than": f"must be above {ctx.get('gt')}",
           "less_than": f"must be below {ctx.get('lt')}"}.get(
        e["type"], e["msg"].removeprefix("Value error, "))
    return f"{prefix}{msg}" + (f" (got {e['input']!r})" if field else "")
