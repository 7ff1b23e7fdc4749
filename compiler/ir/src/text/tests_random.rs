//! Randomized tests: a property test over random modules (`parse(print(m)) == m`, printing is
//! a fixed point) and a bounded fuzz test (random token soup and mutated valid text never make
//! the parser panic, and whatever it accepts round-trips). Seeded SplitMix64, deterministic.

use super::*;
use crate::builder::{Builder, Position};
use crate::entities::SsaDef;
use crate::module::Module;
use crate::op::{Op, Operand};
use crate::opcode::{LitKind, OpCode, MANY};
use crate::strings;
use crate::types::{BasicType, ScalarType, Type};
use cranelift_entity::EntityRef;
use rustc_hash::FxHashSet;

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, s: &'a [T]) -> &'a T {
        &s[self.below(s.len() as u64) as usize]
    }
}

fn random_basic(r: &mut Rng) -> BasicType {
    let s = loop {
        let s = *r.pick(ScalarType::ALL);
        if s != ScalarType::Void {
            break s;
        }
    };
    BasicType::new(s, 1 + r.below(4) as u8)
}

fn random_type(r: &mut Rng) -> Type {
    let base = match r.below(10) {
        0 => return Type::void(),
        1..=6 => Type::basic(random_basic(r)),
        _ => Type::structure((0..2 + r.below(4)).map(|_| random_basic(r))),
    };
    if r.chance(70) {
        return base;
    }
    (0..1 + r.below(3)).fold(base, |t, _| t.array_of(r.below(5) as u32))
}

const F32_SPECIAL: &[u64] = &[
    0,
    0x8000_0000,
    0x3f80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7fc0_0001,
    0xffff_ffff,
    1,
    0x3dcc_cccd,
    0x7f7f_ffff,
];
const F16_SPECIAL: &[u64] = &[
    0, 0x8000, 0x3c00, 0x7c00, 0xfc00, 0x7e00, 0x7e01, 0xffff, 1, 0x2e66,
];
const F64_SPECIAL: &[u64] = &[
    0,
    1 << 63,
    0x3ff0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    u64::MAX,
    1,
];

fn random_typed(r: &mut Rng, t: Option<ScalarType>) -> u64 {
    if r.chance(8) {
        return r.next();
    }
    match t {
        Some(ScalarType::F32 | ScalarType::MinF16 | ScalarType::MinF10) if r.chance(50) => {
            *r.pick(F32_SPECIAL)
        }
        Some(ScalarType::F32 | ScalarType::MinF16 | ScalarType::MinF10) => r.next() & 0xffff_ffff,
        Some(ScalarType::F16) if r.chance(50) => *r.pick(F16_SPECIAL),
        Some(ScalarType::F16) => r.next() & 0xffff,
        Some(ScalarType::F64) if r.chance(50) => *r.pick(F64_SPECIAL),
        Some(ScalarType::Bool) => r.below(3),
        Some(t) if t.is_signed_int() => (r.below(200) as i64 - 100) as u64,
        _ => r.below(100_000),
    }
}

fn random_string_lits(r: &mut Rng) -> Vec<u64> {
    if r.chance(20) {
        // Non-canonical packings: embedded NULs, missing or extra terminators.
        return (0..1 + r.below(3))
            .map(|_| r.next() & 0x00ff_00ff_00ff_00ff)
            .collect();
    }
    let len = *r.pick(&[0, 1, 7, 8, 9, 15, 16, 17, 24, 3, 5, 11]);
    let charset: &[u8] = b"abcXYZ_09 \"\\\n\t\x01\x7f\xff\xc3\xa9;%=[]";
    let bytes: Vec<u8> = (0..len).map(|_| *r.pick(charset)).collect();
    strings::pack(&bytes)
}

