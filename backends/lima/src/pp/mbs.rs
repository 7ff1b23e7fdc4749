//! The MBS1 container (reference lima.md §16): what ARM's offline compiler and
//! `glGetProgramBinary` produce, and what Mesa's `lima_disasm` reads.
//!
//! An MBS1 file is a tree of RIFF-like chunks, `char ident[4]; u32 size;` then `size` payload
//! bytes (little-endian). [`write_mbs1`] writes a fragment program:
//!
//! ```text
//! MBS1
//!   CFRA  u32 version = 7 (Mali-400 PP)
//!     FSTA  u32 stack size (PpReflection::temp_stack, vec4 units), u32 stack offset = 0
//!     FDIS  u32 discard (Reflection::discards)
//!     FBUU  u8 reads_color 0, writes_color, reads_depth 0, writes_depth 0, reads_stencil 0,
//!           writes_stencil 0, 0, 0
//!     SUNI  u32 count, then one VUNI per uniform group and per sampler
//!     SVAR  u32 count, then one VVAR per varying
//!     DBIN  the code words
//! ```
//!
//! A symbol chunk (`VUNI`/`VVAR`) holds a `STRI` chunk (the name, NUL-terminated, zero-padded
//! to 4 bytes), then `u8 0, u8 type, u16 component_count, u16 component_size, u16 entry_count,
//! u16 src_stride, u8 dst_stride, u8 precision, u32 invariant, u16 offset, u16 index`.
//! The reference names these fields but not all their conventions; we write: type 1 (float),
//! 5 (sampler2D: 2D and 3D samplers) or 6 (samplerCube); `component_size` 2 (PP uniforms and
//! varyings are fp16); `entry_count` the number of vec4 slots (1 for a varying or sampler);
//! strides 4 scalars; precision 2 (mediump); `invariant` 0; `offset` the first scalar
//! (`slot · 4 + lane` — the sampler index for samplers); `index` 0xFFFF (no parent struct).
//!
//! Uniform groups are runs of consecutive slots filled from consecutive registers of one
//! source, named after it: `c12` (D3D9 float constants c12…, `i3`/`b0` for int/bool
//! constants), `cb0[3]` (constant buffer register 0 from vec4 3; `cb0.s1[3]` in space 1),
//! `__const5` (compiler literals from slot 5). Samplers are named `s<index>`, varyings `v2`
//! (location 2, component 0), `v2.z` (a later first component) or the built-in's name.
//!
//! [`read_mbs1`] finds the code of a fragment or vertex program (skipping every other chunk by
//! its size, as Mesa's reader does), [`read_mbs1_stage`] that of one stage; they never panic,
//! and truncated or inconsistent input is an [`MbsError`] naming the byte offset.
//!
//! **Programs.** The blob writes one stage per file (`MBS1` → one `CFRA` or `CVER`, reference
//! §16). For a program (`irc compile --target lima --vs VS --ps PS --emit container`)
//! [`merge_mbs1`] writes one file whose `MBS1` root holds both stages' chunks in pipeline
//! order, each exactly as in its own file:
//!
//! ```text
//! MBS1
//!   CVER  (the vertex program: version, FINS, DBIN)
//!   CFRA  (the fragment program: version, FSTA, FDIS, FBUU, SUNI, SVAR, DBIN)
//! ```
//!
//! Why this layout: the root is already a list of RIFF-like chunks, so a second child is the
//! format's own way to carry a second stage; each stage stays byte-identical to the file the
//! stage would have alone; a reader that takes the first program chunk (Mesa's `lima_disasm`,
//! our [`read_mbs1`]) still reads a valid program (the vertex one), and [`read_mbs1_stage`]
//! picks either by its identifier. That the blob's own program binaries look like this is
//! not known (the reference describes single-stage files only).

use irc_backend::{IoSource, Reflection, SamplerKind, UniformSource};
use thiserror::Error;

/// CFRA version of the Mali-400 fragment processor (5 would be Mali-200).
pub const CFRA_VERSION_MALI400: u32 = 7;

