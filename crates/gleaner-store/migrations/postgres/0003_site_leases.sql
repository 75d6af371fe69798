-- gleaner store, PostgreSQL schema version 3: sites leased to one worker at a time
-- (SPEC §7). A new holder may take a site only once the old lease plus a grace (the
-- response deadline) has passed on the database clock, so the old holder's last request
-- is over before the new holder's first one starts.
CREATE TABLE site_leases (
    site        TEXT PRIMARY KEY,
    worker      TEXT NOT NULL,
    token       BIGINT NOT NULL,
    lease_until TIMESTAMPTZ NOT NULL
);
