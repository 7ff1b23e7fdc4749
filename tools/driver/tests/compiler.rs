//! `irc::Compiler` reuses its pass manager and module storage across compilations; the
//! result must be exactly `irc::compile`'s for every input, whatever came before (compiled
//! shaders, unsupported ones, malformed bytes, text, in-memory modules).

use std::path::{Path, PathBuf};

use irc::{Compiler, Input, Options};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus_files() -> Vec<PathBuf> {
    let dir = std::env::var_os("IRC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/corpus"));
    let Ok(entries) = std::fs::read_dir(dir.join("ir")) else {
        println!("corpus not found, skipped");
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "dxir"))
        .collect();
    v.sort();
    // Every 7th file: raw and dxbc-spirv forms, every stage, compiled and unsupported.
    v.into_iter().step_by(7).collect()
}

#[test]
fn a_reused_compiler_gives_exactly_what_compile_gives() {
    let examples = workspace().join("testsuite/examples");
    let mut inputs: Vec<(String, Vec<u8>)> = vec![
        ("truncated".into(), vec![5, 1, 2]),
        ("empty".into(), vec![]),
    ];
    for f in ["textured_fog.dxir", "textured_fog.ir"] {
        inputs.push((f.into(), std::fs::read(examples.join(f)).unwrap()));
    }
    for f in corpus_files() {
        let bytes = std::fs::read(&f).unwrap();
        inputs.push((f.display().to_string(), bytes[..bytes.len() / 2].to_vec()));
        inputs.push((f.display().to_string(), bytes));
    }
    for level in [0u8, 2] {
        let mut options = Options::default();
        options.backend.opt_level = level;
        options.backend.container = true;
        let mut compiler = Compiler::new("lima-fp", options.clone()).unwrap();
        let (mut ok, mut err) = (0, 0);
        for (name, bytes) in &inputs {
            let input = || {
                if name.ends_with(".ir") {
                    Input::Text(std::str::from_utf8(bytes).unwrap())
                } else {
                    Input::Binary(bytes)
                }
            };
            let expected = irc::compile(input(), "lima-fp", &options);
            let got = compiler.compile(input());
            assert_eq!(got, expected, "{name} at -O{level}");
            if got.is_ok() {
                ok += 1
            } else {
                err += 1
            }
            // An in-memory module in between replaces the storage; the next read refills it.
            if let Ok(m) = irc_ir::binary::read(bytes) {
                let _ = compiler.compile(Input::Module(m));
            }
        }
        assert!(ok >= 2 && err >= 2, "{ok} compiled, {err} errors");
        println!("-O{level}: {ok} compiled, {err} errors, all equal to irc::compile");
    }
}

#[test]
fn shaders_of_another_stage_are_unsupported_with_one_reason() {
    let vs = "%1 = EntryPoint %4 Vertex\n%2 = f32x4 DclInput %1 0 0\n\
              %3 = f32x4 DclOutputBuiltIn %1 Position\n%4 = Function\n%5 = Label None\n\
              %6 = f32x4 InputLoad %2 null\n%7 = OutputStore %3 null %6\n%8 = Return\n\
              %9 = FunctionEnd\n";
    let e = irc::compile(Input::Text(vs), "lima-fp", &Options::default()).unwrap_err();
    assert!(e.is_unsupported());
    assert_eq!(e.0[0].message, "lima-fp compiles pixel shaders only");
    let mut c = Compiler::new("lima-fp", Options::default()).unwrap();
    assert_eq!(c.compile(Input::Text(vs)).unwrap_err(), e);
    assert_eq!(c.prepare(Input::Text(vs)).unwrap_err(), e);
}
