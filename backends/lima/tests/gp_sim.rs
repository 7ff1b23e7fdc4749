//! GP simulator tests with hand-computed values: forwarding windows (p1, p2, complex p1, reads
//! too late), complex-function sequences, register/temporary/address latencies, a branch, a
//! matrix-vector product, and the position epilogue through the generic `Simulator` interface.

use irc_backend::reflection::{
    IoSource, OutputBinding, Reflection, TargetPart, UniformBinding, UniformSource, VaryingBinding,
};
use irc_backend::{
    IoName, IoValues, Output, Precision, Section, SimConfig, SimInputs, Simulator, CODE,
};
use irc_ir::BuiltIn;
use irc_lima::gp::sim_io::{viewport, GpReflection, GpSim};
use irc_lima::gp::{
    assemble, encode_bytes, run_program, GpInputs, GpOutputs, GpSimError, GpSimErrorKind,
    SimOptions,
};

fn inputs(uniforms: &[[f32; 4]]) -> GpInputs {
    GpInputs {
        uniforms: uniforms.to_vec(),
        ..GpInputs::default()
    }
}

fn run(text: &str, inp: &GpInputs, strict: bool) -> Result<GpOutputs, GpSimError> {
    let p = assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run_program(
        &p,
        inp,
        &SimOptions {
            fuel: 10_000,
            strict,
        },
    )
}

fn not_available(r: Result<GpOutputs, GpSimError>, at: usize) {
    let e = r.expect_err("strict mode must reject the read");
    assert_eq!(e.kind, GpSimErrorKind::NotAvailable, "{e}");
    assert_eq!(e.instruction, Some(at), "{e}");
}

const U: [[f32; 4]; 1] = [[3.0, 4.5, 5.0, 2.0]];

#[test]
fn reads_the_previous_instruction() {
    let t = "000:\tmov.a0 ^0 t[0].x\n\
             001:\tadd.a0 ^6/v0.x ^0 t[0].y\n";
    let o = run(t, &inputs(&U), true).unwrap();
    assert_eq!(o.varyings[0][0], 7.5);
    assert_eq!(o.written[0], 1);
    assert_eq!(o.steps, 2);
}

#[test]
fn reads_two_instructions_back() {
    let t = "000:\tmov.a0 ^0 t[0].x\n\tmov.m1 ^3 t[0].y\n\
             001:\tnop\n\
             002:\tmul.m0 ^14/v0.z ^0 -^3\n";
    let o = run(t, &inputs(&U), true).unwrap();
    assert_eq!(o.varyings[0][2], -13.5);
}

#[test]
fn complex_result_is_read_one_back() {
    let t = "000:\tmov.c ^5 t[0].x\n\
             001:\tmov.p ^10/v0.x ^5\n";
    assert_eq!(run(t, &inputs(&U), true).unwrap().varyings[0][0], 3.0);
}

#[test]
fn a_read_too_late_fails_in_strict_mode() {
    // ^6 at instruction 3 is "p2 acc0" = instruction 1's acc0, which did not run: the value of
    // instruction 0 is gone.
    let t = "000:\tmov.a0 ^0 t[0].x\n\
             001:\tnop\n\
             002:\tnop\n\
             003:\tmov.p ^22/v0.x ^6\n";
    not_available(run(t, &inputs(&U), true), 3);
    assert!(run(t, &inputs(&U), false).unwrap().varyings[0][0].is_nan());
    // The complex result lives one instruction only.
    let t = "000:\tmov.c ^5 t[0].x\n\
             001:\tnop\n\
             002:\tmov.p ^16/v0.x ^11\n";
    not_available(run(t, &inputs(&U), true), 2);
    assert!(run(t, &inputs(&U), false).unwrap().varyings[0][0].is_nan());
}

