//! The two settings a search request, a project file and every adapter share: how a search
//! retrieves (`Mode`) and how much of each result it returns (`Detail`).

use serde::Serialize;

/// Which signals a search retrieves with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Hybrid,
    Vector,
    Fts,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Hybrid, Mode::Vector, Mode::Fts];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Vector => "vector",
            Mode::Fts => "fts",
        }
    }
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str() == s)
    }
    pub(crate) fn uses_bm25(self) -> bool {
        self != Mode::Vector
    }
    pub(crate) fn uses_vectors(self) -> bool {
        self != Mode::Fts
    }
}

/// How much of each result to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// Type, name, signature, one-line purpose, location, why it matched. No code.
    #[default]
    Minimal,
    /// Minimal plus imports, referenced types and usage counts from the code graph.
    Contextual,
    /// Contextual plus the whole unit, callers and callees, and the tests that exercise it.
    Full,
}

impl Detail {
    pub const ALL: [Detail; 3] = [Detail::Minimal, Detail::Contextual, Detail::Full];

    pub fn as_str(self) -> &'static str {
        match self {
            Detail::Minimal => "minimal",
            Detail::Contextual => "contextual",
            Detail::Full => "full",
        }
    }

    pub fn parse(s: &str) -> Option<Detail> {
        Detail::ALL.into_iter().find(|d| d.as_str() == s)
    }
}
