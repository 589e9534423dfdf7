//! The shared vocabulary of lore: what a chunk is, which languages and kinds exist,
//! and where things live in a data dir. No I/O beyond path arithmetic.

mod chunk;
mod data_dir;
mod facts;
mod store;
mod time;

pub use chunk::{Chunk, ChunkKind, Language};
pub use data_dir::{DataDir, trusted_data_dir};
pub use facts::{
    Binding, FileFacts, Import, ImportedName, Receiver, RefKind, Reference, Symbol, accessor,
    fixture_name, is_auxiliary_path, is_test_path, type_name, unmodified,
};
pub use store::{
    AddStore, BRAIN_STORE, STORE_NAME_RULE, StoreKind, WebSettings, store_name_from,
    validate_store_name,
};
pub use time::{UtcTime, unix_now};
