//! # irc's C API
//!
//! The functions declared in `include/irc.h`, for translation layers written in C and C++:
//! link `libirc.a` (plus `-lpthread -ldl -lm`) or `libirc.so`.
//!
//! ```c
//! char *error = NULL;
//! const char *options[] = { "opt-level=2", "legacy-mul=ieee" };
//! IrcCompiler *c = irc_compiler_new("lima-fp", options, 2, &error);
//! if (!c) { fprintf(stderr, "%s\n", error); irc_string_free(error); return; }
//! IrcResult *r = irc_compile_binary(c, bytes, size);
//! if (irc_result_ok(r)) {
//!     size_t n; const uint8_t *code = irc_result_section(r, "code", &n);
//!     upload(code, n, irc_result_reflection_json(r));
//! } else {
//!     for (size_t i = 0; i < irc_result_error_count(r); i++)
//!         fprintf(stderr, "%s\n", irc_result_error(r, i));
//! }
//! irc_result_free(r);
//! irc_compiler_free(c);
//! ```
//!
//! Rules every function keeps:
//!
//! * **No panic crosses the boundary.** Each function runs its body under `catch_unwind`; a
//!   panic becomes an error result (`IRC_KIND_INTERNAL`), or the documented "nothing" value
//!   (`NULL`, `0`, `-1`) for accessors.
//! * **Null pointers are errors, never crashes**, wherever the header says a pointer may be
//!   null; a null compiler or input gives an error result.
//! * **Threads**: there is no global mutable state. Independent compilers may be used from
//!   different threads at the same time; one compiler must not be used by two threads at once.
//!   A result is immutable and may be read from any thread.
//! * **Ownership**: `irc_compiler_new` and `irc_compile_*` return objects the caller frees
//!   with `irc_compiler_free` / `irc_result_free`; strings and bytes returned by result
//!   accessors belong to the result and live until it is freed; error strings returned through
//!   `char **error` are freed with `irc_string_free`.

use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe, UnwindSafe};

use irc_driver::{Compiler, Diagnostic, DiagnosticKind, Diagnostics, Input, Options, Output};

/// A compiler for one target with fixed options (opaque to C).
#[derive(Debug)]
pub struct IrcCompiler {
    inner: Compiler,
}

/// One diagnostic, prepared for C.
#[derive(Debug)]
struct CError {
    kind: c_int,
    op: i64,
    opcode: Option<CString>,
    message: CString,
}

/// The outcome of one compilation (opaque to C): code and friends, or errors.
#[derive(Debug)]
pub struct IrcResult {
    ok: bool,
    sections: Vec<(CString, Vec<u8>)>,
    container: Option<(CString, Vec<u8>)>,
    disassembly: CString,
    reflection_json: CString,
    stats: IrcStats,
    errors: Vec<CError>,
}

/// Figures about a compiled program (`irc_result_stats`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IrcStats {
    pub instructions: u32,
    pub code_bytes: u32,
    pub registers: u32,
    pub spills: u32,
    pub fills: u32,
    pub units_filled: u32,
    pub lower_bound: u32,
    pub ir_ops: u32,
}

/// `IRC_KIND_UNSUPPORTED`: the shader uses something the target cannot express.
pub const IRC_KIND_UNSUPPORTED: c_int = 0;
/// `IRC_KIND_LIMIT`: the program exceeds a hardware limit.
pub const IRC_KIND_LIMIT: c_int = 1;
/// `IRC_KIND_INPUT`: malformed input, a bad option or argument (including null pointers).
pub const IRC_KIND_INPUT: c_int = 2;
/// `IRC_KIND_INTERNAL`: a compiler bug, reported instead of crashing.
pub const IRC_KIND_INTERNAL: c_int = 3;

/// A string for C: interior NULs (never produced by irc's texts) are replaced.
fn cstring(s: impl Into<String>) -> CString {
    let s: String = s.into();
    CString::new(s.replace('\0', "\u{fffd}")).unwrap_or_default()
}

