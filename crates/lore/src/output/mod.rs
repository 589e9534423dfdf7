//! Text and JSON rendering of engine results. JSON goes to stdout, one document per command.

mod grep;
mod reach;
pub use grep::grep;
pub use reach::{impact, patterns, unreached};

use lore_engine::{
    ContextLayer, Direction, DoctorReport, GraphAnswer, IndexReport, Problem, Related, RelatedUnit,
    SearchResponse, StoreRecord, StoreSummary, UnitContext,
};
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

/// Characters text output never prints raw: control characters, which would break its line
/// layout or drive the terminal (a newline in a file name, an escape sequence), and the
/// bidirectional overrides, which reorder what is shown.
fn unprintable(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape_into(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `s` for one line of text output: control characters escaped (`\n`, `\t`, `\u{1b}`).
/// JSON output carries names as they are.
pub fn esc(s: &str) -> Cow<'_, str> {
    escape_where(s, unprintable)
}

/// A line of a unit's content: tabs kept (they indent code), other control characters
/// escaped.
fn esc_code(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| c != '\t' && unprintable(c))
}

/// Lines of a unit's content as one text: newlines and tabs kept, other control characters
/// escaped.
fn esc_block(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| c != '\t' && c != '\n' && unprintable(c))
}

fn escape_where(s: &str, bad: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            escape_into(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A path for one line of text output.
fn esc_path(p: &Path) -> String {
    esc(&p.to_string_lossy()).into_owned()
}

/// Output could not be written: a closed pipe is the reader's choice, anything else an error.
pub fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to stdout: {e}");
    std::process::exit(3);
}

/// One pretty-printed JSON document on stdout.
pub fn print_json<T: Serialize + ?Sized>(v: &T) -> anyhow::Result<()> {
    out!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

/// A write that has nothing to report but that it was done: `{"done": WHAT}` or the line.
pub fn done(json: bool, what: &str) -> anyhow::Result<()> {
    if json {
        return print_json(&serde_json::json!({ "done": what }));
    }
    out!("{what}");
    Ok(())
}

fn when(ts: Option<i64>) -> String {
    match ts {
        None => "never".into(),
        Some(t) => format!("{} ago", age(t)),
    }
}

/// How long ago a unix time was: `42s`, `5m`, `3h`, `2d`.
pub fn age(ts: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(ts);
    match (now - ts).max(0) {
        s @ 0..=59 => format!("{s}s"),
        s @ 60..=3599 => format!("{}m", s / 60),
        s @ 3600..=86399 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86400),
    }
}

fn report_line(r: &IndexReport) -> String {
    let reanalyzed = match r.reanalyzed {
        0 => String::new(),
        n => format!(", {n} re-analysed"),
    };
    // Searchable before its embedding ended: say when, if that was a while before the end.
    let searchable = match r.searchable_ms {
        Some(ms) if r.elapsed_ms > ms + 1000 => {
            format!(" (searchable by keyword after {:.1}s)", ms as f64 / 1000.0)
        }
        _ => String::new(),
    };
    format!(
        "{}: {} files ({} added, {} changed{reanalyzed}, {} deleted, {} unchanged), {} chunks written ({} embedded), {} skipped, {:.1}s{searchable}",
        esc(&r.store),
        r.files_seen,
        r.added,
        r.changed,
        r.deleted,
        r.unchanged,
        r.chunks_written,
        r.embedded,
        r.skipped.len(),
        r.elapsed_ms as f64 / 1000.0
    )
}

pub fn stores_copied(json: bool, copied: &[lore_engine::StoreCopied]) -> anyhow::Result<()> {
    if json {
        return print_json(&copied);
    }
    if copied.is_empty() {
        out!("no stores to copy");
    }
    for c in copied {
        let r = &c.copied;
        let signals = if r.signals > 0 {
            format!(", {} feedback signals", r.signals)
        } else {
            String::new()
        };
        out!(
            "{}: {} files, {} chunks, {} vectors (none embedded again), {} symbols, {} references{signals}",
            esc(&c.store),
            r.files,
            r.chunks,
            r.vectors,
            r.symbols,
            r.references
        );
    }
    Ok(())
}

pub fn db_status(json: bool, s: &lore_engine::DbStatus) -> anyhow::Result<()> {
    if json {
        return print_json(s);
    }
    let schema = &s.schema;
    let state = match schema.version {
        0 => "no lore schema yet (`lore db migrate` writes it)".to_string(),
        v if v == schema.latest => format!("schema version {v}, up to date"),
        v if v < schema.latest => format!(
            "schema version {v}, this lore writes {}: `lore db migrate`",
            schema.latest
        ),
        v => format!(
            "schema version {v}, newer than this lore's {}: upgrade lore",
            schema.latest
        ),
    };
    out!("{} {}: {state}", s.backend, esc(&schema.database));
    if !s.applied.is_empty() {
        let applied: Vec<String> = s.applied.iter().map(i64::to_string).collect();
        out!("applied: {}", applied.join(", "));
    }
    if let Some(by) = &schema.written_by {
        out!("written by {}", esc(by));
    }
    if let Some(v) = &schema.pgvector {
        out!("pgvector {}", esc(v));
    }
    Ok(())
}

pub fn doctor(json: bool, r: &DoctorReport) -> anyhow::Result<()> {
    if json {
        return print_json(r);
    }
    let problem = |p: &Problem| {
        out!("  {}: {}", p.part.as_str(), esc(&p.problem));
        out!("    repair: {}", esc(&p.repair));
    };
    if let Some(w) = &r.writer {
        out!(
            "(lore {} pid {} is writing to this data dir; a store it is indexing can look \
             out of step until its batch lands)",
            esc(&w.role),
            w.pid
        );
    }
    r.problems.iter().for_each(problem);
    if r.stores.is_empty() {
        out!("no stores");
    }
    for s in &r.stores {
        let c = &s.catalog;
        let count = |n: Option<u64>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
        let facts = format!(
            "catalog {} files, {} chunks, {} embedded, generation {}; BM25 {} ({}); vectors {} ({})",
            c.files,
            c.chunks,
            c.embedded,
            c.generation,
            count(s.bm25.count),
            s.bm25.state,
            count(s.vectors.count),
            s.vectors.state
        );
        if s.healthy {
            out!("{}: ok ({facts})", esc(&s.store));
        } else {
            let n = s.problems.len();
            let plural = if n == 1 { "problem" } else { "problems" };
            out!("{}: {n} {plural} ({facts})", esc(&s.store));
            s.problems.iter().for_each(problem);
        }
        for note in &s.notes {
            out!("  note: {}", esc(note));
        }
    }
    for note in &r.notes {
        out!("note: {}", esc(note));
    }
    Ok(())
}

pub fn store_added(
    json: bool,
    store: &StoreRecord,
    report: &IndexReport,
    existed: bool,
) -> anyhow::Result<()> {
    if json {
        return print_json(
            &serde_json::json!({ "store": store, "report": report, "existed": existed }),
        );
    }
    out!(
        "{} store {} ({}, {})",
        if existed { "indexed existing" } else { "added" },
        esc(&store.name),
        store.kind.as_str(),
        esc(&store.source)
    );
    print_report(report);
    Ok(())
}

pub fn worker_report(json: bool, r: &lore_engine::WorkerReport) -> anyhow::Result<()> {
    if json {
        return print_json(r);
    }
    out!(
        "worker: {} batches ({} files, {} chunks written, {} embedded; {} taken over from a \
         stopped worker, {} given back after an error, {} lost to another worker)",
        r.batches,
        r.files,
        r.chunks_written,
        r.embedded,
        r.reclaimed,
        r.failed,
        r.lost
    );
    Ok(())
}

pub fn deps_report(json: bool, r: &lore_engine::deps::DepsReport) -> anyhow::Result<()> {
    use lore_engine::deps::DepStatus as S;
    if json {
        return print_json(r);
    }
    let refused = match r.refused.len() {
        0 => String::new(),
        n => format!(" ({n} refused)"),
    };
    out!(
        "{}: {} locked{refused}, {} taken; {} indexed from local caches, {} fetched, {} already indexed, {} not on this machine ({:.1} s)",
        r.project.display(),
        r.locked,
        r.taken,
        r.indexed,
        r.fetched,
        r.present,
        r.not_found,
        r.elapsed_ms as f64 / 1000.0
    );
    for d in &r.deps {
        let what = match d.status {
            S::Indexed => "indexed",
            S::Present => "present",
            S::NotFound => "not found",
            S::WouldIndex => "would index",
            S::Fetched => "fetched",
            S::FetchFailed => "not fetched",
            S::Mismatch => "not lore's",
        };
        let counts = match (d.files, d.chunks) {
            (Some(f), Some(c)) => format!(" ({f} files, {c} chunks)"),
            _ => String::new(),
        };
        out!("  {what:<11} {}{counts}", esc(&d.store));
        if let Some(e) = &d.error {
            out!("      {}", esc(e));
        }
    }
    for why in &r.refused {
        out!("  refused     {}", esc(why));
    }
    if !r.dropped.is_empty() {
        out!(
            "no longer locked here: {} (`lore deps gc` removes what no project uses)",
            r.dropped.join(", ")
        );
    }
    Ok(())
}

pub fn trust_report(json: bool, t: &lore_engine::trust::Trust) -> anyhow::Result<()> {
    if json {
        return print_json(t);
    }
    let shown = t.project.display().to_string();
    let path = esc(&shown);
    if t.asks.is_empty() {
        out!("{path} asks for nothing beyond its own folder");
    } else {
        out!("{path} asks to:");
        for a in &t.asks {
            out!("  - {}", esc(a));
        }
    }
    if t.trusted {
        out!("trusted as it is now: `lore sync` does what it asks (a changed file asks again)");
    } else {
        out!("not trusted: `lore sync` refuses what it asks beyond its folder");
    }
    Ok(())
}

pub fn sync_report(json: bool, r: &lore_engine::project::SyncReport) -> anyhow::Result<()> {
    use lore_engine::project::SyncAction as A;
    if json {
        return print_json(r);
    }
    let verb = |a: A| match (a, r.dry_run) {
        (A::Create, false) => "created",
        (A::Create, true) => "would create",
        (A::Update, false) => "updated",
        (A::Update, true) => "would update",
        (A::Replace, false) => "replaced",
        (A::Replace, true) => "would replace",
        (A::Index, false) => "indexed",
        (A::Index, true) => "would index",
    };
    out!("{}: {} stores", r.project.display(), r.steps.len());
    for s in &r.steps {
        let counts = match (s.files, s.chunks) {
            (Some(f), Some(c)) => format!(" ({f} files, {c} chunks)"),
            _ => String::new(),
        };
        let did = match (s.added, s.changed, s.deleted) {
            (Some(a), Some(c), Some(d)) => format!(": {a} added, {c} changed, {d} deleted"),
            _ => String::new(),
        };
        out!("  {} {}{counts}{did}", verb(s.action), esc(&s.store));
        for c in &s.changes {
            out!("      {}", esc(c));
        }
    }
    if !r.pruned.is_empty() {
        out!(
            "removed (no longer in the file): {}",
            esc(&r.pruned.join(", "))
        );
    } else if !r.not_in_project.is_empty() {
        out!(
            "this project's stores not in {} (left as they are; `lore sync --prune` removes them): {}",
            r.project.display(),
            esc(&r.not_in_project.join(", "))
        );
    }
    Ok(())
}

pub fn index_reports(json: bool, reports: &[IndexReport]) -> anyhow::Result<()> {
    if json {
        return print_json(reports);
    }
    reports.iter().for_each(print_report);
    Ok(())
}

fn print_report(r: &IndexReport) {
    if let Some(c) = &r.crawl {
        let unvisited = match c.unvisited {
            0 => String::new(),
            n => format!(", {n} links left (raise --max-pages or --max-depth)"),
        };
        let unchanged = match c.unchanged {
            0 => String::new(),
            n => format!(" ({n} unchanged since the last crawl)"),
        };
        out!(
            "{}: crawled {}: {} pages kept of {} fetched{unchanged}, {} not kept{unvisited}, {:.1}s",
            esc(&r.store),
            esc(&c.scope),
            c.pages,
            c.fetched,
            c.skipped.len(),
            c.elapsed_ms as f64 / 1000.0
        );
        for s in c.skipped.iter().take(5) {
            out!("  not kept {} ({})", esc(&s.url), esc(&s.reason));
        }
        if c.skipped.len() > 5 {
            out!("  … and {} more not kept", c.skipped.len() - 5);
        }
    }
    out!("{}", report_line(r));
    for s in r.skipped.iter().take(5) {
        out!("  skipped {} ({})", esc(&s.path), esc(&s.reason));
    }
    if r.skipped.len() > 5 {
        out!("  … and {} more skipped", r.skipped.len() - 5);
    }
    warn(&r.warnings);
}

fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {}", esc(w));
    }
}

