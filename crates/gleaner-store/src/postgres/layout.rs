//! Where a PostgreSQL store keeps its tables, and the migrations that build them
//! (issue 17, "copies"): a live and a staging deployment on one database keep their own
//! events in a schema each (the *copy*), and share every site's budget through a
//! *politeness namespace*, another schema holding the politeness tables (budgets, in
//! flight, workers, site leases, the owners' registry, the audit log, robots.txt and
//! rights files). Every connection's `search_path` is `copy, namespace`, so each
//! statement finds the copy's own tables first and the shared ones in the namespace;
//! no query names a schema.
//!
//! Each schema records its role (`schema_layout`) and the migrations applied to it
//! (`schema_migrations`, a set, not a maximum). A namespace is a whole store (role `all`,
//! like the default `public`): a live deployment's own schema can be the namespace of a
//! staging copy unchanged, and a namespace first created by a copy can later be opened as
//! a live deployment's whole store, whichever starts first. A copy (role `copy`) holds
//! only its own tables: migrations 1–7 predate copies and create both kinds, so a fresh
//! copy runs them and then drops the politeness tables; later migrations say which kind
//! they touch and run only where it lives.

use std::collections::BTreeSet;

use tokio_postgres::Transaction;

use crate::error::StoreError;

/// Which schemas a PostgreSQL store uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgSchemas {
    /// This copy's own tables (events, queue, validators, sources, …).
    pub copy: String,
    /// The politeness namespace: budgets, in-flight, workers, registry, audit log,
    /// shared by every copy that names it.
    pub politeness: String,
}

impl Default for PgSchemas {
    /// One whole store in `public`.
    fn default() -> PgSchemas {
        PgSchemas { copy: "public".to_owned(), politeness: "public".to_owned() }
    }
}

impl PgSchemas {
    /// Is this a copy sharing another schema's politeness tables?
    pub fn is_split(&self) -> bool {
        self.copy != self.politeness
    }

    /// The connection option setting the search path (names are checked identifiers).
    pub(crate) fn search_path_option(&self) -> String {
        if self.is_split() {
            format!("-c search_path={},{}", self.copy, self.politeness)
        } else {
            format!("-c search_path={}", self.copy)
        }
    }

    /// Checks both names are plain lower-case SQL identifiers (they are spliced into
    /// statements and connection options).
    pub(crate) fn check(&self) -> Result<(), StoreError> {
        for name in [&self.copy, &self.politeness] {
            if !is_identifier(name) {
                return Err(StoreError::BadSchema { name: name.clone() });
            }
        }
        Ok(())
    }
}

/// A lower-case SQL identifier PostgreSQL accepts unquoted, not a system schema.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() <= 63
        && !name.starts_with("pg_")
        && name != "information_schema"
}

/// What a migration touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Both kinds of table (migrations from before copies existed).
    Mixed,
    /// Only politeness tables: runs in whole stores (every namespace is one), not in
    /// copies.
    Politeness,
    /// Only a copy's own tables: runs in copies and whole stores (the next migration
    /// of events, queue or validators).
    Copy,
}

/// One schema migration.
pub(crate) struct Migration {
    pub(crate) version: i64,
    pub(crate) kind: Kind,
    pub(crate) sql: &'static str,
}

/// Migration `$version` of `$kind` from `migrations/postgres/$file`.
macro_rules! migration {
    ($version:literal, $kind:expr, $file:literal) => {
        Migration {
            version: $version,
            kind: $kind,
            sql: include_str!(concat!("../../migrations/postgres/", $file)),
        }
    };
}

/// Schema migrations, applied in order; each schema's `schema_migrations` records which.
pub(crate) const MIGRATIONS: &[Migration] = &[
    migration!(1, Kind::Mixed, "0001_init.sql"),
    migration!(2, Kind::Mixed, "0002_frontier.sql"),
    migration!(3, Kind::Mixed, "0003_site_leases.sql"),
    migration!(4, Kind::Mixed, "0004_source_failures.sql"),
    migration!(5, Kind::Mixed, "0005_owner_desk.sql"),
    migration!(6, Kind::Mixed, "0006_relay.sql"),
    migration!(7, Kind::Mixed, "0007_llm.sql"),
    migration!(8, Kind::Politeness, "0008_copies.sql"),
    migration!(9, Kind::Politeness, "0009_daily_counts.sql"),
    migration!(10, Kind::Politeness, "0010_audit_outcome.sql"),
    migration!(11, Kind::Copy, "0011_event_merge.sql"),
    migration!(12, Kind::Politeness, "0012_owner_lapses.sql"),
    migration!(13, Kind::Copy, "0013_kept_requests.sql"),
];

