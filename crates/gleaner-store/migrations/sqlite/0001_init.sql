-- gleaner store, SQLite schema version 1.
-- Times are integers since the Unix epoch (UTC): `_ms` milliseconds, `_us` microseconds;
-- budget times inside `site_state` JSON are nanoseconds (`_ns`), so spacing is exact.
-- `host` columns hold the lower-case punycode host a row came from, for removal by site.

-- Small counters shared by every process: `registry_version` moves on every change to
-- `owner_requests`, so a process can validate its cached registry with one read.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) STRICT;
INSERT INTO meta (key, value) VALUES ('registry_version', 0);

-- Configured sources (a listing, sitemap, feed, calendar, API).
CREATE TABLE sources (
    name       TEXT PRIMARY KEY,
    url        TEXT NOT NULL,
    host       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    keep       TEXT NOT NULL CHECK (keep IN ('facts', 'full')),
    updated_ms INTEGER NOT NULL
) STRICT;

-- The gate's state per site (budget key: the origin). `budget` and `robots` are JSON
-- written by the store's codec; `in_flight` is separate so a crawler can reset it at
-- start-up in one statement; `robots_body` keeps the bytes the rules are re-parsed from.
CREATE TABLE site_state (
    site           TEXT PRIMARY KEY,
    budget         TEXT NOT NULL,
    in_flight      TEXT NOT NULL DEFAULT '{}',
    robots         TEXT,
    robots_body    BLOB,
    failure_streak INTEGER NOT NULL DEFAULT 0,
    updated_us     INTEGER NOT NULL
) STRICT;

-- The budget shared by all sites (the global daily cap): a single row.
CREATE TABLE global_budget (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    day      TEXT,
    requests INTEGER NOT NULL
) STRICT;
INSERT INTO global_budget (id, day, requests) VALUES (1, NULL, 0);

-- Opt-outs and owner overrides (slow-down, pause, facts only), checked before every request.
CREATE TABLE owner_requests (
    reference  TEXT PRIMARY KEY,
    scope_kind TEXT NOT NULL CHECK (scope_kind IN ('domain', 'url-prefix')),
    scope      TEXT NOT NULL,
    request    TEXT NOT NULL CHECK (request IN ('opt-out', 'slow-down', 'pause', 'facts-only')),
    factor     INTEGER,
    until_ms   INTEGER,
    note       TEXT,
    created_ms INTEGER NOT NULL
) STRICT;
CREATE TRIGGER owner_requests_insert AFTER INSERT ON owner_requests BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'registry_version';
END;
CREATE TRIGGER owner_requests_update AFTER UPDATE ON owner_requests BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'registry_version';
END;
CREATE TRIGGER owner_requests_delete AFTER DELETE ON owner_requests BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'registry_version';
END;

-- Requests to delete a site's content, with their completion time.
CREATE TABLE removal_requests (
    id           INTEGER PRIMARY KEY,
    scope        TEXT NOT NULL,
    reference    TEXT NOT NULL,
    requested_ms INTEGER NOT NULL,
    completed_ms INTEGER,
    removed      TEXT
) STRICT;

-- Events: the facts as JSON (`facts`), with the columns queries need beside it.
-- `description` and `image_url` are only ever set for sources with keep = "full".
CREATE TABLE events (
    id              INTEGER PRIMARY KEY,
    identity        TEXT NOT NULL UNIQUE,
    host            TEXT NOT NULL,
    url_host        TEXT,
    source          TEXT,
    url             TEXT,
    title           TEXT,
    category        TEXT NOT NULL,
    status          TEXT NOT NULL,
    start_ms        INTEGER,
    end_ms          INTEGER,
    last_day_end_ms INTEGER NOT NULL,
    facts           TEXT NOT NULL,
    description     TEXT,
    image_url       TEXT,
    first_seen_ms   INTEGER NOT NULL,
    last_checked_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX events_start ON events (start_ms);
CREATE INDEX events_last_day_end ON events (last_day_end_ms);
CREATE INDEX events_host ON events (host);

-- Every status an event has had, oldest first.
CREATE TABLE event_status (
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    status   TEXT NOT NULL,
    stated   INTEGER NOT NULL,
    at_ms    INTEGER NOT NULL
) STRICT;
CREATE INDEX event_status_event ON event_status (event_id);

-- Which source and which fetches produced an event ('' when no configured source).
CREATE TABLE event_provenance (
    event_id   INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    source     TEXT NOT NULL DEFAULT '',
    fetch_url  TEXT NOT NULL,
    fetched_ms INTEGER NOT NULL,
    UNIQUE (event_id, source, fetch_url)
) STRICT;

-- Translations live and die with their event.
CREATE TABLE translations (
    event_id    INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    lang        TEXT NOT NULL,
    title       TEXT,
    description TEXT,
    created_ms  INTEGER NOT NULL,
    PRIMARY KEY (event_id, lang)
) STRICT;

-- News items (local-news aggregators); `summary` only for keep = "full".
CREATE TABLE news_items (
    id            INTEGER PRIMARY KEY,
    url           TEXT NOT NULL UNIQUE,
    host          TEXT NOT NULL,
    source        TEXT,
    title         TEXT,
    published_ms  INTEGER,
    summary       TEXT,
    first_seen_ms INTEGER NOT NULL
) STRICT;

-- Validators for conditional requests.
CREATE TABLE validators (
    url           TEXT PRIMARY KEY,
    host          TEXT NOT NULL,
    etag          TEXT,
    last_modified TEXT,
    updated_ms    INTEGER NOT NULL
) STRICT;

-- The audit log: one row per request sent or refused. Kept on removal: it records
-- gleaner's own behaviour.
CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY,
    time_ms     INTEGER NOT NULL,
    site        TEXT NOT NULL,
    host        TEXT NOT NULL,
    url         TEXT NOT NULL,
    purpose     TEXT NOT NULL,
    source      TEXT,
    status      INTEGER,
    error       TEXT,
    bytes       INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    reason      TEXT NOT NULL
) STRICT;
CREATE INDEX audit_log_host_time ON audit_log (host, time_ms);
CREATE INDEX audit_log_time ON audit_log (time_ms);

-- robots.txt and terms pages, one row per distinct version: "a document, not a memory".
-- Kept on removal, like the audit log.
CREATE TABLE archive (
    id            INTEGER PRIMARY KEY,
    site          TEXT NOT NULL,
    host          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('robots', 'terms')),
    url           TEXT NOT NULL,
    first_seen_ms INTEGER NOT NULL,
    last_seen_ms  INTEGER NOT NULL,
    body          BLOB NOT NULL
) STRICT;
CREATE INDEX archive_site_kind ON archive (site, kind, first_seen_ms);

-- Fetched bodies kept for processing (retention: `retention.bodies`; 0 = deleted once
-- extracted).
CREATE TABLE bodies (
    id           INTEGER PRIMARY KEY,
    url          TEXT NOT NULL,
    host         TEXT NOT NULL,
    content_type TEXT,
    fetched_ms   INTEGER NOT NULL,
    body         BLOB NOT NULL
) STRICT;
CREATE INDEX bodies_fetched ON bodies (fetched_ms);

-- Parser test samples (off unless the profile enables them) and the hosts never sampled.
CREATE TABLE samples (
    id         INTEGER PRIMARY KEY,
    url        TEXT NOT NULL,
    host       TEXT NOT NULL,
    fetched_ms INTEGER NOT NULL,
    body       BLOB NOT NULL
) STRICT;
CREATE TABLE sample_exclusions (
    domain     TEXT PRIMARY KEY,
    created_ms INTEGER NOT NULL
) STRICT;
