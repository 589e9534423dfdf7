//! The unit a chunk belongs to. A function or class longer than the chunk budget is
//! indexed as several windows; a result found through one window still answers with the
//! unit's own lines (and says which part matched), and the full layer returns the whole
//! unit, put back together from its windows in the catalog.

use lore_index::{StoredChunk, SymbolRow};
use serde::Serialize;

/// Most lines of a unit the full layer returns (about 8k tokens of typical code); a longer
/// unit is cut around the matching part, and the cut is said, never silent.
pub const MAX_UNIT_LINES: u32 = 400;
/// Lines kept above the matching part when a long unit is cut.
const LEAD_LINES: u32 = 20;

/// First and last line (1-based, inclusive).
pub type Lines = [u32; 2];

/// A result's id: the chunk that holds the unit (16 hex digits of a 63-bit hash), and
/// for a definition nested in a larger chunk (a method of a class kept whole, a function
/// defined inside another) the line the definition starts on, as `<chunk>-<line>`. So an
/// id names one unit, and `context` returns that unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ResultId {
    pub chunk: i64,
    pub line: Option<u32>,
}

impl ResultId {
    pub fn parse(id: &str) -> Result<ResultId, crate::EngineError> {
        let id = id.trim();
        let bad = || {
            crate::EngineError::Input(format!(
                "{id:?} is not a result id (16 hex digits, or 16 hex digits, `-` and a line \
                 number, from `lore search`)"
            ))
        };
        let (hex, line) = match id.split_once('-') {
            Some((hex, line)) => (hex, Some(line.parse::<u32>().map_err(|_| bad())?)),
            None => (id, None),
        };
        if hex.len() != 16 {
            return Err(bad());
        }
        let raw = u64::from_str_radix(hex, 16).map_err(|_| bad())?;
        // Ids are 63-bit: a larger one is well formed but names no chunk.
        let chunk = i64::try_from(raw).unwrap_or(-1);
        Ok(ResultId { chunk, line })
    }
}

impl std::fmt::Display for ResultId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.chunk)?;
        match self.line {
            Some(line) => write!(f, "-{line}"),
            None => Ok(()),
        }
    }
}

/// The lines of the unit `sc` is part of: its symbol's lines, widened to the chunk's own
/// (a window that starts at the unit's doc comment or decorators). The last member of a
/// class or impl keeps the container's closing brackets in its chunk, so that chunks tile
/// the file; they are not the member's lines.
pub(crate) fn unit_lines(sc: &StoredChunk, symbol: Option<&SymbolRow>) -> Lines {
    let c = &sc.chunk;
    let Some(s) = symbol else {
        return [c.start_line, c.end_line];
    };
    let closing_tail = s.end_byte > c.start_byte
        && s.end_byte < c.end_byte
        && c.content.get(s.end_byte - c.start_byte..).is_some_and(|t| {
            t.bytes()
                .all(|b| b.is_ascii_whitespace() || b"}])>;,".contains(&b))
        });
    let end = if closing_tail {
        s.end_line
    } else {
        s.end_line.max(c.end_line)
    };
    [s.start_line.min(c.start_line), end]
}

/// What the full layer left out of a unit longer than [`MAX_UNIT_LINES`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Truncation {
    /// The lines `content` holds.
    pub shown: Lines,
    /// How many of the unit's lines are not in `content`.
    pub lines_left_out: u32,
}

/// The text of `lines` from a file's chunks (in file order). Chunks tile a file without
/// overlapping and hold all but white space: the blank lines and cut blanks between them
/// are put back (trailing blanks on a line are not).
/// Longer than [`MAX_UNIT_LINES`], the text is cut to a window that holds the matching
/// lines `matched`, with a marker line for each part left out.
pub(crate) fn assemble(
    file_chunks: &[StoredChunk],
    lines: Lines,
    matched: Lines,
) -> (String, Option<Truncation>) {
    let [first, last] = lines;
    let n = (last - first + 1) as usize;
    // The file's text from the first chunk that reaches the unit to the last one.
    let mut joined = String::new();
    let mut joined_from = first;
    let mut prev: Option<&lore_core::Chunk> = None;
    for c in file_chunks.iter().map(|c| &c.chunk) {
        if c.end_line < first || c.start_line > last {
            continue;
        }
        match prev {
            None => joined_from = c.start_line,
            // What lies between two chunks is white space: newlines between lines, blanks
            // where a very long line was cut.
            Some(p) if p.end_line == c.start_line => {
                joined.push_str(&" ".repeat(c.start_byte.saturating_sub(p.end_byte)));
            }
            Some(p) => joined.push_str(&"\n".repeat((c.start_line - p.end_line) as usize)),
        }
        joined.push_str(&c.content);
        prev = Some(c);
    }
    let mut text: Vec<&str> = vec![""; n];
    for (k, line) in joined.split('\n').enumerate() {
        let at = joined_from + k as u32;
        if (first..=last).contains(&at) {
            text[(at - first) as usize] = line;
        }
    }
    if n as u32 <= MAX_UNIT_LINES {
        return (text.join("\n"), None);
    }
    let start = if matched[1] < first + MAX_UNIT_LINES {
        first
    } else {
        // Near the end, the window still holds as many lines as it may.
        matched[0]
            .saturating_sub(LEAD_LINES)
            .min(last + 1 - MAX_UNIT_LINES)
            .max(first)
    };
    let end = (start + MAX_UNIT_LINES - 1).min(last);
    let mut out = Vec::with_capacity(MAX_UNIT_LINES as usize + 2);
    if start > first {
        out.push(format!(
            "… lines {first}-{} of this unit left out …",
            start - 1
        ));
    }
    out.extend(
        text[(start - first) as usize..=(end - first) as usize]
            .iter()
            .map(|l| l.to_string()),
    );
    if end < last {
        out.push(format!(
            "… lines {}-{last} of this unit left out …",
            end + 1
        ));
    }
    let truncation = Truncation {
        shown: [start, end],
        lines_left_out: (last - first + 1) - (end - start + 1),
    };
    (out.join("\n"), Some(truncation))
}

