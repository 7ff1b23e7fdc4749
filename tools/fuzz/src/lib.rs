//! The bodies of irc's fuzz targets, one function per reader (and one for the whole pipeline),
//! each taking arbitrary bytes. They live in this ordinary workspace crate so that clippy and
//! the tests see them and so that two drivers share them: the libFuzzer targets of
//! `tools/fuzz/libfuzzer` (coverage-guided, long runs; `cargo fuzz`) and `irc-fuzz-smoke`
//! (a fixed number of executions per target from the committed seeds, run by `.ci/run`).
//!
//! A body returns normally for every input a reader may reject; it panics only on a real
//! finding: a reader panicking, a broken round-trip property the reader's own tests promise
//! (write∘read, parse∘print, encode∘decode, assemble∘disassemble), or a pipeline mismatch.

pub mod mutate;
pub mod pipeline;
pub mod readers;

/// One fuzz target: its name (the libFuzzer target and seed directory name) and its body.
#[derive(Clone, Copy, Debug)]
pub struct FuzzTarget {
    pub name: &'static str,
    pub run: fn(&[u8]),
    /// Inputs are text (seeds are assembly or `.ir` files), so the smoke run mutates them
    /// with text-aware edits as well as byte edits.
    pub text: bool,
}

/// Every fuzz target.
pub const TARGETS: &[FuzzTarget] = &[
    FuzzTarget {
        name: "ir_binary",
        run: readers::ir_binary,
        text: false,
    },
    FuzzTarget {
        name: "ir_text",
        run: readers::ir_text,
        text: true,
    },
    FuzzTarget {
        name: "lima_mbs1",
        run: readers::lima_mbs1,
        text: false,
    },
    FuzzTarget {
        name: "lima_pp_decode",
        run: readers::lima_pp_decode,
        text: false,
    },
    FuzzTarget {
        name: "lima_pp_asm",
        run: readers::lima_pp_asm,
        text: true,
    },
    FuzzTarget {
        name: "lima_gp_decode",
        run: readers::lima_gp_decode,
        text: false,
    },
    FuzzTarget {
        name: "lima_gp_asm",
        run: readers::lima_gp_asm,
        text: true,
    },
    FuzzTarget {
        name: "pica_shbin",
        run: readers::pica_shbin,
        text: false,
    },
    FuzzTarget {
        name: "pica_decode",
        run: readers::pica_decode,
        text: false,
    },
    FuzzTarget {
        name: "pica_asm",
        run: readers::pica_asm,
        text: true,
    },
    FuzzTarget {
        name: "agal_decode",
        run: readers::agal_decode,
        text: false,
    },
    FuzzTarget {
        name: "agal_asm",
        run: readers::agal_asm,
        text: true,
    },
    FuzzTarget {
        name: "pipeline",
        run: pipeline::pipeline,
        text: false,
    },
    FuzzTarget {
        name: "compile_ir",
        run: pipeline::compile_ir,
        text: false,
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static FuzzTarget> {
    TARGETS.iter().find(|t| t.name == name)
}