/// rcp(x) as Mesa lowers it (reference §8.2), the result read two instructions after complex1.
fn rcp_program(read_at: usize) -> String {
    let mut t = String::from(
        "000:\tcomplex2.m0 ^2 t[0].z t[0].z\n\trcp.c ^5 t[0].z\n\tmov.p ^4 t[0].z\n\
         001:\tcomplex1.m01 ^8 ^5 ^2 ^5 ^4\n",
    );
    for i in 2..read_at {
        t += &format!("{i:03}:\tnop\n");
    }
    t += &format!("{read_at:03}:\tmov.p ^{}/v1.x ^8\n", 6 * read_at + 4);
    t
}

#[test]
fn complex_sequences() {
    let o = run(&rcp_program(3), &inputs(&U), true).unwrap();
    assert_eq!(o.varyings[1][0], 0.2);
    // complex1 has latency 2: reading it one instruction later is wrong.
    not_available(run(&rcp_program(2), &inputs(&U), true), 2);
    assert!(run(&rcp_program(2), &inputs(&U), false).unwrap().varyings[1][0].is_nan());
    // rsqrt(4) and log2(8) = postlog2(complex1(...)); exp2(2.0) through preexp2.
    let t = "000:\tcomplex2.m0 ^2 t[1].x t[1].x\n\trsqrt.c ^5 t[1].x\n\tmov.p ^4 t[1].x\n\
             001:\tcomplex1.m01 ^8 ^5 ^2 ^5 ^4\n\
             002:\tcomplex2.m0 ^14 t[1].y t[1].y\n\tlog2.c ^17 t[1].y\n\tmov.p ^16 t[1].y\n\
             003:\tmov.a0 ^18/v0.x ^8\n\tcomplex1.m01 ^20 ^17 ^14 ^17 ^16\n\
             004:\tpreexp2.p ^28 t[1].z\n\
             005:\tpostlog2.p ^34/v0.y ^20\n\tcomplex2.m0 ^32 ^28 ^28\n\texp2.c ^35 ^28\n\tmov.a0 ^30 ^28\n\
             006:\tcomplex1.m01 ^38 ^35 ^32 ^35 ^30\n\
             007:\tnop\n\
             008:\tmov.a0 ^48/v0.z ^38\n";
    let u = [[0.0; 4], [4.0, 8.0, 2.0, 0.0]];
    let o = run(t, &inputs(&u), true).unwrap();
    assert_eq!(&o.varyings[0][..3], &[0.5, 3.0, 4.0]);
    // A complex1 fed from another x is a mis-wired sequence.
    let bad = rcp_program(3).replace("mov.p ^4 t[0].z", "mov.p ^4 t[0].x");
    let e = run(&bad, &inputs(&U), true).unwrap_err();
    assert_eq!(e.instruction, Some(1));
    // The impl result used as a number (not through complex1) is a scheduling bug.
    let t = "000:\trcp.c ^5 t[0].z\n001:\tadd.a0 ^6/v0.x ^5 t[0].x\n";
    assert!(run(t, &inputs(&U), true).is_err());
}

#[test]
fn select_and_clamp() {
    let t = "000:\tsel.m01 ^2/v0.x t[0].x t[0].y t[0].z\n\
             001:\tclamp.p ^10/v0.y ^2 t[1].x t[1].y\n";
    let mut u = vec![U[0], [4.0, 4.8, 0.0, 0.0]];
    let o = run(t, &inputs(&u), true).unwrap();
    // cond t[0].x = 3 ≠ 0 → true value t[0].z = 5; clamp: max(min(5, 4), 4.8) = 4.8.
    assert_eq!(&o.varyings[0][..2], &[5.0, 4.8]);
    u[0][0] = 0.0;
    assert_eq!(run(t, &inputs(&u), true).unwrap().varyings[0][0], 4.5);
}

