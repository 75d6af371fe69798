-- Issue 26: an owner's request that makes gleaner do less (opt-out, slow-down) applies
-- at once, but when its sender has not proven control of the site it lapses at
-- `lapses_ms` unless proven or confirmed by the operator (then NULL: permanent). The
-- gate ignores a lapsed request.
ALTER TABLE owner_requests ADD COLUMN lapses_ms INTEGER;