fn kind_code(k: DiagnosticKind) -> c_int {
    match k {
        DiagnosticKind::Unsupported => IRC_KIND_UNSUPPORTED,
        DiagnosticKind::Limit => IRC_KIND_LIMIT,
        DiagnosticKind::Input => IRC_KIND_INPUT,
        DiagnosticKind::Internal => IRC_KIND_INTERNAL,
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

impl IrcResult {
    fn failure(d: &Diagnostics) -> IrcResult {
        IrcResult {
            ok: false,
            sections: Vec::new(),
            container: None,
            disassembly: CString::default(),
            reflection_json: CString::default(),
            stats: IrcStats::default(),
            errors: d
                .0
                .iter()
                .map(|d| CError {
                    kind: kind_code(d.kind),
                    op: d.op.map_or(-1, |(def, _)| i64::from(def.as_u32())),
                    opcode: d.op.map(|(_, opcode)| cstring(opcode.name())),
                    message: cstring(d.to_string()),
                })
                .collect(),
        }
    }

    fn input_error(message: &str) -> IrcResult {
        IrcResult::failure(&Diagnostic::input(message).into())
    }

    fn success(target: &str, out: &Output) -> IrcResult {
        let s = &out.stats;
        IrcResult {
            ok: true,
            sections: out
                .sections
                .iter()
                .map(|sec| (cstring(sec.name), sec.bytes.clone()))
                .collect(),
            container: out
                .container
                .as_ref()
                .map(|c| (cstring(c.format), c.bytes.clone())),
            disassembly: cstring(out.disassembly.clone()),
            reflection_json: cstring(irc_driver::reflection_json::to_json_string(target, out)),
            stats: IrcStats {
                instructions: s.instructions,
                code_bytes: s.code_bytes,
                registers: s.registers,
                spills: s.spills,
                fills: s.fills,
                units_filled: s.units_filled,
                lower_bound: s.lower_bound,
                ir_ops: s.ir_ops,
            },
            errors: Vec::new(),
        }
    }

    fn boxed(self) -> *mut IrcResult {
        Box::into_raw(Box::new(self))
    }
}

/// Runs `f`; a panic gives `fallback` instead of unwinding into C.
fn guard<T>(fallback: impl FnOnce(String) -> T, f: impl FnOnce() -> T + UnwindSafe) -> T {
    catch_unwind(f).unwrap_or_else(|p| fallback(panic_text(&*p)))
}

/// A result for a panic.
fn panicked(what: String) -> *mut IrcResult {
    IrcResult::failure(&Diagnostic::internal(None, format!("the compiler panicked: {what}")).into())
        .boxed()
}

/// `ptr` as a C string, or `None` for null or non-UTF-8.
///
/// Safety: `ptr` is null or points to a NUL-terminated string that outlives `'a`.
#[allow(unsafe_code, reason = "reads a caller-provided C string")]
unsafe fn str_arg<'a>(ptr: *const c_char) -> Option<&'a str> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null, NUL-terminated per the caller's contract.
    unsafe { CStr::from_ptr(ptr) }.to_str().ok()
}

/// `len` bytes at `ptr` (empty for `len == 0`), or `None` for a null `ptr` with `len > 0`.
///
/// Safety: `ptr` is null or points to `len` readable bytes that outlive `'a`.
#[allow(unsafe_code, reason = "reads a caller-provided byte buffer")]
unsafe fn bytes_arg<'a>(ptr: *const u8, len: usize) -> Option<&'a [u8]> {
    if len == 0 {
        return Some(&[]);
    }
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null and `len` readable bytes per the caller's contract.
    Some(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Stores `message` in `*error` when `error` is not null.
///
/// Safety: `error` is null or points to a writable `char *`.
#[allow(unsafe_code, reason = "writes a caller-provided out pointer")]
unsafe fn set_error(error: *mut *mut c_char, message: &str) {
    if !error.is_null() {
        // SAFETY: non-null and writable per the caller's contract.
        unsafe { *error = cstring(message).into_raw() };
    }
}

/// The version of irc, e.g. `"0.1.0"` (static; never freed).
#[no_mangle]
#[allow(unsafe_code, reason = "exported to C under its own name")]
pub extern "C" fn irc_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The number of registered targets.
#[no_mangle]
#[allow(unsafe_code, reason = "exported to C under its own name")]
pub extern "C" fn irc_target_count() -> usize {
    guard(|_| 0, || irc_driver::targets().len())
}

/// The name of target `index` (static; NULL when out of range).
#[no_mangle]
#[allow(unsafe_code, reason = "exported to C under its own name")]
pub extern "C" fn irc_target_name(index: usize) -> *const c_char {
    guard(
        |_| std::ptr::null(),
        || {
            use std::sync::OnceLock;
            static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
            let names = NAMES.get_or_init(|| {
                irc_driver::targets()
                    .iter()
                    .map(|t| cstring(t.name()))
                    .collect()
            });
            names.get(index).map_or(std::ptr::null(), |n| n.as_ptr())
        },
    )
}

/// 1 if target `index` compiles shaders of `stage` (an `IRC_STAGE_*` value), else 0.
#[no_mangle]
#[allow(unsafe_code, reason = "exported to C under its own name")]
pub extern "C" fn irc_target_has_stage(index: usize, stage: i32) -> c_int {
    guard(
        |_| 0,
        || {
            irc_driver::targets().get(index).map_or(0, |t| {
                c_int::from(
                    t.stages()
                        .iter()
                        .any(|s| i64::from(s.0) == i64::from(stage)),
                )
            })
        },
    )
}

/// The stage (`IRC_STAGE_*`) of a shader's entry point; `text` nonzero for the `.ir` text
/// format. -1 for unreadable input, a null `data` with `size > 0`, or no entry point.
///
/// # Safety
///
/// `data` is null or points to `size` readable bytes.
#[no_mangle]
#[allow(unsafe_code, reason = "exported to C; reads a caller-provided buffer")]
pub unsafe extern "C" fn irc_shader_stage(data: *const u8, size: usize, text: c_int) -> i32 {
    // SAFETY: the caller's contract above.
    let Some(bytes) = (unsafe { bytes_arg(data, size) }) else {
        return -1;
    };
    guard(
        |_| -1,
        || {
            let input = if text != 0 {
                match std::str::from_utf8(bytes) {
                    Ok(t) => Input::Text(t),
                    Err(_) => return -1,
                }
            } else {
                Input::Binary(bytes)
            };
            irc_driver::shader_stage(input).map_or(-1, |s| i32::try_from(s.0).unwrap_or(-1))
        },
    )
}

/// Creates a compiler for `target` with `option_count` options, each a `"key=value"` string:
/// `opt-level=0|1|2`, `container=0|1`, or a target option (`irc targets` lists them).
/// Returns NULL on error and, when `error` is not null, stores a message in `*error` (free it
/// with `irc_string_free`). `options` may be null when `option_count` is 0.
///
/// # Safety
///
/// `target` is null or a NUL-terminated string; `options` is null or points to `option_count`
/// pointers, each null or a NUL-terminated string; `error` is null or writable.
#[no_mangle]
#[allow(unsafe_code, reason = "exported to C; reads caller-provided strings")]
pub unsafe extern "C" fn irc_compiler_new(
    target: *const c_char,
    options: *const *const c_char,
    option_count: usize,
    error: *mut *mut c_char,
) -> *mut IrcCompiler {
    // SAFETY: the caller's contract above.
    let target = unsafe { str_arg(target) };
    let mut pairs: Vec<Option<&str>> = Vec::with_capacity(option_count);
    if option_count > 0 {
        if options.is_null() {
            // SAFETY: the caller's contract above.
            unsafe {
                set_error(
                    error,
                    "irc_compiler_new: options is NULL but option_count > 0",
                )
            };
            return std::ptr::null_mut();
        }
        // SAFETY: `options` points to `option_count` pointers per the contract.
        let list = unsafe { std::slice::from_raw_parts(options, option_count) };
        // SAFETY: each is null or a NUL-terminated string per the contract.
        pairs.extend(list.iter().map(|&p| unsafe { str_arg(p) }));
    }
    let made = guard(
        |p| Err(format!("the compiler panicked: {p}")),
        AssertUnwindSafe(|| {
            let target = target.ok_or("irc_compiler_new: target is NULL or not UTF-8")?;
            let mut opts = Options::default();
            for (i, pair) in pairs.iter().enumerate() {
                let pair =
                    pair.ok_or(format!("irc_compiler_new: option {i} is NULL or not UTF-8"))?;
                let (k, v) = pair
                    .split_once('=')
                    .ok_or(format!("option `{pair}`: expected key=value"))?;
                opts.set(k.trim(), v.trim()).map_err(|d| d.to_string())?;
            }
            Compiler::new(target, opts)
                .map(|inner| Box::into_raw(Box::new(IrcCompiler { inner })))
                .map_err(|d| d.to_string())
        }),
    );
    match made {
        Ok(c) => c,
        Err(msg) => {
            // SAFETY: the caller's contract above.
            unsafe { set_error(error, &msg) };
            std::ptr::null_mut()
        }
    }
}

/// Frees a compiler (NULL is ignored).
///
/// # Safety
///
/// `compiler` is null or came from `irc_compiler_new` and was not freed yet.
#[no_mangle]
#[allow(
    unsafe_code,
    reason = "exported to C; takes back ownership of a compiler"
)]
pub unsafe extern "C" fn irc_compiler_free(compiler: *mut IrcCompiler) {
    if !compiler.is_null() {
        // SAFETY: allocated by `irc_compiler_new` with `Box`, freed once per the contract.
        let c = unsafe { Box::from_raw(compiler) };
        let _ = catch_unwind(AssertUnwindSafe(move || drop(c)));
    }
}

fn compile_with(compiler: &mut IrcCompiler, input: Input<'_>) -> *mut IrcResult {
    let target = compiler.inner.target().name();
    guard(
        panicked,
        AssertUnwindSafe(|| match compiler.inner.compile(input) {
            Ok(out) => IrcResult::success(target, &out).boxed(),
            Err(d) => IrcResult::failure(&d).boxed(),
        }),
    )
}

/// Compiles a shader in the binary `.dxir` format (`size` bytes at `data`). Never returns
/// NULL: check `irc_result_ok`. A null `compiler`, or a null `data` with `size > 0`, gives an
/// `IRC_KIND_INPUT` error.
///
/// # Safety
///
/// `compiler` is null or a live compiler not used by another thread meanwhile; `data` is null
/// or points to `size` readable bytes.
#[no_mangle]
#[allow(unsafe_code, reason = "exported to C; reads caller-provided pointers")]
pub unsafe extern "C" fn irc_compile_binary(
    compiler: *mut IrcCompiler,
    data: *const u8,
    size: usize,
) -> *mut IrcResult {
    // SAFETY: null or a live, exclusively used compiler per the contract.
    let Some(compiler) = (unsafe { compiler.as_mut() }) else {
        return IrcResult::input_error("irc_compile_binary: compiler is NULL").boxed();
    };
    // SAFETY: the caller's contract above.
    let Some(bytes) = (unsafe { bytes_arg(data, size) }) else {
        return IrcResult::input_error("irc_compile_binary: data is NULL").boxed();
    };
    compile_with(compiler, Input::Binary(bytes))
}

/// Compiles a shader in the `.ir` text format (`size` bytes of UTF-8 at `text`, no NUL
/// needed). Never returns NULL; null pointers and invalid UTF-8 give `IRC_KIND_INPUT` errors.
///
/// # Safety
///
/// As `irc_compile_binary`.
#[no_mangle]
#[allow(unsafe_code, reason = "exported to C; reads caller-provided pointers")]
pub unsafe extern "C" fn irc_compile_text(
    compiler: *mut IrcCompiler,
    text: *const c_char,
    size: usize,
) -> *mut IrcResult {
    // SAFETY: null or a live, exclusively used compiler per the contract.
    let Some(compiler) = (unsafe { compiler.as_mut() }) else {
        return IrcResult::input_error("irc_compile_text: compiler is NULL").boxed();
    };
    // SAFETY: the caller's contract above.
    let Some(bytes) = (unsafe { bytes_arg(text.cast(), size) }) else {
        return IrcResult::input_error("irc_compile_text: text is NULL").boxed();
    };
    match std::str::from_utf8(bytes) {
        Ok(t) => compile_with(compiler, Input::Text(t)),
        Err(e) => IrcResult::input_error(&format!(
            "irc_compile_text: not UTF-8 at byte {}",
            e.valid_up_to()
        ))
        .boxed(),
    }
}

/// Frees a result (NULL is ignored); every pointer obtained from it becomes invalid.
///
/// # Safety
///
/// `result` is null or came from `irc_compile_*` and was not freed yet.
#[no_mangle]
#[allow(
    unsafe_code,
    reason = "exported to C; takes back ownership of a result"
)]
pub unsafe extern "C" fn irc_result_free(result: *mut IrcResult) {
    if !result.is_null() {
        // SAFETY: allocated by `IrcResult::boxed`, freed once per the contract.
        drop(unsafe { Box::from_raw(result) });
    }
}

