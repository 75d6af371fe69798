-- Issue 18: the language model's translation cache, its provenance and token counters.
-- See the SQLite migration for the design.

CREATE TABLE translation_cache (
    id         BIGSERIAL PRIMARY KEY,
    text_hash  TEXT NOT NULL,
    lang       TEXT NOT NULL,
    model      TEXT NOT NULL,
    english    TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    UNIQUE (text_hash, lang, model)
);

CREATE TABLE translation_uses (
    event_id BIGINT NOT NULL,
    lang     TEXT NOT NULL,
    field    TEXT NOT NULL,
    cache_id BIGINT NOT NULL REFERENCES translation_cache (id) ON DELETE CASCADE,
    PRIMARY KEY (event_id, lang, field),
    FOREIGN KEY (event_id, lang) REFERENCES translations (event_id, lang) ON DELETE CASCADE
);
CREATE INDEX translation_uses_cache ON translation_uses (cache_id);

CREATE FUNCTION translation_cache_drop_unused() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM translation_uses WHERE cache_id = OLD.cache_id) THEN
        DELETE FROM translation_cache WHERE id = OLD.cache_id;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER translation_cache_unused_after_delete AFTER DELETE ON translation_uses
FOR EACH ROW EXECUTE FUNCTION translation_cache_drop_unused();

CREATE TRIGGER translation_cache_unused_after_update AFTER UPDATE OF cache_id ON translation_uses
FOR EACH ROW WHEN (OLD.cache_id <> NEW.cache_id) EXECUTE FUNCTION translation_cache_drop_unused();

CREATE TABLE event_models (
    event_id       BIGINT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    step           TEXT NOT NULL,
    model          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    at_ms          BIGINT NOT NULL,
    PRIMARY KEY (event_id, step)
);

CREATE TABLE llm_usage (
    model             TEXT NOT NULL,
    step              TEXT NOT NULL,
    requests          BIGINT NOT NULL DEFAULT 0,
    failures          BIGINT NOT NULL DEFAULT 0,
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (model, step)
);
