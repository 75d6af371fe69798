//! Images decode with the image crate; the SVG is an SVG; `Cache-Control` varies.

use gleaner_samplecity::images::{PHOTO_JPEG, POSTER_JPEG, cache_control, poster_png};
use image::ImageFormat;

use crate::support::{city, get};

#[test]
fn png_and_jpeg_decode_with_the_image_crate() {
    let png = image::load_from_memory_with_format(&poster_png(3), ImageFormat::Png).unwrap();
    assert_eq!((png.width(), png.height()), (16, 12));
    let jpeg = image::load_from_memory_with_format(POSTER_JPEG, ImageFormat::Jpeg).unwrap();
    assert_eq!((jpeg.width(), jpeg.height()), (16, 12));
    let photo = image::load_from_memory_with_format(PHOTO_JPEG, ImageFormat::Jpeg).unwrap();
    assert_eq!((photo.width(), photo.height()), (24, 16));
}

#[test]
fn image_paths_answer_with_types_magic_bytes_and_cache_control_variants() {
    let city = city();
    let site = city.site_index("izmir-sanat").unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for n in 1..=3 {
        let r = get(&city, site, &format!("/img/poster-{n}.jpg"));
        assert_eq!(r.status, 200);
        assert_eq!(r.header_value("content-type"), Some("image/jpeg"));
        assert!(r.body.starts_with(&[0xFF, 0xD8, 0xFF]));
        seen.insert(r.header_value("cache-control").unwrap().to_owned());
        let r = get(&city, site, &format!("/img/poster-{n}.png"));
        assert!(r.body.starts_with(b"\x89PNG\r\n\x1a\n"));
        assert_eq!(r.header_value("cache-control"), Some(cache_control(n)));
    }
    assert_eq!(seen.len(), 3, "max-age, no-store and private: {seen:?}");
    let svg = get(&city, site, "/img/logo.svg");
    assert_eq!(svg.header_value("content-type"), Some("image/svg+xml"));
    let doc = svg.text();
    let mut reader = quick_xml::Reader::from_str(&doc);
    let mut root = None;
    loop {
        match reader.read_event().unwrap() {
            quick_xml::events::Event::Start(e) if root.is_none() => {
                root = Some(e.name().into_inner().to_owned());
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(root.as_deref(), Some("svg"));

    let press = city.site_index("agence-presse-locale").unwrap();
    let cc = |p: &str| get(&city, press, p).header_value("cache-control").unwrap().to_owned();
    assert!(cc("/img/photo-max-age.jpg").contains("max-age=3600"));
    assert_eq!(cc("/img/photo-no-store.jpg"), "no-store");
    assert!(cc("/img/photo-private.png").starts_with("private"));
    let private = get(&city, press, "/img/photo-private.png");
    assert_eq!(private.header_value("x-robots-tag"), Some("noimageai"));
    image::load_from_memory(&private.body).unwrap();
    image::load_from_memory(&get(&city, press, "/img/photo-no-store.jpg").body).unwrap();
}

/// Writes the JPEG files embedded by `images.rs` (run by hand after changing them:
/// `cargo test -p gleaner-samplecity write_jpeg_assets -- --ignored`).
#[test]
#[ignore = "regenerates assets/"]
fn write_jpeg_assets() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let make = |w: u32, h: u32, a: [u8; 3], b: [u8; 3]| {
        image::RgbImage::from_fn(w, h, |x, y| {
            let t = (x + y) as f32 / (w + h) as f32;
            let mix = |i: usize| (f32::from(a[i]) * (1.0 - t) + f32::from(b[i]) * t) as u8;
            image::Rgb([mix(0), mix(1), mix(2)])
        })
    };
    let mut out = Vec::new();
    let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 70);
    make(16, 12, [224, 122, 47], [47, 111, 224]).write_with_encoder(enc).unwrap();
    std::fs::write(dir.join("poster.jpg"), &out).unwrap();
    let mut out = Vec::new();
    let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 70);
    make(24, 16, [29, 143, 90], [242, 209, 75]).write_with_encoder(enc).unwrap();
    std::fs::write(dir.join("photo.jpg"), &out).unwrap();
}
