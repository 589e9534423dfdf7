//! A store's mined patterns (idioms its units repeat), kept in the catalog with the
//! generation they were mined at.

use crate::IndexError;
use crate::catalog::{Catalog, CatalogTx};
use crate::sql::{Row, SqlError, args};
use serde::{Deserialize, Serialize};

/// One member of a pattern: a unit, where it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternMember {
    pub path: String,
    pub qualified: String,
    pub kind: String,
    pub start_line: u32,
    pub end_line: u32,
}

/// An idiom: the parts its members share, the members, the most typical one and how the
/// others vary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternRow {
    /// 1 for the largest.
    pub rank: u32,
    pub name: String,
    /// What every member (or nearly) has: calls made, decorators.
    pub parts: Vec<String>,
    pub count: usize,
    pub canonical: PatternMember,
    /// Up to a hundred, most typical first.
    pub members: Vec<PatternMember>,
    /// What members add beyond the shared parts, with how many do.
    pub variants: Vec<(String, usize)>,
}

fn pattern_from_row(r: &mut Row) -> Result<PatternRow, SqlError> {
    let json = |s: String| serde_json::from_str(&s).unwrap_or_default();
    let canonical: Option<PatternMember> = serde_json::from_str(&r.text(4)?).ok();
    Ok(PatternRow {
        rank: r.int(0)? as u32,
        name: r.text(1)?,
        parts: json(r.text(2)?),
        count: r.int(3)? as usize,
        canonical: canonical.unwrap_or(PatternMember {
            path: String::new(),
            qualified: String::new(),
            kind: String::new(),
            start_line: 0,
            end_line: 0,
        }),
        members: serde_json::from_str(&r.text(5)?).unwrap_or_default(),
        variants: serde_json::from_str(&r.text(6)?).unwrap_or_default(),
    })
}

/// The calls and uses made inside units, as (file, calling unit's qualified name, name).
pub type UnitReference = (String, String, String);

impl Catalog {
    /// A store's patterns, largest first.
    pub fn patterns(&self, store_id: i64) -> Result<Vec<PatternRow>, IndexError> {
        self.db.query(
            "SELECT rank, name, parts, count, canonical, members, variants FROM patterns \
             WHERE store_id = ?1 ORDER BY rank",
            args![store_id],
            pattern_from_row,
        )
    }

    /// The generation a store's patterns were mined at (`None`: never).
    pub fn patterns_generation(&self, store_id: i64) -> Result<Option<i64>, IndexError> {
        self.db.query_opt(
            "SELECT generation FROM pattern_state WHERE store_id = ?1",
            args![store_id],
            |r| r.int(0),
        )
    }

    /// Every call or use made inside a unit of a store (the facts patterns are mined from),
    /// and how many there are in all (read first: a store too large is not mined).
    pub fn unit_references(&self, store_id: i64) -> Result<Vec<UnitReference>, IndexError> {
        self.db.query(
            "SELECT path, caller, name FROM refs WHERE store_id = ?1 AND caller IS NOT NULL \
             AND kind IN ('calls', 'uses')",
            args![store_id],
            |r| Ok((r.text(0)?, r.text(1)?, r.text(2)?)),
        )
    }
}

impl CatalogTx<'_> {
    /// Replaces a store's patterns with `patterns`, mined at `generation`.
    pub fn replace_patterns(
        &self,
        store_id: i64,
        generation: i64,
        patterns: &[PatternRow],
    ) -> Result<(), IndexError> {
        self.db
            .execute("DELETE FROM patterns WHERE store_id = ?1", args![store_id])?;
        for p in patterns {
            self.db.execute(
                "INSERT INTO patterns (store_id, rank, name, parts, count, canonical, members, variants) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                args![
                    store_id,
                    p.rank as i64,
                    &p.name,
                    json(&p.parts),
                    p.count as i64,
                    json(&p.canonical),
                    json(&p.members),
                    json(&p.variants)
                ],
            )?;
        }
        self.db.execute(
            "DELETE FROM pattern_state WHERE store_id = ?1",
            args![store_id],
        )?;
        self.db.execute(
            "INSERT INTO pattern_state (store_id, generation) VALUES (?1, ?2)",
            args![store_id, generation],
        )?;
        Ok(())
    }
}

/// A value as JSON text.
fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
