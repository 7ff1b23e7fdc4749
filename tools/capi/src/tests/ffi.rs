//! The C functions called from Rust: bad input of every kind gives an error (never a panic
//! or a crash), results match the Rust API, independent compilers run on several threads.

#![allow(unsafe_code, reason = "calls the C API the way C does")]

use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

use crate::*;

const PASS_THROUGH: &str = "%1 = EntryPoint %4 Pixel\n%2 = f32x4 DclInput %1 0 0 None\n\
    %3 = f32x4 DclOutput %1 0 0\n%4 = Function\n%5 = Label None\n\
    %6 = f32x4 InputLoad %2 null\n%7 = OutputStore %3 null %6\n%8 = Return\n%9 = FunctionEnd\n";

fn text(p: *const c_char) -> String {
    assert!(!p.is_null());
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
}

fn new_compiler(target: &str, options: &[&str]) -> Result<*mut IrcCompiler, String> {
    let target = std::ffi::CString::new(target).unwrap();
    let opts: Vec<std::ffi::CString> = options
        .iter()
        .map(|o| std::ffi::CString::new(*o).unwrap())
        .collect();
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut error: *mut c_char = null_mut();
    let c = unsafe { irc_compiler_new(target.as_ptr(), ptrs.as_ptr(), ptrs.len(), &mut error) };
    if c.is_null() {
        let msg = text(error);
        unsafe { irc_string_free(error) };
        Err(msg)
    } else {
        assert!(error.is_null());
        Ok(c)
    }
}

fn first_error(r: *const IrcResult) -> (i32, String) {
    unsafe {
        assert_eq!(irc_result_ok(r), 0);
        assert!(irc_result_error_count(r) >= 1);
        (irc_result_error_kind(r, 0), text(irc_result_error(r, 0)))
    }
}

#[test]
fn bad_input_is_an_error_never_a_crash() {
    assert!(new_compiler("no-such-gpu", &[])
        .unwrap_err()
        .contains("unknown target"));
    assert!(new_compiler("lima-fp", &["legacy-mul=fast"])
        .unwrap_err()
        .contains("`fast`"));
    assert!(new_compiler("lima-fp", &["no-such-option=1"])
        .unwrap_err()
        .contains("no option"));
    assert!(new_compiler("lima-fp", &["opt-level=9"])
        .unwrap_err()
        .contains("opt-level"));
    assert!(new_compiler("lima-fp", &["noequals"])
        .unwrap_err()
        .contains("key=value"));
    unsafe {
        assert!(irc_compiler_new(null(), null(), 0, null_mut()).is_null());
        assert!(irc_compiler_new(c"lima-fp".as_ptr(), null(), 2, null_mut()).is_null());
        let nulls = [null::<c_char>()];
        let mut e = null_mut();
        assert!(irc_compiler_new(c"lima-fp".as_ptr(), nulls.as_ptr(), 1, &mut e).is_null());
        assert!(text(e).contains("option 0 is NULL"));
        irc_string_free(e);
    }
    let c = new_compiler("lima-fp", &["opt-level=1"]).unwrap();
    unsafe {
        // Every prefix of a valid module is rejected cleanly.
        let whole = irc_ir::binary::write(&irc_ir::text::parse(PASS_THROUGH).unwrap()).unwrap();
        for n in 0..whole.len() {
            let r = irc_compile_binary(c, whole.as_ptr(), n);
            assert_eq!(first_error(r).0, IRC_KIND_INPUT, "prefix {n}");
            irc_result_free(r);
        }
        let r = irc_compile_binary(c, whole.as_ptr(), whole.len());
        assert_eq!(irc_result_ok(r), 1);
        irc_result_free(r);
        for r in [
            irc_compile_binary(c, null(), 4),
            irc_compile_binary(null_mut(), whole.as_ptr(), whole.len()),
            irc_compile_text(c, null(), 4),
            irc_compile_text(null_mut(), c"x".as_ptr(), 1),
            irc_compile_text(c, c"\xff\xfe".as_ptr(), 2),
            irc_compile_text(c, c"%1 = Bogus".as_ptr(), 10),
        ] {
            assert_eq!(first_error(r).0, IRC_KIND_INPUT);
            assert_eq!(irc_result_error_op(r, 0), -1);
            assert!(irc_result_error_opcode(r, 0).is_null());
            assert!(irc_result_error(r, 1).is_null());
            assert_eq!(irc_result_error_kind(r, 1), -1);
            let mut n = 7;
            assert!(irc_result_section(r, c"code".as_ptr(), &mut n).is_null());
            assert_eq!(n, 0);
            let mut stats = IrcStats::default();
            assert_eq!(irc_result_stats(r, &mut stats), -1);
            irc_result_free(r);
        }
        // Accessors on NULL results.
        let mut n = 5;
        assert_eq!(irc_result_ok(null()), 0);
        assert_eq!(irc_result_error_count(null()), 0);
        assert!(irc_result_section(null(), c"code".as_ptr(), &mut n).is_null());
        assert_eq!(n, 0);
        assert!(irc_result_container(null(), null_mut()).is_null());
        assert!(irc_result_disassembly(null()).is_null());
        assert!(irc_result_reflection_json(null()).is_null());
        assert_eq!(irc_shader_stage(null(), 3, 0), -1);
        assert_eq!(irc_shader_stage(b"junk".as_ptr(), 4, 1), -1);
        irc_result_free(null_mut());
        irc_compiler_free(c);
        irc_compiler_free(null_mut());
        irc_string_free(null_mut());
    }
}

