#!/usr/bin/env python3
"""lore's units against a language's own parser: for each (language, repository at a
commit), the committed tree is indexed keyword-only (`lore store add … --embed none`) and
its definitions are listed a second time by the language's own tools, as ground truth:

  ruby  `ruby` with Ripper (the parser Ruby itself uses): def, def self.x, class, module
  php   `php` with token_get_all (PHP's own lexer): function NAME, class/interface/trait/enum NAME
        (not `use function NAME`, `new class`, `X::class`)
  lua   `luac -p -l` (Lua's own compiler) lists every function with its line; a function
        is named when the text at that line writes `function NAME` (anonymous ones are
        not counted)

A definition is found when lore has a symbol of that name starting on that line of that
file. Recall: truth definitions lore found. Precision: lore's function, method, class,
module, interface and trait symbols (in files the tool read) that the tool also lists.

  crates/lore-bench/scripts/definitions_truth.py LORE_BIN LANG=GIT_DIR[@COMMIT] …

Prints a markdown table, then up to five misses each way per language for reading.
"""
import os, re, sqlite3, subprocess, sys, tempfile

RUBY = r"""
require 'ripper'
def tok(t) = t.is_a?(Array) && t[0].is_a?(Symbol) && t[0].to_s.start_with?('@') ? t : nil
def const_name(c)
  return nil unless c.is_a?(Array)
  case c[0]
  when :const_ref, :top_const_ref then tok(c[1])
  when :const_path_ref then tok(c[2])
  end
end
def walk(n, path, out)
  return unless n.is_a?(Array)
  case n[0]
  when :def then (t = tok(n[1])) && out << ['def', t[1], t[2][0]]
  when :defs then (t = tok(n[3])) && out << ['def', t[1], t[2][0]]
  when :class, :module then (t = const_name(n[1])) && out << [n[0].to_s, t[1], t[2][0]]
  end
  n.each { |c| walk(c, path, out) }
end
STDIN.each_line do |path|
  path = path.chomp
  sexp = Ripper.sexp(File.read(path, encoding: 'utf-8')) rescue nil
  if sexp.nil? then puts "#{path}\tERROR" ; next end
  out = []
  walk(sexp, path, out)
  out.each { |k, name, line| puts "#{path}\t#{k}\t#{name}\t#{line}" }
end
"""

PHP = r"""<?php
while (($path = fgets(STDIN)) !== false) {
  $path = rtrim($path, "\n");
  $src = file_get_contents($path);
  try { $toks = token_get_all($src, TOKEN_PARSE); } catch (Throwable $e) { echo "$path\tERROR\n"; continue; }
  $sig = array_values(array_filter($toks, fn($t) => !is_array($t) || !in_array($t[0], [T_WHITESPACE, T_COMMENT, T_DOC_COMMENT])));
  foreach ($sig as $i => $t) {
    if (!is_array($t)) continue;
    $kind = match ($t[0]) { T_FUNCTION => 'function', T_CLASS => 'class', T_INTERFACE => 'interface',
                            T_TRAIT => 'trait', T_ENUM => 'enum', default => null };
    if ($kind === null) continue;
    $prev = $sig[$i - 1] ?? null;
    if (is_array($prev) && in_array($prev[0], [T_NEW, T_DOUBLE_COLON, T_USE])) continue;
    $j = $i + 1;
    if (($sig[$j] ?? null) === '&') $j++;
    $n = $sig[$j] ?? null;
    if (is_array($n) && $n[0] === T_STRING) echo "$path\t$kind\t{$n[1]}\t{$n[2]}\n";
  }
}
"""

LUA_NAMED = re.compile(r"function\s+([\w.:]+)\s*\(")


def ruby_truth(files):
    out = subprocess.run(["ruby", "-e", RUBY], input="\n".join(files), capture_output=True, text=True, check=True)
    return parse_lines(out.stdout)


