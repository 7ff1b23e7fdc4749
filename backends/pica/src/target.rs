//! The `pica-vs` [`Target`]: IR (after the `opt` pipeline with [`crate::CAPS`]) → PICA200
//! vertex-shader code words, operand descriptors and a SHBIN container.
//!
//! Stages: [`crate::lower`] (IR → machine ops on virtual vec4 registers, operand-slot errata
//! resolved), [`crate::regalloc`] (r0–r15, checked), emission (virtual registers → `r` with
//! selectors shifted to the lanes the allocator chose; outputs, inputs and uniforms by number),
//! then the encoder with picasso-style descriptor de-duplication ([`crate::encode`]). The
//! disassembly in the [`Output`] is decoded back from the final words by the independent
//! decoder. Sections are named as [`crate::sim_io`] reads them.

use irc_backend::regalloc::Allocation;
use irc_backend::{
    CompileOptions, Container, Denormals, Diagnostic, Diagnostics, OptionSpec, Oracle, Output,
    Pipeline, PipelineKind, Simulator, Stats, Target, TargetCaps, Tolerance, UniformSource,
};
use irc_ir::{BuiltIn, Module, ShaderStage};

use crate::flow_emit::{self, Item};
use crate::instr::{Dst as HDst, DstReg, Instr, Mask, Src, SrcReg, Swizzle};
use crate::isa::{limits, AddrIndex, Opcode};
use crate::lower::mir::{Dst, Flow, LoopKind, MOp, Operand, Reg};
use crate::{decode, disasm, encode, float24, lower, outmap, regalloc, shbin, sim_io};

/// The line between the DVLEs of a multi-DVLE SHBIN (a vertex + geometry shader program) in
/// [`Target::disassemble`]'s text: each part is one picasso source file (`picasso -o out.shbin
/// a.v.pica b.g.pica`), and [`Target::assemble`] splits there again.
pub const DVLE_SEPARATOR: &str = "; ---- next DVLE: a separate picasso source file ----";

/// `-C outline=on|off`: repeated instruction runs become procedures ([`crate::outline`]).
pub const OUTLINE: OptionSpec = OptionSpec {
    name: "outline",
    values: &[
        (
            "on",
            "repeated instruction runs become procedures reached by CALL (fewer words; \
             one more instruction executed per call)",
        ),
        ("off", "no procedures: every instruction inline"),
    ],
    default: "on",
    help: "outline repeated instruction runs into procedures (code size)",
};

/// `-C ieee-mul=exact|legacy`: how IEEE multiplies (D3D10+ `mul`, `mad`, `dp4`) are compiled on
/// a unit that multiplies with D3D9 rules (`0 · inf = 0`, reference §10).
pub const IEEE_MUL: OptionSpec = OptionSpec {
    name: "ieee-mul",
    values: &[
        (
            "exact",
            "IEEE results: a multiply of two variables gets the NaN of 0 · inf added \
             (13 more instructions per multiply; dot products become multiply chains)",
        ),
        (
            "legacy",
            "PICA's own MUL/MAD/DP3/DP4 (0 · inf = 0 instead of NaN; Precise ops stay exact)",
        ),
    ],
    default: "exact",
    help: "IEEE multiplies: exact emulation, or the hardware's D3D9-rule multiply",
};

/// `-C legacy-mul=native|exact`: how D3D9 multiplies (`FMulLegacy`, `FMadLegacy`,
/// `FDotLegacy`) are compiled. PICA's MUL/MAD/DP multiply with D3D9's `0 · inf = 0` but give
/// NaN for `NaN · 0` (reference §10), where the IR's rule gives 0.
pub const LEGACY_MUL: OptionSpec = OptionSpec {
    name: "legacy-mul",
    values: &[
        (
            "native",
            "the bare MUL/MAD/DP (0 · inf = 0; NaN · 0 = NaN where D3D9's rule gives 0)",
        ),
        (
            "exact",
            "D3D9's rule for every operand: 0 · x = 0 even for NaN x (7-11 instructions instead \
             of 1 per multiply of two values that may be NaN)",
        ),
    ],
    default: "native",
    help: "D3D9 multiplies: the hardware's own (NaN · 0 = NaN), or exact D3D9 rules",
};