#[test]
fn register_store_is_visible_three_instructions_later() {
    let prog = |nops: usize| {
        let mut t = String::from("000:\tmov.a0 ^0/$3.xy t[0].x\n");
        for i in 1..=nops {
            t += &format!("{i:03}:\tnop\n");
        }
        let i = nops + 1;
        t += &format!(
            "{i:03}:\tmov.p ^{}/v0.x $3.x\n{:03}:\tnop\n{:03}:\tnop\n",
            6 * i + 4,
            i + 1,
            i + 2
        );
        t
    };
    assert_eq!(
        run(&prog(2), &inputs(&U), true).unwrap().varyings[0][0],
        3.0
    );
    not_available(run(&prog(1), &inputs(&U), true), 2);
    // Lenient: the load still sees the old register value.
    assert_eq!(
        run(&prog(1), &inputs(&U), false).unwrap().varyings[0][0],
        0.0
    );
    // Register 0 reads registers with the same latency, and its load is seen by the next
    // instruction as `prev`.
    let t = "000:\tmov.a0 ^0/$3.x t[0].y\n001:\tnop\n002:\tnop\n\
             003:\tmov.p ^22 reg0.$3.x\n\
             004:\tadd.a0 ^24/v0.x prev.$3.x ^22\n005:\tnop\n006:\tnop\n";
    assert_eq!(run(t, &inputs(&U), true).unwrap().varyings[0][0], 9.0);
}

#[test]
fn no_register_store_at_the_end_of_a_block() {
    let t = "000:\tmov.a0 ^0/$3.x t[0].y\n001:\tnop\n";
    let e = run(t, &inputs(&U), true).unwrap_err();
    assert_eq!((e.kind, e.instruction), (GpSimErrorKind::Invalid, Some(0)));
    assert!(run(t, &inputs(&U), false).is_ok());
}

#[test]
fn temporary_store_is_visible_four_instructions_later() {
    // addr0 := t[0].z = 5 and t[addr0].x := t[0].x = 3 in the same instruction.
    let prog = |nops: usize| {
        let mut t = String::from(
            "000:\tmov.a0 ^0/t[addr0].x t[0].x\n\tmov.c ^5/addr0 t[0].z\n\tunknown_1 12\n",
        );
        for i in 1..=nops {
            t += &format!("{i:03}:\tnop\n");
        }
        let i = nops + 1;
        t + &format!("{i:03}:\tmov.p ^{}/v0.x t[5].x\n", 6 * i + 4)
    };
    let mut u = vec![[0.0; 4]; 6];
    u[0] = U[0];
    u[5] = [99.0; 4];
    assert_eq!(
        run(&prog(3), &inputs(&u), true).unwrap().varyings[0][0],
        3.0
    );
    not_available(run(&prog(2), &inputs(&u), true), 3);
    assert_eq!(
        run(&prog(2), &inputs(&u), false).unwrap().varyings[0][0],
        99.0
    );
    // Without unknown_1 = 12 the temporary store is not what Mesa emits.
    let e = run(&prog(3).replace("\tunknown_1 12\n", ""), &inputs(&u), true).unwrap_err();
    assert_eq!(e.kind, GpSimErrorKind::Invalid);
}

#[test]
fn address_register_is_usable_four_instructions_later() {
    let prog = |nops: usize| {
        let mut t = String::from("000:\tmov.c ^5/addr1 t[0].w\n");
        for i in 1..=nops {
            t += &format!("{i:03}:\tnop\n");
        }
        let i = nops + 1;
        t + &format!("{i:03}:\tmov.p ^{}/v0.x t[1+addr1].x\n", 6 * i + 4)
    };
    let u = [U[0], [11.0; 4], [22.0; 4], [33.0; 4]];
    assert_eq!(
        run(&prog(3), &inputs(&u), true).unwrap().varyings[0][0],
        33.0
    );
    not_available(run(&prog(2), &inputs(&u), true), 3);
    assert_eq!(
        run(&prog(2), &inputs(&u), false).unwrap().varyings[0][0],
        11.0
    );
}