pub fn store_list(json: bool, stores: &[StoreSummary]) -> anyhow::Result<()> {
    if json {
        return print_json(stores);
    }
    if stores.is_empty() {
        out!("no stores yet; add one with `lore store add NAME PATH`");
    }
    for s in stores {
        // How much of it vector search sees: all, a share (still being embedded), none.
        let vectors = match (s.store.embedder.as_deref(), s.stats.chunks) {
            (Some("none"), _) => "no vectors".to_string(),
            (_, 0) => String::new(),
            (_, n) if s.stats.embedded >= n => "embedded".to_string(),
            (_, n) => format!("{}% embedded", s.stats.embedded * 100 / n),
        };
        out!(
            "{:<20} {:<6} {:>6} files {:>8} chunks {:<13} indexed {:<10} {}",
            s.store.name,
            s.store.kind.as_str(),
            s.stats.files,
            s.stats.chunks,
            vectors,
            when(s.store.indexed_at),
            esc(&s.store.source)
        );
    }
    Ok(())
}

pub fn store_info(json: bool, s: &StoreSummary) -> anyhow::Result<()> {
    if json {
        return print_json(s);
    }
    let st = &s.store;
    out!("name:        {}", st.name);
    out!("type:        {}", st.kind.as_str());
    out!("source:      {}", esc(&st.source));
    out!("root:        {}", esc_path(&st.root));
    if let Some(b) = &st.branch {
        out!("branch:      {}", esc(b));
    }
    if let Some(w) = &st.web {
        out!(
            "crawl:       up to {} pages, {} links deep{}",
            w.max_pages,
            w.max_depth,
            w.site
                .as_ref()
                .map(|s| format!(", from {}", esc(s)))
                .unwrap_or_default()
        );
    }
    if let Some(d) = &st.description {
        out!("description: {}", esc(d));
    }
    if !st.includes.is_empty() {
        out!("include:     {}", esc(&st.includes.join(", ")));
    }
    if !st.excludes.is_empty() {
        out!("exclude:     {}", esc(&st.excludes.join(", ")));
    }
    if st.no_ignore {
        out!("ignore:      ignore files not read (--no-ignore)");
    }
    out!("files:       {}", s.stats.files);
    out!(
        "chunks:      {} ({} embedded)",
        s.stats.chunks,
        s.stats.embedded
    );
    if s.stats.symbols > 0 {
        out!(
            "code graph:  {} symbols, {} references ({} resolved)",
            s.stats.symbols,
            s.stats.references,
            s.stats.resolved
        );
    }
    if s.stats.parse_errors > 0 {
        out!(
            "parse errors: {} files (definitions past the error may be missing; `lore doctor` names them)",
            s.stats.parse_errors
        );
    }
    if !st.feedback {
        out!(
            "feedback:    off (`lore feedback on {}` turns it on)",
            st.name
        );
    }
    out!("indexed:     {}", when(st.indexed_at));
    Ok(())
}