/// The code words of program chunk `stage` (`CFRA` or `CVER`) given as an MBS1 file, or of
/// raw little-endian words.
pub fn code_words(bytes: &[u8], stage: &[u8; 4]) -> Result<Vec<u32>, String> {
    if is_mbs1(bytes) {
        return read_mbs1_stage(bytes, stage).map_err(|e| e.to_string());
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "{} bytes is not a whole number of 32-bit words",
            bytes.len()
        ));
    }
    Ok(irc_backend::output::words_of(bytes))
}

/// Why [`read_mbs1`] found no code.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MbsError {
    #[error("not an MBS1 file (starts with {found:02x?}, expected \"MBS1\")")]
    NotMbs { found: Vec<u8> },
    #[error("byte {offset}: `{chunk}` chunk needs {needed} bytes, {available} left")]
    Truncated {
        offset: usize,
        chunk: String,
        needed: usize,
        available: usize,
    },
    #[error("byte {offset}: expected a CFRA or CVER chunk, found `{found}`")]
    NoProgram { offset: usize, found: String },
    #[error("no `{want}` (program) chunk in the MBS1 file")]
    NoStage { want: String },
    #[error("no DBIN (code) chunk in the {program} chunk")]
    NoCode { program: String },
    #[error("byte {offset}: DBIN size {size} is not a multiple of 4")]
    Misaligned { offset: usize, size: usize },
}

/// Writes `words` and what `reflection` says about them as an MBS1 fragment program.
pub fn write_mbs1(words: &[u32], reflection: &Reflection) -> Vec<u8> {
    let mut cfra = CFRA_VERSION_MALI400.to_le_bytes().to_vec();
    let temp_stack = super::reflection::PpReflection::of(reflection).temp_stack;
    let mut fsta = temp_stack.to_le_bytes().to_vec();
    fsta.extend(0u32.to_le_bytes());
    chunk(&mut cfra, b"FSTA", &fsta);
    chunk(
        &mut cfra,
        b"FDIS",
        &u32::from(reflection.discards).to_le_bytes(),
    );
    let writes_color = u8::from(!reflection.outputs.is_empty());
    chunk(&mut cfra, b"FBUU", &[0, writes_color, 0, 0, 0, 0, 0, 0]);
    chunk(&mut cfra, b"SUNI", &table(&uniform_symbols(reflection)));
    chunk(&mut cfra, b"SVAR", &table(&varying_symbols(reflection)));
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    chunk(&mut cfra, b"DBIN", &code);
    let mut root = Vec::with_capacity(cfra.len() + 8);
    chunk(&mut root, b"CFRA", &cfra);
    let mut out = Vec::with_capacity(root.len() + 8);
    chunk(&mut out, b"MBS1", &root);
    out
}

/// True if `bytes` start like an MBS1 file.
pub fn is_mbs1(bytes: &[u8]) -> bool {
    bytes.starts_with(b"MBS1")
}

/// The code words of the fragment (`CFRA`) or vertex (`CVER`) program in an MBS1 file (the
/// first one, for a file holding both).
pub fn read_mbs1(bytes: &[u8]) -> Result<Vec<u32>, MbsError> {
    let (root, root_at) = read_root(bytes)?;
    let (ident, program, program_at) = read_chunk(root, 0).map_err(|e| shift(e, root_at))?;
    if ident != *b"CFRA" && ident != *b"CVER" {
        return Err(MbsError::NoProgram {
            offset: root_at,
            found: name(&ident),
        });
    }
    program_code(&ident, program, root_at + program_at)
}

/// The code words of the program chunk `want` (`CFRA` or `CVER`) of an MBS1 file, which may
/// hold both stages of a program ([`merge_mbs1`]).
pub fn read_mbs1_stage(bytes: &[u8], want: &[u8; 4]) -> Result<Vec<u32>, MbsError> {
    let (root, root_at) = read_root(bytes)?;
    let mut at = 0;
    while at < root.len() {
        let (ident, program, program_at) = read_chunk(root, at).map_err(|e| shift(e, root_at))?;
        if ident == *want {
            return program_code(&ident, program, root_at + program_at);
        }
        at = program_at + program.len();
    }
    Err(MbsError::NoStage { want: name(want) })
}

