-- gleaner store, PostgreSQL schema version 1: the SQLite schema (migrations/sqlite,
-- versions 1 to 3) in PostgreSQL's dialect, plus what several workers sharing one
-- database need (`workers`, `site_in_flight`).
-- Times are integers since the Unix epoch (UTC), as in SQLite, so the store's codec
-- reads both backends alike: `_ms` milliseconds, `_us` microseconds; budget times inside
-- `site_state.budget` JSON are nanoseconds. Leases use the database clock (`now()`).
-- `host` columns hold the lower-case punycode host a row came from, for removal by site.

-- Small counters shared by every process: `registry_version` moves on every change to
-- `owner_requests`, so a process can validate its cached registry with one read.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('registry_version', 0);

CREATE TABLE sources (
    name       TEXT PRIMARY KEY,
    url        TEXT NOT NULL,
    host       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    keep       TEXT NOT NULL CHECK (keep IN ('facts', 'full')),
    updated_ms BIGINT NOT NULL
);

-- The gate's state per site (budget key: the origin), one row locked (`FOR UPDATE`) by
-- every budget update, so every worker shares one budget per site. `budget` is NULL for
-- a row created only to be locked (the site has no state yet). In-flight requests are
-- not here but in `site_in_flight`, per worker, so a dead worker's requests stop
-- counting when its lease expires instead of forever.
CREATE TABLE site_state (
    site           TEXT PRIMARY KEY,
    budget         TEXT,
    robots         TEXT,
    robots_body    BYTEA,
    failure_streak BIGINT NOT NULL DEFAULT 0,
    updated_us     BIGINT NOT NULL
);

-- The budget shared by all sites (the global daily cap): a single row, locked after the
-- site row by every budget update (always in that order: no deadlock).
CREATE TABLE global_budget (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    day      TEXT,
    requests BIGINT NOT NULL
);
INSERT INTO global_budget (id, day, requests) VALUES (1, NULL, 0);

-- Processes crawling with this database, each with a lease on the database clock that
-- its heartbeat renews. A worker whose lease expired is dead for everyone else.
CREATE TABLE workers (
    id          TEXT PRIMARY KEY,
    started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    lease_until TIMESTAMPTZ NOT NULL
);

-- Requests in flight, per site, worker and purpose. Counted only while the worker's lease
-- is unexpired; deleted with the worker.
CREATE TABLE site_in_flight (
    site    TEXT NOT NULL,
    worker  TEXT NOT NULL REFERENCES workers (id) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    count   BIGINT NOT NULL CHECK (count > 0),
    PRIMARY KEY (site, worker, purpose)
);

