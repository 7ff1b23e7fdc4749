//! The generic [`irc_backend::Simulator`] over the PICA200 simulator ([`crate::sim`]): reads a
//! compiled [`Output`]'s sections, maps the IR-named [`SimInputs`] onto hardware registers
//! through the program's [`Reflection`], and maps output registers back to IR names.
//!
//! # Sections of a PICA200 [`Output`]
//!
//! | name | content |
//! |---|---|
//! | [`SECTION_CODE`] `code` | code words, little-endian u32 each |
//! | [`SECTION_OPDESCS`] `operand-descriptors` | operand descriptors, little-endian u32 each (the low word of the SHBIN's 8-byte entries) |
//! | [`SECTION_ENTRY`] `entry` (optional) | u32 main, u32 endmain (words); without it the program starts at word 0 |
//! | [`SECTION_SHADER_TYPE`] `shader-type` (optional) | one byte: 0 vertex shader, 1 geometry shader; default 0 |
//!
//! Without a `code` section, a `shbin` [`irc_backend::Container`] is run instead (its DVLE 0,
//! constant table applied).
//!
//! # Reflection conventions
//!
//! * `reflection.varyings`: slot = input register `v<slot>`; source component `i` goes to lane
//!   `lane + i`. Inputs the program declares but the run does not give are an error.
//! * `reflection.uniforms`: slot 0–95 = float uniform `c<slot>`, 96–99 = int uniform
//!   `i<slot − 96>`, 100–115 = bool uniform `b<slot − 100>` (the SHBIN "unified" order, shifted
//!   so that c starts at 0). DEF constants are [`UniformSource::Literal`]; int lanes are
//!   converted with a wrapping `as u8` (a D3D loop step of −1 becomes 255, which the wrapping
//!   `aL` arithmetic turns back into −1), a bool is lane 0 ≠ 0. `Legacy` sources read
//!   `legacy_constants` (float bits as f32; int lanes as i32; bool lane 0), `ConstantBuffer`
//!   sources read four words (lanes flagged in `int_lanes` converted from i32).
//! * `reflection.outputs`: register = output register `o<register>`; lane `i` is component
//!   `i` of the target (`IoSource::Location { component }` + i, or the built-in's scalar `i`);
//!   components 4–7 of a wider binding (`ClipDistance`) are lanes 0–3 of `o<register + 1>`.
//! * A geometry shader runs once per invocation; every EMIT produces one
//!   [`InvocationOutputs`] (in emission order), named through `reflection.outputs` like a
//!   vertex's outputs, and every triangle one entry of [`SimOutputs::primitives`]: its slots
//!   0, 1, 2 (1, 0, 2 with the SETEMIT winding flag, as citra's primitive assembler takes
//!   them) as indices of emitted vertices. With a [`crate::gs::SECTION_GS_LAYOUT`] section its
//!   inputs are per-vertex arrays in point-mode layout: `reflection.varyings` binds vertex 0,
//!   vertex `j` of a binding of `w` components is in `v<slot + j·stride>` and reads source
//!   components `component + j·w` (the IR's flattened array).

use irc_backend::{
    InvocationOutputs, IoName, IoSource, IoValues, Output, Reflection, SimConfig, SimError,
    SimInputs, SimOutputs, Simulator, UniformSource,
};
use irc_ir::BuiltIn;

use crate::decode::decode_program;
use crate::shbin;
use crate::sim::{self, SimOptions, Uniforms};

pub const SECTION_CODE: &str = "code";
pub const SECTION_OPDESCS: &str = "operand-descriptors";
pub const SECTION_ENTRY: &str = "entry";
pub const SECTION_SHADER_TYPE: &str = "shader-type";

/// First uniform slot of the int uniforms and of the bool uniforms (see the module doc).
pub const INT_SLOT: u32 = 96;
pub const BOOL_SLOT: u32 = 100;

/// The sections of a compiled program, named as [`PicaSimulator`] reads them: code, operand
/// descriptors, entry (main, endmain) and, for a geometry shader, the shader type.
pub fn sections(
    code: &[u32],
    opdescs: &[u32],
    entry: (u32, u32),
    geometry: bool,
) -> Vec<irc_backend::Section> {
    use irc_backend::output::bytes_of;
    let mut s = vec![
        irc_backend::Section {
            name: SECTION_CODE,
            bytes: bytes_of(code),
        },
        irc_backend::Section {
            name: SECTION_OPDESCS,
            bytes: bytes_of(opdescs),
        },
        irc_backend::Section {
            name: SECTION_ENTRY,
            bytes: bytes_of(&[entry.0, entry.1]),
        },
    ];
    if geometry {
        s.push(irc_backend::Section {
            name: SECTION_SHADER_TYPE,
            bytes: vec![1],
        });
    }
    s
}

