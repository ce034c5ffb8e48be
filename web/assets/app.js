// The explain page: picks a definition or an expression, shows its explain
// tree from /api/explain, a uPlot chart of each node's values over the
// window beside it, and a slider that picks the sample the tree explains.
// No framework: the tree is plain DOM, rebuilt only when the definition
// changes; the slider updates the text of each node in place.
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#d62728"];
  const state = {
    query: null,   // {metric} or {expr}
    view: null,    // the last /api/explain answer with series
    sample: -1,    // the sample shown (-1: the latest, following a live source)
    at: null,      // live, the slider stopped: the time of the sample shown (the window moves)
    plots: new Map(), // node id -> uPlot
    loads: 0,      // answers shown (the end-to-end test waits on it)
    poll: null,
    // When the script ran, the answer came and it was drawn, in ms since
    // navigation (bench/web.sh reads them).
    marks: { script: performance.now() },
  };
  window.explainPage = state;

  async function getJSON(url, init) {
    const res = await fetch(url, init);
    const body = await res.json().catch(() => ({ error: res.statusText }));
    if (!res.ok) {
      const err = new Error(body.error || res.statusText);
      err.body = body;
      throw err;
    }
    return body;
  }

  function text(tag, cls, content) {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (content !== undefined) el.textContent = content;
    return el;
  }

  // --- choosing what to explain ------------------------------------------

  async function loadConfigs() {
    const c = await getJSON("api/configs");
    $("source").textContent = `values from ${c.source} · PCP ${c.pcp_version}` + (c.live ? ` · live, every ${c.limits.interval_seconds} s, the last ${c.limits.window_seconds} s` : "");
    const cfg = $("config");
    cfg.replaceChildren();
    for (const f of c.configs) {
      const o = text("option", "", f.path);
      o.value = f.path;
      cfg.append(o);
    }
    const fill = () => {
      const f = c.configs.find((x) => x.path === cfg.value);
      const m = $("metric");
      m.replaceChildren(text("option", "", "—"));
      m.firstChild.value = "";
      for (const name of f ? f.metrics : []) {
        const o = text("option", "", name);
        o.value = name;
        m.append(o);
      }
    };
    cfg.onchange = fill;
    fill();
    if (c.problems.length) showError(c.problems.join("\n"));
  }

  $("metric").onchange = () => {
    if ($("metric").value) choose({ metric: $("metric").value });
  };
  $("explain-expr").onclick = () => {
    if ($("expr").value.trim()) choose({ expr: $("expr").value });
  };
  $("expr").onkeydown = (e) => {
    if (e.key === "Enter") $("explain-expr").click();
  };

  // Findings as you type, from the same analysis as check and the editor.
  let typing = null;
  $("expr").oninput = () => {
    clearTimeout(typing);
    typing = setTimeout(checkExpr, 200);
  };
  async function checkExpr() {
    const expr = $("expr").value;
    const list = $("findings");
    if (!expr.trim()) {
      list.replaceChildren();
      return;
    }
    try {
      const r = await getJSON("api/check", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ expr }) });
      if ($("expr").value !== expr) return; // typed on meanwhile
      showFindings(r.findings);
    } catch (e) {
      showFindings([{ severity: "error", code: "", message: e.message, col: 1 }]);
    }
  }
  function showFindings(findings) {
    const list = $("findings");
    list.replaceChildren(...findings.map((f) => text("li", f.severity, `${f.col}: ${f.severity}${f.code ? " [" + f.code + "]" : ""}: ${f.message}`)));
    list.dataset.count = findings.length;
  }

  function choose(query) {
    state.query = query;
    state.sample = -1;
    state.at = null;
    history.replaceState(null, "", "?" + new URLSearchParams(query));
    load(true);
  }

  function apiURL(sample, series) {
    const p = new URLSearchParams(state.query);
    if (state.at !== null) p.set("at", state.at);
    else p.set("sample", sample);
    p.set("series", series ? "1" : "0");
    return "api/explain?" + p;
  }

  // --- the tree and its plots --------------------------------------------

  async function load(rebuild) {
    clearTimeout(state.poll);
    showError("");
    const t0 = performance.now();
    let v;
    try {
      v = await getJSON(apiURL(state.sample, true));
      state.marks.answer = performance.now();
      for (const n of v.nodes) n.series = v.series[n.id];
    } catch (e) {
      showError(e.message);
      if (e.body && e.body.findings) showFindings(e.body.findings);
      return;
    }
    const same = state.view && state.view.nodes.length === v.nodes.length && state.view.expr === v.expr && !rebuild;
    state.view = v;
    if (!same) buildTree(v);
    else updatePlots(v);
    showSample(v);
    // How long the answer took to come and be drawn (make bench reads it).
    state.marks.drawn = performance.now();
    state.renderMs = state.marks.drawn - t0;
    state.loads++;
    document.body.dataset.loads = state.loads;
    if (v.live) state.poll = setTimeout(() => load(false), Math.max(250, v.interval_seconds * 1000));
  }

  function buildTree(v) {
    for (const p of state.plots.values()) p.destroy();
    state.plots.clear();
    const tree = $("tree");
    tree.replaceChildren();
    for (const n of v.nodes) {
      const row = text("div", "node");
      row.dataset.id = n.id;
      row.style.setProperty("--depth", n.depth);
      const what = text("div", "what");
      const head = text("div");
      head.append(text("code", "text", n.text), " ", text("span", "meta", `${n.kind} · ${n.metadata}`));
      what.append(head, text("div", "values"), text("div", "explanation"), text("div", "reason"));
      const plot = text("div", "plot");
      row.append(what, plot);
      tree.append(row);
      makePlot(plot, v, n);
    }
    $("time").hidden = false;
  }

  // The x axis is seconds (uPlot's time scale); each instance is a line,
  // null where it has no value; the samples where the node is empty are
  // shaded, and the sample the tree shows is a vertical line.
  function plotData(v, n) {
    const xs = v.times.map((t) => t / 1000);
    const lines = n.series.lines.length ? n.series.lines : [xs.map(() => null)];
    return [xs, ...lines];
  }

  function makePlot(el, v, n) {
    if (!n.series.plotted) {
      el.append(text("div", "noplot", "not plotted: its values are not numbers"));
      el.dataset.points = 0;
      return;
    }
    const names = n.series.instances.length ? n.series.instances : ["no values"];
    const opts = {
      width: 430,
      height: 120,
      legend: { show: names.length <= 8 },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [{ size: 28 }, { size: 50 }],
      series: [{}, ...names.map((name, i) => ({ label: name, stroke: palette[i % palette.length], width: 1.5, spanGaps: false, points: { show: false } }))],
      hooks: { draw: [(u) => decorate(u, n.id)] },
    };
    const u = new uPlot(opts, plotData(v, n), el);
    el.dataset.points = v.times.length;
    el.dataset.lines = n.series.lines.length;
    el.dataset.emptyStretches = n.series.empty.length;
    state.plots.set(n.id, u);
  }

  function updatePlots(v) {
    for (const n of v.nodes) {
      const u = state.plots.get(n.id);
      const el = document.querySelector(`.node[data-id="${n.id}"] .plot`);
      if (!u || !el) continue;
      if (u.series.length - 1 !== Math.max(1, n.series.lines.length) || (n.series.lines.length && u.series[1].label !== n.series.instances[0])) {
        u.destroy();
        el.replaceChildren();
        state.plots.delete(n.id);
        makePlot(el, v, n);
        continue;
      }
      u.setData(plotData(v, n));
      el.dataset.points = v.times.length;
      el.dataset.emptyStretches = n.series.empty.length;
    }
  }

  function decorate(u, id) {
    const v = state.view;
    const n = v && v.nodes[id];
    if (!n) return;
    const ctx = u.ctx;
    const top = u.bbox.top, h = u.bbox.height;
    const xs = u.data[0];
    const half = xs.length > 1 ? (u.valToPos(xs[1], "x", true) - u.valToPos(xs[0], "x", true)) / 2 : 2;
    ctx.save();
    ctx.fillStyle = "rgba(176, 0, 32, 0.15)";
    for (const [a, b] of n.series.empty) {
      const x0 = u.valToPos(xs[a], "x", true) - half, x1 = u.valToPos(xs[b], "x", true) + half;
      ctx.fillRect(x0, top, Math.max(x1 - x0, 2), h);
    }
    const at = shownSample(v);
    if (at >= 0 && at < xs.length) {
      ctx.strokeStyle = "#333";
      ctx.setLineDash([4, 3]);
      const x = u.valToPos(xs[at], "x", true);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + h);
      ctx.stroke();
    }
    ctx.restore();
  }

  function shownSample(v) {
    return state.sample < 0 ? v.times.length - 1 : state.sample;
  }

  // showSample writes a tree's text for its sample (an answer with or
  // without series: the nodes are the same).
  function showSample(t) {
    const v = state.view;
    if (state.at !== null) state.sample = t.sample; // where the window has moved it
    const slider = $("slider");
    slider.max = Math.max(0, v.times.length - 1);
    slider.value = t.sample;
    $("stamp").textContent = t.timestamp ? new Date(t.timestamp).toISOString().replace("T", " ").replace("Z", " UTC") : "no sample";
    $("stamp").dataset.sample = t.sample;
    const w = v.window;
    $("window").textContent = `sample ${t.sample + 1} of ${w.samples}` + (w.stride > 1 ? ` (every ${w.stride}th of ${w.records} records)` : "") + (w.ended ? `; ${w.ended}` : "") + (v.error ? `; ${v.error}` : "");
    const verdict = $("verdict");
    verdict.textContent = t.verdict === "values" ? "The metric has values." : t.verdict === "no values" ? "No values: " + reasonOf(t) : t.verdict === "values vanish below" ? "Values vanish below: " + reasonOf(t) : "Not evaluated.";
    verdict.className = t.verdict === "values" ? "" : "empty";
    verdict.dataset.verdict = t.verdict;
    for (const n of t.nodes) {
      const row = document.querySelector(`.node[data-id="${n.id}"]`);
      if (!row) continue;
      row.classList.toggle("origin", n.id === t.origin || !!n.empty_because);
      row.classList.toggle("empty", n.evaluated && n.values.length === 0);
      row.querySelector(".values").textContent = valuesText(n);
      row.querySelector(".explanation").textContent = n.explanation;
      row.querySelector(".reason").textContent = n.empty_because ? (n.error ? "fails here: " : "no values here: ") + n.empty_because : "";
      row.dataset.values = n.values.length;
    }
    for (const u of state.plots.values()) u.redraw(false, false);
  }

  function reasonOf(t) {
    const o = t.nodes[t.origin];
    return o ? `${o.text}: ${o.empty_because}` : "";
  }

  function valuesText(n) {
    if (!n.evaluated) return n.not_evaluated ? "not evaluated: " + n.not_evaluated : "not evaluated";
    if (n.error) return "fails: " + n.error;
    if (!n.values.length) return "no values";
    const shown = n.values.slice(0, 6).map((x) => (x.instance === null ? "" : `[${x.instance}] `) + x.value);
    return (n.values.length > 6 ? `${n.values.length} values: ` : "") + shown.join(", ") + (n.values.length > 6 ? ", …" : "");
  }

  // The slider asks for the tree alone at the sample picked.
  let sliding = null;
  $("slider").oninput = () => {
    clearTimeout(sliding);
    sliding = setTimeout(async () => {
      const v = state.view;
      const i = Number($("slider").value);
      state.sample = v.live && i === v.times.length - 1 ? -1 : i;
      state.at = v.live && state.sample >= 0 ? v.times[i] : null;
      try {
        const t = await getJSON(apiURL(i, false));
        showSample(t);
        state.loads++;
        document.body.dataset.loads = state.loads;
      } catch (e) {
        showError(e.message);
      }
    }, 60);
  };

  function showError(msg) {
    $("error").textContent = msg;
  }

  loadConfigs().then(() => {
    const p = new URLSearchParams(location.search);
    if (p.get("metric")) {
      $("metric").value = p.get("metric");
      choose({ metric: p.get("metric") });
    } else if (p.get("expr")) {
      $("expr").value = p.get("expr");
      checkExpr();
      choose({ expr: p.get("expr") });
    }
  }, (e) => showError(e.message));
})();
