// The brain at ?view=brain: its notes, wiki pages and session logs (/api/brain/files), one
// opened at &path= (markdown rendered into DOM nodes, frontmatter as a table, a session log
// as a timeline), a search of the brain (/api/brain/query) and a form that writes a note
// (/api/brain/write, the same rules and errors as the MCP tool). A note's text is only ever
// set as textContent, and links go to http(s) or to other brain files: no script or markup
// from a note ever runs. Uses el, api, status and openView from app.js.
"use strict";

const AREAS = [["knowledge", "Notes"], ["wiki", "Wiki pages"], ["sessions", "Session logs"]];
// The file shown: a note's relative links are read from its folder.
let shownPath = "";

function brainHref(params) {
  return "?" + new URLSearchParams({ view: "brain", ...params }).toString();
}

// Inline markdown: `code`, **strong**, *em* / _em_, [text](target). Anything else is text.
function inline(parent, text) {
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let at = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > at) parent.append(text.slice(at, m.index));
    if (m[1] !== undefined) parent.append(el("code", null, m[1]));
    else if (m[2] !== undefined) parent.append(el("strong", null, m[2]));
    else if (m[3] !== undefined || m[4] !== undefined) parent.append(el("em", null, m[3] ?? m[4]));
    else parent.append(link(m[5], m[6]));
    at = m.index + m[0].length;
  }
  if (at < text.length) parent.append(text.slice(at));
}

// A link only to the web (http, https) or to another brain file; any other target (a
// `javascript:` URL, say) is shown as text.
function link(text, target) {
  if (/^https?:\/\//i.test(target)) {
    const a = el("a", null, text);
    a.href = target;
    a.rel = "noopener noreferrer";
    return a;
  }
  if (/^[\w./-]+\.md$/.test(target) && !target.startsWith("/")) {
    const a = el("a", null, text);
    a.href = brainHref({ path: fromShown(target) });
    return a;
  }
  return el("span", null, `${text} (${target})`);
}

// A link's target as a brain path: as written when it names an area, else from the shown
// file's folder (`..` steps up; the server refuses anything that leaves the brain).
function fromShown(target) {
  if (AREAS.some(([area]) => target.startsWith(area + "/"))) return target;
  const parts = shownPath.split("/").slice(0, -1);
  for (const part of target.split("/")) {
    if (part === "..") parts.pop();
    else if (part && part !== ".") parts.push(part);
  }
  return parts.join("/");
}

