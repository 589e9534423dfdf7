use lore_chunk::{ChunkOptions, chunk_file};
use lore_core::{Chunk, ChunkKind, Language};
use std::path::Path;

const FIXTURES: &[&str] = &[
    "store.rs",
    "inventory.py",
    "cart.ts",
    "Button.tsx",
    "router.js",
    "server.go",
    "Library.java",
    "ring.c",
    "shapes.hpp",
    "guide.md",
    "notes.txt",
];

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn opts(max_chars: usize) -> ChunkOptions {
    ChunkOptions {
        max_chars,
        ..ChunkOptions::default()
    }
}

fn chunk(name: &str, text: &str, o: &ChunkOptions) -> Vec<Chunk> {
    let chunks = chunk_file(Path::new(name), text, o);
    check_invariants(name, text, &chunks);
    chunks
}

/// The chunk with this symbol and kind (exactly one).
fn find<'a>(chunks: &'a [Chunk], kind: ChunkKind, symbol: &str) -> &'a Chunk {
    let found: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| c.kind == kind && c.symbol.as_deref() == Some(symbol))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "expected one {kind:?} {symbol}, got {found:#?}\nall: {:#?}",
        summary(chunks)
    );
    found[0]
}

fn summary(chunks: &[Chunk]) -> Vec<String> {
    chunks
        .iter()
        .map(|c| {
            format!(
                "{:?} {:?} parent={:?} L{}-{}",
                c.kind, c.symbol, c.parent, c.start_line, c.end_line
            )
        })
        .collect()
}

fn lines(c: &Chunk) -> (u32, u32) {
    (c.start_line, c.end_line)
}

/// Exact positions, no overlap (except text windows), full coverage of non-whitespace.
fn check_invariants(name: &str, text: &str, chunks: &[Chunk]) {
    let lang = Language::from_path(Path::new(name));
    let bytes = text.as_bytes();
    let mut covered = vec![false; bytes.len()];
    // newlines_before[i] = number of `\n` in bytes[..i].
    let mut newlines_before = Vec::with_capacity(bytes.len() + 1);
    let mut n = 0;
    for b in bytes {
        newlines_before.push(n);
        n += usize::from(*b == b'\n');
    }
    newlines_before.push(n);
    for (i, c) in chunks.iter().enumerate() {
        assert!(c.start_byte < c.end_byte, "{name}: empty chunk {c:?}");
        assert!(c.end_byte <= text.len(), "{name}: chunk past end");
        let slice = text
            .get(c.start_byte..c.end_byte)
            .unwrap_or_else(|| panic!("{name}: range not on char boundaries: {c:?}"));
        assert_eq!(c.content, slice, "{name}: content mismatch");
        assert_eq!(c.language, lang, "{name}: language");
        let start_line = 1 + newlines_before[c.start_byte];
        assert_eq!(
            c.start_line as usize, start_line,
            "{name}: start_line of {c:?}"
        );
        let mut last = c.end_byte - 1;
        while last > c.start_byte && matches!(bytes[last], b'\n' | b'\r') {
            last -= 1;
        }
        let end_line = 1 + newlines_before[last];
        assert_eq!(c.end_line as usize, end_line, "{name}: end_line of {c:?}");
        assert!(
            c.content.bytes().any(|b| !b.is_ascii_whitespace()),
            "{name}: whitespace-only chunk"
        );
        if i > 0 {
            let p = &chunks[i - 1];
            assert!(p.start_byte <= c.start_byte, "{name}: chunks out of order");
            let windows = p.kind == ChunkKind::Text && c.kind == ChunkKind::Text;
            assert!(
                windows || p.end_byte <= c.start_byte,
                "{name}: overlap between {p:#?}\nand {c:#?}"
            );
        }
        for flag in &mut covered[c.start_byte..c.end_byte] {
            *flag = true;
        }
        for s in [&c.signature, &c.doc, &c.symbol, &c.parent]
            .into_iter()
            .flatten()
        {
            assert!(!s.contains('\r'), "{name}: CR in metadata {s:?}");
        }
    }
    for (i, b) in bytes.iter().enumerate() {
        if !b.is_ascii_whitespace() && !covered[i] {
            let from = floor(text, i.saturating_sub(40));
            let to = ceil(text, (i + 40).min(text.len()));
            panic!(
                "{name}: byte {i} not covered: …{}…\n{:#?}",
                &text[from..to],
                summary(chunks)
            );
        }
    }
}

fn max_chunk_chars(chunks: &[Chunk]) -> usize {
    chunks
        .iter()
        .map(|c| c.content.chars().count())
        .max()
        .unwrap_or(0)
}

#[test]
fn all_fixtures_hold_invariants_at_many_sizes() {
    for name in FIXTURES {
        let text = fixture(name);
        for max in [1, 7, 40, 120, 300, 700, 1600, 100_000] {
            let o = ChunkOptions {
                max_chars: max,
                window_chars: max.max(20),
                overlap_chars: max / 5,
            };
            let chunks = chunk(name, &text, &o);
            assert!(!chunks.is_empty(), "{name}");
            if max >= 100 && !name.ends_with(".txt") {
                // Only a closing `}` merged into the last member may exceed the limit.
                assert!(
                    max_chunk_chars(&chunks) <= max + 8,
                    "{name} at {max}: {:#?}",
                    summary(&chunks)
                );
            }
        }
    }
}

