//! `irc run` with real inputs (docs/run-inputs.md): a 4×4 texture with mips given as texels
//! and as a PNG file, sampled with implicit LOD from per-lane texture coordinates, explicit
//! LOD, sampler LOD bias and linear filtering; and derivatives of interpolated inputs. Every
//! expected value is worked out by hand in the comments.

use std::path::PathBuf;
use std::process::Command;

/// o0 = t0.Sample(s0, v0.xy) (implicit LOD), o1 = t0.SampleLevel(s0, v0.xy, v0.z).
const SAMPLE: &str = "\
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutput %1 0 0
%4 = f32x4 DclOutput %1 1 0
%7 = f32 DclSrv %1 0 0 1 Image2D
%8 = DclSampler %1 0 0 1
%9 = u32 Constant 0
%10 = u32 Constant 1
%11 = u32 Constant 2

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = srv DescriptorLoad %7 %9
  %24 = sampler DescriptorLoad %8 %9
  %25 = f32 CompositeExtract %22 %9
  %26 = f32 CompositeExtract %22 %10
  %27 = f32x2 CompositeConstruct %25 %26
  %28 = f32x4 ImageSample %23 %24 null %27 null null null null null null null
  %29 = OutputStore %3 null %28
  %30 = f32 CompositeExtract %22 %11
  %31 = f32x4 ImageSample %23 %24 null %27 null %30 null null null null null
  %32 = OutputStore %4 null %31
  %33 = Return
%34 = FunctionEnd
";

/// o0 = (ddx(v0.x), ddy(v0.y), ddx_fine(v0.x · v0.y), fwidth(v0.z)).
const DERIVATIVES: &str = "\
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%4 = f32x4 DclOutput %1 0 0
%6 = u32 Constant 0
%7 = u32 Constant 1
%8 = u32 Constant 2

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32 CompositeExtract %22 %6
  %24 = f32 CompositeExtract %22 %7
  %25 = f32 CompositeExtract %22 %8
  %26 = f32 DerivX %23 Coarse
  %27 = f32 DerivY %24 Default
  %28 = f32 FMul %23 %24
  %29 = f32 DerivX %28 Fine
  %30 = f32 DerivX %25 Default
  %31 = f32 DerivY %25 Default
  %32 = f32 FAbs %30
  %33 = f32 FAbs %31
  %34 = f32 FAdd %32 %33
  %35 = f32x4 CompositeConstruct %26 %27 %29 %34
  %36 = OutputStore %4 null %35
  %37 = Return
%38 = FunctionEnd
";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("irc-run-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `irc run FILE --inputs JSON`: the output lines, or the error.
fn run(ir: &str, name: &str, json: &str) -> Result<Vec<String>, String> {
    let src = scratch(name);
    std::fs::write(&src, ir).unwrap();
    let json_path = scratch(&format!("{name}.json"));
    std::fs::write(&json_path, json).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_irc"))
        .args(["run", src.to_str().unwrap(), "--inputs"])
        .arg(&json_path)
        .output()
        .expect("irc runs");
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect())
}

/// The 4×4 texture with three levels: level 0 texel (x, y) has red 4y + x, level 1 red
/// 100 + 2y + x, level 2 red 200; green 0.5, blue 0, alpha 1 everywhere.
fn mip_texels() -> String {
    let level = |n: u32, red: &dyn Fn(u32, u32) -> u32| {
        let t: Vec<String> = (0..n * n)
            .map(|i| format!("[{}.0, 0.5, 0.0, 1.0]", red(i % n, i / n)))
            .collect();
        format!("[{}]", t.join(", "))
    };
    format!(
        "[{}, {}, {}]",
        level(4, &|x, y| 4 * y + x),
        level(2, &|x, y| 100 + 2 * y + x),
        level(1, &|_, _| 200)
    )
}

fn sample_json(ddx: f64, sampler: &str) -> String {
    format!(
        r#"{{"v0": [0.125, 0.125, 2.0, 0.0], "v0.ddx": [{ddx}, 0.0, 0.0, 0.0],
            "v0.ddy": [0.0, {ddx}, 0.0, 0.0],
            "textures": {{"t0": {{"width": 4, "height": 4, "mips": {}}}}},
            "samplers": {{"s0": {sampler}}}}}"#,
        mip_texels()
    )
}