/// One MBS1 file holding the program chunks of the single-stage MBS1 files `stages`, in the
/// order given (module doc).
pub fn merge_mbs1(stages: &[&[u8]]) -> Result<Vec<u8>, MbsError> {
    let mut root = Vec::new();
    for bytes in stages {
        let (payload, _) = read_root(bytes)?;
        root.extend_from_slice(payload);
    }
    let mut out = Vec::with_capacity(root.len() + 8);
    chunk(&mut out, b"MBS1", &root);
    Ok(out)
}

/// The payload of the `MBS1` root chunk and its offset.
fn read_root(bytes: &[u8]) -> Result<(&[u8], usize), MbsError> {
    if !is_mbs1(bytes) {
        return Err(MbsError::NotMbs {
            found: bytes.iter().take(4).copied().collect(),
        });
    }
    let (_, root, root_at) = read_chunk(bytes, 0)?;
    Ok((root, root_at))
}

/// The `DBIN` words of the program chunk `ident` (payload `program` at byte `program_at`).
fn program_code(ident: &[u8; 4], program: &[u8], program_at: usize) -> Result<Vec<u32>, MbsError> {
    if program.len() < 4 {
        return Err(MbsError::Truncated {
            offset: program_at,
            chunk: format!("{} version", name(ident)),
            needed: 4,
            available: program.len(),
        });
    }
    let mut at = 4;
    while at < program.len() {
        let (sub, payload, payload_at) =
            read_chunk(program, at).map_err(|e| shift(e, program_at))?;
        if sub == *b"DBIN" {
            if payload.len() % 4 != 0 {
                return Err(MbsError::Misaligned {
                    offset: program_at + at,
                    size: payload.len(),
                });
            }
            return Ok(payload
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect());
        }
        at = payload_at + payload.len();
    }
    Err(MbsError::NoCode {
        program: name(ident),
    })
}

/// Reads the chunk at `at` of `bytes`: (ident, payload, payload offset).
fn read_chunk(bytes: &[u8], at: usize) -> Result<([u8; 4], &[u8], usize), MbsError> {
    let header = bytes.get(at..at + 8).ok_or_else(|| MbsError::Truncated {
        offset: at,
        chunk: "chunk header".into(),
        needed: 8,
        available: bytes.len().saturating_sub(at),
    })?;
    let ident = [header[0], header[1], header[2], header[3]];
    let size = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
    let start = at + 8;
    let payload = start
        .checked_add(size)
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| MbsError::Truncated {
            offset: at,
            chunk: name(&ident),
            needed: size,
            available: bytes.len() - start,
        })?;
    Ok((ident, payload, start))
}

/// `e` with its offset moved by `base` (for errors found inside a chunk's payload).
fn shift(e: MbsError, base: usize) -> MbsError {
    match e {
        MbsError::Truncated {
            offset,
            chunk,
            needed,
            available,
        } => MbsError::Truncated {
            offset: offset + base,
            chunk,
            needed,
            available,
        },
        MbsError::NoProgram { offset, found } => MbsError::NoProgram {
            offset: offset + base,
            found,
        },
        MbsError::Misaligned { offset, size } => MbsError::Misaligned {
            offset: offset + base,
            size,
        },
        e => e,
    }
}

fn name(ident: &[u8; 4]) -> String {
    String::from_utf8_lossy(ident).into_owned()
}

