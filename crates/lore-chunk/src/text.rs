//! Byte/line arithmetic over a file, chunk construction and line windows.

use crate::ChunkOptions;
use lore_core::{Chunk, ChunkKind, Language};

/// Everything about a chunk except where it is.
#[derive(Debug, Clone)]
pub(crate) struct Meta {
    pub kind: ChunkKind,
    pub symbol: Option<String>,
    pub parent: Option<String>,
    pub signature: Option<String>,
    pub doc: Option<String>,
    pub headings: Vec<String>,
    pub context: Option<String>,
}

impl Meta {
    pub fn plain(kind: ChunkKind) -> Meta {
        Meta {
            kind,
            symbol: None,
            parent: None,
            signature: None,
            doc: None,
            headings: Vec::new(),
            context: None,
        }
    }
}

/// A file's text plus its line index.
pub(crate) struct Src<'a> {
    pub text: &'a str,
    pub bytes: &'a [u8],
    /// Byte offset of the start of every line (first is 0).
    line_starts: Vec<usize>,
}

#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    b.is_ascii_whitespace()
}

#[inline]
fn is_char_start(b: u8) -> bool {
    (b & 0xC0) != 0x80
}

impl<'a> Src<'a> {
    pub fn new(text: &'a str) -> Src<'a> {
        let bytes = text.as_bytes();
        let mut line_starts = Vec::with_capacity(bytes.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Src {
            text,
            bytes,
            line_starts,
        }
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, byte: usize) -> u32 {
        self.line_starts.partition_point(|&s| s <= byte) as u32
    }

    /// Offset of the `\n` ending the line containing `byte` (or the file length).
    pub fn line_end_of(&self, byte: usize) -> usize {
        let l = self.line_of(byte) as usize;
        if l < self.line_starts.len() {
            self.line_starts[l] - 1
        } else {
            self.len()
        }
    }

    /// Line of the last non-newline byte of a non-empty range.
    pub fn last_line(&self, start: usize, end: usize) -> u32 {
        let mut e = end.min(self.len());
        while e > start + 1 && matches!(self.bytes[e - 1], b'\n' | b'\r') {
            e -= 1;
        }
        self.line_of(e.saturating_sub(1).max(start))
    }

    pub fn floor(&self, mut i: usize) -> usize {
        i = i.min(self.len());
        while i > 0 && !self.text.is_char_boundary(i) {
            i -= 1;
        }
        i
    }

    pub fn ceil(&self, mut i: usize) -> usize {
        i = i.min(self.len());
        while i < self.len() && !self.text.is_char_boundary(i) {
            i += 1;
        }
        i
    }

    /// The text of a byte range, clamped to char boundaries (never panics).
    pub fn slice(&self, s: usize, e: usize) -> &'a str {
        let s = self.floor(s);
        let e = self.ceil(e).max(s);
        &self.text[s..e]
    }

    /// Number of chars in a byte range.
    pub fn chars(&self, s: usize, e: usize) -> usize {
        let e = e.min(self.len());
        if s >= e {
            return 0;
        }
        self.bytes[s..e]
            .iter()
            .filter(|b| is_char_start(**b))
            .count()
    }

    /// Byte offset of the `n`-th char (0-based) starting at `s`, or `e` if there are fewer.
    pub fn advance_chars(&self, s: usize, e: usize, n: usize) -> usize {
        let mut count = 0;
        for i in s..e.min(self.len()) {
            if is_char_start(self.bytes[i]) {
                if count == n {
                    return i;
                }
                count += 1;
            }
        }
        e
    }

    /// Byte offset `n` chars before `e`, but not before `floor`.
    pub fn retreat_chars(&self, e: usize, floor: usize, n: usize) -> usize {
        let mut count = 0;
        let mut i = e;
        while i > floor {
            i -= 1;
            if is_char_start(self.bytes[i]) {
                count += 1;
                if count == n {
                    return i;
                }
            }
        }
        floor
    }

    /// `byte` moved back over spaces/tabs when only those precede it on its line.
    pub fn back_to_line_start(&self, byte: usize) -> usize {
        let mut a = byte.min(self.len());
        while a > 0 && matches!(self.bytes[a - 1], b' ' | b'\t') {
            a -= 1;
        }
        if a == 0 || self.bytes[a - 1] == b'\n' {
            a
        } else {
            byte
        }
    }

    /// True when only spaces/tabs precede `byte` on its line.
    pub fn starts_line(&self, byte: usize) -> bool {
        let a = self.back_to_line_start(byte);
        a == 0 || self.bytes[a - 1] == b'\n'
    }

    pub fn is_blank(&self, s: usize, e: usize) -> bool {
        self.bytes[s.min(self.len())..e.min(self.len())]
            .iter()
            .all(|b| is_ws(*b))
    }

    /// Shrinks a range to its non-whitespace text, keeping the indentation of its first
    /// line; `None` if it is all whitespace.
    pub fn trim(&self, s: usize, e: usize) -> Option<(usize, usize)> {
        let s = self.floor(s);
        let e = self.ceil(e);
        let mut a = s;
        while a < e && is_ws(self.bytes[a]) {
            a += 1;
        }
        if a >= e {
            return None;
        }
        let mut b = e;
        while b > a && is_ws(self.bytes[b - 1]) {
            b -= 1;
        }
        Some((self.back_to_line_start(a), b))
    }

    /// A chunk for the (trimmed) range, or `None` if it is only whitespace.
    pub fn make(&self, language: Language, meta: &Meta, s: usize, e: usize) -> Option<Chunk> {
        let (s, e) = self.trim(s, e)?;
        Some(Chunk {
            kind: meta.kind,
            language,
            symbol: meta.symbol.clone(),
            parent: meta.parent.clone(),
            signature: meta.signature.clone(),
            doc: meta.doc.clone(),
            headings: meta.headings.clone(),
            start_line: self.line_of(s),
            end_line: self.line_of(e - 1),
            start_byte: s,
            end_byte: e,
            content: self.text[s..e].to_string(),
            context: meta.context.clone(),
        })
    }

    /// Moves the end of `chunk` to `end` (which must be at a char boundary after it).
    pub fn extend(&self, chunk: &mut Chunk, end: usize) {
        let end = self.ceil(end);
        if end <= chunk.end_byte {
            return;
        }
        chunk.end_byte = end;
        chunk.content = self.text[chunk.start_byte..end].to_string();
        chunk.end_line = self.line_of(end - 1);
    }

    /// Where to cut a line longer than the window: after the last space/tab in the second
    /// half of `[cur, limit)`, else at `limit`.
    fn cut_in_line(&self, cur: usize, limit: usize) -> usize {
        let half = cur + (limit - cur) / 2;
        (half.max(cur + 1)..limit)
            .rev()
            .find(|&i| matches!(self.bytes[i - 1], b' ' | b'\t'))
            .unwrap_or(limit)
    }

    /// Non-overlapping pieces of `[s, e)`, each at most `max` chars, cut at line
    /// boundaries (preferring blank lines in the second half of a window).
    pub fn split_lines(&self, s: usize, e: usize, max: usize) -> Vec<(usize, usize)> {
        let hard_max = max.max(1);
        let mut out = Vec::new();
        let mut cur = self.floor(s);
        let e = self.ceil(e);
        // Windows of similar size rather than full ones plus a tiny tail.
        let total = self.chars(cur, e);
        let max = if total > hard_max {
            let target = total.div_ceil(total.div_ceil(hard_max));
            (target + target / 8 + 1).min(hard_max)
        } else {
            hard_max
        };
        while cur < e {
            if self.chars(cur, e) <= hard_max {
                out.push((cur, e));
                break;
            }
            let limit = self.advance_chars(cur, e, max);
            let lo = self.line_starts.partition_point(|&x| x <= cur);
            let hi = self.line_starts.partition_point(|&x| x <= limit);
            let cut = if hi > lo {
                let half = cur + (limit - cur) / 2;
                let mut cut = self.line_starts[hi - 1];
                for k in (lo..hi).rev() {
                    let p = self.line_starts[k];
                    if p < half {
                        break;
                    }
                    if k >= 1 && self.is_blank(self.line_starts[k - 1], p) {
                        cut = p;
                        break;
                    }
                }
                cut
            } else {
                self.cut_in_line(cur, limit)
            };
            out.push((cur, cut));
            cur = cut;
        }
        out
    }
}

/// Plain text: windows of about `window_chars` overlapping by about `overlap_chars`,
/// cut at line boundaries.
pub(crate) fn text_windows(src: &Src, language: Language, opts: &ChunkOptions) -> Vec<Chunk> {
    let meta = Meta::plain(ChunkKind::Text);
    let mut out = Vec::new();
    let e = src.len();
    let window = opts.window_chars.max(1);
    let mut cur = 0;
    while cur < e {
        // Start each window at the line of its first non-whitespace byte.
        let mut a = cur;
        while a < e && is_ws(src.bytes[a]) {
            a += 1;
        }
        if a >= e {
            break;
        }
        cur = src.back_to_line_start(a).max(cur);
        let limit = src.advance_chars(cur, e, window);
        if limit >= e {
            out.extend(src.make(language, &meta, cur, e));
            break;
        }
        let lo = src.line_starts.partition_point(|&x| x <= cur);
        let hi = src.line_starts.partition_point(|&x| x <= limit);
        let at_line = hi > lo;
        let cut = if at_line {
            src.line_starts[hi - 1]
        } else {
            src.cut_in_line(cur, limit)
        };
        out.extend(src.make(language, &meta, cur, cut));
        let mut next = cut;
        if at_line && opts.overlap_chars > 0 {
            let back = src.retreat_chars(cut, cur, opts.overlap_chars);
            let k = src.line_starts.partition_point(|&x| x < back);
            if let Some(&p) = src.line_starts.get(k)
                && p > cur
                && p < cut
            {
                next = p;
            }
        }
        cur = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_trim() {
        let src = Src::new("ab\n  cd  \n\nef");
        assert_eq!(src.line_of(0), 1);
        assert_eq!(src.line_of(2), 1);
        assert_eq!(src.line_of(3), 2);
        assert_eq!(src.line_of(12), 4);
        assert_eq!(src.trim(2, 11), Some((3, 7)));
        assert_eq!(src.trim(9, 11), None);
        assert_eq!(src.line_end_of(4), 9);
    }

    #[test]
    fn split_lines_respects_max() {
        let text = "aaaa\nbbbb\n\ncccc\ndddd\n".repeat(20);
        let src = Src::new(&text);
        let parts = src.split_lines(0, text.len(), 17);
        let mut pos = 0;
        for (s, e) in parts {
            assert_eq!(s, pos);
            assert!(src.chars(s, e) <= 17);
            pos = e;
        }
        assert_eq!(pos, text.len());
    }
}
