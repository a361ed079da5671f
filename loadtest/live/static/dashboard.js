// The dashboard: draws the frames of package live with uPlot. It knows no
// board names: server series, their panels and units, the "doing now"
// shares and the runs come from the frames. Live, it reads /events
// (server-sent events); as a report, it reads the frames inlined in the page.
// A frame marked between is no second of load (notes, a calibration's
// seconds, the end): the time charts skip it.
(function () {
  "use strict";

  // The page's language: ?lang= in its URL, else the one it was written in
  // (data-lang: a report's -lang), else the browser's. Japanese words come
  // from the catalogue inlined in the page (package live's lang.go), keyed
  // by their English, {0} and {1} standing for figures; a word it lacks,
  // and the names the frames carry, stay English.
  var LANG = /^ja\b/i.test(new URLSearchParams(location.search).get("lang") ||
    document.documentElement.getAttribute("data-lang") || navigator.language || "") ? "ja" : "en";
  var JA = LANG === "ja" ? JSON.parse(document.getElementById("japanese").textContent) : {};
  document.documentElement.lang = LANG;
  function t(s) {
    var args = arguments;
    return (JA[s] || s).replace(/\{(\d)\}/g, function (m, i) { return String(args[+i + 1]); });
  }

  var PALETTE = ["#4dc9ff", "#ffc233", "#ff5c6c", "#3ddc84", "#c77dff", "#ff8c42", "#f5f5f5", "#00e5c0", "#ff7eb6", "#a0a0ff"];
  var AXIS = { stroke: "#f5f5f5", font: "20px system-ui, sans-serif", labelFont: "bold 20px system-ui, sans-serif",
    grid: { stroke: "#2e313b", width: 1 }, ticks: { stroke: "#555", width: 1 } };
  var HEIGHT = 210;
  var ABSENT = t("not available on this OS");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function fmt(v) {
    if (v == null || !isFinite(v)) return "–";
    if (v === 0) return "0";
    var a = Math.abs(v);
    if (a >= 1000) return Math.round(v).toLocaleString("en-US");
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    if (a >= 1) return v.toFixed(2);
    return v.toFixed(3);
  }
  function clock(s) {
    if (!isFinite(s) || s < 0) s = 0;
    s = Math.round(s);
    var m = Math.floor(s / 60), r = s % 60;
    return m + ":" + (r < 10 ? "0" : "") + r;
  }
  function axis(label, extra) {
    var a = Object.assign({}, AXIS, { label: label, size: 70, labelSize: 30 });
    return Object.assign(a, extra || {});
  }

  // showLast shows the newest values in a chart's legend, the number the
  // room reads. A chart just built sets its legend once more after its
  // first draw, hence the second call.
  function showLast(chart, n) {
    if (n === 0) return;
    chart.setLegend({ idx: n - 1 });
    setTimeout(function () { if (chart.data[0].length === n) chart.setLegend({ idx: n - 1 }); }, 0);
  }

  // A TimeChart draws named series against seconds; names may appear at any
  // frame, so it keeps its own columns and rebuilds the chart when a name is new.
  function TimeChart(section, opts) {
    this.section = section;
    this.box = el("div", "chart");
    section.appendChild(this.box);
    this.opts = opts || {};
    this.names = [];
    this.units = {};
    this.cols = {};
    this.absent = {}; // names whose latest frame said absent
    this.dashed = {}; // names drawn dashed (a limit, a sum)
    this.t = [];
    this.chart = null;
    this.rebuild = true;
  }
  TimeChart.prototype.push = function (t, values) { // values: [{name, value, unit}]
    var n = this.t.length;
    this.t.push(t);
    var seen = {};
    for (var i = 0; i < values.length; i++) {
      var v = values[i];
      if (!(v.name in this.cols)) {
        var col = new Array(n);
        for (var j = 0; j < n; j++) col[j] = null;
        this.cols[v.name] = col;
        this.names.push(v.name);
        this.rebuild = true;
      }
      if (v.unit != null) this.units[v.name] = v.unit;
      if (v.dashed) this.dashed[v.name] = true;
      // An absent series has no value on the server's OS: no point, and
      // the legend says why (ABSENT).
      if (v.absent) this.absent[v.name] = true;
      else delete this.absent[v.name];
      this.cols[v.name].push(v.absent ? null : v.value);
      seen[v.name] = true;
    }
    for (var k = 0; k < this.names.length; k++) {
      if (!seen[this.names[k]]) this.cols[this.names[k]].push(null);
    }
  };
  TimeChart.prototype.data = function () {
    var d = [this.t];
    for (var i = 0; i < this.names.length; i++) d.push(this.cols[this.names[i]]);
    return d;
  };
  TimeChart.prototype.unitLabel = function () {
    var seen = {}, list = [];
    for (var i = 0; i < this.names.length; i++) {
      var u = this.units[this.names[i]];
      if (u && !seen[u]) { seen[u] = true; list.push(u); }
    }
    return list.join(", ");
  };
  TimeChart.prototype.draw = function () {
    if (this.t.length === 0) return;
    var data = this.opts.transform ? this.opts.transform(this) : this.data();
    if (this.rebuild || !this.chart) {
      if (this.chart) this.chart.destroy();
      var self = this;
      var series = [{ label: "s", value: function (u, v) { return v == null ? "–" : clock(v); } }];
      var order = this.opts.order ? this.opts.order(this) : this.names.map(function (_, i) { return i; });
      for (var i = 0; i < order.length; i++) {
        var name = this.names[order[i]];
        var color = this.opts.colors ? this.opts.colors[name] : PALETTE[order[i] % PALETTE.length];
        var unit = this.units[name];
        var s = { label: t(name) + (unit && this.opts.unitsInLegend ? " (" + unit + ")" : ""), stroke: color, width: 3,
          spanGaps: false, points: { show: false } };
        if (this.opts.fill) s.fill = color;
        if (this.dashed[name]) s.dash = [12, 8];
        if (this.opts.rawValue) s.value = this.opts.rawValue(name);
        else s.value = (function (name) {
          return function (u, v) { return v == null && self.absent[name] ? ABSENT : fmt(v); };
        })(name);
        series.push(s);
      }
      var yl = t(this.opts.yLabel || this.unitLabel());
      this.chart = new uPlot({
        width: Math.max(300, this.section.clientWidth - 24), height: HEIGHT,
        scales: { x: { time: false }, y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.08 : 1]; } } },
        axes: [axis(null, { size: 40, labelSize: 0 }), axis(yl, { values: function (u, vals) { return vals.map(fmt); } })],
        series: series,
        legend: { live: true },
        cursor: { drag: { x: false, y: false } }
      }, data, this.box);
      this.rebuild = false;
    } else {
      this.chart.setData(data);
    }
    showLast(this.chart, data[0].length);
  };

  // The page's fixed words (the header, the notes' heading) in its language.
  [document.querySelector("header"), document.querySelector("#notes h2")].forEach(function (root) {
    var walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT), n, s;
    while ((n = walk.nextNode())) {
      s = n.nodeValue.trim();
      if (JA[s]) n.nodeValue = n.nodeValue.replace(s, JA[s]);
    }
  });
  document.title = t(document.title);

  // Layout: progress on top, then the panels.
  var main = document.getElementById("panels");
  function panel(title, sub) {
    var s = el("section");
    var h = el("h2", null, t(title));
    if (sub) { h.appendChild(document.createTextNode(" ")); h.appendChild(el("small", null, t(sub))); }
    s.appendChild(h);
    main.appendChild(s);
    return s;
  }

  var thrChart = new TimeChart(panel("Throughput", "successful requests per second"), { yLabel: "req/s" });
  var latChart = new TimeChart(panel("Response time", "p50 / p90 / p95 / p99 of the second, ms"), { yLabel: "ms" });
  var doingChart = new TimeChart(panel("What requests are doing now", "mean requests in each state, stacked"), {
    yLabel: "requests", fill: true,
    // Stacked: each series is the running sum up to it; drawn top first so
    // that each lower band paints over the one above it.
    transform: function (c) {
      var d = [c.t], acc = new Array(c.t.length).fill(0), stacked = [];
      for (var i = 0; i < c.names.length; i++) {
        var col = c.cols[c.names[i]];
        acc = acc.map(function (a, j) { return a + (col[j] || 0); });
        stacked.push(acc.slice());
      }
      for (var k = c.names.length - 1; k >= 0; k--) d.push(stacked[k]);
      return d;
    },
    order: function (c) { return c.names.map(function (_, i) { return c.names.length - 1 - i; }); },
    rawValue: function (name) {
      return function (u, v, si, idx) { return idx == null ? "–" : fmt(doingChart.cols[name][idx]); };
    }
  });
  var stepsSection = panel("Throughput vs clients", "one curve per run, a point per step");
  var stepsRtSection = panel("Response time vs clients", "mean (solid) and p99 (dashed), ms");
  var claimsSection = panel("Claims", "outcomes as they become decidable");
  var claimsCount = el("p", "claims-count");
  var claimsList = el("ul", "claims");
  claimsSection.appendChild(claimsCount);
  claimsSection.appendChild(claimsList);
  claimsList.appendChild(el("li", "empty", t("No claim decided yet.")));
  var errSection = panel("Errors", "by kind, per second");
  var errChart = new TimeChart(errSection, { yLabel: "errors/s" });
  var serverCharts = {}; // panel name -> TimeChart
  var serverOrder = [];

  // Experiment curves: x = clients (union over runs), one series per run.
  var steps = { runs: [], byRun: {} };
  var stepCharts = { thr: null, rt: null };
  function stepData(field) {
    var xs = {};
    steps.runs.forEach(function (r) { steps.byRun[r].forEach(function (p) { xs[p.clients] = true; }); });
    var x = Object.keys(xs).map(Number).sort(function (a, b) { return a - b; });
    var d = [x];
    var fields = Array.isArray(field) ? field : [field];
    fields.forEach(function (f) {
      steps.runs.forEach(function (r) {
        var at = {};
        steps.byRun[r].forEach(function (p) { at[p.clients] = p[f]; });
        d.push(x.map(function (c) { return c in at ? at[c] : null; }));
      });
    });
    return d;
  }
  function drawSteps(rebuild) {
    if (steps.runs.length === 0) return;
    var defs = [
      { key: "thr", section: stepsSection, fields: ["throughput"], y: "req/s" },
      { key: "rt", section: stepsRtSection, fields: ["mean_ms", "p99_ms"], y: "ms" }
    ];
    defs.forEach(function (def) {
      var data = stepData(def.fields);
      if (rebuild || !stepCharts[def.key]) {
        if (stepCharts[def.key]) stepCharts[def.key].destroy();
        var series = [{ label: "clients", value: function (u, v) { return v == null ? "–" : String(v); } }];
        def.fields.forEach(function (f, fi) {
          steps.runs.forEach(function (r, ri) {
            var c = PALETTE[ri % PALETTE.length];
            // One legend entry per run: the p99 curves (dashed, as the
            // panel's subtitle says) are left out of it below.
            series.push({ label: r + (fi > 0 ? " p99" : ""), stroke: c, width: 3,
              dash: fi > 0 ? [12, 8] : undefined, spanGaps: true, points: { show: true, size: 12, fill: c },
              value: function (u, v) { return fmt(v); } });
          });
        });
        stepCharts[def.key] = new uPlot({
          width: Math.max(300, def.section.clientWidth - 24), height: HEIGHT,
          scales: { x: { time: false }, y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.08 : 1]; } } },
          axes: [axis(t("clients")), axis(def.y, { values: function (u, vals) { return vals.map(fmt); } })],
          // The points carry the values; the legend only names the curves,
          // inline, so that long run names do not push the chart away.
          series: series, legend: { live: false }, cursor: { drag: { x: false, y: false } }
        }, data, def.section);
        var rows = stepCharts[def.key].root.querySelectorAll(".u-legend .u-series");
        for (var i = 0; i < rows.length; i++) {
          if (/ p99$/.test(rows[i].textContent.trim())) rows[i].style.display = "none";
        }
      } else {
        stepCharts[def.key].setData(data);
      }
    });
  }

  // The experiment's notes, each sent once: the page keeps them all.
  var notesSection = document.getElementById("notes"), notesList = notesSection.querySelector("ul");
  var notes = [], noteSeen = Object.create(null);
  function drawNotes() {
    notesList.textContent = "";
    notes.forEach(function (n) { notesList.appendChild(el("li", null, n)); });
    notesSection.hidden = notes.length === 0;
  }

  var claims = {}, claimOrder = [];
  // The outcomes' order in the count, as the report's (live.Outcomes).
  var outcomeOrder = ["reproduced", "does not discriminate", "not reproduced", "inconclusive", "not measured"];
  function drawClaims() {
    claimsList.textContent = "";
    var n = {};
    claimOrder.forEach(function (id) { n[claims[id].outcome] = (n[claims[id].outcome] || 0) + 1; });
    claimsCount.textContent = outcomeOrder.filter(function (o) { return n[o]; })
      .map(function (o) { return t("{0} {1}", n[o], t(o)); }).join(t(", "));
    claimOrder.forEach(function (id) {
      var c = claims[id];
      var li = el("li");
      li.appendChild(el("span", "outcome " + String(c.outcome).replace(/ /g, "-"), t(c.outcome)));
      li.appendChild(document.createTextNode(c.text || c.id));
      claimsList.appendChild(li);
    });
  }

  // State shown in the header.
  var status = document.getElementById("status");
  // s is English, its class; the status shows it in the page's language.
  function setStatus(s, more) { status.textContent = t(s) + (more || ""); status.className = s.replace(/[^a-z]/g, ""); }
  // last is the latest frame the headline shows (a second, or the end);
  // progress the latest frame's progress.
  var last = null, progress = null, frames = 0, done = false;
  var stepsChanged = false, stepsRebuild = false, claimsChanged = false, notesChanged = false;

  // Tunings: each path through the workers × pool plane, drawn as an SVG
  // (x = connections, y = workers), a numbered point per step, the best
  // ringed; the panel appears with the first tuner step.
  var tunes = { paths: [], byPath: {} }, tuneSection = null, tuneChanged = false;
  // The SVG is written as markup: the HTML parser puts it in the SVG
  // namespace by itself.
  function esc(v) {
    return String(v).replace(/[&<>"]/g, function (ch) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[ch]; });
  }
  function svgEl(name, attrs, text) {
    var a = Object.keys(attrs).map(function (k) { return " " + k + '="' + esc(attrs[k]) + '"'; }).join("");
    return "<" + name + a + (text == null ? "/>" : ">" + esc(text) + "</" + name + ">");
  }
  function drawTunes() {
    if (tunes.paths.length === 0) return;
    if (!tuneSection) tuneSection = panel("Tuning path: workers × connections", "a point per step (its number, throughput and the limit named); the best ringed");
    var old = tuneSection.querySelector("div.tune, ul.tune");
    while (old) { old.remove(); old = tuneSection.querySelector("div.tune, ul.tune"); }
    var maxW = 1, maxP = 1;
    tunes.paths.forEach(function (p) { tunes.byPath[p].forEach(function (s) { maxW = Math.max(maxW, s.workers); maxP = Math.max(maxP, s.pool); }); });
    var W = Math.max(320, tuneSection.clientWidth - 24), H = HEIGHT, m = 40;
    var x = function (v) { return m + (W - 2 * m) * v / (maxP * 1.05); };
    var y = function (v) { return H - m - (H - 2 * m) * v / (maxW * 1.05); };
    var svg = [];
    svg.push(svgEl("line", { x1: m, y1: H - m, x2: W - m, y2: H - m, stroke: "#888" }));
    svg.push(svgEl("line", { x1: m, y1: m, x2: m, y2: H - m, stroke: "#888" }));
    var ink = "#bbb";
    svg.push(svgEl("text", { x: W / 2, y: H - 8, "text-anchor": "middle", "font-size": 12, fill: ink }, t("connections (pool)")));
    svg.push(svgEl("text", { x: 12, y: H / 2, "font-size": 12, fill: ink, transform: "rotate(-90 12 " + H / 2 + ")", "text-anchor": "middle" }, t("workers")));
    [maxP, Math.round(maxP / 2)].forEach(function (v) { svg.push(svgEl("text", { x: x(v), y: H - m + 14, "text-anchor": "middle", "font-size": 11, fill: ink }, String(v))); });
    [maxW, Math.round(maxW / 2)].forEach(function (v) { svg.push(svgEl("text", { x: m - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: ink }, String(v))); });
    var legend = el("ul", "tune");
    tunes.paths.forEach(function (p, pi) {
      var c = PALETTE[pi % PALETTE.length], pts = tunes.byPath[p], lastPt = pts[pts.length - 1];
      pts.forEach(function (s) { s.best = s.workers === lastPt.best_workers && s.pool === lastPt.best_pool; });
      svg.push(svgEl("polyline", { fill: "none", stroke: c, "stroke-width": 2,
        points: pts.map(function (s) { return x(s.pool) + "," + y(s.workers); }).join(" ") }));
      // One label per setting, its steps' numbers and the last one's
      // figures, to the left of points in the right half.
      var at = {};
      pts.forEach(function (s) {
        svg.push(svgEl("circle", { cx: x(s.pool), cy: y(s.workers), r: s.best ? 9 : 5, fill: s.best ? "none" : c, stroke: c, "stroke-width": 3 }));
        var k = s.workers + "/" + s.pool;
        at[k] = { s: s, ns: (at[k] ? at[k].ns + "," : "") + s.n };
      });
      Object.keys(at).forEach(function (k) {
        var s = at[k].s, right = x(s.pool) > W / 2;
        svg.push(svgEl("text", { x: x(s.pool) + (right ? -10 : 10), y: y(s.workers) - 8, "font-size": 11, fill: c, "text-anchor": right ? "end" : "start" },
          at[k].ns + ": " + k + " " + fmt(s.throughput) + "/s, " + s.limit));
      });
      var last = pts[pts.length - 1];
      legend.appendChild(el("li", null, t("{0}: {1} steps, last {2} ({3}): {4}", p, pts.length, last.workers + "/" + last.pool, last.limit, last.decision)));
    });
    var box = el("div", "tune");
    box.innerHTML = '<svg class="tune" width="' + W + '" height="' + H + '" role="img" aria-label="tuning path">' + svg.join("") + "</svg>";
    tuneSection.appendChild(box);
    tuneSection.appendChild(legend);
  }

  function add(f) {
    frames++;
    progress = f.progress || {};
    (f.notes || []).forEach(function (n) {
      if (noteSeen[n]) return;
      noteSeen[n] = true;
      notes.push(n);
      notesChanged = true;
    });
    if (!f.between) seconds(f);
    if (!f.between || f.done) last = f;
    if (f.tune) {
      var tp = f.tune.path;
      if (!tunes.byPath[tp]) { tunes.byPath[tp] = []; tunes.paths.push(tp); }
      tunes.byPath[tp].push(f.tune);
      tuneChanged = true;
    }
    if (f.step) {
      var r = f.step.run;
      if (!steps.byRun[r]) { steps.byRun[r] = []; steps.runs.push(r); stepsRebuild = true; }
      steps.byRun[r].push(f.step);
      stepsChanged = true;
    }
    (f.claims || []).forEach(function (cl) {
      if (!(cl.id in claims)) claimOrder.push(cl.id);
      claims[cl.id] = cl;
      claimsChanged = true;
    });
    if (f.done) done = true;
  }

  // seconds adds a second of load to the time charts.
  function seconds(f) {
    var c = f.client || {};
    var any = c.throughput > 0;
    thrChart.push(f.t, [{ name: "throughput", value: c.throughput, unit: "req/s" }]);
    latChart.push(f.t, [
      { name: "p50", value: any ? c.p50_ms : null, unit: "ms" },
      { name: "p90", value: any ? c.p90_ms : null, unit: "ms" },
      { name: "p95", value: any ? c.p95_ms : null, unit: "ms" },
      { name: "p99", value: any ? c.p99_ms : null, unit: "ms" }]);
    doingChart.push(f.t, (f.doing || []).map(function (s) { return { name: s.name, value: s.value, unit: "requests" }; }));
    errChart.push(f.t, (c.errors || []).map(function (e) { return { name: e.kind, value: e.count, unit: "errors/s" }; }));
    var byPanel = {};
    (f.server || []).forEach(function (s) {
      if (!byPanel[s.panel]) byPanel[s.panel] = [];
      byPanel[s.panel].push({ name: s.name, value: s.value, unit: s.unit, absent: !!s.absent, dashed: !!s.dashed });
    });
    Object.keys(byPanel).forEach(function (p) {
      if (!serverCharts[p]) {
        serverCharts[p] = new TimeChart(panel(p, "server"), { unitsInLegend: true });
        serverOrder.push(p);
        // A panel that appears late has no points for the seconds before it.
      }
    });
    serverOrder.forEach(function (p) { serverCharts[p].push(f.t, byPanel[p] || []); });
  }

  function header() {
    if (!progress) return;
    var p = progress;
    if (p.experiment && !inlined) document.title = t("{0} – load dashboard", p.experiment);
    document.getElementById("experiment").textContent = p.experiment || "–";
    document.getElementById("run").textContent = p.run || "–";
    // Before the first step (the notes of the set-up) no step is loading.
    document.getElementById("step").textContent = p.steps ? t("{0} of {1}", p.step || 0, p.steps) : "–";
    document.getElementById("clients").textContent = p.steps ? String(p.clients || 0) : "–";
    document.getElementById("elapsed").textContent = clock(p.elapsed);
    document.getElementById("left").textContent = clock(p.left);
    var total = (p.elapsed || 0) + (p.left || 0);
    document.getElementById("bar").style.width = (total > 0 ? 100 * (p.elapsed || 0) / total : 0) + "%";
    if (last) headline(last);
  }

  // headline fills the big tiles: live, the last second; once the
  // experiment has finished (the last frame's summary), the whole
  // experiment's figures, since the seconds after the end of load are empty.
  function headline(f) {
    var s = f.done && f.summary, c = f.client || {};
    var text = function (id, v) { document.getElementById(id).textContent = v; };
    var thr, p99, errs, where = "";
    if (s) {
      var pk = s.peak;
      thr = pk ? fmt(pk.throughput) : "–";
      p99 = pk && pk.throughput > 0 ? fmt(pk.p99_ms) : "–";
      if (pk) where = t(pk.clients === 1 ? "{0} at 1 client" : "{0} at {1} clients", pk.run, pk.clients);
      errs = s.errors || 0;
      text("head-req", (s.requests || 0).toLocaleString("en-US"));
      text("head-dur", clock(s.duration));
    } else {
      thr = fmt(c.throughput);
      p99 = c.throughput > 0 ? fmt(c.p99_ms) : "–";
      errs = (c.errors || []).reduce(function (a, e) { return a + e.count; }, 0);
    }
    document.getElementById("headline").className = "big" + (s ? " finished" : "");
    text("scope", s ? t(s.steps === 1 ? "whole experiment, 1 step" : "whole experiment, {0} steps", s.steps) : t("last second"));
    text("thr-label", t(s ? "peak throughput, req/s" : "throughput, req/s"));
    text("p99-label", t(s ? "p99 at the peak, ms" : "p99, ms"));
    text("err-label", t(s ? "errors measured" : "errors this second"));
    text("head-thr", thr);
    text("thr-where", where);
    text("head-p99", p99);
    var ne = document.getElementById("head-err");
    ne.textContent = errs.toLocaleString("en-US");
    ne.className = errs > 0 ? "bad" : "";
  }

  var pending = false;
  function redraw() {
    pending = false;
    header();
    thrChart.draw(); latChart.draw(); doingChart.draw(); errChart.draw();
    serverOrder.forEach(function (p) { serverCharts[p].draw(); });
    if (stepsChanged) { drawSteps(stepsRebuild); stepsChanged = stepsRebuild = false; }
    if (tuneChanged) { drawTunes(); tuneChanged = false; }
    if (claimsChanged) { drawClaims(); claimsChanged = false; }
    if (notesChanged) { drawNotes(); notesChanged = false; }
    // Said after drawing, so that "finished" means everything is on screen.
    if (done && !inlined) setStatus("finished");
    else if (streaming) liveStatus();
  }
  // liveStatus says what the connected page shows: the phase outside the
  // steps ("calibrating…"), or that it is connected.
  var streaming = false;
  function liveStatus() { if (progress && progress.phase) setStatus(progress.phase, "…"); else setStatus("connected"); }
  // Frames of a late joiner's history arrive in a burst: draw once after it.
  function schedule() { if (!pending) { pending = true; setTimeout(redraw, 30); } }

  // Rebuild the charts when the width changes (a taller window, as when a
  // screenshot takes the whole page, needs nothing).
  var width = window.innerWidth;
  window.addEventListener("resize", function () {
    if (window.innerWidth === width) return;
    width = window.innerWidth;
    var all = [thrChart, latChart, doingChart, errChart].concat(serverOrder.map(function (p) { return serverCharts[p]; }));
    all.forEach(function (c) { c.rebuild = true; });
    stepsChanged = stepsRebuild = true;
    schedule();
  });

  // What a test (or a curious instructor) can read from the console.
  window.dashboard = {
    frames: function () { return frames; },
    points: function () {
      var n = function (col) { return col ? col.filter(function (v) { return v != null; }).length : 0; };
      return { t: thrChart.t.length, throughput: n(thrChart.cols.throughput), latency: n(latChart.cols.p99) };
    },
    // The latest share drawn of each state: the last seconds of a step
    // may have none.
    doing: function () {
      var out = {};
      doingChart.names.forEach(function (name) {
        var col = doingChart.cols[name], i = col.length - 1;
        while (i > 0 && col[i] == null) i--;
        out[name] = col[i];
      });
      return out;
    },
    panels: function () {
      var out = {};
      serverOrder.forEach(function (p) { out[p] = serverCharts[p].names.slice(); });
      return out;
    },
    // absent: per panel, the series whose latest frame said "not
    // available on this OS".
    absent: function () {
      var out = {};
      serverOrder.forEach(function (p) { out[p] = Object.keys(serverCharts[p].absent); });
      return out;
    },
    steps: function () {
      var out = {};
      steps.runs.forEach(function (r) { out[r] = steps.byRun[r].length; });
      return out;
    },
    claims: function () { return claimOrder.map(function (id) { return claims[id]; }); },
    lang: function () { return LANG; },
    done: function () { return done; }
  };

  var inlined = document.getElementById("frames");
  if (inlined) {
    JSON.parse(inlined.textContent).forEach(add);
    setStatus("report");
    redraw();
    return;
  }
  setStatus("connecting");
  var es = new EventSource("events");
  es.onopen = function () { streaming = true; liveStatus(); };
  es.onmessage = function (ev) {
    add(JSON.parse(ev.data));
    if (done) es.close();
    schedule();
  };
  es.onerror = function () { streaming = false; if (!done) setStatus("reconnecting"); };
})();
