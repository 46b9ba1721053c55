"""Limits on what an agent may send, checked before an action is parsed (SPEC §8.3 step 2).

``env.step`` accepts any Python object. Before anything is parsed, counted or changed,
:func:`check_input` walks the input once and refuses, with a one-line ``ERROR: bad input: ...``
result, what could otherwise raise or grow without bound further on:

- nesting deeper than :data:`MAX_DEPTH` containers (JSON strings are decoded and counted too);
- more than :data:`MAX_INPUT_CHARS` characters in all its strings together, or more than
  :data:`MAX_ITEMS` values;
- a lone surrogate (what ``json.loads`` makes of an escaped ``"\\ud800"``): not valid Unicode;
- an integer longer than 300 digits (``10**5000`` cannot even be printed);
- an object that is not plain data and whose ``repr`` raises.

NaN and infinities pass: the field checks answer them (``page``/``hops`` must be integers) and
``info`` shows given arguments that are not strict JSON as their repr. Actions, tool-call objects
and plain data pass through unchanged; the check never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

MAX_DEPTH = 32
MAX_INPUT_CHARS = 65_536
MAX_ITEMS = 10_000

_SURROGATE = re.compile("[\ud800-\udfff]")
_SCALARS = (bool, int, type(None))


class _Refuse(Exception):
    def __init__(self, error: str):
        super().__init__(error)
        self.error = error


class _Walk:
    def __init__(self) -> None:
        self.chars = 0
        self.items = 0

    def text(self, s: str, depth: int, decode: bool) -> None:
        self.chars += len(s)
        if self.chars > MAX_INPUT_CHARS:
            raise _Refuse(f"ERROR: bad input: more than {MAX_INPUT_CHARS} characters")
        m = _SURROGATE.search(s)
        if m:
            raise _Refuse(f"ERROR: bad input: lone surrogate U+{ord(m.group()):04X} is not "
                          "valid Unicode")
        if decode and s.lstrip()[:1] in ("{", "["):
            try:
                decoded = json.loads(s)
            except RecursionError:
                raise _Refuse(f"ERROR: bad input: nested deeper than {MAX_DEPTH} levels") \
                    from None
            except ValueError:
                return  # not JSON: the parser answers it
            self.chars -= len(s)  # counted again as decoded values
            self.value(decoded, depth, decode=False)

    def value(self, v: Any, depth: int, decode: bool = False) -> None:
        self.items += 1
        if self.items > MAX_ITEMS:
            raise _Refuse(f"ERROR: bad input: more than {MAX_ITEMS} values")
        if depth > MAX_DEPTH:
            raise _Refuse(f"ERROR: bad input: nested deeper than {MAX_DEPTH} levels")
        if isinstance(v, str):
            self.text(v, depth, decode)
        elif isinstance(v, (bytes, bytearray)):
            if len(v) > MAX_INPUT_CHARS:
                raise _Refuse(f"ERROR: bad input: more than {MAX_INPUT_CHARS} characters")
            try:
                s = bytes(v).decode("utf-8")
            except UnicodeDecodeError:
                return  # the parser answers it (could not read an action)
            self.text(s, depth, decode)
        elif isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 996:
            # about 10**300: 10**5000 has no repr in Python (and no place in a JSON log)
            raise _Refuse("ERROR: bad input: an integer longer than 300 digits")
        elif isinstance(v, (*_SCALARS, float)):
            pass  # NaN/Infinity get the field's own error (SPEC §8.3), never reach info
        elif isinstance(v, Mapping):
            try:
                items = list(v.items())
            except Exception:
                raise _Refuse("ERROR: bad input: could not read an action") from None
            for k, x in items:
                self.value(k, depth + 1)
                self.value(x, depth + 1, decode=(k == "arguments") or (k == "function"))
        elif isinstance(v, (list, tuple)):
            for x in v:
                self.value(x, depth + 1)
        else:
            self.other(v, depth)

    def other(self, v: Any, depth: int) -> None:
        from pydantic import BaseModel

        if isinstance(v, BaseModel):  # an Action: its fields are plain data
            self.value(dict(v), depth + 1)
            return
        function = _attr(v, "function")
        if function is not None:  # an OpenAI tool-call object
            if isinstance(function, Mapping):
                self.value(function, depth + 1, decode=True)
            else:
                self.value(_attr(function, "name"), depth + 1)
                self.value(_attr(function, "arguments"), depth + 1, decode=True)
            return
        if _attr(v, "name") is not None and _attr(v, "arguments") is not None:
            self.value(_attr(v, "name"), depth + 1)
            self.value(_attr(v, "arguments"), depth + 1, decode=True)
            return
        try:  # anything else: the parser only needs its repr (for the memory line)
            r = repr(v)
        except Exception:
            raise _Refuse("ERROR: bad input: could not read an action") from None
        if not isinstance(r, str):
            raise _Refuse("ERROR: bad input: could not read an action")


def _attr(obj: Any, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


#: Inputs that :func:`_plainly_fine` passes without a walk: dicts of at most this many keys.
FAST_KEYS = 16
_FAST_LIST = 64


def _plainly_fine(raw: Any) -> bool:
    """True for an ordinary action dict, far within every limit: at most FAST_KEYS string
    keys whose values are ASCII strings (none to be decoded as JSON), small ints, floats,
    bools, None or short lists of ASCII strings. O(1) per action (bounded sizes); anything
    else takes the full walk."""
    if type(raw) is not dict or len(raw) > FAST_KEYS:
        return False
    for k, v in raw.items():
        if type(k) is not str or len(k) > 64 or not k.isascii():
            return False
        t = type(v)
        if t is str:
            if len(v) > 2048 or not v.isascii() or k == "arguments" or k == "function":
                return False
        elif t is int:
            if v.bit_length() > 64:
                return False
        elif t is list:
            if len(v) > _FAST_LIST or not all(type(x) is str and len(x) <= 64 and x.isascii()
                                              for x in v):  # fmt: skip
                return False
        elif not (v is None or t is bool or t is float):
            return False
    return True  # <= 16 x 2,048 + 16 x 64 x 64 characters: far below MAX_INPUT_CHARS


def check_input(raw: Any) -> str | None:
    """The ``ERROR: bad input: ...`` string for an input beyond the limits, or None."""
    if _plainly_fine(raw):
        return None
    try:
        _Walk().value(raw, 0, decode=True)
    except _Refuse as refuse:
        return refuse.error
    except RecursionError:
        return f"ERROR: bad input: nested deeper than {MAX_DEPTH} levels"
    except Exception:
        return "ERROR: bad input: could not read an action"
    return None
