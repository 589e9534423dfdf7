//! Protocol Buffers units: messages (nested too), enums, services and their rpcs.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const PROTOBUF: Table = Table {
    units: &[
        ("message", Struct),
        ("enum", Enum),
        ("service", Interface),
        ("rpc", Function),
    ],
    names: &["message_name", "enum_name", "service_name", "rpc_name"],
    bodies: &["message_body", "enum_body"],
    ..Table::EMPTY
};
