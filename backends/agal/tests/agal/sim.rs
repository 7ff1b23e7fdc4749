//! The simulator: every opcode's semantics (§6), quads, conditionals, textures, and the generic
//! `Simulator` with its reflection conventions.

use irc_agal::sim::{run, AgalSimulator, RunInputs, RunResult};
use irc_backend::{
    IoName, IoSource, LodMode, NoTextures, OutputBinding, Reflection, ResourceBinding,
    SamplerBinding, SamplerKind, Section, SimConfig, SimInputs, Simulator, TextureFetch,
    TextureSource, UniformBinding, UniformSource, VaryingBinding, CODE,
};
use irc_ir::BuiltIn;

use super::{asm, F, V};

/// Texture that returns its coordinates plus the LOD mode in `.w`.
struct Echo;
impl TextureSource for Echo {
    fn fetch(&self, f: &TextureFetch) -> Result<[f32; 4], String> {
        let w = match f.lod {
            LodMode::Auto => 100.0,
            LodMode::Bias(b) => 200.0 + b,
            LodMode::Explicit(l) => 300.0 + l,
        };
        Ok([f.coords[0], f.coords[1], f.texture.register as f32, w])
    }
}

const BINDINGS: &[SamplerBinding] = &[SamplerBinding {
    index: 0,
    texture: ResourceBinding {
        space: 0,
        register: 7,
    },
    sampler: None,
    kind: SamplerKind::D2,
}];

