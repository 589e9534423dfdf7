//! One connection over two SQL databases: SQLite (the embedded default) and PostgreSQL
//! (shared by several machines). The catalog's queries are written once, in the SQL both
//! speak, with `?N` placeholders; [`Sql`] translates them for PostgreSQL (`$N`) and turns
//! each backend's values into the same [`Row`]. What differs in kind — the schema's DDL,
//! the lexical and vector indexes — lives beside it, per backend.

use crate::IndexError;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Duration;

/// Which database a connection speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// An error from either database, or a column that did not hold what the catalog expects.
#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    #[error("{}", sqlite_message(.0))]
    Sqlite(#[from] rusqlite::Error),
    /// Not a `source`: `pg_message` already holds all the error says (the server's message,
    /// detail and hint, or the chain of a client error), which its own `Display` would
    /// repeat on two lines.
    #[error("{}", pg_message(.0))]
    Postgres(postgres::Error),
    #[error("column {index} holds {found}, not {expected}")]
    Column {
        index: usize,
        expected: &'static str,
        found: &'static str,
    },
    #[error("the connection is busy with another query (a callback queried the catalog)")]
    Reentrant,
    /// The database server cannot be reached (down, restarting, or refusing connections):
    /// the next statement connects again.
    #[error("database unreachable: {0}")]
    Unreachable(String),
}

impl From<postgres::Error> for SqlError {
    fn from(e: postgres::Error) -> SqlError {
        SqlError::Postgres(e)
    }
}

/// Whether SQLite found the database file damaged (or not a database at all).
pub(crate) fn is_damaged(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

/// SQLite's message; for a damaged file, with the next step.
fn sqlite_message(e: &rusqlite::Error) -> String {
    if is_damaged(e) {
        format!(
            "the catalog file is damaged ({e}); `lore doctor --deep` says what is damaged and \
             what to do (the brain's notes are files on disk and are safe)"
        )
    } else {
        e.to_string()
    }
}

impl SqlError {
    /// Whether the database server could not be reached (a retry later may succeed).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, SqlError::Unreachable(_))
    }

    /// SQLite's own words when it found the catalog file damaged.
    pub fn damage(&self) -> Option<String> {
        match self {
            SqlError::Sqlite(e) if is_damaged(e) => Some(match e {
                rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
                other => other.to_string(),
            }),
            _ => None,
        }
    }
}

/// A PostgreSQL error with the server's own message and detail, which `Display` of
/// `postgres::Error` leaves out.
fn pg_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut m = format!("{}: {}", db.severity(), db.message());
            if let Some(d) = db.detail() {
                m.push_str(&format!(" ({d})"));
            }
            if let Some(h) = db.hint() {
                m.push_str(&format!("; hint: {h}"));
            }
            m
        }
        None => {
            let mut m = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                m.push_str(&format!(": {s}"));
                source = s.source();
            }
            m
        }
    }
}

/// `?from,?from+1,…`: `n` numbered placeholders for an `IN (…)` list.
pub(crate) fn placeholders(n: usize, from: usize) -> String {
    (0..n)
        .map(|i| format!("?{}", i + from))
        .collect::<Vec<_>>()
        .join(",")
}

/// An embedding as SQLite stores it: little-endian f32, one after another.
pub fn embedding_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn blob_to_embedding(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A query argument.
#[derive(Debug, Clone)]
pub enum Arg<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(Cow<'a, str>),
    /// Text SQLite stores compressed when long (`pack`: a BLOB, read back by
    /// `Row::packed_text`); PostgreSQL as text, which its TOAST compresses itself.
    Packed(Cow<'a, str>),
    /// An embedding: a BLOB of little-endian f32 in SQLite, a pgvector `vector` in PostgreSQL.
    Vector(Cow<'a, [f32]>),
    /// Arrays, for PostgreSQL's `unnest` and `= ANY(…)` (SQLite has none).
    Ints(Vec<i64>),
    Reals(Vec<f64>),
    Texts(Vec<String>),
}

macro_rules! int_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg<'_> {
            fn from(v: $t) -> Self {
                Arg::Int(v as i64)
            }
        }
    )*};
}
int_arg!(i64, i32, u32, u64, usize);