def php_truth(files):
    with tempfile.NamedTemporaryFile("w", suffix=".php", delete=False) as f:
        f.write(PHP)
    out = subprocess.run(["php", f.name], input="\n".join(files), capture_output=True, text=True, check=True)
    os.unlink(f.name)
    return parse_lines(out.stdout)


def lua_truth(files):
    defs, failed = [], set()
    for path in files:
        out = subprocess.run(["luac5.4", "-p", "-l", path], capture_output=True, text=True)
        if out.returncode != 0:
            failed.add(path)
            continue
        text = read(path).splitlines()
        for m in re.finditer(r"^function <[^:]*:(\d+),\d+>", out.stdout, re.M):
            line = int(m.group(1))
            named = LUA_NAMED.search(text[line - 1]) if 0 < line <= len(text) else None
            if named:
                defs.append((path, "function", re.split(r"[.:]", named.group(1))[-1], line))
    return defs, failed


def parse_lines(stdout):
    defs, failed = [], set()
    for row in stdout.splitlines():
        parts = row.split("\t")
        if parts[1] == "ERROR":
            failed.add(parts[0])
        else:
            defs.append((parts[0], parts[1], parts[2], int(parts[3])))
    return defs, failed


TRUTH = {"ruby": (ruby_truth, (".rb", ".rake", ".gemspec", ".ru")), "php": (php_truth, (".php",)),
         "lua": (lua_truth, (".lua",))}
KINDS = ("function", "method", "class", "module", "interface", "trait", "enum")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def main():
    lore, rows, misses = sys.argv[1], [], []
    for arg in sys.argv[2:]:
        lang, repo = arg.split("=", 1)
        repo, _, commit = repo.partition("@")
        commit = commit or subprocess.check_output(["git", "--git-dir", repo, "rev-parse", "HEAD"], text=True).strip()
        truth_of, exts = TRUTH[lang]
        with tempfile.TemporaryDirectory() as tmp:
            src, data = os.path.join(tmp, "src"), os.path.join(tmp, "data")
            os.makedirs(src)
            archive = subprocess.run(["git", "--git-dir", repo, "archive", commit], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", src], input=archive.stdout, check=True)
            subprocess.run([lore, "--data-dir", data, "-q", "store", "add", "s", src, "--embed", "none"],
                           capture_output=True, check=True)
            db = sqlite3.connect(os.path.join(data, "lore.db"))
            indexed = [p for (p,) in db.execute("SELECT path FROM files WHERE skipped IS NULL") if p.endswith(exts)]
            defs, failed = truth_of([os.path.join(src, p) for p in indexed])
            truth = {(os.path.relpath(p, src), name, line) for p, _, name, line in defs}
            read_files = {p for p in indexed if os.path.join(src, p) not in failed}
            mine = {(p, name, line) for p, name, line, kind in db.execute(
                "SELECT path, name, start_line, kind FROM symbols") if p in read_files and kind in KINDS}
            found = truth & mine
            rows.append((lang, repo_name(repo), commit[:10], len(read_files), len(indexed) - len(read_files),
                         len(truth), len(found), len(mine), len(mine & truth)))
            misses.append((lang, sorted(truth - mine)[:5], sorted(mine - truth)[:5]))
    print("| language | repository | commit | files read by the tool | files it rejects | definitions (tool) | found by lore | recall | lore's definitions | also the tool's | precision |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for lang, repo, commit, n, rejected, t, f, m, both in rows:
        print(f"| {lang} | {repo} | {commit} | {n} | {rejected} | {t} | {f} | {f / max(t, 1):.3f} | {m} | {both} | {both / max(m, 1):.3f} |")
    for lang, missed, extra in misses:
        print(f"\n{lang}: not found by lore {missed}\n{lang}: not the tool's {extra}")


def repo_name(repo):
    base = os.path.basename(os.path.dirname(repo.rstrip("/"))) if repo.rstrip("/").endswith("repo") else repo
    return base.replace("+", "/")


if __name__ == "__main__":
    main()
