//! Binary format tests: the shared corpus round-trips byte for byte, and arbitrary or mutated
//! bytes never make the reader panic (whatever it accepts writes and reads back unchanged).

use irc_ir::binary::{read, write};
use irc_ir::{Builder, Module, Op, OpCode, OpFlags, Operand, ScalarType, Type};
use std::path::{Path, PathBuf};

/// The corpus root: `$IRC_CORPUS`, else `../shared/corpus` beside the workspace.
fn corpus_root() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("IRC_CORPUS") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    p.is_dir().then_some(p)
}

fn collect_dxir(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_dxir(&p, out);
        } else if p.extension().is_some_and(|x| x == "dxir") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_round_trips_byte_for_byte() {
    let Some(root) = corpus_root() else {
        println!("corpus not found, skipped");
        return;
    };
    let dir = if root.join("ir").is_dir() {
        root.join("ir")
    } else {
        root
    };
    let mut files = Vec::new();
    collect_dxir(&dir, &mut files);
    files.sort();
    if files.is_empty() {
        println!("corpus not found, skipped");
        return;
    }
    let mut failures = Vec::new();
    for f in &files {
        let bytes = match std::fs::read(f) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: cannot read: {e}", f.display()));
                continue;
            }
        };
        let result = read(&bytes)
            .map_err(|e| format!("read: {e}"))
            .and_then(|m| {
                let out = write(&m).map_err(|e| format!("write: {e}"))?;
                if out == bytes {
                    return Ok(());
                }
                let at = out
                    .iter()
                    .zip(&bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len());
                Err(format!(
                    "differs at byte {at} ({} vs {} bytes)",
                    out.len(),
                    bytes.len()
                ))
            });
        if let Err(e) = result {
            failures.push(format!("{}: {e}", f.display()));
        }
    }
    let ok = files.len() - failures.len();
    println!(
        "corpus: {ok}/{} .dxir files round-tripped identically",
        files.len()
    );
    for f in failures.iter().take(20) {
        println!("  {f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed",
        failures.len(),
        files.len()
    );
}

/// SplitMix64: a tiny seeded generator, enough for reproducible byte soup.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

/// Reads `bytes`; if accepted, the module must write and read back to an equal module.
fn check(bytes: &[u8]) -> bool {
    let Ok(m) = read(bytes) else { return false };
    let out = write(&m).unwrap_or_else(|e| panic!("accepted module fails to write: {e}"));
    let again = read(&out).unwrap_or_else(|e| panic!("written module fails to read: {e}"));
    assert!(again == m, "module changed across write/read");
    assert_eq!(
        write(&again).ok().as_deref(),
        Some(&out[..]),
        "second write differs"
    );
    true
}

