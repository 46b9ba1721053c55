"""The default demo's view page in a real browser (headless Chromium, ``make test-view``): the
DOM's counts equal ``kbgym report``'s, a note and an episode click through, agent-written
markup stays text, and screenshots are saved (``KBGYM_VIEW_SHOTS=DIR`` keeps them)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from kbgym.runs.logs import read_jsonl
from kbgym.view import render_page, run_view
from kbgym.view.browser import chromium, file_url, missing

from .conftest import HOSTILE

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(missing() is not None, reason=str(missing()))]


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    d = Path(os.environ.get("KBGYM_VIEW_SHOTS") or tmp_path_factory.mktemp("shots"))
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The default demo (500 people, 100 questions x 2 epochs), as ``kbgym demo`` runs it."""
    from kbgym.cli import main

    out = tmp_path_factory.mktemp("demo")
    assert main(["demo", "--out", str(out), "--no-plots", "--quiet"]) == 0
    return out


@pytest.fixture(scope="module")
def browser():
    with chromium() as d:
        yield d


def _open(d, page: Path):
    d.get("about:blank")
    d.get(file_url(page))
    assert d.execute_script("return document.body.getAttribute('data-ready')") == "1"
    return d


def _errors(d) -> list:
    return [e for e in d.get_log("browser") if e["level"] == "SEVERE"]


def _css(d, sel):
    from selenium.webdriver.common.by import By

    return d.find_elements(By.CSS_SELECTOR, sel)


def _count(d, sel) -> int:
    return int(_css(d, sel)[0].get_attribute("data-count"))


def test_library_counts_equal_the_report_and_a_note_clicks_through(demo, browser, shots):
    rep = json.loads((demo / "train" / "report.json").read_text())
    d = _open(browser, demo / "view.html")
    s = rep["structure"]
    assert _count(d, "[data-testid=n-notes]") == rep["kb_size"]["n_nodes"]
    assert _count(d, "[data-testid=n-links]") == rep["kb_size"]["n_links"]
    assert _count(d, "[data-testid=n-index]") == s["index_nodes"]
    assert _count(d, "[data-testid=n-families]") == len(s["families"])
    rendered = {f.get_attribute("data-family"): len(f.find_elements("css selector", "tr.note-row"))
                for f in _css(d, "details.family")}
    assert rendered == s["families"]  # one row per authored note, grouped by link-based family
    assert len(_css(d, "tr.note-row")) == s["index_nodes"]
    d.save_screenshot(str(shots / "1_library.png"))

    from kbgym.library.snapshot import load_snapshot

    lib, _ = load_snapshot(demo / "train" / "kb_epoch_2.json")
    row = _css(d, "details.family[data-family=hub] tr.note-row")[0]
    nid = row.get_attribute("data-note")
    row.click()
    assert _css(d, "[data-testid=detail-id]")[0].text.startswith(nid)
    assert _css(d, "[data-testid=detail-text]")[0].text == lib[nid].text
    assert len(_css(d, "[data-testid=links-out] li")) == len(lib[nid].links)
    assert len(_css(d, "[data-testid=links-in] li")) == max(1, len(lib.in_links(nid)))
    _css(d, "#hops2")[0].click()
    circles = _css(d, "[data-testid=graph-svg] circle")
    assert len(circles) >= 1 + len(set(lib[nid].links) | set(lib.in_links(nid)))
    d.execute_script("document.getElementById('graph').scrollIntoView()")
    d.save_screenshot(str(shots / "2_note_graph.png"))
    target = _css(d, "[data-testid=links-out] .note-link")[0]  # follow a link
    to = target.get_attribute("data-goto")
    d.execute_script("arguments[0].click()", target)
    assert _css(d, "[data-testid=detail-id]")[0].text.startswith(to)
    box = _css(d, "#lib-search")[0]
    box.send_keys("Residents of")
    time.sleep(0.4)
    want = sum("residents of" in n.text.lower() for n in lib)
    assert _count(d, "[data-testid=search-count]") == want
    assert _errors(d) == []


def test_an_episode_reads_as_a_transcript_and_lights_up_its_notes(demo, browser, shots):
    d = _open(browser, demo / "view.html")
    _css(d, "button[data-tab=episodes]")[0].click()
    from selenium.webdriver.support.ui import Select

    Select(_css(d, "#ep-source")[0]).select_by_index(3)  # training, exam B1, prior, trained
    log = read_jsonl(demo / "exam_trained" / "test_log.jsonl")
    trace = read_jsonl(demo / "exam_trained" / "trace.jsonl")
    items = _css(d, "#ep-list li")
    assert len(items) == len(log)
    k = next(i for i, r in enumerate(log) if r["split"] == "share2")
    items[k].click()
    rows = [r for r in trace if r["qid"] == log[k]["qid"]]
    assert len(_css(d, "[data-testid=step]")) == len(rows) == log[k]["steps"]
    assert _css(d, "[data-testid=ep-f1]")[0].text == f"{log[k]['f1']:.3f}"
    assert _css(d, "[data-testid=ep-steps]")[0].text == str(log[k]["steps"])
    d.save_screenshot(str(shots / "3_episode.png"))
    read = list(dict.fromkeys(r["input"]["id"] for r in rows if r["action"] == "read"))
    _css(d, "[data-testid=highlight-episode]")[0].click()
    bar = _css(d, "[data-testid=highlight]")[0]
    assert int(bar.get_attribute("data-read")) == len(read) > 0
    assert [b.get_attribute("data-goto") for b in _css(d, "[data-testid=hl-read] .note-link")] \
        == read
    from kbgym.library.snapshot import load_snapshot

    lib, _ = load_snapshot(demo / "train" / "kb_epoch_2.json")
    assert {c.get_attribute("data-note") for c in _css(d, "#library tr.note-row.hl-read")} \
        == {i for i in read if lib[i].is_authored}  # the index notes it read, lit in place
    d.save_screenshot(str(shots / "4_highlight.png"))
    assert _errors(d) == []