/// Frees a string returned through a `char **error` argument (NULL is ignored).
///
/// # Safety
///
/// `s` is null or came from irc and was not freed yet.
#[no_mangle]
#[allow(
    unsafe_code,
    reason = "exported to C; takes back ownership of a string"
)]
pub unsafe extern "C" fn irc_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: made by `CString::into_raw`, freed once per the contract.
        drop(unsafe { CString::from_raw(s) });
    }
}

/// The result behind `r`, if not null.
///
/// Safety: `r` is null or a live result.
#[allow(unsafe_code, reason = "reads a caller-provided result pointer")]
unsafe fn result<'a>(r: *const IrcResult) -> Option<&'a IrcResult> {
    // SAFETY: null or live per the caller's contract.
    unsafe { r.as_ref() }
}

macro_rules! accessor {
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty = $none:expr, |$r:ident| $body:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// `result` is null or a live result from `irc_compile_*`; pointer arguments are null
        /// or valid for what they are documented to hold.
        #[no_mangle]
        #[allow(unsafe_code, reason = "exported to C; reads a caller-provided result")]
        pub unsafe extern "C" fn $name(result: *const IrcResult $(, $arg: $ty)*) -> $ret {
            // SAFETY: the caller's contract above.
            let Some($r) = (unsafe { self::result(result) }) else {
                return $none;
            };
            $body
        }
    };
}