impl From<bool> for Arg<'_> {
    fn from(v: bool) -> Self {
        Arg::Int(v as i64)
    }
}
impl From<f32> for Arg<'_> {
    fn from(v: f32) -> Self {
        Arg::Real(v as f64)
    }
}
impl<'a> From<&'a str> for Arg<'a> {
    fn from(v: &'a str) -> Self {
        Arg::Text(Cow::Borrowed(v))
    }
}
impl<'a> From<&'a String> for Arg<'a> {
    fn from(v: &'a String) -> Self {
        Arg::Text(Cow::Borrowed(v))
    }
}
impl From<String> for Arg<'_> {
    fn from(v: String) -> Self {
        Arg::Text(Cow::Owned(v))
    }
}
impl<'a> From<&'a [f32]> for Arg<'a> {
    fn from(v: &'a [f32]) -> Self {
        Arg::Vector(Cow::Borrowed(v))
    }
}
impl<'a, T: Into<Arg<'a>>> From<Option<T>> for Arg<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Arg::Null, Into::into)
    }
}
impl<'a> From<&'a Option<String>> for Arg<'a> {
    fn from(v: &'a Option<String>) -> Self {
        v.as_deref().into()
    }
}

/// `args![a, b]`: a slice of query arguments.
macro_rules! args {
    ($($x:expr),* $(,)?) => {
        &[$($crate::sql::Arg::from($x)),*][..]
    };
}
pub(crate) use args;

/// A value read from a column.
#[derive(Debug, Clone)]
enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
    Vector(Vec<f32>),
}

impl Value {
    fn name(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Int(_) => "an integer",
            Value::Real(_) => "a real",
            Value::Text(_) => "text",
            Value::Blob(_) => "a blob",
            Value::Vector(_) => "a vector",
        }
    }
}

/// One result row; text columns are taken out, not copied.
#[derive(Debug, Default)]
pub struct Row(Vec<Value>);

