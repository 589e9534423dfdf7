// The stores a server holds: the home page (what to search, or how to add a first store),
// the stores view (counts, freshness, the jobs that add or index them, updated in place so
// the add form keeps what is typed), and each store's files to browse.
"use strict";

function ago(secs) {
  if (!secs) return "never";
  const s = Math.max(0, Math.round(Date.now() / 1000 - secs));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 129600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

function searchLink(q, stores, label) {
  const a = el("a", "example", label || q);
  const p = { q };
  if (stores) p.stores = stores;
  a.href = "?" + new URLSearchParams(p).toString();
  return a;
}

// Questions worth trying on a store of each kind: words to start from, not answers.
const EXAMPLES = {
  brain: ["decisions we made", "open questions"],
  web: ["getting started", "configuration options"],
  default: ["where is the entry point", "how are errors handled", "how is configuration read"],
};

// The page before any search: the stores to search with examples, and the keys; with no
// store yet, the form that adds one.
async function showHome() {
  const box = $("context");
  box.hidden = false;
  fullWidth(true);
  box.replaceChildren(el("p", "why", "loading…"));
  try {
    const stores = await api("GET", "/api/stores");
    box.replaceChildren();
    if (!stores.length) {
      box.append(el("h2", null, "No stores yet"),
        el("p", null, "Add a folder on this server, a git repository or a documentation site; " +
          "it is indexed as a job, and then searchable from the box above."),
        addStoreForm(() => { location.href = "?view=stores"; }));
      status("this server has no stores");
      return;
    }
    box.append(el("h2", null, `Search ${stores.length} store${stores.length === 1 ? "" : "s"}`));
    const list = el("ul", "home-stores");
    for (const s of stores) {
      const li = el("li");
      li.append(filesLink(s.name, ""), el("span", "where", ` ${s.kind} · ${s.files} files · ${s.chunks} chunks · try `));
      const examples = EXAMPLES[s.kind] || EXAMPLES.default;
      examples.forEach((q, i) => {
        if (i) li.append(el("span", "where", " · "));
        li.append(searchLink(q, s.name));
      });
      list.append(li);
    }
    box.append(list);
    const keys = el("p", "keys");
    keys.append(el("kbd", null, "/"), " search  ", el("kbd", null, "↓"), " to the results  ",
      el("kbd", null, "Enter"), " open one  ", el("kbd", null, "↑"), " back up");
    box.append(keys);
    status("");
  } catch (e) {
    box.replaceChildren(el("p", "warning", "error: " + e.message));
  }
}

function filesLink(store, dir, label) {
  const a = el("a", "files-link", label || store);
  const p = { view: "files", store };
  if (dir) p.dir = dir;
  a.href = "?" + new URLSearchParams(p).toString();
  return a;
}

// The add-store form. Its error stays beside it until the user types or submits again, and
// what was typed stays too; `added` runs after a job was queued.
function addStoreForm(added) {
  const form = el("form", "add-store");
  const input = (name, placeholder, attrs = {}) => {
    const i = el("input");
    i.name = name;
    i.placeholder = placeholder;
    i.setAttribute("aria-label", placeholder);
    for (const [k, v] of Object.entries(attrs)) i.setAttribute(k, v);
    return i;
  };
  const select = (name, label, options) => {
    const s = el("select");
    s.name = name;
    s.setAttribute("aria-label", label);
    for (const [text, value] of options) s.append(new Option(text, value));
    return s;
  };
  const name = input("name", "name", { required: "" });
  const source = input("source", "folder, git URL or site", { required: "" });
  const type = select("type", "type", [["type: from the source", ""], ["folder", "folder"], ["git repository", "repo"], ["web site", "web"]]);
  const branch = input("branch", "git branch");
  const include = input("include", "include globs (a, b)");
  const exclude = input("exclude", "exclude globs (a, b)");
  const cap = input("maxFileSize", "max file KB", { type: "number", min: "1" });
  const embed = select("embed", "vectors", [["with vectors", "model"], ["keyword only", "none"]]);
  const add = el("button", null, "add store");
  const error = el("p", "form-error warning");
  error.setAttribute("role", "alert");
  const row = (...items) => { const d = el("div", "row"); d.append(...items); return d; };
  form.append(row(name, source, type, embed, add), row(branch, include, exclude, cap), error);
  form.addEventListener("input", () => error.replaceChildren());
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const globs = (i) => i.value.split(",").map((g) => g.trim()).filter(Boolean);
    const body = { name: name.value.trim(), source: source.value.trim(), embed: embed.value };
    if (type.value) body.type = type.value;
    if (branch.value.trim()) body.branch = branch.value.trim();
    if (globs(include).length) body.include = globs(include);
    if (globs(exclude).length) body.exclude = globs(exclude);
    if (cap.value) body.maxFileSize = Math.round(parseFloat(cap.value) * 1024);
    add.disabled = true;
    try {
      const job = await api("POST", "/api/stores", body);
      form.reset();
      error.replaceChildren(el("span", "ok", `job ${job.id} adds ${body.name}`));
      if (added) added(job);
    } catch (e) {
      error.replaceChildren("could not add the store: " + e.message);
    } finally {
      add.disabled = false;
    }
  });
  return form;
}

