//! `irc validate`: the AGAL runtime validator on a program irc compiled (valid, exit 0), on
//! hand-written invalid programs (each rule's error number from agal.md §7 and the token and
//! byte of the offending field, exit 1), and the usage errors (exit 2): a target without a
//! validator, an unknown target, an unreadable file.

use std::path::PathBuf;
use std::process::{Command, Output};

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
    let dir = std::env::temp_dir().join(format!("irc-validate-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Assembles AGAL text with `irc asm` to a file, returning its path.
fn assemble(name: &str, src: &str) -> String {
    let s = scratch(&format!("{name}.s"));
    std::fs::write(&s, src).unwrap();
    let out = scratch(&format!("{name}.agal"));
    let (s, out) = (s.to_str().unwrap(), out.to_str().unwrap().to_string());
    let o = irc(&["asm", "--target", "agal-fp", s, "-o", &out]);
    assert!(o.status.success(), "asm: {}", text(&o.stderr));
    out
}

#[test]
fn a_compiled_program_is_valid_for_the_family_and_its_members() {
    let src = scratch("pass.ir");
    std::fs::write(&src, PASS_THROUGH).unwrap();
    let bin = scratch("pass.agal");
    let (src, bin) = (src.to_str().unwrap(), bin.to_str().unwrap());
    let o = irc(&["compile", "--target", "agal-fp", src, "-o", bin]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for target in ["agal", "agal-fp", "agal-vp"] {
        let o = irc(&["validate", "--target", target, bin]);
        assert_eq!(o.status.code(), Some(0), "{target}: {}", text(&o.stderr));
        assert!(text(&o.stdout).contains("valid"), "{}", text(&o.stdout));
    }
}

#[test]
fn broken_rules_print_their_error_number_and_token() {
    // Header 7 bytes, then 24-byte tokens: opcode 4, destination 4, source 1 at +8, source 2
    // at +16 (agal.md §3), so token 1's source 1 is byte 15 and its source 2 byte 23.
    let cases = [
        // #3647: a temporary read without any prior write.
        (
            "undefined",
            ".agal fragment 1\nmov ft0, ft1\nmov oc, ft0\n",
            "Error #3647",
            "at token 1 of fragment program (byte 15)",
        ),
        // #3625: both sources constants.
        (
            "two_constants",
            ".agal fragment 1\nadd ft0, fc0, fc1\nmov oc, ft0\n",
            "Error #3625",
            "at token 1 of fragment program (byte 23)",
        ),
        // #3648: a component read that was never written (only .x written).
        (
            "component",
            ".agal fragment 1\nmov ft0.x, v0\nmov oc, ft0\n",
            "Error #3648",
            "at token 2 of fragment program",
        ),
    ];
    for (name, src, code, place) in cases {
        let bin = assemble(name, src);
        let o = irc(&["validate", "--target", "agal", &bin]);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{name}: {out}{}", text(&o.stderr));
        assert!(out.contains(code), "{name}: {out}");
        assert!(out.contains(place), "{name}: {out}");
    }
    // Bytes that are not AGAL at all: bad magic is #3612 (agal.md §7.1).
    let junk = scratch("junk.agal");
    std::fs::write(&junk, b"not an agal program").unwrap();
    let o = irc(&["validate", "-t", "agal-vp", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).contains("Error #3612"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn usage_and_read_errors_exit_2_with_a_clear_message() {
    let junk = scratch("any.bin");
    std::fs::write(&junk, [0u8; 16]).unwrap();
    let junk = junk.to_str().unwrap();
    let o = irc(&["validate", "--target", "lima-fp", junk]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("target `lima-fp` has no validator"),
        "{}",
        text(&o.stderr)
    );
    let o = irc(&["validate", "--target", "mali-t880", junk]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unknown target `mali-t880`"));
    let missing = scratch("missing.agal");
    let o = irc(&["validate", "--target", "agal", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("missing.agal"));
    let o = irc(&["validate", junk]);
    assert_eq!(o.status.code(), Some(2), "clap usage error");
}
