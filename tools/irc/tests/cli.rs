//! The `irc` binary: `compile` diagnostics, `disasm` / `asm` round trips on the Lima PP
//! reference test vector (lima.md §17), raw and MBS1.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Reference test vector 2 of lima.md §17: a four-instruction program.
const FOUR: [u32; 20] = [
    0x02300083, 0x30003c20, 0x00000000, // @0
    0x023805c6, 0x3f043c20, 0x00000000, 0x39001002, 0x13900e4e, 0x000007cf, // @3
    0x02264807, 0x00c93104, 0x0201c000, 0x040003c0, 0x04400420, 0x04000380, 0x03400bc0, // @9
    0x00010024, 0x00070000, 0xffffe000, 0x0000003f, // @16
];

const PASS_THROUGH: &str = "\
%1 = EntryPoint %4 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutput %1 0 0
%4 = Function
%5 = Label None
  %6 = f32x4 InputLoad %2 null
  %7 = OutputStore %3 null %6
  %8 = Return
%9 = FunctionEnd
";

fn irc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_irc"))
        .args(args)
        .output()
        .expect("irc runs")
}

/// A fresh scratch file path for this test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("irc-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn words_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn unknown_target_is_reported_with_the_known_ones() {
    let src = scratch("pass.ir");
    std::fs::write(&src, PASS_THROUGH).unwrap();
    let src = src.to_str().unwrap();
    for args in [
        vec!["compile", "--target", "mali-t880", src],
        vec!["--target", "mali-t880", src],
    ] {
        let o = irc(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains("unknown target `mali-t880`"), "{err}");
        assert!(err.contains("lima-fp"), "{err}");
    }
    let o = irc(&["disasm", "--target", "mali-t880", src]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("lima-fp"));
}