#[test]
fn errors_pinned_to_an_op_carry_its_id_and_opcode() {
    // Integer multiply of two inputs: lima-fp has no exact mapping.
    let src = "%1 = EntryPoint %4 Pixel\n%2 = i32 DclInput %1 0 0 Flat\n\
        %3 = i32 DclOutput %1 0 0\n%4 = Function\n%5 = Label None\n\
        %6 = i32 InputLoad %2 null\n%7 = i32 IMul %6 %6\n%8 = OutputStore %3 null %7\n\
        %9 = Return\n%10 = FunctionEnd\n";
    let rust = irc_driver::compile(Input::Text(src), "lima-fp", &Options::default())
        .expect_err("lima-fp cannot compile this");
    let c = new_compiler("lima-fp", &[]).unwrap();
    unsafe {
        let r = irc_compile_text(c, src.as_ptr().cast(), src.len());
        assert_eq!(irc_result_error_count(r), rust.0.len());
        for (i, d) in rust.0.iter().enumerate() {
            assert_eq!(text(irc_result_error(r, i)), d.to_string());
            assert_eq!(irc_result_error_kind(r, i), kind_code(d.kind));
            match d.op {
                Some((def, opcode)) => {
                    assert_eq!(irc_result_error_op(r, i), i64::from(def.as_u32()));
                    assert_eq!(text(irc_result_error_opcode(r, i)), opcode.name());
                }
                None => assert_eq!(irc_result_error_op(r, i), -1),
            }
        }
        irc_result_free(r);
        irc_compiler_free(c);
    }
}

#[test]
fn results_equal_the_rust_api_and_threads_are_independent() {
    let mut options = Options::default();
    options.set("container", "1").unwrap();
    let expected = irc_driver::compile(Input::Text(PASS_THROUGH), "lima-fp", &options).unwrap();
    let json = irc_driver::reflection_json::to_json_string("lima-fp", &expected);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let expected = expected.clone();
            let json = json.clone();
            std::thread::spawn(move || {
                let c = new_compiler("lima-fp", &["container=1", "opt-level=2"]).unwrap();
                for _ in 0..10 {
                    unsafe {
                        let r =
                            irc_compile_text(c, PASS_THROUGH.as_ptr().cast(), PASS_THROUGH.len());
                        assert_eq!(irc_result_ok(r), 1);
                        assert_eq!(irc_result_error_count(r), 0);
                        let mut n = 0;
                        let code = irc_result_section(r, c"code".as_ptr(), &mut n);
                        assert_eq!(std::slice::from_raw_parts(code, n), expected.code());
                        assert_eq!(irc_result_section_count(r), expected.sections.len());
                        assert_eq!(text(irc_result_section_name(r, 0)), "code");
                        assert!(irc_result_section_name(r, 99).is_null());
                        let cont = irc_result_container(r, &mut n);
                        let want = expected.container.as_ref().unwrap();
                        assert_eq!(std::slice::from_raw_parts(cont, n), want.bytes.as_slice());
                        assert_eq!(text(irc_result_container_format(r)), want.format);
                        assert_eq!(text(irc_result_disassembly(r)), expected.disassembly);
                        assert_eq!(text(irc_result_reflection_json(r)), json);
                        let parsed: serde_json::Value =
                            serde_json::from_str(&text(irc_result_reflection_json(r))).unwrap();
                        assert_eq!(parsed["target_name"], "lima-fp");
                        let mut stats = IrcStats::default();
                        assert_eq!(irc_result_stats(r, &mut stats), 0);
                        assert_eq!(stats.code_bytes, expected.stats.code_bytes);
                        assert_eq!(stats.instructions, expected.stats.instructions);
                        irc_result_free(r);
                    }
                }
                unsafe { irc_compiler_free(c) };
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn targets_and_stages_are_listed() {
    assert_eq!(irc_target_count(), irc_driver::targets().len());
    for (i, t) in irc_driver::targets().iter().enumerate() {
        assert_eq!(text(irc_target_name(i)), t.name());
        for s in t.stages() {
            assert_eq!(irc_target_has_stage(i, s.0 as i32), 1);
        }
    }
    assert!(irc_target_name(irc_target_count()).is_null());
    assert_eq!(irc_target_has_stage(irc_target_count(), 1), 0);
    assert_eq!(
        unsafe { irc_shader_stage(PASS_THROUGH.as_ptr(), PASS_THROUGH.len(), 1) },
        irc_ir::ShaderStage::Pixel.0 as i32
    );
    assert_eq!(text(irc_version()), env!("CARGO_PKG_VERSION"));
}