#[test]
fn crlf_files_keep_exact_positions() {
    for name in FIXTURES {
        let lf = fixture(name);
        if name.ends_with(".txt") {
            // Window sizes count the extra `\r`s, so windows differ; positions are
            // still checked by the invariants.
            chunk(name, &lf.replace('\n', "\r\n"), &ChunkOptions::default());
            continue;
        }
        let crlf = lf.replace('\n', "\r\n");
        let a = chunk(name, &lf, &ChunkOptions::default());
        let b = chunk(name, &crlf, &ChunkOptions::default());
        assert_eq!(a.len(), b.len(), "{name}");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.kind, y.kind, "{name}");
            assert_eq!(x.symbol, y.symbol, "{name}");
            assert_eq!(x.parent, y.parent, "{name}");
            assert_eq!(x.signature, y.signature, "{name}");
            assert_eq!(x.doc, y.doc, "{name}");
            assert_eq!(x.headings, y.headings, "{name}");
            assert_eq!(lines(x), lines(y), "{name} {:?}", x.symbol);
            assert_eq!(x.content.replace('\n', "\r\n"), y.content, "{name}");
        }
    }
}

#[test]
fn rust_units() {
    let text = fixture("store.rs");
    let chunks = chunk("store.rs", &text, &ChunkOptions::default());

    let module = &chunks[0];
    assert_eq!(module.kind, ChunkKind::Module);
    assert_eq!(lines(module), (1, 4));
    assert!(module.content.contains("use std::fmt;"));

    let c = find(&chunks, ChunkKind::Const, "MAX_ENTRIES");
    assert_eq!(lines(c), (6, 7));
    assert_eq!(
        c.doc.as_deref(),
        Some("Maximum number of entries a store holds.")
    );
    assert_eq!(
        c.signature.as_deref(),
        Some("pub const MAX_ENTRIES: usize = 1024")
    );

    let e = find(&chunks, ChunkKind::Enum, "StoreError");
    assert_eq!(lines(e), (9, 16));
    assert!(e.content.starts_with("/// Errors returned"));
    assert!(e.content.contains("#[derive(Debug, Clone, PartialEq, Eq)]"));
    assert_eq!(e.signature.as_deref(), Some("pub enum StoreError"));

    let display = chunks
        .iter()
        .find(|c| c.signature.as_deref() == Some("impl fmt::Display for StoreError"))
        .expect("Display impl");
    assert_eq!(display.kind, ChunkKind::Impl);
    assert_eq!(lines(display), (18, 25));

    let s = find(&chunks, ChunkKind::Struct, "Store");
    assert_eq!(lines(s), (27, 32));
    assert_eq!(s.doc.as_deref(), Some("A key-value store with a capacity."));

    let m = find(&chunks, ChunkKind::Module, "ensure");
    assert_eq!(lines(m), (34, 40));
    assert_eq!(m.signature.as_deref(), Some("macro_rules! ensure"));

    // `impl Store` is bigger than max_chars: split into methods.
    let header = find(&chunks, ChunkKind::Impl, "Store<V>");
    assert_eq!(lines(header), (42, 42));
    assert_eq!(header.signature.as_deref(), Some("impl<V: Clone> Store<V>"));
    let methods: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| c.kind == ChunkKind::Method)
        .collect();
    let names: Vec<&str> = methods.iter().filter_map(|c| c.symbol.as_deref()).collect();
    assert_eq!(
        names,
        [
            "with_capacity",
            "insert",
            "get",
            "remove",
            "len",
            "is_empty",
            "keys",
            "retain"
        ]
    );
    for m in &methods {
        assert_eq!(m.parent.as_deref(), Some("impl Store<V>"));
        assert_eq!(m.context.as_deref(), Some("impl<V: Clone> Store<V> {"));
    }
    let wc = find(&chunks, ChunkKind::Method, "with_capacity");
    assert_eq!(lines(wc), (43, 49));
    assert!(wc.content.starts_with("    /// Creates an empty store"));
    assert_eq!(
        wc.signature.as_deref(),
        Some("pub fn with_capacity(capacity: usize) -> Self")
    );
    assert_eq!(
        wc.doc.as_deref(),
        Some("Creates an empty store holding at most `capacity` entries.")
    );
    let retain = find(&chunks, ChunkKind::Method, "retain");
    assert_eq!(
        retain.signature.as_deref(),
        Some("pub fn retain<F>(&mut self, mut keep: F) where F: FnMut(&str, &V) -> bool")
    );
    // The impl's closing brace goes with its last method.
    assert_eq!(lines(retain), (93, 100));

    let t = find(&chunks, ChunkKind::Trait, "Persist");
    assert_eq!(lines(t), (102, 111));
    assert_eq!(t.doc.as_deref(), Some("Something that can be persisted."));

    let ty = find(&chunks, ChunkKind::Type, "Shared");
    assert_eq!(lines(ty), (113, 113));
    let st = find(&chunks, ChunkKind::Const, "GREETING");
    assert!(st.content.contains("ünïcode ✓"));

    // A comment separated by a blank line is module code, not a doc comment.
    let sep = chunks
        .iter()
        .find(|c| c.kind == ChunkKind::Module && c.content.contains("Free functions"))
        .unwrap();
    assert_eq!(lines(sep), (117, 118));

    // A unit deep in the file.
    let merge = find(&chunks, ChunkKind::Function, "merge");
    assert_eq!(lines(merge), (120, 127));
    assert_eq!(merge.parent, None);
    assert_eq!(
        merge.signature.as_deref(),
        Some("pub fn merge<V: Clone>(a: &Store<V>, b: &Store<V>) -> Store<V>")
    );
    assert_eq!(
        merge.doc.as_deref(),
        Some("Merges two stores, preferring values from `b`.")
    );

    let tests = find(&chunks, ChunkKind::Module, "tests");
    assert_eq!(lines(tests), (129, 140));
    assert!(tests.content.starts_with("#[cfg(test)]"));
}

