//! The generic `Simulator` interface: sections, reflection conventions, IR-named I/O.

use std::collections::BTreeMap;

use irc_backend::output::bytes_of;
use irc_backend::{
    Container, IoName, IoSource, IoValues, NoTextures, Output, OutputBinding, Precision,
    Reflection, Section, SimConfig, SimInputs, Simulator, UniformBinding, UniformSource,
    VaryingBinding,
};
use irc_ir::BuiltIn;
use irc_pica::asm::assemble;
use irc_pica::shbin;
use irc_pica::sim_io::{PicaSimulator, BOOL_SLOT, INT_SLOT, SECTION_OPDESCS};

const SRC: &str = "\
.fvec scale
.bool neg
.ivec n
.proc main
    mov r0, v0
    for n
        mul r0, scale, r0
    .end
    ifu neg
        mov r0, -r0
    .end
    mov o0, r0
    mov o1, v0
    end
.end
";

fn reflection() -> Reflection {
    Reflection {
        varyings: vec![VaryingBinding {
            source: IoSource::Location {
                location: 2,
                component: 0,
            },
            slot: 0,
            lane: 0,
            components: 4,
        }],
        uniforms: vec![
            UniformBinding {
                slot: 0,
                source: UniformSource::Legacy {
                    kind: BuiltIn::LegacyConstFloat,
                    index: 7,
                },
            },
            UniformBinding {
                slot: INT_SLOT,
                source: UniformSource::Literal([1.0, 0.0, 0.0, 0.0]),
            },
            UniformBinding {
                slot: BOOL_SLOT,
                source: UniformSource::Legacy {
                    kind: BuiltIn::LegacyConstBool,
                    index: 0,
                },
            },
        ],
        uniform_slots: 1,
        outputs: vec![
            OutputBinding {
                target: IoSource::BuiltIn(BuiltIn::Position),
                register: 0,
                components: 4,
            },
            OutputBinding {
                target: IoSource::Location {
                    location: 1,
                    component: 2,
                },
                register: 1,
                components: 2,
            },
        ],
        ..Reflection::default()
    }
}

type Legacy = BTreeMap<(BuiltIn, u32), [u32; 4]>;

fn inputs(neg: bool) -> (Vec<IoValues>, Legacy) {
    let mut v = IoValues::new();
    for (i, x) in [1.0f32, 2.0, 3.0, 4.0].iter().enumerate() {
        v.insert((IoName::Location(2), i as u32), x.to_bits());
    }
    let mut c = BTreeMap::new();
    c.insert((BuiltIn::LegacyConstFloat, 7), [3.0f32.to_bits(); 4]);
    c.insert((BuiltIn::LegacyConstBool, 0), [neg as u32, 0, 0, 0]);
    (vec![v], c)
}

#[test]
fn runs_sections_with_ir_names() {
    let sh = assemble(SRC).unwrap();
    let out = Output {
        sections: vec![
            Section {
                name: "code",
                bytes: bytes_of(&sh.code),
            },
            Section {
                name: SECTION_OPDESCS,
                bytes: bytes_of(&sh.opdescs),
            },
        ],
        reflection: reflection(),
        ..Output::default()
    };
    for (neg, sign) in [(false, 1.0f32), (true, -1.0)] {
        let (invocations, legacy_constants) = inputs(neg);
        let si = SimInputs {
            invocations,
            legacy_constants,
            constant_buffers: BTreeMap::new(),
            textures: &NoTextures,
        };
        let cfg = SimConfig {
            precision: Precision::Native,
            fuel: 1000,
        };
        let r = PicaSimulator.run(&out, &si, &cfg).unwrap();
        let vals = &r.invocations[0].values;
        // i0.x = 1 → two multiplications by 3.
        for (i, x) in [1.0f32, 2.0, 3.0, 4.0].iter().enumerate() {
            let got = f32::from_bits(vals[&(IoName::BuiltIn(BuiltIn::Position), i as u32)]);
            assert_eq!(got, sign * 9.0 * x);
        }
        assert_eq!(f32::from_bits(vals[&(IoName::Location(1), 2)]), 1.0);
        assert_eq!(f32::from_bits(vals[&(IoName::Location(1), 3)]), 2.0);
        assert_eq!(vals.len(), 6);
    }
    // Missing input → error, not panic.
    let si = SimInputs {
        invocations: vec![IoValues::new()],
        legacy_constants: inputs(false).1,
        constant_buffers: BTreeMap::new(),
        textures: &NoTextures,
    };
    let cfg = SimConfig {
        precision: Precision::Exact,
        fuel: 1000,
    };
    assert!(PicaSimulator.run(&out, &si, &cfg).is_err());
}