/// A file's text from its chunks, which tile it but for whitespace: each chunk at its own
/// bytes, and each gap whitespace holding the line breaks the next chunk's line says.
pub(crate) fn file_from_chunks(chunks: &[StoredChunk]) -> String {
    let mut out = String::new();
    let mut line = 1u32;
    for sc in chunks {
        let c = &sc.chunk;
        if c.start_byte + c.content.len() <= out.len() {
            continue;
        }
        if c.start_byte >= out.len() {
            let gap = c.start_byte - out.len();
            let breaks = (c.start_line.saturating_sub(line) as usize).min(gap);
            out.extend(std::iter::repeat_n(' ', gap - breaks));
            out.extend(std::iter::repeat_n('\n', breaks));
            line += breaks as u32;
        }
        // Overlapping windows: only the part not yet written.
        let mut from = out.len().saturating_sub(c.start_byte);
        while !c.content.is_char_boundary(from) {
            from += 1;
        }
        let part = &c.content[from..];
        line += part.matches('\n').count() as u32;
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::{Chunk, ChunkKind, Language};

    fn chunk(start_line: u32, content: &str) -> StoredChunk {
        chunk_at(start_line, 0, content)
    }

    fn chunk_at(start_line: u32, start_byte: usize, content: &str) -> StoredChunk {
        StoredChunk {
            id: start_line as i64,
            store_id: 1,
            path: "a.py".into(),
            chunk: Chunk {
                kind: ChunkKind::Function,
                language: Language::Python,
                symbol: Some("f".into()),
                parent: None,
                signature: None,
                doc: None,
                headings: vec![],
                start_line,
                end_line: start_line + content.matches('\n').count() as u32,
                start_byte,
                end_byte: start_byte + content.len(),
                content: content.into(),
                context: None,
            },
        }
    }

    #[test]
    fn windows_are_put_back_together_with_the_blank_lines_between() {
        let chunks = [
            chunk(1, "import os"),
            chunk(3, "def f():\n    a = 1"),
            chunk(6, "    return a"),
        ];
        let (text, cut) = assemble(&chunks, [3, 6], [6, 6]);
        assert_eq!(text, "def f():\n    a = 1\n\n    return a");
        assert_eq!(cut, None);
        // A long line cut in two: the blanks at the cut come back.
        let chunks = [chunk_at(1, 0, "x = f(a)"), chunk_at(1, 10, "# why")];
        assert_eq!(assemble(&chunks, [1, 1], [1, 1]).0, "x = f(a)  # why");
    }

    #[test]
    fn a_long_unit_is_cut_around_the_match_and_says_so() {
        let body: Vec<String> = (1..=1000).map(|i| format!("x{i}")).collect();
        let chunks = [chunk(1, &body.join("\n"))];
        let (text, cut) = assemble(&chunks, [1, 1000], [1, 30]);
        assert_eq!(
            cut,
            Some(Truncation {
                shown: [1, 400],
                lines_left_out: 600
            })
        );
        assert!(text.ends_with("x400\n… lines 401-1000 of this unit left out …"));
        let (text, cut) = assemble(&chunks, [1, 1000], [700, 720]);
        let cut = cut.unwrap();
        assert_eq!(cut.shown, [601, 1000]);
        assert_eq!(cut.lines_left_out, 600);
        assert!(text.starts_with("… lines 1-600 of this unit left out …\nx601\n"));
        let (_, cut) = assemble(&chunks, [1, 1000], [450, 470]);
        assert_eq!(cut.unwrap().shown, [430, 829]);
        assert!(text.contains("x720"));
    }

    #[test]
    fn a_file_is_put_back_together_from_its_chunks() {
        let text = "use x;\n\n\tfn a() {}\nfn b() {\n  1\n}\n";
        let chunk = |start: usize, end: usize, line: u32| StoredChunk {
            id: start as i64,
            store_id: 1,
            path: "f.rs".into(),
            chunk: lore_core::Chunk {
                kind: lore_core::ChunkKind::Function,
                language: lore_core::Language::Rust,
                symbol: None,
                parent: None,
                signature: None,
                doc: None,
                headings: vec![],
                start_line: line,
                end_line: line,
                start_byte: start,
                end_byte: end,
                content: text[start..end].into(),
                context: None,
            },
        };
        let rebuilt = file_from_chunks(&[chunk(0, 6, 1), chunk(9, 18, 3), chunk(19, 33, 4)]);
        assert_eq!(rebuilt.len(), text.trim_end().len());
        assert_eq!(
            rebuilt.lines().map(str::trim).collect::<Vec<_>>(),
            text.trim_end().lines().map(str::trim).collect::<Vec<_>>()
        );
    }
}
