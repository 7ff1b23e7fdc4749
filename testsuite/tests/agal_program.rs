//! An AGAL program: a vertex and a fragment program compiled together (`compile_program`,
//! family `agal`) get one AGAL version (the runtime rejects a pair whose versions differ,
//! #3757). The vertex shader alone fits AGAL 1; the pixel shader samples a texture in a
//! conditional arm, which only AGAL 2's `ine … els … eif` can run: both must come out AGAL 2,
//! and the pair must pass the validator's pair rules (versions, varyings written).

use irc::{program::compile_program, Input, Options};
use irc_agal::validate::{validate_pair, ValidateOptions};
use irc_backend::{Output, CODE};

/// Position = attribute 0; location 0 = attribute 1.
const VS: &str = "\
%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclInput %1 1 0 None
%6 = f32x4 DclOutputBuiltIn %1 Position
%7 = f32x4 DclOutput %1 0 0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32x4 InputLoad %3 null
  %24 = OutputStore %6 null %22
  %25 = OutputStore %7 null %23
  %26 = Return
%27 = FunctionEnd
";

/// `c = v.x < 0.5 ? tex(v.xy) * 2 : v`.
const PS: &str = "\
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%5 = f32x4 DclOutput %1 0 0
%7 = f32 DclSrv %1 0 0 1 Image2D
%8 = DclSampler %1 0 0 1
%9 = u32 Constant 0
%10 = u32 Constant 1
%12 = f32 Constant 0.5
%13 = f32 Constant 2

%20 = Function
%21 = Label %30 StructuredSelection
  %22 = f32x4 InputLoad %2 null
  %23 = f32 CompositeExtract %22 %9
  %24 = bool FLt %23 %12
  %25 = BranchConditional %24 %26 %30
%26 = Label None
  %31 = f32 CompositeExtract %22 %10
  %44 = f32x2 CompositeConstruct %23 %31
  %32 = srv DescriptorLoad %7 %9
  %33 = sampler DescriptorLoad %8 %9
  %34 = f32x4 ImageSample %32 %33 null %44 null null null null null null null
  %35 = f32x4 CompositeConstruct %13 %13 %13 %13
  %36 = f32x4 FMul %34 %35
  %37 = Branch %30
%30 = Label None
  %40 = f32x4 Phi %21 %22 %26 %36
  %41 = OutputStore %5 null %40
  %42 = Return
%43 = FunctionEnd
";

fn version(o: &Output) -> u32 {
    let code = &o.sections.iter().find(|s| s.name == CODE).unwrap().bytes;
    u32::from_le_bytes(code[1..5].try_into().unwrap())
}

fn code(o: &Output) -> &[u8] {
    &o.sections.iter().find(|s| s.name == CODE).unwrap().bytes
}

#[test]
fn both_programs_get_the_higher_version() {
    let alone = |text, target| irc::compile(Input::Text(text), target, &Options::default());
    let vs = alone(VS, "agal-vp").expect("the vertex shader compiles");
    let ps = alone(PS, "agal-fp").expect("the pixel shader compiles");
    assert_eq!(version(&vs), 1, "alone, the vertex program fits AGAL 1");
    assert_eq!(version(&ps), 2, "the sample in an arm needs AGAL 2");
    // `if (v0.x < 0.5)` compares in the conditional itself.
    assert!(ps.disassembly.contains("ifl v0.x, "), "{}", ps.disassembly);
    assert!(validate_pair(code(&vs), code(&ps), &ValidateOptions::default()).is_err());

    let prog = compile_program(
        vec![Input::Text(PS), Input::Text(VS)],
        "agal",
        &Options::default(),
    )
    .expect("the program compiles");
    let (v, f) = (&prog.stages[0].output, &prog.stages[1].output);
    assert_eq!(prog.stages[0].target, "agal-vp");
    assert_eq!((version(v), version(f)), (2, 2));
    let (vi, fi) = validate_pair(code(v), code(f), &ValidateOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n{}\n{}", v.disassembly, f.disassembly));
    assert_eq!((vi.version, fi.version), (2, 2));
}

#[test]
fn an_explicit_version_applies_to_both() {
    let mut o = Options::default();
    o.backend.set("agal-version", "3");
    let prog = compile_program(vec![Input::Text(VS), Input::Text(PS)], "agal", &o)
        .expect("the program compiles");
    let versions: Vec<u32> = prog.stages.iter().map(|s| version(&s.output)).collect();
    assert_eq!(versions, vec![3, 3]);
}