#[test]
fn rust_small_max_splits_trait_and_mod() {
    let text = fixture("store.rs");
    let chunks = chunk("store.rs", &text, &opts(200));
    let from_bytes = find(&chunks, ChunkKind::Method, "from_bytes");
    assert_eq!(from_bytes.parent.as_deref(), Some("Persist"));
    assert_eq!(from_bytes.context.as_deref(), Some("pub trait Persist {"));
    assert_eq!(
        from_bytes.signature.as_deref(),
        Some("fn from_bytes(bytes: &[u8]) -> Option<Self> where Self: Sized")
    );
    let test_fn = chunks
        .iter()
        .find(|c| c.symbol.as_deref() == Some("insert_and_get"))
        .unwrap();
    assert_eq!(test_fn.kind, ChunkKind::Function);
    assert_eq!(test_fn.start_line, 133);
    assert_eq!(test_fn.parent.as_deref(), Some("tests"));
    assert!(test_fn.content.starts_with("    #[test]"));
    assert_eq!(test_fn.context.as_deref(), Some("mod tests {"));
}

#[test]
fn python_units() {
    let text = fixture("inventory.py");
    let chunks = chunk("inventory.py", &text, &ChunkOptions::default());

    let module = &chunks[0];
    assert_eq!(module.kind, ChunkKind::Module);
    assert_eq!(lines(module), (1, 13));
    assert!(module.content.contains("DEFAULT_LOCATION = \"A-01\""));

    let item = find(&chunks, ChunkKind::Class, "Item");
    assert_eq!(lines(item), (16, 23));
    assert!(item.content.starts_with("@dataclass"));
    assert_eq!(item.signature.as_deref(), Some("class Item"));
    assert_eq!(item.doc.as_deref(), Some("A stocked item."));

    let parse = find(&chunks, ChunkKind::Function, "parse_items");
    assert_eq!(lines(parse), (26, 32));
    assert_eq!(
        parse.signature.as_deref(),
        Some("def parse_items(raw: str) -> list[Item]")
    );
    assert_eq!(
        parse.doc.as_deref(),
        Some("Parse items from a JSON array.\n\nUnknown keys are ignored.")
    );

    // Inventory is split into its methods.
    let header = chunks
        .iter()
        .find(|c| c.kind == ChunkKind::Class && c.symbol.as_deref() == Some("Inventory"))
        .unwrap();
    assert_eq!(lines(header), (35, 38));
    assert_eq!(header.signature.as_deref(), Some("class Inventory(Base)"));
    assert_eq!(
        header.doc.as_deref(),
        Some("Tracks quantities per SKU and location.")
    );
    let methods: Vec<&str> = chunks
        .iter()
        .filter(|c| c.kind == ChunkKind::Method)
        .map(|c| c.symbol.as_deref().unwrap())
        .collect();
    assert_eq!(
        methods,
        [
            "__init__",
            "add",
            "remove",
            "total",
            "where",
            "_normalize",
            "by_tag",
            "to_json"
        ]
    );
    let add = find(&chunks, ChunkKind::Method, "add");
    assert_eq!(lines(add), (46, 55));
    assert_eq!(add.parent.as_deref(), Some("Inventory"));
    assert_eq!(add.context.as_deref(), Some("class Inventory(Base):"));
    assert_eq!(
        add.signature.as_deref(),
        Some("def add(self, item: Item, location: str = DEFAULT_LOCATION) -> None")
    );
    assert_eq!(
        add.doc.as_deref(),
        Some("Add an item, merging quantities when the SKU exists.")
    );
    let total = find(&chunks, ChunkKind::Method, "total");
    assert_eq!(lines(total), (71, 74));
    assert!(total.content.starts_with("    @property"));
    // The unattached comment between methods is kept.
    assert!(
        chunks
            .iter()
            .any(|c| c.kind == ChunkKind::Class && c.content.contains("# Lookups"))
    );

    let fetch = find(&chunks, ChunkKind::Function, "fetch_remote");
    assert_eq!(lines(fetch), (98, 103));
    assert_eq!(fetch.doc.as_deref(), Some("Helper used by the CLI below."));
    assert_eq!(
        fetch.signature.as_deref(),
        Some("async def fetch_remote(url: str, *, timeout: float = 5.0) -> str")
    );

    let main = chunks.last().unwrap();
    assert_eq!(main.kind, ChunkKind::Module);
    assert_eq!(lines(main), (106, 108));
}

