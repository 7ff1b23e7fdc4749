//! Deeply nested control flow and huge constant arrays through the readers and the whole
//! pipeline of every target: each finishes with a result or a clear error, never a stack
//! overflow. Test threads have 2 MiB stacks (less than a host's main thread), so a recursion
//! as deep as the nesting would overflow here first. Nesting beyond
//! `irc_ir::limits::MAX_NESTING` is a `Limit` error for every target, in raw and in legalized
//! IR.

use std::fmt::Write;

use irc_ir::limits::{nesting_over, MAX_NESTING};

/// A pixel shader with `depth` nested `ScopedIf`s, each storing the input to the output.
fn nested_ifs(depth: usize) -> String {
    let mut s = String::new();
    s.push_str("%1 = EntryPoint %10 Pixel\n");
    s.push_str("%2 = f32x4 DclInput %1 0 0 None\n");
    s.push_str("%3 = f32x4 DclOutput %1 0 0\n");
    s.push_str("%4 = f32 Constant 0.0\n");
    s.push_str("%5 = u32 Constant 0\n");
    s.push_str("%10 = Function\n");
    s.push_str("%11 = f32x4 InputLoad %2 null\n");
    s.push_str("%12 = f32 CompositeExtract %11 %5\n");
    s.push_str("%13 = bool FLt %4 %12\n");
    let base = 100;
    for k in 0..depth {
        let open = base + 3 * k;
        let close = base + 3 * (2 * depth - k) + 1;
        writeln!(s, "%{open} = ScopedIf %{close} %13").unwrap();
        writeln!(s, "%{} = OutputStore %3 null %11", open + 1).unwrap();
    }
    for k in (0..depth).rev() {
        let open = base + 3 * k;
        let close = base + 3 * (2 * depth - k) + 1;
        writeln!(s, "%{close} = ScopedEndIf %{open}").unwrap();
    }
    s.push_str("%20 = Return\n%21 = FunctionEnd\n");
    s
}

/// A pixel shader with `depth` nested `ScopedLoop`s, each breaking out after storing.
fn nested_loops(depth: usize) -> String {
    let mut s = String::new();
    s.push_str("%1 = EntryPoint %10 Pixel\n");
    s.push_str("%2 = f32x4 DclInput %1 0 0 None\n");
    s.push_str("%3 = f32x4 DclOutput %1 0 0\n");
    s.push_str("%10 = Function\n");
    s.push_str("%11 = f32x4 InputLoad %2 null\n");
    let base = 100;
    for k in 0..depth {
        let open = base + 3 * k;
        let close = base + 3 * (2 * depth - k) + 1;
        writeln!(s, "%{open} = ScopedLoop %{close}").unwrap();
        writeln!(s, "%{} = OutputStore %3 null %11", open + 1).unwrap();
    }
    for k in (0..depth).rev() {
        let open = base + 3 * k;
        let close = base + 3 * (2 * depth - k) + 1;
        writeln!(s, "%{} = ScopedLoopBreak %{open}", close - 1).unwrap();
        writeln!(s, "%{close} = ScopedEndLoop %{open}").unwrap();
    }
    s.push_str("%20 = Return\n%21 = FunctionEnd\n");
    s
}

/// A pixel shader reading element 7 of a constant array of `len` vec4s.
fn huge_constant_array(len: usize) -> String {
    let mut s = String::new();
    s.push_str("%1 = EntryPoint %10 Pixel\n");
    s.push_str("%3 = f32x4 DclOutput %1 0 0\n");
    write!(s, "%4 = f32x4[{len}] Constant").unwrap();
    for i in 0..len * 4 {
        write!(s, " {}", i % 97).unwrap();
    }
    s.push_str("\n%5 = u32 Constant 7\n");
    s.push_str("%10 = Function\n");
    s.push_str("%11 = f32x4 CompositeExtract %4 %5\n");
    s.push_str("%12 = OutputStore %3 null %11\n");
    s.push_str("%20 = Return\n%21 = FunctionEnd\n");
    s
}

/// Parses, verifies and compiles `src` for every target, accepting any result but a panic or
/// an internal error; with `over_limit`, every target must refuse it with the nesting limit.
fn compile_everywhere(what: &str, src: &str, over_limit: bool) {
    let m = match irc_ir::text::parse(src) {
        Ok(m) => m,
        Err(e) => panic!("{what}: the test's own IR does not parse: {e}"),
    };
    if let Err(e) = irc_ir::verifier::verify(&m) {
        panic!("{what}: the test's own IR does not verify: {e:?}");
    }
    let bytes = irc_ir::binary::write(&m).expect("writes");
    let back = irc_ir::binary::read(&bytes).expect("reads back");
    assert_eq!(
        back.iter().count(),
        m.iter().count(),
        "{what}: binary round trip"
    );
    for &target in irc::Registry::builtin().targets() {
        let t = std::time::Instant::now();
        let r = irc::compile_for(
            irc::Input::Module(m.clone()),
            target,
            &irc::Options::default(),
        );
        if over_limit {
            let d = r.expect_err(what);
            assert!(
                d.0.iter()
                    .any(|d| d.kind == irc_backend::DiagnosticKind::Limit
                        && d.message.contains("nested")
                        && d.op.is_some()),
                "{what} on {}: {d}",
                target.name()
            );
        } else if let Err(d) = r {
            assert!(
                d.0.iter()
                    .all(|d| d.kind != irc_backend::DiagnosticKind::Internal),
                "{what} on {}: {d}",
                target.name()
            );
        }
        eprintln!("{what} on {}: {:?}", target.name(), t.elapsed());
    }
}

#[test]
fn deeply_nested_ifs_compile_or_fail_cleanly() {
    for depth in [64, MAX_NESTING, MAX_NESTING + 1, 100_000] {
        let src = nested_ifs(depth);
        compile_everywhere(&format!("{depth} nested ifs"), &src, depth > MAX_NESTING);
    }
}

#[test]
fn deeply_nested_loops_compile_or_fail_cleanly() {
    for depth in [64, MAX_NESTING, MAX_NESTING + 1, 100_000] {
        let src = nested_loops(depth);
        compile_everywhere(&format!("{depth} nested loops"), &src, depth > MAX_NESTING);
    }
}

#[test]
fn huge_constant_arrays_compile_or_fail_cleanly() {
    for len in [16, 4096, 65535] {
        let src = huge_constant_array(len);
        compile_everywhere(&format!("constant array of {len}"), &src, false);
    }
}

/// The legalized (structured-block) form of a nesting is measured as deep as its raw form.
#[test]
fn legalized_nesting_is_measured_like_raw_nesting() {
    for depth in [10, MAX_NESTING + 1] {
        let mut m = irc_ir::text::parse(&nested_ifs(depth)).expect("parses");
        assert_eq!(nesting_over(&m, depth - 1).map(|x| x.1), Some(depth));
        assert_eq!(nesting_over(&m, depth), None);
        let mut pm = irc_passes::PassManager::new(irc_passes::ManagerOptions::default());
        irc_passes::pipelines::run(&mut pm, &mut m, irc_passes::PipelineKind::Frontend)
            .expect("frontend");
        assert!(
            m.code().all(|d| !m.opcode(d).is_scoped()),
            "the frontend leaves structured blocks"
        );
        assert_eq!(nesting_over(&m, depth - 1).map(|x| x.1), Some(depth));
        assert_eq!(nesting_over(&m, depth), None);
    }
}