impl Row {
    /// The row's values as arguments of another query (a copy between catalogs); a BLOB
    /// is an embedding.
    pub fn into_args(self) -> Vec<Arg<'static>> {
        self.0
            .into_iter()
            .map(|v| match v {
                Value::Null => Arg::Null,
                Value::Int(i) => Arg::Int(i),
                Value::Real(r) => Arg::Real(r),
                Value::Text(t) => Arg::Text(Cow::Owned(t)),
                Value::Blob(b) => Arg::Vector(Cow::Owned(blob_to_embedding(&b))),
                Value::Vector(v) => Arg::Vector(Cow::Owned(v)),
            })
            .collect()
    }

    fn wrong(&self, index: usize, expected: &'static str) -> SqlError {
        SqlError::Column {
            index,
            expected,
            found: self.0.get(index).map_or("nothing", Value::name),
        }
    }

    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, SqlError> {
        match self.0.get(i) {
            Some(Value::Int(v)) => Ok(Some(*v)),
            Some(Value::Null) => Ok(None),
            _ => Err(self.wrong(i, "an integer")),
        }
    }

    pub fn int(&self, i: usize) -> Result<i64, SqlError> {
        self.opt_int(i)?.ok_or_else(|| self.wrong(i, "an integer"))
    }

    pub fn bool(&self, i: usize) -> Result<bool, SqlError> {
        Ok(self.int(i)? != 0)
    }

    pub fn opt_real(&self, i: usize) -> Result<Option<f64>, SqlError> {
        match self.0.get(i) {
            Some(Value::Real(v)) => Ok(Some(*v)),
            Some(Value::Int(v)) => Ok(Some(*v as f64)),
            Some(Value::Null) => Ok(None),
            _ => Err(self.wrong(i, "a real")),
        }
    }

    pub fn opt_text(&mut self, i: usize) -> Result<Option<String>, SqlError> {
        match self.0.get_mut(i) {
            Some(Value::Text(s)) => Ok(Some(std::mem::take(s))),
            Some(Value::Null) => Ok(None),
            _ => Err(self.wrong(i, "text")),
        }
    }

    pub fn text(&mut self, i: usize) -> Result<String, SqlError> {
        self.opt_text(i)?.ok_or_else(|| self.wrong(i, "text"))
    }

    /// A column written as `Arg::Packed`: text, or a BLOB `pack` made.
    pub fn packed_text(&mut self, i: usize) -> Result<String, SqlError> {
        match self.0.get_mut(i) {
            Some(Value::Text(s)) => Ok(std::mem::take(s)),
            Some(Value::Blob(b)) => crate::pack::unpack(b).ok_or(SqlError::Column {
                index: i,
                expected: "text or packed text",
                found: "a damaged packed text",
            }),
            _ => Err(self.wrong(i, "text")),
        }
    }

    /// An embedding column (`None` when NULL).
    pub fn vector(&mut self, i: usize) -> Result<Option<Vec<f32>>, SqlError> {
        match self.0.get_mut(i) {
            Some(Value::Vector(v)) => Ok(Some(std::mem::take(v))),
            Some(Value::Blob(b)) => Ok(Some(blob_to_embedding(b))),
            Some(Value::Null) => Ok(None),
            _ => Err(self.wrong(i, "a vector")),
        }
    }
}

/// Connection settings for PostgreSQL beyond its URL.
#[derive(Debug, Clone)]
pub struct PgOptions {
    /// Each statement's limit (`statement_timeout`).
    pub statement_timeout: Duration,
    /// How long to wait for the server to answer a connection.
    pub connect_timeout: Duration,
}

impl Default for PgOptions {
    fn default() -> Self {
        PgOptions {
            statement_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
        }
    }
}

/// One PostgreSQL session that comes back: a connection the server dropped (a restart, a
/// terminated backend) is replaced on the next statement, and a statement that found it
/// dropped before running is run once more on the new one. Inside a transaction nothing is
/// replaced: its statements fail until the caller's `ROLLBACK`, so no half of a
/// transaction is ever committed on its own.
struct Pg {
    config: postgres::Config,
    statement_timeout: Duration,
    /// `None` once the connection is known lost (or the reconnect failed).
    client: Option<postgres::Client>,
    /// Prepared statements by the catalog's SQL text, on `client`.
    statements: Statements,
    /// A `BEGIN` ran on `client` and its `COMMIT` or `ROLLBACK` has not.
    in_tx: bool,
}

type Statements = HashMap<String, postgres::Statement>;

/// Whether an error means the session is gone: the socket closed, the server shutting
/// down or terminating it (SQLSTATE class 57P), or a connection failure (class 08).
fn is_connection_lost(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        Some(code) => {
            let c = code.code();
            c.starts_with("57P") || c.starts_with("08")
        }
        // No server error: an I/O failure on the socket.
        None => std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>()),
    }
}

impl Pg {
    fn connect(
        config: &postgres::Config,
        statement_timeout: Duration,
    ) -> Result<postgres::Client, SqlError> {
        let unreachable = |e: postgres::Error| SqlError::Unreachable(pg_message(&e));
        let mut client = off_runtime(|| match config.get_ssl_mode() {
            postgres::config::SslMode::Disable => config.connect(postgres::NoTls),
            _ => config.connect(tls()),
        })
        .map_err(unreachable)?;
        let set = format!("SET statement_timeout = {}", statement_timeout.as_millis());
        off_runtime(|| client.batch_execute(&set)).map_err(unreachable)?;
        Ok(client)
    }

