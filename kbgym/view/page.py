"""The view's one self-contained HTML file: the template, stylesheet and script shipped as
package data (``kbgym/view/assets/``), the data embedded as JSON.

Safety: note text is agent-written, so nothing from the data ever becomes markup. The JSON
sits in a ``<script type="application/json">`` block with every ``<``, ``>`` and ``&``
written as a ``\\u`` escape (no ``</script>`` can end it early) and non-ASCII escaped too; the
script builds the page with ``textContent`` and DOM calls only; and a Content-Security-Policy
allows no network at all and only the page's own script and style (by hash), so an injected
handler or script could not run or call out even if one got through.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from kbgym.jsonio import atomic_write_chunks

#: The default demo's page is well under this; ``kbgym view`` warns above it.
SIZE_BOUND = 10 * 1024 * 1024

_MARKERS = ("{{CSP}}", "{{TITLE}}", "{{CSS}}", "{{DATA}}", "{{JS}}")


def asset(name: str) -> str:
    return resources.files("kbgym.view").joinpath("assets", name).read_text(encoding="utf-8")


def embed_json(obj) -> str:
    """JSON safe inside a ``<script>`` element: ASCII only, no ``<``, ``>`` or ``&``."""
    return "".join(embed_chunks(obj))


def embed_chunks(obj, depth: int = 3) -> Iterator[str]:
    """:func:`embed_json` of ``obj`` in pieces, the same characters: lists and objects
    ``depth`` levels deep are written member by member, so no piece is the whole page's data
    (a few MB for the demo, copied by each escape)."""
    if depth and isinstance(obj, (dict, list)) and obj \
            and (isinstance(obj, list) or all(isinstance(k, str) for k in obj)):
        items = obj.items() if isinstance(obj, dict) else ((None, v) for v in obj)
        yield "{" if isinstance(obj, dict) else "["
        for i, (key, value) in enumerate(items):
            head = "," if i else ""
            yield head if key is None else head + _escaped(json.dumps(key)) + ":"
            yield from embed_chunks(value, depth - 1)
        yield "}" if isinstance(obj, dict) else "]"
        return
    yield _escaped(json.dumps(obj, ensure_ascii=True, separators=(",", ":"),
                              allow_nan=False))


def _escaped(text: str) -> str:
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


def page_parts(data: dict) -> Iterator[str]:
    """The page for ``data`` in the pieces it joins from (template text between markers and
    what each marker becomes, the data in pieces: :func:`embed_chunks`); a template that
    lacks a marker raises before any piece."""
    css, js = asset("view.css"), asset("view.js")
    csp = (f"default-src 'none'; script-src {csp_hash(js)}; style-src {csp_hash(css)}; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    values = {"{{TITLE}}": [html.escape(f"KBGym view: {data.get('title', '')}")],
              "{{CSP}}": [html.escape(csp)], "{{CSS}}": [css], "{{DATA}}": embed_chunks(data),
              "{{JS}}": [js]}
    rest = asset("view.html")
    heads = []
    for marker in _MARKERS:  # in template order, searching only the template's own text
        head, sep, rest = rest.partition(marker)
        if not sep:
            raise ValueError(f"view template lacks {marker} (or has it out of order)")
        heads.append(head)
    for head, marker in zip(heads, _MARKERS):
        yield head
        yield from values[marker]
    yield rest


def render_page(data: dict) -> str:
    """The whole page for ``data`` (:func:`kbgym.view.data.run_view` or ``library_view``)."""
    return "".join(page_parts(data))


def write_page(data: dict, path: str | Path) -> int:
    """Write the page atomically, piece by piece (the page is never joined into one string,
    nor encoded whole: a few MB less at the demo's peak); returns its size in bytes."""
    size = 0

    def counted() -> Iterator[str]:
        nonlocal size
        for part in page_parts(data):
            size += len(part) if part.isascii() else len(part.encode("utf-8"))
            yield part
    atomic_write_chunks(path, counted())
    return size
