// Syntax colours for a unit's code: comments, strings, numbers and the language's keywords
// become spans whose text is set as textContent (never markup). A comment or string still
// open at a line's end carries on to the next (block comments, Python's triple quotes,
// template strings), so a unit reads as its language, line by line.
"use strict";

const C_LIKE = { line: ["//"], block: [["/*", "*/"]], quotes: ['"', "'"] };
const SYNTAX = {
  rust: { ...C_LIKE, quotes: ['"'], words: "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while" },
  python: { line: ["#"], block: [['"""', '"""'], ["'''", "'''"]], quotes: ['"', "'"], words: "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return self True try while with yield" },
  javascript: { ...C_LIKE, block: [["/*", "*/"], ["`", "`"]], words: "async await break case catch class const continue default delete do else export extends false finally for from function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while yield" },
  go: { ...C_LIKE, block: [["/*", "*/"], ["`", "`"]], words: "break case chan const continue default defer else fallthrough false for func go goto if import interface map nil package range return select struct switch true type var" },
  java: { ...C_LIKE, words: "abstract boolean break case catch class continue default do double else enum extends false final finally float for if implements import instanceof int interface long new null package private protected public return static super switch this throw throws true try void while" },
  c: { ...C_LIKE, words: "auto break case char class const continue default delete do double else enum extern false float for if inline int long namespace new nullptr private protected public return short signed sizeof static struct switch template this true typedef union unsigned using virtual void volatile while" },
  shell: { line: ["#"], block: [], quotes: ['"', "'"], words: "case do done elif else esac export fi for function if in local return then until while" },
};
SYNTAX.typescript = { ...SYNTAX.javascript, words: SYNTAX.javascript.words + " abstract any boolean declare enum implements interface keyof namespace never number private protected public readonly string type unknown" };
SYNTAX.tsx = SYNTAX.typescript;
SYNTAX.jsx = SYNTAX.javascript;
SYNTAX.cpp = SYNTAX.c;
SYNTAX.csharp = SYNTAX.java;
SYNTAX.kotlin = SYNTAX.java;
SYNTAX.ruby = { line: ["#"], block: [], quotes: ['"', "'"], words: "begin class def do else elsif end ensure false if module nil rescue return self then true unless until when while yield" };
SYNTAX.bash = SYNTAX.shell;
for (const s of Object.values(SYNTAX)) if (typeof s.words === "string") s.words = new Set(s.words.split(" "));

const WORD = /[A-Za-z_$][\w$]*|\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?/y;

function span(cls, text) {
  const s = document.createElement("span");
  s.className = cls;
  s.textContent = text;
  return s;
}

// One span per line (the code view numbers them), coloured for `language`; plain text for a
// language it does not know.
function highlightLines(text, language) {
  const syntax = SYNTAX[(language || "").toLowerCase()];
  const lines = text.split("\n");
  if (!syntax) return lines.map((l) => span("", l));
  let open = null; // [end, class] of a block comment or string still open
  return lines.map((line) => {
    const out = span("", "");
    let plain = "";
    const flush = () => { if (plain) out.append(plain); plain = ""; };
    let i = 0;
    while (i < line.length) {
      if (open) {
        const end = line.indexOf(open[0], i);
        const stop = end < 0 ? line.length : end + open[0].length;
        out.append(span(open[1], line.slice(i, stop)));
        i = stop;
        if (end >= 0) open = null;
        continue;
      }
      const rest = line.slice(i);
      const lc = syntax.line.find((m) => rest.startsWith(m));
      if (lc) { flush(); out.append(span("tok-comment", rest)); break; }
      const block = syntax.block.find(([start]) => rest.startsWith(start));
      if (block) {
        flush();
        open = [block[1], block[0].includes("*") ? "tok-comment" : "tok-string"];
        out.append(span(open[1], block[0]));
        i += block[0].length;
        continue;
      }
      const q = line[i];
      if (syntax.quotes.includes(q)) {
        flush();
        let j = i + 1;
        while (j < line.length && line[j] !== q) j += line[j] === "\\" ? 2 : 1;
        out.append(span("tok-string", line.slice(i, j + 1)));
        i = j + 1;
        continue;
      }
      WORD.lastIndex = i;
      const m = WORD.exec(line);
      if (m) {
        const w = m[0];
        if (/^\d/.test(w)) { flush(); out.append(span("tok-number", w)); }
        else if (syntax.words.has(w)) { flush(); out.append(span("tok-keyword", w)); }
        else plain += w;
        i += w.length;
        continue;
      }
      plain += line[i];
      i += 1;
    }
    flush();
    return out;
  });
}
