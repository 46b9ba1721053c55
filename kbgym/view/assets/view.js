/* kbgym view: renders the data embedded in this page (kbgym/view/data.py). Plain DOM calls
   and textContent only: note text is agent-written and never becomes markup. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("kbgym-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#2b6cb0", "#dd6b20", "#38a169", "#805ad5", "#d53f8c", "#319795", "#718096",
    "#b7791f"];
  var FAMILY_ORDER = ["city", "attribute", "relation-1", "relation-2", "hub", "other",
    "unscorable", "empty"];
  var CLASS_NAME = { o: "original", a: "authored", e: "edited" };
  var ROW_CAP = 400;

  // ---------------------------------------------------------------- helpers
  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var k = 2; k < arguments.length; k++) add(node, arguments[k]);
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS(SVGNS, tag);
    setAttrs(node, attrs);
    for (var k = 2; k < arguments.length; k++) add(node, arguments[k]);
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") node.textContent = String(v);
      else if (k === "onclick") node.addEventListener("click", v);
      else if (k === "oninput") node.addEventListener("input", v);
      else if (k === "onchange") node.addEventListener("change", v);
      else node.setAttribute(k, String(v));
    });
  }
  function add(node) {  // add(node, kid, kid, ...): kids are nodes, text or arrays of them
    for (var i = 1; i < arguments.length; i++) {
      var kid = arguments[i];
      if (kid === null || kid === undefined || kid === false) continue;
      if (Array.isArray(kid)) { kid.forEach(function (k) { add(node, k); }); continue; }
      node.appendChild(typeof kid === "object" ? kid : document.createTextNode(String(kid)));
    }
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function $(id) { return document.getElementById(id); }
  function isNum(x) { return typeof x === "number" && isFinite(x); }
  function fmt(x, d) { return isNum(x) ? x.toFixed(d === undefined ? 3 : d) : "–"; }
  function signed(x, d) { return isNum(x) ? (x >= 0 ? "+" : "") + x.toFixed(d === undefined ? 3 : d) : "–"; }
  function ci(pair, d) {
    return Array.isArray(pair) && pair.length === 2 && isNum(pair[0]) && isNum(pair[1])
      ? fmt(pair[0], d) + "–" + fmt(pair[1], d) : "";
  }
  function short(text, n) { text = String(text); return text.length > n ? text.slice(0, n - 1) + "…" : text; }
  function obj(x) { return x && typeof x === "object" && !Array.isArray(x) ? x : {}; }
  function arr(x) { return Array.isArray(x) ? x : []; }

  // ---------------------------------------------------------------- the notes
  var L = obj(D.library);
  var IDS = arr(L.ids), TEXT = arr(L.text), CLS = String(L.cls || "");
  var N = IDS.length;
  var BY_ID = new Map();
  IDS.forEach(function (id, i) { BY_ID.set(id, i); });
  var OUT = new Array(N), IN = new Array(N);
  for (var i0 = 0; i0 < N; i0++) { OUT[i0] = []; IN[i0] = []; }
  arr(L.out).forEach(function (row) {
    OUT[row[0]] = row[1];
    row[1].forEach(function (t) { IN[t].push(row[0]); });
  });
  var STALE = new Set(arr(L.stale).map(function (p) { return p[0] + ":" + p[1]; }));
  var STALE_FROM = new Map();
  arr(L.stale).forEach(function (p) { STALE_FROM.set(p[0], (STALE_FROM.get(p[0]) || 0) + 1); });
  var TYPED = new Map(arr(L.typed).map(function (p) { return [p[0] + ":" + p[1], p[2]]; }));
  var MADE = new Map(arr(L.made));
  var EDITED_AT = new Map(arr(L.edited_at));
  var INDEX = new Map();
  arr(L.index).forEach(function (e) { INDEX.set(e.n, e); });
  var VERDICTS = obj(L.verdicts);
  var LOST = obj(D.growth && D.growth.lost);

  function verdictOf(i) {
    var v = arr(VERDICTS[i]);
    var c = { "true": 0, "false": 0, unverifiable: 0 };
    v.forEach(function (s) { c[s[2]] = (c[s[2]] || 0) + 1; });
    return c;
  }

  // ---------------------------------------------------------------- state
  var S = { tab: "library", note: null, hops: 1, highlight: null, episode: null, source: 0,
    iteration: null, rendered: {} };

  function noteButton(id) {
    var i = BY_ID.get(id);
    if (i === undefined) return el("span", { class: "mono muted", title: LOST[id] || "not in this library" }, id);
    return el("button", { type: "button", class: "note-link", title: TEXT[i], "data-goto": id,
      onclick: function () { showNote(i); } }, id);
  }
  function linkify(text) {
    var parts = [], re = /\bs\d+\b/g, last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (BY_ID.has(m[0])) {
        if (m.index > last) parts.push(text.slice(last, m.index));
        parts.push(noteButton(m[0]));
        last = m.index + m[0].length;
      }
    }
    if (last < text.length) parts.push(text.slice(last));
    return parts;
  }
  function classBadge(i) {
    var c = CLS[i] || "o";
    return el("span", { class: "badge " + c }, CLASS_NAME[c]);
  }

  // ---------------------------------------------------------------- header and tabs
  function renderHeader() {
    $("title").textContent = "KBGym view: " + (D.title || "");
    var st = obj(L.stats), s = obj(L.structure), m = obj(L.misinformation);
    var fam = obj(s.families);
    var counts = el("div", { class: "counts" },
      el("span", { "data-testid": "n-notes", "data-count": st.n_nodes }, el("b", null, st.n_nodes), " notes"),
      el("span", { "data-testid": "n-links", "data-count": st.n_links }, el("b", null, st.n_links), " links"),
      el("span", { "data-testid": "n-index", "data-count": s.index_nodes }, el("b", null, s.index_nodes),
        " authored (index) notes"),
      el("span", { "data-testid": "n-families", "data-count": Object.keys(fam).length },
        el("b", null, Object.keys(fam).length), " families: ",
        Object.keys(fam).map(function (f) { return f + " " + fam[f]; }).join(", ")),
      el("span", null, el("b", null, st.edited_statements || 0), " edited originals"),
      el("span", null, "precision ", el("b", null, fmt(s.precision)), ", recall ", el("b", null, fmt(s.recall))),
      m.applies === false ? el("span", null, "misinformation: not checked (imported universe)")
        : el("span", { "data-testid": "n-false" }, "misinformation: ", el("b", null, m.false_statements || 0),
          " false statements in ", el("b", null, m.false_notes || 0), " of ", m.notes_written || 0,
          " written notes"));
    var u = obj(D.universe);
    var lines = [el("div", null, (D.kind === "run" ? "run " + D.run_id : "one snapshot") +
      (D.agent ? " · curator " + D.agent : "") + " · universe " + u.people + " people, " + u.notes +
      " notes (" + short(u.hash || "", 19) + ")" + " · library " + (obj(D.sources).library || "")), counts];
    if (L.n_embedded < L.n_total) {
      lines.push(el("div", { class: "note" }, "This page holds " + L.n_embedded + " of the library's " +
        L.n_total + " notes: every written note, both ends of every link and the notes shown episodes read; " +
        "search covers those only."));
    }
    var ep = D.episodes;
    if (ep && ep.sampled) {
      lines.push(el("div", { class: "note", "data-testid": "sampled" }, "Episodes sampled evenly (first and last kept): " +
        arr(ep.sources).map(function (s) { return s.name + " " + s.shown + " of " + s.total; }).join(", ") + "."));
    }
    add($("summary"), lines);
  }

  function showTab(name) {
    S.tab = name;
    Array.prototype.forEach.call(document.querySelectorAll("nav#tabs button"), function (b) {
      b.classList.toggle("on", b.getAttribute("data-tab") === name);
    });
    Array.prototype.forEach.call(document.querySelectorAll("section.tab"), function (s) {
      s.classList.toggle("on", s.id === name);
    });
    if (!S.rendered[name]) {
      S.rendered[name] = true;
      ({ library: renderLibrary, growth: renderGrowth, episodes: renderEpisodes, probe: renderProbe })[name]();
    }
  }

  // ---------------------------------------------------------------- Library
  function renderLibrary() {
    var box = $("library");
    var search = el("input", { type: "search", id: "lib-search", placeholder: "search notes by id or words (" + N + " notes)",
      "aria-label": "search notes" });
    var timer = null;
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { runSearch(search.value); }, 120);
    });
    add(box, el("div", { class: "grid2 fill" },
      el("div", null, search, el("div", { id: "hl-bar" }), el("div", { id: "lib-results" }),
        el("div", { id: "families" }), el("div", { id: "edited" })),
      el("div", null, el("div", { id: "note-detail", class: "panel" },
        el("p", { class: "muted" }, "Click a note to see its text, links, key and history.")),
        el("div", { class: "graph-box" }, el("h3", null, "Neighbourhood"),
          el("div", { class: "controls" }, "hops: ",
            el("label", null, el("input", { type: "radio", name: "hops", value: "1", checked: "checked",
              onchange: function () { S.hops = 1; renderGraph(); } }), " 1"),
            el("label", null, el("input", { type: "radio", name: "hops", value: "2", id: "hops2",
              onchange: function () { S.hops = 2; renderGraph(); } }), " 2"),
            el("span", { id: "graph-info", class: "muted" })),
          el("div", { id: "graph" }),
          el("div", { class: "legend" },
            el("span", null, el("i", { class: "dot", "data-c": "o" }), "original"),
            el("span", null, el("i", { class: "dot", "data-c": "a" }), "authored"),
            el("span", null, el("i", { class: "dot", "data-c": "e" }), "edited"),
            el("span", null, "orange ring: read by the highlighted episode; dashed red edge: stale link"))))));
    Array.prototype.forEach.call(box.querySelectorAll(".dot"), function (d) {
      d.style.background = { o: "#8a96a3", a: "#2b6cb0", e: "#dd6b20" }[d.getAttribute("data-c")];
    });
    renderFamilies();
    renderEdited();
    renderHighlightBar();
  }

  function familyRows(fam) {
    return arr(L.index).filter(function (e) { return e.family === fam; }).sort(function (a, b) {
      var ka = a.key || "~", kb = b.key || "~";
      return ka < kb ? -1 : ka > kb ? 1 : a.n - b.n;
    });
  }

  function renderFamilies() {
    var box = clear($("families"));
    var fams = {};
    arr(L.index).forEach(function (e) { fams[e.family] = (fams[e.family] || 0) + 1; });
    var order = FAMILY_ORDER.filter(function (f) { return fams[f]; })
      .concat(Object.keys(fams).filter(function (f) { return FAMILY_ORDER.indexOf(f) < 0; }).sort());
    add(box, el("h2", null, "Authored notes by inferred key (" + arr(L.index).length + ")"));
    if (!order.length) add(box, el("p", { class: "muted" }, "No authored notes."));
    order.forEach(function (fam) {
      var rows = familyRows(fam);
      var keys = new Set(rows.map(function (e) { return e.key; }));
      var links = 0, correct = 0, members = 0, covered = 0;
      rows.forEach(function (e) {
        if (e.key !== null) { links += e.links; correct += e.correct; members += e.members; covered += e.covered; }
      });
      var det = el("details", { class: "family", "data-family": fam, "data-count": rows.length, open: "open" },
        el("summary", null, el("b", null, fam), " — " + rows.length + " notes, " + keys.size + " keys" +
          (links ? " · precision " + fmt(correct / links) : "") + (members ? " · recall " + fmt(covered / members) : "")));
      var tbody = el("tbody");
      var table = el("table", null, el("thead", null, el("tr", null,
        el("th", null, "key"), el("th", null, "note"), el("th", null, "text"), el("th", { class: "num" }, "links"),
        el("th", { class: "num" }, "members"), el("th", { class: "num" }, "P"), el("th", { class: "num" }, "R"),
        el("th", null, "marks"))), tbody);
      add(det, el("div", { class: "scroll" }, table));
      fillRows(tbody, rows, Math.min(rows.length, ROW_CAP));
      if (rows.length > ROW_CAP) {
        var more = el("button", { type: "button", onclick: function () {
          fillRows(clear(tbody), rows, rows.length); more.remove(); } }, "show all " + rows.length);
        add(det, more);
      }
      add(box, det);
    });
  }

  function marks(i) {
    var out = [];
    var st = STALE_FROM.get(i);
    if (st) out.push(el("span", { class: "badge stale", title: st + " stale links" }, st + " stale"));
    var v = verdictOf(i);
    if (v["false"]) out.push(el("span", { class: "badge false", title: "states something false" }, v["false"] + " false"));
    else if (v["true"]) out.push(el("span", { class: "badge true" }, v["true"] + " true"));
    if (v.unverifiable) out.push(el("span", { class: "badge unverifiable" }, v.unverifiable + " unverif."));
    return out;
  }

  function fillRows(tbody, rows, n) {
    for (var k = 0; k < n; k++) {
      var e = rows[k];
      (function (e) {
        var tr = el("tr", { class: "note-row", "data-note": IDS[e.n], onclick: function () { showNote(e.n); } },
          el("td", null, e.label), el("td", { class: "mono" }, IDS[e.n]),
          el("td", { class: "text-cell" }, short(TEXT[e.n], 90)), el("td", { class: "num" }, e.links),
          el("td", { class: "num" }, e.key === null ? "–" : e.covered + "/" + e.members),
          el("td", { class: "num" }, fmt(e.precision, 2)), el("td", { class: "num" }, fmt(e.recall, 2)),
          el("td", null, marks(e.n)));
        add(tbody, tr);
      })(e);
    }
    paintHighlight();
  }

  function renderEdited() {
    var box = clear($("edited"));
    var ids = [];
    for (var i = 0; i < N; i++) if (CLS[i] === "e") ids.push(i);
    if (!ids.length) return;
    add(box, el("h2", null, "Edited originals (" + ids.length + ")"));
    var ul = el("ul", { class: "plain" });
    ids.slice(0, ROW_CAP).forEach(function (i) {
      add(ul, el("li", { "data-note": IDS[i], onclick: function () { showNote(i); } },
        el("span", { class: "mono" }, IDS[i]), " ", short(TEXT[i], 100), " ", marks(i)));
    });
    add(box, ul);
  }

  function runSearch(q) {
    var box = clear($("lib-results"));
    q = q.trim().toLowerCase();
    $("families").classList.toggle("hidden", q !== "");
    $("edited").classList.toggle("hidden", q !== "");
    if (!q) return;
    var hits = [];
    for (var i = 0; i < N; i++) {
      if (IDS[i].toLowerCase() === q || TEXT[i].toLowerCase().indexOf(q) >= 0) hits.push(i);
    }
    add(box, el("h2", { "data-testid": "search-count", "data-count": hits.length },
      hits.length + " notes match" + (hits.length > 200 ? " (first 200 shown)" : "")));
    var ul = el("ul", { class: "plain", id: "search-list" });
    hits.slice(0, 200).forEach(function (i) {
      add(ul, el("li", { "data-note": IDS[i], onclick: function () { showNote(i); } },
        el("span", { class: "mono" }, IDS[i]), " ", classBadge(i), " ", short(TEXT[i], 140)));
    });
    add(box, ul);
    paintHighlight();
  }

  function showNote(i) {
    S.note = i;
    if (S.tab !== "library") showTab("library");
    renderDetail();
    renderGraph();
    Array.prototype.forEach.call(document.querySelectorAll("#library [data-note]"), function (r) {
      r.classList.toggle("sel", r.getAttribute("data-note") === IDS[i]);
    });
  }

  function linkList(i, targets, dir) {
    var ul = el("ul", { class: "plain", "data-testid": "links-" + dir });
    targets.forEach(function (t) {
      var key = dir === "out" ? i + ":" + t : t + ":" + i;
      var tags = [];
      if (TYPED.has(key)) tags.push(el("span", { class: "badge" }, TYPED.get(key)));
      if (STALE.has(key)) tags.push(el("span", { class: "badge stale" }, "stale"));
      add(ul, el("li", null, noteButton(IDS[t]), " ", classBadge(t), " ", tags, " ", short(TEXT[t], 150)));
    });
    if (!targets.length) add(ul, el("li", { class: "muted" }, "(none)"));
    return ul;
  }

  function renderDetail() {
    var i = S.note, box = clear($("note-detail"));
    if (i === null) return;
    var made = MADE.get(i), edits = EDITED_AT.get(i) || [];
    var when;
    if (made !== undefined) when = ["made at iteration ", iterButton(made)];
    else if (CLS[i] === "a") when = [D.kind === "run" ? "in the run's starting library" : "iteration unknown (one snapshot)"];
    else when = ["original (from the universe)"];
    add(box, el("h2", { "data-testid": "detail-id" }, IDS[i], " ", classBadge(i)),
      el("div", { class: "muted" }, when, edits.length ? ["; edited at iteration ", edits.map(function (it, k) {
        return [k ? ", " : "", iterButton(it)]; })] : null),
      L.origin && L.origin[i] ? el("div", { class: "muted" }, "origin: ", noteButton(L.origin[i])) : null,
      L.absorbed && L.absorbed[i] ? el("div", { class: "muted" }, "absorbed: " + L.absorbed[i].join(", ")) : null,
      el("div", { class: "note-text", "data-testid": "detail-text" }, TEXT[i]));
    var e = INDEX.get(i);
    if (e) {
      add(box, el("div", null, el("b", null, "key "), e.label, " ", el("span", { class: "muted mono" }, e.key || ""),
        " · family ", el("b", null, e.family), " · character ", e.character),
        el("div", null, "links correct " + e.correct + "/" + e.links + " (precision " + fmt(e.precision) +
          ") · members reached " + e.covered + "/" + e.members + " (recall " + fmt(e.recall) + ")"));
      if (arr(e.member_list).length) {
        var chips = el("div", { "data-testid": "members" });
        e.member_list.forEach(function (m) {
          var c = el("span", { class: "chip " + (m[1] ? "hit" : "miss") });
          if (e.member_kind === "notes") add(c, noteButton(m[0])); else add(c, m[0]);
          add(chips, c);
        });
        add(box, el("h3", null, "members (" + e.members + (e.members > e.member_list.length ? ", first " +
          e.member_list.length + " listed" : "") + "; struck: not reached by a link)"), chips);
      }
    }
    var v = arr(VERDICTS[i]);
    if (v.length) {
      var ul = el("ul", { class: "plain" });
      v.forEach(function (s) { add(ul, el("li", null, el("span", { class: "badge " + s[2] }, s[2]), " ", s[1] + ": ", s[0])); });
      add(box, el("h3", null, "statements checked against the universe"), ul);
    }
    if (S.highlight && (S.highlight.read.has(i) || S.highlight.seen.has(i))) {
      add(box, el("div", { class: "warn" }, (S.highlight.read.has(i) ? "read" : "seen in a result") + " by " + S.highlight.label));
    }
    add(box, el("h3", null, "links out (" + OUT[i].length + ")"), linkList(i, OUT[i], "out"),
      el("h3", null, "links in (" + IN[i].length + ")"), linkList(i, IN[i].slice().sort(function (a, b) { return a - b; }), "in"));
  }

  function iterButton(it) {
    if (!D.growth) return String(it);
    return el("button", { type: "button", class: "note-link", onclick: function () { showIteration(it); } }, String(it));
  }

  // neighbourhood graph: the note in the middle, its 1-hop ring, then 2-hop notes near the
  // ring note that reached them; both link directions; drawn capped
  function renderGraph() {
    var box = clear($("graph")), info = $("graph-info");
    if (S.note === null) { info.textContent = ""; return; }
    var c = S.note, CAP1 = 60, CAP2 = 240;
    function nbrs(x) {
      var seen = new Set(), out = [];
      OUT[x].concat(IN[x]).forEach(function (y) { if (!seen.has(y) && y !== x) { seen.add(y); out.push(y); } });
      return out;
    }
    var ring1All = nbrs(c), ring1 = ring1All.slice(0, CAP1);
    var placed = new Map([[c, null]]);
    ring1.forEach(function (x) { placed.set(x, null); });
    var kids = new Map(), total2 = 0, drawn2 = 0;
    if (S.hops === 2) {
      var reached = new Set();
      ring1All.forEach(function (x) {
        nbrs(x).forEach(function (y) { if (y !== c && ring1All.indexOf(y) < 0) reached.add(y); });
      });
      total2 = reached.size;
      ring1.forEach(function (x) {
        var list = [];
        nbrs(x).forEach(function (y) {
          if (!placed.has(y) && drawn2 < CAP2) { placed.set(y, null); list.push(y); drawn2++; }
        });
        kids.set(x, list);
      });
    }
    var W = 640, H = 500, cx = W / 2, cy = H / 2;
    var R1 = S.hops === 2 ? 125 : 200, R2 = 215;
    var pos = new Map([[c, [cx, cy]]]);
    var n1 = Math.max(ring1.length, 1);
    ring1.forEach(function (x, k) {
      var a = -Math.PI / 2 + 2 * Math.PI * k / n1;
      pos.set(x, [cx + R1 * Math.cos(a), cy + R1 * Math.sin(a)]);
      var list = kids.get(x) || [];
      var span = 2 * Math.PI / n1 * 0.9;
      list.forEach(function (y, j) {
        var b = a + (list.length > 1 ? span * (j / (list.length - 1) - 0.5) : 0);
        var r = R2 + (j % 3) * 14;
        pos.set(y, [cx + r * Math.cos(b), cy + r * Math.sin(b)]);
      });
    });
    var g = svg("svg", { viewBox: "0 0 " + W + " " + H, "data-testid": "graph-svg" });
    add(g, svg("defs", null, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "16", refY: "5",
      markerWidth: "6", markerHeight: "6", orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#a0aec0" }))));
    var edges = svg("g"), nodes = svg("g");
    pos.forEach(function (p, x) {
      OUT[x].forEach(function (t) {
        if (!pos.has(t)) return;
        var q = pos.get(t), stale = STALE.has(x + ":" + t);
        add(edges, svg("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], stroke: stale ? "#c53030" : (CLS[x] === "a" ? "#90b4dc" : "#cbd2d9"),
          "stroke-width": stale ? 1.6 : 1, "stroke-dasharray": stale ? "4 3" : null, "marker-end": "url(#arrow)" }));
      });
    });
    var hl = S.highlight;
    pos.forEach(function (p, x) {
      var col = { o: "#8a96a3", a: "#2b6cb0", e: "#dd6b20" }[CLS[x] || "o"];
      var read = hl && hl.read.has(x), seen = hl && hl.seen.has(x);
      var bad = verdictOf(x)["false"] > 0;
      var circ = svg("circle", { cx: p[0], cy: p[1], r: x === c ? 10 : 6, fill: col,
        stroke: read ? "#d69e2e" : bad ? "#c53030" : seen ? "#f6d98b" : "#fff",
        "stroke-width": read || bad ? 3.5 : seen ? 3 : 1.2, "data-note": IDS[x] },
        svg("title", { text: IDS[x] + " (" + CLASS_NAME[CLS[x] || "o"] + "): " + TEXT[x] }));
      circ.addEventListener("click", function () { showNote(x); });
      add(nodes, circ);
      if (x === c || (pos.size <= 70)) {
        add(nodes, svg("text", { x: p[0] + 8, y: p[1] - 8, "font-size": x === c ? 13 : 10, fill: "#2d3748", text: IDS[x] }));
      }
    });
    add(g, edges, nodes);
    add(box, g);
    info.textContent = ring1All.length + " neighbours" + (ring1All.length > CAP1 ? " (" + CAP1 + " drawn)" : "") +
      (S.hops === 2 ? "; " + total2 + " at two hops" + (total2 > drawn2 ? " (" + drawn2 + " drawn)" : "") : "") +
      "; hover a dot for its text, click to move there";
  }

  // episode highlight in the library view
  function setHighlight(ep) {
    var read = new Set(), seen = new Set();
    ep.read.forEach(function (id) { var i = BY_ID.get(id); if (i !== undefined) read.add(i); });
    ep.seen.forEach(function (id) { var i = BY_ID.get(id); if (i !== undefined && !read.has(i)) seen.add(i); });
    S.highlight = { label: episodeLabel(ep), read: read, seen: seen, ep: ep };
    showTab("library");
    renderHighlightBar();
    paintHighlight();
    var first = read.size ? read.values().next().value : seen.size ? seen.values().next().value : null;
    if (first !== null) showNote(first); else if (S.note !== null) { renderDetail(); renderGraph(); }
    $("hl-bar").scrollIntoView({ block: "start" });
  }

  function renderHighlightBar() {
    var box = $("hl-bar");
    if (!box) return;
    clear(box);
    var h = S.highlight;
    if (!h) return;
    var list = el("div", { "data-testid": "hl-read" }), seenList = el("div", { "data-testid": "hl-seen" });
    Array.from(h.read).forEach(function (i, k) { add(list, k ? " " : "", noteButton(IDS[i])); });
    Array.from(h.seen).slice(0, 80).forEach(function (i, k) { add(seenList, k ? " " : "", noteButton(IDS[i])); });
    if (h.seen.size > 80) add(seenList, " … and " + (h.seen.size - 80) + " more");
    add(box, el("div", { class: "panel hl-read", "data-testid": "highlight", "data-read": h.read.size, "data-seen": h.seen.size },
      el("b", null, h.label), ": " + h.read.size + " notes read (orange), " + h.seen.size + " more seen in its results (pale). ",
      el("button", { type: "button", onclick: function () { S.highlight = null; renderHighlightBar(); paintHighlight(); renderGraph(); } }, "clear"),
      el("div", null, "read: ", h.read.size ? list : "(none)"),
      el("div", null, "seen: ", h.seen.size ? seenList : "(none)")));
  }

  function paintHighlight() {
    var h = S.highlight;
    Array.prototype.forEach.call(document.querySelectorAll("#library [data-note]"), function (r) {
      var i = BY_ID.get(r.getAttribute("data-note"));
      if (r.tagName.toLowerCase() === "circle") return;
      r.classList.toggle("hl-read", !!(h && h.read.has(i)));
      r.classList.toggle("hl-seen", !!(h && h.seen.has(i)));
    });
  }

  // ---------------------------------------------------------------- charts
  function lineChart(o) {
    var W = o.width || 460, H = o.height || 230, ml = 46, mr = 12, mt = 24, mb = 30;
    var xs = [], ys = [];
    o.series.forEach(function (s) {
      s.xs.forEach(function (x, k) { if (isNum(x) && isNum(s.ys[k])) { xs.push(x); ys.push(s.ys[k]); } });
    });
    var g = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H });
    var legend = el("div", { class: "legend" });
    var single = o.series.length === 1 && isNum(o.cursor) ? ": " + tick(valueAt(o.series[0], o.cursor)) : "";
    add(g, svg("text", { x: ml, y: 15, class: "title", text: (o.title || "") + single }));
    if (!xs.length) { add(g, svg("text", { x: ml, y: H / 2, text: "no data" })); return el("div", { class: "chart" }, g); }
    var x0 = isNum(o.xMin) ? o.xMin : Math.min.apply(null, xs), x1 = isNum(o.xMax) ? o.xMax : Math.max.apply(null, xs);
    var y0 = o.yMin !== undefined ? o.yMin : Math.min.apply(null, ys), y1 = o.yMax !== undefined ? o.yMax : Math.max.apply(null, ys);
    if (o.yMin === undefined && y0 > 0 && y0 < (y1 - y0) * 0.5) y0 = 0;
    if (x1 === x0) x1 = x0 + 1;
    if (y1 === y0) { y1 = y0 + 1; }
    function X(x) { return ml + (x - x0) / (x1 - x0) * (W - ml - mr); }
    function Y(y) { return H - mb - (y - y0) / (y1 - y0) * (H - mt - mb); }
    var axis = svg("g");
    add(axis, svg("line", { x1: ml, y1: H - mb, x2: W - mr, y2: H - mb, stroke: "#a0aec0" }),
      svg("line", { x1: ml, y1: mt, x2: ml, y2: H - mb, stroke: "#a0aec0" }));
    for (var k = 0; k <= 4; k++) {
      var yv = y0 + (y1 - y0) * k / 4, xv = x0 + (x1 - x0) * k / 4;
      if (x1 - x0 >= 8) xv = Math.round(xv);
      if (y1 - y0 >= 8) yv = Math.round(yv);
      add(axis, svg("line", { x1: ml, y1: Y(yv), x2: W - mr, y2: Y(yv), stroke: "#edf2f7" }),
        svg("text", { x: ml - 8, y: Y(yv) + 4, "text-anchor": "end", text: tick(yv) }),
        svg("text", { x: X(xv), y: H - mb + 14, "text-anchor": "middle", text: tick(xv) }));
    }
    if (o.xlabel) add(axis, svg("text", { x: W - mr, y: H - 3, "text-anchor": "end", text: o.xlabel }));
    if (o.hline !== undefined && o.hline >= y0 && o.hline <= y1) {
      add(axis, svg("line", { x1: ml, y1: Y(o.hline), x2: W - mr, y2: Y(o.hline), stroke: "#718096", "stroke-dasharray": "5 4" }));
    }
    add(g, axis);
    o.series.forEach(function (s, si) {
      var col = s.color || PALETTE[si % PALETTE.length], d = "", pen = false;
      s.xs.forEach(function (x, k) {
        var y = s.ys[k];
        if (!isNum(x) || !isNum(y)) { pen = false; return; }
        d += (pen ? "L" : "M") + X(x).toFixed(1) + "," + Y(y).toFixed(1);
        pen = true;
      });
      var dash = DASHES[si % DASHES.length];
      add(g, svg("path", { d: d, fill: "none", stroke: col, "stroke-width": 1.8, "stroke-dasharray": dash || null }));
      if (s.dots) {
        s.xs.forEach(function (x, k) {
          if (isNum(x) && isNum(s.ys[k])) add(g, svg("circle", { cx: X(x), cy: Y(s.ys[k]), r: 2.6 + (o.series.length - si) * 0.6, fill: "none", stroke: col, "stroke-width": 1.4 }));
        });
      }
      if (o.series.length > 1) {
        var at = isNum(o.cursor) ? o.cursor : x1;  // the value at the cursor, else the last one
        add(legend, el("span", null, swatch(col, dash), s.name + " " + tick(valueAt(s, at))));
      }
    });
    if (isNum(o.cursor)) {
      add(g, svg("line", { x1: X(o.cursor), y1: mt, x2: X(o.cursor), y2: H - mb, stroke: "#e53e3e", "stroke-width": 1.2 }));
    }
    if (o.onPick) {
      var hit = svg("rect", { x: ml, y: mt, width: W - ml - mr, height: H - mt - mb, fill: "transparent" });
      hit.style.cursor = "crosshair";
      hit.addEventListener("click", function (ev) {
        var r = g.getBoundingClientRect();
        var px = (ev.clientX - r.left) * W / r.width;
        o.onPick(x0 + (px - ml) / (W - ml - mr) * (x1 - x0));
      });
      add(g, hit);
    }
    return el("div", { class: "chart" }, g, legend);
  }
  var DASHES = ["", "7 4", "2 3", "10 3 2 3", "4 4", "1 5"];
  function swatch(col, dash) {
    return svg("svg", { width: 22, height: 8, class: "swatch" }, svg("line", { x1: 0, y1: 4, x2: 22, y2: 4, stroke: col,
      "stroke-width": 2, "stroke-dasharray": dash || null }));
  }
  function valueAt(s, x) {  // the series' value at the last point at or before x
    var v = null;
    s.xs.forEach(function (xx, k) { if (isNum(xx) && xx <= x && isNum(s.ys[k])) v = s.ys[k]; });
    return v;
  }
  function tick(v) {
    if (!isNum(v)) return "–";
    var a = Math.abs(v);
    if (v === Math.round(v)) return String(v);
    return a >= 100 ? Math.round(v).toString() : a >= 10 ? v.toFixed(1) : v.toFixed(a >= 1 ? 2 : 3);
  }

  // ---------------------------------------------------------------- Growth
  var G = D.growth;
  function renderGrowth() {
    var box = $("growth");
    if (!G) { add(box, el("p", { class: "muted" }, "Growth needs a run directory (kbgym view --run DIR); this page shows one snapshot.")); return; }
    var steps = arr(G.steps);
    if (!steps.length) { add(box, el("p", { class: "muted" }, "The run has no training iterations yet.")); return; }
    var slider = el("input", { type: "range", id: "iter-slider", min: 0, max: steps.length - 1, value: steps.length - 1,
      "aria-label": "iteration" });
    slider.addEventListener("input", function () { S.iteration = steps[+slider.value].it; drawGrowth(); });
    add(box, el("div", { class: "controls" },
      el("button", { type: "button", onclick: function () { slider.value = Math.max(0, +slider.value - 1); S.iteration = steps[+slider.value].it; drawGrowth(); } }, "◀"),
      slider,
      el("button", { type: "button", onclick: function () { slider.value = Math.min(steps.length - 1, +slider.value + 1); S.iteration = steps[+slider.value].it; drawGrowth(); } }, "▶"),
      el("span", { id: "iter-label", class: "mono" })),
      el("div", { id: "growth-charts", class: "charts" }), el("div", { id: "iter-detail" }));
    if (S.iteration === null) S.iteration = steps[steps.length - 1].it;
    drawGrowth();
  }

  function showIteration(it) {
    S.iteration = it;
    showTab("growth");
    drawGrowth();
  }

  function drawGrowth() {
    var steps = arr(G.steps), ser = obj(G.series), scored = arr(G.scored);
    var k = steps.findIndex(function (s) { return s.it === S.iteration; });
    if (k < 0) k = steps.length - 1;
    var st = steps[k];
    $("iter-slider").value = k;
    $("iter-label").textContent = "after iteration " + st.it + " of " + steps[steps.length - 1].it + (st.epoch !== null && st.epoch !== undefined ? " (epoch " + st.epoch + ")" : "");
    var its = arr(ser.iteration);
    var base = arr(ser.n_nodes)[0];
    var pick = function (x) {
      var best = 0;
      steps.forEach(function (s, j) { if (Math.abs(s.it - x) < Math.abs(steps[best].it - x)) best = j; });
      S.iteration = steps[best].it; drawGrowth();
    };
    var f1 = steps.map(function (s) { return s.f1; });
    var avg = f1.map(function (_, j) {
      var w = f1.slice(Math.max(0, j - 9), j + 1).filter(isNum);
      return w.length ? w.reduce(function (a, b) { return a + b; }, 0) / w.length : null;
    });
    var charts = clear($("growth-charts"));
    var xsIt = steps.map(function (s) { return s.it; }), xsSc = scored.map(function (p) { return p.it; });
    var small = function (title, xs, ys, extra) {
      var o = { title: title, xs: xs, width: 300, height: 150, cursor: st.it, onPick: pick, xMin: Math.min(0, steps[0].it),
        xMax: steps[steps.length - 1].it, series: [{ name: title, xs: xs, ys: ys, dots: extra && extra.dots }] };
      Object.keys(extra || {}).forEach(function (k) { o[k] = extra[k]; });
      return lineChart(o);
    };
    add(charts,
      small("links", its, arr(ser.n_links)),
      small("authored notes", its, arr(ser.authored_statements)),
      small("net notes added", its, arr(ser.n_nodes).map(function (v) { return isNum(v) && isNum(base) ? v - base : null; })),
      small("edited originals", its, arr(ser.edited_statements)),
      small("index_coverage", its, arr(ser.index_coverage)),
      small("precision (at snapshots)", xsSc, scored.map(function (p) { return p.precision; }), { dots: true, yMin: 0, yMax: 1 }),
      small("recall (at snapshots)", xsSc, scored.map(function (p) { return p.recall; }), { dots: true, yMin: 0, yMax: 1 }),
      small("forward F1 (mean of last 10)", xsIt, avg, { yMin: 0, yMax: 1 }));
    if (ser.stale_links) {
      add(charts, small("stale links", its, arr(ser.stale_links)), small("stale index notes", its, arr(ser.stale_index_notes)));
    }
    var box = clear($("iter-detail"));
    var row = {};
    its.forEach(function (x, j) { if (x === st.it) Object.keys(ser).forEach(function (c) { row[c] = ser[c][j]; }); });
    var sc = null;
    scored.forEach(function (p) { if (p.it <= st.it) sc = p; });
    var ep = findTrainEpisode(st.it);
    var c = arr(st.counts);
    add(box, el("h2", null, "Iteration " + st.it),
      el("div", null, "question ", el("span", { class: "mono" }, st.qid || "?"), ep && ep.q ? ": " + ep.q : "",
        " · forward F1 " + fmt(st.f1, 2) + " in " + (st.p1 === undefined || st.p1 === null ? "?" : st.p1) + " steps, backward " +
        (st.p2 === undefined || st.p2 === null ? "?" : st.p2) + " steps · answer " + JSON.stringify(st.answer === undefined ? null : st.answer),
        ep ? [" ", el("button", { type: "button", "data-testid": "open-episode", onclick: function () { openEpisode(ep); } }, "open episode")] : null),
      el("div", { class: "muted" }, "library after it: " + (row.n_nodes === undefined ? "?" : row.n_nodes) + " notes, " + (row.n_links === undefined ? "?" : row.n_links) +
        " links, " + (row.authored_statements === undefined ? "?" : row.authored_statements) + " authored, index_coverage " + fmt(row.index_coverage) +
        (sc ? " · at iteration " + sc.it + ": precision " + fmt(sc.precision) + ", recall " + fmt(sc.recall) + ", " + sc.index_nodes + " index notes" : "")),
      el("div", { "data-testid": "iter-counts" }, el("b", null, c[0] + " added, " + c[1] + " edited, " + c[2] + " deleted, " + c[3] + " links made, " + c[4] + " removed"),
        (c.some(function (n) { return n > G.cap; }) ? " (lists show the first " + G.cap + ")" : "")));
    var grid = el("div", { class: "grid2" });
    add(grid, diffBlock("added", st.added, false), diffBlock("edited", st.edited, false), diffBlock("deleted", st.deleted, true),
      linkBlock("links made", st.linked), linkBlock("links removed", st.unlinked));
    add(box, grid);
  }
  function diffBlock(name, ids, gone) {
    ids = arr(ids);
    if (!ids.length) return null;
    var ul = el("ul", { class: "plain diff-list" });
    ids.forEach(function (id) {
      var i = BY_ID.get(id);
      add(ul, el("li", null, noteButton(id), " ", el("span", { class: gone || i === undefined ? "del" : "" },
        short(i !== undefined && !gone ? TEXT[i] : (LOST[id] || ""), 160))));
    });
    return el("div", null, el("h3", null, name), ul);
  }
  function linkBlock(name, pairs) {
    pairs = arr(pairs);
    if (!pairs.length) return null;
    var ul = el("ul", { class: "plain diff-list" });
    pairs.forEach(function (p) {
      var t = BY_ID.get(p[1]);
      add(ul, el("li", null, noteButton(p[0]), " → ", noteButton(p[1]), " ", el("span", { class: "muted" }, t !== undefined ? short(TEXT[t], 90) : "")));
    });
    return el("div", null, el("h3", null, name), ul);
  }

  // ---------------------------------------------------------------- Episodes
  var E = D.episodes;
  function episodeLabel(ep) {
    var src = arr(E && E.sources)[ep.src] || {};
    return (src.name || "episode") + " · " + (ep.iteration !== null && ep.iteration !== undefined ? "iteration " + ep.iteration + " · " : "") +
      (ep.qid || "?") + (src.kind === "test" && ep.epoch !== null && ep.epoch !== undefined ? " (" + ep.epoch + ")" : "");
  }
  function findTrainEpisode(it) {
    if (!E) return null;
    var list = arr(E.list);
    for (var k = 0; k < list.length; k++) {
      var s = arr(E.sources)[list[k].src];
      if (s && s.kind === "train" && list[k].iteration === it) return list[k];
    }
    return null;
  }
  function renderEpisodes() {
    var box = $("episodes");
    if (!E || !arr(E.list).length) { add(box, el("p", { class: "muted" }, "No episodes: give a run directory (and its exams with --exam LABEL=DIR).")); return; }
    var sel = el("select", { id: "ep-source", "aria-label": "episodes of" });
    arr(E.sources).forEach(function (s, k) {
      add(sel, el("option", { value: k }, s.name + " (" + (s.shown < s.total ? s.shown + " of " + s.total : s.total) + ")"));
    });
    sel.value = String(S.source);
    sel.addEventListener("change", function () { S.source = +sel.value; drawEpisodeList(); });
    var filter = el("input", { type: "search", id: "ep-filter", placeholder: "filter: qid, words, template, split" });
    filter.addEventListener("input", drawEpisodeList);
    add(box, el("div", { class: "grid2 fill" },
      el("div", null, el("div", { class: "controls" }, sel, filter),
        E.sampled ? el("div", { class: "warn" }, "Sampled evenly within each source (first and last kept): the run has more episodes than one page holds.") : null,
        el("div", { id: "ep-count", class: "muted" }), el("ul", { id: "ep-list", class: "plain ep-list" })),
      el("div", { id: "transcript" }, el("p", { class: "muted" }, "Pick an episode."))));
    drawEpisodeList();
    if (S.episode !== null) drawTranscript();
  }
  function drawEpisodeList() {
    var ul = clear($("ep-list"));
    var q = ($("ep-filter").value || "").trim().toLowerCase();
    var list = arr(E.list).filter(function (ep) {
      if (ep.src !== S.source) return false;
      if (!q) return true;
      return [ep.qid, ep.q, ep.template, ep.split, ep.category].some(function (v) { return v && String(v).toLowerCase().indexOf(q) >= 0; });
    });
    $("ep-count").textContent = list.length + " episodes" + (list.length > 500 ? " (first 500 listed; filter to find others)" : "");
    list.slice(0, 500).forEach(function (ep) {
      var k = arr(E.list).indexOf(ep);
      var li = el("li", { "data-episode": k, class: S.episode === k ? "sel" : null, onclick: function () { S.episode = k; drawTranscript(); markSelected(); } },
        el("span", { class: "mono" }, (ep.iteration !== null && ep.iteration !== undefined ? "#" + ep.iteration + " " : "") + (ep.qid || "?")),
        el("span", { class: "muted" }, ep.split || ""),
        el("span", { class: "q" }, ep.q || ep.template || ""),
        el("span", { class: isNum(ep.f1) && ep.f1 < 1 ? "bad" : "" }, "F1 " + fmt(ep.f1, 2)),
        el("span", { class: "muted" }, (ep.steps === null || ep.steps === undefined ? "?" : ep.steps) + " steps"));
      add(ul, li);
    });
  }
  function markSelected() {
    Array.prototype.forEach.call(document.querySelectorAll("#ep-list li"), function (li) {
      li.classList.toggle("sel", +li.getAttribute("data-episode") === S.episode);
    });
  }
  function openEpisode(ep) {
    var k = arr(E.list).indexOf(ep);
    S.source = ep.src; S.episode = k;
    showTab("episodes");
    $("ep-source").value = String(ep.src);
    drawEpisodeList();
    drawTranscript();
  }
  var PHASE = { 0: "exam", 1: "forward", 2: "backward" };
  function drawTranscript() {
    var ep = arr(E.list)[S.episode], box = clear($("transcript"));
    if (!ep) return;
    var src = arr(E.sources)[ep.src] || {};
    add(box, el("h2", { "data-testid": "ep-title" }, episodeLabel(ep)),
      el("div", null, "F1 ", el("b", { "data-testid": "ep-f1" }, fmt(ep.f1, 3)), " · steps ", el("b", { "data-testid": "ep-steps" },
        ep.steps === null || ep.steps === undefined ? "?" : ep.steps),
        isNum(ep.p1) ? " (forward " + ep.p1 + ", backward " + ep.p2 + ")" : "",
        ep.status ? " · " + ep.status : "", " · answer ", el("span", { class: "mono" }, JSON.stringify(ep.answer === undefined ? null : ep.answer)),
        " · ", el("button", { type: "button", "data-testid": "highlight-episode", onclick: function () { setHighlight(ep); } },
          "highlight its notes in the library (" + ep.read.length + " read, " + ep.seen.length + " more seen)")),
      el("div", { class: "obs" }, el("b", null, "Observation: "), "the task ", el("span", { class: "mono" }, ep.qid || ""),
        ep.template ? " (" + ep.template + (ep.category ? ", " + ep.category : "") + ")" : "", ": ", ep.q || "(question text not known to this page)",
        src.kind === "test" ? el("div", { class: "muted" }, "gold (hidden from the reader): " + JSON.stringify(ep.golds)) : null,
        el("div", { class: "muted" }, "Each step below: the action the agent took on the observation so far, then the result it was shown (verbatim from trace.jsonl). Note ids link to the library.")));
    var phase = null;
    arr(ep.rows).forEach(function (r) {
      if (r[0] !== phase) {
        phase = r[0];
        if (phase === 2) add(box, el("div", { class: "phase-sep" }, el("b", null, "Backward phase"), ": the gold is revealed — " + JSON.stringify(ep.golds) + " — and the curator edits the library."));
        else if (phase === 1) add(box, el("div", { class: "phase-sep" }, el("b", null, "Forward phase"), ": answer from the library (search, read, answer)."));
      }
      add(box, el("div", { class: "step" + (r[5] ? "" : " invalid"), "data-testid": "step" },
        el("div", { class: "call mono" }, el("b", null, (PHASE[r[0]] || "phase " + r[0]) + " " + r[1] + ": "), String(r[2] === null ? "(invalid action)" : r[2]),
          "(" + r[3] + ")", r[5] ? "" : el("span", { class: "bad" }, " invalid")),
        el("div", { class: "res" }, el("pre", null, linkify(String(r[4]))))));
    });
    if (arr(ep.evidence).length) add(box, el("div", { class: "muted" }, "evidence set: ", ep.evidence.map(function (id, k) { return [k ? " " : "", noteButton(id)]; })));
  }

  // ---------------------------------------------------------------- Probe
  var P = D.probe;
  var GROUP_ORDER = ["exact", "exact_matched", "share2", "share1", "share0"];
  function renderProbe() {
    var box = $("probe");
    if (!P) { add(box, el("p", { class: "muted" }, "No probe table or training curve (kbgym view --probe-table T).")); return; }
    var t = obj(P.table), groups = obj(t.groups);
    var order = GROUP_ORDER.filter(function (g) { return groups[g]; }).concat(Object.keys(groups).filter(function (g) { return GROUP_ORDER.indexOf(g) < 0; }));
    if (order.length) {
      var subsets = [];
      order.forEach(function (g) { Object.keys(obj(groups[g])).forEach(function (s) { if (subsets.indexOf(s) < 0) subsets.push(s); }); });
      var sel = el("select", { id: "probe-subset", "aria-label": "questions" });
      subsets.forEach(function (s) { add(sel, el("option", { value: s }, s === "all" ? "all questions" : s === "exhausted" ? "where " + (t.base || "the base") + " ran out of steps" : s === "rest" ? "the rest" : s)); });
      add(box, el("h2", null, "Gradient probe: ρ = steps(arm) / steps(" + (t.base || "base") + ") on the same questions"),
        el("div", { class: "controls" }, sel, el("span", { class: "muted" }, "* = ρ CI below 1 and no F1 loss; F1↓ = the paired CI of F1(arm) − F1(base) lies below −δ (δ = " +
          (isNum(t.delta) ? t.delta : 0) + "); " + (t.resamples || "?") + " bootstrap resamples" + (P.source ? "; " + P.source : ""))),
        el("div", { id: "probe-table", class: "scroll" }), el("div", { id: "probe-chart", class: "charts" }));
      sel.addEventListener("change", function () { drawProbe(order, sel.value); });
      drawProbe(order, subsets[0]);
    } else {
      add(box, el("p", { class: "muted" }, "No probe table."));
    }
    var c = obj(P.curve), cg = obj(c.groups), its = arr(c.iterations);
    var names = GROUP_ORDER.filter(function (g) { return cg[g]; }).concat(Object.keys(cg).filter(function (g) { return GROUP_ORDER.indexOf(g) < 0; }));
    if (names.length) {
      add(box, el("h2", null, "Training-time curve (the reader examined on the library replayed to each point)"),
        el("div", { class: "charts" },
          lineChart({ title: "mean reader steps", xlabel: "training iteration", series: names.map(function (g) { return { name: g, xs: its, ys: arr(obj(cg[g]).mean_steps), dots: true }; }) }),
          lineChart({ title: "mean F1", xlabel: "training iteration", yMin: 0, yMax: 1, series: names.map(function (g) { return { name: g, xs: its, ys: arr(obj(cg[g]).f1), dots: true }; }) })));
    }
  }
  function drawProbe(order, subset) {
    var t = obj(P.table), groups = obj(t.groups);
    var cells = [];
    order.forEach(function (g) {
      var arms = obj(obj(groups[g])[subset]);
      Object.keys(arms).forEach(function (a) { cells.push([g, a, obj(arms[a])]); });
    });
    var has = function (k) { return cells.some(function (c) { return c[2][k] !== undefined && c[2][k] !== null; }); };
    var withJ = has("jaccard"), withNav = has("rho_nav") || has("nav_f1"), withBlind = has("blind_spot");
    var head = ["group", "arm", "n", "steps", "ρ", "", "95% CI", "F1", "ΔF1", "ΔF1 95% CI"];
    if (withJ) head.push("J");
    if (withNav) head.push("ρ nav", "ρ nav 95% CI", "nav F1");
    if (withBlind) head.push("blind spot");
    var tbody = el("tbody");
    cells.forEach(function (c) {
      var x = c[2], mark = x.star ? el("span", { class: "star" }, "*") : x.f1_loss ? el("span", { class: "loss" }, "F1↓") : "";
      var tds = [el("td", null, c[0]), el("td", null, c[1]), el("td", { class: "num" }, isNum(x.n) ? x.n : "–"),
        el("td", { class: "num" }, fmt(x.mean_steps, 2)), el("td", { class: "num" }, fmt(x.rho)), el("td", null, mark),
        el("td", { class: "num" }, ci(x.ci)), el("td", { class: "num" }, fmt(x.f1)), el("td", { class: "num" }, signed(x.f1_diff)),
        el("td", { class: "num" }, Array.isArray(x.f1_diff_ci) ? signed(x.f1_diff_ci[0]) + ".." + signed(x.f1_diff_ci[1]) : "")];
      if (withJ) tds.push(el("td", { class: "num" }, fmt(x.jaccard)));
      if (withNav) tds.push(el("td", { class: "num" }, fmt(x.rho_nav)), el("td", { class: "num" }, ci(x.rho_nav_ci)), el("td", { class: "num" }, fmt(x.nav_f1)));
      if (withBlind) {
        var b = x.blind_spot && typeof x.blind_spot === "object" ? x.blind_spot : null;
        tds.push(el("td", null, b ? [b.flagged ? el("span", { class: "flag" }, "⚑ blind spot ") : "",
          "nav saving " + fmt(b.nav_saving) + (ci(b.nav_saving_ci) ? " [" + ci(b.nav_saving_ci) + "]" : "") +
          ", reader saving " + fmt(b.reader_saving) + ", share " + fmt(b.share)] : ""));
      }
      add(tbody, el("tr", { "data-group": c[0], "data-arm": c[1], class: "probe-row" }, tds));
    });
    add(clear($("probe-table")), el("table", null, el("thead", null, el("tr", null, head.map(function (h) {
      return el("th", { class: h === "group" || h === "arm" || h === "" || h === "blind spot" ? "" : "num" }, h); }))), tbody));
    // rho with its CI per group and arm
    var arms = [];
    cells.forEach(function (c) { if (arms.indexOf(c[1]) < 0 && c[1] !== t.base) arms.push(c[1]); });
    var W = Math.max(420, order.length * 110 + 80), H = 240, ml = 46, mb = 30, mt = 24;
    var vals = [1];
    cells.forEach(function (c) { if (isNum(c[2].rho)) vals.push(c[2].rho); if (Array.isArray(c[2].ci)) c[2].ci.forEach(function (v) { if (isNum(v)) vals.push(v); }); });
    var y1 = Math.max.apply(null, vals) * 1.08, y0 = 0;
    var Y = function (y) { return H - mb - (y - y0) / (y1 - y0) * (H - mt - mb); };
    var g = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H });
    add(g, svg("text", { x: ml, y: 15, class: "title", text: "ρ with 95% CI (dashed: ρ = 1)" }),
      svg("line", { x1: ml, y1: Y(1), x2: W - 10, y2: Y(1), stroke: "#718096", "stroke-dasharray": "5 4" }),
      svg("line", { x1: ml, y1: H - mb, x2: W - 10, y2: H - mb, stroke: "#a0aec0" }));
    [0, 0.5, 1].forEach(function (v) { add(g, svg("text", { x: ml - 4, y: Y(v) + 4, "text-anchor": "end", text: v.toFixed(1) })); });
    var gw = (W - ml - 10) / Math.max(order.length, 1);
    order.forEach(function (grp, gi) {
      add(g, svg("text", { x: ml + gw * (gi + 0.5), y: H - mb + 14, "text-anchor": "middle", text: grp }));
      arms.forEach(function (a, ai) {
        var x = obj(obj(obj(groups[grp])[subset])[a]);
        if (!isNum(x.rho)) return;
        var px = ml + gw * gi + gw * (ai + 1) / (arms.length + 1), col = PALETTE[ai % PALETTE.length];
        if (Array.isArray(x.ci) && isNum(x.ci[0]) && isNum(x.ci[1])) add(g, svg("line", { x1: px, y1: Y(x.ci[0]), x2: px, y2: Y(x.ci[1]), stroke: col, "stroke-width": 2 }));
        add(g, svg("circle", { cx: px, cy: Y(x.rho), r: 4, fill: col }, svg("title", { text: grp + " " + a + ": ρ " + fmt(x.rho) })));
        var m = x.star ? "*" : x.f1_loss ? "F1↓" : "";
        if (m) add(g, svg("text", { x: px, y: Y(Array.isArray(x.ci) && isNum(x.ci[1]) ? x.ci[1] : x.rho) - 4, "text-anchor": "middle", text: m }));
      });
    });
    var legend = el("div", { class: "legend" }, arms.map(function (a, ai) { return el("span", null, swatch(PALETTE[ai % PALETTE.length]), a); }),
      el("span", { class: "muted" }, "(the base arm " + (t.base || "") + " is ρ = 1 by definition)"));
    add(clear($("probe-chart")), el("div", { class: "chart" }, g, legend));
  }

  // ---------------------------------------------------------------- start
  Array.prototype.forEach.call(document.querySelectorAll("nav#tabs button"), function (b) {
    b.addEventListener("click", function () { showTab(b.getAttribute("data-tab")); });
  });
  renderHeader();
  S.rendered.library = true;
  renderLibrary();
  document.body.setAttribute("data-ready", "1");
  window.__kbgymReadyMs = performance.now();
})();
