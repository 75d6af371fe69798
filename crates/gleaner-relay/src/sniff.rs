//! Image types from the bytes, never from the site's `Content-Type` (SPEC §5): PNG,
//! JPEG, GIF and WebP are relayed; anything else, SVG included (it can carry script),
//! is refused.

/// An image type the relay serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageType {
    /// PNG (`\x89PNG\r\n\x1a\n`).
    Png,
    /// JPEG (`FF D8 FF`).
    Jpeg,
    /// GIF (`GIF87a` / `GIF89a`).
    Gif,
    /// WebP (`RIFF….WEBP`).
    Webp,
}

impl ImageType {
    /// The `Content-Type` the relay sends.
    pub const fn mime(self) -> &'static str {
        match self {
            ImageType::Png => "image/png",
            ImageType::Jpeg => "image/jpeg",
            ImageType::Gif => "image/gif",
            ImageType::Webp => "image/webp",
        }
    }
}

/// The image type of `bytes`, or `None` when they are not a relayed image type.
pub fn sniff(bytes: &[u8]) -> Option<ImageType> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(ImageType::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(ImageType::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(ImageType::Gif)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(ImageType::Webp)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_the_four_types_and_nothing_else() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Some(ImageType::Png));
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]), Some(ImageType::Jpeg));
        assert_eq!(sniff(b"GIF89a\x01\0"), Some(ImageType::Gif));
        assert_eq!(sniff(b"GIF87a"), Some(ImageType::Gif));
        assert_eq!(sniff(b"RIFF\x24\0\0\0WEBPVP8 "), Some(ImageType::Webp));
        for refused in [
            &b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"[..],
            b"<?xml version=\"1.0\"?><svg/>",
            b"<html><script>alert(1)</script>",
            b"RIFF\x24\0\0\0WAVEfmt ",
            b"\x89PN",
            b"",
            b"GIF90a",
        ] {
            assert_eq!(sniff(refused), None, "{refused:?}");
        }
    }
}
