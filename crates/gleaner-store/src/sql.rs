//! One statement for both backends: the values that go in, the rows that come out, and
//! the few words in which SQLite and PostgreSQL differ.
//!
//! Statements that mean the same on both databases are written once, in the common
//! subset both accept (`ON CONFLICT … DO UPDATE/NOTHING`, `RETURNING`, `excluded.`,
//! `TRUE`/`FALSE`), with PostgreSQL's `$N` placeholders, which [`Dialect::Sqlite`]
//! turns into `?N` before preparing. Parameters are [`Value`]s, bound by each driver's
//! own `ToSql` (a boolean is an integer on SQLite, a `boolean` on PostgreSQL), and rows
//! come back as [`Row`]s of [`Value`]s, read with [`Row::get`], which fails (never
//! panics) on a value of the wrong type.
//!
//! Why a small layer of our own and not `sea-query` with its rusqlite and postgres
//! binders: the statements are already plain SQL that both databases accept, and stay
//! readable as SQL; the differences are a handful of words (placeholders, `greatest`
//! against `max`, the host-suffix test), which [`Dialect`] covers in a few lines. A
//! query builder would rewrite every statement as an AST, add three crates whose
//! binders pin our driver versions, and still leave the hand-written statements where
//! the semantics differ (`FOR UPDATE SKIP LOCKED`, leases on the database clock,
//! `LISTEN`, `secure_delete`, checkpoints), which stay in `sqlite` and `postgres`.
//!
//! [`Db`] is what a backend offers the shared code: one statement read or written, or a
//! transaction of several ([`Tx`]); the shared operations (`content`, `relay`, `llm`, …)
//! are written once on top of it.

use std::error::Error;

use gleaner_policy::state::BoxFuture;

use crate::error::StoreError;

/// Which SQL a backend speaks, where the two differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// SQLite: `?N` placeholders, `max(a, b)`, negative `substr` offsets.
    Sqlite,
    /// PostgreSQL: `$N` placeholders, `greatest(a, b)`, `right`.
    Postgres,
}

impl Dialect {
    /// `sql` (written with `$N` placeholders) as this dialect writes it.
    pub(crate) fn render(self, sql: &str) -> std::borrow::Cow<'_, str> {
        match self {
            Dialect::Postgres => sql.into(),
            // Byte by byte (issue 27: every statement is rendered, and a walk by `char`
            // pushing each was 1 % of a store-backed pass): `$`, `'` and digits are ASCII,
            // so replacing one byte keeps the text UTF-8.
            Dialect::Sqlite => {
                if !sql.contains('$') {
                    return sql.into();
                }
                let mut out = sql.as_bytes().to_vec();
                let mut quoted = false;
                for i in 0..out.len() {
                    match out[i] {
                        b'\'' => quoted = !quoted,
                        b'$' if !quoted && out.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                            out[i] = b'?';
                        }
                        _ => {}
                    }
                }
                String::from_utf8(out).map_or_else(|_| sql.to_owned().into(), Into::into)
            }
        }
    }

    /// The column that orders rows of a table without a key of its own by insertion.
    pub(crate) fn insertion_order(self) -> &'static str {
        match self {
            Dialect::Sqlite => "rowid",
            Dialect::Postgres => "id",
        }
    }

    /// The column holding the end of a claim on a work item: milliseconds on the one
    /// crawling process's clock (SQLite), a timestamp on the database clock (PostgreSQL).
    pub(crate) fn lease_until(self) -> &'static str {
        match self {
            Dialect::Sqlite => "lease_until_ms",
            Dialect::Postgres => "lease_until",
        }
    }

    /// The larger of two numbers.
    pub(crate) fn greatest(self) -> &'static str {
        match self {
            Dialect::Sqlite => "max",
            Dialect::Postgres => "greatest",
        }
    }

    /// Parameter `$n` as text (PostgreSQL cannot infer the type of `length($n)`).
    pub(crate) fn text(self, n: usize) -> String {
        match self {
            Dialect::Sqlite => format!("${n}"),
            Dialect::Postgres => format!("${n}::text"),
        }
    }

    /// The condition "the host `host` is the domain `domain` or one of its subdomains"
    /// (two SQL expressions).
    pub(crate) fn covered(self, host: &str, domain: &str) -> String {
        let tail = match self {
            Dialect::Sqlite => format!("substr({host}, -length({domain}) - 1)"),
            Dialect::Postgres => format!("right({host}, length({domain}) + 1)"),
        };
        format!(
            "({host} = {domain} OR (length({host}) > length({domain}) AND {tail} = '.' || {domain}))"
        )
    }

    /// The condition "column `col` is the host `$n` or one of its subdomains".
    pub(crate) fn host_covered(self, col: &str, n: usize) -> String {
        self.covered(col, &self.text(n))
    }

    /// The condition for a scope over a host column and a URL column, and its parameter.
    pub(crate) fn scope_condition(
        self,
        scope: &gleaner_policy::registry::Scope,
        host_col: &str,
        url_col: &str,
        n: usize,
    ) -> (String, String) {
        use gleaner_policy::registry::Scope;
        match (scope, self) {
            (Scope::Domain(domain), _) => (self.host_covered(host_col, n), domain.clone()),
            (Scope::UrlPrefix(prefix), Dialect::Sqlite) => {
                (format!("substr({url_col}, 1, length(${n})) = ${n}"), prefix.clone())
            }
            (Scope::UrlPrefix(prefix), Dialect::Postgres) => {
                (format!("starts_with({url_col}, ${n}::text)"), prefix.clone())
            }
        }
    }
}

