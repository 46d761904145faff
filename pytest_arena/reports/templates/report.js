"use strict";
// pytest-arena's report: the case matrix, filters, drill-downs and comparisons, drawn from
// the records embedded as JSON. Record text only ever enters the page as text nodes.
(function () {
  const data = JSON.parse(document.getElementById("arena-data").textContent);
  const byId = (id) => document.getElementById(id);

  function el(tag, cls, ...kids) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    for (const kid of kids) if (kid !== null && kid !== undefined) node.append(kid);
    return node;
  }
  const fixed = (x, n) => (typeof x === "number" ? x.toFixed(n) : "–");
  function money(x) {
    if (typeof x !== "number") return "–";
    if (x >= 1) return "$" + x.toFixed(2);
    const t = x.toFixed(6).replace(/0+$/, "");
    return "$" + (t.endsWith(".") ? t + "00" : t);
  }
  // control characters and bidi overrides would act unseen (reorder the text around them):
  // each is shown as its code, ⟨U+202E⟩; newlines and tabs stay
  const UNSEEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  const seen = (s) => s.replace(UNSEEN, (c) => "⟨U+" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "⟩");
  const text = (v) => seen(v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v, null, 2));

  // cells: one per (project, case, model), holding every sample of it
  const projects = data.projects.map((p) => ({ name: p.name, models: p.models.slice(), rows: [], byCase: new Map() }));
  const projectOf = new Map(projects.map((p) => [p.name, p]));
  for (const r of data.records) {
    let p = projectOf.get(r.project);
    if (!p) {  // a record of a project the report has no leaderboard for: shown all the same
      p = { name: r.project, models: [], rows: [], byCase: new Map() };
      projects.push(p);
      projectOf.set(p.name, p);
    }
    let row = p.byCase.get(r.case);
    if (!row) {
      row = { project: p, id: r.case, tags: new Set(), scorers: new Set(), cells: new Map(), hay: null, tr: null };
      p.byCase.set(r.case, row);
      p.rows.push(row);
    }
    for (const t of r.tags || []) row.tags.add(t);
    if (r.scorer) row.scorers.add(r.scorer);
    if (!p.models.includes(r.model)) p.models.push(r.model);
    let cell = row.cells.get(r.model);
    if (!cell) row.cells.set(r.model, (cell = { samples: [], sampling: null }));
    if (r.samples && r.samples.length) {
      // a repeated case: one record holding its samples, and the verdict they gave
      cell.sampling = Object.assign({ status: r.status, score: r.score, reason: r.reason }, r.sampling || {});
      for (const s of r.samples) cell.samples.push(Object.assign({}, r, s, { samples: [] }));
    } else cell.samples.push(r);
  }
  for (const p of projects) for (const row of p.rows) for (const cell of row.cells.values()) summarise(cell);

  function summarise(cell) {
    const s = cell.samples;
    const statuses = new Set(s.map((r) => r.status));
    const scores = s.filter((r) => r.status !== "unscored").map((r) => (r.status === "error" ? 0 : r.score || 0));
    cell.score = scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null;
    cell.flaky = s.some((r) => r.flaky) || (statuses.has("passed") && (statuses.has("failed") || statuses.has("error")));
    cell.status = statuses.has("error") && statuses.size === 1 ? "error"
      : statuses.size === 1 && statuses.has("unscored") ? "unscored"
      : statuses.has("failed") || statuses.has("error") ? "failed" : "passed";
    cell.failing = statuses.has("failed") || statuses.has("error");
    cell.shown = s[0];
    cell.reason = s[0] ? s[0].reason : "";
    const v = cell.sampling;
    if (v) {  // the case's own verdict from its samples: its pass rate against min_pass_rate
      cell.shown = s.find((r) => r.sample === v.shown) || s[0];
      cell.reason = v.reason || cell.reason;
      cell.score = typeof v.score === "number" ? v.score : cell.score;
      cell.status = v.status === "flaky" ? "failed" : v.status;
      cell.flaky = cell.flaky || v.status === "flaky";
      cell.failing = v.status !== "passed" && v.status !== "unscored";
    }
  }

  // the filters' choices
  function fill(select, values) {
    for (const v of [...values].sort()) select.append(new Option(seen(v), v));
  }
  const allModels = new Set(), allTags = new Set(), allScorers = new Set();
  for (const p of projects) {
    p.models.forEach((m) => allModels.add(m));
    for (const row of p.rows) { row.tags.forEach((t) => allTags.add(t)); row.scorers.forEach((s) => allScorers.add(s)); }
  }
  const matrix = byId("matrix");
  if (!matrix) {  // a page without cases (no arena case ran): nothing to draw
    window.arenaReport = { readyMs: performance.now(), projects: projects.length, records: data.records.length };
    document.documentElement.dataset.ready = "1";
    return;
  }
  fill(byId("f-project"), projects.map((p) => p.name));
  fill(byId("f-model"), allModels);
  fill(byId("f-tag"), allTags);
  fill(byId("f-scorer"), allScorers);

  // the matrix: one table per project, a row per case, a column per model; the rows that
  // match the filters are drawn PAGE at a time, so a page of any size opens at once
  const PAGE = 500;
  function makeRow(p, row, i) {
    const tr = el("tr", null, el("td", "case", row.id), el("td", "tags", seen([...row.tags].join(" "))));
    tr.dataset.row = i;
    tr.firstChild.title = row.id;
    for (const m of p.models) {
      const cell = row.cells.get(m);
      const td = el("td", "cell");
      td.dataset.model = m;
      if (!cell) { td.classList.add("none"); tr.append(td); continue; }
      const mark = cell.status === "error" ? "✗" : cell.status === "unscored" ? "?" : fixed(cell.score, 2);
      td.append(mark + (cell.flaky ? " ~" : ""));
      td.classList.add(cell.status);
      if (cell.flaky) td.classList.add("flaky");
      if (cell.status === "passed" || cell.status === "failed") {
        td.style.backgroundColor = "hsl(" + Math.round(120 * Math.max(0, Math.min(1, cell.score))) + ",62%,82%)";
      }
      td.title = seen(cell.reason || cell.status);
      td.tabIndex = 0;  // reached by Tab and the arrow keys, opened by Enter or Space
      td.setAttribute("role", "button");
      tr.append(td);
    }
    return tr;
  }
  // the arrow keys move between the cells of the rows drawn, past cells without a record
  const STEPS = {ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0]};
  function neighbour(td, [down, right]) {
    let row = td.parentNode, at = td;
    do {
      if (right) at = right > 0 ? at.nextElementSibling : at.previousElementSibling;
      else {
        row = down > 0 ? row.nextElementSibling : row.previousElementSibling;
        at = row && row.cells[td.cellIndex];
      }
    } while (at && !(at.classList.contains("cell") && !at.classList.contains("none")));
    return at;
  }
  for (const p of projects) {
    const table = el("table", "matrix");
    table.dataset.project = p.name;
    table.append(el("caption", null, seen(p.name)));
    const head = el("tr", null, el("th", null, "case"), el("th", null, "tags"));
    p.models.forEach((m) => { const th = el("th", "model", m); th.dataset.model = m; head.append(th); });
    p.body = el("tbody");
    p.more = el("button", "more");
    p.more.type = "button";
    p.more.addEventListener("click", () => { p.limit += PAGE; draw(p); count(); });
    table.append(el("thead", null, head), p.body);
    table.addEventListener("click", (event) => {
      const td = event.target.closest("td.cell");
      if (!td || td.classList.contains("none")) return;
      open(p, p.rows[Number(td.parentNode.dataset.row)], td.dataset.model, td);
    });
    table.addEventListener("keydown", (event) => {
      const td = event.target.closest("td.cell");
      if (!td || td.classList.contains("none")) return;
      if (event.key in STEPS) {
        const next = neighbour(td, STEPS[event.key]);
        if (next) { event.preventDefault(); next.focus(); }
        return;
      }
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      open(p, p.rows[Number(td.parentNode.dataset.row)], td.dataset.model, td);
    });
    p.table = table;
    p.limit = PAGE;
    p.matches = p.rows.map((row, i) => i);
    matrix.append(table, p.more);
  }

  // filters
  const controls = ["f-failing", "f-flaky", "f-project", "f-model", "f-tag", "f-scorer"].map(byId);
  controls.forEach((c) => c.addEventListener("change", apply));
  let typing = 0;
  byId("f-text").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(apply, 120); });
  byId("filters").addEventListener("submit", (e) => e.preventDefault());

  function haystack(row) {
    if (row.hay === null) {
      const parts = [row.id];
      for (const cell of row.cells.values()) for (const r of cell.samples) {
        for (const m of r.messages || []) parts.push(text(m.content));
        parts.push(text(r.output), r.reason || "");
      }
      row.hay = parts.join("\n").toLowerCase();
    }
    return row.hay;
  }

  let model = "", total = 0;
  function apply() {
    const failing = byId("f-failing").checked, flaky = byId("f-flaky").checked;
    const project = byId("f-project").value, tag = byId("f-tag").value, scorer = byId("f-scorer").value;
    const words = byId("f-text").value.trim().toLowerCase();
    model = byId("f-model").value;
    total = 0;
    for (const p of projects) {
      const on = (!project || p.name === project) && (!model || p.models.includes(model));
      p.table.hidden = !on;
      for (const th of p.table.querySelectorAll("th.model")) th.hidden = !!model && th.dataset.model !== model;
      p.matches = [];
      total += p.rows.length;
      if (on) p.rows.forEach((row, i) => {
        const cells = model ? [row.cells.get(model)].filter(Boolean) : [...row.cells.values()];
        if (failing && !cells.some((c) => c.failing)) return;
        if (flaky && !cells.some((c) => c.flaky)) return;
        if (tag && !row.tags.has(tag)) return;
        if (scorer && !row.scorers.has(scorer)) return;
        if (words && !haystack(row).includes(words)) return;
        p.matches.push(i);
      });
      p.limit = PAGE;
      draw(p);
    }
    count();
  }

  // the cases drawn, not those that match: past PAGE a table draws the rest on "show more"
  function count() {
    let drawn = 0, matched = 0;
    for (const p of projects) {
      drawn += Math.min(p.matches.length, p.limit);
      matched += p.matches.length;
    }
    const waiting = matched - drawn;
    byId("f-count").textContent = drawn + " of " + total + " cases shown" +
      (waiting ? "; " + waiting + " more match, drawn by “show more” below" : "");
  }

  function draw(p) {
    const rows = p.matches.slice(0, p.limit).map((i) => {
      const row = p.rows[i];
      if (!row.tr) row.tr = makeRow(p, row, i);
      for (const td of row.tr.querySelectorAll("td.cell")) td.hidden = !!model && td.dataset.model !== model;
      return row.tr;
    });
    p.body.replaceChildren(...rows);
    const rest = p.matches.length - rows.length;
    p.more.hidden = rest <= 0 || p.table.hidden;
    p.more.textContent = "show " + Math.min(rest, PAGE) + " more of " + rest + " cases not drawn yet";
  }

  // the drill-down
  const drill = byId("drill"), drillBody = byId("drill-body");
  let selected = null;
  byId("drill-close").addEventListener("click", close);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") close(); });
  function close() {
    if (drill.hidden) return;
    drill.hidden = true;
    if (selected) {
      selected.classList.remove("selected");
      selected.focus();  // back to the cell it was opened from
    }
    selected = null;
  }

  function pre(value, cls) { return el("pre", cls || null, text(value)); }
  function pairs(list) {
    const dl = el("dl");
    for (const [k, v] of list) if (v !== undefined) dl.append(el("dt", null, k), el("dd", null, v));
    return dl;
  }
  function tree(value) {
    if (value === null || typeof value !== "object") return el("span", "leaf", text(value));
    const ul = el("ul", "tree");
    for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
      ul.append(el("li", null, el("span", "key", String(k) + ": "), tree(v)));
    }
    if (!ul.childNodes.length) ul.append(el("li", "leaf", Array.isArray(value) ? "[]" : "{}"));
    return ul;
  }

  function sample(r, many) {
    const box = el("div", many ? "sample" : null);
    if (many) box.append(el("h4", null, "sample " + r.sample));
    const badges = el("p", null, el("span", "badge " + r.status, r.status));
    if (r.flaky) badges.append(" ", el("span", "badge flaky", "flaky"));
    if (r.cached) badges.append(" ", el("span", "badge cached", "cached"));
    if (r.xfail) badges.append(" ", el("span", "badge xfail", "marked xfail: " + r.xfail.replace("_strict", " (strict)")));
    box.append(badges, el("p", "reason", text(r.reason) || "(no reason given)"));
    box.append(pairs([
      ["score", fixed(r.score, 3)], ["passed", String(r.passed)], ["scorer", seen(r.scorer || "–")],
      ["weight", String(r.weight)], ["tags", seen((r.tags || []).join(", ")) || "–"],
    ]));
    if (r.error) box.append(el("h4", null, "error"), pre(r.error));
    if (r.messages && r.messages.length) {
      box.append(el("h4", null, "prompt"));
      for (const m of r.messages) box.append(el("div", "role", text(m.role)), pre(m.content));
    }
    box.append(el("h4", null, "output"), pre(r.output === null ? "(no output)" : r.output, "output"));
    if (r.raw_output !== null && r.raw_output !== undefined) box.append(el("h4", null, "raw output (before hooks.py post_process)"), pre(r.raw_output));
    box.append(el("h4", null, "reference"), pre(r.reference));
    const steps = (r.response && r.response.trajectory) || [];
    if (steps.length) box.append(el("h4", null, "trajectory: " + steps.length + " steps"), trajectory(steps));
    if (r.response && r.response.cut) box.append(el("p", "note", "response cut: " + r.response.cut));
    const detail = Object.assign({}, r.detail || {});
    const parts = detail.components;
    if (Array.isArray(parts)) {
      delete detail.components;
      const table = el("table", "board", el("tr", null, ...["component", "weight", "required", "score", "passed", "reason"].map((h) => el("th", "text", h))));
      for (const c of parts) {
        table.append(el("tr", null, el("td", "text", String(c.name || c.scorer || "")), el("td", null, String(c.weight)),
          el("td", null, String(c.required)), el("td", null, fixed(c.score, 3)), el("td", null, String(c.passed)), el("td", "text", text(c.reason))));
      }
      box.append(el("h4", null, "contract components"), table);
    }
    if (detail.judge !== undefined) box.append(el("h4", null, "judge"), pairs([["judge", text(detail.judge)], ["verdict", text(r.reason) || "–"]]));
    if (Object.keys(detail).length) box.append(el("h4", null, "detail"), tree(detail));
    const metrics = Object.entries(r.metrics || {});
    if (metrics.length) box.append(el("h4", null, "metrics"), pairs(metrics.map(([k, v]) => [k, fixed(v, 4)])));
    const tokens = r.tokens || {}, judge = r.judge || {};
    box.append(el("h4", null, "call"), pairs([
      ["tokens", (tokens.input || 0) + " in, " + (tokens.output || 0) + " out"],
      ["cost", money(r.cost)],
      ["latency", typeof r.latency_ms === "number" ? r.latency_ms.toFixed(0) + " ms" + (r.cached ? " (of the original call: this answer came from the cache)" : "") : "–"],
      ["retries", String(r.retries || 0)], ["cached", r.cached ? "yes" : "no, a live call"],
      ["judge", (judge.tokens || 0) + " tokens, " + money(judge.cost)],
      ["workspace", detail.workspace === undefined ? undefined : text(detail.workspace)],
    ]));
    return box;
  }

  // the steps of a tool loop: each call with its arguments and what the tool returned
  function trajectory(steps) {
    const list = el("ol", "trajectory");
    for (const step of steps) {
      const message = step.message || {}, calls = message.tool_calls || [];
      const results = new Map((step.tool_results || []).map((t) => [t.id, t]));
      const item = el("li", null);
      const cost = (step.tokens_in || 0) + " in, " + (step.tokens_out || 0) + " out" +
        (typeof step.latency_ms === "number" ? ", " + step.latency_ms.toFixed(0) + " ms" : "") + (step.cached ? ", cached" : "");
      item.append(el("span", "note", cost));
      if (message.content) item.append(pre(message.content, "output"));
      for (const call of calls) {
        const result = results.get(call.id) || {};
        item.append(el("div", "role", seen(call.name + "(" + JSON.stringify(call.arguments) + ")")));
        if (result.content !== undefined) item.append(pre((result.is_error ? "" : "→ ") + result.content, result.is_error ? "tool-error" : null));
      }
      list.append(item);
    }
    return list;
  }

  function open(p, row, model, td) {
    if (selected) selected.classList.remove("selected");
    selected = td;
    td.classList.add("selected");
    const cell = row.cells.get(model);
    drillBody.replaceChildren(el("h3", null, row.id + " · " + model), el("p", "role", seen(p.name)));
    const many = cell.samples.length > 1;
    const v = cell.sampling;
    if (v) {
      const needs = Math.round(v.min_pass_rate * 1000) / 10 + "%";
      drillBody.append(el("p", null, el("span", "badge " + (v.status === "flaky" ? "flaky" : v.status), v.status),
        " passed " + v.passed + " of " + v.graded + "; needs " + needs + (v.status === "flaky" ? "; still undecided after " + v.drawn + " samples" : "")));
    }
    if (many) drillBody.append(el("p", null, cell.samples.length + " samples" + (cell.flaky ? ", which disagree" + (v ? "" : " (flaky)") : "")));
    for (const r of cell.samples) drillBody.append(sample(r, many));
    const others = p.models.filter((m) => m !== model && row.cells.has(m));
    if (others.length) {
      const choose = el("select", "compare-with");
      for (const m of others) choose.append(new Option(m, m));
      const area = el("div");
      const show = () => area.replaceChildren(compare(cell, row.cells.get(choose.value), model, choose.value));
      choose.addEventListener("change", show);
      drillBody.append(el("h4", null, "side by side"), el("label", null, "compare with ", choose), area);
      show();
    }
    drill.hidden = false;
    drill.scrollTop = 0;
    byId("drill-close").focus();  // keyboard users land in the drill-down
  }

  // two outputs side by side, the words that differ marked (a word diff, LCS)
  function compare(cellA, cellB, modelA, modelB) {
    const a = cellA.shown, b = cellB.shown;
    const left = tokens(seen(text(a.output))), right = tokens(seen(text(b.output)));
    const [ops, exact] = diff(left, right);
    const colA = el("pre", "output"), colB = el("pre", "output");
    for (const [op, word] of ops) {
      if (op === 0) { colA.append(word); colB.append(word); }
      else if (op < 0) colA.append(el("del", null, word));
      else colB.append(el("ins", null, word));
    }
    const status = (c) => (c.flaky && c.sampling && c.sampling.status === "flaky" ? "flaky" : c.status);
    const head = (c, m) => el("div", null, el("strong", null, m), " ", el("span", "badge " + status(c), status(c)), " ", fixed(c.score, 3));
    const grid = el("div", "compare", head(cellA, modelA), head(cellB, modelB), colA, colB,
      el("div", "reason", text(cellA.reason)), el("div", "reason", text(cellB.reason)));
    return exact ? grid : el("div", null, el("p", "note", "outputs too long to compare word by word: shown whole, differences not marked"), grid);
  }
  function tokens(s) { return typeof s === "string" ? s.split(/(\s+)/).filter((t) => t !== "") : []; }
  function diff(a, b) {
    const n = a.length, m = b.length;
    if (n * m > 4e6) return [[[-1, a.join("")], [1, b.join("")]], false];
    const width = m + 1, table = new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1] + 1
        : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
    const ops = [];
    let i = 0, j = 0;
    while (i < n && j < m) {
      if (a[i] === b[j]) { ops.push([0, a[i]]); i++; j++; }
      else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) ops.push([-1, a[i++]]);
      else ops.push([1, b[j++]]);
    }
    while (i < n) ops.push([-1, a[i++]]);
    while (j < m) ops.push([1, b[j++]]);
    return [ops, true];
  }

  apply();
  window.arenaReport = { readyMs: performance.now(), projects: projects.length, records: data.records.length };
  document.documentElement.dataset.ready = "1";
})();
