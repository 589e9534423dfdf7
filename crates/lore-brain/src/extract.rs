//! Text out of what `ingest` is given: markdown and plain text as they are, HTML converted
//! to markdown (scripts, styles and page chrome dropped), PDF through `pdf-extract`.

use crate::BrainError;
use std::path::Path;

/// Largest file `ingest` reads.
pub const MAX_INGEST_BYTES: u64 = 20 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Text,
    Html,
    Pdf,
}

fn extension(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    // A URL's query or fragment is not part of the extension.
    let base = base.split(['?', '#']).next().unwrap_or(base);
    base.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

fn looks_like_html(text: &str) -> bool {
    let head: String = text
        .trim_start()
        .chars()
        .take(512)
        .collect::<String>()
        .to_ascii_lowercase();
    head.starts_with("<!doctype html")
        || head.starts_with("<html")
        || head.starts_with("<head")
        || head.starts_with("<body")
        || (head.starts_with('<') && !head.starts_with("<!--") && text.contains("</"))
}

/// The format of a document named `name` (a path, a URL or any label) holding `bytes`.
pub fn detect(name: &str, bytes: &[u8]) -> Format {
    if bytes.starts_with(b"%PDF-") {
        return Format::Pdf;
    }
    match extension(name).as_str() {
        "pdf" => Format::Pdf,
        "html" | "htm" | "xhtml" => Format::Html,
        "md" | "markdown" | "mdx" => Format::Markdown,
        _ if looks_like_html(&String::from_utf8_lossy(&bytes[..bytes.len().min(4096)])) => {
            Format::Html
        }
        "txt" | "text" | "log" | "rst" => Format::Text,
        _ => Format::Markdown,
    }
}

/// Markdown from HTML, without scripts, styles, navigation and other non-content elements
/// (the same conversion web stores use).
pub fn html_to_markdown(html: &str) -> Result<String, BrainError> {
    lore_source::web::html_to_markdown(html)
        .map_err(|e| BrainError::Unreadable(format!("cannot convert the HTML: {e}")))
}

std::thread_local! {
    static QUIET_PANICS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs (once) a panic hook that stays silent on a thread extracting a PDF and defers
/// to the previous hook everywhere else.
fn quiet_panics_in_pdf_extraction() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET_PANICS.with(|q| q.get()) {
                previous(info);
            }
        }));
    });
}

/// The text of a PDF. `pdf-extract` panics on some malformed files; that is caught and
/// reported as an unreadable file.
pub fn pdf_to_text(bytes: &[u8], name: &str) -> Result<String, BrainError> {
    quiet_panics_in_pdf_extraction();
    QUIET_PANICS.with(|q| q.set(true));
    let result = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(bytes));
    QUIET_PANICS.with(|q| q.set(false));
    let unreadable = |why: String| {
        BrainError::Unreadable(format!(
            "cannot read text from the PDF {name}: {why}; convert it to text or markdown first"
        ))
    };
    let text = match result {
        Ok(Ok(text)) => text,
        Ok(Err(e)) => return Err(unreadable(e.to_string())),
        Err(_) => return Err(unreadable("the PDF reader failed on this file".into())),
    };
    if text.trim().is_empty() {
        return Err(unreadable(
            "it holds no text (a scanned PDF needs OCR)".into(),
        ));
    }
    Ok(text)
}

/// Text of a document in `format`.
pub fn to_text(bytes: &[u8], format: Format, name: &str) -> Result<String, BrainError> {
    let text = match format {
        Format::Pdf => return pdf_to_text(bytes, name),
        _ => std::str::from_utf8(bytes).map_err(|_| {
            BrainError::Unreadable(format!(
                "{name} is not UTF-8 text; give markdown, text, HTML or PDF"
            ))
        })?,
    };
    if text.contains('\0') {
        return Err(BrainError::Unreadable(format!(
            "{name} looks binary; give markdown, text, HTML or PDF"
        )));
    }
    match format {
        Format::Html => html_to_markdown(text),
        _ => Ok(text.to_string()),
    }
}

