//! Mining the idioms a store repeats: units (functions, methods) that make the same
//! distinctive calls and carry the same decorators — how routes are declared, errors
//! wrapped, fixtures built. Run after each resolution of the graph; kept in the catalog.
//!
//! Each unit is the set of its parts: the names it calls or passes as values, and `@` its
//! decorators. Parts nearly every unit has (`len`, `unwrap`) or that fewer than
//! [`MIN_MEMBERS`] units have say nothing and are dropped. Every pair of parts that at least
//! [`MIN_MEMBERS`] units share seeds a candidate; its members are those units, and its
//! shared parts every part at least [`SHARED`] of them have. Candidates are taken largest
//! first (members × shared parts), skipping one whose members are mostly taken already, or
//! whose rarest shared part most units using it do not share (generic calls).

use crate::EngineError;
use lore_index::{Catalog, PatternMember, PatternRow, SymbolRow};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Fewest units a pattern has.
pub const MIN_MEMBERS: usize = 3;
/// Share of a pattern's members that must have a part for it to be shared.
const SHARED: f64 = 0.8;
/// A part more common than this share of the units is no idiom (but at least 25 units).
const UBIQUITOUS: f64 = 0.15;
/// Rarest parts kept per unit (bounds the pairs counted).
const PARTS_PER_UNIT: usize = 12;
/// The rarest shared part may be used by at most this many times the members' count.
const SPECIFIC: usize = 2;
/// Patterns kept per store.
const MAX_PATTERNS: usize = 100;
/// Members kept per pattern.
const MAX_MEMBERS: usize = 100;
/// Share of a candidate's members already in a taken pattern that makes it a repeat.
const OVERLAP: f64 = 0.6;
/// References read at most: a store with more (a kernel tree) is not mined.
pub const MAX_REFERENCES: u64 = 1_500_000;

struct Unit<'a> {
    symbol: &'a SymbolRow,
    parts: BTreeSet<String>,
}

fn member(s: &SymbolRow) -> PatternMember {
    PatternMember {
        path: s.path.clone(),
        qualified: s.qualified.clone(),
        kind: s.kind.as_str().to_string(),
        start_line: s.start_line,
        end_line: s.end_line,
    }
}

/// The parts shown in a name: decorators first, then calls, at most four.
fn pattern_name(parts: &[String], units: &[&Unit]) -> String {
    let tests = units.iter().filter(|u| u.symbol.is_test).count();
    let kind = if tests * 2 > units.len() {
        "tests"
    } else if units
        .iter()
        .filter(|u| u.symbol.kind == lore_core::ChunkKind::Method)
        .count()
        * 2
        > units.len()
    {
        "methods"
    } else {
        "functions"
    };
    let (decorated, calls): (Vec<&String>, Vec<&String>) =
        parts.iter().partition(|p| p.starts_with('@'));
    let mut name = String::new();
    if !decorated.is_empty() {
        let d: Vec<&str> = decorated.iter().map(|s| s.as_str()).collect();
        name.push_str(&d.join(" "));
        name.push(' ');
    }
    name.push_str(kind);
    if !calls.is_empty() {
        let c: Vec<&str> = calls.iter().take(4).map(|s| s.as_str()).collect();
        name.push_str(" calling ");
        name.push_str(&c.join(", "));
        if calls.len() > 4 {
            name.push_str(&format!(" (+{})", calls.len() - 4));
        }
    }
    name
}

/// The patterns of a store, from its symbols and the references made inside them.
pub(crate) fn mine(catalog: &Catalog, store_id: i64) -> Result<Vec<PatternRow>, EngineError> {
    if catalog.refs_exceed(store_id, MAX_REFERENCES)? {
        return Ok(Vec::new());
    }
    let symbols = catalog.symbols(store_id)?;
    let by_name: HashMap<(&str, &str), &SymbolRow> = symbols
        .iter()
        .filter(|s| {
            matches!(
                s.kind,
                lore_core::ChunkKind::Function | lore_core::ChunkKind::Method
            )
        })
        .map(|s| ((s.path.as_str(), s.qualified.as_str()), s))
        .collect();
    let mut parts: HashMap<(String, String), BTreeSet<String>> = HashMap::new();
    for (path, caller, name) in catalog.unit_references(store_id)? {
        let short = name.rsplit(['.', ':']).next().unwrap_or(&name).to_string();
        if !short.is_empty() {
            parts.entry((path, caller)).or_default().insert(short);
        }
    }
    let mut units: Vec<Unit> = Vec::new();
    for ((path, caller), calls) in parts {
        let Some(&symbol) = by_name.get(&(path.as_str(), caller.as_str())) else {
            continue;
        };
        // A parameter passed on (`call(env)`) is recorded as a use of its name: no part.
        let params = parameter_words(symbol.signature.as_deref().unwrap_or(""));
        let mut set: BTreeSet<String> = calls
            .into_iter()
            .filter(|c| !params.contains(c.as_str()))
            .collect();
        set.extend(symbol.decorators.iter().map(|d| format!("@{d}")));
        units.push(Unit { symbol, parts: set });
    }
    // Decorated units that call nothing still share their decorator.
    let seen: HashSet<i64> = units.iter().map(|u| u.symbol.id).collect();
    for s in by_name.values() {
        if !s.decorators.is_empty() && !seen.contains(&s.id) {
            units.push(Unit {
                symbol: s,
                parts: s.decorators.iter().map(|d| format!("@{d}")).collect(),
            });
        }
    }
    units.sort_by(|a, b| {
        (&a.symbol.path, a.symbol.start_line).cmp(&(&b.symbol.path, b.symbol.start_line))
    });
    Ok(mine_units(&units))
}

