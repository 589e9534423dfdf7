use std::path::Path;
fn visit(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() { visit(&p, files) } else { files.push(p) }
    }
}
fn main() {
    let root = std::env::args().nth(1).unwrap();
    let mut files = vec![];
    visit(Path::new(&root), &mut files);
    let opts = lore_chunk::ChunkOptions::default();
    let mut stats = std::collections::BTreeMap::<String, (usize, usize, usize, f64)>::new();
    let mut slow = vec![];
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        let lang = lore_core::Language::from_path(&f);
        if lang == lore_core::Language::Text { continue; }
        let t = std::time::Instant::now();
        let chunks = lore_chunk::chunk_file(&f, &text, &opts);
        let dt = t.elapsed().as_secs_f64();
        if dt > 0.5 { slow.push((f.clone(), dt, text.len())); }
        let b = text.as_bytes();
        let mut covered = vec![false; b.len()];
        let mut prev_end = 0;
        let mut text_chunks = 0;
        for c in &chunks {
            assert_eq!(&text[c.start_byte..c.end_byte], c.content);
            if c.kind != lore_core::ChunkKind::Text { assert!(c.start_byte >= prev_end, "overlap in {}", f.display()); } else { text_chunks += 1; }
            prev_end = c.end_byte;
            for x in &mut covered[c.start_byte..c.end_byte] { *x = true; }
        }
        for (i, x) in b.iter().enumerate() { assert!(x.is_ascii_whitespace() || covered[i], "uncovered {} at {i}", f.display()); }
        let e = stats.entry(lang.as_str().to_string()).or_default();
        e.0 += 1; e.1 += chunks.len(); e.2 += if text_chunks > 0 && lang.is_code() { 1 } else { 0 }; e.3 += dt;
        if text_chunks > 0 && lang.is_code() && std::env::var("SHOWFALLBACK").is_ok() { println!("fallback: {}", f.display()); }
    }
    for (k, v) in stats { println!("{k}: files={} chunks={} text-fallback-files={} time={:.2}s", v.0, v.1, v.2, v.3); }
    for s in slow { println!("slow: {:?}", s); }
}
