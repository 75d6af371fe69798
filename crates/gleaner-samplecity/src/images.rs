//! Images: small real JPEG files (embedded), PNG files encoded here (a few dozen bytes of
//! zlib), and one SVG logo; and the `Cache-Control` each path sends.
//!
//! The JPEG files in `assets/` were written by the image crate (the ignored test
//! `write_jpeg_assets` in `tests/it/images.rs` makes them again).

use std::io::Write as _;

/// A 16×12 JPEG poster (baseline, 4:2:0).
pub const POSTER_JPEG: &[u8] = include_bytes!("../assets/poster.jpg");
/// A 24×16 JPEG photo.
pub const PHOTO_JPEG: &[u8] = include_bytes!("../assets/photo.jpg");

/// The SVG logo every venue and the press agency serve at `/img/logo.svg`.
pub const LOGO_SVG: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\" \
viewBox=\"0 0 64 64\"><title>Sample city</title><rect width=\"64\" height=\"64\" rx=\"8\" \
fill=\"#2f6fe0\"/><circle cx=\"32\" cy=\"28\" r=\"14\" fill=\"#f2d14b\"/>\
<rect x=\"12\" y=\"46\" width=\"40\" height=\"6\" fill=\"#fff\"/></svg>\n";

/// A `width`×`height` RGB PNG with horizontal bands of `colors`.
pub fn png(width: u32, height: u32, colors: &[[u8; 3]]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(((width * 3 + 1) * height) as usize);
    for y in 0..height {
        raw.push(0); // filter type: none
        let c = colors[(y as usize * colors.len()) / height.max(1) as usize % colors.len().max(1)];
        for _ in 0..width {
            raw.extend_from_slice(&c);
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let _ = z.write_all(&raw);
    let idat = z.finish().unwrap_or_default();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB, deflate, no filter set, no interlace
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_be_bytes());
}

/// The poster PNG of event `number` (its colours vary with the number).
pub fn poster_png(number: u32) -> Vec<u8> {
    let n = (number * 37 % 200) as u8;
    png(16, 12, &[[224, 122, n], [n, 111, 224], [29, 143, 90]])
}

/// `Cache-Control` of an image, by a number: `max-age`, `no-store` or `private`.
pub fn cache_control(n: u32) -> &'static str {
    match n % 3 {
        0 => "public, max-age=3600",
        1 => "no-store",
        _ => "private, max-age=600",
    }
}
