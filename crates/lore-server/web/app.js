// lore's page: a thin client of the REST API (/api/search, /api/results/{id}); the URL holds
// the search, so a search is a link. Text from the index is only ever set as textContent.
"use strict";

const $ = (id) => document.getElementById(id);
const FIELDS = ["q", "mode", "intent", "detail", "stores", "limit"];
// The token lives in this tab's sessionStorage: it survives a reload, not the tab, and is
// never written to the URL or sent anywhere but this server.
const TOKEN_KEY = "lore-token";

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

async function api(method, path, body) {
  // A person at the page, not an agent: the server learns nothing from what they search.
  const headers = { "Accept": "application/json", "X-Lore-Client": "web-page" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers["Authorization"] = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await resp.json().catch(() => ({ error: resp.statusText }));
  if (resp.status === 401) {
    $("token-box").hidden = false;
    $("token").focus();
  }
  if (!resp.ok) throw new Error(data.error || resp.statusText);
  return data;
}

function readUrl() {
  const p = new URLSearchParams(location.search);
  for (const f of FIELDS) {
    const v = p.get(f);
    if (v !== null) $(f).value = v;
  }
  return p.get("q");
}

function request() {
  const body = { query: $("q").value.trim(), mode: $("mode").value, detail: $("detail").value };
  if ($("intent").value) body.intent = $("intent").value;
  const stores = $("stores").value.split(",").map((s) => s.trim()).filter(Boolean);
  if (stores.length) body.stores = stores;
  const limit = parseInt($("limit").value, 10);
  if (limit > 0) body.limit = limit;
  return body;
}

function status(text, warnings) {
  const s = $("status");
  s.replaceChildren(el("span", null, text));
  for (const w of warnings || []) s.append(el("span", "warning", w));
}

async function search(push) {
  const body = request();
  if (!body.query) return;
  if (push) {
    const p = new URLSearchParams();
    for (const f of FIELDS) if ($(f).value) p.set(f, $(f).value);
    history.pushState(null, "", "?" + p.toString());
  }
  fullWidth(false);
  clearTimeout(polling);
  status("searching…");
  try {
    const r = await api("POST", "/api/search", body);
    // Keyword searches do not use vectors: how much is embedded only matters to the others.
    const fresh = r.mode === "fts" ? [] :
      (r.stores || []).map((s) => `${s.store}: ${Math.round((s.embedded ?? 1) * 100)}% embedded`);
    const intent = r.intent ? ` · ${r.intent.intent}${r.intent.inferred ? " (inferred)" : ""}` : "";
    status(`${r.results.length} results in ${Math.round(r.elapsed_ms ?? 0)} ms · ${r.mode ?? body.mode}${intent}` +
      (fresh.length ? " · " + fresh.join(", ") : ""), r.warnings);
    render(r.results);
    // A result named in the URL (`&id=`) opens as the page loads, listed or not (an id
    // from an agent's answer, a nested unit); one that names nothing says so.
    const id = new URLSearchParams(location.search).get("id");
    const li = id && [...$("results").children].find((x) => x.dataset.id === id);
    if (li) open(li, false);
    else if (id) {
      const unlisted = el("li");
      unlisted.dataset.id = id;
      open(unlisted, false);
    }
  } catch (e) {
    status("error: " + e.message);
    $("results").replaceChildren();
  }
}

function render(results) {
  const list = $("results");
  list.replaceChildren();
  results.forEach((h, i) => {
    const li = el("li");
    li.tabIndex = 0;
    li.dataset.id = h.id;
    const head = el("div");
    head.append(el("span", "kind", h.kind), el("span", "symbol", h.qualified || h.symbol || h.path));
    li.append(head);
    if (h.signature) li.append(el("div", "sig", h.signature));
    if (h.summary) li.append(el("div", "summary", h.summary));
    if (h.snippet) li.append(el("pre", "snippet", h.snippet));
    li.append(el("div", "where", `${h.store}:${h.path}:${h.start_line}-${h.end_line} · score ${h.score} · ≈${h.estimated_tokens} tokens`));
    li.append(el("div", "why", h.reason));
    li.addEventListener("click", () => open(li));
    li.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") open(li);
      if (ev.key === "ArrowDown") li.nextElementSibling?.focus();
      if (ev.key === "ArrowUp") (li.previousElementSibling || $("q")).focus();
    });
    list.append(li);
    if (i === 0) li.classList.add("first");
  });
}