/// Reads and converts a file.
pub fn read_file(path: &Path) -> Result<(String, Format), BrainError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            BrainError::Input(format!("{shown} does not exist; give the path of a file"))
        }
        _ => BrainError::io(shown.clone(), e),
    })?;
    if !meta.is_file() {
        return Err(BrainError::Input(format!(
            "{shown} is not a file; give the path of a file"
        )));
    }
    if meta.len() > MAX_INGEST_BYTES {
        return Err(BrainError::Input(format!(
            "{shown} is {} bytes; ingest reads files up to {MAX_INGEST_BYTES} bytes",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| BrainError::io(shown.clone(), e))?;
    let format = detect(&shown, &bytes);
    Ok((to_text(&bytes, format, &shown)?, format))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A one-page PDF showing `lines` in Helvetica, with a correct cross-reference table.
    pub(crate) fn tiny_pdf(lines: &[&str]) -> Vec<u8> {
        let text: Vec<String> = lines
            .iter()
            .map(|l| {
                let escaped = l
                    .replace('\\', "\\\\")
                    .replace('(', "\\(")
                    .replace(')', "\\)");
                format!("({escaped}) Tj T*")
            })
            .collect();
        let content = format!("BT /F1 12 Tf 72 720 Td 14 TL {} ET", text.join(" "));
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
             /Resources << /Font << /F1 5 0 R >> >> >>"
                .to_string(),
            format!(
                "<< /Length {} >>\nstream\n{content}\nendstream",
                content.len()
            ),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
                .to_string(),
        ];
        let mut out = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (i, o) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend(format!("{} 0 obj\n{o}\nendobj\n", i + 1).bytes());
        }
        let xref = out.len();
        out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
        for o in offsets {
            out.extend(format!("{o:010} 00000 n \n").bytes());
        }
        out.extend(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .bytes(),
        );
        out
    }

    #[test]
    fn formats() {
        assert_eq!(detect("a/b.PDF", b"x"), Format::Pdf);
        assert_eq!(detect("anything", b"%PDF-1.7 ..."), Format::Pdf);
        assert_eq!(
            detect("https://x.invalid/page.html?q=1", b"hi"),
            Format::Html
        );
        assert_eq!(detect("notes", b"<!DOCTYPE html><p>x</p>"), Format::Html);
        assert_eq!(detect("notes", b"<div>x</div>"), Format::Html);
        assert_eq!(detect("notes.md", b"<div>x</div>"), Format::Markdown);
        assert_eq!(detect("notes", b"# Title\n\ntext"), Format::Markdown);
        assert_eq!(detect("log.txt", b"plain"), Format::Text);
    }

    #[test]
    fn html_loses_scripts_and_styles() {
        let md = to_text(
            b"<html><head><title>T</title><style>p{color:red}</style></head><body>\
              <h1>Quokkas</h1><script>alert('x')</script><p>Small <b>marsupials</b>.</p></body></html>",
            Format::Html,
            "page.html",
        )
        .unwrap();
        assert!(md.contains("# Quokkas"), "{md}");
        assert!(md.contains("Small **marsupials**."), "{md}");
        assert!(!md.contains("alert") && !md.contains("color"), "{md}");
    }

    #[test]
    fn pdf_text_and_bad_pdfs() {
        let pdf = tiny_pdf(&["Quokkas are small marsupials.", "They live on (an) island."]);
        let text = to_text(&pdf, Format::Pdf, "q.pdf").unwrap();
        assert!(text.contains("Quokkas are small marsupials."), "{text:?}");
        assert!(text.contains("They live on (an) island."), "{text:?}");
        for bad in [
            b"%PDF-1.4\ngarbage".to_vec(),
            pdf[..pdf.len() / 2].to_vec(),
            b"not a pdf".to_vec(),
        ] {
            let e = to_text(&bad, Format::Pdf, "bad.pdf").unwrap_err();
            assert!(e.is_input() && e.to_string().contains("bad.pdf"), "{e}");
        }
        assert!(to_text(b"\xff\xfe\x00", Format::Text, "b.txt").is_err());
        assert!(to_text(b"a\0b", Format::Markdown, "b.md").is_err());
    }

    #[test]
    fn files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("q.pdf");
        std::fs::write(&p, tiny_pdf(&["Wombats dig burrows."])).unwrap();
        let (text, format) = read_file(&p).unwrap();
        assert_eq!(format, Format::Pdf);
        assert!(text.contains("Wombats dig burrows."));
        let e = read_file(&dir.path().join("missing.md")).unwrap_err();
        assert!(
            e.is_input() && e.to_string().contains("does not exist"),
            "{e}"
        );
        assert!(
            read_file(dir.path())
                .unwrap_err()
                .to_string()
                .contains("not a file")
        );
    }
}
