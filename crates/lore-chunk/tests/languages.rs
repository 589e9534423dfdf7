//! Units for every language lore parses: each sample in `tests/langs/` (written for these
//! tests) parses without error and gives its definitions as symbols, with qualified names,
//! kinds and lines, and as units (chunks named by them).

use lore_chunk::{ChunkOptions, analyze_file};
use lore_core::Language;
use std::path::Path;

/// A symbol a sample must give: qualified name, kind, line.
type Want = (&'static str, &'static str, u32);

/// Each sample and the symbols it must give.
const EXPECTED: &[(&str, &[Want])] = &[
    (
        "a.cs",
        &[
            ("Shop.Cart", "module", 1),
            ("Shop.Cart.Cart", "class", 3),
            ("Shop.Cart.Cart.Add", "method", 7),
            ("Shop.Cart.ICart", "interface", 9),
            ("Shop.Cart.Color", "enum", 10),
            ("Shop.Cart.Point", "struct", 11),
        ],
    ),
    (
        "a.rb",
        &[
            ("Shop", "module", 3),
            ("Shop.Cart", "class", 4),
            ("Shop.Cart.add", "method", 8),
            ("Shop.Cart.build", "method", 12),
            ("top", "function", 15),
            // Named by its last constant, as Ruby's parser names it.
            ("Shop.Order", "class", 16),
            ("Shop.Order.pay", "method", 17),
        ],
    ),
    (
        "a.php",
        &[
            ("Cart", "class", 5),
            ("Cart.MAX", "const", 6),
            ("Cart.add", "method", 8),
            ("ICart", "interface", 10),
            ("T", "trait", 11),
            ("top", "function", 12),
            ("Suit", "enum", 13),
        ],
    ),
    (
        "a.kt",
        &[
            ("Cart", "class", 6),
            ("Cart.add", "method", 7),
            ("ICart", "interface", 16),
            ("Registry", "class", 20),
            ("top", "function", 24),
            ("Color", "enum", 26),
            ("Name", "type", 28),
        ],
    ),
    (
        "a.swift",
        &[
            ("Cart", "class", 3),
            ("Cart.add", "method", 6),
            ("CartProtocol", "interface", 8),
            ("Point", "struct", 9),
            ("Color", "enum", 10),
            ("top", "function", 12),
        ],
    ),
    (
        "a.scala",
        &[
            ("Cart", "class", 3),
            ("Cart.add", "method", 4),
            ("ICart", "trait", 6),
            ("Point", "class", 8),
            ("f", "function", 10),
        ],
    ),
    (
        "a.dart",
        &[
            ("Cart", "class", 3),
            ("Cart.add", "method", 6),
            ("ICart.add", "method", 9),
            ("M", "class", 10),
            ("Color", "enum", 11),
            ("top", "function", 12),
        ],
    ),
    (
        "a.lua",
        &[
            ("Cart.new", "method", 4),
            ("Cart.add", "method", 5),
            ("top", "function", 6),
        ],
    ),
    ("a.sh", &[("add", "function", 4), ("build", "function", 8)]),
    (
        "a.sql",
        &[
            ("carts", "struct", 2),
            ("big", "type", 3),
            ("add", "function", 4),
            ("idx", "const", 5),
            // After a psql meta-command, which is no SQL.
            ("orders", "struct", 8),
            // PostgreSQL's own DDL, read by its grammar.
            ("vec", "type", 9),
            ("items", "struct", 10),
            ("<->", "function", 11),
            ("avg", "function", 12),
        ],
    ),
    ("a.r", &[("add", "function", 2)]),
    (
        "a.jl",
        &[
            ("Shop", "module", 1),
            ("Shop.Cart", "struct", 3),
            ("Shop.add", "function", 6),
            ("Shop.Base", "type", 10),
            ("Shop.m", "function", 11),
        ],
    ),
    (
        "a.hs",
        &[
            ("Cart", "type", 4),
            ("Addable", "class", 5),
            ("top", "function", 10),
            ("Name", "type", 11),
            ("Id", "type", 12),
        ],
    ),
    (
        "a.ml",
        &[
            ("cart", "type", 2),
            ("add", "function", 3),
            ("M", "module", 4),
            ("M.f", "function", 4),
            ("point", "class", 5),
        ],
    ),
    (
        "a.ex",
        &[
            ("Shop.Cart", "module", 1),
            ("Shop.Cart.add", "function", 4),
            ("Shop.Cart.private_fn", "function", 7),
            ("Shop.Cart.m", "function", 8),
        ],
    ),
    ("a.erl", &[("add", "function", 4), ("cart", "struct", 6)]),
    (
        "a.zig",
        &[
            ("Cart", "struct", 3),
            ("Cart.add", "method", 5),
            ("top", "function", 7),
        ],
    ),
    (
        "a.m",
        &[
            ("Cart", "class", 3),
            ("Cart.add", "method", 7),
            ("Cart.build", "method", 8),
            ("top", "function", 10),
        ],
    ),
    (
        "a.groovy",
        &[
            ("Cart", "class", 3),
            ("Cart.add", "method", 5),
            ("ICart", "interface", 7),
            ("top", "function", 8),
            ("Greeter", "trait", 9),
            ("Greeter.greet", "method", 9),
            ("CartSpec", "class", 10),
            // A Spock feature method, named by its string.
            ("CartSpec.adds an item", "method", 11),
        ],
    ),
    (
        "a.ps1",
        &[
            ("Add-Numbers", "function", 2),
            ("Cart", "class", 6),
            ("Cart.Add", "method", 8),
        ],
    ),
    (
        "a.tf",
        &[
            ("resource.aws_s3_bucket.logs", "struct", 2),
            ("variable.region", "const", 5),
            ("module.vpc", "module", 6),
            ("output.id", "const", 8),
        ],
    ),
    (
        "a.sol",
        &[
            ("Cart", "class", 3),
            ("Cart.add", "method", 6),
            ("Cart.onlyOwner", "method", 7),
            ("ICart", "interface", 9),
            ("L", "module", 10),
        ],
    ),
    (
        "a.proto",
        &[
            ("Cart", "struct", 3),
            ("Cart.Item", "struct", 3),
            ("CartService", "interface", 4),
            ("CartService.Add", "method", 4),
            ("Color", "enum", 5),
        ],
    ),
    (
        "a.graphql",
        &[
            ("Cart", "struct", 1),
            ("Query", "struct", 3),
            ("CartInput", "struct", 4),
            ("Color", "enum", 5),
            ("Node", "interface", 6),
            ("GetCart", "function", 7),
        ],
    ),
    (
        "a.yaml",
        &[
            ("server", "section", 2),
            ("server.port", "const", 3),
            ("database.url", "const", 6),
        ],
    ),
    (
        "a.toml",
        &[
            ("package", "section", 2),
            ("package.name", "const", 3),
            ("dependencies.serde", "const", 6),
            ("bin", "section", 7),
        ],
    ),
    (
        "a.json",
        &[
            ("name", "const", 1),
            ("scripts", "section", 1),
            ("dependencies.express", "const", 1),
        ],
    ),
    (
        "a.pm",
        &[
            ("Shop::Cart", "module", 1),
            ("Shop::Cart::LIMIT", "const", 3),
            ("Shop::Cart::new", "method", 6),
            ("Shop::Cart::add", "method", 11),
            ("Shop::Util", "module", 16),
            ("Shop::Util::sum", "function", 17),
        ],
    ),
    ("a.vue", &[("inc", "function", 5), ("reset", "function", 6)]),
    ("a.svelte", &[("greet", "function", 3)]),
];

