//! The AGAL anchor programs (reference §10: hand-written Starling and Away3D programs and two
//! of Ruffle's test programs, with their token counts), rewritten as IR under
//! `testsuite/bench/agal/`: each compiles, matches the interpreter in the AGAL simulator on 8
//! seeded input sets, and takes no more tokens than the hand-written program. `cargo test
//! --release -p irc-testsuite --test agal_anchors -- --nocapture` prints the table.

use irc_testsuite::corpus::Outcome;
use irc_testsuite::harness::check_shader;

/// (file under testsuite/bench/agal, target, tokens of the hand-written program per §10).
const ANCHORS: &[(&str, &str, u32)] = &[
    ("starling_filter.vs.ir", "agal-vp", 2),
    ("starling_mesh.vs.ir", "agal-vp", 3),
    ("starling_mesh.fs.ir", "agal-fp", 2),
    ("starling_color_matrix.fs.ir", "agal-fp", 7),
    ("starling_blur.vs.ir", "agal-vp", 6),
    ("starling_blur.fs.ir", "agal-fp", 14),
    ("away3d_skybox.vs.ir", "agal-vp", 4),
    ("away3d_skybox.fs.ir", "agal-fp", 2),
    // The 28-token revision of SegmentPass (`backends/agal/tests/agal/anchors.rs`).
    ("away3d_segment.vs.ir", "agal-vp", 28),
    ("molehill_julia.fs.ir", "agal-fp", 197),
    ("raytrace.fs.ir", "agal-fp", 833),
];

#[test]
fn anchors_compile_match_and_take_no_more_tokens_than_by_hand() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/agal/");
    println!("| program | hand-written tokens | irc tokens | temporaries | AGAL version |");
    println!("|---|---|---|---|---|");
    let mut over = Vec::new();
    for &(file, target_name, hand) in ANCHORS {
        let text = std::fs::read_to_string(format!("{dir}{file}")).expect("bench file readable");
        let module = irc_ir::text::parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let target = irc::targets()
            .iter()
            .copied()
            .find(|t| t.name() == target_name)
            .expect("target registered");
        let check = check_shader(target, &module, 8);
        assert!(
            matches!(check.outcome, Outcome::Ok),
            "{file}: {:?}",
            check.outcome
        );
        assert_eq!(check.seeds_compared, 8, "{file}: every input set compared");
        let out = check.output.expect("compiled");
        let tokens = out.stats.instructions;
        let version = out
            .stats
            .extra
            .iter()
            .find(|e| e.0 == "agal-version")
            .map_or(0, |e| e.1);
        println!(
            "| {file} | {hand} | {tokens} | {} | {version} |",
            out.stats.registers
        );
        if tokens > hand {
            over.push(format!("{file}: {tokens} tokens, by hand {hand}"));
        }
    }
    assert!(over.is_empty(), "more tokens than by hand: {over:?}");
}
