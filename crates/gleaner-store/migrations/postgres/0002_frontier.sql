-- gleaner store, PostgreSQL schema version 2: the frontier, due work that workers claim
-- in short transactions (`UPDATE … FOR UPDATE SKIP LOCKED … RETURNING`) under a lease
-- on the database clock, with a fencing token from `work_fence` (SPEC §7).
CREATE SEQUENCE work_fence;
CREATE TABLE frontier (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    site        TEXT NOT NULL,
    host        TEXT NOT NULL,
    url         TEXT NOT NULL,
    purpose     TEXT NOT NULL,
    source      TEXT,
    due_ms      BIGINT NOT NULL,
    lease_owner TEXT,
    lease_token BIGINT,
    lease_until TIMESTAMPTZ,
    done_ms     BIGINT
);
CREATE UNIQUE INDEX frontier_pending ON frontier (url, purpose) WHERE done_ms IS NULL;
CREATE INDEX frontier_due ON frontier (due_ms) WHERE done_ms IS NULL;