-- Opt-outs and owner overrides (slow-down, pause, facts only), checked before every request.
CREATE TABLE owner_requests (
    reference  TEXT PRIMARY KEY,
    scope_kind TEXT NOT NULL CHECK (scope_kind IN ('domain', 'url-prefix')),
    scope      TEXT NOT NULL,
    request    TEXT NOT NULL CHECK (request IN ('opt-out', 'slow-down', 'pause', 'facts-only')),
    factor     BIGINT,
    until_ms   BIGINT,
    note       TEXT,
    created_ms BIGINT NOT NULL
);
CREATE FUNCTION gleaner_registry_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'registry_version';
    PERFORM pg_notify('gleaner_registry', '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER owner_requests_changed AFTER INSERT OR UPDATE OR DELETE ON owner_requests
    FOR EACH STATEMENT EXECUTE FUNCTION gleaner_registry_changed();

CREATE TABLE removal_requests (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope        TEXT NOT NULL,
    reference    TEXT NOT NULL,
    requested_ms BIGINT NOT NULL,
    completed_ms BIGINT,
    removed      TEXT
);

CREATE TABLE events (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    identity        TEXT NOT NULL UNIQUE,
    host            TEXT NOT NULL,
    url_host        TEXT,
    source          TEXT,
    url             TEXT,
    title           TEXT,
    category        TEXT NOT NULL,
    status          TEXT NOT NULL,
    start_ms        BIGINT,
    end_ms          BIGINT,
    last_day_end_ms BIGINT NOT NULL,
    facts           TEXT NOT NULL,
    description     TEXT,
    image_url       TEXT,
    first_seen_ms   BIGINT NOT NULL,
    last_checked_ms BIGINT NOT NULL
);
CREATE INDEX events_start ON events (start_ms);
CREATE INDEX events_last_day_end ON events (last_day_end_ms);
CREATE INDEX events_host ON events (host);

CREATE TABLE event_status (
    id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id BIGINT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    status   TEXT NOT NULL,
    stated   BOOLEAN NOT NULL,
    at_ms    BIGINT NOT NULL
);
CREATE INDEX event_status_event ON event_status (event_id);

CREATE TABLE event_provenance (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id   BIGINT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    source     TEXT NOT NULL DEFAULT '',
    fetch_url  TEXT NOT NULL,
    fetched_ms BIGINT NOT NULL,
    UNIQUE (event_id, source, fetch_url)
);
CREATE INDEX event_provenance_fetch_url ON event_provenance (fetch_url);

CREATE TABLE translations (
    event_id    BIGINT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    lang        TEXT NOT NULL,
    title       TEXT,
    description TEXT,
    created_ms  BIGINT NOT NULL,
    PRIMARY KEY (event_id, lang)
);

CREATE TABLE news_items (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url           TEXT NOT NULL UNIQUE,
    host          TEXT NOT NULL,
    source        TEXT,
    title         TEXT,
    published_ms  BIGINT,
    summary       TEXT,
    first_seen_ms BIGINT NOT NULL
);

CREATE TABLE validators (
    url           TEXT PRIMARY KEY,
    host          TEXT NOT NULL,
    etag          TEXT,
    last_modified TEXT,
    updated_ms    BIGINT NOT NULL
);

-- Kept on removal: it records gleaner's own behaviour.
CREATE TABLE audit_log (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    time_ms     BIGINT NOT NULL,
    site        TEXT NOT NULL,
    host        TEXT NOT NULL,
    url         TEXT NOT NULL,
    purpose     TEXT NOT NULL,
    source      TEXT,
    status      BIGINT,
    error       TEXT,
    bytes       BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    reason      TEXT NOT NULL
);
CREATE INDEX audit_log_host_time ON audit_log (host, time_ms);
CREATE INDEX audit_log_time ON audit_log (time_ms);

-- Kept on removal, like the audit log.
CREATE TABLE archive (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    site          TEXT NOT NULL,
    host          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('robots', 'terms')),
    url           TEXT NOT NULL,
    first_seen_ms BIGINT NOT NULL,
    last_seen_ms  BIGINT NOT NULL,
    body          BYTEA NOT NULL
);
CREATE INDEX archive_site_kind ON archive (site, kind, first_seen_ms);

CREATE TABLE bodies (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url          TEXT NOT NULL,
    host         TEXT NOT NULL,
    content_type TEXT,
    fetched_ms   BIGINT NOT NULL,
    body         BYTEA NOT NULL
);
CREATE INDEX bodies_fetched ON bodies (fetched_ms);

CREATE TABLE samples (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url        TEXT NOT NULL,
    host       TEXT NOT NULL,
    fetched_ms BIGINT NOT NULL,
    body       BYTEA NOT NULL
);
CREATE TABLE sample_exclusions (
    domain     TEXT PRIMARY KEY,
    created_ms BIGINT NOT NULL
);

CREATE TABLE source_runs (
    source          TEXT PRIMARY KEY,
    last_started_ms BIGINT NOT NULL
);

CREATE TABLE listing_links (
    url        TEXT PRIMARY KEY,
    host       TEXT NOT NULL,
    links      TEXT NOT NULL,
    updated_ms BIGINT NOT NULL
);
