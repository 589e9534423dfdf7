//! What the searcher is after. An intent shifts ranking with priors on the kind of unit
//! (definitions, call sites, docs, tests); it is given or inferred from the query's wording.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Intent {
    FindDefinition,
    FindImplementation,
    FindUsage,
    FindPattern,
    FindDocumentation,
}

impl Intent {
    pub const ALL: [Intent; 5] = [
        Intent::FindDefinition,
        Intent::FindImplementation,
        Intent::FindUsage,
        Intent::FindPattern,
        Intent::FindDocumentation,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Intent::FindDefinition => "find-definition",
            Intent::FindImplementation => "find-implementation",
            Intent::FindUsage => "find-usage",
            Intent::FindPattern => "find-pattern",
            Intent::FindDocumentation => "find-documentation",
        }
    }

    pub fn parse(s: &str) -> Option<Intent> {
        Intent::ALL.into_iter().find(|i| i.as_str() == s)
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
    pub fn as_str(self) -> &'static str {
        match self {
            Detail::Minimal => "minimal",
            Detail::Contextual => "contextual",
            Detail::Full => "full",
        }
    }

    pub fn parse(s: &str) -> Option<Detail> {
        match s {
            "minimal" => Some(Detail::Minimal),
            "contextual" => Some(Detail::Contextual),
            "full" => Some(Detail::Full),
            _ => None,
        }
    }
}
