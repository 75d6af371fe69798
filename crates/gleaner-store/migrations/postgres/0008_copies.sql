-- gleaner store, PostgreSQL schema version 8 (politeness namespace): the copies that
-- share this namespace's budgets (a live and a staging deployment, each in a schema of
-- its own), so that a removal deletes a site's content from every one of them; and the
-- fencing tokens of site leases, which every copy draws from one sequence because the
-- leases are shared.
CREATE TABLE copies (
    schema     TEXT PRIMARY KEY,
    first_open TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_open  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE SEQUENCE site_lease_fence;
SELECT setval('site_lease_fence', greatest(coalesce((SELECT max(token) FROM site_leases), 0), 1));