#[test]
fn typescript_units() {
    let text = fixture("cart.ts");
    let chunks = chunk("cart.ts", &text, &ChunkOptions::default());

    assert_eq!(chunks[0].kind, ChunkKind::Module);
    assert_eq!(lines(&chunks[0]), (1, 4));

    let line = find(&chunks, ChunkKind::Interface, "CartLine");
    assert_eq!(lines(line), (6, 11));
    assert_eq!(line.doc.as_deref(), Some("A line in the shopping cart."));
    assert_eq!(line.signature.as_deref(), Some("export interface CartLine"));

    assert_eq!(lines(find(&chunks, ChunkKind::Type, "Listener")), (13, 13));
    assert_eq!(lines(find(&chunks, ChunkKind::Enum, "Status")), (15, 18));

    let fmt = find(&chunks, ChunkKind::Function, "formatMoney");
    assert_eq!(lines(fmt), (20, 26));
    assert_eq!(
        fmt.signature.as_deref(),
        Some("export function formatMoney(cents: number, currency = \"EUR\"): string")
    );
    assert_eq!(
        fmt.doc.as_deref(),
        Some("Formats an amount of money in cents.\n@param cents the amount")
    );

    let arrow = find(&chunks, ChunkKind::Function, "lineTotal");
    assert_eq!(lines(arrow), (28, 28));
    assert_eq!(
        arrow.signature.as_deref(),
        Some("export const lineTotal = (line: CartLine): number")
    );
    assert_eq!(lines(find(&chunks, ChunkKind::Const, "DEFAULTS")), (30, 33));

    // The class is split into members.
    let cart = find(&chunks, ChunkKind::Class, "Cart");
    assert_eq!(lines(cart), (35, 39));
    assert!(cart.content.starts_with("/** A shopping cart"));
    assert!(cart.content.contains("status: Status = Status.Open;"));
    assert_eq!(
        cart.signature.as_deref(),
        Some("export class Cart extends EventEmitter implements Iterable<CartLine>")
    );
    let ctx = "export class Cart extends EventEmitter implements Iterable<CartLine> {";
    let add = find(&chunks, ChunkKind::Method, "add");
    assert_eq!(lines(add), (45, 54));
    assert_eq!(add.parent.as_deref(), Some("Cart"));
    assert_eq!(add.context.as_deref(), Some(ctx));
    assert_eq!(
        add.doc.as_deref(),
        Some("Adds `quantity` units of a product.")
    );
    assert_eq!(
        add.signature.as_deref(),
        Some("add(sku: Sku, quantity: number, unitPrice: Money): void")
    );
    let on_change = find(&chunks, ChunkKind::Method, "onChange");
    assert_eq!(lines(on_change), (72, 75));
    let checkout = find(&chunks, ChunkKind::Method, "checkout");
    assert_eq!(lines(checkout), (81, 89));
    assert_eq!(
        find(&chunks, ChunkKind::Method, "subtotal")
            .signature
            .as_deref(),
        Some("get subtotal(): number")
    );

    let create = find(&chunks, ChunkKind::Function, "createCart");
    assert_eq!(lines(create), (91, 93));
    assert_eq!(
        create.signature.as_deref(),
        Some("export default function createCart(owner: string): Cart")
    );
}

#[test]
fn tsx_and_javascript_units() {
    let text = fixture("Button.tsx");
    let chunks = chunk("Button.tsx", &text, &ChunkOptions::default());
    let button = find(&chunks, ChunkKind::Function, "CounterButton");
    assert_eq!(lines(button), (8, 21));
    assert_eq!(
        button.doc.as_deref(),
        Some("A button that counts its clicks.")
    );
    assert_eq!(
        button.signature.as_deref(),
        Some("export function CounterButton({ label, onClick }: Props)")
    );
    assert_eq!(lines(find(&chunks, ChunkKind::Function, "Badge")), (23, 23));
    assert_eq!(lines(find(&chunks, ChunkKind::Type, "Props")), (3, 6));

    let text = fixture("router.js");
    let chunks = chunk("router.js", &text, &ChunkOptions::default());
    assert_eq!(lines(&chunks[0]), (1, 4));
    let compile = find(&chunks, ChunkKind::Function, "compile");
    assert_eq!(lines(compile), (6, 14));
    assert_eq!(
        compile.doc.as_deref(),
        Some("Matches a path pattern like /users/:id.")
    );
    assert_eq!(
        compile.signature.as_deref(),
        Some("function compile(pattern)")
    );
    assert_eq!(lines(find(&chunks, ChunkKind::Class, "Router")), (16, 38));
    let listen = find(&chunks, ChunkKind::Function, "listen");
    assert_eq!(lines(listen), (40, 41));
    assert_eq!(
        listen.signature.as_deref(),
        Some("const listen = (router, port = 3000)")
    );
    let exports = chunks.last().unwrap();
    assert_eq!(exports.kind, ChunkKind::Module);
    assert_eq!(exports.content, "module.exports = { Router, listen };");

    // Small limit: the class splits into methods.
    let chunks = chunk("router.js", &text, &opts(500));
    let handle = find(&chunks, ChunkKind::Method, "handle");
    assert_eq!(lines(handle), (26, 38));
    assert_eq!(handle.parent.as_deref(), Some("Router"));
    assert_eq!(handle.context.as_deref(), Some("class Router {"));
}

