//! lore's code graph: resolves the references of a store's files (calls, extends,
//! implements) to the symbols they reach, with a confidence, and imports to files.
//!
//! Pure: it sees a store only through [`Index`], built from the facts `lore-chunk`
//! extracted; the engine loads them from the catalog and stores what comes back.
//! A reference is resolved through the file's own definitions, then its imports, then
//! its package, then (for a few cases) a name unique in the store; anything else stays
//! unresolved rather than guessed.

mod modules;
mod resolve;

pub use modules::{FileSet, dir_of};
pub use resolve::{How, Incomplete, Index, Names, Resolution, SymbolEntry, SymbolKeys};
