//! The flow-control layout of `pica-vs` ([`irc_pica::flow_emit::layout`]) against the
//! independent picasso-syntax assembler: the same structure written as picasso source must give
//! the same words — addresses, NUM fields and the automatic NOPs of reference §9 — and the
//! layout must run in the simulator as the structure says.

use irc_pica::asm::assemble;
use irc_pica::encode::encode_program;
use irc_pica::flow_emit::{layout, Item, LOOP_UNIFORM, LOOP_VALUE};
use irc_pica::instr::{Dst, DstReg, Instr, Mask, Src, SrcReg};
use irc_pica::isa::{AddrIndex, CmpOp, Opcode};
use irc_pica::lower::mir::{Flow, IfCond, LoopKind};
use irc_pica::sim::{run, Precision, SimOptions, Uniforms};

/// `add r<d>, r<d>, v<v>`: a distinct, checkable body instruction.
fn add(d: u8, v: u8) -> Item {
    Item::Instr(Instr::Binary {
        op: Opcode::Add,
        dst: Dst::new(DstReg::Temp(d), Mask::XYZW),
        src1: Src::new(SrcReg::Temp(d)),
        src2: Src::new(SrcReg::Input(v)),
        index: AddrIndex::None,
    })
}

/// `cmp v0, lt, lt, v1`.
fn cmp() -> Item {
    Item::Instr(Instr::Cmp {
        src1: Src::new(SrcReg::Input(0)),
        x: CmpOp::Lt,
        y: CmpOp::Lt,
        src2: Src::new(SrcReg::Input(0)),
        index: AddrIndex::None,
    })
}

fn words(items: &[Item]) -> Vec<u32> {
    let mut prog = layout(items).expect("layout");
    prog.push(Instr::END);
    encode_program(&prog).expect("encodes").0
}

fn picasso(body: &str) -> Vec<u32> {
    let src = format!(".proc main\n{body}    end\n.end\n");
    assemble(&src).unwrap_or_else(|e| panic!("{e}\n{src}")).code
}

#[test]
fn nested_ifs_ending_together_get_picassos_nops() {
    use Flow::*;
    // if { add; if { add } } else { add; if { add } else { add } }
    let items = [
        cmp(),
        Item::Flow(If(IfCond::Cmp(true))),
        add(0, 0),
        Item::Flow(If(IfCond::Cmp(false))),
        add(1, 0),
        Item::Flow(EndIf),
        Item::Flow(Else),
        add(2, 0),
        Item::Flow(If(IfCond::Cmp(true))),
        add(3, 0),
        Item::Flow(Else),
        add(4, 0),
        Item::Flow(EndIf),
        Item::Flow(EndIf),
    ];
    let text = "    cmp v0, lt, lt, v0
    ifc cmp.x
        add r0, r0, v0
        ifc !cmp.x
            add r1, r1, v0
        .end
    .else
        add r2, r2, v0
        ifc cmp.x
            add r3, r3, v0
        .else
            add r4, r4, v0
        .end
    .end
";
    let ours = words(&items);
    assert_eq!(ours, picasso(text));
    // Two NOPs: the inner .end right before the outer .else, the inner .end right before the
    // outer .end (rule 4).
    assert_eq!(ours.iter().filter(|&&w| w == 0x8400_0000).count(), 2);
}

#[test]
fn a_loop_is_a_pair_of_loops_with_a_second_breakc_and_a_nop() {
    use Flow::*;
    let items = [
        Item::Flow(Loop(LoopKind::Pair)),
        cmp(),
        Item::Flow(Break(false)),
        add(0, 0),
        Item::Flow(EndLoop),
        add(1, 0),
    ];
    let text = format!(
        "    for i{LOOP_UNIFORM}
        for i{LOOP_UNIFORM}
            cmp v0, lt, lt, v0
            breakc !cmp.x
            add r0, r0, v0
        .end
        breakc !cmp.x
    .end
    add r1, r1, v0
"
    );
    let ours = words(&items);
    assert_eq!(ours, picasso(&text));
    // for, for, cmp, breakc, add, breakc, nop (rule 2), add, end.
    assert_eq!(ours.len(), 9);
    assert_eq!(ours[6], 0x8400_0000);
}

#[test]
fn a_loop_whose_body_ends_in_a_break_gets_a_nop_and_runs_65536_times_at_most() {
    use Flow::*;
    // do { r0 += v0 } while (v0 < v0 is false → break on !cmp.x): one iteration.
    let items = [
        Item::Flow(Loop(LoopKind::Pair)),
        add(0, 0),
        cmp(),
        Item::Flow(Break(false)),
        Item::Flow(EndLoop),
    ];
    let mut prog = layout(&items).unwrap();
    prog.push(Instr::END);
    // for, for, add, cmp, breakc, nop (rule 2), breakc, nop (rule 2), end.
    assert_eq!(prog.len(), 9);
    assert_eq!((prog[5], prog[7]), (Instr::NOP, Instr::NOP));
    let mut u = Uniforms::default();
    u.int[LOOP_UNIFORM as usize] = LOOP_VALUE;
    let mut v = [[0.0; 4]; 16];
    v[0] = [1.0, 2.0, 3.0, 4.0];
    let opts = SimOptions {
        precision: Precision::Exact,
        fuel: 1_000_000,
    };
    let r = run(&prog, 0, &v, &u, &opts).unwrap();
    // One iteration: the break is taken at once (v0 < v0 is false), the outer LOOP follows.
    assert!(r.steps < 12, "{}", r.steps);
    // A break that is never taken (`breakc cmp.x` on a false flag): 256 × 256 iterations of
    // the body (4 words: add, cmp, breakc, nop), plus the outer's breakc and nop per inner run.
    let items = [
        Item::Flow(Loop(LoopKind::Pair)),
        add(0, 0),
        cmp(),
        Item::Flow(Break(true)),
        Item::Flow(EndLoop),
    ];
    let mut prog = layout(&items).unwrap();
    prog.push(Instr::END);
    let opts = SimOptions {
        precision: Precision::Exact,
        fuel: 10_000_000,
    };
    let r = run(&prog, 0, &v, &u, &opts).unwrap();
    assert!(r.steps > 4 * 65_536, "{}", r.steps);
    assert!(r.steps < 4 * 65_536 + 4 * 256 + 16, "{}", r.steps);
}