/// A parameter or a column value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// SQL `NULL`.
    Null,
    /// An integer (`INTEGER`, `bigint`).
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes (`BLOB`, `bytea`).
    Blob(Vec<u8>),
    /// A boolean (an integer 0 or 1 on SQLite).
    Bool(bool),
}

macro_rules! value_from {
    ($($t:ty => $variant:ident $(via $conv:expr)?),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::$variant($($conv)?(v))
            }
        }
    )*};
}

value_from! {
    i64 => Int,
    i32 => Int via i64::from,
    u32 => Int via i64::from,
    f64 => Real,
    bool => Bool,
    String => Text,
    &str => Text via str::to_owned,
    &String => Text via String::clone,
    Vec<u8> => Blob,
    &[u8] => Blob via <[u8]>::to_vec,
}

impl From<std::time::SystemTime> for Value {
    /// A timestamp as milliseconds since the epoch (how both backends store instants).
    fn from(t: std::time::SystemTime) -> Value {
        Value::Int(crate::codec::to_ms(t))
    }
}

impl<T: Clone + Into<Value>> From<&Option<T>> for Value {
    fn from(v: &Option<T>) -> Value {
        v.clone().into()
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// Parameters: `params![a, b, …]` with anything that becomes a [`Value`].
macro_rules! params {
    ($($v:expr),* $(,)?) => { vec![$($crate::sql::Value::from($v)),*] };
}
pub(crate) use params;

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::Integer(*v),
            Value::Real(v) => ValueRef::Real(*v),
            Value::Text(v) => ValueRef::Text(v.as_bytes()),
            Value::Blob(v) => ValueRef::Blob(v),
            Value::Bool(v) => ValueRef::Integer(i64::from(*v)),
        }))
    }
}

