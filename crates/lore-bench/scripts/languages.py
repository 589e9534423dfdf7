#!/usr/bin/env python3
"""Units per language on real repositories: for each (language, repository at a commit),
the repository's committed tree is indexed keyword-only (`lore store add … --embed none`),
and its files of that language are counted from the catalog: how many there are, how many
declare something by a plain reading of the text (a line that starts like a definition),
how many of those got units (one symbol or more), and how many the parser could not read
whole (a parse error). Seconds to index are the whole store's.

  crates/lore-bench/scripts/languages.py LORE_BIN LANG=GIT_DIR[@COMMIT] …

GIT_DIR is a git directory (a bare clone will do). Prints a markdown table. With
`--sample N` (first argument after LORE_BIN), it also prints, per language, the share of its
call sites the graph resolved and N resolved calls drawn at random (seed 7), each with the
calling line and the definition it was linked to, for reading by hand.
"""
import os, re, sqlite3, subprocess, sys, tempfile, time

# A line that starts like a definition, per language: an outside reading of "declares
# something", independent of the grammar.
DECLARES = {
    "csharp": r"^\s*(\[.*\]\s*)?((public|private|protected|internal|static|sealed|abstract|partial|async|override|virtual|readonly|unsafe|new)\s+)*(class|interface|struct|enum|record|namespace)\s+\w",
    "ruby": r"^\s*(def|class|module)\s+\S",
    "php": r"^\s*((abstract|final|public|private|protected|static|readonly)\s+)*(function|class|interface|trait|enum)\s+&?\w",
    "kotlin": r"^\s*((public|private|internal|protected|open|abstract|sealed|data|inline|value|enum|annotation|override|suspend|inner|operator|infix|tailrec|external|expect|actual|const)\s+)*(fun|class|interface|object|typealias)\s",
    "swift": r"^\s*((public|private|internal|open|fileprivate|final|static|class|override|mutating|@\w+)\s+)*(func|class|struct|enum|protocol|extension|actor)\s+\w",
    "scala": r"^\s*((private|protected|final|sealed|abstract|implicit|override|case|lazy|inline)\s+)*(def|class|object|trait|enum)\s+\w",
    "dart": r"^\s*(abstract\s+|sealed\s+|final\s+|base\s+)*(class|mixin|enum|extension)\s+\w|^\s*[\w<>?,\s]+\s+\w+\s*\([^;]*\)\s*(async\s*)?(\{|=>)",
    "lua": r"^\s*(local\s+)?function\s+[\w.:]+",
    "bash": r"^\s*(function\s+[\w-]+|[\w-]+\s*\(\)\s*\{?)",
    "sql": r"(?i)^\s*create\s+(or\s+replace\s+)?(table|view|function|index|type|trigger|materialized|sequence|unique)",
    "r": r"^\s*[\w.]+\s*(<-|=)\s*function\s*\(",
    "julia": r"^\s*(function|macro|struct|mutable\s+struct|abstract\s+type|module)\s+\w",
    "haskell": r"^(data|newtype|type|class|instance)\s|^[a-z]\w*('?)\s+.*=",
    "ocaml": r"^\s*(let|type|module|class|exception)\s",
    "elixir": r"^\s*(defmodule|def|defp|defmacro|defprotocol|defimpl)\s",
    "erlang": r"^[a-z]\w*\(.*\)\s*(when.*)?->",
    "zig": r"^\s*(pub\s+)?(fn\s+\w|const\s+\w+\s*=\s*(struct|enum|union))|^test\s",
    "objc": r"^\s*(@interface|@implementation|@protocol|[-+]\s*\()",
    "groovy": r"^\s*((public|private|protected|static|abstract|final)\s+)*(class|interface|enum|def)\s+\w",
    "powershell": r"(?i)^\s*(function|filter|class|enum)\s+[\w-]+",
    "hcl": r"^\s*(resource|data|variable|output|module|locals|provider|terraform)\b",
    "solidity": r"^\s*(abstract\s+)?(contract|interface|library|function|struct|enum|event|modifier)\s+\w",
    "protobuf": r"^\s*(message|enum|service)\s+\w",
    "graphql": r"^\s*(type|input|interface|enum|union|scalar|query|mutation|fragment|schema)\b",
    "vue": r"^\s*(export\s+)?(async\s+)?function\s+\w|^\s*(export\s+)?(const|let)\s+\w+\s*=\s*(\(|async|function)",
    "svelte": r"^\s*(export\s+)?(async\s+)?function\s+\w",
    "yaml": r"^[\w\"'-]+\s*:",
    "toml": r"^\s*(\[|[\w\"'-]+\s*=)",
    "json": r"\"\w+\"\s*:",
    "perl": r"^\s*(sub\s+\w|package\s+[\w:]+)",
}


