"""``kbgym view`` without a browser: the page's structure, the data it embeds (equal to what
``kbgym report`` says), its bounds, and that agent-written text can never become markup."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgym.cli import main
from kbgym.library.snapshot import load_snapshot
from kbgym.runs.logs import read_jsonl
from kbgym.view import LIMITS, SIZE_BOUND, library_view, render_page, run_view
from kbgym.view.page import embed_json

from .conftest import HOSTILE


class Page(HTMLParser):
    """The page's elements with their attributes, and the text of each script/style."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=False)
        self.tags: list[tuple[str, dict]] = []
        self.bodies: list[tuple[str, dict, str]] = []
        self._open: tuple[str, dict] | None = None
        self._buf: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag in ("script", "style"):
            self._open, self._buf = (tag, a), []

    def handle_endtag(self, tag):
        if self._open and tag == self._open[0]:
            self.bodies.append((*self._open, "".join(self._buf)))
            self._open = None

    def handle_data(self, data):
        if self._open:
            self._buf.append(data)


def _data(text: str) -> dict:
    page = Page(text)
    blocks = [b for tag, a, b in page.bodies if tag == "script" and a.get("id") == "kbgym-data"]
    assert len(blocks) == 1
    return json.loads(blocks[0])


@pytest.fixture(scope="module")
def demo_view(small_demo):
    out, _ = small_demo
    data = run_view(out / "train", probe_table=out / "probe_table.json")
    return data, render_page(data)


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_page_is_self_contained_and_locked_by_csp(demo_view):
    _, text = demo_view
    page = Page(text)
    scripts = [(a, b) for tag, a, b in page.bodies if tag == "script"]
    assert [a.get("type") for a, _ in scripts] == ["application/json", None]
    styles = [b for tag, _, b in page.bodies if tag == "style"]
    assert len(styles) == 1
    csp = next(a["content"] for t, a in page.tags
               if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp  # no fetch, no image, no frame from anywhere
    assert f"script-src {_sha(scripts[1][1])};" in csp  # only this page's own script runs
    assert f"style-src {_sha(styles[0])};" in csp
    for tag, attrs in page.tags:  # nothing is loaded from outside the file
        assert not {"src", "href", "action", "srcset"} & set(attrs), (tag, attrs)
    urls = set(re.findall(r"https?://[^\s\"')]+", text))
    assert urls <= {"http://www.w3.org/2000/svg"}  # the SVG namespace name, never fetched


def test_embedded_data_matches_kbgym_report(demo_view, small_demo):
    data, text = demo_view
    out, _ = small_demo
    assert _data(text) == data  # the page holds exactly the extracted data
    rep = json.loads((out / "train" / "report.json").read_text())
    lib = data["library"]
    assert lib["structure"] == rep["structure"]
    assert lib["misinformation"] == rep["misinformation"]
    assert {k: lib["stats"][k] for k in rep["kb_size"]} == rep["kb_size"]
    assert len(lib["index"]) == rep["structure"]["index_nodes"]
    fams: dict[str, int] = {}
    for e in lib["index"]:
        fams[e["family"]] = fams.get(e["family"], 0) + 1
    assert fams == rep["structure"]["families"]
    final, _ = load_snapshot(out / "train" / "kb_epoch_2.json")
    assert lib["ids"] == [n.id for n in final] and lib["text"] == [n.text for n in final]
    assert sum(len(t) for _, t in lib["out"]) == rep["kb_size"]["n_links"]
    for e in lib["index"]:  # per-note scores add up to the report's precision and recall
        assert e["covered"] == sum(m[1] for m in e["member_list"]) or e["members"] > 200
    scored = [e for e in lib["index"] if e["key"] is not None]
    if scored:
        assert sum(e["correct"] for e in scored) / sum(e["links"] for e in scored) \
            == pytest.approx(rep["structure"]["precision"])
        assert sum(e["covered"] for e in scored) / sum(e["members"] for e in scored) \
            == pytest.approx(rep["structure"]["recall"])


def test_episodes_are_the_logged_ones(demo_view, small_demo):
    data, _ = demo_view
    out, _ = small_demo
    ep = data["episodes"]
    names = [s["name"] for s in ep["sources"]]
    assert names == ["training", "exam B1", "exam prior", "exam trained"]
    train_log = read_jsonl(out / "train" / "train_log.jsonl")
    trace = read_jsonl(out / "train" / "trace.jsonl")
    train = [e for e in ep["list"] if e["src"] == 0]
    assert [e["iteration"] for e in train] == [r["iteration"] for r in train_log]
    assert [e["f1"] for e in train] == [r["f1"] for r in train_log]
    assert sum(len(e["rows"]) for e in train) == len(trace)
    trained_log = read_jsonl(out / "exam_trained" / "test_log.jsonl")
    exam = [e for e in ep["list"] if e["src"] == 3]
    assert [(e["qid"], e["f1"], e["steps"]) for e in exam] == \
        [(r["qid"], r["f1"], r["steps"]) for r in trained_log]
    probe = json.loads((out / "probe.json").read_text())
    texts = {q["qid"]: q["text"] for q in probe["questions"]}
    assert all(e["q"] == texts[e["qid"]] for e in exam)  # gids resolved through probe.json
    exam_trace = read_jsonl(out / "exam_trained" / "trace.jsonl")
    reads = [r["input"]["id"] for r in exam_trace if r["action"] == "read" and r["valid"]]
    assert sorted(i for e in exam for i in e["read"]) == sorted(
        i for e in exam for i in dict.fromkeys(r["input"]["id"] for r in exam_trace
                                               if r["qid"] == e["qid"] and r["action"] == "read"
                                               and r["valid"]))
    assert reads and not ep["sampled"]


def test_growth_diffs_add_up_to_the_series(demo_view, small_demo):
    data, _ = demo_view
    g = data["growth"]
    series = g["series"]
    by_it = dict(zip(series["iteration"], range(len(series["iteration"]))))
    authored = series["authored_statements"][0]
    links = series["n_links"][0]
    made = dict(data["library"]["made"])
    ids = data["library"]["ids"]
    for step in g["steps"]:
        added, edited, deleted, linked, unlinked = step["counts"]
        authored += added - deleted
        links += linked - unlinked
        j = by_it[step["it"]]
        assert authored == series["authored_statements"][j], step["it"]
        assert links == series["n_links"][j], step["it"]
        for nid in step["added"]:
            assert made[ids.index(nid)] == step["it"]
    assert len(made) == sum(1 for c in data["library"]["cls"] if c == "a")
    assert [p["it"] for p in g["scored"]] == [0, 6, 12, 18, 24]  # snapshots every 6 + epochs
    assert g["scored"][-1]["precision"] == data["library"]["structure"]["precision"]


def test_hostile_note_text_never_becomes_markup(hostile_run, tmp_path):
    run, u = hostile_run
    data = run_view(run, universe=u)
    text = render_page(data)
    hostile = [t for t in data["library"]["text"] if t.startswith(HOSTILE)]
    assert len(hostile) == 3  # one per question, embedded whole
    page = Page(text)
    assert [t for t, _ in page.tags].count("script") == 2  # none injected
    assert not [t for t, _ in page.tags if t == "img"]
    assert text.count("</script") == 2 and text.count("<!--") == 0
    head, _, rest = text.partition('<script type="application/json" id="kbgym-data">')
    blob, _, tail = rest.partition("</script>")
    assert "{{" not in head + tail  # every marker filled once; the note's copies stay data
    assert "\u00e9" not in text and "&amp;" not in text.split("<script type")[1]
    back = _data(text)
    assert back == data  # ... and the exact text comes back out of the JSON
    eps = back["episodes"]["list"]
    added = [json.loads(r[3])["text"] for e in eps for r in e["rows"] if r[2] == "add"]
    assert len(added) == 3 and all(t.startswith(HOSTILE) for t in added)  # transcripts too
    steps = back["growth"]["steps"]
    assert sum(s["counts"][0] for s in steps) == 3
    snap = library_view(run / "kb_epoch_1.json", universe=u)
    assert _data(render_page(snap))["library"]["text"] == data["library"]["text"]


@given(st.text())
def test_embedded_json_is_inert_in_a_script_element(s):
    blob = embed_json({"t": s, "k": [s]})
    assert not set(blob) & set("<>&") and blob.isascii()
    assert json.loads(blob) == {"t": s, "k": [s]}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=4) | st.integers(), inner, max_size=4), max_leaves=20)


