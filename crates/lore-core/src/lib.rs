//! The shared vocabulary of lore: what a chunk is, which languages and kinds exist,
//! and where things live in a data dir. No I/O beyond path arithmetic.

mod chunk;
mod data_dir;
mod store;

pub use chunk::{Chunk, ChunkKind, Language};
pub use data_dir::DataDir;
pub use store::{StoreKind, validate_store_name};
