//! `lore impact` and `lore unreached`.

use super::{esc, print_json, warn};
use lore_engine::PatternRow;
use lore_engine::{ImpactAnswer, PatternList, Unreached};

pub fn impact(json: bool, a: &ImpactAnswer) -> anyhow::Result<()> {
    if json {
        return print_json(a);
    }
    warn(&a.warnings);
    out!("changed:");
    for c in &a.changed {
        out!(
            "  {}:{}:{} {}",
            c.store,
            esc(&c.path),
            c.start_line,
            esc(&c.qualified)
        );
    }
    out!("\nreached ({} in all, nearest first):", a.total);
    for r in &a.reached {
        out!(
            "  {} {}:{}:{} [{}] {}  — {} ({:.2})",
            r.distance,
            r.store,
            esc(&r.path),
            r.line,
            r.kind,
            esc(&r.name),
            esc(&r.why),
            r.confidence
        );
    }
    out!("\ntests that reach it ({}):", a.tests.len());
    for t in a.tests.iter().take(30) {
        out!("  {}:{} {}", esc(&t.path), t.line, esc(&t.name));
    }
    out!("\nentry points on the way ({}):", a.entry_points.len());
    for e in a.entry_points.iter().take(30) {
        out!("  {}:{} {}", esc(&e.path), e.line, esc(&e.name));
    }
    out!("\nfiles ({}):", a.files.len());
    for f in a.files.iter().take(50) {
        out!("  {}", esc(f));
    }
    Ok(())
}

pub fn unreached(json: bool, u: &Unreached) -> anyhow::Result<()> {
    if json {
        return print_json(u);
    }
    for d in &u.unreached {
        out!(
            "{}:{} [{}] {}",
            esc(&d.path),
            d.line,
            d.kind,
            esc(&d.qualified)
        );
    }
    eprintln!(
        "{} unreached functions in {} ({} definitions; of the unreferenced ones, {} kept as entry \
         points — exported, tests, main, decorated, constructors, methods of derived types — and \
         {} whose name is written elsewhere)",
        u.unreached.len(),
        u.store,
        u.definitions,
        u.entry_points,
        u.mentioned
    );
    Ok(())
}

/// One pattern: its name and size, the most typical member, how members vary.
pub(super) fn pattern_line(store: &str, p: &PatternRow) {
    let c = &p.canonical;
    out!(
        "pattern #{} ({} units): {}\n    e.g. {store}:{}:{}-{} {}",
        p.rank,
        p.count,
        esc(&p.name),
        esc(&c.path),
        c.start_line,
        c.end_line,
        esc(&c.qualified)
    );
    if !p.variants.is_empty() {
        let v: Vec<String> = p
            .variants
            .iter()
            .map(|(x, n)| format!("+{x} ({n})"))
            .collect();
        out!("    variants: {}", esc(&v.join(", ")));
    }
}

pub fn patterns(json: bool, lists: &[PatternList]) -> anyhow::Result<()> {
    if json {
        return print_json(lists);
    }
    for l in lists {
        for p in &l.patterns {
            pattern_line(&l.store, p);
        }
        eprintln!(
            "{}: {} patterns shown, covering {} units",
            l.store,
            l.patterns.len(),
            l.covered
        );
    }
    Ok(())
}