fn random_op(r: &mut Rng, ids: &[u32]) -> Op {
    let opcode = *r.pick(OpCode::ALL);
    let info = opcode.info();
    let max = if info.max_operands == MANY {
        info.min_operands + 6
    } else {
        info.max_operands
    };
    let mut count =
        info.min_operands as usize + r.below((max - info.min_operands + 1) as u64) as usize;
    if !opcode.accepts_operand_count(count) {
        count += 1;
    }
    let ty = if opcode == OpCode::Constant && r.chance(80) {
        Type::basic(random_basic(r))
    } else {
        random_type(r)
    };
    if opcode == OpCode::Constant {
        count = ty
            .flattened_scalar_count()
            .filter(|&n| n <= 12)
            .map_or(count, |n| n as usize);
    }
    let mut op = Op::new(opcode, ty);
    if r.chance(30) {
        op.flags = crate::OpFlags(r.next() as u8);
    }
    let fl = opcode.first_literal_index(count);
    for i in 0..count {
        if i < fl {
            op.operands.push(if r.chance(10) {
                Operand::Null
            } else {
                Operand::Ref(SsaDef::new(*r.pick(ids) as usize - 1))
            });
            continue;
        }
        let li = i - fl;
        let v = match opcode.literal_kind(li) {
            Some(LitKind::Str) => {
                op.operands
                    .extend(random_string_lits(r).into_iter().map(Operand::Lit));
                break;
            }
            Some(LitKind::Typed) => {
                let fixed = info.literals.len();
                let t = op.ty.flattened_scalar_type(li.saturating_sub(fixed) as u64);
                random_typed(r, t)
            }
            Some(LitKind::Enum(_) | LitKind::Flags(_)) if r.chance(85) => r.below(40),
            Some(LitKind::SInt | LitKind::CaseValue) => (r.below(41) as i64 - 20) as u64,
            _ if r.chance(80) => r.below(70_000),
            _ => r.next(),
        };
        op.operands.push(Operand::Lit(v));
    }
    op
}

/// A random consistent module: random opcodes, types, flags and literals; ids a random sparse
/// set, references to any of them (forward included).
fn random_module(r: &mut Rng, n: usize) -> Module {
    let mut pool: Vec<u32> = (1..=(3 * n as u32).max(1)).collect();
    for i in (1..pool.len()).rev() {
        pool.swap(i, r.below(i as u64 + 1) as usize);
    }
    let ids = &pool[..n];
    let mut uniq = FxHashSet::default();
    let (mut decls, mut code) = (Vec::new(), Vec::new());
    for &id in ids {
        let op = loop {
            let op = random_op(r, ids);
            if !op.opcode.is_constant_like() || uniq.insert(op.clone()) {
                break op;
            }
        };
        let entry = (SsaDef::new(id as usize - 1), op);
        if entry.1.opcode.is_declarative() {
            decls.push(entry);
        } else {
            code.push(entry);
        }
    }
    decls.extend(code);
    Module::from_ordered(decls).expect("generator makes valid modules")
}

fn check_round_trip(m: &Module) {
    let text = print(m);
    let back = parse(&text).unwrap_or_else(|e| panic!("{e}\n--- text:\n{text}"));
    assert!(
        back == *m,
        "parse(print(m)) != m\n--- text:\n{text}\n--- reprinted:\n{}",
        print(&back)
    );
    assert_eq!(print(&back), text);
}

#[test]
fn random_modules_round_trip() {
    let mut r = Rng(0x5eed_0001);
    for _ in 0..300 {
        let n = 1 + r.below(60) as usize;
        check_round_trip(&random_module(&mut r, n));
    }
}

#[test]
fn builder_modules_with_holes_round_trip() {
    let mut m = Module::new();
    let mut b = Builder::new(&mut m);
    let f = b.add(Op::new(OpCode::Function, Type::void()));
    let one = b.const_f32(1.0);
    let h = b.const_f16(half::f16::from_f32(-0.5));
    let big = b.const_f64(f64::MIN_POSITIVE);
    let l = b.add(Op::new(OpCode::Label, Type::void()).lit(0));
    let x = b.add(Op::new(OpCode::FAdd, ScalarType::F32).arg(one).arg(one));
    let ret = b.add(Op::new(OpCode::Return, Type::void()));
    b.add(Op::new(OpCode::FunctionEnd, Type::void()));
    b.set_position(Position::Before(ret));
    let y = b.add(Op::new(OpCode::FMul, ScalarType::F32).arg(x).arg(x));
    b.add(Op::new(OpCode::DebugName, Type::void()).arg(y).string("y"));
    b.add(
        Op::new(OpCode::DebugName, Type::void())
            .arg(f)
            .string("12345678"),
    );
    let _ = (h, big, l);
    // Removing y removes its debug name too: holes at %9 and %10.
    m.remove(y);
    check_round_trip(&m);
    let text = print(&m);
    assert!(
        text.contains("%2 = f32 Constant 1.0\n%3 = f16 Constant -0.5\n"),
        "{text}"
    );
    assert!(text.contains("%11 = DebugName %1 \"12345678\""), "{text}");
    assert!(!text.contains("%9 ") && !text.contains("%10 "), "{text}");
}

