-- gleaner store, PostgreSQL schema version 10 (politeness namespace): the audit log keeps
-- each request's outcome as a stable code (`sent`, `refused:robots-disallowed`,
-- `failed:timeout`; see `gleaner_policy::outcome`), so nothing reads the prose of a
-- refusal back. Rows written before it (a refusal was `error = 'not sent'` with a
-- free-text reason) get their code here, once, from the words the old `/metrics` looked for.
ALTER TABLE audit_log ADD COLUMN outcome TEXT NOT NULL DEFAULT 'failed:other';
UPDATE audit_log SET outcome = CASE
    WHEN status IS NOT NULL THEN 'sent'
    WHEN COALESCE(error, '') <> 'not sent' THEN 'failed:other'
    WHEN lower(reason) LIKE '%opted out%' OR lower(reason) LIKE '%opt-out%'
        OR lower(reason) LIKE '%removal%' THEN 'refused:opt-out'
    WHEN lower(reason) LIKE '%reservation%' OR lower(reason) LIKE '%language model%'
        THEN 'refused:rights-reserved'
    WHEN lower(reason) LIKE 'robots.txt:%' OR lower(reason) LIKE '%disallow%'
        THEN 'refused:robots-disallowed'
    WHEN lower(reason) LIKE '%robots.txt%' THEN 'refused:robots-unreadable'
    WHEN lower(reason) LIKE '%block%' OR lower(reason) LIKE '%401%' OR lower(reason) LIKE '%403%'
        OR lower(reason) LIKE '%challenge%' THEN 'refused:blocked'
    WHEN lower(reason) LIKE '%purpose%' OR lower(reason) LIKE '%method%'
        THEN 'refused:purpose-disabled'
    WHEN lower(reason) LIKE '%quota%' OR lower(reason) LIKE '%per pass%'
        OR lower(reason) LIKE '%requests; the rest waits%' THEN 'refused:quota'
    WHEN lower(reason) LIKE '%address%' OR lower(reason) LIKE '%loopback%'
        OR lower(reason) LIKE '%private%' OR lower(reason) LIKE '%scheme%' THEN 'refused:address'
    ELSE 'refused:other'
END;
