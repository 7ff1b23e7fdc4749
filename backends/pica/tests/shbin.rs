//! SHBIN container: the worked example of reference §13.4 (citro2d's 2D vertex shader as
//! picasso assembles it, 388 bytes) checked field by field, a VS + GS file, reader robustness.

use irc_pica::asm::{assemble, assemble_files};
use irc_pica::disasm::disassemble_shbin;
use irc_pica::shbin::{self, semantic, ConstValue, ShaderType};

/// Our own rendition of the program of §13.4 / anchor A5 (same declarations, same
/// instructions): position through a model-view and a projection matrix, two texcoord
/// passthroughs, color scaled by 1/255.
pub const RENDER2D: &str = "\
; 2D shader: position = proj * (mdlv * vec4(pos, 1)); colour = colour / 255
.fvec mdlvMtx[4], projMtx[4]
.constf k(0.0, 1.0, 0.5, 0.003921568393707275390625)
.alias one   k.yyyy
.alias inv255 k.wwww
.out oPos position
.out oTc0 texcoord0
.out oTc1 texcoord1
.out oClr color
.in iPosition v0
.in iTexCoord v1
.in iBlend v2
.in iColor v3
.entry vmain
.proc vmain
    mov r0.xyz, iPosition
    mov r0.w, one
    dp4 r1.x, mdlvMtx[0], r0
    dp4 r1.y, mdlvMtx[1], r0
    dp4 r1.z, mdlvMtx[2], r0
    dp4 r1.w, mdlvMtx[3], r0
    dp4 oPos.x, projMtx[0], r1
    dp4 oPos.y, projMtx[1], r1
    dp4 oPos.z, projMtx[2], r1
    dp4 oPos.w, projMtx[3], r1
    mov oTc0, iTexCoord
    mov oTc1, iBlend
    mul oClr, inv255, iColor
    end
.end
";

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}

#[test]
fn worked_example_of_13_4() {
    let sh = assemble(RENDER2D).unwrap();
    assert_eq!(sh.code.len(), 14);
    assert_eq!(sh.opdescs.len(), 8);
    let b = shbin::write(&sh);
    assert_eq!(b.len(), 388);
    assert_eq!(&b[0..4], b"DVLB");
    assert_eq!(u32_at(&b, 4), 1);
    assert_eq!(u32_at(&b, 8), 0xAC);
    // DVLP @0x0C.
    let p = 0x0C;
    assert_eq!(&b[p..p + 4], b"DVLP");
    assert_eq!(u32_at(&b, p + 8), 0x28);
    assert_eq!(u32_at(&b, p + 12), 14);
    assert_eq!(u32_at(&b, p + 16), 0x60);
    assert_eq!(u32_at(&b, p + 20), 8);
    assert_eq!(u32_at(&b, p + 24), 0xA0);
    // Code @0x34, descriptors @0x6C.
    assert_eq!(u32_at(&b, 0x34), sh.code[0]);
    assert_eq!(u32_at(&b, 0x6C), sh.opdescs[0]);
    // DVLE @0xAC.
    let e = 0xAC;
    assert_eq!(&b[e..e + 4], b"DVLE");
    assert_eq!(u16_at(&b, e + 4), 0x1002);
    assert_eq!(b[e + 6], 0);
    assert_eq!((u32_at(&b, e + 8), u32_at(&b, e + 12)), (0, 14));
    assert_eq!(
        (u16_at(&b, e + 0x10), u16_at(&b, e + 0x12)),
        (0x000F, 0x000F)
    );
    assert_eq!((u32_at(&b, e + 0x18), u32_at(&b, e + 0x1C)), (0x40, 1));
    assert_eq!((u32_at(&b, e + 0x20), u32_at(&b, e + 0x24)), (0x54, 0));
    assert_eq!((u32_at(&b, e + 0x28), u32_at(&b, e + 0x2C)), (0x54, 4));
    assert_eq!((u32_at(&b, e + 0x30), u32_at(&b, e + 0x34)), (0x74, 6));
    assert_eq!((u32_at(&b, e + 0x38), u32_at(&b, e + 0x3C)), (0xA4, 50));
    // Constant: c95 = (0, 1.0, 0.5, 1/255).
    let c = e + 0x40;
    assert_eq!((u16_at(&b, c), u16_at(&b, c + 2)), (2, 95));
    let vals: Vec<u32> = (0..4).map(|i| u32_at(&b, c + 4 + 4 * i)).collect();
    assert_eq!(vals, [0, 0x3F0000, 0x3E0000, 0x370101]);
    // Outputs: position o0, texcoord0 o1, texcoord1 o2, color o3, masks 0xF.
    let outs: Vec<(u16, u16, u16)> = (0..4)
        .map(|i| {
            let o = e + 0x54 + 8 * i;
            (u16_at(&b, o), u16_at(&b, o + 2), u16_at(&b, o + 4))
        })
        .collect();
    assert_eq!(
        outs,
        [
            (semantic::POSITION, 0, 0xF),
            (semantic::TEXCOORD0, 1, 0xF),
            (semantic::TEXCOORD1, 2, 0xF),
            (semantic::COLOR, 3, 0xF)
        ]
    );
    // Uniforms: iPosition..iColor 0x00–0x03, mdlvMtx 0x10–0x13, projMtx 0x14–0x17.
    let unif: Vec<(u16, u16)> = (0..6)
        .map(|i| {
            let u = e + 0x74 + 8 * i;
            (u16_at(&b, u + 4), u16_at(&b, u + 6))
        })
        .collect();
    assert_eq!(
        unif,
        [(0, 0), (1, 1), (2, 2), (3, 3), (0x10, 0x13), (0x14, 0x17)]
    );
    let syms = &b[e + 0xA4..e + 0xA4 + 50];
    assert_eq!(
        syms,
        b"iPosition\0iTexCoord\0iBlend\0iColor\0mdlvMtx\0projMtx\0"
    );
    // The reader gives back what was written; write ∘ read is the identity on these bytes.
    let back = shbin::read(&b).unwrap();
    assert_eq!(back, {
        let mut s = sh.clone();
        s.dvles[0].uniforms.sort_by_key(|u| u.first);
        s
    });
    assert_eq!(shbin::write(&back), b);
}

