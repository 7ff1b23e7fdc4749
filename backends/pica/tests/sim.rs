//! Simulator tests with hand-computed expected values.

use irc_pica::asm::{assemble, assemble_files};
use irc_pica::shbin;
use irc_pica::sim::{run_shbin, run_shbin_bytes, Precision, SimError, SimOptions, Uniforms};

const EXACT: SimOptions = SimOptions {
    precision: Precision::Exact,
    fuel: 10_000,
};
const NATIVE: SimOptions = SimOptions {
    precision: Precision::Native,
    fuel: 10_000,
};

fn inputs(v: &[[f32; 4]]) -> [[f32; 4]; 16] {
    let mut out = [[0.0; 4]; 16];
    out[..v.len()].copy_from_slice(v);
    out
}

fn vs(
    src: &str,
    v: &[[f32; 4]],
    u: &Uniforms,
    opts: &SimOptions,
) -> Result<[[f32; 4]; 16], SimError> {
    let sh = assemble(src).unwrap_or_else(|e| panic!("{e}"));
    run_shbin(&sh, 0, &inputs(v), u, opts).map(|r| r.outputs)
}

#[test]
fn dp4_of_a_known_matrix_from_shbin_bytes() {
    // The §13.4 program: o0 = proj · (mdlv · (pos.xyz, 1)), o3 = colour / 255.
    let src = include_str!("shbin.rs");
    let start = src.find("; 2D shader").unwrap();
    let end = src[start..].find("\";").unwrap();
    let text = &src[start..start + end];
    let bytes = shbin::write(&assemble(text).unwrap());
    let mut u = Uniforms::default();
    // mdlvMtx (c0–c3): rows of a translation by (10, 20, 30).
    u.float[0] = [1.0, 0.0, 0.0, 10.0];
    u.float[1] = [0.0, 1.0, 0.0, 20.0];
    u.float[2] = [0.0, 0.0, 1.0, 30.0];
    u.float[3] = [0.0, 0.0, 0.0, 1.0];
    // projMtx (c4–c7): scale by 2, swap z and w.
    u.float[4] = [2.0, 0.0, 0.0, 0.0];
    u.float[5] = [0.0, 2.0, 0.0, 0.0];
    u.float[6] = [0.0, 0.0, 0.0, 1.0];
    u.float[7] = [0.0, 0.0, 1.0, 0.0];
    let v = inputs(&[
        [1.0, 2.0, 3.0, 99.0],
        [0.25, 0.75, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
        [255.0, 0.0, 51.0, 127.5],
    ]);
    for opts in [EXACT, NATIVE] {
        let r = run_shbin_bytes(&bytes, 0, &v, &u, &opts).unwrap();
        // mdlv · (1, 2, 3, 1) = (11, 22, 33, 1); proj · that = (22, 44, 1, 33).
        assert_eq!(r.outputs[0], [22.0, 44.0, 1.0, 33.0]);
        assert_eq!(r.outputs[1], [0.25, 0.75, 0.0, 0.0]);
        assert_eq!(r.outputs[2], [0.5, 0.5, 0.0, 0.0]);
        assert_eq!(r.written[..4], [0xF; 4]);
        let c = r.outputs[3];
        if opts.precision == Precision::Exact {
            // 1/255 as float24 (truncated constant 0x370101).
            assert_eq!(c[0], 255.0 * irc_pica::float24::to_f32(0x370101));
        }
        assert!(
            (c[0] - 1.0).abs() < 1e-4 && (c[2] - 0.2).abs() < 1e-4 && (c[3] - 0.5).abs() < 1e-4
        );
        assert_eq!(c[1], 0.0);
    }
}

#[test]
fn dph_homogenizes_the_first_source() {
    let src = ".fvec m\n.proc main\n dph o0, v0, m\n end\n.end\n";
    let mut u = Uniforms::default();
    u.float[0] = [1.0, 2.0, 3.0, 4.0];
    // v0.w is ignored: 1·5 + 2·6 + 3·7 + 4 = 42.
    let o = vs(src, &[[5.0, 6.0, 7.0, 1000.0]], &u, &EXACT).unwrap();
    assert_eq!(o[0], [42.0; 4]);
}

#[test]
fn zero_times_infinity_is_zero_but_zero_times_nan_is_nan() {
    let src = "\
.constf k(0.0, 1e30, 1.0, 2.0)
.proc main
    mul r0, k.yyyy, v0       ; inf · (0, 1, 0, 0)
    mov r2, k.yyyy
    add r1, k.yyyy, -r2      ; inf - inf = NaN
    mul r1, k.xxxx, r1       ; 0 · NaN
    dp4 r3, k.yyyy, v0       ; inf·0 + inf·1 + inf·0 + inf·0 = inf
    mov o0, r0
    mov o1, r1
    mov o2, r3
    end
.end
";
    for opts in [EXACT, NATIVE] {
        let o = vs(src, &[[0.0, 1.0, 0.0, 0.0]], &Uniforms::default(), &opts).unwrap();
        assert_eq!(o[0], [0.0, f32::INFINITY, 0.0, 0.0]);
        assert!(o[1].iter().all(|x| x.is_nan()));
        assert_eq!(o[2], [f32::INFINITY; 4]);
    }
}

#[test]
fn there_is_no_negative_zero() {
    // §10: "no −0". v0 = (0, 0, 1, 0); c0 = (−0, −1, 0, 0) as uploaded bit patterns.
    let src = "\
.fvec c
.proc main
    mov o0, -v0              ; −0 from negating +0 → +0
    mul r0, c.yyyy, v0       ; (−1 · 0, ..) → +0
    mov o1, r0
    mov r1, c
    add o2, c.xxxx, r1.xxxx  ; −0 + −0 → +0
    mov o3, c                ; a −0 uniform reads as +0
    end
.end
";
    let mut u = Uniforms::default();
    u.float[0] = [-0.0, -1.0, 0.0, 0.0];
    for opts in [EXACT, NATIVE] {
        let o = vs(src, &[[0.0, 0.0, 1.0, 0.0]], &u, &opts).unwrap();
        let bits = |v: [f32; 4]| v.map(f32::to_bits);
        assert_eq!(bits(o[0]), bits([0.0, 0.0, -1.0, 0.0]), "{opts:?}");
        assert_eq!(bits(o[1]), bits([0.0, 0.0, -1.0, 0.0]), "{opts:?}");
        assert_eq!(bits(o[2]), [0; 4], "{opts:?}");
        assert_eq!(bits(o[3]), bits([0.0, -1.0, 0.0, 0.0]), "{opts:?}");
    }
}

#[test]
fn max_min_nan_and_litp() {
    let src = "\
.constf k(0.0, 1e30, 200.0, -3.0)
.proc main
    mov r2, k.yyyy
    add r1, k.yyyy, -r2      ; NaN
    max r3, k.xxxx, r1       ; max(0, NaN) = NaN
    mov r8, k.xxxx
    max r4, r1, r8           ; max(NaN, 0) = 0
    min r5, r1, r8           ; min(NaN, 0) = 0
    mov r6, k.zwzw
    litp r7, r6.xzyy         ; (200, 200, -3, -3)
    mov o0, r3
    mov o1, r4
    mov o2, r5
    mov o3, r7
    ifc cmp.x && !cmp.y      ; LITP flags: x ≥ 0, w < 0
        mov o4, k.zzzz
    .else
        mov o4, k.xxxx
    .end
    end
.end
";
    let o = vs(src, &[], &Uniforms::default(), &EXACT).unwrap();
    assert!(o[0].iter().all(|x| x.is_nan()));
    assert_eq!(o[1], [0.0; 4]);
    assert_eq!(o[2], [0.0; 4]);
    assert_eq!(o[3], [200.0, 127.996_09, 0.0, 0.0]);
    assert_eq!(o[4], [200.0; 4]);
}

#[test]
fn loop_with_al_sums_an_array() {
    let src = "\
.fvec arr[4]
.ivec it
.constf k(0.0, 0.0, 0.0, 0.0)
.proc main
    mov r0, k
    for it
        add r0, arr[aL], r0
    .end
    mov o0, r0
    end
.end
";
    let mut u = Uniforms::default();
    for i in 0..4 {
        u.float[i] = [1.0 + i as f32, 10.0 * (i + 1) as f32, 0.0, 1.0];
    }
    // i0 = (x: 3 → 4 iterations, y: aL starts at 0, z: step 1).
    u.int[0] = [3, 0, 1, 0];
    let o = vs(src, &[], &u, &EXACT).unwrap();
    assert_eq!(o[0], [10.0, 100.0, 0.0, 4.0]);
    // Start at 2, step 1, 2 iterations: arr[2] + arr[3].
    u.int[0] = [1, 2, 1, 0];
    let o = vs(src, &[], &u, &EXACT).unwrap();
    assert_eq!(o[0], [7.0, 70.0, 0.0, 2.0]);
    // i.x = 0 still runs the body once.
    u.int[0] = [0, 1, 1, 0];
    let o = vs(src, &[], &u, &EXACT).unwrap();
    assert_eq!(o[0], [2.0, 20.0, 0.0, 1.0]);
}

#[test]
fn breakc_leaves_the_loop() {
    let src = "\
.ivec it
.constf k(0.0, 1.0, 3.0, 0.0)
.proc main
    mov r0, k.xxxx
    for it
        add r0, k.yyyy, r0
        cmp r0, ge, ge, r1       ; r1 = 0 … compare against the limit below
        breakc cmp.x
    .end
    mov o0, r0
    end
.end
";
    // r1 is 0, so the first iteration breaks: r0 = 1.
    let mut u = Uniforms::default();
    u.int[0] = [9, 0, 1, 0];
    let o = vs(src, &[], &u, &EXACT).unwrap();
    assert_eq!(o[0], [1.0; 4]);
}

#[test]
fn if_else_on_a_bool_uniform() {
    let src = "\
.bool flag
.constf k(1.0, 2.0, 3.0, 4.0)
.proc main
    ifu flag
        mov o0, k.xxxx
    .else
        mov o0, k.yyyy
    .end
    end
.end
";
    let mut u = Uniforms::default();
    assert_eq!(vs(src, &[], &u, &EXACT).unwrap()[0], [2.0; 4]);
    u.bools = 1;
    assert_eq!(vs(src, &[], &u, &EXACT).unwrap()[0], [1.0; 4]);
}

#[test]
fn calls_return_by_length_and_jumps() {
    let src = "\
.bool b
.constf k(1.0, 2.0, 3.0, 4.0)
.proc main
    mov r0, k.xxxx
    call twice
    call twice
    jmpu !b, skip
    add r0, k.wwww, r0
skip:
    mov o0, r0
    end
.end
.proc twice
    add r0, r0, r0
.end
";
    let mut u = Uniforms::default();
    assert_eq!(vs(src, &[], &u, &EXACT).unwrap()[0], [4.0; 4]);
    u.bools = 1;
    assert_eq!(vs(src, &[], &u, &EXACT).unwrap()[0], [8.0; 4]);
}

#[test]
fn relative_addressing_out_of_range_reads_ones() {
    let src = "\
.fvec arr[2]
.constf k(100.0, 1.0, -1.0, 0.0)
.proc main
    mova a0.xy, k.xyyy       ; a0.x = 100, a0.y = 1
    mov r0, arr[a0.x]        ; c100 > 95 → (1, 1, 1, 1)
    mov o0, r0
    mov o1, arr[a0.y]        ; c1
    end
.end
";
    let mut u = Uniforms::default();
    u.float[1] = [5.0, 6.0, 7.0, 8.0];
    let o = vs(src, &[], &u, &EXACT).unwrap();
    assert_eq!(o[0], [1.0; 4]);
    assert_eq!(o[1], [5.0, 6.0, 7.0, 8.0]);
}

#[test]
fn native_precision_rounds_to_float24() {
    let src = ".constf k(3.0, 1.0, 0.0, 0.0)\n.proc main\n rcp r0, k.x\n mov o0, r0\n mul o1, r0, v0\n end\n.end\n";
    let v = [[3.0, 0.0, 0.0, 0.0]];
    let e = vs(src, &v, &Uniforms::default(), &EXACT).unwrap();
    let n = vs(src, &v, &Uniforms::default(), &NATIVE).unwrap();
    assert_eq!(e[0][0], 1.0 / 3.0);
    // 1/3 with a 16-bit mantissa (round to nearest): 0x3D5555 → 0.333333015…
    assert_eq!(n[0][0], irc_pica::float24::to_f32(0x3D5555));
    assert_ne!(n[0][0], e[0][0]);
    assert!((n[1][0] - 1.0).abs() < 1e-5);
}

#[test]
fn errata_are_errors() {
    let two_movas = ".proc main\n mova a0.x, v0\n mova a0.y, v0\n end\n.end\n";
    assert!(matches!(
        vs(two_movas, &[], &Uniforms::default(), &EXACT),
        Err(SimError::ConsecutiveMova(1))
    ));
    let twice = ".proc main\n mov o0, v0\n mov o0.x, v0\n end\n.end\n";
    assert!(matches!(
        vs(twice, &[], &Uniforms::default(), &EXACT),
        Err(SimError::OutputWrittenTwice {
            pc: 1,
            reg: 0,
            comp: 0
        })
    ));
    let no_end = ".proc main\n mov o0, v0\n.end\n";
    assert!(matches!(
        vs(no_end, &[], &Uniforms::default(), &EXACT),
        Err(SimError::PastEnd(1))
    ));
    let spin = "loop:\n.proc main\n jmpu !b0, loop\n nop\n.end\n";
    assert!(matches!(
        vs(spin, &[], &Uniforms::default(), &EXACT),
        Err(SimError::OutOfFuel(_))
    ));
}

#[test]
fn jump_as_last_instruction_of_an_if_body_is_not_taken() {
    // Built with .word to avoid the assembler's automatic NOP: ifu b0 (body = jmpu to 4).
    // 0: ifu b0 → dst 2, num 0    1: jmpu b0, 4    2: mov o0, c0 … (needs the descriptor)
    let src = "\
.constf k(1.0, 2.0, 0.0, 0.0)
.proc main
    .word 0x9C000800
    .word 0xB4001000
    mov o0, k.xxxx
    end
    mov o0, k.yyyy
    end
.end
";
    let u = Uniforms {
        bools: 1,
        ..Uniforms::default()
    };
    // The IF pop at PC+1 = 2 wins over the jump: o0 = 1, not 2.
    assert_eq!(vs(src, &[], &u, &EXACT).unwrap()[0], [1.0; 4]);
}

#[test]
fn geometry_shader_emits_a_triangle() {
    let gs = "\
.gsh point c0
.out p position
.out c color
.entry gmain
.proc gmain
    setemit 0
    mov p, v0
    mov c, v1
    emit
    setemit 1
    mov p, v2
    mov c, v3
    emit
    setemit 2, prim inv
    mov p, v4
    mov c, v5
    emit
    end
.end
";
    let vsrc = ".out p position\n.proc main\n mov p, v0\n end\n.end\n";
    let sh = assemble_files(&[vsrc, gs]).unwrap();
    let bytes = shbin::write(&sh);
    let v: Vec<[f32; 4]> = (0..6).map(|i| [i as f32, 0.0, 0.0, 1.0]).collect();
    let r = run_shbin_bytes(&bytes, 1, &inputs(&v), &Uniforms::default(), &NATIVE).unwrap();
    assert_eq!(r.emitted.len(), 3);
    assert_eq!(r.primitives.len(), 1);
    let t = &r.primitives[0];
    assert!(t.winding);
    assert_eq!(t.vertices.map(|v| v[0][0]), [0.0, 2.0, 4.0]);
    assert_eq!(t.vertices.map(|v| v[1][0]), [1.0, 3.0, 5.0]);
    // The VS of the same file still runs.
    let r = run_shbin_bytes(&bytes, 0, &inputs(&v), &Uniforms::default(), &NATIVE).unwrap();
    assert_eq!(r.outputs[0], [0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn call_as_last_instruction_of_an_if_body_is_lost() {
    // 0: ifu b0 → end 2   1: call 5 (len 1)   2: mov o0, k.x   3: end   4: nop   5: mov r0… (unused)
    let src = "\
.constf k(1.0, 2.0, 0.0, 0.0)
.proc main
    .word 0x9C000800
    .word 0x90001401
    mov o0, k.xxxx
    end
    nop
    mov o1, k.yyyy
.end
";
    let u = Uniforms {
        bools: 1,
        ..Uniforms::default()
    };
    let o = vs(src, &[], &u, &EXACT).unwrap();
    assert_eq!(o[0], [1.0; 4]);
    assert_eq!(o[1], [0.0; 4]); // the called word never ran
}

#[test]
fn nested_loops_and_break_leave_the_innermost_only() {
    let src = "\
.ivec outer, inner
.constf k(1.0, 0.0, 0.0, 0.0)
.proc main
    mov r0, k.yyyy
    mov r1, k.yyyy
    for outer
        for inner
            add r0, k.xxxx, r0      ; counts inner iterations
            breakc cmp.x            ; cmp.x stays false: never taken
        .end
        add r1, k.xxxx, r1          ; counts outer iterations
        cmp r1, ge, ge, r1          ; sets cmp.x (r1 >= r1)
    .end
    mov o0, r0
    mov o1, r1
    end
.end
";
    let mut u = Uniforms::default();
    u.int[0] = [2, 0, 0, 0]; // 3 outer iterations
    u.int[1] = [4, 0, 0, 0]; // 5 inner iterations, but breakc leaves after the first once cmp.x is set
    let o = vs(src, &[], &u, &EXACT).unwrap();
    // Outer 1: inner runs 5 times (cmp.x false); outer 2 and 3: inner breaks after 1.
    assert_eq!(o[0], [7.0; 4]);
    assert_eq!(o[1], [3.0; 4]);
}