async function open(li, remember = true) {
  for (const s of document.querySelectorAll("#results li.selected")) s.classList.remove("selected");
  li.classList.add("selected");
  if (remember) {
    const p = new URLSearchParams(location.search);
    p.set("id", li.dataset.id);
    history.replaceState(null, "", "?" + p.toString());
  }
  const box = $("context");
  box.hidden = false;
  box.replaceChildren(el("p", "why", "loading…"));
  try {
    const u = await api("GET", "/api/results/" + encodeURIComponent(li.dataset.id));
    box.replaceChildren();
    box.append(el("h2", null, u.qualified || u.symbol || u.path));
    const where = el("div", "where", `${u.store}:${u.path}:${u.start_line}-${u.end_line} · ${u.kind} · `);
    if (u.symbol) where.append(graphLink(u.qualified || u.symbol, "callers and calls"));
    box.append(where);
    if (u.summary) box.append(el("p", "summary", u.summary));
    const pre = el("pre", "code");
    pre.style.setProperty("--start", String((u.start_line || 1) - 1));
    pre.append(...highlightLines(u.content || "", u.language));
    box.append(pre);
    for (const [key, title] of [["callers", "Callers"], ["callees", "Calls"], ["tests", "Tests"]]) {
      const items = u[key] || [];
      if (!items.length) continue;
      box.append(el("h3", null, title));
      const ul = el("ul");
      for (const r of items) {
        const a = el("a", null, r.name);
        a.href = "?" + new URLSearchParams({ q: r.name, intent: "find-definition", mode: $("mode").value }).toString();
        const item = el("li");
        item.append(a, el("span", "where", " " + (r.at || "")));
        ul.append(item);
      }
      box.append(ul);
    }
    if ((u.outline || []).length) {
      box.append(el("h3", null, "Outline"));
      const ul = el("ul");
      for (const o of u.outline) ul.append(el("li", "where", `${"  ".repeat(o.depth || 0)}${o.start_line}-${o.end_line} ${o.kind} ${o.symbol || ""}`));
      box.append(ul);
    }
  } catch (e) {
    box.replaceChildren(el("p", "warning", "error: " + e.message));
  }
}

// Callers and callees of a symbol, two levels deep, as nested lists: each node a link to its
// own graph (`?graph=NAME`). A name called from several places is listed once.
const GRAPH_FANOUT = 8;

function names(answer) {
  const seen = new Set();
  const out = [];
  for (const l of answer.links || []) {
    const name = (l.symbol && (l.symbol.qualified || l.symbol.name)) || l.name;
    if (!name || seen.has(name)) continue;
    seen.add(name);
    const at = l.symbol ? `${l.symbol.path}:${l.symbol.start_line}` : `${l.path}:${l.line}`;
    // A function given as a value (`xs.map(parse)`) is marked; calls are the rule.
    out.push({ name, at: l.kind === "uses" ? `${at} · as a value` : at });
  }
  return out;
}

function graphLink(name, label) {
  const a = el("a", "graph-link", label || name);
  a.href = "?" + new URLSearchParams({ graph: name }).toString();
  return a;
}

async function graphLevel(symbol, direction) {
  return api("GET", "/api/graph?" + new URLSearchParams({ symbol, direction }).toString());
}

// A view of its own (graph, stores) takes the whole width; a search gives it back.
function fullWidth(on) {
  document.querySelector("main").classList.toggle("full", on);
}

// Opens a view of its own (graph, brain, judge runs): no polling, no results, the whole
// width; returns its emptied box.
function openView() {
  clearTimeout(polling);
  fullWidth(true);
  $("results").replaceChildren();
  const box = $("context");
  box.hidden = false;
  box.replaceChildren();
  return box;
}

async function showGraph(symbol) {
  const box = openView();
  status(`graph of ${symbol}…`);
  try {
    const [callers, callees] = await Promise.all([graphLevel(symbol, "callers"), graphLevel(symbol, "callees")]);
    const def = (callers.definitions || [])[0];
    box.append(el("h2", "graph-title", def ? def.qualified || def.name : symbol));
    if (def) box.append(el("div", "where", `${def.store}:${def.path}:${def.start_line}-${def.end_line} · ${def.kind}`));
    if (def && def.signature) box.append(el("div", "sig", def.signature));
    for (const [answer, direction, title] of [[callers, "callers", "Callers"], [callees, "callees", "Calls"]]) {
      box.append(el("h3", null, `${title} (${answer.summary})`));
      const ul = el("ul", "graph " + direction);
      const first = names(answer);
      const second = await Promise.all(first.slice(0, GRAPH_FANOUT).map((n) =>
        graphLevel(n.name, direction).then(names).catch(() => [])));
      first.forEach((n, i) => {
        const li = el("li");
        li.append(graphLink(n.name), el("span", "where", " " + n.at));
        const next = second[i] || [];
        if (next.length) {
          const sub = el("ul");
          for (const m of next) {
            const item = el("li");
            item.append(graphLink(m.name), el("span", "where", " " + m.at));
            sub.append(item);
          }
          li.append(sub);
        }
        ul.append(li);
      });
      box.append(ul);
    }
    status(`graph of ${symbol}: ${callers.summary}; calls: ${callees.summary}`);
  } catch (e) {
    status("error: " + e.message);
  }
}

// Stores with their counts and freshness, and the jobs that add or index them (polled while
// one runs): index or remove a store, add a folder, cancel a job.
const POLL_MS = 1500;
let polling = null;