/// True when `options` ask for exact D3D9 multiplies.
pub fn exact_legacy_mul(options: &CompileOptions) -> bool {
    options.get(&LEGACY_MUL) == "exact"
}

/// The PICA200 vertex shader target.
#[derive(Debug, Clone, Copy, Default)]
pub struct PicaVs;

impl Target for PicaVs {
    fn name(&self) -> &'static str {
        "pica-vs"
    }
    fn family(&self) -> &'static str {
        "pica"
    }
    fn description(&self) -> &'static str {
        "Nintendo 3DS PICA200 vertex shader, code words + operand descriptors and SHBIN container"
    }
    fn stages(&self) -> &'static [ShaderStage] {
        &[ShaderStage::Vertex]
    }
    fn caps(&self) -> &TargetCaps {
        &crate::CAPS
    }
    fn pipeline(&self, options: &CompileOptions) -> Pipeline {
        Pipeline {
            kind: PipelineKind::Optimize,
            caps: crate::CAPS,
            legacy_mul_ieee: false,
            ieee_mul_legacy: options.get(&IEEE_MUL) == "legacy",
        }
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[OUTLINE, IEEE_MUL, LEGACY_MUL]
    }
    fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Output, Diagnostics> {
        compile(module, options).map_err(Diagnostics::from)
    }
    fn disassemble(&self, bytes: &[u8]) -> Result<String, Diagnostic> {
        let sh = shbin::read(bytes).map_err(|e| Diagnostic::input(e.to_string()))?;
        let texts = disasm::disassemble_shbin(&sh).map_err(|e| Diagnostic::input(e.to_string()))?;
        Ok(texts.join(&format!("\n{DVLE_SEPARATOR}\n")))
    }
    fn assemble(&self, text: &str) -> Result<Vec<u8>, Diagnostic> {
        // One picasso source file per DVLE, split where `disassemble` joined them.
        let mut files = vec![String::new()];
        for line in text.lines() {
            if line.trim_end() == DVLE_SEPARATOR {
                files.push(String::new());
            } else if let Some(f) = files.last_mut() {
                f.push_str(line);
                f.push('\n');
            }
        }
        let sources: Vec<&str> = files.iter().map(String::as_str).collect();
        let sh =
            crate::asm::assemble_files(&sources).map_err(|e| Diagnostic::input(e.to_string()))?;
        Ok(shbin::write(&sh))
    }
    fn simulator(&self) -> Option<&dyn Simulator> {
        Some(&sim_io::PicaSimulator)
    }
    fn tolerance(&self) -> Tolerance {
        Tolerance::FLOAT24
    }
    fn program_container(&self, stages: &[&Output]) -> Option<Result<Container, Diagnostic>> {
        Some(crate::gs::program::program_container(stages))
    }
    fn oracle(&self, options: &CompileOptions) -> Oracle {
        // No divide instruction (RCP + MUL); float24 has no denormals: uniforms arrive
        // flushed and arithmetic flushes its operands and results (reference pica.md §10);
        // its range is 2^-62 … 2^64 and it has no −0 (§10, `float24`).
        Oracle {
            div_as_rcp_mul: true,
            sqrt_as_rcp_rsqrt: false,
            rcp_rsq_as_sqrt: false,
            fine_default_derivatives: false,
            stepwise_transcendentals: false,
            polynomial_trig: true,
            flush_denormal_uniforms: true,
            denormals: Denormals::Flush,
            narrow_range: Some(irc_arith::NarrowRange {
                min_exp: -62,
                overflow_exp: 64,
            }),
            // MUL, MAD and DP keep D3D9's `0 · inf = 0` but give NaN for `NaN · 0` (§10,
            // citra#7371); the IR's legacy ops give 0 there. The documented default
            // (`legacy-mul=native`): FMulLegacy and its friends run as the bare instruction;
            // `legacy-mul=exact` follows the IR's rule.
            legacy_zero_keeps_nan: !exact_legacy_mul(options),
        }
    }
}

fn internal(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::internal(None, msg)
}