#[test]
fn compile_emits_the_prepared_module_and_checks_options() {
    let src = scratch("pass2.ir");
    std::fs::write(&src, PASS_THROUGH).unwrap();
    let src = src.to_str().unwrap();
    let o = irc(&["compile", "-t", "lima-fp", src, "--emit", "ir", "-O1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("OutputStore"), "{}", stdout(&o));
    // The same without the subcommand.
    let o = irc(&["--target", "lima-fp", src, "--emit", "ir"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = irc(&[
        "compile",
        "-t",
        "lima-fp",
        src,
        "--alpha-test",
        "sometimes,3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown compare op"), "{}", stderr(&o));
    // A verifier error: input diagnostics pinned to the op, exit code 2.
    let bad = scratch("bad.ir");
    std::fs::write(&bad, PASS_THROUGH.replace("InputLoad %2", "InputLoad %3")).unwrap();
    let o = irc(&["compile", "-t", "lima-fp", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("%6 (InputLoad): invalid input"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn disasm_asm_round_trip_on_the_reference_vector() {
    let bin = scratch("four.bin");
    std::fs::write(&bin, words_bytes(&FOUR)).unwrap();
    let o = irc(&["disasm", "--target", "lima-fp", bin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("branch"), "{text}");

    let s = scratch("four.s");
    std::fs::write(&s, &text).unwrap();
    let out = scratch("four.out.bin");
    let o = irc(&[
        "asm",
        "--target",
        "lima-fp",
        s.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), words_bytes(&FOUR));

    // Without -o: hex words.
    let o = irc(&["asm", "--target", "lima-fp", s.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(stdout(&o).starts_with("02300083 30003c20 00000000 023805c6"));

    // The same code in an MBS1 container disassembles the same.
    let mbs = scratch("four.mbs");
    let container = irc_lima::pp::mbs::write_mbs1(&FOUR, &Default::default());
    std::fs::write(&mbs, container).unwrap();
    let o = irc(&["disasm", "--target", "lima-fp", mbs.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), text);
}

#[test]
fn disasm_and_asm_errors_have_locations() {
    // The last instruction cut short: its control word says 4 words, 2 are left.
    let bin = scratch("cut.bin");
    std::fs::write(&bin, words_bytes(&FOUR[..18])).unwrap();
    let o = irc(&["disasm", "--target", "lima-fp", bin.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("word 16"), "{}", stderr(&o));

    let odd = scratch("odd.bin");
    std::fs::write(&odd, [1u8, 2, 3]).unwrap();
    let o = irc(&["disasm", "--target", "lima-fp", odd.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("32-bit words"), "{}", stderr(&o));

    let s = scratch("bad.s");
    std::fs::write(&s, "mov.v0 $0 ^const0.xxxx\nfrobnicate $1\n").unwrap();
    let o = irc(&["asm", "--target", "lima-fp", s.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("bad.s:2:"), "{err}");
}

const VERTEX: &str = "\
%1 = EntryPoint %4 Vertex
%2 = f32x4 DclInput %1 0 0
%3 = f32x4 DclOutputBuiltIn %1 Position
%4 = Function
%5 = Label None
  %6 = f32x4 InputLoad %2 null
  %7 = OutputStore %3 null %6
  %8 = Return
%9 = FunctionEnd
";

fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_irc"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("irc runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn last_json(o: &Output) -> serde_json::Value {
    let out = stdout(o);
    let line = out.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn batch_compiles_directories_and_counts_with_exit_codes() {
    let dir = scratch("batch");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("pass.ir"), PASS_THROUGH).unwrap();
    std::fs::write(dir.join("sub/pass2.ir"), PASS_THROUGH).unwrap();
    let out = scratch("batch-out");
    let _ = std::fs::remove_dir_all(&out);
    let (d, o) = (dir.to_str().unwrap(), out.to_str().unwrap());
    let r = irc(&[
        "compile",
        "-t",
        "lima-fp",
        d,
        "--out-dir",
        o,
        "--json",
        "-j2",
    ]);
    assert_eq!(r.status.code(), Some(0), "{}{}", stdout(&r), stderr(&r));
    let j = last_json(&r);
    assert_eq!(
        (
            j["compiled"].as_u64(),
            j["unsupported"].as_u64(),
            j["failed"].as_u64()
        ),
        (Some(2), Some(0), Some(0))
    );
    assert!(j["wall_ms"].is_number());
    assert!(out.join("pass.bin").is_file() && out.join("sub/pass2.bin").is_file());

    // A vertex shader is unsupported by lima-fp: exit 1, with the reason.
    std::fs::write(dir.join("vs.ir"), VERTEX).unwrap();
    let r = irc(&[
        "compile",
        "-t",
        "lima-fp",
        d,
        "--json",
        "--emit",
        "reflection-json",
        "--out-dir",
        o,
    ]);
    assert_eq!(r.status.code(), Some(1), "{}{}", stdout(&r), stderr(&r));
    let j = last_json(&r);
    assert_eq!(j["unsupported"], 1);
    assert_eq!(
        j["unsupported_reasons"][0]["reason"],
        "lima-fp compiles pixel shaders only"
    );
    let refl: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("pass.reflection.json")).unwrap()).unwrap();
    assert_eq!(refl["schema_version"], 1);
    assert!(stdout(&r).contains("unsupported"), "{}", stdout(&r));

    // A malformed file is a failure: exit 2, the file named on stderr and in the JSON.
    std::fs::write(dir.join("broken.dxir"), [5u8, 1, 2]).unwrap();
    let r = irc(&["compile", "-t", "lima-fp", d, "--json"]);
    assert_eq!(r.status.code(), Some(2), "{}{}", stdout(&r), stderr(&r));
    let j = last_json(&r);
    assert_eq!(
        (
            j["compiled"].as_u64(),
            j["unsupported"].as_u64(),
            j["failed"].as_u64()
        ),
        (Some(2), Some(1), Some(1))
    );
    assert!(j["failures"][0]["file"]
        .as_str()
        .unwrap()
        .ends_with("broken.dxir"));
    assert!(stderr(&r).contains("broken.dxir"), "{}", stderr(&r));

    // Several files given one by one; -o with several inputs is refused.
    let p1 = dir.join("pass.ir");
    let p2 = dir.join("sub/pass2.ir");
    let r = irc(&[
        "compile",
        "-t",
        "lima-fp",
        p1.to_str().unwrap(),
        p2.to_str().unwrap(),
        "--json",
        "-j1",
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert_eq!(last_json(&r)["compiled"], 2);
    let r = irc(&[
        "compile",
        "-t",
        "lima-fp",
        p1.to_str().unwrap(),
        p2.to_str().unwrap(),
        "-o",
        "x",
    ]);
    assert_eq!(r.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn stdin_and_stdout_with_dash_and_single_file_exit_codes() {
    let r = run_with_stdin(
        &["compile", "-t", "lima-fp", "-", "-o", "-", "--emit", "bin"],
        PASS_THROUGH.as_bytes(),
    );
    assert!(r.status.success(), "{}", stderr(&r));
    let expected = irc::compile(
        irc::Input::Text(PASS_THROUGH),
        "lima-fp",
        &irc::Options::default(),
    )
    .unwrap();
    assert_eq!(r.stdout, expected.code());
    // Binary on stdin, reflection JSON on stdout.
    let bin = irc_ir::binary::write(&irc_ir::text::parse(PASS_THROUGH).unwrap()).unwrap();
    let r = run_with_stdin(&["-t", "lima-fp", "-", "--emit", "reflection-json"], &bin);
    assert!(r.status.success(), "{}", stderr(&r));
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(j["target_name"], "lima-fp");
    // One unsupported shader: exit 1.
    let r = run_with_stdin(&["compile", "-t", "lima-fp", "-"], VERTEX.as_bytes());
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    assert!(stderr(&r).contains("pixel shaders only"), "{}", stderr(&r));
    // Help shows examples and exit codes.
    let r = irc(&["compile", "--help"]);
    let help = stdout(&r);
    assert!(
        help.contains("Exit codes") && help.contains("--out-dir out/"),
        "{help}"
    );
}

/// Outputs are written atomically: a failed compile or convert leaves the previous good file
/// byte for byte, and no temporary file is left next to it.
#[test]
fn failed_runs_leave_previous_outputs_whole() {
    let dir = std::env::temp_dir().join(format!("irc-cli-atomic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("pass.ir");
    std::fs::write(&good, PASS_THROUGH).unwrap();
    let bad = dir.join("bad.ir");
    std::fs::write(&bad, "%1 = Bogus\n").unwrap();
    let out = dir.join("out.bin");
    let (good, bad, out_s) = (
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let o = irc(&[
        "compile", "-t", "lima-fp", good, "--emit", "bin", "-o", out_s,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = std::fs::read(&out).unwrap();
    assert!(!before.is_empty());
    let o = irc(&[
        "compile", "-t", "lima-fp", bad, "--emit", "bin", "-o", out_s,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    // convert: the module parses but the binary writer refuses it (a constant short of
    // literals), after the good conversion wrote the file.
    let dxir = dir.join("out.dxir");
    let dxir_s = dxir.to_str().unwrap();
    let o = irc(&["convert", good, "-o", dxir_s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = std::fs::read(&dxir).unwrap();
    let short = dir.join("short.ir");
    std::fs::write(&short, "%1 = f32x2 Constant 1.0\n").unwrap();
    let o = irc(&["convert", short.to_str().unwrap(), "-o", dxir_s]);
    assert_ne!(o.status.code(), Some(0));
    assert_eq!(std::fs::read(&dxir).unwrap(), before);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["bad.ir", "out.bin", "out.dxir", "pass.ir", "short.ir"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