impl tokio_postgres::types::ToSql for Value {
    fn to_sql(
        &self,
        ty: &tokio_postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn Error + Sync + Send>> {
        use tokio_postgres::types::{IsNull, Type};
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) if *ty == Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
            Value::Int(v) if *ty == Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
            Value::Int(v) if *ty == Type::BOOL => (*v != 0).to_sql(ty, out),
            Value::Int(v) => v.to_sql(ty, out),
            Value::Real(v) => v.to_sql(ty, out),
            Value::Text(v) => v.to_sql(ty, out),
            Value::Blob(v) => v.to_sql(ty, out),
            Value::Bool(v) if *ty == Type::INT8 => i64::from(*v).to_sql(ty, out),
            Value::Bool(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(_: &tokio_postgres::types::Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

/// One row of a result, its columns in `SELECT` order.
#[derive(Debug, Clone)]
pub(crate) struct Row(pub(crate) Vec<Value>);

impl Row {
    /// Column `i` as a `T`; an error naming the column when it holds something else.
    pub(crate) fn get<T: FromValue>(&self, i: usize) -> Result<T, StoreError> {
        let value = self.0.get(i).unwrap_or(&Value::Null);
        T::from_value(value).ok_or_else(|| StoreError::Corrupt {
            what: format!("column {i} of a result"),
            detail: format!("{value:?} is not {}", std::any::type_name::<T>()),
        })
    }

    /// A row from SQLite.
    pub(crate) fn from_sqlite(row: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
        use rusqlite::types::ValueRef;
        let n = row.as_ref().column_count();
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            values.push(match row.get_ref(i)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(v) => Value::Int(v),
                ValueRef::Real(v) => Value::Real(v),
                ValueRef::Text(v) => Value::Text(String::from_utf8_lossy(v).into_owned()),
                ValueRef::Blob(v) => Value::Blob(v.to_vec()),
            });
        }
        Ok(Row(values))
    }

    /// A row from PostgreSQL (the column types the migrations use).
    pub(crate) fn from_postgres(row: &tokio_postgres::Row) -> Result<Row, tokio_postgres::Error> {
        use tokio_postgres::types::Type;
        let mut values = Vec::with_capacity(row.len());
        for (i, column) in row.columns().iter().enumerate() {
            let ty = column.type_();
            let value = if *ty == Type::INT8 {
                row.try_get::<_, Option<i64>>(i)?.map(Value::Int)
            } else if *ty == Type::INT4 {
                row.try_get::<_, Option<i32>>(i)?.map(|v| Value::Int(v.into()))
            } else if *ty == Type::INT2 {
                row.try_get::<_, Option<i16>>(i)?.map(|v| Value::Int(v.into()))
            } else if *ty == Type::BOOL {
                row.try_get::<_, Option<bool>>(i)?.map(Value::Bool)
            } else if *ty == Type::FLOAT8 {
                row.try_get::<_, Option<f64>>(i)?.map(Value::Real)
            } else if *ty == Type::BYTEA {
                row.try_get::<_, Option<Vec<u8>>>(i)?.map(Value::Blob)
            } else {
                row.try_get::<_, Option<String>>(i)?.map(Value::Text)
            };
            values.push(value.unwrap_or(Value::Null));
        }
        Ok(Row(values))
    }
}

/// A Rust value read from a column.
pub(crate) trait FromValue: Sized {
    /// `None` when the column holds another type.
    fn from_value(v: &Value) -> Option<Self>;
}

impl FromValue for i64 {
    fn from_value(v: &Value) -> Option<i64> {
        match v {
            Value::Int(v) => Some(*v),
            Value::Bool(v) => Some(i64::from(*v)),
            _ => None,
        }
    }
}

impl FromValue for u32 {
    fn from_value(v: &Value) -> Option<u32> {
        i64::from_value(v).and_then(|v| u32::try_from(v).ok())
    }
}

impl FromValue for u64 {
    fn from_value(v: &Value) -> Option<u64> {
        i64::from_value(v).and_then(|v| u64::try_from(v).ok())
    }
}

impl FromValue for bool {
    fn from_value(v: &Value) -> Option<bool> {
        match v {
            Value::Bool(v) => Some(*v),
            Value::Int(v) => Some(*v != 0),
            _ => None,
        }
    }
}

impl FromValue for f64 {
    fn from_value(v: &Value) -> Option<f64> {
        match v {
            Value::Real(v) => Some(*v),
            Value::Int(v) => Some(*v as f64),
            _ => None,
        }
    }
}

impl FromValue for String {
    fn from_value(v: &Value) -> Option<String> {
        match v {
            Value::Text(v) => Some(v.clone()),
            _ => None,
        }
    }
}

impl FromValue for Vec<u8> {
    fn from_value(v: &Value) -> Option<Vec<u8>> {
        match v {
            Value::Blob(v) => Some(v.clone()),
            _ => None,
        }
    }
}

impl FromValue for std::time::SystemTime {
    /// A timestamp stored as milliseconds since the epoch.
    fn from_value(v: &Value) -> Option<std::time::SystemTime> {
        i64::from_value(v).map(crate::codec::from_ms)
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> Option<Option<T>> {
        match v {
            Value::Null => Some(None),
            v => T::from_value(v).map(Some),
        }
    }
}

/// What a written statement did: the rows it changed, and those it returned.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Rows inserted, updated or deleted.
    pub(crate) changed: u64,
    /// Rows of a `RETURNING` clause.
    pub(crate) rows: Vec<Row>,
}

/// An open transaction: statements run one after the other, all committed or none.
pub(crate) trait Tx: Send {
    /// Which SQL this transaction speaks.
    fn dialect(&self) -> Dialect;

    /// Runs one statement (`$N` placeholders) and returns what it did.
    fn run<'a>(
        &'a mut self,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<Written, StoreError>>;
}

impl dyn Tx + '_ {
    /// Runs one statement and returns how many rows it changed.
    pub(crate) async fn exec(&mut self, sql: &str, params: Vec<Value>) -> Result<u64, StoreError> {
        Ok(self.run(sql, params).await?.changed)
    }

    /// Runs one query and returns its rows.
    pub(crate) async fn rows(
        &mut self,
        sql: &str,
        params: Vec<Value>,
    ) -> Result<Vec<Row>, StoreError> {
        Ok(self.run(sql, params).await?.rows)
    }

    /// Runs one query and returns its first row, if any.
    pub(crate) async fn row(
        &mut self,
        sql: &str,
        params: Vec<Value>,
    ) -> Result<Option<Row>, StoreError> {
        Ok(self.rows(sql, params).await?.into_iter().next())
    }
}

/// The body of a transaction: it borrows the transaction for as long as it runs.
pub(crate) type TxBody =
    Box<dyn for<'t> FnOnce(&'t mut dyn Tx) -> BoxFuture<'t, Result<(), StoreError>> + Send>;