/// The words between a declaration's first parentheses: its parameters (and their types).
fn parameter_words(signature: &str) -> HashSet<&str> {
    let inside = signature
        .split_once('(')
        .and_then(|(_, rest)| rest.rsplit_once(')'))
        .map_or("", |(params, _)| params);
    inside
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

fn mine_units(units: &[Unit]) -> Vec<PatternRow> {
    let mut df: HashMap<&str, usize> = HashMap::new();
    for u in units {
        for p in &u.parts {
            *df.entry(p.as_str()).or_default() += 1;
        }
    }
    let ubiquitous = ((units.len() as f64 * UBIQUITOUS) as usize).max(25);
    let kept: Vec<Vec<&str>> = units
        .iter()
        .map(|u| {
            let mut p: Vec<&str> = u
                .parts
                .iter()
                .map(String::as_str)
                .filter(|p| (MIN_MEMBERS..=ubiquitous).contains(&df[p]))
                .collect();
            p.sort_by_key(|p| (df[p], *p));
            p.truncate(PARTS_PER_UNIT);
            p.sort_unstable();
            p
        })
        .collect();
    let mut pairs: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (i, p) in kept.iter().enumerate() {
        for a in 0..p.len() {
            for b in a + 1..p.len() {
                pairs.entry((p[a], p[b])).or_default().push(i);
            }
        }
        // A decorator alone is an idiom too (`@app.route`, `@pytest.fixture`).
        for d in p.iter().filter(|d| d.starts_with('@')) {
            pairs.entry((d, d)).or_default().push(i);
        }
    }
    let mut candidates: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
    let mut seen_cores: HashSet<Vec<String>> = HashSet::new();
    for (_, members) in pairs.into_iter().filter(|(_, m)| m.len() >= MIN_MEMBERS) {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for &m in &members {
            for p in &kept[m] {
                *count.entry(p).or_default() += 1;
            }
        }
        let need = (members.len() as f64 * SHARED).ceil() as usize;
        let mut core: Vec<String> = count
            .into_iter()
            .filter(|(_, n)| *n >= need)
            .map(|(p, _)| p.to_string())
            .collect();
        core.sort();
        // The members are the units with the whole core (the pair is part of it).
        let members: Vec<usize> = members
            .into_iter()
            .filter(|&i| core.iter().all(|c| kept[i].contains(&c.as_str())))
            .collect();
        // What the members share must be mostly theirs: its rarest part is used by few
        // units beyond them (`filter` and `keys` together are everywhere; `route` is not).
        let rarest = core
            .iter()
            .map(|c| df[c.as_str()])
            .min()
            .unwrap_or(usize::MAX);
        if members.len() >= MIN_MEMBERS
            && rarest <= members.len() * SPECIFIC
            && seen_cores.insert(core.clone())
        {
            candidates.push((core, members));
        }
    }
    candidates.sort_by(|a, b| {
        (b.1.len() * b.0.len())
            .cmp(&(a.1.len() * a.0.len()))
            .then(a.0.cmp(&b.0))
    });
    let mut taken: HashSet<usize> = HashSet::new();
    let mut out = Vec::new();
    for (core, members) in candidates {
        if out.len() >= MAX_PATTERNS {
            break;
        }
        let repeated = members.iter().filter(|m| taken.contains(m)).count();
        if repeated as f64 > members.len() as f64 * OVERLAP {
            continue;
        }
        taken.extend(&members);
        out.push(pattern(&core, &members, units, &kept));
    }
    for (i, p) in out.iter_mut().enumerate() {
        p.rank = i as u32 + 1;
    }
    out
}

fn pattern(core: &[String], members: &[usize], units: &[Unit], kept: &[Vec<&str>]) -> PatternRow {
    let core_set: HashSet<&str> = core.iter().map(String::as_str).collect();
    // Most typical first: the fewest parts beyond the shared ones, then the shortest.
    let mut ordered: Vec<&Unit> = members.iter().map(|&m| &units[m]).collect();
    let extra = |u: &Unit| {
        u.parts
            .iter()
            .filter(|p| !core_set.contains(p.as_str()))
            .count()
    };
    ordered.sort_by_key(|u| {
        (
            extra(u),
            u.symbol.end_line.saturating_sub(u.symbol.start_line),
            u.symbol.path.clone(),
        )
    });
    // Variants: the distinctive parts some members add (common ones say nothing).
    let mut variants: HashMap<&str, usize> = HashMap::new();
    for &m in members {
        for p in kept[m].iter().filter(|p| !core_set.contains(*p)) {
            *variants.entry(p).or_default() += 1;
        }
    }
    let mut variants: Vec<(String, usize)> = variants
        .into_iter()
        .filter(|(_, n)| *n >= 2)
        .map(|(p, n)| (p.to_string(), n))
        .collect();
    variants.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    variants.truncate(5);
    PatternRow {
        rank: 0,
        name: pattern_name(core, &ordered),
        parts: core.to_vec(),
        count: members.len(),
        canonical: member(ordered[0].symbol),
        members: ordered
            .iter()
            .take(MAX_MEMBERS)
            .map(|u| member(u.symbol))
            .collect(),
        variants,
    }
}

/// Mines a store's patterns again when the graph changed since they were mined.
pub(crate) fn refresh(
    catalog: &mut Catalog,
    store_id: i64,
    generation: i64,
) -> Result<(), EngineError> {
    if catalog.patterns_generation(store_id)? == Some(generation) {
        return Ok(());
    }
    let patterns = mine(catalog, store_id)?;
    let tx = catalog.begin()?;
    tx.replace_patterns(store_id, generation, &patterns)?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::ChunkKind;

    fn symbol(id: i64, name: &str, decorators: &[&str]) -> SymbolRow {
        SymbolRow {
            id,
            store_id: 1,
            path: format!("m{}.py", id % 3),
            name: name.into(),
            qualified: name.into(),
            kind: ChunkKind::Function,
            container: None,
            signature: None,
            doc: None,
            exported: true,
            is_async: false,
            is_test: false,
            start_line: id as u32 * 10,
            end_line: id as u32 * 10 + 4,
            start_byte: 0,
            end_byte: 0,
            returns: None,
            params: vec![],
            decorators: decorators.iter().map(|d| d.to_string()).collect(),
        }
    }

    #[test]
    fn units_sharing_distinctive_calls_make_one_pattern() {
        let symbols: Vec<SymbolRow> = (0..40)
            .map(|i| {
                symbol(
                    i,
                    &format!("f{i}"),
                    if i < 5 { &["app.route"] } else { &[] },
                )
            })
            .collect();
        let units: Vec<Unit> = symbols
            .iter()
            .map(|s| {
                let mut parts: BTreeSet<String> = BTreeSet::new();
                parts.insert("len".into());
                if s.id < 5 {
                    // Route handlers: the decorator, jsonify and get_json; one adds abort.
                    parts.extend(["@app.route", "jsonify", "get_json"].map(String::from));
                    if s.id == 4 {
                        parts.insert("abort".into());
                    }
                } else if s.id < 9 {
                    // Error wrappers.
                    parts.extend(["wrap_err", "log_error"].map(String::from));
                } else {
                    parts.insert(format!("own_{}", s.id));
                }
                Unit { symbol: s, parts }
            })
            .collect();
        // `len` is in every unit: no idiom once there are enough of them.
        let found = mine_units(&units);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert_eq!(found[0].parts, ["@app.route", "get_json", "jsonify"]);
        assert_eq!(found[0].count, 5);
        assert_eq!(
            found[0].name,
            "@app.route functions calling get_json, jsonify"
        );
        // The most typical member adds nothing; the one that adds `abort` is last.
        assert_ne!(found[0].canonical.qualified, "f4");
        assert_eq!(found[0].members.last().unwrap().qualified, "f4");
        assert_eq!(found[1].parts, ["log_error", "wrap_err"]);
        assert_eq!(found[1].count, 4);
        assert_eq!(found[0].rank, 1);
    }
}