accessor! {
    /// 1 if the compilation succeeded, 0 if it failed (or `result` is NULL).
    fn irc_result_ok() -> c_int = 0, |r| c_int::from(r.ok)
}

accessor! {
    /// The number of errors (0 on success; at least 1 on failure).
    fn irc_result_error_count() -> usize = 0, |r| r.errors.len()
}

accessor! {
    /// Error `index` as one line with its location: `%12 (IMul): unsupported: …`, or
    /// `invalid input: byte 0x1c (op 3, FAdd): …`. NULL when out of range.
    fn irc_result_error(index: usize) -> *const c_char = std::ptr::null(),
        |r| r.errors.get(index).map_or(std::ptr::null(), |e| e.message.as_ptr())
}

accessor! {
    /// The kind (`IRC_KIND_*`) of error `index`; -1 when out of range.
    fn irc_result_error_kind(index: usize) -> c_int = -1,
        |r| r.errors.get(index).map_or(-1, |e| e.kind)
}

accessor! {
    /// The IR op id (`%N`) error `index` is pinned to; -1 when it names no op or is out of
    /// range.
    fn irc_result_error_op(index: usize) -> i64 = -1,
        |r| r.errors.get(index).map_or(-1, |e| e.op)
}

accessor! {
    /// The opcode name (`IMul`) of the op error `index` is pinned to; NULL when none.
    fn irc_result_error_opcode(index: usize) -> *const c_char = std::ptr::null(),
        |r| r.errors.get(index).and_then(|e| e.opcode.as_ref()).map_or(std::ptr::null(), |o| o.as_ptr())
}

