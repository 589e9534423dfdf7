use std::io::Read;
fn main() {
    let lang = std::env::args().nth(1).unwrap();
    let depth: usize = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(3);
    let mut src = String::new();
    std::io::stdin().read_to_string(&mut src).unwrap();
    let l: tree_sitter::Language = match lang.as_str() {
        "rs" => tree_sitter_rust::LANGUAGE.into(),
        "py" => tree_sitter_python::LANGUAGE.into(),
        "ts" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX.into(),
        "js" => tree_sitter_javascript::LANGUAGE.into(),
        "go" => tree_sitter_go::LANGUAGE.into(),
        "java" => tree_sitter_java::LANGUAGE.into(),
        "c" => tree_sitter_c::LANGUAGE.into(),
        _ => tree_sitter_cpp::LANGUAGE.into(),
    };
    let mut p = tree_sitter::Parser::new();
    p.set_language(&l).unwrap();
    let t = p.parse(&src, None).unwrap();
    fn walk(n: tree_sitter::Node, src: &str, d: usize, max: usize, field: Option<&str>) {
        let txt: String = src[n.start_byte()..n.end_byte()]
            .chars()
            .take(40)
            .collect::<String>()
            .replace('\n', "\\n");
        println!(
            "{}{}{} [{}..{}] {:?}",
            "  ".repeat(d),
            field.map(|f| format!("{f}: ")).unwrap_or_default(),
            n.kind(),
            n.start_byte(),
            n.end_byte(),
            txt
        );
        if d >= max {
            return;
        }
        let mut c = n.walk();
        if c.goto_first_child() {
            loop {
                walk(c.node(), src, d + 1, max, c.field_name());
                if !c.goto_next_sibling() {
                    break;
                }
            }
        }
    }
    walk(t.root_node(), &src, 0, depth, None);
}