/// What a backend offers the operations written once: single statements and
/// transactions, in its own dialect, with errors saying what was being done.
pub(crate) trait Db: Send + Sync {
    /// Which SQL this backend speaks.
    fn dialect(&self) -> Dialect;

    /// Runs one read-only query (`$N` placeholders); `doing` names it in errors.
    fn query<'a>(
        &'a self,
        sql: &'a str,
        params: Vec<Value>,
        doing: String,
    ) -> BoxFuture<'a, Result<Vec<Row>, StoreError>>;

    /// [`Db::query`] for a statement that reads a row or two by key (the registry's
    /// version before every request): SQLite runs it on the calling thread, since a
    /// hop to the blocking pool costs more than the read.
    fn point_query<'a>(
        &'a self,
        sql: &'a str,
        params: Vec<Value>,
        doing: String,
    ) -> BoxFuture<'a, Result<Vec<Row>, StoreError>>;

    /// Runs one write statement, atomic on its own; `doing` names it in errors. SQLite
    /// runs it in a transaction of its own on the writer; PostgreSQL sends it alone
    /// (autocommit: one round trip instead of three).
    fn write<'a>(
        &'a self,
        sql: &'a str,
        params: Vec<Value>,
        doing: String,
    ) -> BoxFuture<'a, Result<Written, StoreError>>;

    /// Runs `body` in one write transaction, committed when it returns `Ok`, rolled
    /// back otherwise; `doing` names it in errors.
    fn transaction(&self, doing: String, body: TxBody) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Runs `body`'s reads in one consistent snapshot (no writes); `doing` names it in
    /// errors.
    fn snapshot(&self, doing: String, body: TxBody) -> BoxFuture<'_, Result<(), StoreError>>;
}

