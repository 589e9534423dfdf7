// Judge runs at ?view=judge (/api/eval/runs): a chart of each run's average scores, oldest
// to newest, and the runs listed; one opened at &run=NAME shows its summary and each
// query's scores and the judge's analysis. Uses el, api, status and openView from app.js.
"use strict";

const DIMENSIONS = ["relevance", "ranking", "coverage", "snippetQuality", "overall"];

function judgeHref(params) {
  return "?" + new URLSearchParams({ view: "judge", ...params }).toString();
}

function fmt(v) {
  return typeof v === "number" ? v.toFixed(3) : "-";
}

// Average scores across runs, one line per dimension (overall drawn heavier), 0 to 1.
function trend(runs) {
  const done = runs.filter((r) => r.summary && r.summary.averageScores);
  const W = 640, H = 220, L = 40, R = 120, T = 10, B = 30;
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "trend", role: "img", "aria-label": "average scores per run" });
  const x = (i) => L + (done.length < 2 ? (W - L - R) / 2 : (i * (W - L - R)) / (done.length - 1));
  const y = (v) => T + (1 - v) * (H - T - B);
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    chart.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }));
    chart.append(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(2)));
  }
  // Each run by when it finished ("12-04 20:59"), else by its file name.
  done.forEach((r, i) => {
    const t = r.summary.timestamp || "";
    const when = t.length >= 16 ? `${t.slice(5, 10)} ${t.slice(11, 16)}` : r.name.replace(/\.jsonl$/, "");
    chart.append(svg("text", { x: x(i), y: H - 10, "text-anchor": "middle" }, when));
  });
  const labels = [];
  DIMENSIONS.forEach((d, k) => {
    const pts = done.map((r, i) => [x(i), y(Number(r.summary.averageScores[d]) || 0)]);
    if (!pts.length) return;
    const line = svg("polyline", { points: pts.map((p) => p.join(",")).join(" "), class: `dim d${k}` });
    chart.append(line);
    for (const [px, py] of pts) chart.append(svg("circle", { cx: px, cy: py, r: d === "overall" ? 3.5 : 2.5, class: `dim d${k}` }));
    labels.push({ d, k, y: pts[pts.length - 1][1] + 4 });
  });
  // The names at the lines' ends, moved apart where lines end together.
  labels.sort((a, b) => a.y - b.y);
  labels.forEach((l, i) => {
    if (i > 0) l.y = Math.max(l.y, labels[i - 1].y + 13);
    chart.append(svg("text", { x: W - R + 8, y: l.y, class: `label d${l.k}` }, l.d));
  });
  return chart;
}

function scoresRow(tr, scores) {
  for (const d of DIMENSIONS) tr.append(el("td", "num", fmt(scores && scores[d])));
}

function listRuns(runs, box) {
  if (!runs.length) {
    box.append(el("p", "where", "No judge runs yet: `lore eval judge` writes them to <data>/eval/judge/."));
    return;
  }
  box.append(trend(runs));
  const table = el("table", "runs");
  const head = el("tr");
  for (const h of ["run", "mode", "judged", ...DIMENSIONS]) head.append(el("th", null, h));
  table.append(head);
  for (const r of [...runs].reverse()) {
    const tr = el("tr");
    tr.dataset.run = r.name;
    const td = el("td");
    const a = el("a", null, r.name);
    a.href = judgeHref({ run: r.name });
    td.append(a);
    const s = r.summary;
    tr.append(td, el("td", null, s ? s.searchMode || "" : "stopped early"),
      el("td", null, s ? `${s.judgedQueries}/${s.totalQueries}` : `?/${r.queries}`));
    scoresRow(tr, s && s.averageScores);
    table.append(tr);
  }
  box.append(table);
}

function showRun(run, box) {
  box.append(el("h2", null, run.name));
  const s = run.summary;
  if (s) {
    const shaped = [s.searchMode, s.detail, s.searchLimit && `limit ${s.searchLimit}`,
      s.stores && `stores ${s.stores.join(",")}`, s.searchIntent && `intent ${s.searchIntent}`,
      s.judge && `judge ${s.judge}`].filter(Boolean).join(" · ");
    box.append(el("div", "where", `${s.timestamp || ""} · ${shaped} · ${s.judgedQueries}/${s.totalQueries} judged, ${s.failedQueries} failed`));
    const table = el("table", "runs summary");
    const head = el("tr");
    for (const d of DIMENSIONS) head.append(el("th", null, d));
    const tr = el("tr");
    scoresRow(tr, s.averageScores);
    table.append(head, tr);
    box.append(table);
    if (s.recommendedFocus) box.append(el("p", "summary", "Focus: " + s.recommendedFocus));
    if ((s.topIssues || []).length) {
      box.append(el("h3", null, "Top issues"));
      const ul = el("ul");
      for (const i of s.topIssues) ul.append(el("li", null, i));
      box.append(ul);
    }
  } else {
    box.append(el("p", "warning", "This run stopped before its summary."));
  }
  box.append(el("h3", null, `Queries (${run.queries.length})`));
  const table = el("table", "runs queries");
  const head = el("tr");
  for (const h of ["query", "intent", ...DIMENSIONS]) head.append(el("th", null, h));
  table.append(head);
  for (const q of run.queries) {
    const tr = el("tr");
    tr.dataset.status = q.status || "ok";
    const cell = el("td");
    const a = el("a", null, q.query);
    a.href = "?" + new URLSearchParams({ q: q.query, mode: q.searchMode || (s && s.searchMode) || "hybrid" }).toString();
    cell.append(a);
    // The judge's words, overall first, then per dimension.
    const an = q.analysis || {};
    const words = an.overall || [an.relevance, an.ranking].filter(Boolean).join(" ");
    if (words) cell.append(el("div", "why", words));
    if (q.status === "failed") cell.append(el("div", "warning", q.error || "the judge gave no valid answer"));
    const intent = q.intentUsed ? `${q.intentUsed.intent} (${q.intentUsed.source})` : q.queryIntent || "";
    tr.append(cell, el("td", "where", intent));
    scoresRow(tr, q.scores);
    table.append(tr);
  }
  box.append(table);
}

async function showJudge() {
  const box = openView();
  const p = new URLSearchParams(location.search);
  try {
    const name = p.get("run");
    if (name) {
      const all = el("a", null, "all runs");
      all.href = judgeHref({});
      box.append(all);
      showRun(await api("GET", "/api/eval/runs/" + encodeURIComponent(name)), box);
      return status(`judge run ${name}`);
    }
    box.append(el("h2", null, "Judge runs"));
    const runs = await api("GET", "/api/eval/runs");
    listRuns(runs, box);
    status(`${runs.length} judge runs`);
  } catch (e) {
    status("error: " + e.message);
  }
}