fn sample(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/langs")
        .join(file);
    std::fs::read_to_string(&path).expect("sample")
}

#[test]
fn every_language_gives_its_definitions_as_symbols_and_units() {
    // Each sample as written, and again after a UTF-8 byte order mark (editors on Windows
    // write one): the same definitions on the same lines.
    let samples = EXPECTED.iter().flat_map(|(file, want)| {
        let text = sample(file);
        [
            (*file, text.clone(), *want),
            (*file, format!("\u{feff}{text}"), *want),
        ]
    });
    for (file, text, want) in samples {
        let a = analyze_file(file, &text, &ChunkOptions::default());
        let bom = if text.starts_with('\u{feff}') {
            " (after a byte order mark)"
        } else {
            ""
        };
        assert!(a.parse_error.is_none(), "{file}{bom}: {:?}", a.parse_error);
        let got: Vec<(String, &str, u32)> = a
            .facts
            .symbols
            .iter()
            .map(|s| (s.qualified.clone(), s.kind.as_str(), s.start_line))
            .collect();
        for (name, kind, line) in want {
            assert!(
                got.iter()
                    .any(|(n, k, l)| n == name && k == kind && l == line),
                "{file}{bom}: no {kind} {name} at line {line} in {got:?}"
            );
        }
        // The top-level definitions are units of their own (a chunk named by each).
        let top = want.iter().find(|(n, _, _)| !n.contains(['.', ':']));
        if let Some((name, _, _)) = top {
            assert!(
                a.chunks
                    .iter()
                    .any(|c| c.symbol.as_deref() == Some(*name) || c.content.contains(name)),
                "{file}: no unit for {name}"
            );
        }
    }
}

#[test]
fn every_code_language_has_a_sample() {
    for lang in Language::ALL {
        let tested = EXPECTED
            .iter()
            .any(|(f, _)| Language::from_path(Path::new(f)) == lang);
        let older = matches!(
            lang,
            Language::Rust
                | Language::Python
                | Language::TypeScript
                | Language::Tsx
                | Language::JavaScript
                | Language::Go
                | Language::Java
                | Language::C
                | Language::Cpp
        );
        assert!(
            tested || older || !lang.is_code(),
            "{} has no sample in tests/langs",
            lang.as_str()
        );
    }
}

#[test]
fn doc_comments_of_several_styles_are_kept() {
    for (file, name, doc) in [
        ("a.rb", "Shop", "A cart."),
        ("a.sh", "add", "Adds two numbers."),
        ("a.erl", "add", "Adds."),
        ("a.ml", "cart", "A cart."),
        ("a.kt", "Cart", "A cart."),
        ("a.toml", "package", "Package."),
        ("a.r", "add", "Adds."),
        ("a.pm", "Shop::Cart::new", "Makes a cart."),
    ] {
        let a = analyze_file(file, &sample(file), &ChunkOptions::default());
        let s = a.facts.symbols.iter().find(|s| s.qualified == name);
        assert_eq!(s.and_then(|s| s.doc.as_deref()), Some(doc), "{file} {name}");
    }
}