    /// Connects again when the last session was lost, unless a transaction was open on it.
    fn ensure_connected(&mut self) -> Result<(), SqlError> {
        if self.client.as_ref().is_some_and(|c| c.is_closed()) {
            self.lost();
        }
        if self.client.is_none() {
            if self.in_tx {
                return Err(SqlError::Unreachable(
                    "the connection was lost inside a transaction, which the server rolled back"
                        .into(),
                ));
            }
            self.client = Some(Self::connect(&self.config, self.statement_timeout)?);
        }
        Ok(())
    }

    fn lost(&mut self) {
        self.client = None;
        self.statements.clear();
    }

    /// Runs `f` on the session (with its prepared statements). A lost session is reported
    /// as unreachable; outside a transaction `f` is first tried once more on a new one.
    fn run<T: Send>(
        &mut self,
        mut f: impl FnMut(&mut postgres::Client, &mut Statements) -> Result<T, postgres::Error> + Send,
    ) -> Result<T, SqlError> {
        let mut retry = !self.in_tx;
        loop {
            self.ensure_connected()?;
            let (Some(client), statements) = (self.client.as_mut(), &mut self.statements) else {
                return Err(SqlError::Unreachable("not connected".into()));
            };
            match off_runtime(|| f(client, statements)) {
                Ok(v) => return Ok(v),
                Err(e) if is_connection_lost(&e) => {
                    self.lost();
                    if !retry {
                        return Err(SqlError::Unreachable(pg_message(&e)));
                    }
                    retry = false;
                }
                Err(e) => return Err(SqlError::Postgres(e)),
            }
        }
    }

    /// A batch of statements; `BEGIN`, `COMMIT` and `ROLLBACK` also track the transaction.
    fn batch(&mut self, sql: &str) -> Result<(), SqlError> {
        let verb = sql
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let out = self.run(|client, _| client.batch_execute(sql));
        match verb.as_str() {
            "BEGIN" if out.is_ok() => self.in_tx = true,
            "COMMIT" | "ROLLBACK" => {
                self.in_tx = false;
                // The server rolls back what a lost session had open.
                if verb == "ROLLBACK" && out.as_ref().is_err_and(|e| e.is_unreachable()) {
                    return Ok(());
                }
            }
            _ => {}
        }
        out
    }
}

enum Inner {
    Sqlite(rusqlite::Connection),
    Postgres(Box<RefCell<Pg>>),
}

/// A connection to the catalog's database.
pub struct Sql {
    inner: Inner,
    /// What errors name: the SQLite file, or the PostgreSQL server without its password.
    label: String,
}

impl Sql {
    pub(crate) fn sqlite(conn: rusqlite::Connection, label: String) -> Sql {
        Sql {
            inner: Inner::Sqlite(conn),
            label,
        }
    }