/// Hardware register and absolute selectors (per position) of an operand.
fn operand_regs(
    o: &Operand,
    alloc: &Allocation,
    lit_base: u8,
) -> Result<(SrcReg, [u8; 4]), Diagnostic> {
    let (reg, base) = match o.reg {
        Reg::V(v) => {
            let loc = alloc
                .loc(v)
                .ok_or_else(|| internal(format!("{v} has no register")))?;
            (SrcReg::Temp(loc.reg), loc.lane)
        }
        Reg::In(n) => (SrcReg::Input(n), 0),
        Reg::Uni(n) | Reg::UniRel(n, _) => (SrcReg::Const(n), 0),
        Reg::Lit(k) => (SrcReg::Const(lit_base + k as u8), 0),
    };
    Ok((reg, o.swz.map(|c| (base + c).min(3))))
}

/// The address register a relative uniform among `srcs` is read with (one per instruction).
fn address_index(srcs: &[Operand]) -> AddrIndex {
    match srcs.iter().find_map(|s| match s.reg {
        Reg::UniRel(_, a) => Some(a),
        _ => None,
    }) {
        Some(0) => AddrIndex::A0X,
        Some(_) => AddrIndex::A0Y,
        None => AddrIndex::None,
    }
}

fn emit_op(op: &MOp, alloc: &Allocation, lit_base: u8) -> Result<Instr, Diagnostic> {
    // Destination register, hardware mask and the lane shift of component-wise positions.
    let (dst, shift) = match op.dst {
        Dst::V(v, mask) => {
            let loc = alloc
                .loc(v)
                .ok_or_else(|| internal(format!("{v} has no register")))?;
            let m = (0..4)
                .filter(|c| mask & (1 << c) != 0)
                .fold(0u8, |m, c| m | Mask::comp(loc.lane as usize + c).0);
            (HDst::new(DstReg::Temp(loc.reg), Mask(m)), loc.lane)
        }
        Dst::Out(o, mask) => {
            let m = (0..4)
                .filter(|c| mask & (1 << c) != 0)
                .fold(0u8, |m, c| m | Mask::comp(c).0);
            (HDst::new(DstReg::Output(o), Mask(m)), 0)
        }
        Dst::Emit(f) => {
            return Ok(Instr::SetEmit {
                vertex: f.vertex,
                primitive: f.primitive,
                winding: f.winding,
            })
        }
        Dst::Flow(Flow::Cmp(x, y)) => {
            let (r1, a1) = operand_regs(&op.srcs[0], alloc, lit_base)?;
            let (r2, a2) = operand_regs(&op.srcs[1], alloc, lit_base)?;
            let src = |r, a: [u8; 4], neg: bool| {
                let s = Src::new(r).swz(Swizzle::new(a));
                if neg {
                    s.negated()
                } else {
                    s
                }
            };
            return Ok(Instr::Cmp {
                src1: src(r1, a1, op.srcs[0].neg),
                x,
                y,
                src2: src(r2, a2, op.srcs[1].neg),
                index: address_index(&op.srcs[..1]),
            });
        }
        Dst::Flow(_) => return Err(internal("flow marker emitted as an instruction")),
        Dst::A0(mask) => {
            let m = (0..2)
                .filter(|c| mask & (1 << c) != 0)
                .fold(0u8, |m, c| m | Mask::comp(c).0);
            let (reg, abs) = operand_regs(&op.srcs[0], alloc, lit_base)?;
            let mut s = Src::new(reg).swz(Swizzle::new(abs));
            if op.srcs[0].neg {
                s = s.negated();
            }
            return Ok(Instr::Mova {
                mask: Mask(m),
                src: s,
                index: AddrIndex::None,
            });
        }
    };
    let cw = op.componentwise();
    let mut srcs = Vec::with_capacity(3);
    for o in &op.srcs {
        let (reg, abs) = operand_regs(o, alloc, lit_base)?;
        let sel: [u8; 4] = if cw {
            std::array::from_fn(|p| {
                let q = p as i32 - shift as i32;
                if (0..4).contains(&q) {
                    abs[q as usize]
                } else {
                    abs[0]
                }
            })
        } else {
            abs
        };
        let mut s = Src::new(reg).swz(Swizzle::new(sel));
        if o.neg {
            s = s.negated();
        }
        srcs.push(s);
    }
    let index = address_index(&op.srcs);
    Ok(match op.op {
        Opcode::Add
        | Opcode::Mul
        | Opcode::Max
        | Opcode::Min
        | Opcode::Dp3
        | Opcode::Dp4
        | Opcode::Dph
        | Opcode::Dphi
        | Opcode::Dst
        | Opcode::Dsti
        | Opcode::Sge
        | Opcode::Slt
        | Opcode::Sgei
        | Opcode::Slti => Instr::Binary {
            op: op.op,
            dst,
            src1: srcs[0],
            src2: srcs[1],
            index,
        },
        Opcode::Mov
        | Opcode::Flr
        | Opcode::Rcp
        | Opcode::Rsq
        | Opcode::Ex2
        | Opcode::Lg2
        | Opcode::Litp => Instr::Unary {
            op: op.op,
            dst,
            src: srcs[0],
            index,
        },
        Opcode::Mad | Opcode::Madi => Instr::Mad {
            inverted: op.op == Opcode::Madi,
            dst,
            src1: srcs[0],
            src2: srcs[1],
            src3: srcs[2],
            index,
        },
        o => return Err(internal(format!("no emission for {}", o.mnemonic()))),
    })
}

