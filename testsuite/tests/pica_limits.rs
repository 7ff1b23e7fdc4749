//! The PICA200 operand-descriptor limits (reference `pica.md` §2, §11.6, §11.8), end to end
//! through the driver: a program needing more than 128 distinct descriptors is a clear limit
//! error; MAD/MADI reach descriptors 0–31 only, so MAD descriptors first used after 32 others
//! are moved into the window (and the program still matches the interpreter on 8 seeds), and
//! more than 32 distinct MAD descriptors is a limit error naming MAD.

use irc_backend::DiagnosticKind;
use irc_testsuite::corpus::Outcome;
use irc_testsuite::harness::check_shader;

/// The selector components of swizzle pattern `i` (0..256): every pattern is distinct.
fn pattern(i: u32) -> [u32; 4] {
    [(i >> 6) & 3, (i >> 4) & 3, (i >> 2) & 3, i & 3]
}

/// `o0 = v0 + Σ v0.pattern(i)` over `adds`, then `o0 += 0.5 · v0.pattern(j)` by a legacy MAD
/// over `mads`: one instruction, hence one distinct descriptor, per term.
fn shader(adds: std::ops::Range<u32>, mads: std::ops::Range<u32>) -> irc_ir::Module {
    let mut t = String::from(
        "%1 = EntryPoint %20 Vertex\n\
         %2 = f32x4 DclInput %1 0 0 None\n\
         %3 = f32x4 DclOutput %1 0 0\n\
         %4 = u32 Constant 0\n%5 = u32 Constant 1\n%6 = u32 Constant 2\n%7 = u32 Constant 3\n\
         %8 = f32x4 Constant 0.5 0.5 0.5 0.5\n\
         %20 = Function\n%21 = Label None\n\
         \x20 %22 = f32x4 InputLoad %2 null\n\
         \x20 %30 = f32 CompositeExtract %22 %4\n\
         \x20 %31 = f32 CompositeExtract %22 %5\n\
         \x20 %32 = f32 CompositeExtract %22 %6\n\
         \x20 %33 = f32 CompositeExtract %22 %7\n",
    );
    let mut acc = 22;
    let mut next = 100;
    for (i, is_mad) in adds.map(|i| (i, false)).chain(mads.map(|i| (i, true))) {
        let p = pattern(i).map(|c| 30 + c);
        t += &format!(
            "  %{next} = f32x4 CompositeConstruct %{} %{} %{} %{}\n",
            p[0], p[1], p[2], p[3]
        );
        t += &if is_mad {
            format!("  %{} = f32x4 FMadLegacy %{next} %8 %{acc}\n", next + 1)
        } else {
            format!("  %{} = f32x4 FAdd %{acc} %{next}\n", next + 1)
        };
        acc = next + 1;
        next += 2;
    }
    t += &format!("  %9000 = OutputStore %3 null %{acc}\n  %9001 = Return\n%9002 = FunctionEnd\n");
    irc_ir::text::parse(&t).expect("parses")
}

fn compile(m: &irc_ir::Module) -> Result<irc_backend::Output, irc::Diagnostics> {
    let target = irc::target("pica-vs").expect("registered");
    let options = irc::Options::default();
    let prepared = irc::prepare_for(irc::Input::Module(m.clone()), target, &options)?;
    target.compile(&prepared, &options.backend)
}

fn descriptors(o: &irc_backend::Output) -> u64 {
    o.stats
        .extra
        .iter()
        .find(|(k, _)| *k == "operand-descriptors")
        .map_or(0, |e| e.1)
}

#[test]
fn more_than_128_descriptors_is_a_limit_error() {
    // 120 distinct descriptors fit (and match the interpreter) ...
    let m = shader(0..120, 0..0);
    let check = check_shader(irc::target("pica-vs").unwrap(), &m, 8);
    assert!(matches!(check.outcome, Outcome::Ok), "{:?}", check.outcome);
    let o = check.output.unwrap();
    assert!(
        descriptors(&o) >= 120 && descriptors(&o) <= 128,
        "{}",
        descriptors(&o)
    );
    // ... 140 do not.
    let e = compile(&shader(0..140, 0..0)).unwrap_err();
    let d = e.first().expect("a diagnostic");
    assert_eq!(d.kind, DiagnosticKind::Limit, "{e}");
    assert!(
        d.message.contains("128") && d.message.contains("operand descriptors"),
        "{e}"
    );
}

#[test]
fn mad_descriptors_first_used_late_move_into_the_32_entry_window() {
    // 40 ADD descriptors first, then 8 MADs with new descriptors: those must end up in 0–31.
    let m = shader(0..40, 40..48);
    let check = check_shader(irc::target("pica-vs").unwrap(), &m, 8);
    assert!(matches!(check.outcome, Outcome::Ok), "{:?}", check.outcome);
    assert_eq!(check.seeds_compared, 8);
    let o = check.output.unwrap();
    assert!(descriptors(&o) >= 48, "{}", descriptors(&o));
    let madi = o.disassembly.matches("mad").count();
    assert!(madi >= 8, "{}", o.disassembly);
}

#[test]
fn more_than_32_mad_descriptors_is_a_limit_error() {
    let e = compile(&shader(0..0, 0..40)).unwrap_err();
    let d = e.first().expect("a diagnostic");
    assert_eq!(d.kind, DiagnosticKind::Limit, "{e}");
    assert!(d.message.contains("MAD") && d.message.contains("32"), "{e}");
}