    /// Connects to PostgreSQL (`postgres://user:pass@host:port/db?sslmode=…`). TLS is used
    /// when the URL's `sslmode` asks for it (`prefer`, the default, tries it first).
    pub fn postgres(url: &str, opts: &PgOptions) -> Result<Sql, IndexError> {
        let label = redact(url);
        let fail = |e: SqlError| IndexError::Catalog(label.clone(), e);
        let mut config: postgres::Config = url.parse().map_err(|e| fail(SqlError::Postgres(e)))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(opts.connect_timeout);
        }
        config.application_name("lore");
        let client = Pg::connect(&config, opts.statement_timeout).map_err(fail)?;
        Ok(Sql {
            inner: Inner::Postgres(Box::new(RefCell::new(Pg {
                config,
                statement_timeout: opts.statement_timeout,
                client: Some(client),
                statements: HashMap::new(),
                in_tx: false,
            }))),
            label,
        })
    }

    pub fn dialect(&self) -> Dialect {
        match self.inner {
            Inner::Sqlite(_) => Dialect::Sqlite,
            Inner::Postgres(_) => Dialect::Postgres,
        }
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub(crate) fn err(&self) -> impl Fn(SqlError) -> IndexError + '_ {
        |e| IndexError::Catalog(self.label.clone(), e)
    }

    /// Runs statements without arguments (DDL, `BEGIN`, `COMMIT`).
    pub fn batch(&self, sql: &str) -> Result<(), IndexError> {
        match &self.inner {
            Inner::Sqlite(c) => c.execute_batch(sql).map_err(SqlError::from),
            Inner::Postgres(pg) => pg
                .try_borrow_mut()
                .map_err(|_| SqlError::Reentrant)
                .and_then(|mut pg| pg.batch(sql)),
        }
        .map_err(self.err())
    }

    /// Runs one statement; the number of rows it changed.
    pub fn execute(&self, sql: &str, args: &[Arg<'_>]) -> Result<u64, IndexError> {
        match &self.inner {
            Inner::Sqlite(c) => c
                .prepare_cached(sql)
                .and_then(|mut st| st.execute(rusqlite::params_from_iter(args.iter().map(Lite))))
                .map(|n| n as u64)
                .map_err(SqlError::from),
            Inner::Postgres(pg) => with_pg(pg, sql, |client, st| {
                let owned = pg_args(args);
                client.execute(st, &pg_refs(&owned))
            }),
        }
        .map_err(self.err())
    }

    /// Calls `f` for each row, in order, as the database returns them.
    pub fn for_each(
        &self,
        sql: &str,
        args: &[Arg<'_>],
        mut f: impl FnMut(Row) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let err = self.err();
        match &self.inner {
            Inner::Sqlite(c) => {
                let mut st = c.prepare_cached(sql).map_err(|e| err(e.into()))?;
                let mut rows = st
                    .query(rusqlite::params_from_iter(args.iter().map(Lite)))
                    .map_err(|e| err(e.into()))?;
                while let Some(row) = rows.next().map_err(|e| err(e.into()))? {
                    f(lite_row(row).map_err(|e| err(e.into()))?)?;
                }
                Ok(())
            }
            Inner::Postgres(pg) => {
                // Read whole, then handed to `f` (which may be anything, `Send` or not).
                let rows = with_pg(pg, sql, |client, st| {
                    let owned = pg_args(args);
                    client.query(st, &pg_refs(&owned))
                })
                .map_err(&err)?;
                for row in &rows {
                    f(pg_row(row).map_err(&err)?)?;
                }
                Ok(())
            }
        }
    }

    /// Every row, mapped by `f`.
    pub fn query<T>(
        &self,
        sql: &str,
        args: &[Arg<'_>],
        mut f: impl FnMut(&mut Row) -> Result<T, SqlError>,
    ) -> Result<Vec<T>, IndexError> {
        let mut out = Vec::new();
        self.for_each(sql, args, |mut row| {
            out.push(f(&mut row).map_err(self.err())?);
            Ok(())
        })?;
        Ok(out)
    }

    /// The first row, if any, mapped by `f`.
    pub fn query_opt<T>(
        &self,
        sql: &str,
        args: &[Arg<'_>],
        f: impl FnMut(&mut Row) -> Result<T, SqlError>,
    ) -> Result<Option<T>, IndexError> {
        Ok(self.query(sql, args, f)?.into_iter().next())
    }

    /// The first row's first column as an integer (counts, `RETURNING id`).
    pub fn query_int(&self, sql: &str, args: &[Arg<'_>]) -> Result<i64, IndexError> {
        self.query_opt(sql, args, |r| r.int(0))?
            .ok_or_else(|| IndexError::Corrupt(format!("{}: no row for {sql}", self.label)))
    }
}

/// The server a URL names, without its password (for errors and `lore db status`).
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "postgres".into();
    };
    let rest = rest.split('?').next().unwrap_or(rest);
    match rest.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split(':').next().unwrap_or(user);
            format!("{scheme}://{user}@{host}")
        }
        None => format!("{scheme}://{rest}"),
    }
}

