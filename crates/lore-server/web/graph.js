// The call graph of a symbol, two levels each way: drawn (callers left, callees right, each
// node a link to its own graph) and listed as text below, which is also what a screen
// reader reads. Names are set as text only.
"use strict";

const GRAPH_FANOUT = 8;

// Each name once, with where it is.
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

const NODE_W = 180, NODE_H = 26, COL_GAP = 40, ROW_GAP = 8;

// Columns: callers' callers, callers, the symbol, callees, callees' callees. Each node sits
// level with the middle of its children, and edges join each node to its parent.
function drawGraph(symbol, sides) {
  const columns = [[], [], [{ name: symbol, center: true }], [], []];
  for (const [side, first, second] of sides) {
    const near = side === "callers" ? 1 : 3, far = side === "callers" ? 0 : 4;
    // Drawn: at most 8 near and 3 far per near node (the list below has them all).
    first.slice(0, 8).forEach((n, i) => {
      const node = { name: n.name, at: n.at, parent: columns[2][0], children: [] };
      columns[near].push(node);
      for (const m of (second[i] || []).slice(0, 3)) {
        const child = { name: m.name, at: m.at, parent: node };
        node.children.push(child);
        columns[far].push(child);
      }
    });
  }
  const rows = Math.max(1, ...columns.map((c) => c.length));
  const height = rows * (NODE_H + ROW_GAP) + ROW_GAP;
  const width = 5 * NODE_W + 4 * COL_GAP;
  const place = (column, x) => {
    const top = (height - column.length * (NODE_H + ROW_GAP)) / 2;
    column.forEach((n, i) => { n.x = x; n.y = top + i * (NODE_H + ROW_GAP) + ROW_GAP / 2; });
  };
  columns.forEach((c, i) => place(c, i * (NODE_W + COL_GAP)));
  const root = svg("svg", { class: "callgraph", viewBox: `0 0 ${width} ${height}`, width, height });
  const callers = columns[1].length, calls = columns[3].length;
  root.append(svg("title", {}, `Call graph of ${symbol}: ${callers} callers, ${calls} calls (listed as text below)`));
  for (const column of columns) {
    for (const n of column) {
      if (!n.parent) continue;
      const [a, b] = n.x < n.parent.x ? [n, n.parent] : [n.parent, n];
      root.append(svg("line", { x1: a.x + NODE_W, y1: a.y + NODE_H / 2, x2: b.x, y2: b.y + NODE_H / 2, class: "edge" }));
    }
  }
  for (const column of columns) {
    for (const n of column) {
      const link = svg("a", { href: "?" + new URLSearchParams({ graph: n.name }).toString(), class: n.center ? "node center" : "node" });
      link.append(svg("title", {}, n.at ? `${n.name} · ${n.at}` : n.name), svg("rect", { x: n.x, y: n.y, width: NODE_W, height: NODE_H, rx: 4 }));
      link.append(svg("text", { x: n.x + 8, y: n.y + NODE_H / 2 + 4 }, n.name.length > 24 ? "…" + n.name.slice(-23) : n.name));
      root.append(link);
    }
  }
  return root;
}

// The same graph as nested lists.
function graphList(direction, first, second) {
  const ul = el("ul", "graph " + direction);
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
  if (!first.length) ul.append(el("li", "where", "none found"));
  return ul;
}

async function showGraph(symbol) {
  const box = openView();
  status(`graph of ${symbol}…`);
  try {
    const [callers, callees] = await Promise.all([graphLevel(symbol, "callers"), graphLevel(symbol, "callees")]);
    const def = (callers.definitions || [])[0];
    box.append(el("h2", "graph-title", def ? def.qualified || def.name : symbol));
    if (def) {
      const where = el("div", "where");
      where.append(fileLink(def.store, def.path, `${def.store}:${def.path}`, def.start_line),
        ` :${def.start_line}-${def.end_line} · ${def.kind}`);
      box.append(where);
    }
    if (def && def.signature) box.append(el("div", "sig", def.signature));
    const sides = [];
    for (const [answer, direction] of [[callers, "callers"], [callees, "callees"]]) {
      const first = names(answer).slice(0, GRAPH_FANOUT * 2);
      const second = await Promise.all(first.slice(0, GRAPH_FANOUT).map((n) =>
        graphLevel(n.name, direction).then((a) => names(a).slice(0, GRAPH_FANOUT)).catch(() => [])));
      sides.push([direction, first, second, answer.summary]);
    }
    const figure = el("div", "graph-figure");
    figure.append(drawGraph(def ? def.qualified || def.name : symbol, sides));
    box.append(figure);
    for (const [direction, first, second, summary] of sides) {
      box.append(el("h3", null, `${direction === "callers" ? "Callers" : "Calls"} (${summary})`));
      box.append(graphList(direction, first, second));
    }
    status(`graph of ${symbol}: ${callers.summary}; calls: ${callees.summary}`);
  } catch (e) {
    status("error: " + e.message);
    box.append(el("p", "warning", "error: " + e.message));
  }
}
