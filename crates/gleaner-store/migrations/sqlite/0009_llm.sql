-- Issue 18: the language model's translation cache, its provenance and token counters.

-- Translations cached by the original text's hash, its language and the model. Each row
-- lives as long as some event's translation uses it: the uses hang off `translations`
-- (deleted with their event, by removal, an owner's facts-only and retention), and the
-- last use to go takes the cache row with it.
CREATE TABLE translation_cache (
    id         INTEGER PRIMARY KEY,
    text_hash  TEXT NOT NULL,
    lang       TEXT NOT NULL,
    model      TEXT NOT NULL,
    english    TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    UNIQUE (text_hash, lang, model)
) STRICT;

CREATE TABLE translation_uses (
    event_id INTEGER NOT NULL,
    lang     TEXT NOT NULL,
    field    TEXT NOT NULL,
    cache_id INTEGER NOT NULL REFERENCES translation_cache (id) ON DELETE CASCADE,
    PRIMARY KEY (event_id, lang, field),
    FOREIGN KEY (event_id, lang) REFERENCES translations (event_id, lang) ON DELETE CASCADE
) STRICT;
CREATE INDEX translation_uses_cache ON translation_uses (cache_id);

CREATE TRIGGER translation_cache_unused_after_delete AFTER DELETE ON translation_uses
WHEN NOT EXISTS (SELECT 1 FROM translation_uses WHERE cache_id = OLD.cache_id)
BEGIN
    DELETE FROM translation_cache WHERE id = OLD.cache_id;
END;

CREATE TRIGGER translation_cache_unused_after_update AFTER UPDATE OF cache_id ON translation_uses
WHEN OLD.cache_id <> NEW.cache_id
    AND NOT EXISTS (SELECT 1 FROM translation_uses WHERE cache_id = OLD.cache_id)
BEGIN
    DELETE FROM translation_cache WHERE id = OLD.cache_id;
END;

-- Which model did what to an event (`extraction`, `translation`), with the prompt
-- version; model `none` records a decision made without one (already English, rights
-- reserved), so it is not retried.
CREATE TABLE event_models (
    event_id       INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    step           TEXT NOT NULL,
    model          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    at_ms          INTEGER NOT NULL,
    PRIMARY KEY (event_id, step)
) STRICT;

-- Requests and tokens per model and step, for /metrics.
CREATE TABLE llm_usage (
    model             TEXT NOT NULL,
    step              TEXT NOT NULL,
    requests          INTEGER NOT NULL DEFAULT 0,
    failures          INTEGER NOT NULL DEFAULT 0,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (model, step)
) STRICT;