// Block markdown: headings, fenced code, lists, quotes, rules, paragraphs.
function markdown(text) {
  const out = document.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) { const p = el("p"); inline(p, para.join(" ")); out.append(p); }
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*(```|~~~)/);
    if (fence) {
      flush(); list = null;
      const code = [];
      while (++i < lines.length && !lines[i].trimStart().startsWith(fence[1])) code.push(lines[i]);
      out.append(el("pre", "md-code", code.join("\n")));
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    const item = line.match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
    if (heading) {
      flush(); list = null;
      const h = el("h" + Math.min(6, heading[1].length + 2));
      inline(h, heading[2]);
      out.append(h);
    } else if (item) {
      flush();
      const tag = /\d/.test(item[1]) ? "ol" : "ul";
      if (!list || list.tagName.toLowerCase() !== tag) { list = el(tag); out.append(list); }
      const li = el("li");
      inline(li, item[2]);
      list.append(li);
    } else if (/^\s*>/.test(line)) {
      flush(); list = null;
      const q = el("blockquote");
      inline(q, line.replace(/^\s*>\s?/, ""));
      out.append(q);
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush(); list = null;
      out.append(el("hr"));
    } else if (!line.trim()) {
      flush(); list = null;
    } else {
      list = null;
      para.push(line.trim());
    }
  }
  flush();
  return out;
}

function fileRow(f) {
  const li = el("li");
  li.dataset.path = f.path;
  const a = el("a", null, f.title);
  a.href = brainHref({ path: f.path });
  li.append(a);
  const tags = [f.type, f.domain].filter(Boolean).join(" · ");
  li.append(el("span", "where", ` ${f.path} · ${(f.updated || "").slice(0, 10)}${tags ? " · " + tags : ""}`));
  return li;
}

function noteForm(box) {
  const form = el("form", "note");
  form.id = "note-form";
  const filename = el("input"); filename.name = "filename"; filename.placeholder = "filename (optional)";
  const kind = el("input"); kind.name = "type"; kind.placeholder = "type (insight, bug, …)";
  const domain = el("input"); domain.name = "domain"; domain.placeholder = "domain";
  const content = el("textarea"); content.name = "content"; content.placeholder = "# Title\n\nWhat you learned…"; content.required = true;
  const save = el("button", null, "write note");
  const row = el("div");
  row.append(filename, kind, domain, save);
  form.append(row, content);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = { content: content.value };
    for (const [k, input] of [["filename", filename], ["type", kind], ["domain", domain]]) {
      if (input.value.trim()) body[k] = input.value.trim();
    }
    try {
      const w = await api("POST", "/api/brain/write", body);
      history.pushState(null, "", brainHref({ path: w.path }));
      showBrain();
    } catch (e) {
      status("error: " + e.message);
    }
  });
  box.append(form);
}

async function brainSearch(query, box) {
  const r = await api("POST", "/api/brain/query", { query, limit: 20 });
  box.append(el("h3", null, `Matches for “${query}”`));
  if (r.note) box.append(el("p", "where", r.note));
  const ul = el("ul", "brain-files");
  for (const h of r.results || []) {
    const li = el("li");
    li.dataset.path = h.path;
    const a = el("a", null, h.title || h.path);
    a.href = brainHref({ path: h.path });
    li.append(a, el("span", "where", ` ${h.path}:${h.start_line}-${h.end_line} · score ${h.score}`));
    if (h.snippet) li.append(el("pre", "snippet", h.snippet));
    ul.append(li);
  }
  box.append(ul);
}

async function showFile(path, box) {
  // The browser would resolve `..` in the request's URL before the server could refuse it.
  const parts = path.split("/");
  if (parts.some((p) => p === ".." || p === ".")) throw new Error(`${path}: a brain path has no . or .. parts`);
  const d = await api("GET", "/api/brain/files/" + parts.map(encodeURIComponent).join("/"));
  shownPath = d.path;
  box.append(el("h2", null, d.title));
  box.append(el("div", "where", `${d.path} · ${d.bytes} bytes · updated ${d.updated}`));
  if (d.frontmatter.length) {
    const table = el("table", "frontmatter");
    for (const [k, v] of d.frontmatter) {
      const tr = el("tr");
      tr.append(el("th", null, k), el("td", null, v));
      table.append(tr);
    }
    box.append(table);
  }
  if (d.area === "sessions") {
    if (d.events_cut) box.append(el("p", "warning", "a long log: its last events"));
    const ol = el("ol", "timeline");
    for (const e of d.events) {
      const li = el("li");
      const { timestamp, session_id, ...rest } = e;
      li.append(el("span", "kind", (timestamp || "").replace("T", " ").slice(0, 19)));
      const what = [rest.phase, rest.skill, rest.final_status].filter(Boolean).join(" · ");
      if (what) li.append(el("strong", null, what + " "));
      if (rest.message) li.append(el("span", null, rest.message));
      const more = Object.entries(rest).filter(([k]) => !["phase", "skill", "final_status", "message"].includes(k));
      if (more.length) li.append(el("div", "where", more.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ")));
      ol.append(li);
    }
    box.append(ol);
  } else {
    const body = el("div", "markdown");
    body.append(markdown(d.body));
    box.append(body);
  }
  status(`${d.path}`);
}

async function showBrain() {
  const box = openView();
  const p = new URLSearchParams(location.search);
  const nav = el("div", "brain-nav");
  const all = el("a", null, "all files"); all.href = brainHref({});
  const form = el("form", "brain-search");
  const q = el("input"); q.name = "bq"; q.type = "search"; q.placeholder = "search the brain"; q.value = p.get("bq") || "";
  form.append(q, el("button", null, "search"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    history.pushState(null, "", brainHref(q.value.trim() ? { bq: q.value.trim() } : {}));
    showBrain();
  });
  nav.append(all, form);
  box.append(nav);
  try {
    if (p.get("path")) return await showFile(p.get("path"), box);
    if (p.get("bq")) {
      await brainSearch(p.get("bq"), box);
      return status(`brain search: ${p.get("bq")}`);
    }
    const listing = await api("GET", "/api/brain/files");
    for (const [area, title] of AREAS) {
      const files = listing.files.filter((f) => f.area === area);
      box.append(el("h3", null, `${title} (${files.length})`));
      const ul = el("ul", "brain-files");
      ul.dataset.area = area;
      for (const f of files) ul.append(fileRow(f));
      box.append(ul);
    }
    box.append(el("h3", null, "Write a note"));
    noteForm(box);
    status(`${listing.files.length} brain files${listing.truncated ? " (the newest)" : ""}`);
  } catch (e) {
    status("error: " + e.message);
  }
}