/// A few valid streams covering declarations, constants, forward refs, structs and arrays.
fn seed_streams() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();

    let mut m = Module::new();
    let mut b = Builder::new(&mut m);
    let f32x4 = Type::vector(ScalarType::F32, 4);
    let func = b.add(Op::new(OpCode::Function, Type::void()));
    b.add(
        Op::new(OpCode::DebugName, Type::void())
            .arg(func)
            .string("main_function"),
    );
    let ep = b.add(Op::new(OpCode::EntryPoint, Type::void()).arg(func).lit(1));
    let input = b.add(
        Op::new(OpCode::DclInput, f32x4.clone())
            .arg(ep)
            .lit(0)
            .lit(0xf)
            .lit(2),
    );
    let output = b.add(
        Op::new(OpCode::DclOutput, f32x4.clone())
            .arg(ep)
            .lit(0)
            .lit(0xf),
    );
    let zero = b.const_u32(0);
    let half = b.const_f32(0.5);
    let neg = b.const_i32(-64);
    let cvec = b.constant(f32x4.clone(), &[0, 1, 2, 0x3f80_0000]);
    let st = Type::structure([
        irc_ir::BasicType::scalar(ScalarType::U32),
        irc_ir::BasicType::new(ScalarType::F32, 3),
    ])
    .array_of(2);
    b.constant(st, &[1, 2, 3, 4, 5, 6, 7, 8]);
    b.undef(ScalarType::F32);
    b.add(Op::new(OpCode::Label, Type::void()).lit(0));
    let x = b.add(
        Op::new(OpCode::InputLoad, ScalarType::F32)
            .arg(input)
            .arg(zero),
    );
    let y = b.add(
        Op::new(OpCode::FMul, ScalarType::F32)
            .arg(x)
            .arg(half)
            .with_flags(OpFlags::PRECISE),
    );
    let z = b.add(Op::new(OpCode::ConvertItoF, ScalarType::F32).arg(neg));
    let w = b.add(Op::new(OpCode::FAdd, ScalarType::F32).arg(y).arg(z));
    let v = b.add(
        Op::new(OpCode::CompositeConstruct, f32x4)
            .arg(w)
            .arg(w)
            .arg(w)
            .arg(w),
    );
    let _ = cvec;
    b.add(
        Op::new(OpCode::OutputStore, Type::void())
            .arg(output)
            .arg(Operand::Null)
            .arg(v),
    );
    b.add(Op::new(OpCode::Return, Type::void()));
    b.add(Op::new(OpCode::FunctionEnd, Type::void()));
    seeds.push(write(&m).expect("seed 1"));

    // Structured control flow with forward references (labels, branches, phi).
    let mut m = Module::new();
    let func = m.add(Op::new(OpCode::Function, Type::void()));
    m.add(Op::new(OpCode::EntryPoint, Type::void()).arg(func).lit(32));
    let t = m.add(Op::new(OpCode::Constant, ScalarType::Bool).lit(1));
    let one = m.add(Op::new(OpCode::Constant, ScalarType::U32).lit(1));
    let two = m.add(Op::new(OpCode::Constant, ScalarType::U32).lit(0xffff_ffff));
    let entry = m.add(Op::new(OpCode::Label, Type::void()).lit(0));
    let br = m.add(
        Op::new(OpCode::BranchConditional, Type::void())
            .arg(t)
            .arg(entry)
            .arg(entry),
    );
    let a = m.add(Op::new(OpCode::Label, Type::void()).lit(0));
    let ba = m.add(Op::new(OpCode::Branch, Type::void()).arg(a));
    let c = m.add(Op::new(OpCode::Label, Type::void()).lit(0));
    let bc = m.add(Op::new(OpCode::Branch, Type::void()).arg(c));
    let merge = m.add(Op::new(OpCode::Label, Type::void()).lit(0));
    m.add(
        Op::new(OpCode::Phi, ScalarType::U32)
            .arg(a)
            .arg(one)
            .arg(c)
            .arg(two),
    );
    m.add(Op::new(OpCode::Return, Type::void()));
    m.add(Op::new(OpCode::FunctionEnd, Type::void()));
    // Point the branches forward.
    m.set_operand(br, 1, Operand::Ref(a));
    m.set_operand(br, 2, Operand::Ref(c));
    m.set_operand(ba, 0, Operand::Ref(merge));
    m.set_operand(bc, 0, Operand::Ref(merge));
    let _ = entry;
    seeds.push(write(&m).expect("seed 2"));

    seeds
}

#[test]
fn seed_streams_are_accepted() {
    for s in seed_streams() {
        assert!(check(&s), "seed stream rejected: {:?}", read(&s).err());
    }
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut rng = SplitMix64(0x1234_5678_9abc_def0);
    let mut accepted = 0;
    for _ in 0..100_000 {
        let len = rng.below(64);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
        // Small op counts make it past the first checks more often.
        if let Some(b) = bytes.first_mut() {
            if rng.below(2) == 0 {
                *b &= 0x07;
            }
        }
        accepted += check(&bytes) as usize;
    }
    println!("random: {accepted} of 100000 accepted");
}