#[test]
fn branch_on_the_pass_result() {
    let t = "000:\tmov.p ^4 t[0].x\n\tbranch ^4 002\n\tunknown_1 13\n\
             001:\tmov.a0 ^6/v0.x t[0].y\n\
             002:\tmov.a0 ^12/v0.y t[0].z\n";
    let o = run(t, &inputs(&U), true).unwrap();
    assert_eq!((o.written[0], o.varyings[0][1], o.steps), (2, 5.0, 2));
    let o = run(t, &inputs(&[[0.0, 4.5, 5.0, 2.0]]), true).unwrap();
    assert_eq!((o.written[0], o.steps), (3, 3));
    // A forwarded value does not cross into another block in strict mode.
    let t = "000:\tmov.a0 ^0 t[0].x\n\tmov.p ^4 t[0].x\n\tbranch ^4 001\n\tunknown_1 13\n\
             001:\tmov.a0 ^6/v0.x ^0\n";
    not_available(run(t, &inputs(&U), true), 1);
    // A loop without an exit runs out of fuel.
    let t = "000:\tmov.p ^4 t[0].x\n\tbranch ^4 000\n\tunknown_1 13\n";
    let e = run(t, &inputs(&U), true).unwrap_err();
    assert_eq!(e.kind, GpSimErrorKind::OutOfFuel);
}

/// `v0 = M · a0`, M in uniforms 0–3 (rows), one row per four instructions.
fn matrix_program() -> String {
    let mut t = String::new();
    let store = ["/v0.x", "/v0.y", "/v0.z", "/v0.w"];
    for (r, st) in store.iter().enumerate() {
        let i = 4 * r;
        let n = |k: usize, u: usize| 6 * (i + k) + u;
        t += &format!(
            "{:03}:\tmul.m0 ^{} a0.x t[{r}].x\n\tmul.m1 ^{} a0.y t[{r}].y\n",
            i,
            n(0, 2),
            n(0, 3)
        );
        t += &format!(
            "{:03}:\tadd.a0 ^{} ^{} ^{}\n\tmul.m0 ^{} a0.z t[{r}].z\n\tmul.m1 ^{} a0.w t[{r}].w\n",
            i + 1,
            n(1, 0),
            n(0, 2),
            n(0, 3),
            n(1, 2),
            n(1, 3)
        );
        t += &format!(
            "{:03}:\tadd.a0 ^{} ^{} ^{}\n",
            i + 2,
            n(2, 0),
            n(1, 2),
            n(1, 3)
        );
        t += &format!(
            "{:03}:\tadd.a0 ^{}{} ^{} ^{}\n",
            i + 3,
            n(3, 0),
            st,
            n(2, 0),
            n(1, 0)
        );
    }
    t
}

#[test]
fn matrix_vector_product() {
    let m = [
        [1.0, 2.0, 3.0, 4.0],
        [5.0, 6.0, 7.0, 8.0],
        [9.0, 10.0, 11.0, 12.0],
        [13.0, 14.0, 15.0, 16.0],
    ];
    let mut inp = inputs(&m);
    inp.attributes[0] = [1.0, -1.0, 2.0, 0.5];
    let o = run(&matrix_program(), &inp, true).unwrap();
    assert_eq!(o.varyings[0], [7.0, 17.0, 27.0, 37.0]);
    assert_eq!((o.written[0], o.steps), (0xF, 16));
}

/// The position epilogue of reference §10 on attribute a0: viewport scale in t[0], translate in
/// t[1], clamp bounds of 1/w in t[2] (the old text's `max(min(x, t.x), t.y)`).
const EPILOGUE: &str = "\
000:\tcomplex2.m0 ^2 a0.w a0.w\n\trcp.c ^5 a0.w\n\tmov.p ^4 a0.w\n\
001:\tcomplex1.m01 ^8 ^5 ^2 ^5 ^4\n\
002:\tnop\n\
003:\tclamp.p ^22/v0.w ^8 t[2].x t[2].y\n\
004:\tmul.m0 ^26 a0.x ^22\n\tmul.m1 ^27 a0.y ^22\n\tmov.p ^28 ^22\n\
005:\tmul.m0 ^32 ^26 t[0].x\n\tmul.m1 ^33 ^27 t[0].y\n\
006:\tadd.a0 ^36/v0.x ^32 t[1].x\n\tadd.a1 ^37/v0.y ^33 t[1].y\n\tmul.m0 ^38 a0.z ^28\n\
007:\tmul.m0 ^44 ^38 t[0].z\n\
008:\tadd.a0 ^48/v0.z ^44 t[1].z\n";

