"""The leaderboard: one small JSON entry per verified package in ``leaderboard/``, rendered
by ``kbgym bench board`` as a markdown table and a static, self-contained HTML page (a
sortable table and the accuracy-cost frontier: F1 at the tight budget against curation
steps, with each method's point, the frontier, and each method's gain over the best
baseline).

An entry is written by ``kbgym bench verify PACKAGE --write-entry FILE`` from the verified
numbers only, and ``kbgym bench verify PACKAGE --entry FILE`` checks an entry someone sends
against their package: a pull request adds the entry, a reviewer runs that command.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kbgym.bench.verify import VerifyError, first_key_difference
from kbgym.errors import ConfigError
from kbgym.jsonio import write_canonical

KIND = "kbgym.bench.entry"
#: Curators that are baselines: the frontier gain is measured against the best of them (the
#: oracle reads the hidden facts: a ceiling, not a baseline).
BASELINE_NAMES = ("B1", "B2", "B3", "B4")
#: The markers between which ``board --into`` writes the table.
BEGIN, END = "<!-- leaderboard:begin -->", "<!-- leaderboard:end -->"
COMMAND = "kbgym bench board --into {path}"


def display_name(curator: Mapping) -> str:
    return str(curator["name"])


def make_entry(res: Mapping, package: str | Path, *, model: str | None = None,
               date: str | None = None) -> dict:
    """The entry of a package ``verify_package`` returned ``res`` for."""
    from kbgym.bench.package import read_json, seed_dir, read_package

    if date is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        raise ConfigError(f"--date {date!r}: expected YYYY-MM-DD")
    pkg = read_package(package)
    seconds = 0.0
    for name in pkg["seeds"]:
        t = seed_dir(Path(package), name) / "timing.json"
        if t.exists():
            timing = read_json(t, name)
            seconds += float(timing.get("curate_s", 0)) + float(timing.get("exams_s", 0))
    cur = dict(res["curator"])
    reduced = {"seeds": list(res["seeds"])} if res.get("seeds") else {}
    if "rescored_from" in pkg:  # bench rescore: the older release's package it came from
        reduced["rescored_from"] = {"package_hash": pkg["rescored_from"]["package_hash"],
                                    "release": pkg["rescored_from"]["release"]["id"]}
    return {
        **reduced,
        "schema_version": 1, "kind": KIND, "curator": display_name(cur), "curator_spec": cur,
        "model": model or (cur.get("options") or {}).get("model"),
        "date": date or _dt.date.today().isoformat(),
        "release": {"id": res["release"], "hash": pkg["release"]["hash"]}, "size": res["size"],
        "package_hash": res["package_hash"], "scores": dict(res["headline"]),
        "produce_seconds": round(seconds, 1), "verify_seconds": round(res["seconds"], 1),
    }


def write_entry(path: str | Path, entry: Mapping) -> None:
    write_canonical(path, dict(entry))


def read_entry(path: str | Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: not a readable leaderboard entry ({err})") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise ConfigError(f"{path}: not a {KIND} file")
    return data


def check_entry(path: str | Path, res: Mapping) -> None:
    """An entry must name the verified package and show its verified numbers."""
    entry = read_entry(path)
    if entry.get("package_hash") != res["package_hash"]:
        raise VerifyError(f"{path}: names package {entry.get('package_hash')}, the verified "
                          f"package is {res['package_hash']}")
    if (entry.get("release") or {}).get("id") != res["release"] or \
            entry.get("size") != res["size"] or entry.get("seeds") != res.get("seeds"):
        raise VerifyError(f"{path}: release, size or seeds differ from the package's")
    diff = first_key_difference(entry.get("scores"), dict(res["headline"]), "scores")
    if diff:
        raise VerifyError(f"{path}: scores differ from the verified ones: {diff}")


def load_entries(folder: str | Path) -> list[dict]:
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"{folder}: no such folder of leaderboard entries")
    return [read_entry(p) for p in sorted(folder.glob("*.json"))]


# -- the numbers a row shows --------------------------------------------------------------
def size_label(entry: Mapping) -> str:
    """The size an entry was run at; a reduced run (a subset of the seeds) names its seeds,
    so it is never grouped or compared with runs of the whole release."""
    seeds = entry.get("seeds")
    return entry["size"] + (f", reduced to seeds {', '.join(seeds)}" if seeds else "")


def _groups(entries: Sequence[Mapping]) -> dict[tuple[str, str], list[dict]]:
    """Entries by (release, size and seeds), each list best first (F1 at the tight budget)."""
    out: dict[tuple[str, str], list[dict]] = {}
    for e in entries:
        out.setdefault((e["release"]["id"], size_label(e)), []).append(dict(e))
    for rows in out.values():
        rows.sort(key=lambda e: (-(e["scores"].get("f1_tight") or 0.0), e["curator"]))
        best = max((r["scores"].get("f1_tight") or 0.0 for r in rows
                    if r["curator"] in BASELINE_NAMES), default=None)
        for r in rows:
            f1 = r["scores"].get("f1_tight")
            r["gain"] = None if best is None or f1 is None or r["curator"] in BASELINE_NAMES \
                else f1 - best
    return out


def frontier(points: Sequence[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    """The accuracy-cost frontier: the points no other point beats on both cost (lower) and
    F1 (higher), by increasing cost."""
    best, out = -math.inf, []
    for x, y, name in sorted(points, key=lambda p: (p[0], -p[1])):
        if y > best:
            out.append((x, y, name))
            best = y
    return out


def _f(x: Any, spec: str = ".3f") -> str:
    return "–" if x is None else format(x, spec)


def _ci(ci: Any) -> str:
    return "" if not ci else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def _tokens(e: Mapping) -> int:
    t = e["scores"].get("curation_tokens") or [0, 0, 0]
    return int(t[0]) + int(t[1])


def _cells(e: Mapping) -> list[str]:
    s = e["scores"]
    n = len(e.get("seeds") or ())
    name = e["curator"] + (f" (reduced: {n} seed{'s' if n > 1 else ''})" if n else "")
    return [name, e.get("model") or "–", _f(s.get("f1_tight")),
            _f(s.get("f1_tight_b1")), _f(e.get("gain"), "+.3f"), _f(s.get("f1")),
            _f(s.get("rho")) + _ci(s.get("rho_ci")), _f(s.get("rho_nav")),
            str(s.get("curation_steps", 0)), str(_tokens(e)), _f(s.get("usd"), ".4f"),
            str(s.get("false_statements", 0)), e["date"], e["package_hash"][7:19]]


HEAD = ["curator", "model", "F1 tight", "B1 F1 tight", "gain vs baselines", "F1 at m",
        "ρ at m [95% CI]", "ρ_nav", "curation steps", "curation tokens", "USD",
        "false statements", "date", "package"]


def render_markdown(entries: Sequence[Mapping]) -> str:
    """One table per release and size, best F1 at the tight budget first."""
    out = []
    for (rid, size), rows in sorted(_groups(entries).items()):
        out.append(f"**{rid}**, size {size}: F1 tight = pooled F1 at the tight exam budget; "
                   "gain = F1 tight minus the best of B1-B4; ρ = steps(library) / steps(B1) "
                   "at m; every row verified by `kbgym bench verify`.\n")
        out.append("| " + " | ".join(HEAD) + " |")
        out.append("|" + "---|" * len(HEAD))
        for e in rows:
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in _cells(e)) + " |")
        out.append("")
    if not out:
        out = ["(no entries)", ""]
    return "\n".join(out)


def replace_table(path: str | Path, table: str) -> None:
    """Put ``table`` between the leaderboard markers of a markdown file."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise ConfigError(f"{path}: has no {BEGIN} ... {END} markers to put the table between")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    made_by = COMMAND.format(path=path)
    p.write_text(f"{head}{BEGIN}\n<!-- generated by `{made_by}`; do not edit -->\n\n"
                 f"{table}\n{END}{tail}", encoding="utf-8")