/// Reference anchor A6 in spirit: a passthrough VS and a point-mode GS subdividing a triangle
/// with `call` + `setemit`/`emit`, in one SHBIN.
pub const PASS_VS: &str = "\
.out oPos position
.out oClr color
.proc main
    mov oPos, v0
    mov oClr, v1
    end
.end
";

pub const SUBDIV_GS: &str = "\
.gsh point c0
.fvec proj[4]
.constf g(0.0, 1.0, -1.0, 0.5)
.alias halfv g.wwww
.out gpos position
.out gclr color
.entry gmain
.proc gmain
    mov r4, v0
    add r4, v2, r4
    mul r4, halfv, r4
    mov r5, v2
    add r5, v4, r5
    mul r5, halfv, r5
    mov r6, v4
    add r6, v0, r6
    mul r6, halfv, r6
    mov r0, v0
    mov r1, r4
    mov r2, r6
    call tri
    mov r0, r4
    mov r1, v2
    mov r2, r5
    call tri
    mov r0, r6
    mov r1, r5
    mov r2, v4
    call tri
    end
.end
.proc tri
    setemit 0
    mov r8, r0
    mov r9, v1
    call vtx
    emit
    setemit 1
    mov r8, r1
    mov r9, v3
    call vtx
    emit
    setemit 2, prim
    mov r8, r2
    mov r9, v5
    call vtx
    emit
.end
.proc vtx
    dp4 gpos.x, proj[0], r8
    dp4 gpos.y, proj[1], r8
    dp4 gpos.z, proj[2], r8
    dp4 gpos.w, proj[3], r8
    mov gclr, r9
.end
";

#[test]
fn vertex_and_geometry_shader_in_one_file() {
    let sh = assemble_files(&[PASS_VS, SUBDIV_GS]).unwrap();
    assert_eq!(sh.code.len(), 3 + 42);
    assert_eq!(sh.dvles.len(), 2);
    let (vs, gs) = (&sh.dvles[0], &sh.dvles[1]);
    assert_eq!((vs.kind, vs.main, vs.endmain), (ShaderType::Vertex, 0, 3));
    assert_eq!(
        (gs.kind, gs.main, gs.endmain),
        (ShaderType::Geometry, 3, 25)
    );
    assert_eq!(gs.gs_mode, 0);
    assert_eq!(gs.uniforms[0].first, 0x10);
    assert_eq!(gs.constants[0].reg, 95);
    assert!(matches!(
        gs.constants[0].value,
        ConstValue::Float([0, 0x3F0000, 0xBF0000, 0x3E0000])
    ));
    let bytes = shbin::write(&sh);
    let back = shbin::read(&bytes).unwrap();
    assert_eq!(shbin::write(&back), bytes);
    // libctru's view: DVLE offsets, type byte, main/endmain.
    let off1 = u32_at(&bytes, 12) as usize;
    assert_eq!(&bytes[off1..off1 + 4], b"DVLE");
    assert_eq!(bytes[off1 + 6], 1);
    assert_eq!(u32_at(&bytes, off1 + 8), 3);
    assert_eq!(off1 % 4, 0);
    // Disassembly of both shaders re-assembles to the same file.
    let texts = disassemble_shbin(&back).unwrap();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let again = assemble_files(&refs).unwrap_or_else(|e| panic!("{e}\n{}", texts.join("\n----\n")));
    assert_eq!(again.code, sh.code, "{}", texts.join("\n----\n"));
    assert_eq!(again.opdescs, sh.opdescs);
}