/// `mov rN.m, rN` reading every enabled component from itself, unnegated, not indexed.
fn is_self_move(i: &Instr) -> bool {
    match *i {
        Instr::Unary {
            op: Opcode::Mov,
            dst,
            src,
            index: AddrIndex::None,
        } => {
            let same_reg =
                matches!((dst.reg, src.reg), (DstReg::Temp(a), SrcReg::Temp(b)) if a == b);
            same_reg && !src.negate && (0..4).all(|c| !dst.mask.has(c) || src.swizzle.comp(c) == c)
        }
        _ => false,
    }
}

/// Compiles an optimized module.
pub fn compile(module: &Module, options: &CompileOptions) -> Result<Output, Diagnostic> {
    compile_stage(module, options, ShaderStage::Vertex)
}

/// Compiles an optimized vertex or geometry shader. A geometry shader that stores one value
/// for several vertices is compiled twice, computing such values once or at every store
/// (`lower::remat`), and the shorter program is kept: which wins depends on what the outliner
/// makes of the per-vertex code.
pub(crate) fn compile_stage(
    module: &Module,
    options: &CompileOptions,
    stage: ShaderStage,
) -> Result<Output, Diagnostic> {
    let plain = compile_variant(module, options, stage, false);
    if stage != ShaderStage::Geometry || options.get(&OUTLINE) == "off" {
        return plain.map(|(o, _)| o);
    }
    // Nothing to compute at the stores: the second variant would be the same program.
    if let Ok((p, 0)) = plain {
        return Ok(p);
    }
    match (plain, compile_variant(module, options, stage, true)) {
        (Ok((p, _)), Ok((r, _))) if r.stats.instructions < p.stats.instructions => Ok(r),
        (Ok((p, _)), _) => Ok(p),
        (Err(_), Ok((r, n))) if n > 0 => Ok(r),
        (Err(e), _) => Err(e),
    }
}

