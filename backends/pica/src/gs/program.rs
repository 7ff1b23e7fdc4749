//! One SHBIN for a program: the vertex shader's and the geometry shader's DVLEs over one shared
//! code blob and one operand-descriptor table (reference §13.2–13.3: libctru uploads the whole
//! blob and every descriptor from index 0 for both stages; devkitPro's build makes `X.shbin`
//! from `X.v.pica` + `X.g.pica`, VS = DVLE 0, GS = DVLE 1).
//!
//! Each stage's own SHBIN is decoded, its code appended after the previous stages' (flow-control
//! targets, `main` and `endmain` moved by the offset), and the concatenation encoded again, so
//! that descriptors are de-duplicated across the stages and MAD's stay within 0–31. The vertex
//! shader comes first and must end within word 512 (§11.7); the table holds at most 128
//! descriptors (§11.8). Each DVLE keeps its constants, outputs and uniforms (the geometry
//! shader unit has its own uniform registers).

use irc_backend::{Container, Diagnostic, Output};

use crate::decode::decode_program;
use crate::encode::{encode_program, EncodeError};
use crate::instr::Instr;
use crate::isa::limits;
use crate::shbin::{self, ShaderType, Shbin};

/// The SHBIN of a program whose stages' outputs carry SHBIN containers (pipeline order).
pub fn program_container(stages: &[&Output]) -> Result<Container, Diagnostic> {
    let mut parts = Vec::with_capacity(stages.len());
    for o in stages {
        let c = o
            .container
            .as_ref()
            .filter(|c| c.format == "shbin")
            .ok_or_else(|| Diagnostic::internal(None, "a program stage without its SHBIN"))?;
        parts.push(shbin::read(&c.bytes).map_err(|e| Diagnostic::internal(None, e.to_string()))?);
    }
    Ok(Container {
        format: "shbin",
        bytes: shbin::write(&merge(&parts)?),
    })
}

/// One SHBIN holding every DVLE of `parts`, in order, over shared code and descriptors.
pub fn merge(parts: &[Shbin]) -> Result<Shbin, Diagnostic> {
    let mut code: Vec<Instr> = Vec::new();
    let mut dvles = Vec::new();
    for p in parts {
        let base = code.len();
        let offset = u16::try_from(base)
            .ok()
            .filter(|&b| usize::from(b) < 1 << 12)
            .ok_or_else(|| Diagnostic::limit("program code beyond the 12-bit word address"))?;
        let instrs = decode_program(&p.code, &p.opdescs)
            .map_err(|e| Diagnostic::internal(None, format!("decode: {e}")))?;
        code.extend(instrs.into_iter().map(|i| relocate(i, offset)));
        for d in &p.dvles {
            let mut d = d.clone();
            d.main += base as u32;
            d.endmain += base as u32;
            if d.kind == ShaderType::Vertex && d.endmain as usize > limits::CODE_WORDS {
                return Err(Diagnostic::limit(format!(
                    "the vertex shader ends at word {}; it must lie within the first {} words",
                    d.endmain,
                    limits::CODE_WORDS
                )));
            }
            dvles.push(d);
        }
    }
    let (words, opdescs) = encode_program(&code).map_err(|e| match e {
        EncodeError::TooManyOpdescs | EncodeError::TooManyMadOpdescs => {
            Diagnostic::limit(format!("operand descriptors of the program: {e}"))
        }
        e => Diagnostic::internal(None, format!("encode: {e}")),
    })?;
    if words.len() >= 1 << 12 {
        return Err(Diagnostic::limit(format!(
            "{} code words; addresses have 12 bits",
            words.len()
        )));
    }
    Ok(Shbin {
        code: words,
        opdescs,
        dvles,
    })
}

/// `i` moved `offset` words later (absolute flow-control targets).
fn relocate(i: Instr, offset: u16) -> Instr {
    match i {
        Instr::CondFlow { op, cond, dst, num } => Instr::CondFlow {
            op,
            cond,
            dst: dst + offset,
            num,
        },
        Instr::UniformFlow { op, id, dst, num } => Instr::UniformFlow {
            op,
            id,
            dst: dst + offset,
            num,
        },
        i => i,
    }
}
