//! PNG files as texels: 8- or 16-bit greyscale, grey+alpha, RGB, RGBA and palette images,
//! each channel read as unorm (`v / 255` or `v / 65535`) into an f32 texel; grey fills red,
//! green and blue; missing alpha is 1. Sizes are checked before decoding (no image larger than
//! [`super::texture::MAX_TEXELS`]).

use png::{BitDepth, ColorType, Transformations};
use std::path::Path;

/// A decoded image: `width × height` texels, rows top to bottom.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub width: u32,
    pub height: u32,
    pub texels: Vec<[u32; 4]>,
}

/// Reads the PNG file at `path`.
pub fn read(path: &Path) -> Result<Decoded, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    decode(std::io::BufReader::new(file)).map_err(|e| format!("{}: {e}", path.display()))
}

/// Decodes PNG bytes from `r`.
pub fn decode(r: impl std::io::BufRead + std::io::Seek) -> Result<Decoded, String> {
    let mut dec = png::Decoder::new(r);
    // Palette → RGB(A), sub-byte grey → 8 bits; 16-bit samples stay 16-bit.
    dec.set_transformations(Transformations::EXPAND);
    let mut reader = dec.read_info().map_err(|e| e.to_string())?;
    let (w, h) = {
        let info = reader.info();
        (info.width, info.height)
    };
    if u64::from(w) * u64::from(h) > super::texture::MAX_TEXELS {
        return Err(format!("{w}×{h} is larger than the texel limit"));
    }
    let mut buf = vec![0u8; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let (color, depth) = (frame.color_type, frame.bit_depth);
    let channels = match color {
        ColorType::Grayscale => 1,
        ColorType::GrayscaleAlpha => 2,
        ColorType::Rgb => 3,
        ColorType::Rgba => 4,
        ColorType::Indexed => return Err("palette image was not expanded".into()),
    };
    let wide = depth == BitDepth::Sixteen;
    let bytes = if wide { 2 } else { 1 };
    let sample = |i: usize| -> f32 {
        if wide {
            f32::from(u16::from_be_bytes([buf[i], buf[i + 1]])) / 65535.0
        } else {
            f32::from(buf[i]) / 255.0
        }
    };
    let stride = frame.line_size;
    let mut texels = Vec::with_capacity((w * h) as usize);
    for y in 0..h as usize {
        for x in 0..w as usize {
            let at = |c: usize| sample(y * stride + (x * channels + c) * bytes);
            let (r, g, b, a) = match channels {
                1 => (at(0), at(0), at(0), 1.0),
                2 => (at(0), at(0), at(0), at(1)),
                3 => (at(0), at(1), at(2), 1.0),
                _ => (at(0), at(1), at(2), at(3)),
            };
            texels.push([r.to_bits(), g.to_bits(), b.to_bits(), a.to_bits()]);
        }
    }
    Ok(Decoded {
        width: w,
        height: h,
        texels,
    })
}

/// Encodes 8-bit RGBA pixels as PNG (tests and tools write their inputs with it).
pub fn encode_rgba8(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(ColorType::Rgba);
        enc.set_depth(BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| e.to_string())?;
        w.write_image_data(rgba).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgba8_round_trips_as_unorm() {
        let px = [255, 0, 51, 255, 0, 255, 0, 128];
        let bytes = encode_rgba8(2, 1, &px).expect("encodes");
        let d = decode(std::io::Cursor::new(bytes)).expect("decodes");
        assert_eq!((d.width, d.height), (2, 1));
        assert_eq!(f32::from_bits(d.texels[0][0]), 1.0);
        assert_eq!(f32::from_bits(d.texels[0][2]), 0.2);
        assert_eq!(f32::from_bits(d.texels[1][3]), 128.0 / 255.0);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(decode(std::io::Cursor::new(vec![0u8; 64])).is_err());
        assert!(decode(std::io::Cursor::new(Vec::new())).is_err());
    }
}