/// The PICA200 simulator behind the generic interface.
#[derive(Debug, Clone, Copy, Default)]
pub struct PicaSimulator;

fn words(b: &[u8]) -> Vec<u32> {
    irc_backend::output::words_of(b)
}

fn err(msg: impl Into<String>) -> SimError {
    SimError(msg.into())
}

/// Where a run starts, what it runs and which DEF constants a container adds.
struct Loaded {
    code: Vec<u32>,
    descs: Vec<u32>,
    entry: usize,
    geometry: bool,
    constants: Vec<shbin::Constant>,
}

fn load(output: &Output) -> Result<Loaded, SimError> {
    if let Some(code) = output.section(SECTION_CODE) {
        let descs = output
            .section(SECTION_OPDESCS)
            .map(words)
            .unwrap_or_default();
        let entry = output
            .section(SECTION_ENTRY)
            .map(words)
            .and_then(|w| w.first().copied())
            .unwrap_or(0) as usize;
        let geometry = output
            .section(SECTION_SHADER_TYPE)
            .is_some_and(|b| b.first() == Some(&1));
        return Ok(Loaded {
            code: words(code),
            descs,
            entry,
            geometry,
            constants: Vec::new(),
        });
    }
    let Some(c) = output.container.as_ref().filter(|c| c.format == "shbin") else {
        return Err(err("no `code` section and no SHBIN container"));
    };
    let sh = shbin::read(&c.bytes).map_err(|e| err(e.to_string()))?;
    let d = sh
        .dvles
        .first()
        .ok_or_else(|| err("SHBIN without a DVLE"))?;
    Ok(Loaded {
        entry: d.main as usize,
        geometry: d.kind == shbin::ShaderType::Geometry,
        constants: d.constants.clone(),
        code: sh.code,
        descs: sh.opdescs,
    })
}

fn uniform_lanes(
    src: &UniformSource,
    inputs: &SimInputs<'_>,
) -> Result<([f32; 4], [i32; 4]), SimError> {
    match src {
        UniformSource::Literal(v) => Ok((*v, v.map(|x| x as i32))),
        UniformSource::LegacyLoop { index } => {
            // The driver's upload: (count − 1, start, step, 0), each a byte (modulo 256).
            let raw = inputs
                .legacy_constants
                .get(&(BuiltIn::LegacyConstInt, *index))
                .ok_or_else(|| err(format!("legacy constant LegacyConstInt[{index}] not given")))?;
            let i = [
                raw[0].wrapping_sub(1) as i32,
                raw[1] as i32,
                raw[2] as i32,
                0,
            ];
            Ok((i.map(|x| x as f32), i))
        }
        UniformSource::Legacy { kind, index } => {
            let raw = inputs
                .legacy_constants
                .get(&(*kind, *index))
                .ok_or_else(|| err(format!("legacy constant {kind:?}[{index}] not given")))?;
            Ok(match kind {
                BuiltIn::LegacyConstInt => {
                    let i = raw.map(|x| x as i32);
                    (i.map(|x| x as f32), i)
                }
                BuiltIn::LegacyConstBool => {
                    let b = (raw[0] != 0) as i32;
                    ([b as f32; 4], [b; 4])
                }
                _ => {
                    let f = raw.map(f32::from_bits);
                    (f, f.map(|x| x as i32))
                }
            })
        }
        UniformSource::ConstantBuffer {
            binding,
            vec4_index,
            int_lanes,
        } => {
            let buf = inputs
                .constant_buffers
                .get(binding)
                .ok_or_else(|| err(format!("constant buffer {binding:?} not given")))?;
            let base = *vec4_index as usize * 4;
            let mut f = [0.0; 4];
            let mut i = [0; 4];
            for l in 0..4 {
                let w = *buf
                    .get(base + l)
                    .ok_or_else(|| err(format!("constant buffer {binding:?} too short")))?;
                i[l] = w as i32;
                f[l] = if int_lanes & (1 << l) != 0 {
                    w as i32 as f32
                } else {
                    f32::from_bits(w)
                };
            }
            Ok((f, i))
        }
    }
}

/// Fills the uniform registers from the reflection.
pub fn uniforms_from(
    reflection: &Reflection,
    inputs: &SimInputs<'_>,
) -> Result<Uniforms, SimError> {
    let mut u = Uniforms::default();
    for b in &reflection.uniforms {
        let (f, i) = uniform_lanes(&b.source, inputs)?;
        match b.slot {
            s @ 0..=95 => u.float[s as usize] = f,
            s @ INT_SLOT..=99 => u.int[(s - INT_SLOT) as usize] = i.map(|x| x as u8),
            s @ BOOL_SLOT..=115 => {
                let bit = 1 << (s - BOOL_SLOT);
                if i[0] != 0 || f[0] != 0.0 {
                    u.bools |= bit;
                } else {
                    u.bools &= !bit;
                }
            }
            s => return Err(err(format!("uniform slot {s} does not exist on PICA200"))),
        }
    }
    Ok(u)
}

