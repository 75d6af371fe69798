//! robots.txt per RFC 9309.