#[test]
fn go_units() {
    let text = fixture("server.go");
    let chunks = chunk("server.go", &text, &ChunkOptions::default());
    assert_eq!(lines(&chunks[0]), (1, 9));
    let c = find(&chunks, ChunkKind::Const, "DefaultTimeout");
    assert_eq!(lines(c), (11, 12));
    assert_eq!(
        c.doc.as_deref(),
        Some("DefaultTimeout is used when no timeout is configured.")
    );
    assert_eq!(lines(find(&chunks, ChunkKind::Const, "StatusOK")), (14, 17));
    let checker = find(&chunks, ChunkKind::Interface, "Checker");
    assert_eq!(lines(checker), (21, 25));
    assert_eq!(checker.signature.as_deref(), Some("type Checker interface"));
    let server = find(&chunks, ChunkKind::Struct, "Server");
    assert_eq!(lines(server), (27, 32));
    assert_eq!(server.signature.as_deref(), Some("type Server struct"));
    assert_eq!(lines(find(&chunks, ChunkKind::Type, "Option")), (34, 34));
    let new = find(&chunks, ChunkKind::Function, "New");
    assert_eq!(
        new.signature.as_deref(),
        Some("func New(opts ...Option) *Server")
    );
    let reg = find(&chunks, ChunkKind::Method, "Register");
    assert_eq!(lines(reg), (45, 50));
    assert_eq!(reg.parent.as_deref(), Some("Server"));
    assert_eq!(reg.doc.as_deref(), Some("Register adds a checker."));
    assert_eq!(
        reg.signature.as_deref(),
        Some("func (s *Server) Register(c Checker)")
    );
    assert_eq!(
        lines(find(&chunks, ChunkKind::Method, "ServeHTTP")),
        (52, 67)
    );
    assert_eq!(
        lines(find(&chunks, ChunkKind::Function, "uptime")),
        (69, 69)
    );
    // `var startedAt` is module code.
    assert!(
        chunks
            .iter()
            .any(|c| c.kind == ChunkKind::Module && c.content == "var startedAt = time.Now()")
    );
}

#[test]
fn java_units_split_by_size() {
    let text = fixture("Library.java");
    let chunks = chunk("Library.java", &text, &ChunkOptions::default());
    let lib = find(&chunks, ChunkKind::Class, "Library");
    assert_eq!(lines(lib), (7, 67));
    assert_eq!(
        lib.doc.as_deref(),
        Some("A lending library.\n\n<p>Keeps track of books and who borrowed them.")
    );
    assert_eq!(
        lib.signature.as_deref(),
        Some("public class Library implements AutoCloseable")
    );

    let chunks = chunk("Library.java", &text, &opts(500));
    let header = find(&chunks, ChunkKind::Class, "Library");
    assert_eq!(lines(header), (7, 15));
    assert!(header.content.contains("private int loans;"));
    let ctx = Some("public class Library implements AutoCloseable {");
    let ctor = chunks
        .iter()
        .find(|c| c.kind == ChunkKind::Method && c.symbol.as_deref() == Some("Library"))
        .unwrap();
    assert_eq!(lines(ctor), (17, 20));
    assert_eq!(ctor.doc.as_deref(), Some("Creates an empty library."));
    let add = find(&chunks, ChunkKind::Method, "add");
    assert_eq!(lines(add), (22, 32));
    assert_eq!(
        add.doc.as_deref(),
        Some("Adds a book to the catalogue.\n\n@param book the book")
    );
    assert_eq!(add.context.as_deref(), ctx);
    let find_m = find(&chunks, ChunkKind::Method, "find");
    assert_eq!(find_m.doc.as_deref(), Some("Finds a book by its ISBN."));
    let lend = find(&chunks, ChunkKind::Method, "lend");
    assert_eq!(lines(lend), (39, 47));
    assert!(lend.content.starts_with("    @Override"));
    assert_eq!(
        lend.signature.as_deref(),
        Some(
            "public synchronized <T extends Book> boolean lend(T book, String member) throws LendingException"
        )
    );
    assert_eq!(lend.parent.as_deref(), Some("Library"));
    let kind = find(&chunks, ChunkKind::Enum, "Kind");
    assert_eq!(lines(kind), (58, 67));
    assert_eq!(kind.parent.as_deref(), Some("Library"));
    let book = find(&chunks, ChunkKind::Class, "Book");
    assert_eq!(
        book.signature.as_deref(),
        Some("record Book(String isbn, String title)")
    );
    assert_eq!(
        lines(find(&chunks, ChunkKind::Interface, "LendingPolicy")),
        (71, 73)
    );

    // Members of a nested enum when even it is too big.
    let chunks = chunk("Library.java", &text, &opts(120));
    let periodical = find(&chunks, ChunkKind::Method, "isPeriodical");
    assert_eq!(periodical.parent.as_deref(), Some("Kind"));
    assert_eq!(
        periodical.context.as_deref(),
        Some("public class Library implements AutoCloseable {\npublic enum Kind {")
    );
}

#[test]
fn c_units() {
    let text = fixture("ring.c");
    let chunks = chunk("ring.c", &text, &ChunkOptions::default());
    assert_eq!(lines(&chunks[0]), (1, 3));
    // An object-like macro with a value is a constant of its own.
    let magic = find(&chunks, ChunkKind::Const, "RING_MAGIC");
    assert_eq!(lines(magic).1, 5);
    let ring = find(&chunks, ChunkKind::Struct, "ring");
    assert_eq!(lines(ring), (7, 13));
    assert_eq!(ring.doc.as_deref(), Some("A ring buffer of bytes."));
    assert_eq!(lines(find(&chunks, ChunkKind::Type, "ring_t")), (15, 15));
    assert_eq!(
        lines(find(&chunks, ChunkKind::Enum, "ring_status")),
        (17, 17)
    );
    let new = find(&chunks, ChunkKind::Function, "ring_new");
    assert_eq!(lines(new), (21, 35));
    assert_eq!(
        new.signature.as_deref(),
        Some("ring_t *ring_new(size_t cap)")
    );
    assert_eq!(
        new.doc.as_deref(),
        Some("Allocates a ring with room for `cap` bytes.\nReturns NULL when out of memory.")
    );
    let push = find(&chunks, ChunkKind::Function, "ring_push");
    assert_eq!(lines(push), (37, 45));
    assert_eq!(push.doc.as_deref(), Some("Pushes one byte."));
    // The prototype stays module code.
    assert!(chunks.iter().any(|c| c.kind == ChunkKind::Module
        && c.content == "int ring_pop(ring_t *r, unsigned char *out);"));
    assert_eq!(
        lines(find(&chunks, ChunkKind::Function, "ring_free")),
        (49, 49)
    );
}