pub fn store_removed(json: bool, s: &StoreRecord) -> anyhow::Result<()> {
    if json {
        return print_json(&serde_json::json!({ "removed": s.name }));
    }
    out!("removed store {}", s.name);
    Ok(())
}

pub fn locate(json: bool, r: &lore_engine::LocateResponse) -> anyhow::Result<()> {
    if json {
        return print_json(r);
    }
    if r.files.is_empty() {
        out!("no file matches the task");
    }
    for (i, f) in r.files.iter().enumerate() {
        out!("{:>2}. {:.3} {}:{}", i + 1, f.score, f.store, esc(&f.path));
        out!("    {}", esc(&f.why.join("; ")));
        for u in &f.units {
            let name = u
                .qualified
                .as_ref()
                .or(u.symbol.as_ref())
                .map_or("", |s| s.as_str());
            let id = if u.id.is_empty() {
                String::new()
            } else {
                format!("  {}", u.id)
            };
            out!(
                "    - {}-{} [{}] {}{}",
                u.start_line,
                u.end_line,
                u.kind,
                esc(name),
                id
            );
        }
    }
    Ok(())
}

pub fn search(json: bool, r: &SearchResponse) -> anyhow::Result<()> {
    if json {
        return print_json(r);
    }
    if let Some(scope) = &r.scope {
        out!("searched {}", esc(scope));
    }
    if r.results.is_empty() {
        out!("no results for {:?}", r.query);
    }
    for p in &r.patterns {
        reach::pattern_line(&p.store, &p.pattern);
    }
    for (i, hit) in r.results.iter().enumerate() {
        let h = &hit.unit;
        let name = match (&h.symbol, &h.signature) {
            (_, Some(sig)) => sig.clone(),
            (Some(sym), None) => sym.clone(),
            _ if !h.headings.is_empty() => h.headings.join(" > "),
            _ => String::new(),
        };
        let name = match &h.qualified {
            Some(q) => format!("{name}  ({q})"),
            None => name,
        };
        out!(
            "{:>2}. {:.3} {}:{}:{}-{}{} [{}] {}",
            i + 1,
            hit.score,
            h.store,
            esc(&h.path),
            h.start_line,
            h.end_line,
            matched(h.match_lines),
            h.kind,
            esc(&name)
        );
        if let Some(summary) = &hit.summary {
            out!("      {}", esc(summary));
        }
        if let Some(snippet) = &hit.snippet {
            for line in snippet.lines() {
                out!("      │ {}", esc_code(line));
            }
        }
        if let Some(ctx) = &hit.context {
            print_context_layer(ctx, "      ");
        }
        if let Some(full) = &hit.full {
            for line in full.content.lines() {
                out!("      │ {}", esc_code(line));
            }
            print_all_related(&full.related, "      ");
        }
        out!("      why: {}   id {}", esc(&hit.reason), h.id);
    }
    warn(&r.warnings);
    eprintln!(
        "{} results in {:.1} ms ({})",
        r.results.len(),
        r.elapsed_ms,
        r.mode.as_str()
    );
    Ok(())
}

