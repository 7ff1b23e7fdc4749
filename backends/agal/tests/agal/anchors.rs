//! The anchor programs of §10: assembled from their text, token counts checked against the
//! reference, validated (as pairs where both stages are known), and round-tripped
//! (encode ∘ decode and assemble ∘ disassemble are the identity on their bytes).

use irc_agal::validate::{validate, validate_pair, ValidateOptions};
use irc_agal::ShaderKind;

use super::{asm, round_trip, F, V};

/// Starling FilterEffect `STD_VERTEX_SHADER`.
pub const FILTER_VS: &str = "m44 op, va0, vc0\nmov v0, va1";
/// Starling MeshEffect.
pub const MESH_VS: &str = "m44 op, va0, vc0\nmov v0, va1\nmul v1, va2, vc4";
pub const MESH_FS: &str = "tex ft0, v0, fs0 <2d, rgba>\nmul oc, ft0, v1";
/// Starling ColorMatrixFilter (the elided sampler options filled in as Starling writes them).
pub const COLOR_MATRIX_FS: &str = "tex ft0, v0, fs0 <2d, linear, mipnone>
max ft0, ft0, fc5
div ft0.xyz, ft0.xyz, ft0.www
m44 ft0, ft0, fc0
add ft0, ft0, fc4
mul ft0.xyz, ft0.xyz, ft0.www
mov oc, ft0";
/// Starling BlurFilter (5 taps).
pub const BLUR_VS: &str = "m44 op, va0, vc0
mov v0, va1
sub v1, va1, vc4.zwxx
sub v2, va1, vc4.xyww
add v3, va1, vc4.xyww
add v4, va1, vc4.zwxx";
pub const BLUR_FS: &str = "tex ft0, v0, fs0 <2d, linear, clamp, mipnone>
mul ft5, ft0, fc0.xxxx
tex ft1, v1, fs0 <2d, linear, clamp, mipnone>
mul ft1, ft1, fc0.zzzz
add ft5, ft5, ft1
tex ft2, v2, fs0 <2d, linear, clamp, mipnone>
mul ft2, ft2, fc0.yyyy
add ft5, ft5, ft2
tex ft3, v3, fs0 <2d, linear, clamp, mipnone>
mul ft3, ft3, fc0.yyyy
add ft5, ft5, ft3
tex ft4, v4, fs0 <2d, linear, clamp, mipnone>
mul ft4, ft4, fc0.zzzz
add oc, ft5, ft4";
/// Away3D SkyBoxPass.
pub const SKYBOX_VS: &str = "mul vt0, va0, vc5\nadd vt0, vt0, vc4\nm44 op, vt0, vc0\nmov v0, va0";
pub const SKYBOX_FS: &str = "tex ft0, v0, fs0 <cube,linear,clamp,miplinear>\nmov oc, ft0";
/// Away3D SegmentPass, as stored in away3d/away3d-core-fp11 at 0573374 (28 tokens: this
/// revision lacks two lines of the 30-token version counted in §10, among them the `seq` line
/// of issue #589).
pub const SEGMENT_VS: &str = "m44 vt0, va0, vc3
m44 vt1, va1, vc3
sub vt2, vt1, vt0
slt vt5.x, vt0.z, vc2.z
sub vt5.y, vc0.x, vt5.x
add vt4.x, vt0.z, vc2.z
sub vt4.y, vt0.z, vt1.z
div vt4.z, vt4.x, vt4.y
mul vt4.xyz, vt4.zzz, vt2.xyz
add vt3.xyz, vt0.xyz, vt4.xyz
mov vt3.w, vc0.x
mul vt0, vt0, vt5.yyyy
mul vt3, vt3, vt5.xxxx
add vt0, vt0, vt3
sub vt2, vt1, vt0
nrm vt2.xyz, vt2.xyz
nrm vt5.xyz, vt0.xyz
mov vt5.w, vc0.x
crs vt3.xyz, vt2, vt5
nrm vt3.xyz, vt3.xyz
mul vt3.xyz, vt3.xyz, va2.xxx
mov vt3.w, vc0.x
dp3 vt4.x, vt0, vc1
mul vt4.x, vt4.x, vc2.x
mul vt3.xyz, vt3.xyz, vt4.xxx
add vt0.xyz, vt0.xyz, vt3.xyz
m44 op, vt0, vc7
mov v0, va3";
pub const SEGMENT_FS: &str = "mov oc, v0";

