//! Markdown: sections by ATX heading, with the heading path of each section.

use crate::ChunkOptions;
use crate::text::{Meta, Src};
use lore_core::{Chunk, ChunkKind, Language};

/// A parsed ATX heading: level and text.
fn atx_heading(line: &str) -> Option<(usize, String)> {
    let indent = line.bytes().take_while(|b| *b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !(after.is_empty() || after.starts_with(' ') || after.starts_with('\t')) {
        return None;
    }
    let mut title = after.trim();
    // Optional closing sequence: `## Title ##`.
    let stripped = title.trim_end_matches('#');
    if stripped.is_empty() {
        title = "";
    } else if stripped.len() != title.len() && stripped.ends_with([' ', '\t']) {
        title = stripped.trim_end();
    }
    let title: Vec<&str> = title.split_whitespace().collect();
    Some((level, title.join(" ")))
}

/// Opening code fence: its char and length (3+ backticks or tildes).
fn fence_open(line: &str) -> Option<(u8, usize)> {
    let indent = line.bytes().take_while(|b| *b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = rest.bytes().take_while(|b| *b == ch).count();
    if n < 3 {
        return None;
    }
    if ch == b'`' && rest[n..].contains('`') {
        return None;
    }
    Some((ch, n))
}

fn fence_closes(line: &str, ch: u8, len: usize) -> bool {
    let indent = line.bytes().take_while(|b| *b == b' ').count();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let n = rest.bytes().take_while(|b| *b == ch).count();
    n >= len && rest[n..].trim().is_empty()
}

pub(crate) fn chunk_markdown(src: &Src, opts: &ChunkOptions) -> Vec<Chunk> {
    // (start byte, heading path, symbol) of every section.
    let mut sections: Vec<(usize, Vec<String>, Option<String>)> = vec![(0, Vec::new(), None)];
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut pos = 0;
    for raw in src.text.split_inclusive('\n') {
        let start = pos;
        pos += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if let Some((ch, len)) = fence {
            if fence_closes(line, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some(f) = fence_open(line) {
            fence = Some(f);
            continue;
        }
        if let Some((level, title)) = atx_heading(line) {
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                stack.pop();
            }
            stack.push((level, title.clone()));
            let path = stack.iter().map(|(_, t)| t.clone()).collect();
            sections.push((start, path, Some(title)));
        }
    }

    let mut out = Vec::new();
    for (i, (start, headings, symbol)) in sections.iter().enumerate() {
        let end = sections.get(i + 1).map_or(src.len(), |s| s.0);
        let meta = Meta {
            symbol: symbol.clone(),
            headings: headings.clone(),
            ..Meta::plain(ChunkKind::Section)
        };
        if src.chars(*start, end) <= opts.max_chars {
            out.extend(src.make(Language::Markdown, &meta, *start, end));
        } else {
            for (s, e) in src.split_lines(*start, end, opts.max_chars) {
                out.extend(src.make(Language::Markdown, &meta, s, e));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings() {
        assert_eq!(atx_heading("# A"), Some((1, "A".into())));
        assert_eq!(atx_heading("### B ###"), Some((3, "B".into())));
        assert_eq!(atx_heading("## C#"), Some((2, "C#".into())));
        assert_eq!(atx_heading("#hashtag"), None);
        assert_eq!(atx_heading("    # code"), None);
        assert_eq!(atx_heading("####### seven"), None);
        assert_eq!(atx_heading("#"), Some((1, String::new())));
    }
}
