//! Human-readable durations (`2s`, `1h 30m`, `90d`) and sizes (`8MiB`, `500 KiB`).
//!
//! Durations use `humantime`; sizes use `bytesize`. Both are wrapped so the error says
//! what was expected, with an example.

use std::time::Duration;

/// Parses a duration such as `1s`, `250ms`, `2h`, `90d` or `0s`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    if trimmed == "0" {
        return Ok(Duration::ZERO);
    }
    let d = humantime::parse_duration(trimmed).map_err(|e| {
        format!("`{text}` is not a duration ({e}); write e.g. `2s`, `500ms`, `1h` or `90d`")
    })?;
    if d > crate::bounds::MAX_DURATION {
        return Err(format!(
            "`{text}` is longer than any setting takes (3650d); write e.g. `2s`, `1h` or `90d`"
        ));
    }
    Ok(d)
}

/// Parses a size such as `8MiB`, `500 KiB` or `1048576` (bytes).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    if let Ok(bytes) = trimmed.parse::<u64>() {
        return Ok(bytes);
    }
    trimmed.parse::<bytesize::ByteSize>().map(|size| size.as_u64()).map_err(|e| {
        format!("`{text}` is not a size ({e}); write e.g. `8MiB`, `500KiB` or a number of bytes")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("150ms"), Ok(Duration::from_millis(150)));
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("90d"), Ok(Duration::from_secs(90 * 86400)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_duration("soon").unwrap_err().contains("`soon` is not a duration"));
        // Issue 26: these once panicked the budget and chrono.
        assert!(parse_duration("18446744073709551615s").unwrap_err().contains("longer than"));
        assert!(parse_duration("10000000000d").unwrap_err().contains("longer than"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8MiB"), Ok(8 * 1024 * 1024));
        assert_eq!(parse_size("500 KiB"), Ok(500 * 1024));
        assert_eq!(parse_size("1024"), Ok(1024));
        assert!(parse_size("big").is_err());
    }
}