// A button whose action's error shows in `errors` until the next action.
function button(label, errors, action) {
  const b = el("button", null, label);
  b.type = "button";
  b.addEventListener("click", async () => {
    b.disabled = true;
    errors.replaceChildren();
    try { await action(); } catch (e) { errors.replaceChildren(`${label}: ${e.message}`); }
    b.disabled = false;
    refreshStores();
  });
  return b;
}

// The stores view: built once; the table and the jobs are refreshed in place.
function showStores() {
  const box = openView();
  const table = el("div", "stores-table");
  const errors = el("p", "store-error warning");
  errors.setAttribute("role", "alert");
  const jobs = el("ul", "jobs");
  box.append(el("h2", null, "Stores"), table, errors, addStoreForm(() => refreshStores()),
    el("h2", null, "Jobs"), jobs);
  return refreshStores();
}

async function refreshStores() {
  clearTimeout(polling);
  const tableBox = document.querySelector(".stores-table");
  const jobList = document.querySelector("ul.jobs");
  const errors = document.querySelector(".store-error");
  if (!tableBox || !jobList) return;
  try {
    const [stores, jobs] = await Promise.all([api("GET", "/api/stores"), api("GET", "/api/jobs")]);
    if (!tableBox.isConnected) return;
    const table = el("table", "stores");
    const head = el("tr");
    for (const h of ["name", "kind", "files", "chunks", "embedded", "indexed", "source", ""]) head.append(el("th", null, h));
    table.append(head);
    for (const s of stores) {
      const tr = el("tr");
      tr.dataset.store = s.name;
      const embedded = s.embedder === "none" ? "keyword only" :
        s.chunks ? `${Math.round((100 * s.embedded) / s.chunks)}%` : "-";
      const name = el("td");
      const map = el("a", "map-link", "map");
      map.href = "?" + new URLSearchParams({ view: "map", store: s.name }).toString();
      name.append(filesLink(s.name, ""), " ", map);
      tr.append(name);
      for (const v of [s.kind, s.files, s.chunks, embedded, ago(s.indexed_at), s.source]) tr.append(el("td", null, v));
      const actions = el("td");
      actions.append(
        button("index", errors, () => api("POST", `/api/stores/${encodeURIComponent(s.name)}/index`, {})),
        button("remove", errors, async () => {
          if (confirm(`Remove the store ${s.name} and its index?`)) await api("DELETE", `/api/stores/${encodeURIComponent(s.name)}`);
        }));
      tr.append(actions);
      table.append(tr);
    }
    tableBox.replaceChildren(stores.length ? table : el("p", "where", "no stores yet: add one below"));
    const running = renderJobs(jobList, jobs.slice(0, 20), errors);
    status(`${stores.length} stores · ${jobs.length} jobs`);
    if (running) polling = setTimeout(refreshStores, POLL_MS);
  } catch (e) {
    errors.replaceChildren("error: " + e.message);
  }
}