@given(_JSON)
def test_the_data_written_in_pieces_is_the_data_written_whole(obj):
    """The page writes its data member by member (no whole-page string at the demo's peak):
    the same characters as one escaped ``json.dumps``, whatever the nesting or keys."""
    whole = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    whole = whole.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    assert embed_json(obj) == whole


def test_write_page_writes_what_render_page_renders(small_demo, tmp_path):
    from kbgym.view import write_page

    out, _ = small_demo
    data = run_view(out / "train")
    size = write_page(data, tmp_path / "v.html")
    text = render_page(data)
    assert (tmp_path / "v.html").read_text(encoding="utf-8") == text
    assert size == len(text.encode("utf-8")) == (tmp_path / "v.html").stat().st_size


def test_bounds_sample_episodes_evenly_and_say_so(small_demo):
    out, _ = small_demo
    from dataclasses import replace

    limits = replace(LIMITS, max_episodes=12, max_result_chars=50)
    a = run_view(out / "train", probe_table=out / "probe_table.json", limits=limits)
    b = run_view(out / "train", probe_table=out / "probe_table.json", limits=limits)
    assert a == b  # deterministic
    ep = a["episodes"]
    assert ep["sampled"] and sum(s["shown"] for s in ep["sources"]) <= 12
    train = [e for e in ep["list"] if e["src"] == 0]
    log = read_jsonl(out / "train" / "train_log.jsonl")
    assert train[0]["iteration"] == log[0]["iteration"]
    assert train[-1]["iteration"] == log[-1]["iteration"]
    assert all(len(r[4]) <= 50 + 60 for e in ep["list"] for r in e["rows"])
    cut = [r[4] for e in ep["list"] for r in e["rows"] if "cut by the view" in r[4]]
    assert cut
    assert len(render_page(a).encode()) < len(render_page(
        run_view(out / "train", probe_table=out / "probe_table.json")).encode())


