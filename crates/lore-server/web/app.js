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
  if (!resp.ok) throw new Error(inPage(data.error || resp.statusText));
  return data;
}

// The server words its errors for every client; a person at the page is told where in the
// page to act, not which command to run.
const IN_PAGE = [
  [/add one with `lore store add[^`]*`/g, "add one in the stores view (stores & jobs, above)"],
  [/\(see `lore store list`\)/g, "(the stores view lists them)"],
  [/`lore jobs`/g, "the jobs in the stores view"],
  [/ids come from `lore search`/g, "ids come from a search"],
  [/`lore search "([^"]*)"`/g, "a search for \"$1\""],
];

function inPage(message) {
  return IN_PAGE.reduce((m, [from, to]) => m.replace(from, to), String(message));
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
    // As many as asked for came back: there may be more.
    if (r.results.length && r.results.length >= (body.limit || 10) && (body.limit || 10) < 100) {
      const more = el("button", "more", "more results");
      more.type = "button";
      more.addEventListener("click", () => {
        $("limit").value = String(Math.min(100, (body.limit || 10) + 10));
        search(true);
      });
      const li = el("li", "more-row");
      li.append(more);
      $("results").append(li);
    }
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
  document.querySelector("main").classList.add("opened");
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
    const where = el("div", "where");
    where.append(fileLink(u.store, u.path, `${u.store}:${u.path}`),
      ` :${u.start_line}-${u.end_line} · ${u.kind}`);
    if (u.symbol) where.append(" · ", graphLink(u.qualified || u.symbol, "call graph"));
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
        // `at` is `path:line` in the unit's own store: the link opens the unit there.
        const [path, line] = splitAt(r.at || "");
        const item = el("li");
        item.append(path ? fileLink(u.store, path, r.name, line) : el("span", null, r.name),
          el("span", "where", " " + (r.at || "")));
        ul.append(item);
      }
      box.append(ul);
    }
    if ((u.outline || []).length) {
      box.append(el("h3", null, "Outline"));
      const ul = el("ul");
      for (const o of u.outline) ul.append(outlineItem(o, o.id === u.id));
      box.append(ul);
    }
  } catch (e) {
    box.replaceChildren(el("p", "warning", "error: " + e.message));
  }
}

// `path:line` → [path, line]; a path may hold colons itself.
function splitAt(at) {
  const i = at.lastIndexOf(":");
  return i > 0 ? [at.slice(0, i), at.slice(i + 1)] : [at, ""];
}

// A link to a file of a store (its outline), or with `line` to the unit that starts there.
function fileLink(store, path, label, line) {
  const a = el("a", "file-link", label);
  const p = { view: "file", store, path };
  if (line) p.line = line;
  a.href = "?" + new URLSearchParams(p).toString();
  return a;
}

// One outline entry: a link that opens its unit in the pane.
function outlineItem(o, current) {
  const li = el("li", current ? "current" : null);
  li.style.paddingLeft = `${(o.depth || 0) * 14}px`;
  const a = el("a", null, `${o.symbol || o.kind}`);
  a.href = "?" + new URLSearchParams({ id: o.id }).toString();
  a.addEventListener("click", (ev) => {
    ev.preventDefault();
    const alone = el("li");
    alone.dataset.id = o.id;
    open(alone);
  });
  li.append(el("span", "kind", o.kind), a, el("span", "where", ` ${o.start_line}-${o.end_line}`));
  return li;
}

// An SVG element (the judge's trend chart, the call graph); `text` is set as text only.
function svg(tag, attrs, text) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
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
  const main = document.querySelector("main");
  main.classList.toggle("full", on);
  main.classList.remove("opened");
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

// A view that polls (stores and jobs) sets this; leaving the view clears it.
const POLL_MS = 1500;
let polling = null;

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
    if (p.get("view") === "files") return showStoreFiles(p.get("store") || "", p.get("dir") || "");
    if (p.get("view") === "map") return showStoreMap(p.get("store") || "");
    if (p.get("view") === "file") return showStoreFile(p.get("store") || "", p.get("path") || "", p.get("line"));
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
    showHome();
    $("q").focus();
  };
  window.addEventListener("popstate", route);
  // The token asked for by a 401: kept for this tab, then the view asked for again.
  $("token-box").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("token").value);
    $("token-box").hidden = true;
    route();
  });
  route();
});