impl dyn Db + '_ {
    /// Runs one query and returns its first row, if any.
    pub(crate) async fn row(
        &self,
        sql: &str,
        params: Vec<Value>,
        doing: String,
    ) -> Result<Option<Row>, StoreError> {
        Ok(self.query(sql, params, doing).await?.into_iter().next())
    }

    /// Runs one statement in its own transaction and returns how many rows it changed.
    pub(crate) async fn exec(
        &self,
        sql: &str,
        params: Vec<Value>,
        doing: String,
    ) -> Result<u64, StoreError> {
        Ok(self.write(sql, params, doing).await?.changed)
    }

    /// Runs `body` in one write transaction and returns what it returned.
    pub(crate) async fn tx<R: Send + 'static>(
        &self,
        doing: String,
        body: impl for<'t> FnOnce(&'t mut dyn Tx) -> BoxFuture<'t, Result<R, StoreError>>
        + Send
        + 'static,
    ) -> Result<R, StoreError> {
        self.body(false, doing, body).await
    }

    /// Runs `body`'s reads in one snapshot and returns what it returned.
    pub(crate) async fn read_tx<R: Send + 'static>(
        &self,
        doing: String,
        body: impl for<'t> FnOnce(&'t mut dyn Tx) -> BoxFuture<'t, Result<R, StoreError>>
        + Send
        + 'static,
    ) -> Result<R, StoreError> {
        self.body(true, doing, body).await
    }

    async fn body<R: Send + 'static>(
        &self,
        snapshot: bool,
        doing: String,
        body: impl for<'t> FnOnce(&'t mut dyn Tx) -> BoxFuture<'t, Result<R, StoreError>>
        + Send
        + 'static,
    ) -> Result<R, StoreError> {
        let slot = std::sync::Arc::new(std::sync::Mutex::new(None));
        let out = std::sync::Arc::clone(&slot);
        let what = doing.clone();
        let body: TxBody = Box::new(move |tx| {
            Box::pin(async move {
                let result = body(tx).await?;
                *out.lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
                Ok(())
            })
        });
        match snapshot {
            true => self.snapshot(doing, body).await?,
            false => self.transaction(doing, body).await?,
        }
        let result = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
        result.ok_or_else(|| StoreError::Worker(format!("no result while {what}")))
    }
}

/// The one value of a `RETURNING` row, or an error naming what returned nothing.
pub(crate) fn returned<T: FromValue>(written: Written, what: &str) -> Result<T, StoreError> {
    match written.rows.into_iter().next() {
        Some(row) => row.get(0),
        None => Err(StoreError::Worker(format!("no row returned for {what}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_placeholders_outside_quotes() {
        let sql = "SELECT '$1', a FROM t WHERE b = $1 AND c = $12";
        assert_eq!(Dialect::Sqlite.render(sql), "SELECT '$1', a FROM t WHERE b = ?1 AND c = ?12");
        assert_eq!(Dialect::Postgres.render(sql), sql);
    }

    #[test]
    fn sqlite_placeholders_beside_other_text() {
        let cases = [
            ("", ""),
            ("SELECT 1", "SELECT 1"),
            ("a = $1 AND é = '€ $2' || $3$", "a = ?1 AND é = '€ $2' || ?3$"),
            ("$1$2 '' $x $", "?1?2 '' $x $"),
            ("x = 'it''s $1' AND y = $4", "x = 'it''s $1' AND y = ?4"),
        ];
        for (sql, rendered) in cases {
            assert_eq!(Dialect::Sqlite.render(sql), rendered, "{sql}");
        }
    }
}
