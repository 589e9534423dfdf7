use serde::{Deserialize, Serialize};
use std::path::Path;

/// A source language lore knows how to chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Rust,
    Python,
    TypeScript,
    Tsx,
    JavaScript,
    Go,
    Java,
    C,
    Cpp,
    CSharp,
    Ruby,
    Php,
    Kotlin,
    Swift,
    Scala,
    Dart,
    Lua,
    Bash,
    Sql,
    R,
    Julia,
    Haskell,
    OCaml,
    Elixir,
    Erlang,
    Zig,
    ObjC,
    Groovy,
    PowerShell,
    Hcl,
    Solidity,
    Protobuf,
    GraphQL,
    Yaml,
    Toml,
    Json,
    Perl,
    Vue,
    Svelte,
    Markdown,
    Text,
}

/// Files named so, whatever their extension, and their language.
const NAMED: [(&str, Language); 6] = [
    ("Rakefile", Language::Ruby),
    ("Gemfile", Language::Ruby),
    ("Podfile", Language::Ruby),
    ("Vagrantfile", Language::Ruby),
    ("PKGBUILD", Language::Bash),
    ("Jenkinsfile", Language::Groovy),
];

impl Language {
    /// Each language with its name and its file extensions (lower case).
    const TABLE: [(Language, &'static str, &'static [&'static str]); 41] = [
        (Language::Rust, "rust", &["rs"]),
        (Language::Python, "python", &["py", "pyi"]),
        (Language::TypeScript, "typescript", &["ts", "mts", "cts"]),
        (Language::Tsx, "tsx", &["tsx"]),
        (
            Language::JavaScript,
            "javascript",
            &["js", "jsx", "mjs", "cjs"],
        ),
        (Language::Go, "go", &["go"]),
        (Language::Java, "java", &["java"]),
        (Language::C, "c", &["c", "h"]),
        (
            Language::Cpp,
            "cpp",
            &["cc", "cpp", "cxx", "hpp", "hh", "hxx", "c++", "h++"],
        ),
        (Language::CSharp, "csharp", &["cs"]),
        (Language::Ruby, "ruby", &["rb", "rake", "gemspec", "ru"]),
        (Language::Php, "php", &["php"]),
        (Language::Kotlin, "kotlin", &["kt", "kts"]),
        (Language::Swift, "swift", &["swift"]),
        (Language::Scala, "scala", &["scala", "sc"]),
        (Language::Dart, "dart", &["dart"]),
        (Language::Lua, "lua", &["lua"]),
        (Language::Bash, "bash", &["sh", "bash", "zsh", "ksh"]),
        (Language::Sql, "sql", &["sql"]),
        (Language::R, "r", &["r"]),
        (Language::Julia, "julia", &["jl"]),
        (Language::Haskell, "haskell", &["hs"]),
        (Language::OCaml, "ocaml", &["ml", "mli"]),
        (Language::Elixir, "elixir", &["ex", "exs"]),
        (Language::Erlang, "erlang", &["erl", "hrl"]),
        (Language::Zig, "zig", &["zig"]),
        (Language::ObjC, "objc", &["m", "mm"]),
        (Language::Groovy, "groovy", &["groovy", "gradle"]),
        (Language::PowerShell, "powershell", &["ps1", "psm1"]),
        (Language::Hcl, "hcl", &["tf", "hcl", "tfvars"]),
        (Language::Solidity, "solidity", &["sol"]),
        (Language::Protobuf, "protobuf", &["proto"]),
        (Language::GraphQL, "graphql", &["graphql", "gql"]),
        (Language::Yaml, "yaml", &["yaml", "yml"]),
        (Language::Toml, "toml", &["toml"]),
        (Language::Json, "json", &["json"]),
        (Language::Perl, "perl", &["pl", "pm", "t", "psgi"]),
        (Language::Vue, "vue", &["vue"]),
        (Language::Svelte, "svelte", &["svelte"]),
        (Language::Markdown, "markdown", &["md", "markdown", "mdx"]),
        (Language::Text, "text", &[]),
    ];

    pub const ALL: [Language; 41] = {
        let mut out = [Language::Text; 41];
        let mut i = 0;
        while i < 41 {
            out[i] = Self::TABLE[i].0;
            i += 1;
        }
        out
    };

    /// The language of a file, from its extension (or a few well-known names); anything
    /// unknown is plain text.
    pub fn from_path(path: &Path) -> Language {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if let Some((_, l)) = NAMED.iter().find(|(n, _)| *n == name) {
            return *l;
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .unwrap_or_default();
        Self::TABLE
            .iter()
            .find(|(_, _, exts)| exts.contains(&ext.as_str()))
            .map_or(Language::Text, |(l, _, _)| *l)
    }

    pub fn as_str(self) -> &'static str {
        Self::TABLE
            .iter()
            .find(|(l, _, _)| *l == self)
            .map_or("text", |(_, name, _)| name)
    }

    pub fn parse(s: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// True for languages parsed with a tree-sitter grammar.
    pub fn is_code(self) -> bool {
        !matches!(self, Language::Markdown | Language::Text)
    }
}

/// What a chunk holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChunkKind {
    Function,
    Method,
    Class,
    Struct,
    Enum,
    Interface,
    Trait,
    Impl,
    Type,
    Const,
    /// Module-level code between units: imports, statements, macros.
    Module,
    /// A markdown section (heading path in `Chunk::headings`).
    Section,
    /// A window of plain text.
    Text,
}

impl ChunkKind {
    pub const ALL: [ChunkKind; 13] = [
        ChunkKind::Function,
        ChunkKind::Method,
        ChunkKind::Class,
        ChunkKind::Struct,
        ChunkKind::Enum,
        ChunkKind::Interface,
        ChunkKind::Trait,
        ChunkKind::Impl,
        ChunkKind::Type,
        ChunkKind::Const,
        ChunkKind::Module,
        ChunkKind::Section,
        ChunkKind::Text,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ChunkKind::Function => "function",
            ChunkKind::Method => "method",
            ChunkKind::Class => "class",
            ChunkKind::Struct => "struct",
            ChunkKind::Enum => "enum",
            ChunkKind::Interface => "interface",
            ChunkKind::Trait => "trait",
            ChunkKind::Impl => "impl",
            ChunkKind::Type => "type",
            ChunkKind::Const => "const",
            ChunkKind::Module => "module",
            ChunkKind::Section => "section",
            ChunkKind::Text => "text",
        }
    }

    pub fn parse(s: &str) -> Option<ChunkKind> {
        ChunkKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// A type, or a block of a type's members (a Rust `impl`): what `self` means, what
    /// extends/implements land on, whose members carry it as their container.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            ChunkKind::Class
                | ChunkKind::Struct
                | ChunkKind::Enum
                | ChunkKind::Interface
                | ChunkKind::Trait
                | ChunkKind::Impl
                | ChunkKind::Type
        )
    }
}