/// Appends a chunk.
fn chunk(out: &mut Vec<u8>, ident: &[u8; 4], payload: &[u8]) {
    out.extend_from_slice(ident);
    out.extend((payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
}

/// A `{u32 count; symbols}` table payload of symbol chunks.
fn table(symbols: &[Vec<u8>]) -> Vec<u8> {
    let mut out = (symbols.len() as u32).to_le_bytes().to_vec();
    for s in symbols {
        out.extend_from_slice(s);
    }
    out
}

/// One symbol (type per the module docs).
struct Symbol {
    kind: &'static [u8; 4],
    name: String,
    ty: u8,
    components: u16,
    entries: u16,
    offset: u16,
}

impl Symbol {
    fn encode(&self) -> Vec<u8> {
        let mut stri = self.name.as_bytes().to_vec();
        stri.push(0);
        stri.resize(stri.len().div_ceil(4) * 4, 0);
        let mut p = Vec::with_capacity(stri.len() + 28);
        chunk(&mut p, b"STRI", &stri);
        p.extend([0, self.ty]);
        p.extend(self.components.to_le_bytes());
        p.extend(2u16.to_le_bytes()); // component_size: fp16
        p.extend(self.entries.to_le_bytes());
        p.extend(4u16.to_le_bytes()); // src_stride
        p.extend([4, 2]); // dst_stride, precision (mediump)
        p.extend(0u32.to_le_bytes()); // invariant
        p.extend(self.offset.to_le_bytes());
        p.extend(0xFFFFu16.to_le_bytes()); // index: no parent struct
        let mut out = Vec::with_capacity(p.len() + 8);
        chunk(&mut out, self.kind, &p);
        out
    }
}

fn clamp16(v: u32) -> u16 {
    u16::try_from(v).unwrap_or(u16::MAX)
}

/// The uniform groups and samplers of `r` as VUNI chunks.
fn uniform_symbols(r: &Reflection) -> Vec<Vec<u8>> {
    let mut uniforms: Vec<_> = r.uniforms.iter().collect();
    uniforms.sort_by_key(|u| u.slot);
    // (first slot, source of the first slot, slots in the group)
    let mut groups: Vec<(u32, &UniformSource, u32)> = Vec::new();
    for u in uniforms {
        if let Some((first, src, n)) = groups.last_mut() {
            if *first + *n == u.slot && continues(src, *n, &u.source) {
                *n += 1;
                continue;
            }
        }
        groups.push((u.slot, &u.source, 1));
    }
    let mut out: Vec<Vec<u8>> = groups
        .into_iter()
        .map(|(slot, src, n)| {
            Symbol {
                kind: b"VUNI",
                name: uniform_name(src, slot),
                ty: 1,
                components: 4,
                entries: clamp16(n),
                offset: clamp16(slot.saturating_mul(4)),
            }
            .encode()
        })
        .collect();
    out.extend(r.samplers.iter().map(|s| {
        Symbol {
            kind: b"VUNI",
            name: format!("s{}", s.index),
            ty: if s.kind == SamplerKind::Cube { 6 } else { 5 },
            components: 1,
            entries: 1,
            offset: clamp16(s.index),
        }
        .encode()
    }));
    out
}

/// True if `next` is what the slot `n` slots after a group starting with `first` would hold
/// for the group to continue.
fn continues(first: &UniformSource, n: u32, next: &UniformSource) -> bool {
    match (first, next) {
        (
            UniformSource::Legacy { kind, index },
            UniformSource::Legacy {
                kind: k2,
                index: i2,
            },
        ) => kind == k2 && index.checked_add(n) == Some(*i2),
        (
            UniformSource::ConstantBuffer {
                binding,
                vec4_index,
                ..
            },
            UniformSource::ConstantBuffer {
                binding: b2,
                vec4_index: v2,
                ..
            },
        ) => binding == b2 && vec4_index.checked_add(n) == Some(*v2),
        (UniformSource::Literal(_), UniformSource::Literal(_)) => true,
        _ => false,
    }
}

fn uniform_name(src: &UniformSource, slot: u32) -> String {
    match src {
        UniformSource::Legacy { kind, index } => {
            let prefix = match kind {
                irc_ir::BuiltIn::LegacyConstInt => "i",
                irc_ir::BuiltIn::LegacyConstBool => "b",
                _ => "c",
            };
            format!("{prefix}{index}")
        }
        UniformSource::ConstantBuffer {
            binding,
            vec4_index,
            ..
        } if binding.space == 0 => format!("cb{}[{vec4_index}]", binding.register),
        UniformSource::ConstantBuffer {
            binding,
            vec4_index,
            ..
        } => format!("cb{}.s{}[{vec4_index}]", binding.register, binding.space),
        UniformSource::Literal(_) => format!("__const{slot}"),
        UniformSource::LegacyLoop { index } => format!("i{index}_loop"),
    }
}

/// The varyings of `r` as VVAR chunks.
fn varying_symbols(r: &Reflection) -> Vec<Vec<u8>> {
    r.varyings
        .iter()
        .map(|v| {
            let name = match v.source {
                IoSource::Location {
                    location,
                    component: 0,
                } => format!("v{location}"),
                IoSource::Location {
                    location,
                    component,
                } => format!("v{location}.{}", b"xyzw"[component as usize % 4] as char),
                IoSource::BuiltIn(b) => format!("{b:?}"),
            };
            Symbol {
                kind: b"VVAR",
                name,
                ty: 1,
                components: u16::from(v.components),
                entries: 1,
                offset: clamp16(v.slot.saturating_mul(4).saturating_add(u32::from(v.lane))),
            }
            .encode()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use irc_backend::reflection::ResourceBinding;
    use irc_backend::{OutputBinding, SamplerBinding, UniformBinding, VaryingBinding};
    use irc_ir::BuiltIn;

    /// Lima reference test vector 1 (`PP_CLEAR_PROGRAM`).
    const WORDS: [u32; 8] = [
        0x00020425, 0x0000000c, 0x01e007cf, 0xb0000000, 0x000005f5, 0, 0, 0,
    ];

    fn reflection() -> Reflection {
        let legacy = |slot, index| UniformBinding {
            slot,
            source: UniformSource::Legacy {
                kind: BuiltIn::LegacyConstFloat,
                index,
            },
        };
        Reflection {
            varyings: vec![VaryingBinding {
                source: IoSource::Location {
                    location: 1,
                    component: 0,
                },
                slot: 0,
                lane: 0,
                components: 2,
            }],
            uniforms: vec![
                legacy(0, 12),
                legacy(1, 13),
                legacy(2, 20),
                UniformBinding {
                    slot: 3,
                    source: UniformSource::ConstantBuffer {
                        binding: ResourceBinding {
                            space: 0,
                            register: 0,
                        },
                        vec4_index: 3,
                        int_lanes: 0,
                    },
                },
                UniformBinding {
                    slot: 4,
                    source: UniformSource::Literal([1.0, 2.0, 3.0, 4.0]),
                },
            ],
            uniform_slots: 5,
            samplers: vec![SamplerBinding {
                index: 0,
                texture: ResourceBinding {
                    space: 0,
                    register: 0,
                },
                sampler: None,
                kind: SamplerKind::Cube,
            }],
            outputs: vec![OutputBinding {
                target: IoSource::Location {
                    location: 0,
                    component: 0,
                },
                register: 0,
                components: 4,
            }],
            discards: true,
            target: Some(irc_backend::TargetPart::new(
                crate::pp::reflection::PpReflection {
                    special_inputs: vec![],
                    temp_stack: 3,
                },
            )),
        }
    }

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }

    #[test]
    fn round_trip() {
        let bytes = write_mbs1(&WORDS, &reflection());
        assert_eq!(read_mbs1(&bytes), Ok(WORDS.to_vec()));
        let empty = write_mbs1(&[], &Reflection::default());
        assert_eq!(read_mbs1(&empty), Ok(vec![]));
    }

    #[test]
    fn layout() {
        let b = write_mbs1(&WORDS, &reflection());
        assert_eq!(&b[0..4], b"MBS1");
        assert_eq!(u32_at(&b, 4) as usize, b.len() - 8);
        assert_eq!(&b[8..12], b"CFRA");
        assert_eq!(u32_at(&b, 12) as usize, b.len() - 16);
        assert_eq!(u32_at(&b, 16), 7);
        assert_eq!(&b[20..24], b"FSTA");
        assert_eq!((u32_at(&b, 24), u32_at(&b, 28), u32_at(&b, 32)), (8, 3, 0));
        assert_eq!(&b[36..40], b"FDIS");
        assert_eq!((u32_at(&b, 40), u32_at(&b, 44)), (4, 1));
        assert_eq!(&b[48..52], b"FBUU");
        assert_eq!(&b[56..64], &[0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&b[64..68], b"SUNI");
        // c12 (2 slots), c20, cb0[3], __const4, s0.
        assert_eq!(u32_at(&b, 72), 5);
        assert_eq!(&b[76..80], b"VUNI");
        assert_eq!(&b[84..88], b"STRI");
        assert_eq!(u32_at(&b, 88), 4);
        assert_eq!(&b[92..96], b"c12\0");
        // u8 0, type float, 4 components, size 2, 2 entries.
        assert_eq!(&b[96..98], &[0, 1]);
        assert_eq!(&b[98..104], &[4, 0, 2, 0, 2, 0]);
        let text = String::from_utf8_lossy(&b);
        for name in ["c20\0", "cb0[3]\0", "__const4\0", "s0\0", "v1\0"] {
            assert!(text.contains(name), "{name} missing");
        }
        // The code is the last chunk.
        let dbin = b.len() - 8 - 32;
        assert_eq!(&b[dbin..dbin + 4], b"DBIN");
        assert_eq!(u32_at(&b, dbin + 4), 32);
    }

    /// The minimal file Mesa's `lima_disasm` accepts (lima.md §16).
    #[test]
    fn minimal_file() {
        let mut b = b"MBS1".to_vec();
        b.extend(28u32.to_le_bytes());
        b.extend(b"CVER");
        b.extend(20u32.to_le_bytes());
        b.extend(6u32.to_le_bytes());
        b.extend(b"DBIN");
        b.extend(8u32.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        b.extend(2u32.to_le_bytes());
        assert_eq!(read_mbs1(&b), Ok(vec![1, 2]));
    }

    #[test]
    fn a_program_file_holds_both_stages() {
        let vs_words = [0xad46_8580, 0x4380_c2b5, 0x0007_ff80, 0x000a_d500];
        let program = crate::gp::decode_program(&vs_words).unwrap();
        let vs = crate::gp::mbs::write_mbs1(&program, &vs_words);
        let fs = write_mbs1(&WORDS, &reflection());
        let both = merge_mbs1(&[&vs, &fs]).unwrap();
        // MBS1 { CVER as in its own file, CFRA as in its own file }.
        assert_eq!(&both[0..4], b"MBS1");
        assert_eq!(u32_at(&both, 4) as usize, both.len() - 8);
        assert_eq!(&both[8..], [&vs[8..], &fs[8..]].concat());
        assert_eq!(read_mbs1_stage(&both, b"CVER"), Ok(vs_words.to_vec()));
        assert_eq!(read_mbs1_stage(&both, b"CFRA"), Ok(WORDS.to_vec()));
        // The first program is what a single-stage reader finds.
        assert_eq!(read_mbs1(&both), Ok(vs_words.to_vec()));
        assert_eq!(
            read_mbs1_stage(&vs, b"CFRA"),
            Err(MbsError::NoStage {
                want: "CFRA".into()
            })
        );
        assert!(merge_mbs1(&[&vs, b"RIFF\0\0\0\0"]).is_err());
        for len in 0..both.len() {
            let _ = read_mbs1_stage(&both[..len], b"CFRA");
        }
    }

    #[test]
    fn truncated_and_bad_input_is_an_error() {
        let bytes = write_mbs1(&WORDS, &reflection());
        for len in 0..bytes.len() {
            assert!(read_mbs1(&bytes[..len]).is_err(), "prefix of {len} bytes");
        }
        assert!(matches!(
            read_mbs1(b"RIFF\0\0\0\0"),
            Err(MbsError::NotMbs { .. })
        ));
        // A size field pointing far past the end.
        let mut huge = bytes.clone();
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            read_mbs1(&huge),
            Err(MbsError::Truncated { offset: 0, .. })
        ));
        // A DBIN of 3 bytes.
        let mut b = b"MBS1".to_vec();
        b.extend(23u32.to_le_bytes());
        b.extend(b"CFRA");
        b.extend(15u32.to_le_bytes());
        b.extend(7u32.to_le_bytes());
        b.extend(b"DBIN");
        b.extend(3u32.to_le_bytes());
        b.extend([1, 2, 3]);
        assert!(matches!(read_mbs1(&b), Err(MbsError::Misaligned { .. })));
        // No DBIN at all.
        let mut b = b"MBS1".to_vec();
        b.extend(12u32.to_le_bytes());
        b.extend(b"CFRA");
        b.extend(4u32.to_le_bytes());
        b.extend(7u32.to_le_bytes());
        assert!(matches!(read_mbs1(&b), Err(MbsError::NoCode { .. })));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut x: u32 = 0x1234_5678;
        for len in 0..300usize {
            let mut b = b"MBS1".to_vec();
            b.extend((0..len).map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            }));
            let _ = read_mbs1(&b);
        }
    }
}
