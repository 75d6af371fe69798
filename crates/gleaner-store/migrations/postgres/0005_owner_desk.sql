-- gleaner store, PostgreSQL schema version 5: the owners' desk and the operator
-- dashboard (see the SQLite migration 0007 for the meaning of each column).

CREATE TABLE owner_submissions (
    reference  TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    scope      TEXT NOT NULL,
    detail     TEXT NOT NULL,
    contact    TEXT,
    status     TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL
);
CREATE INDEX owner_submissions_created ON owner_submissions (created_ms);

CREATE TABLE server_secrets (
    name  TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);

CREATE TABLE source_controls (
    source           TEXT PRIMARY KEY,
    paused           BOOLEAN NOT NULL DEFAULT false,
    run_requested_ms BIGINT,
    updated_ms       BIGINT NOT NULL
);