#[test]
fn runs_a_shbin_container() {
    let src = ".constf k(2.0, 0.0, 0.0, 0.0)\n.proc main\n mul o0, k.xxxx, v0\n end\n.end\n";
    let bytes = shbin::write(&assemble(src).unwrap());
    let mut refl = reflection();
    refl.uniforms.clear();
    refl.outputs.truncate(1);
    let out = Output {
        container: Some(Container {
            format: "shbin",
            bytes,
        }),
        reflection: refl,
        ..Output::default()
    };
    let (invocations, _) = inputs(false);
    let si = SimInputs {
        invocations,
        legacy_constants: BTreeMap::new(),
        constant_buffers: BTreeMap::new(),
        textures: &NoTextures,
    };
    let cfg = SimConfig {
        precision: Precision::Exact,
        fuel: 1000,
    };
    let r = PicaSimulator.run(&out, &si, &cfg).unwrap();
    let got = f32::from_bits(r.invocations[0].values[&(IoName::BuiltIn(BuiltIn::Position), 3)]);
    assert_eq!(got, 8.0);
}

#[test]
fn geometry_shader_emissions_become_invocations() {
    let gs = "\
.gsh point c0
.out p position
.proc main
    setemit 0
    mov p, v0
    emit
    setemit 1
    mov p, v0.yxzw
    emit
    end
.end
";
    let sh = assemble(gs).unwrap();
    let d = &sh.dvles[0];
    let out = Output {
        sections: irc_pica::sim_io::sections(&sh.code, &sh.opdescs, (d.main, d.endmain), true),
        reflection: Reflection {
            varyings: reflection().varyings,
            outputs: reflection().outputs[..1].to_vec(),
            ..Reflection::default()
        },
        ..Output::default()
    };
    let (invocations, _) = inputs(false);
    let si = SimInputs {
        invocations,
        legacy_constants: BTreeMap::new(),
        constant_buffers: BTreeMap::new(),
        textures: &NoTextures,
    };
    let cfg = SimConfig {
        precision: Precision::Native,
        fuel: 100,
    };
    let r = PicaSimulator.run(&out, &si, &cfg).unwrap();
    assert_eq!(r.invocations.len(), 2);
    let x = |i: usize| {
        f32::from_bits(r.invocations[i].values[&(IoName::BuiltIn(BuiltIn::Position), 0)])
    };
    assert_eq!((x(0), x(1)), (1.0, 2.0));
}

#[test]
fn an_output_binding_wider_than_a_vec4_continues_in_the_next_register() {
    use irc_pica::sim_io::outputs_to;
    let r = Reflection {
        outputs: vec![OutputBinding {
            target: IoSource::BuiltIn(irc_ir::BuiltIn::ClipDistance),
            register: 2,
            components: 6,
        }],
        ..Reflection::default()
    };
    let mut o = [[0.0f32; 4]; 16];
    o[2] = [1.0, 2.0, 3.0, 4.0];
    o[3] = [5.0, 6.0, 7.0, 8.0];
    let out = outputs_to(&r, &o);
    assert_eq!(out.len(), 6);
    for i in 0..6u32 {
        let name = IoName::BuiltIn(irc_ir::BuiltIn::ClipDistance);
        assert_eq!(out[&(name, i)], (i as f32 + 1.0).to_bits());
    }
}
