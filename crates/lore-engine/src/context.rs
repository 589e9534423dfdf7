//! The whole unit behind a search result id, read from the catalog (never by re-searching):
//! the `full` detail layer plus the outline of its file.

use crate::present::{ContextLayer, FullLayer, summary};
use crate::search::UnitRef;
use crate::unit::unit_lines;
use crate::{Engine, EngineError};
use serde::Serialize;

/// One unit of the same file, for orientation.
#[derive(Debug, Clone, Serialize)]
pub struct OutlineEntry {
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
}

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
}

impl Engine {
    /// The full unit of a result id from an earlier search (in any process). An id whose
    /// chunk changed since is reported as not found.
    pub fn context(&self, id: &str) -> Result<UnitContext, EngineError> {
        let raw = i64::from_str_radix(id.trim(), 16).map_err(|_| {
            EngineError::Input(format!(
                "{id:?} is not a result id (16 hex digits from `lore search`)"
            ))
        })?;
        let Some(sc) = self.catalog.chunks(&[raw])?.pop() else {
            return Err(EngineError::NotFound(format!(
                "result {id} not found: the index changed since that search; search again"
            )));
        };
        let store = self.catalog.store_by_id(sc.store_id)?.ok_or_else(|| {
            EngineError::NotFound(format!("result {id} belongs to a removed store"))
        })?;
        let outline = self
            .catalog
            .file_chunks(sc.store_id, &sc.path)?
            .into_iter()
            .map(|c| OutlineEntry {
                kind: c.chunk.kind.as_str().to_string(),
                symbol: c.chunk.symbol,
                start_line: c.chunk.start_line,
                end_line: c.chunk.end_line,
            })
            .collect();
        let presenter = self.presenter();
        let symbol = presenter.unit_symbol(&sc)?;
        let lines = unit_lines(&sc, symbol.as_ref());
        let unit = UnitRef::new(&sc, &store).within(lines);
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
        };
        out.estimated_tokens = serde_json::to_string(&out)
            .map(|j| crate::estimate_tokens(&j))
            .unwrap_or_default();
        Ok(out)
    }
}
