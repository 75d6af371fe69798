-- gleaner store, SQLite schema version 7: the owners' desk and the operator dashboard.

-- What site owners asked through the public forms, with the receipt reference they were
-- given (an opt-out's reference is also its `owner_requests` reference). `status`:
-- `applied` (in the registry at once), `pending` (a removal waiting for the operator),
-- `verified` / `removed` (a removal carried out on proof of control), `rejected`.
CREATE TABLE owner_submissions (
    reference  TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    scope      TEXT NOT NULL,
    detail     TEXT NOT NULL,
    contact    TEXT,
    status     TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX owner_submissions_created ON owner_submissions (created_ms);

-- Secrets the server keeps across restarts (the key of CSRF tokens and proof-of-control
-- tokens), created once.
CREATE TABLE server_secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) STRICT;

-- The operator's controls per source: paused, and "run now" requests the scheduler
-- takes (the run still goes through the gate).
CREATE TABLE source_controls (
    source           TEXT PRIMARY KEY,
    paused           INTEGER NOT NULL DEFAULT 0,
    run_requested_ms INTEGER,
    updated_ms       INTEGER NOT NULL
) STRICT;