fn run_fs(
    version: u32,
    text: &str,
    lanes: Vec<Vec<[f32; 4]>>,
    constants: &[[f32; 4]],
) -> RunResult {
    let inputs = RunInputs {
        constants,
        inputs: lanes,
        instance_id: 0,
        textures: &Echo,
        samplers: BINDINGS,
        fuel: 1000,
    };
    run(&asm(F, version, text), &inputs).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn one(text: &str, v0: [f32; 4], v1: [f32; 4]) -> [f32; 4] {
    let r = run_fs(2, text, vec![vec![v0, v1]], &[[0.5, 2.0, -1.0, 4.0]]);
    assert_eq!(r.lanes[0].output_masks[0], 0xF, "{text}");
    r.lanes[0].outputs[0]
}

#[test]
fn opcode_semantics() {
    let a = [1.0, 4.0, -2.0, 0.25];
    let b = [2.0, 0.5, 3.0, -1.0];
    let cases: &[(&str, [f32; 4])] = &[
        ("mov", [1.0, 4.0, -2.0, 0.25]),
        ("add", [3.0, 4.5, 1.0, -0.75]),
        ("sub", [-1.0, 3.5, -5.0, 1.25]),
        ("mul", [2.0, 2.0, -6.0, -0.25]),
        ("div", [0.5, 8.0, -2.0 / 3.0, -0.25]),
        ("rcp", [1.0, 0.25, -0.5, 4.0]),
        ("min", [1.0, 0.5, -2.0, -1.0]),
        ("max", [2.0, 4.0, 3.0, 0.25]),
        ("frc", [0.0, 0.0, 0.0, 0.25]),
        ("sqt", [1.0, 2.0, f32::NAN, 0.5]),
        ("rsq", [1.0, 0.5, f32::NAN, 2.0]),
        ("pow", [1.0, 2.0, -8.0, 4.0]),
        ("log", [0.0, 2.0, f32::NAN, -2.0]),
        ("exp", [2.0, 16.0, 0.25, 2f32.powf(0.25)]),
        (
            "sin",
            [1f32.sin(), 4f32.sin(), (-2f32).sin(), 0.25f32.sin()],
        ),
        (
            "cos",
            [1f32.cos(), 4f32.cos(), (-2f32).cos(), 0.25f32.cos()],
        ),
        ("dp3", [2.0 + 2.0 - 6.0; 4]),
        ("dp4", [2.0 + 2.0 - 6.0 - 0.25; 4]),
        ("abs", [1.0, 4.0, 2.0, 0.25]),
        ("neg", [-1.0, -4.0, 2.0, -0.25]),
        ("sat", [1.0, 1.0, 0.0, 0.25]),
        ("sge", [0.0, 1.0, 0.0, 1.0]),
        ("slt", [1.0, 0.0, 1.0, 0.0]),
        ("seq", [0.0, 0.0, 0.0, 0.0]),
        ("sne", [1.0, 1.0, 1.0, 1.0]),
    ];
    for &(op, want) in cases {
        let unary = irc_agal::Opcode::from_mnemonic(op).unwrap().num_srcs() == 1;
        let text = if unary {
            format!("{op} ft0, v0\nmov oc, ft0")
        } else {
            format!("{op} ft0, v0, v1\nmov oc, ft0")
        };
        let got = one(&text, a, b);
        for k in 0..4 {
            let ok = (got[k].is_nan() && want[k].is_nan())
                || (got[k] - want[k]).abs() <= 1e-6 * want[k].abs().max(1.0);
            assert!(ok, "{op}: lane {k}: {got:?} vs {want:?}");
        }
    }
    // xyz-only opcodes and matrices.
    let got = one(
        "mov ft0, v0\nnrm ft0.xyz, v1\nmov oc, ft0",
        a,
        [3.0, 0.0, 4.0, 9.0],
    );
    assert_eq!(got, [0.6, 0.0, 0.8, 0.25]);
    let got = one(
        "mov ft0, v0\ncrs ft0.xyz, v1, fc0\nmov oc, ft0",
        a,
        [1.0, 0.0, 0.0, 0.0],
    );
    // (1,0,0) × (0.5,2,-1) = (0·-1 − 0·2, 0·0.5 − 1·-1, 1·2 − 0·0.5)
    assert_eq!(got, [0.0, 1.0, 2.0, 0.25]);
    // m44 with rows fc0..fc3 = identity·2, m33/m34 leave w.
    let rows = [
        [2.0, 0.0, 0.0, 0.0],
        [0.0, 2.0, 0.0, 0.0],
        [0.0, 0.0, 2.0, 0.0],
        [0.0, 0.0, 0.0, 2.0],
    ];
    let r = run_fs(2, "m44 ft0, v0, fc0\nmov oc, ft0", vec![vec![a]], &rows);
    assert_eq!(r.lanes[0].outputs[0], [2.0, 8.0, -4.0, 0.5]);
    let r = run_fs(
        2,
        "mov ft0, v0\nm33 ft0.xyz, v0, fc1\nmov oc, ft0",
        vec![vec![a]],
        &rows,
    );
    assert_eq!(r.lanes[0].outputs[0], [8.0, -4.0, 0.0, 0.25]);
    let r = run_fs(
        2,
        "mov ft0, v0\nm34 ft0.xyz, v0, fc1\nmov oc, ft0",
        vec![vec![a]],
        &rows,
    );
    assert_eq!(r.lanes[0].outputs[0], [8.0, -4.0, 0.5, 0.25]);
    // Swizzles and masks.
    let got = one("mov ft0, v1\nmov ft0.yw, v0.wzyx\nmov oc, ft0", a, b);
    assert_eq!(got, [2.0, -2.0, 3.0, 1.0]);
}

fn quad(f: impl Fn(usize) -> [f32; 4]) -> Vec<Vec<[f32; 4]>> {
    (0..4).map(|l| vec![f(l)]).collect()
}

#[test]
fn quad_derivatives_and_kil() {
    // v0 = (x + 10·y, …) over the quad: ddx = 1, ddy = 10.
    let lanes = quad(|l| {
        [
            (l % 2) as f32 + 10.0 * (l / 2) as f32,
            (l as f32) - 1.5,
            0.0,
            1.0,
        ]
    });
    let r = run_fs(
        2,
        "ddx ft0, v0\nddy ft1, v0\nadd ft0.y, ft1.x, fc0.x\nmov oc, ft0",
        lanes.clone(),
        &[[0.0; 4]],
    );
    for l in &r.lanes {
        assert_eq!(l.outputs[0][..2], [1.0, 10.0]);
    }
    let r = run_fs(1, "kil v0.y\nmov oc, v0", lanes, &[]);
    let discarded: Vec<bool> = r.lanes.iter().map(|l| l.discarded).collect();
    assert_eq!(discarded, [true, true, false, false]);
    assert_eq!(r.steps, 2);
}

#[test]
fn conditionals() {
    let text = "mov ft0, fc0
ifg v0.x, fc0.y
mov ft0, fc0.y
ife v0.y, fc0.y
mov ft0, fc0.z
eif
els
mov ft0, fc0.w
eif
mov oc, ft0";
    let c = [[1.0, 2.0, 3.0, 4.0]];
    let lanes = quad(|l| [l as f32, if l == 3 { 2.0 } else { 0.0 }, 0.0, 0.0]);
    let r = run_fs(2, text, lanes, &c);
    let got: Vec<f32> = r.lanes.iter().map(|l| l.outputs[0][0]).collect();
    // lanes 0,1,2: x ≤ 2 → els (4); lane 3: x > 2 and y == 2 → 3. ifg is strict (>).
    assert_eq!(got, [4.0, 4.0, 4.0, 3.0]);
    for (op, want) in [
        ("ife", [0.0, 0.0, 1.0, 0.0]),
        ("ine", [1.0, 1.0, 0.0, 1.0]),
        ("ifl", [1.0, 1.0, 0.0, 0.0]),
        ("ifg", [0.0, 0.0, 0.0, 1.0]),
    ] {
        let text = format!("mov ft0, fc0.x\n{op} v0.x, fc0.y\nmov ft0, fc0.z\neif\nmov oc, ft0");
        let lanes = quad(|l| [l as f32, 0.0, 0.0, 0.0]);
        let r = run_fs(2, &text, lanes, &[[0.0, 2.0, 1.0, 0.0]]);
        let got: Vec<f32> = r.lanes.iter().map(|l| l.outputs[0][0]).collect();
        assert_eq!(got, want, "{op}");
    }
    // A derivative-free tex with automatic LOD inside a divergent block is counted.
    let text = "ife v0.x, fc0.x\ntex ft0, v0, fs0 <2d,linear,mipnearest>\nels\nmov ft0, v0\neif\nmov oc, ft0";
    let r = run_fs(2, text, quad(|l| [l as f32, 0.0, 0.0, 0.0]), &[[0.0; 4]]);
    assert_eq!(r.divergent_quad_ops, 1);
}

#[test]
fn textures() {
    let lanes = quad(|l| [l as f32, 0.5, 0.0, 0.0]);
    for (opts, w) in [
        ("<2d,linear,mipnone>", 300.0),
        ("<2d,linear,miplinear>", 100.0),
        ("<2d,linear,miplinear,-1.5>", 198.5),
        ("<2d,mipnone,ignoresampler>", 100.0),
    ] {
        let text = format!("tex ft0, v0, fs0 {opts}\nmov oc, ft0");
        let r = run_fs(1, &text, lanes.clone(), &[]);
        assert_eq!(r.lanes[2].outputs[0], [2.0, 0.5, 7.0, w], "{opts}");
    }
}

#[test]
fn vertex_programs_and_indirect() {
    let text = "m44 op, va0, vc0\nmov v0, vc[va1.x+4]\nmov v1.xy, va1.yx\nmov v1.zw, vc[va1.y+1]";
    let c: Vec<[f32; 4]> = (0..8).map(|i| [i as f32; 4]).collect();
    let mut id = c.clone();
    id[..4].copy_from_slice(&[
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]);
    let inputs = RunInputs {
        constants: &id,
        inputs: vec![
            vec![[1.0, 2.0, 3.0, 1.0], [2.9, 5.0, 0.0, 0.0]],
            vec![[0.0; 4], [0.0, 3.0, 0.0, 0.0]],
        ],
        instance_id: 0,
        textures: &NoTextures,
        samplers: &[],
        fuel: 100,
    };
    let r = run(&asm(V, 1, text), &inputs).unwrap();
    assert_eq!(r.lanes[0].outputs[0], [1.0, 2.0, 3.0, 1.0]);
    assert_eq!(r.lanes[0].varyings[0], [6.0; 4], "vc[2.9 → 2 + 4]");
    assert_eq!(r.lanes[0].varyings[1], [5.0, 2.9, 6.0, 6.0]);
    assert_eq!(r.lanes[1].varyings[0], [4.0; 4]);
    assert_eq!(r.lanes[0].varying_masks[..2], [0xF, 0xF]);
    // Out of range index → error, out of fuel → error.
    let bad = RunInputs {
        inputs: vec![vec![[0.0; 4], [400.0; 4]]],
        ..inputs
    };
    assert!(run(&asm(V, 1, text), &bad).is_err());
    let starved = RunInputs {
        fuel: 2,
        inputs: vec![vec![[0.0; 4]; 2]],
        ..bad
    };
    assert!(run(&asm(V, 1, text), &starved)
        .unwrap_err()
        .0
        .contains("fuel"));
}

fn output(bytes: Vec<u8>, reflection: Reflection) -> irc_backend::Output {
    irc_backend::Output {
        sections: vec![Section { name: CODE, bytes }],
        reflection,
        ..Default::default()
    }
}

#[test]
fn generic_simulator_vertex() {
    // va0 ← location 0 (xyz, w from location 1), vc0..3 ← literal rows, vc4 ← legacy c9,
    // op → Position, v2 → location 3.
    let code = asm(V, 1, "m44 op, va0, vc0\nmul v2, va0, vc4");
    let literal = |r: [f32; 4]| UniformSource::Literal(r);
    let refl = Reflection {
        varyings: vec![
            VaryingBinding {
                source: IoSource::Location {
                    location: 0,
                    component: 0,
                },
                slot: 0,
                lane: 0,
                components: 3,
            },
            VaryingBinding {
                source: IoSource::Location {
                    location: 1,
                    component: 2,
                },
                slot: 0,
                lane: 3,
                components: 1,
            },
        ],
        uniforms: vec![
            UniformBinding {
                slot: 0,
                source: literal([1.0, 0.0, 0.0, 0.0]),
            },
            UniformBinding {
                slot: 1,
                source: literal([0.0, 1.0, 0.0, 0.0]),
            },
            UniformBinding {
                slot: 2,
                source: literal([0.0, 0.0, 1.0, 0.0]),
            },
            UniformBinding {
                slot: 3,
                source: literal([0.0, 0.0, 0.0, 1.0]),
            },
            UniformBinding {
                slot: 4,
                source: UniformSource::Legacy {
                    kind: BuiltIn::LegacyConstFloat,
                    index: 9,
                },
            },
        ],
        uniform_slots: 5,
        outputs: vec![
            OutputBinding {
                target: IoSource::BuiltIn(BuiltIn::Position),
                register: 0,
                components: 4,
            },
            OutputBinding {
                target: IoSource::Location {
                    location: 3,
                    component: 0,
                },
                register: 2,
                components: 2,
            },
        ],
        ..Default::default()
    };
    let mut inv = irc_backend::IoValues::new();
    for (c, v) in [1.0f32, 2.0, 3.0].iter().enumerate() {
        inv.insert((IoName::Location(0), c as u32), v.to_bits());
    }
    inv.insert((IoName::Location(1), 2), 1.0f32.to_bits());
    let inputs = SimInputs {
        invocations: vec![inv],
        legacy_constants: [(
            (BuiltIn::LegacyConstFloat, 9),
            [2.0f32, 3.0, 0.0, 0.0].map(f32::to_bits),
        )]
        .into(),
        constant_buffers: Default::default(),
        textures: &NoTextures,
    };
    let config = SimConfig {
        precision: irc_backend::Precision::Exact,
        fuel: 100,
    };
    let out = AgalSimulator
        .run(&output(code, refl), &inputs, &config)
        .unwrap();
    let vals = &out.invocations[0].values;
    let get = |n: IoName, c: u32| f32::from_bits(vals[&(n, c)]);
    let pos = IoName::BuiltIn(BuiltIn::Position);
    assert_eq!(
        [get(pos, 0), get(pos, 1), get(pos, 2), get(pos, 3)],
        [1.0, 2.0, 3.0, 1.0]
    );
    assert_eq!(
        [get(IoName::Location(3), 0), get(IoName::Location(3), 1)],
        [2.0, 6.0]
    );
    assert_eq!(vals.len(), 6);
    assert_eq!(out.steps, 2);
}

#[test]
fn generic_simulator_fragment() {
    // v0 ← location 1, fc0 ← cb(0,0)[1] with lane w an integer, fs0 ← texture (0, 7),
    // oc → location 0, fd → Depth.
    let code = asm(
        F,
        2,
        "tex ft0, v0, fs0 <2d,linear,mipnone>\nadd oc, ft0, fc0\nmov fd.x, v0.y",
    );
    let refl = Reflection {
        varyings: vec![VaryingBinding {
            source: IoSource::Location {
                location: 1,
                component: 0,
            },
            slot: 0,
            lane: 0,
            components: 2,
        }],
        uniforms: vec![UniformBinding {
            slot: 0,
            source: UniformSource::ConstantBuffer {
                binding: ResourceBinding {
                    space: 0,
                    register: 0,
                },
                vec4_index: 1,
                int_lanes: 8,
            },
        }],
        uniform_slots: 1,
        samplers: BINDINGS.to_vec(),
        outputs: vec![
            OutputBinding {
                target: IoSource::Location {
                    location: 0,
                    component: 0,
                },
                register: 0,
                components: 4,
            },
            OutputBinding {
                target: IoSource::BuiltIn(BuiltIn::Depth),
                register: 0,
                components: 1,
            },
        ],
        ..Default::default()
    };
    let invocations = (0..4)
        .map(|l| {
            let mut inv = irc_backend::IoValues::new();
            inv.insert((IoName::Location(1), 0), (l as f32).to_bits());
            inv.insert((IoName::Location(1), 1), 0.5f32.to_bits());
            inv
        })
        .collect();
    let mut cb = vec![0u32; 4];
    cb.extend([
        1.0f32.to_bits(),
        2.0f32.to_bits(),
        3.0f32.to_bits(),
        (-2i32) as u32,
    ]);
    let inputs = SimInputs {
        invocations,
        legacy_constants: Default::default(),
        constant_buffers: [(
            ResourceBinding {
                space: 0,
                register: 0,
            },
            cb,
        )]
        .into(),
        textures: &Echo,
    };
    let config = SimConfig {
        precision: irc_backend::Precision::Exact,
        fuel: 100,
    };
    let out = AgalSimulator
        .run(&output(code, refl), &inputs, &config)
        .unwrap();
    assert_eq!(out.invocations.len(), 4);
    let vals = &out.invocations[3].values;
    let get = |n: IoName, c: u32| f32::from_bits(vals[&(n, c)]);
    let l0 = IoName::Location(0);
    assert_eq!(
        [get(l0, 0), get(l0, 1), get(l0, 2), get(l0, 3)],
        [4.0, 2.5, 10.0, 298.0]
    );
    assert_eq!(get(IoName::BuiltIn(BuiltIn::Depth), 0), 0.5);
}

/// MolehillJulia's fragment program (§10) against a plain Rust model of the same arithmetic.
#[test]
fn molehill_julia_matches_a_model() {
    let fs = super::anchors::julia_fs();
    let c = [
        [0.0, 0.0, 2.0, 4.0],
        [0.1, 0.2, 0.3, 0.5],
        [0.0, 23.0, 1.0, 0.0],
        [-0.8, 0.156, 0.0, 0.0],
    ];
    let pixels = [[0.0, 0.0], [0.3, -0.2], [1.5, 1.5], [-0.1, 0.65]];
    let lanes: Vec<Vec<[f32; 4]>> = pixels
        .iter()
        .map(|p| vec![[p[0], p[1], 7.0, 9.0]])
        .collect();
    let r = run_fs(1, &fs, lanes, &c);
    assert_eq!(r.steps, 197);
    for (l, p) in pixels.iter().enumerate() {
        let (mut x, mut y, mut n) = (p[0], p[1], 0.0f32);
        for _ in 0..23 {
            let two_x = c[0][2] * x;
            x = 0.0 + x * x + y * -y + 0.0 * 0.0;
            y *= two_x;
            x += c[3][0];
            y += c[3][1];
            let len2 = 0.0 + x * x + y * y + 0.0 * 0.0;
            n += if len2 < c[0][3] { 1.0 } else { 0.0 };
        }
        let t = n / c[2][1];
        let inside = if n < c[2][1] { 1.0 } else { 0.0 };
        let want: [f32; 4] = std::array::from_fn(|k| {
            let v = (t + c[1][k] + c[1][3]) / c[0][2];
            let v = (v - v.floor()) * c[0][2] - c[2][2];
            inside * v.abs()
        });
        assert_eq!(r.lanes[l].outputs[0], want, "pixel {p:?} ({n} iterations)");
    }
}