pub fn model_fetched(json: bool, dir: &Path) -> anyhow::Result<()> {
    if json {
        return print_json(&serde_json::json!({ "model_dir": dir }));
    }
    out!("model ready in {}", esc_path(dir));
    Ok(())
}

pub fn model_info(json: bool, dir: &Path) -> anyhow::Result<()> {
    let present = ["config.json", "tokenizer.json", "model.safetensors"]
        .iter()
        .all(|f| dir.join(f).is_file());
    if json {
        return print_json(&serde_json::json!({ "model_dir": dir, "present": present }));
    }
    out!(
        "model dir: {} ({})",
        esc_path(dir),
        if present {
            "present"
        } else {
            "missing: run `lore model fetch`"
        }
    );
    Ok(())
}

pub fn context(json: bool, ctx: &UnitContext) -> anyhow::Result<()> {
    if json {
        return print_json(ctx);
    }
    warn(&ctx.warnings);
    let c = &ctx.unit;
    let name = c
        .signature
        .as_deref()
        .or(c.symbol.as_deref())
        .unwrap_or_default();
    out!(
        "{}:{}:{}-{}{} [{}] {}",
        c.store,
        esc(&c.path),
        c.start_line,
        c.end_line,
        matched(c.match_lines),
        c.kind,
        esc(name)
    );
    if let Some(parent) = &ctx.parent {
        out!("in {}", esc(parent));
    }
    if let Some(summary) = &ctx.summary {
        out!("{}", esc(summary));
    }
    if let Some(header) = &ctx.header {
        out!("{}", esc_block(header));
        out!("    …");
    }
    out!("{}", esc_block(&ctx.full.content));
    if let Some(t) = &ctx.full.truncated {
        out!(
            "(lines {}-{} shown; {} lines of this unit left out)",
            t.shown[0],
            t.shown[1],
            t.lines_left_out
        );
    }
    print_context_layer(&ctx.context, "");
    print_all_related(&ctx.full.related, "");
    if ctx.outline.len() > 1 {
        out!("\nfile outline:");
        for o in &ctx.outline {
            let here = if o.start_line == c.start_line && o.end_line == c.end_line {
                ">"
            } else {
                " "
            };
            out!(
                "{here} {:>5}-{:<5} {:<9} {}{}",
                o.start_line,
                o.end_line,
                o.kind,
                "  ".repeat(o.depth as usize),
                esc(o.symbol.as_deref().unwrap_or(""))
            );
        }
    }
    Ok(())
}