fn tls() -> tokio_postgres_rustls::MakeRustlsConnect {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("ring supports the default TLS versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    tokio_postgres_rustls::MakeRustlsConnect::new(config)
}

/// The catalog's `?N` placeholders as PostgreSQL's `$N`, and SQLite's `INDEXED BY name`
/// hints dropped.
fn to_postgres(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(i) = rest.find(['?', 'I']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix('?')
            && after.starts_with(|c: char| c.is_ascii_digit())
        {
            out.push('$');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("INDEXED BY ") {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            rest = after[end..].strip_prefix(' ').unwrap_or(&after[end..]);
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Runs `f`, which blocks on the PostgreSQL client's own runtime: on this thread, or on a
/// scoped helper thread when this one may be driving a tokio runtime (a server's
/// handlers), where blocking on another runtime would panic.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|s| s.spawn(f).join()).unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// Runs `f` with `sql` prepared (once per session).
fn with_pg<T: Send>(
    pg: &RefCell<Pg>,
    sql: &str,
    mut f: impl FnMut(&mut postgres::Client, &postgres::Statement) -> Result<T, postgres::Error> + Send,
) -> Result<T, SqlError> {
    let mut pg = pg.try_borrow_mut().map_err(|_| SqlError::Reentrant)?;
    pg.run(|client, statements| {
        let st = match statements.get(sql) {
            Some(st) => st.clone(),
            None => {
                let st = client.prepare(&to_postgres(sql))?;
                statements.insert(sql.to_string(), st.clone());
                st
            }
        };
        f(client, &st)
    })
}

/// Arguments as `postgres` takes them.
fn pg_refs<'s>(owned: &'s [PgArg<'_, '_>]) -> Vec<&'s (dyn postgres::types::ToSql + Sync)> {
    owned
        .iter()
        .map(|a| a as &(dyn postgres::types::ToSql + Sync))
        .collect()
}

/// An argument as rusqlite binds it.
struct Lite<'a, 'b>(&'b Arg<'a>);

impl rusqlite::ToSql for Lite<'_, '_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value as V, ValueRef};
        Ok(match self.0 {
            Arg::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Arg::Int(v) => ToSqlOutput::Owned(V::Integer(*v)),
            Arg::Real(v) => ToSqlOutput::Owned(V::Real(*v)),
            Arg::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Arg::Packed(s) => match crate::pack::pack(s) {
                Some(b) => ToSqlOutput::Owned(V::Blob(b)),
                None => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            },
            Arg::Vector(v) => ToSqlOutput::Owned(V::Blob(embedding_to_blob(v))),
            Arg::Ints(_) | Arg::Reals(_) | Arg::Texts(_) => {
                return Err(rusqlite::Error::ToSqlConversionFailure(
                    "SQLite has no array values".into(),
                ));
            }
        })
    }
}

fn lite_row(row: &rusqlite::Row) -> rusqlite::Result<Row> {
    use rusqlite::types::ValueRef;
    let n = row.as_ref().column_count();
    let mut values = Vec::with_capacity(n);
    for i in 0..n {
        values.push(match row.get_ref(i)? {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(v) => Value::Int(v),
            ValueRef::Real(v) => Value::Real(v),
            ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        });
    }
    Ok(Row(values))
}

/// An argument as PostgreSQL binds it: converted to the type the server inferred for its
/// placeholder (so `?1` may be an `int4` column or an `int8` one), a NULL of any type.
#[derive(Debug)]
struct PgArg<'a, 'b>(&'b Arg<'a>);