#[test]
fn position_epilogue_through_the_generic_simulator() {
    let code = encode_bytes(&assemble(EPILOGUE).unwrap()).unwrap();
    let reflection = Reflection {
        varyings: vec![VaryingBinding {
            source: IoSource::Location {
                location: 0,
                component: 0,
            },
            slot: 0,
            lane: 0,
            components: 4,
        }],
        uniforms: vec![UniformBinding {
            slot: 2,
            source: UniformSource::Literal([32768.0, -32768.0, 0.0, 0.0]),
        }],
        uniform_slots: 3,
        outputs: vec![OutputBinding {
            target: IoSource::BuiltIn(BuiltIn::Position),
            register: 0,
            components: 4,
        }],
        target: Some(TargetPart::new(GpReflection {
            viewport: Some(0),
            point_size: None,
        })),
        ..Reflection::default()
    };
    let output = Output {
        sections: vec![Section {
            name: CODE,
            bytes: code,
        }],
        reflection,
        ..Output::default()
    };
    let config = SimConfig {
        precision: Precision::Exact,
        fuel: 1000,
    };
    let position = |values: &IoValues| -> Vec<f32> {
        (0..4)
            .map(|c| f32::from_bits(values[&(IoName::BuiltIn(BuiltIn::Position), c)]))
            .collect()
    };
    // The generic simulator returns what the program stored, (x·w'·sx + tx, …, w') with the
    // simulator's viewport (2, −3, 0.5) + (10, 20, 0.25); `stored_outputs` maps the IR's
    // clip-space position the same way. Hand-computed for p = (1, 2, 3, 4), w' = 0.25, and
    // for w = +inf (w' = 0, every coordinate its translate), w = −0 (w' clamped to −2^15) and
    // w = NaN (min/max give the bound: w' = 2^15).
    let cases: [([f32; 4], [f32; 4]); 4] = [
        ([1.0, 2.0, 3.0, 4.0], [10.5, 18.5, 0.625, 0.25]),
        ([1.0, 2.0, 3.0, f32::INFINITY], [10.0, 20.0, 0.25, 0.0]),
        ([1.0, 0.0, 0.0, -0.0], [-65526.0, 20.0, 0.25, -32768.0]),
        ([0.0, 0.0, 1.0, f32::NAN], [10.0, 20.0, 16384.25, 32768.0]),
    ];
    for (p, stored) in cases {
        let io: IoValues = (0..4)
            .map(|c| ((IoName::Location(0), c), p[c as usize].to_bits()))
            .collect();
        let inputs = SimInputs {
            invocations: vec![io],
            legacy_constants: Default::default(),
            constant_buffers: Default::default(),
            textures: &irc_backend::NoTextures,
        };
        let out = GpSim.run(&output, &inputs, &config).unwrap();
        assert_eq!(position(&out.invocations[0].values), stored, "{p:?}");
        assert_eq!(out.steps, 9);
        let mut want: IoValues = (0..4)
            .map(|c| {
                (
                    (IoName::BuiltIn(BuiltIn::Position), c),
                    p[c as usize].to_bits(),
                )
            })
            .collect();
        GpSim.stored_outputs(&output, &mut want);
        assert_eq!(position(&want), stored, "{p:?}");
        assert_eq!(viewport(p), stored);
        // The varyings of the bare program agree.
        let mut inp = inputs_for_epilogue();
        inp.attributes[0] = p;
        assert_eq!(run(EPILOGUE, &inp, true).unwrap().varyings[0], stored);
    }
}

