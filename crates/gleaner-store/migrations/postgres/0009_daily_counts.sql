-- gleaner store, PostgreSQL schema version 9 (politeness namespace): counts per key and
-- local day that every process shares, such as the link checks made at a host today
-- (CIXTRA-Bot: "with a daily cap per host"), so several workers keep one cap together.
CREATE TABLE daily_counts (
    key   TEXT NOT NULL,
    day   TEXT NOT NULL,   -- YYYY-MM-DD, the local day of the key's place
    count BIGINT NOT NULL CHECK (count >= 0),
    PRIMARY KEY (key, day)
);