// Jobs keyed by id: an existing line is updated, so its cancel button keeps focus.
function renderJobs(list, jobs, errors) {
  let running = false;
  const old = new Map([...list.children].filter((li) => li.dataset.id).map((li) => [li.dataset.id, li]));
  const lines = jobs.map((j) => {
    const li = old.get(j.id) || el("li");
    li.dataset.id = j.id;
    li.dataset.status = j.status;
    const p = j.progress || {};
    const files = p.files_total ? ` · files ${p.files_done}/${p.files_total}` : "";
    const chunks = p.chunks_total ? ` · chunks ${p.chunks_done}/${p.chunks_total}` : "";
    const what = `${j.kind} ${(j.spec && (j.spec.name || (j.spec.stores || []).join(", "))) || "all stores"}${files}${chunks}`;
    const parts = [el("span", "kind", j.status), el("span", null, what)];
    if (j.message) parts.push(el("span", "where", " " + j.message));
    if (j.error) parts.push(el("span", "warning", " " + j.error));
    const active = j.status === "pending" || j.status === "running";
    running = running || active;
    let cancel = li.querySelector("button.cancel");
    if (active && !cancel) {
      cancel = button("cancel", errors, () => api("POST", `/api/jobs/${encodeURIComponent(j.id)}/cancel`, {}));
      cancel.classList.add("cancel");
    }
    li.replaceChildren(...parts, ...(active ? [cancel] : []));
    return li;
  });
  list.replaceChildren(...(lines.length ? lines : [el("li", "where", "no jobs yet")]));
  return running;
}

// A folder of a store: its sub-folders and files, each a link.
async function showStoreFiles(store, dir) {
  const box = openView();
  status(`${store}/${dir}`);
  try {
    const r = await api("GET", `/api/stores/${encodeURIComponent(store)}/files?` + new URLSearchParams({ dir }).toString());
    box.append(crumbs(store, dir));
    const ul = el("ul", "tree");
    for (const d of r.dirs) {
      const li = el("li", "dir");
      li.append(filesLink(store, dir ? `${dir}/${d.name}` : d.name, d.name + "/"), el("span", "where", ` ${d.files} files`));
      ul.append(li);
    }
    for (const f of r.files) {
      const li = el("li", "file");
      const path = dir ? `${dir}/${f.name}` : f.name;
      const note = f.skipped ? ` · not indexed: ${f.skipped}` : f.parse_error ? ` · ${f.parse_error}` : "";
      li.append(fileLink(store, path, f.name), el("span", "where", ` ${f.chunks} chunks · ${f.size} bytes${note}`));
      ul.append(li);
    }
    if (!r.dirs.length && !r.files.length) ul.append(el("li", "where", "this store holds no files yet"));
    box.append(ul);
    status(`${r.dirs.length} folders · ${r.files.length} files`);
  } catch (e) {
    box.append(el("p", "warning", "error: " + e.message), filesLink(store, "", "back to the store's top folder"));
    status("");
  }
}

// The store / a / b path above a listing, each part a link.
function crumbs(store, path, last) {
  const nav = el("nav", "crumbs");
  nav.append(filesLink(store, "", store));
  const parts = path ? path.split("/") : [];
  parts.forEach((part, i) => {
    nav.append(" / ");
    const at = parts.slice(0, i + 1).join("/");
    nav.append(i === parts.length - 1 && last ? el("strong", null, part) : filesLink(store, at, part));
  });
  return nav;
}