accessor! {
    /// The number of code sections (0 on failure).
    fn irc_result_section_count() -> usize = 0, |r| r.sections.len()
}

accessor! {
    /// The name of section `index` (`"code"` first); NULL when out of range.
    fn irc_result_section_name(index: usize) -> *const c_char = std::ptr::null(),
        |r| r.sections.get(index).map_or(std::ptr::null(), |s| s.0.as_ptr())
}

accessor! {
    /// The bytes of the section named `name` (`"code"`), their count in `*size` (when `size`
    /// is not null). NULL (and 0) when there is no such section or `name` is NULL.
    fn irc_result_section(name: *const c_char, size: *mut usize) -> *const u8 = {
        // SAFETY: `size` is null or writable per the contract.
        if let Some(s) = unsafe { size.as_mut() } { *s = 0; }
        std::ptr::null()
    }, |r| {
        // SAFETY: `name` is null or a NUL-terminated string per the contract.
        let name = unsafe { str_arg(name) };
        let found = name.and_then(|n| r.sections.iter().find(|s| s.0.to_str() == Ok(n)));
        // SAFETY: `size` is null or writable per the contract.
        if let Some(s) = unsafe { size.as_mut() } {
            *s = found.map_or(0, |f| f.1.len());
        }
        found.map_or(std::ptr::null(), |f| f.1.as_ptr())
    }
}

