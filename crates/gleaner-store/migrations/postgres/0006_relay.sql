-- Issue 16: the image relay and site rights files.

-- Images the relay may serve, by opaque id (SPEC §5): the id is a keyed hash made when
-- the image is first registered, never derived from a URL parameter. `allowed` is
-- re-decided by the link check from the source's image terms and the site's signals.
-- Deleted on removal.
CREATE TABLE relay_images (
    id         TEXT PRIMARY KEY,
    url        TEXT NOT NULL UNIQUE,
    site       TEXT NOT NULL,
    host       TEXT NOT NULL,
    source     TEXT,
    allowed    BOOLEAN NOT NULL,
    reason     TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    checked_ms BIGINT NOT NULL
);
CREATE INDEX relay_images_host ON relay_images (host);

-- Takedowns: image URLs never relayed again (`gleaner takedown`, the dashboard, removal).
CREATE TABLE relay_takedowns (
    url    TEXT PRIMARY KEY,
    host   TEXT NOT NULL,
    reason TEXT NOT NULL,
    at_ms  BIGINT NOT NULL
);

-- A site's rights files (TDMRep, ai.txt), read through the gate, trusted until
-- `valid_until_ms`; the bytes are NULL when the file was missing. Their versions are
-- also kept in `archive`.
CREATE TABLE site_rights (
    site           TEXT PRIMARY KEY,
    read_ms        BIGINT NOT NULL,
    valid_until_ms BIGINT NOT NULL,
    tdmrep         BYTEA,
    ai_txt         BYTEA
);
