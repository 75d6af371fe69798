-- gleaner store, SQLite schema version 13: requests a pass keeps for its source's next
-- pass (issue 25): a URL that answered 429 or 503, kept from that answer until it is
-- asked again, so a retry the run's time limit (or a crash) cut is asked first next
-- time. Removed with the site.
CREATE TABLE kept_requests (
    source  TEXT NOT NULL,
    url     TEXT NOT NULL,
    host    TEXT NOT NULL,
    purpose TEXT NOT NULL,
    kept_ms INTEGER NOT NULL,
    PRIMARY KEY (source, url)
) STRICT;