#[test]
fn implicit_lod_follows_the_quad_derivatives_through_the_mip_chain() {
    // ddx = ddy = 0.25 in uv = 1 texel per pixel at 4×4: LOD 0. Lane (x, y) samples uv
    // (0.125 + 0.25x, 0.125 + 0.25y) = the centre of texel (x, y): red 0, 1, 4, 5.
    // o1 = SampleLevel(uv, 2) = the 1×1 level: red 200.
    let out = run(
        SAMPLE,
        "lod0.ir",
        &sample_json(0.25, r#"{"filter": "point", "address": "clamp"}"#),
    )
    .expect("runs");
    let want = [0, 1, 4, 5];
    for (lane, red) in want.iter().enumerate() {
        assert_eq!(
            out[lane],
            format!("invocation {lane}: o0=({red}.0,0.5,0.0,1.0) o1=(200.0,0.5,0.0,1.0)")
        );
    }
    // ddx = 0.5: 2 texels per pixel, LOD 1. Lane (x, y) samples uv (0.125 + 0.5x, …),
    // level-1 texel (x, y): red 100 + 2y + x.
    let out = run(
        SAMPLE,
        "lod1.ir",
        &sample_json(0.5, r#"{"filter": "point"}"#),
    )
    .expect("runs");
    for (lane, red) in [100, 101, 102, 103].iter().enumerate() {
        assert!(
            out[lane].starts_with(&format!("invocation {lane}: o0=({red}.0,")),
            "{}",
            out[lane]
        );
    }
}

#[test]
fn sampler_lod_bias_and_linear_filtering_apply() {
    // LOD 0 + the sampler's bias 1 = level 1; every lane's uv (≤ 0.375) is in level-1 texel
    // (0, 0): red 100.
    let out = run(
        SAMPLE,
        "bias.ir",
        &sample_json(0.25, r#"{"lod_bias": 1.0}"#),
    )
    .expect("runs");
    for (lane, line) in out.iter().take(4).enumerate() {
        assert!(
            line.starts_with(&format!("invocation {lane}: o0=(100.0,")),
            "{line}"
        );
    }
    // Linear, LOD 0, uv shifted by half a texel in x: lane (x, y) at texel coordinates
    // (0.5 + x, y) interpolates texels (x, y) and (x + 1, y) halfway: red 4y + x + 0.5.
    let json = sample_json(
        0.25,
        r#"{"filter": "linear", "address": ["clamp", "clamp"]}"#,
    )
    .replace("[0.125, 0.125, 2.0, 0.0]", "[0.25, 0.125, 2.0, 0.0]");
    let out = run(SAMPLE, "linear.ir", &json).expect("runs");
    for (lane, red) in [0.5, 1.5, 4.5, 5.5].iter().enumerate() {
        assert!(
            out[lane].starts_with(&format!("invocation {lane}: o0=({red},0.5,")),
            "{}",
            out[lane]
        );
    }
}

#[test]
fn png_levels_and_generated_mips() {
    // A 4×4 RGBA8 PNG with red 17·(4y + x), green 255, blue 0, alpha 255; levels 1 and 2
    // generated as box averages. SampleLevel(uv, 1) at texel (0, 0) of level 1 averages
    // reds 0, 17, 68, 85 (of 255): 170 / 4 / 255 = 1/6; level 2 averages all 16: 17·7.5/255
    // = 0.5.
    let mut px = Vec::new();
    for i in 0..16u8 {
        px.extend_from_slice(&[17 * i, 255, 0, 255]);
    }
    let png = irc_testsuite::run_inputs::png::encode_rgba8(4, 4, &px).expect("encodes");
    std::fs::write(scratch("tex.png"), png).unwrap();
    let json = |lod: f64| {
        format!(
            r#"{{"v0": [0.125, 0.125, {lod}, 0.0],
                "textures": {{"t0": {{"png": "tex.png", "generate_mips": true}}}}}}"#
        )
    };
    let red = |line: &str| -> f64 {
        let o1 = line.split("o1=(").nth(1).expect("o1");
        o1.split(',').next().unwrap().parse().expect("number")
    };
    let out = run(SAMPLE, "png1.ir", &json(1.0)).expect("runs");
    assert!((red(&out[0]) - 1.0 / 6.0).abs() < 1e-6, "{}", out[0]);
    let out = run(SAMPLE, "png2.ir", &json(2.0)).expect("runs");
    assert!((red(&out[0]) - 0.5).abs() < 1e-6, "{}", out[0]);
    // A missing file and a bad level count are errors with the reason.
    let e = run(SAMPLE, "png3.ir", &json(0.0).replace("tex.png", "nope.png")).unwrap_err();
    assert!(e.contains("nope.png"), "{e}");
    let e = run(SAMPLE, "png4.ir", &json(0.0).replace("true", "9")).unwrap_err();
    assert!(e.contains("generate_mips"), "{e}");
}

#[test]
fn derivatives_of_interpolated_inputs_differ_per_lane() {
    // Lane (x, y): v0 = (1 + 0.5x, 2 + 0.25y, 3 + 2x − y, 0). ddx(v0.x) = 0.5,
    // ddy(v0.y) = 0.25, ddx_fine(v0.x·v0.y) = 1.5·2 − 2 = 1.0 (row 0) and
    // 1.5·2.25 − 2.25 = 1.125 (row 1), fwidth(v0.z) = 2 + 1 = 3.
    let json = r#"{"v0": [1.0, 2.0, 3.0, 0.0], "v0.ddx": [0.5, 0.0, 2.0, 0.0],
                   "v0.ddy": [0.0, 0.25, -1.0, 0.0]}"#;
    let out = run(DERIVATIVES, "deriv.ir", json).expect("runs");
    assert_eq!(
        out[..4],
        [
            "invocation 0: o0=(0.5,0.25,1.0,3.0)",
            "invocation 1: o0=(0.5,0.25,1.0,3.0)",
            "invocation 2: o0=(0.5,0.25,1.125,3.0)",
            "invocation 3: o0=(0.5,0.25,1.125,3.0)",
        ]
    );
    // Derivatives of a vertex shader input are an error, not silently ignored.
    let vs = DERIVATIVES.replace("Pixel", "Vertex");
    let e = run(&vs, "deriv_vs.ir", json).unwrap_err();
    assert!(e.contains("pixel"), "{e}");
}