/// Compiles with values stored more than once computed at each store when `remat` is set;
/// returns the output and how many values that variant computes at the stores.
fn compile_variant(
    module: &Module,
    options: &CompileOptions,
    stage: ShaderStage,
    remat: bool,
) -> Result<(Output, usize), Diagnostic> {
    let config = lower::LowerConfig {
        rematerialize: remat,
        exact_legacy_mul: exact_legacy_mul(options),
    };
    let mut lowered = lower::lower_stage(module, stage, config)?;
    if let Some(layout) = &options.output_layout {
        crate::gs::link::apply_output_layout(&mut lowered, layout)?;
    }
    let prog = &lowered.program;
    let (alloc, _) = regalloc::allocate(prog)?;
    let mut items = Vec::with_capacity(prog.ops.len() + 1);
    for op in &prog.ops {
        if let Dst::Flow(f) = op.dst {
            if !matches!(f, Flow::Cmp(..)) {
                items.push(Item::Flow(f));
                continue;
            }
        }
        let i = emit_op(op, &alloc, lowered.literal_base)?;
        // A copy the allocator coalesced (`mov r0.x, r0.x`) does nothing.
        if !is_self_move(&i) {
            items.push(Item::Instr(i));
        }
        // A geometry shader's SETEMIT is followed by its EMIT.
        if matches!(op.dst, Dst::Emit(_)) {
            items.push(Item::Instr(Instr::Plain(Opcode::Emit)));
        }
    }
    // Whether the DEF'd int uniform of the 65,536-iteration loop pairs is needed.
    let loops = items.contains(&Item::Flow(Flow::Loop(LoopKind::Pair)));
    crate::flow_emit::drop_empty_else(&mut items);
    crate::mov_merge::merge_movs(&mut items);
    crate::redundant_moves::remove_redundant_moves(&mut items);
    crate::flow_fill::fill_nop_slots(&mut items);
    let procs = match options.get(&OUTLINE) {
        "off" => Vec::new(),
        _ => crate::outline::outline(&mut items),
    };
    let mut instrs = flow_emit::layout(&items)?;
    instrs.push(Instr::END);
    let main_len = instrs.len();
    crate::outline::place_procedures(&mut instrs, &procs)?;
    if let Some(i) = instrs
        .windows(2)
        .position(|w| matches!(w, [Instr::Mova { .. }, Instr::Mova { .. }]))
    {
        return Err(internal(format!(
            "words {i} and {}: two consecutive MOVA (erratum 3)",
            i + 1
        )));
    }
    if instrs.len() > limits::CODE_WORDS {
        return Err(Diagnostic::limit(format!(
            "{} instructions; a PICA200 {} shader holds {}",
            instrs.len(),
            if stage == ShaderStage::Geometry {
                "geometry"
            } else {
                "vertex"
            },
            limits::CODE_WORDS
        )));
    }
    let (words, descs) = encode::encode_program(&instrs).map_err(|e| match e {
        encode::EncodeError::TooManyOpdescs | encode::EncodeError::TooManyMadOpdescs => {
            Diagnostic::limit(format!("operand descriptors: {e}"))
        }
        e => internal(format!("encode: {e}")),
    })?;
    let decoded = decode::decode_program(&words, &descs)
        .map_err(|e| internal(format!("the decoder rejects the encoder's output: {e}")))?;
    let mut pieces = vec![(0, Some(main_len))];
    let mut at = main_len;
    for p in &procs {
        pieces.push((at, Some(at + p.len())));
        at += p.len();
    }
    let disassembly = disasm::disassemble_program(&decoded, &pieces);
    let mut reflection = lowered.reflection;
    if loops {
        // The loop counter's int uniform (a DEF constant: `.consti`).
        reflection.uniforms.push(irc_backend::UniformBinding {
            slot: sim_io::INT_SLOT + u32::from(flow_emit::LOOP_UNIFORM),
            source: UniformSource::Literal(flow_emit::LOOP_VALUE.map(f32::from)),
        });
    }
    let outmap = outmap::build(module, &reflection.outputs);
    let end = main_len as u32;
    let mut sh = container(
        &words,
        &descs,
        &lowered.literals,
        lowered.literal_base,
        loops,
        &reflection,
        &outmap,
    );
    // The entry procedure ends at END; outlined procedures follow it.
    sh.dvles[0].endmain = end;
    if let Some(gs) = &lowered.gs {
        crate::gs::mark_geometry(&mut sh.dvles[0], gs);
    }
    let container = options.container.then(|| Container {
        format: "shbin",
        bytes: shbin::write(&sh),
    });
    reflection.target = Some(irc_backend::TargetPart::new(outmap::PicaReflection {
        outmap,
    }));
    let mut extra = vec![
        ("operand-descriptors", descs.len() as u64),
        ("uniform-slots", u64::from(reflection.uniform_slots)),
    ];
    if let Some(gs) = &lowered.gs {
        // What libctru's `shaderProgramSetGsh` and the GS input configuration need.
        extra.push(("gs-input-vertices", u64::from(gs.vertices)));
        extra.push(("gs-stride", u64::from(gs.stride)));
    }
    let stats = Stats {
        instructions: words.len() as u32,
        code_bytes: 4 * words.len() as u32,
        registers: u32::from(alloc.registers_used),
        spills: 0,
        fills: 0,
        // One operation per word: no units to fill, no bound computed.
        units_filled: 0,
        lower_bound: 0,
        ir_ops: lowered.ir_ops,
        extra,
    };
    let mut sections = sim_io::sections(&words, &descs, (0, end), lowered.gs.is_some());
    if let Some(gs) = &lowered.gs {
        sections.push(crate::gs::layout_section(gs));
    }
    Ok((
        Output {
            sections,
            container,
            disassembly,
            reflection,
            stats,
        },
        lowered.remat_candidates,
    ))
}