/// Fills `v0–v15` from one invocation's IR inputs.
pub fn inputs_from(reflection: &Reflection, values: &IoValues) -> Result<[[f32; 4]; 16], SimError> {
    let mut v = [[0.0; 4]; 16];
    for b in &reflection.varyings {
        let (name, first) = match b.source {
            IoSource::Location {
                location,
                component,
            } => (IoName::Location(location), component),
            IoSource::BuiltIn(bi) => (IoName::BuiltIn(bi), 0),
        };
        for i in 0..b.components as u32 {
            let lane = b.lane as usize + i as usize;
            let slot = v
                .get_mut(b.slot as usize)
                .ok_or_else(|| err(format!("input slot {} does not exist", b.slot)))?;
            let bits = values
                .get(&(name, first + i))
                .ok_or_else(|| err(format!("input {name:?} component {} not given", first + i)))?;
            *slot
                .get_mut(lane)
                .ok_or_else(|| err(format!("input lane {lane} out of range")))? =
                f32::from_bits(*bits);
        }
    }
    Ok(v)
}

/// Fills `v0–v15` of a geometry shader from one invocation's per-vertex IR inputs (see the
/// module doc).
fn gs_inputs_from(
    reflection: &Reflection,
    layout: crate::lower::gs::GsLayout,
    values: &IoValues,
) -> Result<[[f32; 4]; 16], SimError> {
    let mut v = [[0.0; 4]; 16];
    for j in 0..u32::from(layout.vertices) {
        for b in &reflection.varyings {
            let (name, first) = IoName::of(b.source);
            let first = first + j * u32::from(b.components);
            let slot = b.slot + j * u32::from(layout.stride);
            for i in 0..u32::from(b.components) {
                let lane = b.lane as usize + i as usize;
                let bits = values.get(&(name, first + i)).ok_or_else(|| {
                    err(format!("input {name:?} component {} not given", first + i))
                })?;
                *v.get_mut(slot as usize)
                    .and_then(|r| r.get_mut(lane))
                    .ok_or_else(|| err(format!("input v{slot}.{lane} does not exist")))? =
                    f32::from_bits(*bits);
            }
        }
    }
    Ok(v)
}

/// Names the output registers `o` by the IR's outputs.
pub fn outputs_to(reflection: &Reflection, o: &[[f32; 4]; 16]) -> IoValues {
    let mut out = IoValues::new();
    for b in &reflection.outputs {
        let (name, first) = match b.target {
            IoSource::Location {
                location,
                component,
            } => (IoName::Location(location), component),
            IoSource::BuiltIn(bi) => (IoName::BuiltIn(bi), 0),
        };
        // A binding wider than a vec4 (`ClipDistance`) continues in the following registers.
        for i in 0..b.components as usize {
            let Some(x) = o.get(b.register as usize + i / 4).map(|r| r[i % 4]) else {
                break;
            };
            out.insert((name, first + i as u32), x.to_bits());
        }
    }
    out
}

impl Simulator for PicaSimulator {
    fn run(
        &self,
        output: &Output,
        inputs: &SimInputs<'_>,
        config: &SimConfig,
    ) -> Result<SimOutputs, SimError> {
        let l = load(output)?;
        let prog = decode_program(&l.code, &l.descs).map_err(|e| err(e.to_string()))?;
        let mut u = uniforms_from(&output.reflection, inputs)?;
        u.apply_constants(&l.constants);
        let opts = SimOptions {
            precision: config.precision,
            fuel: config.fuel,
        };
        let mut result = SimOutputs::default();
        let layout = crate::gs::layout_of(output);
        for inv in &inputs.invocations {
            let v = match layout {
                Some(layout) => gs_inputs_from(&output.reflection, layout, inv)?,
                None => inputs_from(&output.reflection, inv)?,
            };
            let r = sim::run(&prog, l.entry, &v, &u, &opts).map_err(|e| err(e.to_string()))?;
            result.steps += r.steps;
            if l.geometry {
                let first = result.invocations.len();
                for p in &r.primitives {
                    let [a, b, c] = p.emits.map(|e| first + e);
                    result.primitives.push(if p.winding {
                        vec![b, a, c]
                    } else {
                        vec![a, b, c]
                    });
                }
                for o in &r.emitted {
                    result.invocations.push(InvocationOutputs {
                        values: outputs_to(&output.reflection, o),
                        discarded: false,
                    });
                }
            } else {
                result.invocations.push(InvocationOutputs {
                    values: outputs_to(&output.reflection, &r.outputs),
                    discarded: false,
                });
            }
        }
        Ok(result)
    }
}
