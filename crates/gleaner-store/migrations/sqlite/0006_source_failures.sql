-- Failed visits in a row per source: two quick restarts, then the schedule, then once a
-- day after `failure_streak_limit` (SPEC §1, "Errors").
ALTER TABLE source_runs ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
