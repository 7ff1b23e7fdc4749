//! The SHBIN output table maps the IR's output semantics to PICA's fixed-function ones
//! (reference §7 output codes, §13.1 output entries, §13.2 `DVLE_GenerateOutmap`): the bytes are
//! read at the reference's offsets, independently of our reader, and turned into the
//! GPUREG_SH_OUTMAP codes libctru would program.

use irc_backend::CompileOptions;
use irc_pica::outmap::PicaReflection;
use irc_pica::shbin;

/// Position, colour 0, a 2-component texcoord 0, a 4-component texcoord 1 and D3D9 fog.
const SHADER: &str = "\
%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutputBuiltIn %1 Position
%4 = f32x4 DclOutput %1 0 0
%5 = f32x2 DclOutput %1 1 0
%6 = f32x4 DclOutput %1 2 0
%7 = f32 DclOutput %1 3 0
%8 = Semantic %4 0 \"COLOR\"
%9 = Semantic %5 0 \"TEXCOORD\"
%10 = Semantic %6 1 \"TEXCOORD\"
%11 = Semantic %7 0 \"fog\"
%12 = u32 Constant 0
%13 = u32 Constant 1
%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = OutputStore %3 null %22
  %24 = OutputStore %4 null %22
  %25 = f32 CompositeExtract %22 %12
  %26 = f32 CompositeExtract %22 %13
  %27 = f32x2 CompositeConstruct %26 %25
  %28 = OutputStore %5 null %27
  %29 = OutputStore %6 null %22
  %30 = OutputStore %7 null %25
  %31 = Return
%40 = FunctionEnd
";

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// libctru's `DVLE_GenerateOutmap` as the reference (§13.2, §7) describes it: per entry,
/// consecutive codes from the semantic's first one for the enabled mask components.
fn outmap_codes(entries: &[(u16, u16, u16)]) -> Vec<(u16, [u8; 4])> {
    let mut regs: Vec<(u16, [u8; 4])> = Vec::new();
    for &(ty, reg, mask) in entries {
        let (first, count) = match ty {
            0 => (0x00, 4),
            1 => (0x04, 4),
            2 => (0x08, 4),
            3 => (0x0C, 2),
            4 => (0x10, 1),
            5 => (0x0E, 2),
            6 => (0x16, 2),
            8 => (0x12, 3),
            _ => (0x1F, 0),
        };
        let i = match regs.iter().position(|r| r.0 == reg) {
            Some(i) => i,
            None => {
                regs.push((reg, [0x1F; 4]));
                regs.len() - 1
            }
        };
        let (mut code, mut left) = (first, count);
        for c in 0..4 {
            if mask & (1 << c) != 0 && left > 0 {
                regs[i].1[c] = code;
                code += 1;
                left -= 1;
            }
        }
    }
    regs
}

#[test]
fn output_table_maps_color_and_two_texcoords() {
    let m = irc_ir::text::parse(SHADER).expect("parses");
    let options = CompileOptions {
        container: true,
        ..CompileOptions::default()
    };
    let out = irc_pica::target::compile(&m, &options).expect("compiles");
    let bytes = &out.container.as_ref().expect("container").bytes;

    // §13.1 at the raw offsets: DVLB, N = 1, DVLE offset; DVLE output table at +0x28/+0x2C.
    assert_eq!(&bytes[0..4], b"DVLB");
    assert_eq!(u32_at(bytes, 4), 1);
    let dvle = u32_at(bytes, 8) as usize;
    assert_eq!(&bytes[dvle..dvle + 4], b"DVLE");
    assert_eq!(bytes[dvle + 6], 0, "vertex shader");
    let (table, count) = (
        dvle + u32_at(bytes, dvle + 0x28) as usize,
        u32_at(bytes, dvle + 0x2C) as usize,
    );
    let raw: Vec<(u16, u16, u16)> = (0..count)
        .map(|i| {
            let e = table + 8 * i;
            assert_eq!(u16_at(bytes, e + 6), 0, "entry padding");
            (u16_at(bytes, e), u16_at(bytes, e + 2), u16_at(bytes, e + 4))
        })
        .collect();
    // Outputs are allocated Position first, then by location: o0 position, o1 colour,
    // o2 texcoord 0, o3 texcoord 1, o4 fog (no PICA semantic: dummy, x only).
    assert_eq!(
        raw,
        vec![
            (0, 0, 0b1111),
            (2, 1, 0b1111),
            (3, 2, 0b0011),
            (5, 3, 0b0011),
            (9, 4, 0b0001)
        ]
    );
    assert_eq!(u16_at(bytes, dvle + 0x12), 0b1_1111, "output register mask");
    assert_eq!(
        outmap_codes(&raw),
        vec![
            (0, [0x00, 0x01, 0x02, 0x03]),
            (1, [0x08, 0x09, 0x0A, 0x0B]),
            (2, [0x0C, 0x0D, 0x1F, 0x1F]),
            (3, [0x0E, 0x0F, 0x1F, 0x1F]),
            (4, [0x1F; 4]),
        ]
    );

    // The repo's reader agrees with the raw bytes.
    let read = shbin::read(bytes).expect("reads");
    let ours: Vec<_> = read.dvles[0]
        .outputs
        .iter()
        .map(|o| (o.semantic, o.reg, o.mask))
        .collect();
    assert_eq!(ours, raw);

    // The reflection says why the fog output feeds nothing.
    let part = out.reflection.target.as_ref().expect("target part");
    let r = part.downcast::<PicaReflection>().expect("pica part");
    let fog = r.outmap.iter().find(|e| e.reg == 4).expect("o4");
    assert!(
        fog.reason.as_deref().unwrap_or("").contains("fog"),
        "{fog:?}"
    );
    assert!(r
        .outmap
        .iter()
        .filter(|e| e.reg != 4)
        .all(|e| e.reason.is_none()));
}

#[test]
fn a_three_component_texcoord0_feeds_texcoord0w_and_a_second_colour_is_dummy() {
    let text = SHADER
        .replace("%5 = f32x2 DclOutput %1 1 0", "%5 = f32x3 DclOutput %1 1 0")
        .replace(
            "%27 = f32x2 CompositeConstruct %26 %25",
            "%27 = f32x3 CompositeConstruct %26 %25 %25",
        )
        .replace(
            "%10 = Semantic %6 1 \"TEXCOORD\"",
            "%10 = Semantic %6 1 \"color\"",
        );
    let m = irc_ir::text::parse(&text).expect("parses");
    let out = irc_pica::target::compile(
        &m,
        &CompileOptions {
            container: true,
            ..CompileOptions::default()
        },
    )
    .expect("compiles");
    let read = shbin::read(&out.container.expect("container").bytes).expect("reads");
    let entries: Vec<_> = read.dvles[0]
        .outputs
        .iter()
        .map(|o| (o.semantic, o.reg, o.mask))
        .collect();
    assert_eq!(
        outmap_codes(&entries),
        vec![
            (0, [0x00, 0x01, 0x02, 0x03]),
            (1, [0x08, 0x09, 0x0A, 0x0B]),
            (2, [0x0C, 0x0D, 0x10, 0x1F]),
            (3, [0x1F; 4]),
            (4, [0x1F; 4]),
        ]
    );
}