function ago(secs) {
  if (!secs) return "never";
  const s = Math.max(0, Math.round(Date.now() / 1000 - secs));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 129600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

function button(label, action) {
  const b = el("button", null, label);
  b.type = "button";
  b.addEventListener("click", async () => {
    b.disabled = true;
    try { await action(); } catch (e) { status("error: " + e.message); }
    showStores();
  });
  return b;
}

async function showStores() {
  clearTimeout(polling);
  fullWidth(true);
  $("results").replaceChildren();
  const box = $("context");
  box.hidden = false;
  try {
    const [stores, jobs] = await Promise.all([api("GET", "/api/stores"), api("GET", "/api/jobs")]);
    box.replaceChildren(el("h2", null, "Stores"));
    const table = el("table", "stores");
    const head = el("tr");
    for (const h of ["name", "kind", "files", "chunks", "embedded", "indexed", "source", ""]) head.append(el("th", null, h));
    table.append(head);
    for (const s of stores) {
      const tr = el("tr");
      tr.dataset.store = s.name;
      const embedded = s.embedder === "none" ? "keyword only" :
        s.chunks ? `${Math.round((100 * s.embedded) / s.chunks)}%` : "-";
      for (const v of [s.name, s.kind, s.files, s.chunks, embedded, ago(s.indexed_at), s.source]) tr.append(el("td", null, v));
      const actions = el("td");
      actions.append(
        button("index", () => api("POST", `/api/stores/${encodeURIComponent(s.name)}/index`, {})),
        button("remove", async () => {
          if (confirm(`Remove the store ${s.name} and its index?`)) await api("DELETE", `/api/stores/${encodeURIComponent(s.name)}`);
        }));
      tr.append(actions);
      table.append(tr);
    }
    box.append(table);
    const form = el("form", "add-store");
    const name = el("input"); name.name = "name"; name.placeholder = "name"; name.required = true;
    const source = el("input"); source.name = "source"; source.placeholder = "folder, git URL or site"; source.required = true;
    const embed = el("select"); embed.name = "embed";
    embed.append(new Option("with vectors", "model"), new Option("keyword only", "none"));
    const add = el("button", null, "add store");
    form.append(name, source, embed, add);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try { await api("POST", "/api/stores", { name: name.value.trim(), source: source.value.trim(), embed: embed.value }); }
      catch (e) { status("error: " + e.message); }
      showStores();
    });
    box.append(form);
    box.append(el("h2", null, "Jobs"));
    const list = el("ul", "jobs");
    let running = false;
    for (const j of jobs.slice(0, 20)) {
      const li = el("li");
      li.dataset.status = j.status;
      const p = j.progress || {};
      const done = p.files_total ? ` · files ${p.files_done}/${p.files_total}` : "";
      const chunks = p.chunks_total ? ` · chunks ${p.chunks_done}/${p.chunks_total}` : "";
      li.append(el("span", "kind", j.status), el("span", null, `${j.kind} ${j.spec && (j.spec.name || j.spec.store) || ""}${done}${chunks}`));
      if (j.message) li.append(el("span", "where", " " + j.message));
      if (j.error) li.append(el("span", "warning", " " + j.error));
      if (j.status === "pending" || j.status === "running") {
        running = true;
        li.append(button("cancel", () => api("POST", `/api/jobs/${encodeURIComponent(j.id)}/cancel`, {})));
      }
      list.append(li);
    }
    if (!jobs.length) list.append(el("li", "where", "no jobs yet"));
    box.append(list);
    status(`${stores.length} stores · ${jobs.length} jobs`);
    if (running) polling = setTimeout(showStores, POLL_MS);
  } catch (e) {
    status("error: " + e.message);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("search").addEventListener("submit", (ev) => { ev.preventDefault(); search(true); });

  // From the query box, the arrow down goes to the first result.
  $("q").addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowDown") { ev.preventDefault(); $("results").firstElementChild?.focus(); }
  });
  document.addEventListener("keydown", (ev) => {
    // `/` focuses the query box, unless it is typed into a field (a path, a note).
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement?.tagName);
    if (ev.key === "/" && !typing) { ev.preventDefault(); $("q").focus(); }
  });
  const route = () => {
    const p = new URLSearchParams(location.search);
    if (p.get("view") === "stores") return showStores();
    if (p.get("view") === "brain") return showBrain();
    if (p.get("view") === "judge") return showJudge();
    const graph = p.get("graph");
    if (graph) return showGraph(graph);
    if (readUrl()) return search(false);
    // A result id alone (a link from an agent's answer): its unit, without a search.
    const id = p.get("id");
    if (id) {
      const alone = el("li");
      alone.dataset.id = id;
      return open(alone, false);
    }
    $("q").focus();
  };
  window.addEventListener("popstate", route);
  // The token asked for by a 401: kept for this tab, then the view asked for again.
  $("token-save").addEventListener("click", () => {
    sessionStorage.setItem(TOKEN_KEY, $("token").value);
    $("token-box").hidden = true;
    route();
  });
  route();
});