/// The SHBIN of one vertex shader: DEF constants for the literal pool, `.out` entries from the
/// output map ([`outmap`]: semantics from the IR's names, `dummy` where PICA has none), `.fvec` names `c<n>` for
/// the application's uniforms and `v<n>` for the inputs.
fn container(
    words: &[u32],
    descs: &[u32],
    literals: &[[u32; 4]],
    literal_base: u8,
    loops: bool,
    r: &irc_backend::Reflection,
    map: &[outmap::OutMapEntry],
) -> shbin::Shbin {
    let mut d = shbin::Dvle::new(shbin::ShaderType::Vertex);
    d.main = 0;
    d.endmain = words.len() as u32;
    for (k, v) in literals.iter().enumerate() {
        d.constants.push(shbin::Constant {
            reg: u16::from(literal_base) + k as u16,
            value: shbin::ConstValue::Float(v.map(|b| float24::from_f32(f32::from_bits(b)))),
        });
    }
    if loops {
        d.constants.push(shbin::Constant {
            reg: u16::from(flow_emit::LOOP_UNIFORM),
            value: shbin::ConstValue::Int(flow_emit::LOOP_VALUE),
        });
    }
    for v in &r.varyings {
        d.input_mask |= 1 << v.slot;
        if !d.uniforms.iter().any(|u| u.first == v.slot as u16) {
            d.uniforms.push(shbin::UniformEntry {
                name: format!("v{}", v.slot),
                first: v.slot as u16,
                last: v.slot as u16,
            });
        }
    }
    for u in &r.uniforms {
        if let UniformSource::LegacyLoop { index } = u.source {
            // A D3D9 count as a LOOP register (i0–i2; the float copy keeps the name `i#`).
            d.uniforms.push(shbin::UniformEntry {
                name: format!("i{index}_loop"),
                first: 0x70 + (u.slot - sim_io::INT_SLOT) as u16,
                last: 0x70 + (u.slot - sim_io::INT_SLOT) as u16,
            });
        }
        if let UniformSource::Legacy { index, kind } = u.source {
            // The D3D9 register's name (`i#`/`b#` registers are uploaded as float vec4s in
            // `c` space, reflection's convention); the unified register of the slot: floats
            // and ints from 0x10 (c0 at 0x10, i0 at 0x70), bools from 0x78.
            let prefix = match kind {
                BuiltIn::LegacyConstInt => "i",
                BuiltIn::LegacyConstBool => "b",
                _ => "c",
            };
            let unified = match u.slot {
                s if s >= sim_io::BOOL_SLOT => 0x78 + (s - sim_io::BOOL_SLOT) as u16,
                s => 0x10 + s as u16,
            };
            d.uniforms.push(shbin::UniformEntry {
                name: format!("{prefix}{index}"),
                first: unified,
                last: unified,
            });
        }
    }
    for e in map {
        d.output_mask |= 1 << e.reg;
    }
    d.outputs = outmap::entries(map);
    // picasso sets the merge flag when a `.out` is `dummy` (libctru then merges a geometry
    // shader's output map with the vertex shader's): the same bytes as picasso assembling our
    // disassembly.
    d.merge_outmaps = d
        .outputs
        .iter()
        .any(|o| o.semantic == shbin::semantic::DUMMY);
    d.uniforms.sort_by_key(|u| u.first);
    shbin::Shbin {
        code: words.to_vec(),
        opdescs: descs.to_vec(),
        dvles: vec![d],
    }
}