/// One searchable piece of a file, with its exact place in the file.
///
/// Lines are 1-based and inclusive; bytes are a half-open range into the file's bytes.
/// `content` is exactly `file[start_byte..end_byte]`; `context` is text that is not part
/// of that range but helps a reader (and the index) understand it, e.g. the header of
/// the class a split-off method belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    pub kind: ChunkKind,
    pub language: Language,
    /// Name of the unit (function, class, …), if it has one.
    pub symbol: Option<String>,
    /// Enclosing unit for members (class for a method, impl/trait for a Rust fn).
    pub parent: Option<String>,
    /// The unit's declaration as written, without body.
    pub signature: Option<String>,
    /// Doc comment attached to the unit, comment markers stripped.
    pub doc: Option<String>,
    /// Markdown heading path, outermost first.
    pub headings: Vec<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: usize,
    pub end_byte: usize,
    pub content: String,
    pub context: Option<String>,
}

impl Chunk {
    /// The text given to the embedder: heading path and context, then the content.
    /// A section that starts with its own heading line gets only its parents' path, so
    /// the title is not counted twice.
    pub fn index_text(&self) -> String {
        let mut out = String::new();
        let own_heading_shown = self.content.trim_start().starts_with('#');
        let path = match self.headings.split_last() {
            Some((_, parents)) if own_heading_shown => parents,
            _ => &self.headings[..],
        };
        if !path.is_empty() {
            out.push_str(&path.join(" > "));
            out.push('\n');
        }
        if let Some(ctx) = &self.context {
            out.push_str(ctx);
            out.push('\n');
        }
        out.push_str(&self.content);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_text_does_not_repeat_the_own_heading() {
        let mut c = Chunk {
            kind: ChunkKind::Section,
            language: Language::Markdown,
            symbol: Some("Install".into()),
            parent: None,
            signature: None,
            doc: None,
            headings: vec!["Guide".into(), "Install".into()],
            start_line: 3,
            end_line: 4,
            start_byte: 10,
            end_byte: 30,
            content: "## Install\nrun it".into(),
            context: None,
        };
        assert_eq!(c.index_text(), "Guide\n## Install\nrun it");
        c.content = "more text".into();
        assert_eq!(c.index_text(), "Guide > Install\nmore text");
    }

    #[test]
    fn languages_by_extension() {
        assert_eq!(Language::from_path(Path::new("a/b.rs")), Language::Rust);
        assert_eq!(Language::from_path(Path::new("x.TSX")), Language::Tsx);
        assert_eq!(Language::from_path(Path::new("x.hpp")), Language::Cpp);
        assert_eq!(Language::from_path(Path::new("README")), Language::Text);
        assert_eq!(
            Language::from_path(Path::new("app/Rakefile")),
            Language::Ruby
        );
        assert_eq!(Language::from_path(Path::new("main.tf")), Language::Hcl);
        assert_eq!(Language::from_path(Path::new("App.vue")), Language::Vue);
        for l in Language::ALL {
            assert_eq!(Language::parse(l.as_str()), Some(l));
        }
        for k in ChunkKind::ALL {
            assert_eq!(ChunkKind::parse(k.as_str()), Some(k));
        }
    }
}