def main():
    lore = sys.argv[1]
    args = sys.argv[2:]
    sample = 0
    if args and args[0] == "--sample":
        sample, args = int(args[1]), args[2:]
    rows, samples = [], []
    for arg in args:
        lang, repo = arg.split("=", 1)
        repo, _, commit = repo.partition("@")
        commit = commit or subprocess.check_output(["git", "--git-dir", repo, "rev-parse", "HEAD"], text=True).strip()
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "src")
            os.makedirs(src)
            archive = subprocess.run(["git", "--git-dir", repo, "archive", commit], capture_output=True)
            if archive.returncode != 0:
                print(f"<!-- {lang}: {repo} does not archive: {archive.stderr.decode()[:200]} -->")
                continue
            subprocess.run(["tar", "-x", "-C", src], input=archive.stdout, check=True)
            data = os.path.join(tmp, "data")
            started = time.monotonic()
            subprocess.run([lore, "--data-dir", data, "-q", "store", "add", "s", src, "--embed", "none"],
                           capture_output=True, check=True)
            secs = time.monotonic() - started
            db = sqlite3.connect(os.path.join(data, "lore.db"))
            files = db.execute("SELECT path, parse_error FROM files WHERE skipped IS NULL").fetchall()
            with_symbols = {p for (p,) in db.execute("SELECT DISTINCT path FROM symbols")}
            mine = [(p, e) for p, e in files if language(lore, p) == lang]
            pattern = re.compile(DECLARES[lang], re.M)
            declaring = [p for p, _ in mine if pattern.search(read(src, p))]
            covered = [p for p in declaring if p in with_symbols]
            errors = [p for p, e in mine if e]
            if sample:
                samples.append((lang, graph_sample(db, src, lore, lang, sample)))
            rows.append((lang, os.path.basename(os.path.dirname(repo.rstrip("/"))) if repo.endswith("repo") else repo, commit[:10],
                         len(mine), len(declaring), len(covered), len(errors), secs, [p for p in declaring if p not in with_symbols][:3]))
    print("| language | repository | commit | files | declaring | with units | parse errors | index s |")
    print("|---|---|---|---|---|---|---|---|")
    for lang, repo, commit, n, d, c, e, s, missed in rows:
        share = f"{100 * c / d:.1f}%" if d else "-"
        err = f"{e} ({100 * e / n:.1f}%)" if n else "-"
        print(f"| {lang} | {repo.replace('+', '/')} | {commit} | {n} | {d} | {c} ({share}) | {err} | {s:.1f} |")
    for lang, *_, missed in rows:
        if missed:
            print(f"<!-- {lang} declaring without units, e.g. {missed} -->")
    for lang, (calls, resolved, drawn) in samples:
        share = f"{100 * resolved / calls:.1f}%" if calls else "-"
        print(f"\n## {lang}: {resolved} of {calls} call sites resolved ({share})")
        for line in drawn:
            print(line)


def graph_sample(db, src, lore, lang, n):
    """(call sites, resolved, N resolved calls drawn at random) of one language."""
    import random
    rows = db.execute(
        "SELECT r.path, r.line, r.name, r.caller, s.path, s.start_line, s.qualified, r.confidence "
        "FROM refs r LEFT JOIN symbols s ON s.id = r.target WHERE r.kind = 'calls'"
    ).fetchall()
    rows = [r for r in rows if language(lore, r[0]) == lang]
    resolved = [r for r in rows if r[4] is not None]
    rng = random.Random(7)
    drawn = rng.sample(resolved, min(n, len(resolved)))
    out = []
    for path, line, name, caller, tpath, tline, tq, conf in sorted(drawn):
        text = read(src, path).splitlines()
        at = text[line - 1].strip()[:90] if 0 < line <= len(text) else ""
        ttext = read(src, tpath).splitlines()
        target = ttext[tline - 1].strip()[:70] if 0 < tline <= len(ttext) else ""
        out.append(f"- `{path}:{line}` `{at}` → `{tq}` ({tpath}:{tline} `{target}`, {conf:.2f})")
    return len(rows), len(resolved), out


EXT = None


def language(lore, path):
    """The language lore gives a path (by extension, as `lore_core::Language::from_path`)."""
    global EXT
    if EXT is None:
        EXT = {}
        # Kept in step with lore_core::Language::TABLE by the caller's eye; the names are lore's.
        table = {
            "csharp": "cs", "ruby": "rb rake gemspec ru", "php": "php", "kotlin": "kt kts", "swift": "swift",
            "scala": "scala sc", "dart": "dart", "lua": "lua", "bash": "sh bash zsh ksh", "sql": "sql", "r": "r",
            "julia": "jl", "haskell": "hs", "ocaml": "ml mli", "elixir": "ex exs", "erlang": "erl hrl", "zig": "zig",
            "objc": "m mm", "groovy": "groovy gradle", "powershell": "ps1 psm1", "hcl": "tf hcl tfvars",
            "solidity": "sol", "protobuf": "proto", "graphql": "graphql gql", "yaml": "yaml yml", "toml": "toml",
            "json": "json", "vue": "vue", "svelte": "svelte", "perl": "pl pm t psgi",
        }
        for lang, exts in table.items():
            for e in exts.split():
                EXT[e] = lang
    name = path.rsplit("/", 1)[-1]
    if name in ("Rakefile", "Gemfile", "Podfile", "Vagrantfile"):
        return "ruby"
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return EXT.get(ext)


def read(src, rel):
    try:
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


if __name__ == "__main__":
    main()