const VOCAB: &[&str] = &[
    "%1",
    "%2",
    "%3",
    "%0",
    "%99999",
    "null",
    "=",
    "[",
    "]",
    "[precise]",
    "[nonan|nosz]",
    "f32",
    "f32x4",
    "{u32,f32}",
    "u32[2][]",
    "?",
    "bool",
    "Constant",
    "Undef",
    "Function",
    "FunctionEnd",
    "Label",
    "None",
    "FAdd",
    "DebugName",
    "Semantic",
    "EntryPoint",
    "Pixel",
    "DclInput",
    "Flat|Sample",
    "Switch",
    "Phi",
    "Return",
    "\"s\"",
    "\"",
    "\"\\x",
    "1",
    "-1",
    "0x",
    "0xffffffffffffffffff",
    "1.5",
    "nan",
    "nan:0x7fc00001",
    "inf",
    ";",
    "Barrier",
    "Workgroup",
    "ScopedSwitchCase",
    "é",
];

fn random_soup(r: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..1 + r.below(12) {
        if r.chance(30) {
            s.push_str(&format!("%{} = ", 1 + r.below(8)));
        }
        for _ in 0..r.below(8) {
            if r.chance(15) {
                s.push((0x20 + r.below(0x5f) as u8) as char);
            } else {
                s.push_str(r.pick::<&str>(VOCAB));
                s.push(' ');
            }
        }
        s.push('\n');
    }
    s
}

fn mutate(r: &mut Rng, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + r.below(3) {
        if lines.is_empty() {
            break;
        }
        let i = r.below(lines.len() as u64) as usize;
        match r.below(5) {
            0 => {
                let j = r.below(lines.len() as u64) as usize;
                lines.swap(i, j);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => {
                lines.remove(i);
            }
            3 => {
                let words: Vec<&str> = lines[i].split(' ').collect();
                let k = r.below(words.len() as u64) as usize;
                let mut w: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                w[k] = r.pick(VOCAB).to_string();
                lines[i] = w.join(" ");
            }
            _ => {
                let chars: Vec<char> = lines[i].chars().collect();
                let k = r.below(chars.len() as u64 + 1) as usize;
                let c = (0x20 + r.below(0x5f) as u8) as char;
                lines[i] = chars[..k]
                    .iter()
                    .chain(std::iter::once(&c))
                    .chain(&chars[k..])
                    .collect();
            }
        }
    }
    lines.join("\n")
}

/// Whatever the parser accepts must print and parse back to the same module.
fn fuzz_one(src: &str) {
    match parse(src) {
        Ok(m) => check_round_trip(&m),
        Err(e) => {
            let shown = e.to_string();
            assert!(
                shown.contains("<input>:") && shown.ends_with('^'),
                "{shown}"
            );
        }
    }
}

#[test]
fn parser_never_panics() {
    let start = std::time::Instant::now();
    let mut r = Rng(0xf022_0002);
    let mut accepted = 0;
    for _ in 0..1500 {
        let s = random_soup(&mut r);
        accepted += parse(&s).is_ok() as usize;
        fuzz_one(&s);
    }
    for _ in 0..200 {
        let n = 1 + r.below(30) as usize;
        let text = print(&random_module(&mut r, n));
        for _ in 0..8 {
            let s = mutate(&mut r, &text);
            accepted += parse(&s).is_ok() as usize;
            fuzz_one(&s);
        }
    }
    eprintln!("fuzz: {accepted} of 3100 inputs parsed");
    assert!(
        accepted > 0,
        "mutations should sometimes keep the text valid"
    );
    assert!(
        start.elapsed().as_secs_f64() < 3.0,
        "fuzz test took {:?}",
        start.elapsed()
    );
}