#[test]
fn mutated_streams_never_panic() {
    let seeds = seed_streams();
    let mut rng = SplitMix64(42);
    let (mut total, mut accepted) = (0, 0);
    for seed in &seeds {
        for _ in 0..25_000 {
            let mut bytes = seed.clone();
            for _ in 0..1 + rng.below(3) {
                match rng.below(5) {
                    0 | 1 if !bytes.is_empty() => {
                        let i = rng.below(bytes.len());
                        bytes[i] ^= 1 << rng.below(8);
                    }
                    2 if !bytes.is_empty() => {
                        let i = rng.below(bytes.len());
                        bytes[i] = rng.byte();
                    }
                    3 => {
                        let i = rng.below(bytes.len() + 1);
                        bytes.insert(i, rng.byte());
                    }
                    _ => {
                        let n = rng.below(bytes.len() + 1);
                        bytes.truncate(n);
                    }
                }
            }
            total += 1;
            accepted += check(&bytes) as usize;
        }
    }
    println!("mutations: {accepted} of {total} accepted");
}

/// Fuzz finding (tools/fuzz, ir_text): the text parser takes a constant whose literal count
/// does not match its type (`%1 = f32 Constant`), and the writer wrote it although the reader
/// rejects it; the writer now refuses, so whatever it writes reads back.
#[test]
fn writer_refuses_constants_the_reader_rejects() {
    for src in [
        "%1 = f32 Constant",
        "%1 = f32x2 Constant 1.0",
        "%1 = f32 Constant 1.0 2.0",
    ] {
        let m = irc_ir::text::parse(src).unwrap();
        let e = write(&m).unwrap_err();
        assert!(
            matches!(e, irc_ir::binary::WriteError::ConstantCount { .. }),
            "{src}: {e}"
        );
    }
    let m = irc_ir::text::parse("%1 = f32x2 Constant 1.0 2.0").unwrap();
    assert!(read(&write(&m).unwrap()).unwrap() == m);
}

/// Fuzz finding (tools/fuzz, ir_text, long run 2026-11-25): the text parser takes opcode 0
/// (`Unknown`, the invalid/null op, so that the verifier can report it), the writer wrote it,
/// and the reader rejects it; the writer now refuses it.
#[test]
fn writer_refuses_the_unknown_opcode() {
    let src = "%1 = EntryPoint %10 Pixel\n%2 = f32x4 DclOutput %1 0 0\n\
               %3 = f32x4 Constant 0.0 0.5 1.0 1.0\n%4 = Unknown\n\n%10 = Function\n\
               %11 = Label None\n  %12 = OutputStore %2 null %3\n  %13 = Return\n\
               %14 = FunctionEnd\n";
    let m = irc_ir::text::parse(src).unwrap();
    let e = write(&m).unwrap_err();
    assert!(
        matches!(e, irc_ir::binary::WriteError::UnknownOpcode { .. }),
        "{e}"
    );
    assert!(e.to_string().contains("%4"), "{e}");
}

/// Fuzz finding (tools/fuzz, ir_text): the text format allows any forward reference, the
/// binary reader only where `OpCode::allows_forward_ref` says; the writer wrote a `Select`
/// reading a later op and the reader refused it. The writer now refuses.
#[test]
fn writer_refuses_forward_references_the_reader_rejects() {
    let src = "%1 = f32 Constant 1.0\n%2 = bool Constant true\n%3 = Function\n%4 = Label None\n\
               %5 = f32 Select %2 %6 %1\n%6 = f32 FAdd %1 %1\n%7 = Return\n%8 = FunctionEnd\n";
    let m = irc_ir::text::parse(src).unwrap();
    let e = write(&m).unwrap_err();
    assert!(
        matches!(e, irc_ir::binary::WriteError::ForwardRef { operand: 1, .. }),
        "{e}"
    );
}

/// Fuzz finding (tools/fuzz, ir_text): the text parser takes a number for an enum literal
/// (`EntryPoint %f 3`), the reader rejects values the enum does not define; the writer wrote
/// it anyway. The writer now refuses.
#[test]
fn writer_refuses_enum_values_the_reader_rejects() {
    let src =
        "%1 = EntryPoint %2 3\n%2 = Function\n%3 = Label None\n%4 = Return\n%5 = FunctionEnd\n";
    let m = irc_ir::text::parse(src).unwrap();
    let e = write(&m).unwrap_err();
    assert!(
        matches!(
            e,
            irc_ir::binary::WriteError::InvalidLiteral {
                operand: 1,
                value: 3,
                ..
            }
        ),
        "{e}"
    );
}
