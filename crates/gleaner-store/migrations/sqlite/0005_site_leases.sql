-- gleaner store, SQLite schema version 5: sites leased to one worker at a time (SPEC §7);
-- the same rules as on PostgreSQL, on the one crawler's clock.
CREATE TABLE site_leases (
    site           TEXT PRIMARY KEY,
    worker         TEXT NOT NULL,
    token          INTEGER NOT NULL,
    lease_until_ms INTEGER NOT NULL
) STRICT;