// A file's outline, each entry opening its unit; with `line`, the unit that starts there
// opens at once (a caller's or callee's link).
async function showStoreFile(store, path, line) {
  const box = openView();
  status(`${store}:${path}`);
  try {
    const r = await api("GET", `/api/stores/${encodeURIComponent(store)}/files/${path.split("/").map(encodeURIComponent).join("/")}`);
    const wanted = line && r.outline.find((o) => String(o.start_line) === String(line));
    if (wanted) {
      history.replaceState(null, "", "?" + new URLSearchParams({ id: wanted.id }).toString());
      fullWidth(false);
      box.hidden = true;
      const alone = el("li");
      alone.dataset.id = wanted.id;
      return open(alone, false);
    }
    box.append(crumbs(store, path, true));
    const ul = el("ul", "outline");
    for (const o of r.outline) ul.append(outlineItem(o, false));
    if (!r.outline.length) ul.append(el("li", "where", "no definitions or sections in this file"));
    box.append(ul);
    status(`${r.outline.length} entries` + (line ? ` · nothing starts on line ${line}` : ""));
  } catch (e) {
    box.append(el("p", "warning", "error: " + e.message), filesLink(store, "", "the store's files"));
    status("");
  }
}

// A store's map: its modules, hubs and entry points (GET /api/stores/{name}/map), each a
// link into the files, the outline or the call graph.
async function showStoreMap(store) {
  const box = openView();
  status(`map of ${store}`);
  try {
    const m = await api("GET", `/api/stores/${encodeURIComponent(store)}/map`);
    const langs = m.languages.slice(0, 6).map(([l, n]) => `${l} ${n}`).join(", ");
    box.append(el("h2", null, `${m.store}: map`), el("p", "where", `${m.files} files · ${m.definitions} definitions · ${langs}`));
    const section = (title, items) => {
      if (!items.length) return;
      const ul = el("ul", "map");
      ul.append(...items);
      box.append(el("h3", null, title), ul);
    };
    section("Modules: files that call each other", m.modules.filter((x) => x.definitions > 0).slice(0, 20).map((x) => {
      const li = el("li");
      li.append(el("strong", null, x.name), el("span", "where", ` ${x.files} files · ${x.definitions} definitions`));
      if (x.key_files.length) {
        li.append(el("br"), "key: ");
        x.key_files.forEach((f, i) => li.append(i ? ", " : "", fileLink(m.store, f, f)));
      }
      if (x.uses.length) li.append(el("br"), el("span", "where", "uses " + x.uses.map(([n, c]) => `${n} (${c})`).join(", ")));
      return li;
    }));
    section("Hubs: most referenced", m.hubs.map((h) => {
      const li = el("li");
      li.append(graphLink(h.qualified, h.qualified), el("span", "where", ` ${h.kind} · ${h.callers} callers · `), fileLink(m.store, h.path, `${h.path}:${h.line}`, h.line));
      return li;
    }));
    section("Patterns: idioms repeated", m.patterns.map((p) => {
      const li = el("li");
      const c = p.canonical;
      li.append(el("strong", null, p.name), el("span", "where", ` ${p.count} units · e.g. `), fileLink(m.store, c.path, `${c.qualified} ${c.path}:${c.start_line}`, c.start_line));
      if (p.variants.length) li.append(el("br"), el("span", "where", "variants: " + p.variants.map(([v, n]) => `+${v} (${n})`).join(", ")));
      return li;
    }));
    section("Entry points", m.entry_points.map((e) => {
      const li = el("li");
      li.append(fileLink(m.store, e.path, e.qualified, e.line), el("span", "where", ` ${e.why || ""} · ${e.path}:${e.line}`));
      return li;
    }));
    status(`${m.modules.length} modules · ${m.hubs.length} hubs`);
  } catch (e) {
    box.append(el("p", "warning", "error: " + e.message));
    status("");
  }
}