/// ` (match 517-540)` when the result is part of a larger unit.
fn matched(lines: Option<lore_engine::Lines>) -> String {
    lines.map_or_else(String::new, |[a, b]| format!(" (match {a}-{b})"))
}

fn print_context_layer(c: &ContextLayer, indent: &str) {
    if !c.imports.is_empty() {
        out!("{indent}imports: {}", esc(&c.imports.join("; ")));
    }
    if !c.types.is_empty() {
        out!("{indent}types: {}", esc(&c.types.join("; ")));
    }
    if let Some(u) = &c.usage {
        out!("{indent}{u}");
    }
    if !c.related.is_empty() {
        out!("{indent}related: {}", esc(&c.related.join(", ")));
    }
}

fn print_all_related(r: &Related, indent: &str) {
    print_related("callers", &r.callers, indent);
    print_related("callees", &r.callees, indent);
    print_related("tests", &r.tests, indent);
    print_related("extends", &r.bases, indent);
    print_related("extended by", &r.subtypes, indent);
}

fn print_related(label: &str, units: &[RelatedUnit], indent: &str) {
    if units.is_empty() {
        return;
    }
    out!("{indent}{label}:");
    for u in units {
        let (name, at) = (esc(&u.name), esc(&u.at));
        match &u.summary {
            Some(s) => out!("{indent}  {name} ({at}) — {}", esc(s)),
            None => out!("{indent}  {name} ({at})"),
        }
    }
}