/// The tables of the politeness namespace; every other table belongs to a copy.
pub(crate) const POLITENESS_TABLES: &[&str] = &[
    "meta",
    "site_state",
    "global_budget",
    "workers",
    "site_in_flight",
    "site_leases",
    "owner_requests",
    "removal_requests",
    "sample_exclusions",
    "audit_log",
    "archive",
    "site_rights",
    "relay_takedowns",
    "copies",
    "daily_counts",
];

/// Functions of the mixed migrations that belong with the politeness tables (dropped
/// from a copy with them).
const POLITENESS_ROUTINES: &[&str] = &["FUNCTION gleaner_registry_changed()"];

/// What a schema holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A whole store: a copy's tables and the politeness tables, which other copies
    /// may share (it is then their namespace).
    All,
    /// Only a copy's own tables; its politeness tables are its namespace's.
    Copy,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::All => "all",
            Role::Copy => "copy",
        }
    }

    fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "all" => Role::All,
            "copy" => Role::Copy,
            _ => return None,
        })
    }

    fn runs(self, kind: Kind) -> bool {
        match (self, kind) {
            (Role::All, _) | (Role::Copy, Kind::Mixed | Kind::Copy) => true,
            (Role::Copy, Kind::Politeness) => false,
        }
    }

    /// The migrations a schema of this role must carry.
    pub(crate) fn expected(self) -> BTreeSet<i64> {
        MIGRATIONS.iter().filter(|m| self.runs(m.kind)).map(|m| m.version).collect()
    }
}

/// Migrates every schema of `schemas` (inside the caller's transaction, which holds the
/// migration lock) and registers the copy in its namespace.
pub(crate) async fn migrate(
    tx: &Transaction<'_>,
    location: &str,
    schemas: &PgSchemas,
) -> Result<(), StoreError> {
    if schemas.is_split() {
        migrate_schema(tx, location, &schemas.politeness, Role::All).await?;
        migrate_schema(tx, location, &schemas.copy, Role::Copy).await?;
    } else {
        migrate_schema(tx, location, &schemas.copy, Role::All).await?;
    }
    let open = |source| StoreError::PostgresConnect { location: location.to_owned(), source };
    tx.batch_execute(&format!("SET LOCAL search_path TO {}", search_list(schemas)))
        .await
        .map_err(open)?;
    tx.execute(
        "INSERT INTO copies (schema, first_open) VALUES ($1, now())
         ON CONFLICT (schema) DO UPDATE SET last_open = now()",
        &[&schemas.copy],
    )
    .await
    .map_err(open)?;
    Ok(())
}

/// `copy, namespace` (or the one schema) for `SET search_path`.
pub(crate) fn search_list(schemas: &PgSchemas) -> String {
    if schemas.is_split() {
        format!("{}, {}", schemas.copy, schemas.politeness)
    } else {
        schemas.copy.clone()
    }
}

