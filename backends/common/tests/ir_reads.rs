//! `ir_reads`: constant lanes and descriptor bindings, checked against values worked out by
//! hand from the IR text.

use irc_backend::ir_reads::{constant_lanes, descriptor_binding, sample_shape};
use irc_backend::{ResourceBinding, SamplerKind};
use irc_ir::text::parse;
use irc_ir::{Module, OpCode, SsaDef};

const SRC: &str = "\
%1 = EntryPoint %20 Pixel
%2 = f32x4 Constant 0.5 -0.0 inf 2
%3 = {f16,f64,bool} Constant 65504 0.1 1
%4 = i32x2 Constant -3 7
%5 = u32 Constant 4294967295
%6 = f32x3 Undef
%7 = f32[100] Undef
%8 = f32 DclSrv %1 1 3 4 Image2D
%9 = u32 Constant 2
%11 = f32 DclSampler %1 0 0 1
%14 = u32 Undef
%20 = Function
%21 = Label None
%10 = srv DescriptorLoad %8 %9
%12 = sampler DescriptorLoad %11 %9
%13 = srv DescriptorLoad %8 %14
%22 = Return
";

/// The def of text id `%n` (ops are numbered in text order).
fn def(m: &Module, n: u32) -> SsaDef {
    let at = SRC
        .lines()
        .position(|l| l.starts_with(&format!("%{n} =")))
        .expect("id in SRC");
    m.iter().nth(at).expect("def")
}

fn values(m: &Module, n: u32, max: u64) -> Result<Vec<f32>, String> {
    constant_lanes(m, def(m, n), max).map(|l| l.iter().map(|x| x.value).collect())
}

#[test]
fn constant_lanes_read_every_scalar_type_as_a_float() {
    let m = parse(SRC).expect("parse");
    let v = values(&m, 2, 64).unwrap();
    assert_eq!(v[0], 0.5);
    assert!(v[1] == 0.0 && v[1].is_sign_negative());
    assert_eq!(v[2], f32::INFINITY);
    assert_eq!(v[3], 2.0);
    // f16 65504 is exact, f64 0.1 rounds to the nearest f32, bool true is 1.
    assert_eq!(values(&m, 3, 64).unwrap(), vec![65504.0, 0.1f32, 1.0]);
    assert_eq!(values(&m, 4, 64).unwrap(), vec![-3.0, 7.0]);
    assert_eq!(values(&m, 5, 64).unwrap(), vec![4294967295u32 as f32]);
    assert_eq!(values(&m, 6, 64).unwrap(), vec![0.0; 3]);
}

#[test]
fn constant_lanes_refuse_more_lanes_than_allowed() {
    let m = parse(SRC).expect("parse");
    let e = values(&m, 7, 64).unwrap_err();
    assert!(e.contains("wider than 64"), "{e}");
    assert_eq!(values(&m, 7, 100).unwrap().len(), 100);
}

#[test]
fn descriptor_binding_adds_the_constant_index_to_the_register() {
    let m = parse(SRC).expect("parse");
    let (b, decl) = descriptor_binding(&m, def(&m, 10), OpCode::DclSrv).unwrap();
    assert_eq!(
        b,
        ResourceBinding {
            space: 1,
            register: 5
        }
    );
    assert_eq!(decl, def(&m, 8));
    assert_eq!(
        descriptor_binding(&m, def(&m, 12), OpCode::DclSrv).unwrap_err(),
        "unexpected descriptor kind"
    );
    assert_eq!(
        descriptor_binding(&m, def(&m, 13), OpCode::DclSrv).unwrap_err(),
        "dynamically indexed descriptor"
    );
    assert_eq!(
        descriptor_binding(&m, def(&m, 9), OpCode::DclSrv).unwrap_err(),
        "resource not from a descriptor load"
    );
}

const SAMPLES: &str = "\
%1 = EntryPoint %20 Pixel
%2 = f32 DclSrv %1 0 2 1 Image2D
%3 = f32 DclSrv %1 0 5 1 ImageCube
%4 = f32 DclSrv %1 0 6 1 Image3D
%5 = DclSampler %1 0 1 1
%6 = u32 Constant 0
%7 = f32x2 Constant 0.5 0.5
%8 = f32x3 Constant 0.5 0.5 0.5
%9 = f32 Constant 1.0
%20 = Function
%21 = Label None
%30 = srv DescriptorLoad %2 %6
%31 = srv DescriptorLoad %3 %6
%32 = srv DescriptorLoad %4 %6
%33 = sampler DescriptorLoad %5 %6
%40 = f32x4 ImageSample %30 %33 null %7 null null null null null null null
%41 = f32x4 ImageSample %31 %33 null %8 null null null null null null null
%42 = f32x4 ImageSample %32 %33 null %8 null null null null null null null
%43 = f32x4 ImageSample %30 %33 null %7 null null null %9 null null null
%44 = f32x4 ImageSample %30 %33 null %7 null null null null null null %9
%50 = Return
%51 = FunctionEnd
";

fn sample_def(m: &Module, n: u32) -> SsaDef {
    let at = SAMPLES
        .lines()
        .position(|l| l.starts_with(&format!("%{n} =")))
        .expect("id in SAMPLES");
    m.iter().nth(at).expect("def")
}

#[test]
fn sample_shape_reads_bindings_kind_and_refuses_unsupported_operands() {
    let m = parse(SAMPLES).expect("parse");
    let s = sample_shape(&m, sample_def(&m, 40)).unwrap();
    assert_eq!(
        s.texture,
        ResourceBinding {
            space: 0,
            register: 2
        }
    );
    assert_eq!(
        s.sampler,
        ResourceBinding {
            space: 0,
            register: 1
        }
    );
    assert_eq!((s.kind, s.coords), (SamplerKind::D2, 2));
    assert_eq!(s.texture_decl, sample_def(&m, 2));
    let c = sample_shape(&m, sample_def(&m, 41)).unwrap();
    assert_eq!(
        (c.kind, c.coords, c.texture.register),
        (SamplerKind::Cube, 3, 5)
    );
    assert_eq!(
        sample_shape(&m, sample_def(&m, 42)).unwrap_err(),
        "sampling Image3D images"
    );
    assert_eq!(
        sample_shape(&m, sample_def(&m, 43)).unwrap_err(),
        "sampling with LOD clamp"
    );
    assert_eq!(
        sample_shape(&m, sample_def(&m, 44)).unwrap_err(),
        "sampling with depth comparison"
    );
}