accessor! {
    /// The container file (`container=1` option; lima-fp: MBS1), its size in `*size`. NULL
    /// (and 0) when there is none.
    fn irc_result_container(size: *mut usize) -> *const u8 = {
        // SAFETY: `size` is null or writable per the contract.
        if let Some(s) = unsafe { size.as_mut() } { *s = 0; }
        std::ptr::null()
    }, |r| {
        // SAFETY: `size` is null or writable per the contract.
        if let Some(s) = unsafe { size.as_mut() } {
            *s = r.container.as_ref().map_or(0, |c| c.1.len());
        }
        r.container.as_ref().map_or(std::ptr::null(), |c| c.1.as_ptr())
    }
}

accessor! {
    /// The container format's name (`"mbs1"`); NULL when there is no container.
    fn irc_result_container_format() -> *const c_char = std::ptr::null(),
        |r| r.container.as_ref().map_or(std::ptr::null(), |c| c.0.as_ptr())
}

accessor! {
    /// The disassembly of the code ("" on failure).
    fn irc_result_disassembly() -> *const c_char = std::ptr::null(),
        |r| r.disassembly.as_ptr()
}

accessor! {
    /// The reflection as a JSON document (docs/reflection.md; "" on failure).
    fn irc_result_reflection_json() -> *const c_char = std::ptr::null(),
        |r| r.reflection_json.as_ptr()
}

accessor! {
    /// Copies the statistics into `*out`; returns 0, or -1 when `result` or `out` is NULL or
    /// the compilation failed.
    fn irc_result_stats(out: *mut IrcStats) -> c_int = -1, |r| {
        // SAFETY: `out` is null or writable per the contract.
        match unsafe { out.as_mut() } {
            Some(o) if r.ok => { *o = r.stats; 0 }
            _ => -1,
        }
    }
}

#[cfg(test)]
mod tests;