#[test]
fn worked_example_disassembles_and_reassembles() {
    let sh = assemble(RENDER2D).unwrap();
    let texts = disassemble_shbin(&sh).unwrap();
    let again = assemble(&texts[0]).unwrap_or_else(|e| panic!("{e}\n{}", texts[0]));
    assert_eq!(again.code, sh.code, "{}", texts[0]);
    assert_eq!(again.opdescs, sh.opdescs);
    assert_eq!(again.dvles[0].outputs, sh.dvles[0].outputs);
    assert_eq!(again.dvles[0].constants, sh.dvles[0].constants);
    let mut u = sh.dvles[0].uniforms.clone();
    u.sort_by_key(|u| u.first);
    assert_eq!(again.dvles[0].uniforms, u);
}

#[test]
fn reader_never_panics_on_random_or_truncated_bytes() {
    let good = shbin::write(&assemble_files(&[PASS_VS, SUBDIV_GS]).unwrap());
    for cut in 0..good.len() {
        let _ = shbin::read(&good[..cut]);
    }
    let mut seed = 0x1234_5678_9ABC_DEF0u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let mut b = good.clone();
        for _ in 0..(next() % 8 + 1) {
            let i = (next() as usize) % b.len();
            b[i] = next() as u8;
        }
        let _ = shbin::read(&b);
        let len = (next() % 200) as usize;
        let junk: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let _ = shbin::read(&junk);
        let mut hdr = b"DVLB".to_vec();
        hdr.extend_from_slice(&junk);
        let _ = shbin::read(&hdr);
    }
}

/// A SHBIN of `k` DVLEs all at one offset, each with `c` constants (20 zero bytes: bool
/// false) and `c` uniforms (8 zero bytes: name offset 0), naming a symbol table of `s` bytes
/// `a` followed by `nul` NULs.
fn overlapping(k: usize, c: usize, s: usize, nul: usize) -> Vec<u8> {
    let dvlp = 8 + 4 * k;
    let dvle = dvlp + 0x28;
    let mut b = Vec::new();
    b.extend_from_slice(b"DVLB");
    b.extend_from_slice(&(k as u32).to_le_bytes());
    for _ in 0..k {
        b.extend_from_slice(&(dvle as u32).to_le_bytes());
    }
    let mut p = vec![0u8; 0x28];
    p[..4].copy_from_slice(b"DVLP");
    b.extend_from_slice(&p);
    let mut e = vec![0u8; 0x40];
    e[..4].copy_from_slice(b"DVLE");
    let mut put = |at: usize, v: usize| e[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes());
    put(0x18, 0x40);
    put(0x1C, c);
    put(0x30, 0x40 + 20 * c);
    put(0x34, c);
    put(0x38, 0x40 + 28 * c);
    put(0x3C, s + nul);
    b.extend_from_slice(&e);
    b.extend(std::iter::repeat_n(0u8, 28 * c));
    b.extend(std::iter::repeat_n(b'a', s));
    b.extend(std::iter::repeat_n(0u8, nul));
    b
}

/// A small file declaring huge work: 2000 DVLEs at one offset, each with the same 5000
/// constants and 5000 uniforms named by one 20 KB symbol without a NUL. Every table lies
/// inside the 170 KB file, but parsing each DVLE again would build 10M constants and 200 GB
/// of names; the reader parses at most the file's size of tables and reports the overlap.
#[test]
fn overlapping_tables_cannot_amplify_a_small_file() {
    let b = overlapping(2000, 5000, 20_000, 0);
    assert!(b.len() < 170_000);
    let start = std::time::Instant::now();
    let err = shbin::read(&b).unwrap_err();
    assert!(err.to_string().contains("tables overlap"), "{err}");
    assert!(start.elapsed().as_secs() < 2);
    // One DVLE is still too much when each of its 5000 uniforms names the whole 20 KB symbol
    // (100 MB of names from 160 KB): name bytes count too.
    let err = shbin::read(&overlapping(1, 5000, 20_000, 0)).unwrap_err();
    assert!(err.to_string().contains("tables overlap"), "{err}");
    // A small DVLE reads (real files with several DVLEs: `vertex_and_geometry_shader_in_one_file`).
    let sh = shbin::read(&overlapping(1, 5, 3, 1)).unwrap();
    assert_eq!(sh.dvles[0].constants.len(), 5);
    assert_eq!(sh.dvles[0].uniforms.len(), 5);
    assert_eq!(sh.dvles[0].uniforms[0].name, "aaa");
}

/// Fuzz finding (tools/fuzz, pica_shbin, overflow checks on): a uniform spanning registers
/// 0..=0xFFFF overflowed the u16 size computation of the disassembler.
#[test]
fn uniform_spanning_every_register_disassembles() {
    let mut sh = assemble(RENDER2D).unwrap();
    for (first, last) in [(0, 0xFFFF), (0x10, 0xFFFF), (0xFFFF, 0)] {
        let u = &mut sh.dvles[0].uniforms[0];
        (u.first, u.last) = (first, last);
        let texts = disassemble_shbin(&sh).unwrap();
        if first == 0x10 {
            assert!(texts[0].contains("[65520]"), "{}", texts[0]);
        }
    }
}
