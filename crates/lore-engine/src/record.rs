//! What a store's record says of its vectors: kept without any (`--embed none`), and
//! their dimension. A leaf: the store list, the indexer and the doctor all read it.

use lore_core::WebSettings;
use lore_index::StoreRecord;
use lore_source::web::CrawlOptions;

/// The embedder record of a store kept without vectors (`--embed none`).
pub(crate) const LEXICAL_ONLY: &str = "none";

/// Whether `store` is kept without vectors (`--embed none`).
pub(crate) fn lexical_only(store: &StoreRecord) -> bool {
    store.embedder.as_deref() == Some(LEXICAL_ONLY)
}

/// The dimension a store's vectors have (from its embedder record), if known.
pub(crate) fn store_dim(store: &StoreRecord) -> usize {
    store
        .embedder
        .as_deref()
        .and_then(|e| e.rsplit('/').next())
        .and_then(|d| d.parse().ok())
        .unwrap_or(lore_embed::DIM)
}

/// Crawl settings when none are given: the crawler's own defaults.
pub(crate) fn default_web() -> WebSettings {
    let d = CrawlOptions::default();
    WebSettings {
        max_pages: d.max_pages,
        max_depth: d.max_depth,
        site: None,
    }
}

/// This machine's name, read once per process (a lease is renewed at every commit).
pub(crate) fn host_name() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .or_else(|| std::env::var("HOSTNAME").ok())
            .or_else(|| std::env::var("COMPUTERNAME").ok())
            .unwrap_or_else(|| "localhost".into())
    })
}
