-- Failed visits in a row per source (see the SQLite migration of the same name).
ALTER TABLE source_runs ADD COLUMN failures BIGINT NOT NULL DEFAULT 0;
