-- gleaner store, SQLite schema version 3: the links a listing page had when last read,
-- so a listing answering 304 still yields its event pages. `links` is the scheduler's
-- JSON, opaque to the store; removed with the site.
CREATE TABLE listing_links (
    url        TEXT PRIMARY KEY,
    host       TEXT NOT NULL,
    links      TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
) STRICT;
