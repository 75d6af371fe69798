-- Issue 24 item 5: one event, many sources. Each provenance row keeps its source's own
-- reading of the event (facts, description and image as kept), and the extractor that
-- read it, so the event is the merge of every reading and its page shows where each
-- field came from. Rows from before keep NULL (their event's row stands in for them).
ALTER TABLE event_provenance ADD COLUMN extractor TEXT;
ALTER TABLE event_provenance ADD COLUMN facts TEXT;
ALTER TABLE event_provenance ADD COLUMN description TEXT;
ALTER TABLE event_provenance ADD COLUMN image_url TEXT;

-- How another source's reading finds the event: by its own page, or by folded title
-- near the same start.
ALTER TABLE events ADD COLUMN title_key TEXT;
CREATE INDEX events_title_key ON events (title_key, start_ms);
CREATE INDEX events_url ON events (url);
