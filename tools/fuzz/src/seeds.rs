//! `irc-fuzz-seeds CORPUS OUT [--every K] [--max-bytes N]`: builds the long runs' seed corpora,
//! one directory per fuzz target under OUT, from the shared corpus (every K-th shader no
//! larger than N bytes, default every 8th up to 16 KiB), the filetests, and the committed
//! seeds of `tools/fuzz/seeds`: `.dxir` files as they are (binary reader, whole compile),
//! printed as text (text parser), compiled for lima-fp and pica-vs (MBS1 and SHBIN containers,
//! code words, disassembly), and the committed assembly seeds assembled for the decoders.

use irc_backend::Target;
use std::path::{Path, PathBuf};

/// Per registered target: the fuzz targets its container, code and disassembly seed.
const OUTPUTS: &[(&str, &str, &str, &str)] = &[
    ("lima-fp", "lima_mbs1", "lima_pp_decode", "lima_pp_asm"),
    ("pica-vs", "pica_shbin", "pica_decode", "pica_asm"),
];

fn put(out: &Path, target: &str, name: &str, bytes: &[u8]) {
    let dir = out.join(target);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    std::fs::write(dir.join(name), bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.to_string_lossy().ends_with(ext) {
            out.push(p);
        }
    }
}

/// The `pica_decode` input for a SHBIN: descriptor count, descriptors, code words.
fn pica_words(shbin: &[u8]) -> Option<Vec<u8>> {
    let sh = irc_pica::shbin::read(shbin).ok()?;
    let n = u8::try_from(sh.opdescs.len()).ok().filter(|&n| n <= 128)?;
    let mut b = vec![n];
    for w in sh.opdescs.iter().chain(&sh.code) {
        b.extend_from_slice(&w.to_le_bytes());
    }
    Some(b)
}

fn module_seeds(out: &Path, name: &str, m: &irc_ir::Module, compile: bool) {
    if let Ok(b) = irc_ir::binary::write(m) {
        put(out, "ir_binary", &format!("{name}.dxir"), &b);
        put(out, "compile_ir", &format!("{name}.dxir"), &b);
    }
    put(
        out,
        "ir_text",
        &format!("{name}.ir"),
        irc_ir::text::print(m).as_bytes(),
    );
    if !compile {
        return;
    }
    for &(tname, container, code, asm) in OUTPUTS {
        let Some(t): Option<&dyn Target> = irc::Registry::builtin().target(tname) else {
            continue;
        };
        let mut options = irc::Options::default();
        options.backend.container = true;
        let Ok(o) = irc::compile_for(irc::Input::Module(m.clone()), t, &options) else {
            continue;
        };
        if let Some(c) = &o.container {
            put(out, container, name, &c.bytes);
            if let Some(w) = pica_words(&c.bytes).filter(|_| code == "pica_decode") {
                put(out, code, name, &w);
            }
        }
        if code != "pica_decode" {
            let mut b = vec![0u8];
            b.extend_from_slice(o.code());
            put(out, code, name, &b);
        }
        put(out, asm, &format!("{name}.s"), o.disassembly.as_bytes());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(corpus), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: irc-fuzz-seeds CORPUS OUT [--every K] [--max-bytes N]");
        std::process::exit(2);
    };
    let opt = |flag: &str, default: u64| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (every, max_bytes) = (opt("--every", 8).max(1) as usize, opt("--max-bytes", 16384));
    let out = Path::new(out);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The committed seeds, as they are.
    let committed = root.join("seeds");
    if let Ok(rd) = std::fs::read_dir(&committed) {
        for d in rd.flatten() {
            let mut fs = Vec::new();
            files(&d.path(), "", &mut fs);
            for f in fs {
                let bytes = std::fs::read(&f).unwrap_or_default();
                let name = f
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                put(out, &d.file_name().to_string_lossy(), &name, &bytes);
            }
        }
    }
    // The shared corpus.
    let mut dxir = Vec::new();
    files(&Path::new(corpus).join("ir"), ".dxir", &mut dxir);
    dxir.sort();
    let mut n = 0;
    for p in dxir.iter().step_by(every) {
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        if bytes.len() as u64 > max_bytes {
            continue;
        }
        let Ok(m) = irc_ir::binary::read(&bytes) else {
            continue;
        };
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .replace(".dxir", "");
        module_seeds(out, &name, &m, true);
        n += 1;
    }
    // The filetests (their `test`/`target`/`option` header lines are not IR).
    let mut irs = Vec::new();
    files(&root.join("../../testsuite/filetests"), ".ir", &mut irs);
    irs.sort();
    for p in &irs {
        let Ok(src) = std::fs::read_to_string(p) else {
            continue;
        };
        let body: String = src
            .lines()
            .filter(|l| {
                !["test ", "target ", "option "]
                    .iter()
                    .any(|h| l.starts_with(h))
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let name = format!("ft-{}", p.file_stem().unwrap_or_default().to_string_lossy());
        put(out, "ir_text", &format!("{name}.ir"), body.as_bytes());
        if let Ok(m) = irc_ir::text::parse(&body) {
            module_seeds(out, &name, &m, false);
        }
    }
    // Committed assembly, assembled for the decoders that have no code generator yet.
    let mut gp = Vec::new();
    files(&committed.join("lima_gp_asm"), "", &mut gp);
    for p in gp {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let encoded = irc_lima::gp::assemble(&text).map(|p| irc_lima::gp::encode_bytes(&p));
        if let Ok(Ok(b)) = encoded {
            let name = p.file_stem().unwrap_or_default().to_string_lossy();
            put(out, "lima_gp_decode", &name, &[&[0u8][..], &b].concat());
        }
    }
    let mut agal = Vec::new();
    files(&committed.join("agal_asm"), "", &mut agal);
    for p in agal {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if let Ok(prog) = irc_agal::asm::assemble(&text) {
            let name = p
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            put(
                out,
                "agal_decode",
                &name,
                &irc_agal::encode::encode_program(&prog),
            );
        }
    }
    println!(
        "irc-fuzz-seeds: {n} corpus shaders, {} filetests → {}",
        irs.len(),
        out.display()
    );
}