impl postgres::types::ToSql for PgArg<'_, '_> {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use postgres::types::{IsNull, Type};
        match self.0 {
            Arg::Null => Ok(IsNull::Yes),
            Arg::Int(v) => match *ty {
                Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
                Type::FLOAT8 => (*v as f64).to_sql(ty, out),
                Type::FLOAT4 => (*v as f32).to_sql(ty, out),
                Type::BOOL => (*v != 0).to_sql(ty, out),
                _ => v.to_sql(ty, out),
            },
            Arg::Real(v) => match *ty {
                Type::FLOAT4 => (*v as f32).to_sql(ty, out),
                _ => v.to_sql(ty, out),
            },
            Arg::Text(s) | Arg::Packed(s) => s.as_ref().to_sql(ty, out),
            Arg::Vector(v) => pgvector::Vector::from(v.to_vec()).to_sql(ty, out),
            Arg::Ints(v) => match *ty {
                Type::INT4_ARRAY => v
                    .iter()
                    .map(|&x| i32::try_from(x))
                    .collect::<Result<Vec<i32>, _>>()?
                    .to_sql(ty, out),
                Type::INT2_ARRAY => v
                    .iter()
                    .map(|&x| i16::try_from(x))
                    .collect::<Result<Vec<i16>, _>>()?
                    .to_sql(ty, out),
                _ => v.to_sql(ty, out),
            },
            Arg::Reals(v) => match *ty {
                Type::FLOAT4_ARRAY => v
                    .iter()
                    .map(|&x| x as f32)
                    .collect::<Vec<f32>>()
                    .to_sql(ty, out),
                _ => v.to_sql(ty, out),
            },
            Arg::Texts(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

fn pg_args<'a, 'b>(args: &'b [Arg<'a>]) -> Vec<PgArg<'a, 'b>> {
    args.iter().map(PgArg).collect()
}

fn pg_row(row: &postgres::Row) -> Result<Row, SqlError> {
    use postgres::types::Type;
    let mut values = Vec::with_capacity(row.len());
    for (i, col) in row.columns().iter().enumerate() {
        let ty = col.type_();
        let v = match *ty {
            Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map(Value::Int),
            Type::INT4 => row
                .try_get::<_, Option<i32>>(i)?
                .map(|v| Value::Int(v.into())),
            Type::INT2 => row
                .try_get::<_, Option<i16>>(i)?
                .map(|v| Value::Int(v.into())),
            Type::BOOL => row
                .try_get::<_, Option<bool>>(i)?
                .map(|v| Value::Int(v.into())),
            Type::FLOAT8 => row.try_get::<_, Option<f64>>(i)?.map(Value::Real),
            Type::FLOAT4 => row
                .try_get::<_, Option<f32>>(i)?
                .map(|v| Value::Real(v.into())),
            Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(i)?.map(Value::Blob),
            _ if ty.name() == "vector" => row
                .try_get::<_, Option<pgvector::Vector>>(i)?
                .map(|v| Value::Vector(v.to_vec())),
            _ => row.try_get::<_, Option<String>>(i)?.map(Value::Text),
        };
        values.push(v.unwrap_or(Value::Null));
    }
    Ok(Row(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_hints_are_translated_for_postgres() {
        assert_eq!(
            to_postgres(
                "SELECT name FROM symbols INDEXED BY symbols_by_file WHERE a = ?1 AND b IN (?2,?10)"
            ),
            "SELECT name FROM symbols WHERE a = $1 AND b IN ($2,$10)"
        );
        assert_eq!(
            to_postgres("SELECT 'Is it?' IS NULL"),
            "SELECT 'Is it?' IS NULL"
        );
    }

    #[test]
    fn urls_are_named_without_their_password() {
        assert_eq!(
            redact("postgres://lore:secret@db.internal:5432/lore?sslmode=require"),
            "postgres://lore@db.internal:5432/lore"
        );
        assert_eq!(redact("postgres://db/lore"), "postgres://db/lore");
        assert_eq!(redact("host=db user=lore"), "postgres");
    }
}
