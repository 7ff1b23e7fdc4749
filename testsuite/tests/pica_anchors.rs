//! The PICA200 anchor shaders: hand-written picasso vertex shaders from devkitPro (reference
//! `pica.md` §15), rewritten as IR under `testsuite/bench/pica/` with the same inputs, outputs,
//! uniforms and math. Each compiles for `pica-vs`, matches the interpreter in the simulator on
//! 8 seeded input sets, and takes no more words (END included) than picasso's output of the
//! hand-written source — fewer where the ISA allows (DPH for the w = 1 idiom, DP3 for w = 0,
//! negation folded into the descriptor, copies folded into their producers). The geometry
//! shader anchors compile for `pica-gs` and are checked the same way.

use irc_testsuite::corpus::Outcome;
use irc_testsuite::harness::check_shader;

/// (file, words picasso emits for the hand-written shader (§15)).
const ANCHORS: &[(&str, u32)] = &[
    ("a1_simple_tri.ir", 8),
    ("a2_skybox.ir", 12),
    ("a3_textured_cube.ir", 34),
    ("a4_lenny.ir", 29),
    ("a5_render2d.ir", 14),
    ("a6_geoshader_vs.ir", 4),
    ("a7_normal_mapping.ir", 64),
    ("a8_particle.ir", 37),
];

#[test]
fn anchors_are_no_longer_than_hand_written() {
    let target = irc::target("pica-vs").expect("registered");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/pica");
    let mut report = String::new();
    for &(file, hand) in ANCHORS {
        let text = std::fs::read_to_string(dir.join(file)).expect("anchor file");
        let m = irc_ir::text::parse(&text).expect("parses");
        let check = check_shader(target, &m, 8);
        assert!(
            matches!(check.outcome, Outcome::Ok),
            "{file}: {:?}",
            check.outcome
        );
        let o = check.output.expect("compiled");
        let ours = o.stats.code_bytes / 4;
        let descs = o
            .stats
            .extra
            .iter()
            .find(|(k, _)| *k == "operand-descriptors")
            .map_or(0, |e| e.1);
        report += &format!("{file:24} hand {hand:3}  ours {ours:3}  opdescs {descs}\n");
        assert!(
            ours <= hand,
            "{file}: {ours} words, the hand-written shader has {hand}\n{}",
            o.disassembly
        );
    }
    println!("{report}");
}

/// Geometry-shader anchors, for `pica-gs`: (file, words picasso emits for the hand-written
/// shader). A6's GS (42 by hand: main 22, `emit_triangle` 15, `process_vertex` 5) emits nine
/// vertices, three triangles of three; we match its shape without being told it: each stored
/// projection is computed at its store (`lower::remat`), and the parameterized outliner
/// (`irc_pica::outline`) makes the triangle a procedure with three register parameters, and
/// the projection inside it a procedure with one.
const GS_ANCHORS: &[(&str, u32)] = &[("a6_geoshader_gs.ir", 42)];

#[test]
fn geometry_anchors_are_no_longer_than_hand_written() {
    let target = irc::target("pica-gs").expect("registered");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/pica");
    for &(file, hand) in GS_ANCHORS {
        let text = std::fs::read_to_string(dir.join(file)).expect("anchor file");
        let m = irc_ir::text::parse(&text).expect("parses");
        let check = check_shader(target, &m, 8);
        assert!(
            matches!(check.outcome, Outcome::Ok),
            "{file}: {:?}",
            check.outcome
        );
        assert_eq!(check.seeds_compared, 8, "{file}");
        let o = check.output.expect("compiled");
        let ours = o.stats.code_bytes / 4;
        println!("{file:24} hand {hand:3}  ours {ours:3}");
        assert!(
            ours <= hand,
            "{file}: {ours} words, the hand-written shader has {hand}\n{}",
            o.disassembly
        );
    }
}
