//! A seeded random program generator for differential testing.
//!
//! [`draw::draw`] picks an abstract [`ast::Program`] (typed variables, ifs, bounded loops,
//! switches, discards, float/integer/bool expressions, D3D9's legacy products, `pow` and `log`,
//! dot products of vectors built from scalars, inputs, constant-buffer loads with dynamic
//! clamped indices, texture samples); [`raw::lower`] and [`structured::lower`] turn the same
//! program into raw IR (dxbc-spirv front-end shape) and structured SSA IR (legalized shape),
//! storing the outputs in several shapes (scalar and vector stores, components stored twice).
//! Everything is deterministic from the seed. A failing case is printed as a ready-to-commit
//! filetest with [`regression_file`]; a case kept for a regression test is kept as text
//! (`testsuite/regressions/`), since a change to the generator's draws changes the program a
//! seed gives.

pub mod ast;
pub mod draw;
pub mod emit;
pub mod raw;
pub mod structured;

pub use draw::Limits;
pub use emit::Form;

use irc_ir::Module;

/// SplitMix64: a tiny, fast, seedable generator; deterministic across platforms. Built with
/// [`Rng::from_bytes`] it first replays a script of fuzz-input bytes (four per draw), so a
/// coverage-guided fuzzer steers every choice of the generator; when the script runs out it
/// continues as SplitMix64 seeded from the script, so every input still makes a whole program.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    script: Vec<u8>,
    at: usize,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            script: Vec::new(),
            at: 0,
        }
    }
    /// A generator whose draws come from `bytes` first (see the type's doc).
    pub fn from_bytes(bytes: &[u8]) -> Rng {
        let seed = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        Rng {
            state: seed,
            script: bytes.to_vec(),
            at: 0,
        }
    }
    pub fn next_u64(&mut self) -> u64 {
        if let Some(chunk) = self.script.get(self.at..).filter(|c| !c.is_empty()) {
            let mut word = [0u8; 4];
            let n = chunk.len().min(4);
            word[..n].copy_from_slice(&chunk[..n]);
            self.at += n;
            // The same 32 bits high (for `chance`) and low (for `below`).
            return u64::from(u32::from_le_bytes(word)) * 0x1_0000_0001;
        }
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// Draws the abstract program for `seed`.
pub fn program(seed: u64, limits: Limits) -> ast::Program {
    draw::draw(&mut Rng::new(seed), limits)
}

/// The module for `seed` in the given form.
pub fn generate(seed: u64, form: Form, limits: Limits) -> Module {
    let p = program(seed, limits);
    match form {
        Form::Raw => raw::lower(&p),
        Form::Structured => structured::lower(&p),
    }
}

/// The program for `seed` as a vertex shader (raw form), for targets of the vertex stage only:
/// see [`vertex_form`].
pub fn generate_vertex(seed: u64, limits: Limits) -> Option<Module> {
    vertex_form(program(seed, limits))
}

/// Program `p` as a vertex shader (raw form): the same inputs, constant buffer and arithmetic,
/// the outputs as vertex outputs at the same locations (output 0 also into `Position`). `None`
/// when the program uses a pixel-stage operation ([`pixel_only`]).
pub fn vertex_form(mut p: ast::Program) -> Option<Module> {
    if pixel_only(&p) {
        return None;
    }
    p.stage = irc_ir::ShaderStage::Vertex.0;
    Some(raw::lower(&p))
}

/// Program `p` as a geometry shader (raw form), for targets of the geometry stage only: one
/// invocation per input triangle, each input an array over its three vertices (input `L`
/// component `c` read from vertex `(L + c) mod 3`), the program once, then its outputs (output
/// 0 also into `Position`) stored and emitted as each of the three vertices of one triangle
/// strip. `None` when the program uses a pixel-stage operation ([`pixel_only`]).
pub fn geometry_form(mut p: ast::Program) -> Option<Module> {
    if pixel_only(&p) {
        return None;
    }
    p.stage = irc_ir::ShaderStage::Geometry.0;
    Some(raw::lower(&p))
}

/// Whether `p` samples a texture (with implicit derivatives) or discards: operations of the
/// pixel stage only.
fn pixel_only(p: &ast::Program) -> bool {
    fn discards(body: &[ast::Stmt]) -> bool {
        body.iter().any(|s| match s {
            ast::Stmt::Discard(_) => true,
            ast::Stmt::If(_, a, b) => discards(a) || discards(b),
            ast::Stmt::Loop { body, .. } => discards(body),
            ast::Stmt::Switch(_, cases, default) => {
                cases.iter().any(|(_, c)| discards(c)) || discards(default)
            }
            ast::Stmt::Assign(..) => false,
        })
    }
    p.uses_texture || discards(&p.body)
}

/// A failing case as a filetest file: header, a comment naming the seed and why, the module.
pub fn regression_file(seed: u64, form: Form, commands: &[&str], why: &str, m: &Module) -> String {
    let mut s = String::new();
    for c in commands {
        s.push_str(&format!("test {c}\n"));
    }
    s.push_str(&format!(
        "; generated by irc's random program generator, seed {seed}, {form:?} form\n"
    ));
    for line in why.lines() {
        s.push_str(&format!("; {line}\n"));
    }
    s.push_str(&irc_ir::text::print(m));
    s
}