#[test]
fn cpp_units() {
    let text = fixture("shapes.hpp");
    let chunks = chunk("shapes.hpp", &text, &ChunkOptions::default());
    let ns = find(&chunks, ChunkKind::Module, "geo");
    assert_eq!(lines(ns), (7, 47));
    let out_of_line = find(&chunks, ChunkKind::Method, "total_area");
    assert_eq!(lines(out_of_line), (49, 53));
    assert_eq!(out_of_line.parent.as_deref(), Some("geo"));

    // Small limit: the namespace and the classes are split.
    let chunks = chunk("shapes.hpp", &text, &opts(250));
    let shape = find(&chunks, ChunkKind::Class, "Shape");
    assert_eq!(lines(shape), (9, 15));
    assert_eq!(shape.parent.as_deref(), Some("geo"));
    assert_eq!(shape.context.as_deref(), Some("namespace geo {"));
    assert_eq!(shape.doc.as_deref(), Some("Abstract base of all shapes."));
    let area = chunks
        .iter()
        .find(|c| c.kind == ChunkKind::Method && c.symbol.as_deref() == Some("area"))
        .unwrap();
    assert_eq!(lines(area), (22, 24));
    assert_eq!(area.parent.as_deref(), Some("Circle"));
    assert_eq!(
        area.signature.as_deref(),
        Some("double area() const override")
    );
    assert_eq!(
        area.context.as_deref(),
        Some("namespace geo {\nclass Circle : public Shape {")
    );
    let clamp = find(&chunks, ChunkKind::Function, "clamp");
    assert_eq!(lines(clamp), (32, 35));
    assert_eq!(
        clamp.signature.as_deref(),
        Some("template <typename T> T clamp(T v, T lo, T hi)")
    );
    assert_eq!(lines(find(&chunks, ChunkKind::Struct, "Point")), (37, 40));
    assert_eq!(lines(find(&chunks, ChunkKind::Type, "ShapePtr")), (42, 42));
}

#[test]
fn markdown_sections() {
    let text = fixture("guide.md");
    let chunks = chunk("guide.md", &text, &ChunkOptions::default());
    assert!(chunks.iter().all(|c| c.kind == ChunkKind::Section));

    let pre = &chunks[0];
    assert_eq!(pre.symbol, None);
    assert!(pre.headings.is_empty());
    assert_eq!(lines(pre), (1, 4));

    let gs = find(&chunks, ChunkKind::Section, "Getting started");
    assert_eq!(gs.headings, ["Getting started"]);
    assert_eq!(lines(gs), (6, 13));
    assert!(
        gs.content
            .contains("# this is a shell comment, not a heading")
    );

    let cfg = find(&chunks, ChunkKind::Section, "Configuration");
    assert_eq!(cfg.headings, ["Getting started", "Configuration"]);
    assert_eq!(lines(cfg), (15, 23));
    assert!(cfg.content.contains("# also not a heading"));

    let adv = find(&chunks, ChunkKind::Section, "Advanced");
    assert_eq!(
        adv.headings,
        ["Getting started", "Configuration", "Advanced"]
    );

    // A long section is split into windows with the same heading path.
    let internals: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| c.symbol.as_deref() == Some("Indexing internals"))
        .collect();
    assert!(internals.len() >= 2);
    for c in &internals {
        assert_eq!(c.headings, ["Getting started", "Indexing internals"]);
        assert!(c.content.chars().count() <= 1600);
        // Windows are cut at paragraph boundaries.
        assert!(c.content.starts_with("## Indexing") || c.content.starts_with("Paragraph"));
    }

    let faq = find(&chunks, ChunkKind::Section, "FAQ");
    assert_eq!(faq.headings, ["FAQ"]);
    assert!(faq.content.contains("#no-space-is-not-a-heading"));
    assert!(faq.content.contains("# indented code is not a heading"));
    let home = find(&chunks, ChunkKind::Section, "Does it phone home?");
    assert_eq!(home.headings, ["FAQ", "Does it phone home?"]);
    assert_eq!(home.end_line as usize, text.lines().count());
}

#[test]
fn text_windows_overlap() {
    let text = fixture("notes.txt");
    let o = ChunkOptions::default();
    let chunks = chunk("notes.txt", &text, &o);
    assert!(chunks.len() >= 3);
    for w in chunks.windows(2) {
        assert_eq!(w[0].kind, ChunkKind::Text);
        assert!(w[1].start_byte < w[0].end_byte, "windows overlap");
        assert!(w[1].start_byte > w[0].start_byte);
        assert!(w[1].start_line > w[0].start_line);
    }
    for c in &chunks {
        assert!(c.content.chars().count() <= o.window_chars);
        assert_eq!(c.symbol, None);
    }
    // Unknown extensions are text too.
    let chunks = chunk("LICENSE", "MIT License\n\nPermission is hereby granted", &o);
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].kind, ChunkKind::Text);
    assert_eq!(lines(&chunks[0]), (1, 3));
}

