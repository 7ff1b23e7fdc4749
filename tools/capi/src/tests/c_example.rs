//! `examples/compile.c` built with the system C compiler against the static library, run, and
//! its output compared with the same lines made through the Rust API on the same inputs; its
//! bad-input mode must report an error for every case and exit 0. Skipped (with the reason
//! printed) only when there is no `cc`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use irc_driver::{Compiler, Input, Options};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn workspace() -> PathBuf {
    crate_dir().join("../..")
}

/// Builds `libirc.a` with the same profile as this test binary (`target/<profile>/deps/…`)
/// and returns its path.
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>");
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .args(["build", "-q", "-p", "irc-capi"])
        .current_dir(workspace())
        .stdin(Stdio::null());
    if release {
        cargo.arg("--release");
    }
    let status = cargo.status().expect("run cargo build -p irc-capi");
    assert!(status.success(), "cargo build -p irc-capi failed");
    profile_dir.join("libirc.a")
}

fn has_cc() -> bool {
    Command::new("cc").arg("--version").output().is_ok()
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The lines `compile` prints for `path`, made with the Rust API.
fn expected_lines(path: &str) -> String {
    let bytes = std::fs::read(path).unwrap();
    let text = path.ends_with(".ir");
    fn input(b: &[u8], text: bool) -> Input<'_> {
        if text {
            Input::Text(std::str::from_utf8(b).unwrap())
        } else {
            Input::Binary(b)
        }
    }
    let stage = irc_driver::shader_stage(input(&bytes, text)).ok();
    let mut out = String::new();
    let mut fitting = 0;
    for t in irc_driver::targets() {
        let Some(stage) = stage.filter(|s| t.stages().contains(s)) else {
            continue;
        };
        let _ = stage;
        fitting += 1;
        let mut c = Compiler::new(t.name(), Options::default()).unwrap();
        match c.compile(input(&bytes, text)) {
            Ok(o) => out.push_str(&format!(
                "{path} {} ok code {} fnv1a64 {:016x}\n",
                t.name(),
                o.code().len(),
                fnv1a64(o.code())
            )),
            Err(d) => {
                let first = &d.0[0];
                out.push_str(&format!(
                    "{path} {} error {}: {first}\n",
                    t.name(),
                    crate::kind_code(first.kind)
                ));
            }
        }
    }
    if fitting == 0 {
        let s = stage.map_or(-1, |s| s.0 as i32);
        out.push_str(&format!("{path} no target for stage {s}\n"));
    }
    out
}

/// The in-repo examples, plus a sample of the corpus (pixel and other stages) when present.
fn inputs() -> Vec<String> {
    let mut v = vec![
        workspace().join("testsuite/examples/textured_fog.dxir"),
        workspace().join("testsuite/examples/textured_fog.ir"),
    ];
    let corpus = std::env::var_os("IRC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/corpus"));
    if let Ok(dir) = std::fs::read_dir(corpus.join("ir")) {
        let mut files: Vec<PathBuf> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".raw.dxir"))
            .collect();
        files.sort();
        // Every 40th file: compiled, unsupported and non-pixel shaders alike.
        v.extend(files.into_iter().step_by(40));
    }
    v.into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn the_c_example_prints_what_the_rust_api_computes() {
    if !has_cc() {
        println!("skipped: no C compiler `cc` on PATH");
        return;
    }
    let lib = static_library();
    let dir = std::env::temp_dir().join(format!("irc-capi-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("compile");
    let built = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("examples/compile.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .expect("run cc");
    assert!(
        built.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );

    let files = inputs();
    let run = Command::new(&exe).args(&files).output().unwrap();
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert!(
        run.status.success(),
        "compile failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let expected: String = files.iter().map(|f| expected_lines(f)).collect();
    assert_eq!(stdout, expected);
    assert!(stdout.contains(" ok code "), "{stdout}");
    println!("{stdout}");

    let bad = Command::new(&exe).arg("--bad-input").output().unwrap();
    let text = String::from_utf8_lossy(&bad.stdout);
    assert!(bad.status.success(), "bad-input mode: {text}");
    assert!(
        !text.contains("SUCCEEDED") && !text.contains("WRONG"),
        "{text}"
    );
    assert_eq!(text.matches("bad input:").count(), 12, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_header_compiles_as_c_and_as_cpp() {
    for (compiler, lang, std) in [("cc", "c", "-std=c99"), ("c++", "c++", "-std=c++11")] {
        if Command::new(compiler).arg("--version").output().is_err() {
            println!("skipped {lang}: no `{compiler}` on PATH");
            continue;
        }
        let o = Command::new(compiler)
            .args([
                "-fsyntax-only",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                std,
                "-x",
                lang,
            ])
            .arg(crate_dir().join("include/irc.h"))
            .output()
            .expect("run the compiler");
        assert!(
            o.status.success(),
            "irc.h as {lang}:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