# -- the HTML page ------------------------------------------------------------------------
def _plot(rows: Sequence[Mapping], width: int = 640, height: int = 360) -> str:
    """An SVG scatter of F1 at the tight budget against curation steps (log scale, steps+1)
    with the frontier as a step line."""
    pad = 48
    pts = [(float(e["scores"].get("curation_steps") or 0) + 1.0,
            float(e["scores"].get("f1_tight") or 0.0), e["curator"]) for e in rows]
    xmax = max([p[0] for p in pts] + [10.0])
    ys = [p[1] for p in pts] or [0.0]
    ylo, yhi = max(0.0, min(ys) - 0.05), min(1.0, max(ys) + 0.05)
    if yhi - ylo < 0.1:
        ylo, yhi = max(0.0, ylo - 0.05), min(1.0, yhi + 0.05)

    def X(x: float) -> float:
        return pad + (width - 2 * pad) * math.log10(x) / math.log10(xmax * 1.5)

    def Y(y: float) -> float:
        return height - pad - (height - 2 * pad) * (y - ylo) / ((yhi - ylo) or 1.0)

    parts = [f'<svg id="frontier" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" role="img" aria-label="accuracy-cost frontier">',
             f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
             'stroke="#444"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#444"/>',
             f'<text x="{width / 2}" y="{height - 10}" text-anchor="middle">curation steps + 1 '
             '(log scale)</text>',
             f'<text x="14" y="{height / 2}" transform="rotate(-90 14 {height / 2})" '
             'text-anchor="middle">F1 at the tight budget</text>']
    for y in (ylo, (ylo + yhi) / 2, yhi):
        parts.append(f'<text x="{pad - 4}" y="{Y(y) + 4:.1f}" text-anchor="end" '
                     f'font-size="11">{y:.2f}</text>')
    front = frontier(pts)
    if len(front) > 1:
        path = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y, _ in front)
        parts.append(f'<polyline class="frontier" points="{path}" fill="none" '
                     'stroke="#c33" stroke-dasharray="4 3"/>')
    on_front = {name for _, _, name in front}
    for x, y, name in pts:
        colour = "#888" if name in BASELINE_NAMES else "#1f5fbf"
        parts.append(f'<circle class="point" data-name="{html.escape(name)}" cx="{X(x):.1f}" '
                     f'cy="{Y(y):.1f}" r="{6 if name in on_front else 4}" fill="{colour}">'
                     f'<title>{html.escape(name)}: F1 {y:.3f}, {int(x - 1)} steps</title>'
                     '</circle>')
        parts.append(f'<text x="{X(x) + 7:.1f}" y="{Y(y) - 6:.1f}" font-size="11">'
                     f'{html.escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


SORT_JS = """
document.querySelectorAll('table.board').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var asc = th.getAttribute('data-order') !== 'asc';
      table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('data-order'); });
      th.setAttribute('data-order', asc ? 'asc' : 'desc');
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table.board { border-collapse: collapse; margin: 1em 0; font-size: 14px; }
table.board th, table.board td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
table.board th { cursor: pointer; background: #f2f2f2; }
table.board td:first-child, table.board td:nth-child(2) { text-align: left; }
th[data-order=asc]::after { content: " \\25B2"; } th[data-order=desc]::after { content: " \\25BC"; }
"""


def _sort_value(e: Mapping, i: int) -> str:
    s = e["scores"]
    values = [e["curator"], e.get("model") or "", s.get("f1_tight"), s.get("f1_tight_b1"),
              e.get("gain"), s.get("f1"), s.get("rho"), s.get("rho_nav"),
              s.get("curation_steps"), _tokens(e), s.get("usd"), s.get("false_statements"),
              e["date"], e["package_hash"]]
    v = values[i]
    return "" if v is None else str(v)


def render_html(entries: Sequence[Mapping]) -> str:
    """The static page: no network, no external file (inline CSS, JS and SVG)."""
    body = ["<h1>KBGym-Bench leaderboard</h1>",
            "<p>Every row is a result package verified by <code>kbgym bench verify</code>: its "
            "training traces replayed, its libraries rebuilt byte for byte, its exams re-run "
            "with the pinned reader and its scores recomputed, with no model called.</p>"]
    for (rid, size), rows in sorted(_groups(entries).items()):
        body.append(f"<h2>{html.escape(rid)} &middot; size {html.escape(size)}</h2>")
        body.append('<table class="board"><thead><tr>' +
                    "".join(f"<th>{html.escape(h)}</th>" for h in HEAD) +
                    "</tr></thead><tbody>")
        for e in rows:
            cells = _cells(e)
            body.append("<tr>" + "".join(
                f'<td data-v="{html.escape(_sort_value(e, i))}">{html.escape(c)}</td>'
                for i, c in enumerate(cells)) + "</tr>")
        body.append("</tbody></table>")
        body.append("<h3>Accuracy against curation cost</h3>")
        body.append(_plot(rows))
        body.append("<p>Grey: baselines B1-B4; blue: curators; larger points lie on the "
                    "frontier (dashed), where no other method is both cheaper and more "
                    "accurate. The gain column is F1 tight minus the best baseline's.</p>")
    if not entries:
        body.append("<p>(no entries)</p>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>KBGym-Bench leaderboard</title>"
            f"<style>{CSS}</style></head><body>{''.join(body)}"
            f"<script>{SORT_JS}</script></body></html>\n")