async fn migrate_schema(
    tx: &Transaction<'_>,
    location: &str,
    schema: &str,
    wanted: Role,
) -> Result<(), StoreError> {
    let open = |source| StoreError::PostgresConnect { location: location.to_owned(), source };
    tx.batch_execute(&format!(
        "CREATE SCHEMA IF NOT EXISTS {schema};
         SET LOCAL search_path TO {schema};
         CREATE TABLE IF NOT EXISTS schema_migrations (
             version BIGINT PRIMARY KEY,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
         );
         CREATE TABLE IF NOT EXISTS schema_layout (role TEXT NOT NULL);"
    ))
    .await
    .map_err(open)?;
    let applied: BTreeSet<i64> = tx
        .query("SELECT version FROM schema_migrations", &[])
        .await
        .map_err(open)?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let recorded: Option<String> =
        tx.query_opt("SELECT role FROM schema_layout", &[]).await.map_err(open)?.map(|r| r.get(0));
    let role = match recorded.as_deref().map(|r| (r, Role::parse(r))) {
        Some((_, Some(role))) => role,
        Some((other, None)) => {
            return Err(StoreError::SchemaRole {
                location: location.to_owned(),
                schema: schema.to_owned(),
                found: other.to_owned(),
                wanted: wanted.as_str(),
            });
        }
        None => {
            // A schema migrated before roles were recorded holds a whole store.
            let role = if applied.is_empty() { wanted } else { Role::All };
            tx.execute("INSERT INTO schema_layout (role) VALUES ($1)", &[&role.as_str()])
                .await
                .map_err(open)?;
            role
        }
    };
    if role != wanted {
        return Err(StoreError::SchemaRole {
            location: location.to_owned(),
            schema: schema.to_owned(),
            found: role.as_str().to_owned(),
            wanted: wanted.as_str(),
        });
    }
    let known: BTreeSet<i64> = MIGRATIONS.iter().map(|m| m.version).collect();
    if let Some(&found) = applied.iter().find(|v| !known.contains(v)) {
        return Err(StoreError::TooNewPostgres {
            location: location.to_owned(),
            found,
            known: known.last().copied().unwrap_or(0),
        });
    }
    let mut ran_mixed = false;
    for m in MIGRATIONS.iter().filter(|m| role.runs(m.kind) && !applied.contains(&m.version)) {
        let err = |source| StoreError::PostgresMigrate {
            location: location.to_owned(),
            version: m.version,
            source,
        };
        tx.batch_execute(m.sql).await.map_err(err)?;
        tx.execute("INSERT INTO schema_migrations (version) VALUES ($1)", &[&m.version])
            .await
            .map_err(err)?;
        ran_mixed |= m.kind == Kind::Mixed;
    }
    if ran_mixed && role == Role::Copy {
        // The mixed migrations only ever run on a fresh schema: drop what a copy does
        // not keep.
        drop_politeness_tables(tx, location, schema).await?;
    }
    Ok(())
}

/// Drops the politeness tables and their functions from a fresh copy.
async fn drop_politeness_tables(
    tx: &Transaction<'_>,
    location: &str,
    schema: &str,
) -> Result<(), StoreError> {
    let open = |source| StoreError::PostgresConnect { location: location.to_owned(), source };
    let tables: Vec<String> = tx
        .query("SELECT tablename::text FROM pg_tables WHERE schemaname = $1", &[&schema])
        .await
        .map_err(open)?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut statements = String::new();
    for table in tables.iter().filter(|t| POLITENESS_TABLES.contains(&t.as_str())) {
        statements.push_str(&format!("DROP TABLE IF EXISTS {schema}.{table} CASCADE;\n"));
    }
    for routine in POLITENESS_ROUTINES {
        let (what, name) = routine.split_once(' ').unwrap_or(("", routine));
        statements.push_str(&format!("DROP {what} IF EXISTS {schema}.{name} CASCADE;\n"));
    }
    tx.batch_execute(&statements).await.map_err(open)
}

/// The copies registered in the namespace the connection's search path names whose
/// schema still exists.
pub(crate) async fn copies(tx: &Transaction<'_>) -> Result<Vec<String>, tokio_postgres::Error> {
    let rows = tx
        .query(
            "SELECT c.schema FROM copies c
             WHERE EXISTS (SELECT 1 FROM pg_namespace n WHERE n.nspname = c.schema)
             ORDER BY c.schema",
            &[],
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_plain_lower_case_names() {
        for ok in ["public", "staging", "gleaner_live", "_x1"] {
            assert!(is_identifier(ok), "{ok}");
        }
        for bad in ["", "Live", "1x", "a-b", "a;drop", "pg_catalog", "information_schema", "a b"] {
            assert!(!is_identifier(bad), "{bad}");
        }
        assert!(!is_identifier(&"x".repeat(64)));
    }

    #[test]
    fn a_whole_store_runs_every_migration_and_a_copy_none_of_the_namespaces() {
        let (all, copy) = (Role::All.expected(), Role::Copy.expected());
        assert_eq!(all, MIGRATIONS.iter().map(|m| m.version).collect());
        assert!(copy.contains(&1) && copy.contains(&7), "the mixed ones");
        assert!(!copy.contains(&8) && !copy.contains(&9), "namespace tables only");
    }
}