fn inputs_for_epilogue() -> GpInputs {
    use irc_lima::gp::sim_io::{VIEWPORT_SCALE, VIEWPORT_TRANSLATE};
    inputs(&[
        VIEWPORT_SCALE,
        VIEWPORT_TRANSLATE,
        [32768.0, -32768.0, 0.0, 0.0],
    ])
}

#[test]
fn complex1_result_cannot_be_stored_by_its_own_instruction() {
    let t = rcp_program(3).replace("001:\tcomplex1.m01 ^8 ", "001:\tcomplex1.m01 ^8/v2.x ");
    not_available(run(&t, &inputs(&U), true), 1);
    assert!(run(&t, &inputs(&U), false).unwrap().varyings[2][0].is_nan());
}

#[test]
fn unknown_sources_and_bad_addresses_are_errors() {
    let t = "000:\tmov.p ^4/v0.x unknown2\n";
    let e = run(t, &inputs(&U), false).unwrap_err();
    assert_eq!(e.kind, GpSimErrorKind::Invalid);
    // addr1 = 2 → t[511 + 2] is outside the uniform space.
    let t = "000:\tmov.c ^5/addr1 t[0].w\n001:\tnop\n002:\tnop\n003:\tnop\n\
             004:\tmov.p ^28/v0.x t[511+addr1].x\n";
    let e = run(t, &inputs(&U), true).unwrap_err();
    assert_eq!((e.kind, e.instruction), (GpSimErrorKind::Invalid, Some(4)));
}

fn output_for(text: &str, reflection: Reflection) -> Output {
    Output {
        sections: vec![Section {
            name: CODE,
            bytes: encode_bytes(&assemble(text).unwrap()).unwrap(),
        }],
        reflection,
        ..Output::default()
    }
}

#[test]
fn generic_simulator_uniform_sources_and_missing_outputs() {
    use irc_backend::reflection::ResourceBinding;
    // v3.xy = (legacy c2.y, cb0[1].x as int → float); v3.z never stored.
    let text = "000:\tmov.a0 ^0/v3.x t[0].y\n001:\tmov.a1 ^7/v3.y t[1].x\n";
    let binding = ResourceBinding {
        space: 0,
        register: 0,
    };
    let mut reflection = Reflection {
        uniforms: vec![
            UniformBinding {
                slot: 0,
                source: UniformSource::Legacy {
                    kind: BuiltIn::LegacyConstFloat,
                    index: 2,
                },
            },
            UniformBinding {
                slot: 1,
                source: UniformSource::ConstantBuffer {
                    binding,
                    vec4_index: 1,
                    int_lanes: 1,
                },
            },
        ],
        outputs: vec![OutputBinding {
            target: IoSource::Location {
                location: 1,
                component: 0,
            },
            register: 3,
            components: 2,
        }],
        ..Reflection::default()
    };
    let inputs = SimInputs {
        invocations: vec![Default::default(), Default::default()],
        legacy_constants: [((BuiltIn::LegacyConstFloat, 2), [0, 1.25f32.to_bits(), 0, 0])]
            .into_iter()
            .collect(),
        constant_buffers: [(binding, vec![0, 0, 0, 0, (-7i32) as u32, 0, 0, 0])]
            .into_iter()
            .collect(),
        textures: &irc_backend::NoTextures,
    };
    let config = SimConfig {
        precision: Precision::Native,
        fuel: 100,
    };
    let out = GpSim
        .run(&output_for(text, reflection.clone()), &inputs, &config)
        .unwrap();
    assert_eq!(out.invocations.len(), 2);
    let v = &out.invocations[1].values;
    assert_eq!(f32::from_bits(v[&(IoName::Location(1), 0)]), 1.25);
    assert_eq!(f32::from_bits(v[&(IoName::Location(1), 1)]), -7.0);
    // Steps add up over the invocations (each vertex runs the whole program).
    assert_eq!(out.steps, 4);
    reflection.outputs[0].components = 3;
    let e = GpSim
        .run(&output_for(text, reflection), &inputs, &config)
        .unwrap_err();
    assert!(e.0.contains("varying 3"), "{e}");
}
