//! An indexed-colour PNG (8 bits per pixel, a palette of up to 256
//! colours), deflated by flate2, as a `data:` URI: the heat map's cells,
//! one pixel each, scaled up by the page (`image-rendering: pixelated`).
//! 1,000 hosts x 200 figures is 200,000 pixels: a few tens of kB, where
//! one SVG rectangle per cell would be megabytes.

use std::io::Write as _;

use base64::Engine as _;

/// `width` x `height` pixels, row by row, each an index into `palette`
/// (RGB), as `data:image/png;base64,...`.
pub fn data_uri(width: usize, height: usize, pixels: &[u8], palette: &[[u8; 3]]) -> String {
    assert_eq!(pixels.len(), width * height, "one index per pixel");
    assert!(!palette.is_empty() && palette.len() <= 256);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    // Bit depth 8, colour type 3 (indexed), deflate, filter 0, no interlace.
    ihdr.extend_from_slice(&[8, 3, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"PLTE", palette.concat().as_slice());
    let mut raw = Vec::with_capacity(height * (width + 1));
    for row in pixels.chunks(width.max(1)) {
        // Filter type 0 (none) before each row.
        raw.push(0);
        raw.extend_from_slice(row);
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&raw).expect("writing to memory");
    chunk(&mut png, b"IDAT", &z.finish().expect("writing to memory"));
    chunk(&mut png, b"IEND", &[]);
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&png)
    )
}

/// Appends one chunk: length, type, data, CRC-32 of type and data.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    png.extend_from_slice(&crc.sum().to_be_bytes());
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::*;

    fn decode(uri: &str) -> Vec<u8> {
        let b64 = uri.strip_prefix("data:image/png;base64,").unwrap();
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap()
    }

    #[test]
    fn the_png_holds_its_size_palette_and_rows_with_valid_crcs() {
        let pixels = [0, 1, 2, 2, 1, 0];
        let palette = [[255, 0, 0], [0, 255, 0], [0, 0, 255]];
        let png = decode(&data_uri(3, 2, &pixels, &palette));
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // Walk the chunks, checking each CRC.
        let mut at = 8;
        let mut chunks = Vec::new();
        while at < png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            let kind = &png[at + 4..at + 8];
            let data = &png[at + 8..at + 8 + len];
            let mut crc = flate2::Crc::new();
            crc.update(kind);
            crc.update(data);
            let stored = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
            assert_eq!(crc.sum(), stored, "{}", String::from_utf8_lossy(kind));
            chunks.push((String::from_utf8_lossy(kind).into_owned(), data.to_vec()));
            at += 12 + len;
        }
        let kinds: Vec<&str> = chunks.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(kinds, ["IHDR", "PLTE", "IDAT", "IEND"]);
        assert_eq!(chunks[0].1, [0, 0, 0, 3, 0, 0, 0, 2, 8, 3, 0, 0, 0]);
        assert_eq!(chunks[1].1, [255, 0, 0, 0, 255, 0, 0, 0, 255]);
        let mut raw = Vec::new();
        flate2::read::ZlibDecoder::new(&chunks[2].1[..])
            .read_to_end(&mut raw)
            .unwrap();
        assert_eq!(raw, [0, 0, 1, 2, 0, 2, 1, 0]);
    }
}
