//! What lifts a candidate past its fused score: a query that names a dependency's package,
//! that holds a unit's text word for word, or that is one identifier naming a unit.

use crate::query::evidence;
use crate::query::fusion::Signals;
use lore_index::{StoreRecord, StoredChunk};
use std::collections::HashSet;

/// What a unit's score is multiplied by when the query names its dependency store's
/// package and other stores are searched too.
pub(crate) const PACKAGE_NAMED: f32 = 1.5;

/// The dependency stores among `stores` whose package a word of `query` names (`tokio`,
/// `serde_json` or `serde-json`, a scoped npm package by its last part), when the search
/// covers other stores too.
pub(crate) fn named_packages(stores: &[StoreRecord], query: &str) -> HashSet<i64> {
    if stores.len() < 2 {
        return HashSet::new();
    }
    let norm = |w: &str| w.to_lowercase().replace('_', "-");
    let words: HashSet<String> = query
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
        .filter(|w| w.len() >= 2)
        .map(norm)
        .collect();
    stores
        .iter()
        .filter(|s| {
            crate::project::deps::package_of(&s.name).is_some_and(|(name, _)| {
                let last = name.rsplit('/').next().unwrap_or(&name);
                words.contains(&norm(last)) || words.contains(&norm(&name))
            })
        })
        .map(|s| s.id)
        .collect()
}

/// Puts the candidates that hold the query word for word first (in their order), each
/// scored at least as high as the best of the others, so scores still fall down the list.
pub(crate) fn lift_exact(ranked: &mut Vec<(f32, Signals, &StoredChunk)>, phrase: &str) {
    let (mut exact, rest): (Vec<_>, Vec<_>) = ranked
        .drain(..)
        .partition(|(_, _, sc)| evidence::holds(&sc.chunk.content, phrase));
    let floor = rest.first().map_or(0.0, |r| r.0);
    for e in &mut exact {
        e.0 = e.0.max(floor);
    }
    ranked.extend(exact);
    ranked.extend(rest);
}

/// Puts the units a bare identifier query names exactly (case and all: `getCookie`, not
/// the `interface GetCookie` beside it) first, scored at least as high as the best of the
/// others, so a file's one result is the definition the query names. A chunk that holds
/// several small members (an `impl` block's short methods) names each of them: it is
/// shown as the one asked for (`Presenter::unit`), after any unit of that very name.
pub(crate) fn lift_named(ranked: &mut Vec<(f32, Signals, &StoredChunk)>, ident: &str) {
    let is_named = |sc: &StoredChunk| {
        sc.chunk
            .symbol
            .as_deref()
            .is_some_and(|s| s == ident || s.rsplit(['.', ':']).next() == Some(ident))
    };
    // A container's chunk holds its members' definitions; a function that holds one is
    // most often a test writing the code it checks.
    let holds = |sc: &StoredChunk| {
        use lore_core::ChunkKind as K;
        matches!(
            sc.chunk.kind,
            K::Impl | K::Class | K::Struct | K::Trait | K::Interface | K::Module | K::Enum
        ) && crate::query::intent::defines_exactly(&sc.chunk.content, ident)
    };
    let names = |sc: &StoredChunk| is_named(sc) || holds(sc);
    let (mut named, rest): (Vec<_>, Vec<_>) = ranked.drain(..).partition(|(_, _, sc)| names(sc));
    // The unit named so comes before a container that holds such a definition.
    named.sort_by_key(|(_, _, sc)| !is_named(sc));
    let floor = rest.first().map_or(0.0, |r| r.0);
    let top = named.iter().map(|n| n.0).fold(floor, f32::max);
    for n in &mut named {
        n.0 = n.0.max(if is_named(n.2) { top } else { floor });
    }
    ranked.extend(named);
    ranked.extend(rest);
}

/// The query as one identifier (`getCookie`, `parse_query`, `Router.match`), if it is one.
pub(crate) fn bare_identifier(query: &str) -> Option<&str> {
    let q = query
        .trim()
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '`'));
    // One word: "calls to WriterLock::acquire" asks about `acquire`, it does not name it.
    if q.contains(char::is_whitespace) {
        return None;
    }
    let ident = q.rsplit(['.', ':']).next()?;
    let mut chars = ident.chars();
    let starts = chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$');
    (starts && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')).then_some(ident)
}

#[cfg(test)]
mod tests {
    use super::bare_identifier;

    #[test]
    fn a_bare_identifier_is_the_whole_query() {
        assert_eq!(bare_identifier("getCookie"), Some("getCookie"));
        assert_eq!(bare_identifier(" `Router.match` "), Some("match"));
        assert_eq!(bare_identifier("Store::get"), Some("get"));
        assert_eq!(bare_identifier("calls to WriterLock::acquire"), None);
        assert_eq!(bare_identifier("parse a template"), None);
        assert_eq!(bare_identifier("2fa"), None);
    }
}