#[test]
fn huge_function_without_members_is_windowed() {
    let mut text = String::from("use std::io;\n\n/// Does a lot.\nfn big(x: u32) -> u32 {\n");
    for i in 0..200 {
        text.push_str(&format!("    let v{i} = x.wrapping_mul({i}) + {i};\n"));
    }
    text.push_str("    x\n}\n\nfn small() {}\n");
    let chunks = chunk("big.rs", &text, &opts(600));
    let parts: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| c.symbol.as_deref() == Some("big"))
        .collect();
    assert!(parts.len() > 5);
    assert_eq!(parts[0].start_line, 3);
    assert_eq!(parts[0].doc.as_deref(), Some("Does a lot."));
    assert_eq!(parts.last().unwrap().end_line, 206);
    for p in &parts {
        assert_eq!(p.kind, ChunkKind::Function);
        assert_eq!(p.signature.as_deref(), Some("fn big(x: u32) -> u32"));
        assert!(p.content.chars().count() <= 600);
    }
    for p in &parts[1..] {
        assert_eq!(p.context.as_deref(), Some("fn big(x: u32) -> u32 {"));
        assert_eq!(p.doc, None);
    }
    assert_eq!(
        lines(find(&chunks, ChunkKind::Function, "small")),
        (208, 208)
    );

    // A single enormous line (minified code) is still cut, on char boundaries.
    let line = format!("const X = [{}];\n", "\"ä\", ".repeat(3000));
    let chunks = chunk("min.js", &line, &opts(500));
    assert!(chunks.len() > 10);
    assert!(max_chunk_chars(&chunks) <= 500);
}

#[test]
fn long_module_code_is_packed() {
    let mut text = String::new();
    for i in 0..300 {
        text.push_str(&format!("print('statement number {i}')\n"));
    }
    text.push_str("\ndef tail():\n    return 1\n");
    let chunks = chunk("script.py", &text, &ChunkOptions::default());
    let modules: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| c.kind == ChunkKind::Module)
        .collect();
    assert!(modules.len() >= 4);
    for m in &modules {
        assert!(m.content.chars().count() <= 1600);
        assert!(m.content.starts_with("print("));
        assert!(m.content.ends_with("')"));
    }
    assert_eq!(
        lines(find(&chunks, ChunkKind::Function, "tail")),
        (302, 303)
    );
}

#[test]
fn edge_inputs() {
    let o = ChunkOptions::default();
    for name in FIXTURES {
        assert!(chunk_file(Path::new(name), "", &o).is_empty());
        assert!(chunk_file(Path::new(name), " \n\r\n\t  \n", &o).is_empty());
    }
    // No trailing newline.
    let chunks = chunk("a.rs", "fn a() {}\n\nfn b() -> u8 { 1 }", &o);
    assert_eq!(chunks.len(), 2);
    assert_eq!(lines(&chunks[1]), (3, 3));
    assert_eq!(chunks[1].content, "fn b() -> u8 { 1 }");
    // Leading blank lines and trailing comment on the unit's last line.
    let chunks = chunk("a.go", "\n\n\npackage x\n\nfunc f() {} // done\n", &o);
    let f = find(&chunks, ChunkKind::Function, "f");
    assert_eq!(f.content, "func f() {} // done");
    assert_eq!(lines(f), (6, 6));
    // Non-ASCII identifiers and text.
    let src = "/// Grüße 🌍\nfn grüßen(名前: &str) -> String { format!(\"こんにちは {名前}\") }\n";
    let chunks = chunk("u.rs", src, &o);
    let g = find(&chunks, ChunkKind::Function, "grüßen");
    assert_eq!(g.doc.as_deref(), Some("Grüße 🌍"));
    assert_eq!(lines(g), (1, 2));
    // A markdown file with only a heading.
    let chunks = chunk("x.md", "## Só", &o);
    assert_eq!(chunks[0].headings, ["Só"]);
}

/// Deterministic xorshift generator (no dev-dependency needed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "fn ",
    "def ",
    "class ",
    "{",
    "}",
    "(",
    ")",
    "\n",
    "\r\n",
    "\r",
    "    ",
    "\t",
    "#",
    "## ",
    "```",
    "~~~",
    "/**",
    "*/",
    "//",
    "/// ",
    "\"\"\"",
    "'",
    "\"",
    "impl ",
    "struct ",
    "enum ",
    "trait ",
    "mod ",
    "namespace ",
    "template <",
    ">",
    "export ",
    "const ",
    "=>",
    "function ",
    "interface ",
    "type ",
    "func ",
    "package ",
    "public ",
    "@",
    "#[",
    "]",
    ";",
    ":",
    ",",
    "=",
    "ä",
    "€",
    "𝄞",
    "日本",
    "\u{0}",
    "\u{feff}",
    "x",
    "foo",
    "Bar",
    "self",
    "return ",
    "if ",
    "#ifdef X\n",
    "#endif\n",
    "#define",
    "extern \"C\" ",
    "async ",
    "*",
    "&",
    "->",
    "::",
];

fn random_text(rng: &mut Rng) -> String {
    let n = rng.below(300);
    let mut s = String::new();
    for _ in 0..n {
        if rng.below(8) == 0 {
            // Arbitrary chars, including multi-byte ones.
            let c = char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('\u{fffd}');
            s.push(c);
        } else {
            s.push_str(PIECES[rng.below(PIECES.len())]);
        }
    }
    s
}

