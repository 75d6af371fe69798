-- When each source's last pass started, so schedules hold across restarts (a source is
-- never read more often than its minimum interval, even after a crash).
CREATE TABLE source_runs (
    source          TEXT PRIMARY KEY,
    last_started_ms INTEGER NOT NULL
) STRICT;