def test_kbgym_demo_writes_the_view_and_says_so_last(tmp_path, capsys, monkeypatch):
    import functools

    import kbgym.runs.demo as demo

    # the command as typed, on a 60-person universe (its size is not the point here)
    monkeypatch.setattr(demo, "run_demo", functools.partial(demo.run_demo, n_people=60))
    out = tmp_path / "demo"
    args = ["demo", "--out", str(out), "--train-size", "6", "--epochs", "1", "--per-group",
            "3", "--no-plots"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    page = out / "view.html"
    assert lines[-1].startswith(f"view: {page} (") and "open it in a browser" in lines[-1]
    assert lines[-2].startswith("time: ")  # the demo's other lines come first, unchanged
    assert 0 < page.stat().st_size < SIZE_BOUND
    data = _data(page.read_text(encoding="utf-8"))
    rep = json.loads((out / "train" / "report.json").read_text())
    assert data["run_id"] == rep["run_id"] and data["library"]["structure"] == rep["structure"]
    again = run_view(out / "train", probe_table=out / "probe_table.json")
    assert render_page(again) == page.read_text(encoding="utf-8")  # fixed by its inputs
    page.unlink()
    assert main(args + ["--quiet", "--no-view"]) == 0 and not page.exists()
    assert capsys.readouterr().out == ""


def test_cli_view_writes_a_page_and_refuses_bad_input(small_demo, tmp_path, capsys):
    out, _ = small_demo
    page = tmp_path / "v.html"
    assert main(["view", "--run", str(out / "train"), "--probe-table",
                 str(out / "probe_table.json"), "--exam", f"T={out / 'exam_trained'}",
                 "--out", str(page)]) == 0
    assert f"view: {page}" in capsys.readouterr().out
    data = _data(page.read_text(encoding="utf-8"))
    assert [s["name"] for s in data["episodes"]["sources"]] == ["training", "exam T"]
    assert main(["view", "--library", str(out / "train" / "kb_epoch_1.json"),
                 "--out", str(tmp_path / "l.html"), "--quiet"]) == 0
    assert _data((tmp_path / "l.html").read_text())["kind"] == "library"
    bad = [["--run", str(tmp_path / "nope")], ["--library", str(tmp_path / "nope.json")],
           ["--run", str(out / "train"), "--exam", "nolabel"],
           ["--run", str(out / "train"), "--exam", f"X={tmp_path}"],
           ["--run", str(out / "train"), "--probe-table", str(tmp_path / "no.json")],
           ["--library", str(out / "universe.json"), "--exam", f"T={out / 'exam_trained'}"]]
    for args in bad:
        target = tmp_path / "bad.html"
        assert main(["view", *args, "--out", str(target)]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("kbgym view: error: ") and err.count("\n") == 1, err
        assert not target.exists()
    assert main(["view", "--run", str(out / "train"), "--out", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_page_assets_ship_with_the_package():
    from importlib import resources

    names = {p.name for p in resources.files("kbgym.view").joinpath("assets").iterdir()}
    assert {"view.html", "view.css", "view.js"} <= names
    setup = (Path(__file__).resolve().parents[2] / "setup.py").read_text()
    assert "view/assets/*" in setup


def test_a_library_carried_over_a_drift_shows_its_stale_links(small_demo):
    from kbgym.files import load_universe_file
    from kbgym.worlds.people.drift import drift

    out, _ = small_demo
    u2 = drift(load_universe_file(out / "universe.json"), changes=40, seed=1)
    data = library_view(out / "train" / "kb_epoch_2.json", universe=u2)
    lib = data["library"]
    assert lib["stale_tracked"] and lib["stats"]["stale_links"] == len(lib["stale"]) > 0
    authored = {i for i, c in enumerate(lib["cls"]) if c == "a"}
    assert len({s for s, _ in lib["stale"]} & authored) == lib["stats"]["stale_index_notes"]


def test_past_the_note_bound_written_notes_and_link_ends_stay(small_demo):
    from dataclasses import replace

    out, _ = small_demo
    full = run_view(out / "train", probe_table=out / "probe_table.json")["library"]
    small = run_view(out / "train", probe_table=out / "probe_table.json",
                     limits=replace(LIMITS, max_notes=10))["library"]
    assert small["n_total"] == full["n_total"] > small["n_embedded"] == len(small["ids"])
    keep = {full["ids"][i] for i, c in enumerate(full["cls"]) if c != "o"}
    for s, ts in full["out"]:
        keep |= {full["ids"][s], *(full["ids"][t] for t in ts)}
    assert keep <= set(small["ids"])
    links = {(small["ids"][s], small["ids"][t]) for s, ts in small["out"] for t in ts}
    assert links == {(full["ids"][s], full["ids"][t]) for s, ts in full["out"] for t in ts}
    assert small["index"] and len(small["index"]) == len(full["index"])
