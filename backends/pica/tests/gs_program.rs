//! One SHBIN from a vertex and a geometry shader ([`irc_pica::gs::program::merge`]): the
//! geometry code follows the vertex code with its absolute flow-control targets and entry
//! moved, descriptors shared by both are stored once, and the result runs the same.

use irc_pica::asm::assemble;
use irc_pica::decode::decode_program;
use irc_pica::gs::program::merge;
use irc_pica::instr::Instr;
use irc_pica::isa::Opcode;
use irc_pica::shbin::ShaderType;
use irc_pica::sim::{run_shbin, SimOptions, Uniforms};

const VS: &str = "
.proc main
    mov o0, v0
    mov o1, v1
    end
.end
";

/// Emits one vertex whose o0 is v0, or v1 when b0 is set (IFU with an else branch).
const GS: &str = "
.gsh point c0
.proc main
    ifu b0
        mov o0, v1
    .else
        mov o0, v0
    .end
    setemit 0
    emit
    end
.end
";

#[test]
fn geometry_code_is_relocated_after_the_vertex_code() {
    let vs = assemble(VS).expect("vs assembles");
    let gs = assemble(GS).expect("gs assembles");
    let gs_ifu_target = decode_program(&gs.code, &gs.opdescs).expect("decodes")[0]
        .target()
        .expect("IFU has a target");
    let sh = merge(&[vs.clone(), gs.clone()]).expect("merges");
    assert_eq!(sh.dvles.len(), 2);
    assert_eq!(sh.dvles[0].kind, ShaderType::Vertex);
    assert_eq!(sh.dvles[1].kind, ShaderType::Geometry);
    let base = vs.code.len() as u32;
    assert_eq!(sh.dvles[1].main, base);
    assert_eq!(sh.dvles[1].endmain, base + gs.dvles[0].endmain);
    let prog = decode_program(&sh.code, &sh.opdescs).expect("merged code decodes");
    let ifu = prog[base as usize];
    assert_eq!(ifu.opcode(), Opcode::Ifu);
    assert_eq!(ifu.target(), Some(gs_ifu_target + base as u16));
    // `mov oN, vM` with full masks and identity swizzles: one descriptor for all four MOVs.
    assert_eq!(sh.opdescs.len(), 1, "{:08x?}", sh.opdescs);
    assert!(matches!(prog[prog.len() - 1], Instr::Plain(Opcode::End)));

    // Both stages run from the merged bytes as they ran alone.
    let mut v = [[0.0f32; 4]; 16];
    v[0] = [1.0, 2.0, 3.0, 4.0];
    v[1] = [5.0, 6.0, 7.0, 8.0];
    let opts = SimOptions::default();
    for bools in [0u16, 1] {
        let u = Uniforms {
            bools,
            ..Default::default()
        };
        let alone = run_shbin(&gs, 0, &v, &u, &opts).expect("gs alone");
        let merged = run_shbin(&sh, 1, &v, &u, &opts).expect("gs merged");
        assert_eq!(alone.emitted, merged.emitted);
        assert_eq!(merged.emitted[0][0], v[usize::from(bools)]);
    }
    let alone = run_shbin(&vs, 0, &v, &Uniforms::default(), &opts).expect("vs alone");
    let merged = run_shbin(&sh, 0, &v, &Uniforms::default(), &opts).expect("vs merged");
    assert_eq!(alone.outputs, merged.outputs);
}
