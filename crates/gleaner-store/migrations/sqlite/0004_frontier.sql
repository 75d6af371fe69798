-- gleaner store, SQLite schema version 4: the frontier, due work claimed under a lease
-- with a fencing token (SPEC §7). One crawler per SQLite file, so leases here guard
-- against a restarted crawler, not against a concurrent one.
CREATE TABLE frontier (
    id          INTEGER PRIMARY KEY,
    site        TEXT NOT NULL,
    host        TEXT NOT NULL,
    url         TEXT NOT NULL,
    purpose     TEXT NOT NULL,
    source      TEXT,
    due_ms      INTEGER NOT NULL,
    lease_owner TEXT,
    lease_token INTEGER,
    lease_until_ms INTEGER,
    done_ms     INTEGER
) STRICT;
CREATE UNIQUE INDEX frontier_pending ON frontier (url, purpose) WHERE done_ms IS NULL;
CREATE INDEX frontier_due ON frontier (due_ms) WHERE done_ms IS NULL;
INSERT INTO meta (key, value) VALUES ('work_fence', 0);
