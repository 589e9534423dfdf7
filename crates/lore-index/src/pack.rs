//! Long texts as SQLite stores them (`Arg::Packed`): an LZ4 block after a tag and the
//! text's length. lz4_flex is already built for tantivy; its `safe-decode` and
//! `checked-decode` features make a damaged block an error, not a panic.

/// Texts shorter than this are stored as they are (a block would save little).
const PACK_MIN: usize = 96;
/// The first byte of a packed text: an LZ4 block after its length (u32, little-endian).
const PACK_LZ4: u8 = 1;
/// Longest text a packed block may claim to hold (files are capped far below).
const PACK_MAX: usize = 256 << 20;

/// A long text as SQLite stores it: `PACK_LZ4`, then an LZ4 block with its length; `None`
/// when short or when it would not shrink by an eighth (then it is stored as text).
pub(crate) fn pack(s: &str) -> Option<Vec<u8>> {
    if s.len() < PACK_MIN || s.len() > PACK_MAX {
        return None;
    }
    let block = lz4_flex::block::compress_prepend_size(s.as_bytes());
    (block.len() + 1 < s.len() - s.len() / 8).then(|| {
        let mut out = Vec::with_capacity(block.len() + 1);
        out.push(PACK_LZ4);
        out.extend_from_slice(&block);
        out
    })
}

/// The text `pack` made; `None` when the bytes are no packed text.
pub(crate) fn unpack(b: &[u8]) -> Option<String> {
    let (&tag, block) = b.split_first()?;
    let claimed = u32::from_le_bytes(block.get(..4)?.try_into().ok()?) as usize;
    if tag != PACK_LZ4 || claimed > PACK_MAX {
        return None;
    }
    let bytes = lz4_flex::block::decompress_size_prepended(block).ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::{Arg, Sql, args};
    use std::borrow::Cow;

    #[test]
    fn long_texts_are_packed_and_read_back_and_damage_is_an_error() {
        let code = "fn main() {\n    println!(\"héllo\");\n}\n".repeat(20);
        let packed = pack(&code).unwrap();
        assert!(
            packed.len() < code.len() / 2,
            "{} of {}",
            packed.len(),
            code.len()
        );
        assert_eq!(unpack(&packed).as_deref(), Some(code.as_str()));
        // Short or incompressible text stays text.
        assert_eq!(pack("fn f() {}"), None);
        let mut x = 12345u64;
        let noise: String = (0..400)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from(b'!' + (x >> 58) as u8)
            })
            .collect();
        assert_eq!(pack(&noise), None);
        // Damage: a wrong tag, a claimed length past the cap, a cut block, nothing.
        let mut bad = packed.clone();
        bad[0] = 9;
        assert_eq!(unpack(&bad), None);
        let mut huge = packed.clone();
        huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(unpack(&huge), None);
        assert_eq!(unpack(&packed[..packed.len() / 2]), None);
        assert_eq!(unpack(&[]), None);
        // Through SQLite: a packed column reads back as the text, a short one as text.
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let db = Sql::sqlite(conn, "test".into());
        db.batch("CREATE TABLE t (id INTEGER, content TEXT)")
            .unwrap();
        for (id, text) in [(1, code.as_str()), (2, "short")] {
            db.execute(
                "INSERT INTO t (id, content) VALUES (?1, ?2)",
                args![id, Arg::Packed(Cow::Borrowed(text))],
            )
            .unwrap();
        }
        let kinds: Vec<String> = db
            .query("SELECT typeof(content) FROM t ORDER BY id", &[], |r| {
                r.text(0)
            })
            .unwrap();
        assert_eq!(kinds, ["blob", "text"]);
        let back: Vec<String> = db
            .query("SELECT content FROM t ORDER BY id", &[], |r| {
                r.packed_text(0)
            })
            .unwrap();
        assert_eq!(back, [code.clone(), "short".to_string()]);
    }
}