pub fn graph(json: bool, g: &GraphAnswer) -> anyhow::Result<()> {
    if json {
        return print_json(g);
    }
    warn(&g.warnings);
    for d in &g.definitions {
        let sig = d.signature.as_deref().unwrap_or(&d.qualified);
        out!(
            "{}:{}:{}-{} [{}] {}",
            d.store,
            esc(&d.path),
            d.start_line,
            d.end_line,
            d.kind,
            esc(sig)
        );
        if let Some(s) = &d.summary {
            out!("    {}", esc(s));
        }
    }
    let label = match g.direction {
        Direction::Definition => return Ok(()),
        Direction::Callers => "callers",
        Direction::Callees => "callees",
    };
    out!("\n{label} ({}):", g.summary);
    for l in &g.links {
        let other = l
            .symbol
            .as_ref()
            .map(|s| format!("{} ({}:{})", esc(&s.qualified), esc(&s.path), s.start_line))
            .unwrap_or_else(|| "<module>".into());
        let conf = l.confidence.map(|c| format!("{c:.2}")).unwrap_or_default();
        match g.direction {
            Direction::Callers => {
                out!(
                    "  {}:{}  {}  {} {conf}",
                    esc(&l.path),
                    l.line,
                    other,
                    l.kind
                )
            }
            // A function given as a value is marked; plain calls are the rule.
            _ if l.kind != "calls" => {
                out!("  line {:<5} {}  {conf} {}", l.line, other, l.kind)
            }
            _ => out!("  line {:<5} {}  {conf}", l.line, other),
        }
    }
    if !g.candidates.is_empty() {
        out!("by name only (calls the graph could not resolve; the receiver may be another type):");
        for l in &g.candidates {
            let from = l
                .symbol
                .as_ref()
                .map(|s| esc(&s.qualified))
                .unwrap_or_else(|| "<module>".into());
            let conf = l.confidence.map(|c| format!("{c:.2}")).unwrap_or_default();
            out!("  {}:{}  {from}  {conf}", esc(&l.path), l.line);
        }
    }
    if !g.unresolved.is_empty() {
        let names: Vec<String> = g
            .unresolved
            .iter()
            .map(|l| format!("{}@{}", esc(&l.name), l.line))
            .collect();
        out!(
            "unresolved (outside the store or dynamic): {}",
            names.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(esc("plain/path.rs"), "plain/path.rs");
        assert!(matches!(esc("plain"), Cow::Borrowed(_)));
        assert_eq!(
            esc("a\nb\r\tc\u{1b}[31m\u{7f}\u{85}\u{202e}d"),
            "a\\nb\\r\\tc\\u{1b}[31m\\u{7f}\\u{85}\\u{202e}d"
        );
        assert_eq!(esc_code("\tx = 1;\u{1b}"), "\tx = 1;\\u{1b}");
        assert_eq!(esc_block("a\n\tb\r\n"), "a\n\tb\\r\n");
    }
}
