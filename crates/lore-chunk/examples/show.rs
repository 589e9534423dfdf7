fn main() {
    let path = std::env::args().nth(1).unwrap();
    let max: usize = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(1600);
    let text = std::fs::read_to_string(&path).unwrap();
    let opts = lore_chunk::ChunkOptions {
        max_chars: max,
        ..Default::default()
    };
    for c in lore_chunk::chunk_file(std::path::Path::new(&path), &text, &opts) {
        println!(
            "--- {:?} sym={:?} parent={:?} L{}-{} [{}..{}]\n    sig={:?}\n    doc={:?}\n    ctx={:?} headings={:?}",
            c.kind,
            c.symbol,
            c.parent,
            c.start_line,
            c.end_line,
            c.start_byte,
            c.end_byte,
            c.signature,
            c.doc,
            c.context,
            c.headings
        );
        let first: String = c
            .content
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(80)
            .collect();
        let last: String = c
            .content
            .lines()
            .last()
            .unwrap_or("")
            .chars()
            .take(80)
            .collect();
        println!("    | {first}\n    | ... {last}");
    }
}