#[test]
fn garbage_never_panics() {
    let names = [
        "g.rs", "g.py", "g.ts", "g.tsx", "g.js", "g.go", "g.java", "g.c", "g.cpp", "g.md", "g.txt",
    ];
    // LORE_CHUNK_FUZZ_SEED / LORE_CHUNK_FUZZ_CASES run a longer fuzz locally.
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let seed = env("LORE_CHUNK_FUZZ_SEED").unwrap_or(0x9E37_79B9_7F4A_7C15) | 1;
    let cases = env("LORE_CHUNK_FUZZ_CASES").unwrap_or(3000) as usize;
    let mut rng = Rng(seed);
    let fixtures: Vec<String> = FIXTURES.iter().map(|f| fixture(f)).collect();
    for i in 0..cases {
        let name = names[i % names.len()];
        let text = match i % 3 {
            0 => random_text(&mut rng),
            1 => {
                // A fixture with a random slice cut out and garbage spliced in.
                let f = &fixtures[rng.below(fixtures.len())];
                let a = floor(f, rng.below(f.len()));
                let b = ceil(f, (a + rng.below(400)).min(f.len()));
                format!("{}{}{}", &f[..a], random_text(&mut rng), &f[b..])
            }
            _ => {
                // A truncated fixture.
                let f = &fixtures[rng.below(fixtures.len())];
                f[..floor(f, rng.below(f.len() + 1))].to_string()
            }
        };
        let max = [1, 13, 80, 400, 1600][rng.below(5)];
        let o = ChunkOptions {
            max_chars: max,
            window_chars: [1, 50, 1200][rng.below(3)],
            overlap_chars: [0, 10, 200, 5000][rng.below(4)],
        };
        chunk(name, &text, &o);
    }
}

#[test]
fn parallel_use_from_many_threads() {
    let texts: Vec<(&str, String)> = FIXTURES.iter().map(|f| (*f, fixture(f))).collect();
    let expected: Vec<Vec<Chunk>> = texts
        .iter()
        .map(|(n, t)| chunk_file(Path::new(n), t, &ChunkOptions::default()))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..5 {
                    for ((n, t), want) in texts.iter().zip(&expected) {
                        let got = chunk_file(Path::new(n), t, &ChunkOptions::default());
                        assert_eq!(&got, want);
                    }
                }
            });
        }
    });
}

#[test]
fn runs_of_one_line_consts_share_chunks() {
    let mut text = String::from("use std::ffi::c_int;\n\n");
    for i in 0..300 {
        text.push_str(&format!("pub const ERR_{i}: c_int = {i};\n"));
    }
    text.push_str("\n/// Documented: keeps its own chunk.\npub const LAST: c_int = -1;\n");
    text.push_str("pub const A: u8 = 1;\npub const B: u8 = 2;\n\nfn f() {}\n");
    let chunks = chunk("consts.rs", &text, &ChunkOptions::default());
    let runs: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| c.kind == ChunkKind::Const && c.symbol.is_none())
        .collect();
    assert!(
        runs.len() >= 5 && runs.len() <= 8,
        "{:#?}",
        summary(&chunks)
    );
    assert_eq!(runs[0].start_line, 3);
    assert_eq!(runs.last().unwrap().end_line, 302);
    for r in &runs {
        assert!(r.content.chars().count() <= 1600);
        assert!(r.content.starts_with("pub const ERR_"));
    }
    let last = find(&chunks, ChunkKind::Const, "LAST");
    assert_eq!(lines(last), (304, 305));
    // Short runs keep one chunk per const.
    assert_eq!(lines(find(&chunks, ChunkKind::Const, "A")), (306, 306));
    assert_eq!(lines(find(&chunks, ChunkKind::Const, "B")), (307, 307));
}

#[test]
fn cpp_in_dot_h_uses_the_cpp_grammar() {
    let text = fixture("shapes.hpp");
    let chunks = chunk("shapes.h", &text, &opts(250));
    assert!(chunks.iter().all(|c| c.language == Language::C));
    assert_eq!(
        find(&chunks, ChunkKind::Class, "Shape").parent.as_deref(),
        Some("geo")
    );
    assert!(
        chunks
            .iter()
            .any(|c| c.kind == ChunkKind::Method && c.parent.as_deref() == Some("Circle"))
    );
}

#[test]
fn broken_and_truncated_code_still_has_units() {
    let text = fixture("store.rs");
    // Cut in the middle of `impl Store`: the units before the cut survive.
    let cut = floor(&text, 1500);
    let chunks = chunk("store.rs", &text[..cut], &ChunkOptions::default());
    assert_eq!(lines(find(&chunks, ChunkKind::Enum, "StoreError")), (9, 16));
    assert_eq!(lines(find(&chunks, ChunkKind::Struct, "Store")), (27, 32));
    // Junk in the middle.
    let broken = text.replacen(
        "    /// Inserts a value",
        "  } } fn (\n    /// Inserts a value",
        1,
    );
    let chunks = chunk("store.rs", &broken, &ChunkOptions::default());
    assert_eq!(
        lines(find(&chunks, ChunkKind::Trait, "Persist")),
        (103, 112)
    );
    assert_eq!(
        lines(find(&chunks, ChunkKind::Function, "merge")),
        (121, 128)
    );
    // Prose in a code file: text windows.
    let prose = "This is not Python at all, it's a letter.\nDear reader, thanks!\n".repeat(40);
    let chunks = chunk("letter.py", &prose, &ChunkOptions::default());
    assert!(
        chunks
            .iter()
            .all(|c| c.kind == ChunkKind::Text || c.kind == ChunkKind::Module)
    );
}