def test_growth_slider_and_probe_table(demo, browser, shots):
    d = _open(browser, demo / "view.html")
    _css(d, "button[data-tab=growth]")[0].click()
    d.execute_script("var s = document.getElementById('iter-slider'); s.value = 2;"
                     "s.dispatchEvent(new Event('input'))")
    trace = read_jsonl(demo / "train" / "trace.jsonl")
    adds = sum(1 for r in trace if r["iteration"] == 3 and r["action"] == "add"
               and r["result"].startswith("added"))
    text = _css(d, "[data-testid=iter-counts]")[0].text
    assert text.startswith(f"{adds} added, "), text
    d.save_screenshot(str(shots / "5_growth.png"))
    _css(d, "button[data-tab=probe]")[0].click()
    table = json.loads((demo / "probe_table.json").read_text())
    cells = [(g, a, c) for g, v in table["groups"].items() for a, c in v["all"].items()]
    assert len(_css(d, "tr.probe-row")) == len(cells)
    stars = sum(c["star"] for *_, c in cells)
    assert len(_css(d, "tr.probe-row .star")) == stars > 0
    assert len(_css(d, "tr.probe-row .loss")) == sum(c["f1_loss"] for *_, c in cells)
    d.save_screenshot(str(shots / "6_probe.png"))
    assert _errors(d) == []


def test_hostile_notes_stay_text_and_new_probe_fields_render(hostile_run, small_demo, browser,
                                                             shots, tmp_path):
    run, u = hostile_run
    out, _ = small_demo
    data = run_view(run, universe=u)
    # the ideal-navigator columns another engineer is adding: present on some cells only
    table = json.loads((out / "probe_table.json").read_text())
    cells = table["groups"]["exact"]["all"]
    cells["trained"].update(rho_nav=0.5, rho_nav_ci=[0.4, 0.6], nav_f1=1.0, blind_spot={
        "nav_saving": 0.5, "nav_saving_ci": [0.4, 0.6], "reader_saving": 0.3, "share": 0.6,
        "flagged": True})
    del cells["prior"]["ci"], cells["prior"]["f1_diff_ci"]  # missing keys render as blanks
    data["probe"] = {"table": table, "curve": None, "source": "edited"}
    page = tmp_path / "hostile.html"
    page.write_text(render_page(data), encoding="utf-8")
    d = _open(browser, page)
    box = _css(d, "#lib-search")[0]
    box.send_keys("window.__pwned")
    time.sleep(0.4)
    assert _count(d, "[data-testid=search-count]") == 3
    _css(d, "#search-list li")[0].click()
    shown = _css(d, "[data-testid=detail-text]")[0].text
    assert shown.startswith(" ".join(HOSTILE.split()))  # the markup, shown as text
    assert d.execute_script("return window.__pwned") is None  # ... and never run
    assert d.execute_script("return document.images.length") == 0
    d.save_screenshot(str(shots / "7_hostile_note.png"))
    _css(d, "button[data-tab=episodes]")[0].click()
    _css(d, "#ep-list li")[0].click()
    assert d.execute_script("return window.__pwned") is None
    _css(d, "button[data-tab=probe]")[0].click()
    heads = [th.text for th in _css(d, "#probe-table th")]
    assert "ρ nav" in heads and "blind spot" in heads
    assert "⚑ blind spot" in _css(d, "tr.probe-row[data-group=exact][data-arm=trained]")[0].text
    d.save_screenshot(str(shots / "8_probe_new_fields.png"))
    assert _errors(d) == []


def test_a_snapshot_alone_views_its_library(demo, browser, tmp_path):
    from kbgym.cli import main

    page = tmp_path / "snap.html"
    assert main(["view", "--library", str(demo / "train" / "kb_epoch_1.json"),
                 "--out", str(page), "--quiet"]) == 0
    d = _open(browser, page)
    rep = json.loads((demo / "train" / "report.json").read_text())
    assert len(_css(d, "tr.note-row")) == rep["structure"]["index_nodes"]  # epoch 1 == epoch 2
    _css(d, "button[data-tab=growth]")[0].click()
    assert "needs a run directory" in _css(d, "#growth")[0].text
    assert _errors(d) == []