/// MolehillJulia (v1 vertex program of Ruffle's `fractal_vertex.agal`, disassembled).
pub const JULIA_VS: &str = "mov op, va0\nm44 v0, va1, vc1\nmov v0.zw, vc0.zw";

/// MolehillJulia's fragment program (Ruffle's `fractal_fragment.agal`, 197 tokens, v1),
/// written as the text our disassembler prints for it: 3 setup tokens, 23 unrolled iterations
/// of an 8-token complex-square step, 10 tokens of colouring. It ran on Flash Player, so the
/// validator must accept it (note the `dp3` with `xyw`/`xzw` swizzles).
pub fn julia_fs() -> String {
    let mut s = String::from("mov ft0.xy, v0.xy\nmov ft0.zw, fc0.x\nmov ft1.x, fc0.x\n");
    for _ in 0..23 {
        s.push_str(
            "neg ft0.z, ft0.y
mul ft3.x, fc0.z, ft0.x
dp3 ft0.x, ft0.xyw, ft0.xzw
mul ft0.y, ft3.x, ft0.y
add ft0.xy, ft0.xy, fc3.xy
dp3 ft2.x, ft0.xyw, ft0.xyw
slt ft3.x, ft2.x, fc0.w
add ft1.x, ft1.x, ft3.x
",
        );
    }
    s.push_str(
        "div ft2.x, ft1.x, fc2.y
add ft2, ft2.x, fc1
add ft2, ft2, fc1.w
div ft2, ft2, fc0.z
frc ft2, ft2
mul ft2, ft2, fc0.z
sub ft2, ft2, fc2.z
abs ft2, ft2
slt ft1, ft1.x, fc2.y
mul oc, ft1, ft2",
    );
    s
}

#[test]
fn molehill_julia() {
    let fs = asm(F, 1, &julia_fs());
    assert_eq!(fs.len(), 7 + 24 * 197, "§10: 197 tokens");
    let vs = asm(V, 1, JULIA_VS);
    // The first tokens, byte for byte as in Ruffle's dump.
    assert_eq!(
        fs[7..7 + 48],
        [
            0, 0, 0, 0, 0, 0, 3, 2, 0, 0, 0, 84, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
            0, 0, 0, 0, 0, 0, 12, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
    );
    let baseline = ValidateOptions {
        profile: irc_agal::Profile::Baseline,
        ..ValidateOptions::default()
    };
    validate_pair(&vs, &fs, &baseline).unwrap();
    round_trip(&fs);
    round_trip(&vs);
}

/// (name, kind, text, tokens per §10).
pub const ANCHORS: &[(&str, ShaderKind, &str, usize)] = &[
    ("FilterEffect vs", V, FILTER_VS, 2),
    ("MeshEffect vs", V, MESH_VS, 3),
    ("MeshEffect fs", F, MESH_FS, 2),
    ("ColorMatrixFilter fs", F, COLOR_MATRIX_FS, 7),
    ("BlurFilter vs", V, BLUR_VS, 6),
    ("BlurFilter fs", F, BLUR_FS, 14),
    ("SkyBoxPass vs", V, SKYBOX_VS, 4),
    ("SkyBoxPass fs", F, SKYBOX_FS, 2),
    ("SegmentPass vs (28-token revision)", V, SEGMENT_VS, 28),
];

#[test]
fn anchor_token_counts() {
    for &(name, kind, text, tokens) in ANCHORS {
        let bytes = asm(kind, 1, text);
        assert_eq!(bytes.len(), 7 + 24 * tokens, "{name}");
    }
}

#[test]
fn anchors_round_trip() {
    for &(_, kind, text, _) in ANCHORS {
        for version in 1..=3 {
            round_trip(&asm(kind, version, text));
        }
    }
}

#[test]
fn anchors_validate() {
    let opts = ValidateOptions::default();
    for &(name, kind, text, _) in ANCHORS {
        for version in 1..=3 {
            validate(&asm(kind, version, text), &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    for (vs, fs) in [
        (MESH_VS, MESH_FS),
        (FILTER_VS, COLOR_MATRIX_FS),
        (BLUR_VS, BLUR_FS),
        (SKYBOX_VS, SKYBOX_FS),
        (SEGMENT_VS, SEGMENT_FS),
    ] {
        validate_pair(&asm(V, 1, vs), &asm(F, 1, fs), &opts)
            .unwrap_or_else(|e| panic!("{e}\n{vs}\n{fs}"));
    }
}
