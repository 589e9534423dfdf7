//! Token economy: what results cost an agent at each detail level, against the raw
//! chunks they stand for. Estimates are UTF-8 bytes / 4 (`lore_engine::estimate_tokens`).

use lore_engine::{Detail, Engine, EngineError, Intent, Mode, SearchRequest};
use serde::Serialize;

/// Mean estimated tokens per result.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tokens {
    pub queries: usize,
    pub results: usize,
    pub minimal: f64,
    pub contextual: f64,
    pub full: f64,
    /// The chunks the results stand for, as raw text.
    pub raw_chunk: f64,
    /// A chunk-returning result: location, kind, symbol, score and the chunk's text.
    pub raw_result: f64,
    /// 1 − minimal / raw_chunk.
    pub minimal_saving: f64,
    /// 1 − minimal / raw_result.
    pub minimal_saving_vs_result: f64,
}

/// Runs each query at the three detail levels (top 10) and averages per result.
pub fn measure(
    engine: &Engine,
    queries: &[(String, Option<Intent>)],
    stores: &[String],
    mode: Mode,
) -> Result<Tokens, EngineError> {
    let mut t = Tokens {
        queries: queries.len(),
        ..Tokens::default()
    };
    for (q, intent) in queries {
        let req = |detail| SearchRequest {
            stores: stores.to_vec(),
            mode,
            limit: 10,
            freshness: false,
            intent: *intent,
            detail,
            ..SearchRequest::new(q.as_str())
        };
        let minimal = engine.search(&req(Detail::Minimal))?;
        t.minimal += minimal.estimated_tokens as f64;
        t.contextual += engine.search(&req(Detail::Contextual))?.estimated_tokens as f64;
        t.full += engine.search(&req(Detail::Full))?.estimated_tokens as f64;
        for h in &minimal.results {
            let c = engine.context(&h.unit.id)?;
            t.raw_chunk += lore_engine::estimate_tokens(&c.full.content) as f64;
            let u = &c.unit;
            let raw = serde_json::json!({
                "id": u.id, "store": u.store, "path": u.path, "start_line": u.start_line,
                "end_line": u.end_line, "kind": u.kind, "symbol": u.symbol, "score": h.score,
                "content": c.full.content,
            });
            t.raw_result += lore_engine::estimate_tokens(&raw.to_string()) as f64;
        }
        t.results += minimal.results.len();
    }
    let n = t.results.max(1) as f64;
    t.minimal /= n;
    t.contextual /= n;
    t.full /= n;
    t.raw_chunk /= n;
    t.raw_result /= n;
    let saving = |raw: f64| {
        if raw > 0.0 {
            1.0 - t.minimal / raw
        } else {
            0.0
        }
    };
    t.minimal_saving = saving(t.raw_chunk);
    t.minimal_saving_vs_result = saving(t.raw_result);
    Ok(t)
}

impl std::fmt::Display for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "tokens per result ({} results of {} queries): minimal {:.0}, contextual {:.0}, full {:.0}; raw chunk text {:.0} (minimal saves {:.0}%), raw chunk result {:.0} (saves {:.0}%)",
            self.results,
            self.queries,
            self.minimal,
            self.contextual,
            self.full,
            self.raw_chunk,
            self.minimal_saving * 100.0,
            self.raw_result,
            self.minimal_saving_vs_result * 100.0
        )
    }
}
