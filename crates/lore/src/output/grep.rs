//! `lore grep`: each matching line as `store:path:line:text`, under the unit it is in.

use super::{esc, print_json, warn};
use lore_engine::GrepAnswer;

pub fn grep(json: bool, g: &GrepAnswer) -> anyhow::Result<()> {
    if json {
        return print_json(g);
    }
    warn(&g.warnings);
    for u in &g.units {
        let name = u.signature.as_deref().or(u.symbol.as_deref()).unwrap_or("");
        out!(
            "{}:{}:{}-{} [{}] {}",
            u.store,
            esc(&u.path),
            u.unit_lines[0],
            u.unit_lines[1],
            u.kind,
            esc(name)
        );
        for l in &u.lines {
            out!("  {}: {}", l.line, esc(&l.text));
        }
    }
    let more = if g.truncated {
        " (more not shown: --max-lines 0 shows all)"
    } else {
        ""
    };
    eprintln!(
        "{} lines in {} files; {} of {} files read, {} ms{more}",
        g.lines, g.files, g.read, g.indexed, g.took_ms
    );
    Ok(())
}
