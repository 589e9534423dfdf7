//! The whole unit behind a search result id, read from the catalog (never by re-searching):
//! the `full` detail layer plus the outline of its file.

use crate::query::UnitRef;
use crate::query::browse::OutlineEntry;
use crate::query::present::{ContextLayer, FullLayer, summary};
use crate::unit::unit_lines;
use crate::{Engine, EngineError};
use serde::Serialize;

/// A result's full unit: where it is, what it is, its text, its neighbourhood in the
/// code graph, and the outline of its file.
#[derive(Debug, Clone, Serialize)]
pub struct UnitContext {
    #[serde(flatten)]
    pub unit: UnitRef,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The enclosing unit's header, for members split out of a large unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    pub context: ContextLayer,
    /// The unit, its doc, callers, callees and tests: the `full` layer of a result.
    #[serde(flatten)]
    pub full: FullLayer,
    pub outline: Vec<OutlineEntry>,
    /// Estimated tokens of this answer (UTF-8 bytes of its JSON / 4).
    pub estimated_tokens: usize,
    /// E.g. the file changed since it was indexed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Engine {
    /// The full unit of a result id from an earlier search (in any process). An id whose
    /// chunk changed since is reported as not found.
    pub fn context(&self, id: &str) -> Result<UnitContext, EngineError> {
        let id = id.trim();
        let parsed = crate::unit::ResultId::parse(id)?;
        let found = match parsed.chunk {
            raw if raw >= 0 => self.catalog.chunks(&[raw])?.pop(),
            _ => None,
        };
        let Some(sc) = found else {
            return Err(EngineError::NotFound(format!(
                "no result with id {id} in this index (ids come from `lore search`; one from \
                 a search made before its file was re-indexed is gone too: search again)"
            )));
        };
        let store = self.catalog.store_by_id(sc.store_id)?.ok_or_else(|| {
            EngineError::NotFound(format!("result {id} belongs to a removed store"))
        })?;
        let outline = self.outline(sc.store_id, &sc.path)?;
        let presenter = self.presenter();
        // A nested definition's id names it by its first line; else the chunk's own unit.
        let nested = match parsed.line {
            Some(line) => self
                .catalog
                .file_symbols(sc.store_id, &sc.path)?
                .into_iter()
                .filter(|s| {
                    s.start_line == line
                        && s.start_byte >= sc.chunk.start_byte
                        && s.start_byte < sc.chunk.end_byte
                })
                .min_by_key(|s| s.end_byte - s.start_byte),
            None => None,
        };
        let (symbol, lines) = match nested {
            Some(s) => {
                let lines = [s.start_line, s.end_line];
                (Some(s), lines)
            }
            None if parsed.line.is_some() => {
                return Err(EngineError::NotFound(format!(
                    "no definition starts on that line of result {id}'s chunk (search again: \
                     its file may have been re-indexed)"
                )));
            }
            None => {
                let (_, symbol) = presenter.unit(&sc, &[])?;
                let lines = unit_lines(&sc, symbol.as_ref());
                (symbol, lines)
            }
        };
        let mut unit = UnitRef::new(&sc, &store)
            .within(lines)
            .named(symbol.as_ref());
        if let (Some(_), Some(s)) = (parsed.line, &symbol) {
            unit.id = parsed.to_string();
            unit.symbol = Some(s.name.clone());
            unit.kind = s.kind.as_str().to_string();
            unit.signature.clone_from(&s.signature);
            unit.match_lines = None;
        }
        let hood = presenter.neighbourhood(symbol.as_ref())?;
        let mut context = presenter.context_layer(&sc, symbol.as_ref(), hood.as_ref())?;
        let full =
            presenter.full_layer(&sc, symbol.as_ref(), hood.as_ref(), lines, &mut context)?;
        let summary = summary(&sc, symbol.as_ref(), &[]);
        let c = sc.chunk;
        let mut out = UnitContext {
            unit,
            parent: c.parent,
            summary,
            header: c.context,
            context,
            full,
            outline,
            estimated_tokens: 0,
            warnings: self
                .stale_warning(&store, [sc.path.as_str()])?
                .into_iter()
                .collect(),
        };
        out.estimated_tokens = crate::query::present::json_tokens(&out);
        Ok(out)
    }
}
