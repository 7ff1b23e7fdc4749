//! Operand formats: the names of every op's operands, and typed accessors generated from them.
//!
//! Each opcode row of the table in [`crate::opcode`] names a [`Format`] (as Cranelift's
//! `InstructionFormat`): the shape of its operand list, shared by ops of the same shape
//! (`FAdd`, `FNeg` and `IMul` are all [`Arith`]). The format table below lists, per format, each
//! operand's name and kind:
//!
//! - `Ref`: a reference (possibly null or absent): read as `Option<SsaDef>`;
//! - `Lit`: a literal: read as `Option<u64>`;
//! - `Rest`: all remaining operands (a list, a string, pairs): read as `&[Operand]`;
//! - `Last`: the literal that is always the last operand (`Label`, `EntryPoint`).
//!
//! From it come one view type per format, with one method per operand, so a read says what it
//! reads and the compiler checks the name:
//!
//! ```
//! use irc_ir::format::{ImageSample, OpView};
//! # use irc_ir::{Op, OpCode, SsaDef, EntityRef, Type, ScalarType};
//! # let d = SsaDef::new(3);
//! # let mut op = Op::new(OpCode::ImageSample, Type::vector(ScalarType::F32, 4));
//! # for i in 0..11 { op = op.arg(if i == 5 { Some(d) } else if i == 0 { Some(SsaDef::new(1)) } else { None }); }
//! let lod = ImageSample::of(&op).lod();
//! assert_eq!(lod, Some(d));
//! ```
//!
//! and [`slots`], the operand positions by name (`slots::Switch.default`), for code that
//! writes operands. `View::of` is for an op the caller knows the opcode of (it never panics:
//! the interpreter and the verifier read malformed IR); `View::try_of` returns `None` for an op
//! of another format. Nothing else in the workspace reads an operand by its position (a test
//! in the testsuite, `operand_reads.rs`, greps for it).

use crate::entities::SsaDef;
use crate::op::{Op, Operand};

/// How an operand position of a format is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// A reference (null when optional and left out).
    Ref,
    /// A literal.
    Lit,
    /// Every remaining operand, as a list.
    Rest,
    /// The last operand, a literal (its position depends on the operand count).
    Last,
}

impl OperandKind {
    /// The spelling used by `irc ops`.
    pub fn describe(self) -> &'static str {
        match self {
            OperandKind::Ref => "%ref",
            OperandKind::Lit => "literal",
            OperandKind::Rest => "list…",
            OperandKind::Last => "literal (last)",
        }
    }
}

/// Position of `name` in `names` (compile time).
const fn position(names: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < names.len() {
        let (a, b) = (names[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut k = 0;
            while k < a.len() && a[k] == b[k] {
                k += 1;
            }
            if k == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("no such operand")
}

/// A typed view of an op of one format.
pub trait OpView<'a>: Sized + Copy {
    /// The format this view reads.
    const FORMAT: Format;
    /// The view of `op`, which the caller knows to have this format (see [`OpView::try_of`]
    /// to check). Never panics.
    fn of(op: &'a Op) -> Self;
    /// The view of `op` if it has this format.
    fn try_of(op: &'a Op) -> Option<Self> {
        (op.opcode.format() == Self::FORMAT).then(|| Self::of(op))
    }
}

/// Invokes `$m!` with the format table. Columns: `Name { operand: Kind, … };`
macro_rules! for_each_format {
    ($m:ident) => {
        $m! {
            /// No operands.
            Nullary {};
            /// One to three value operands (as naga's `Math { arg, arg1, arg2 }`): unary ops
            /// have `a`, binary ops `a` and `b`, ternary ops all three; the others read `None`.
            Arith { a: Ref, b: Ref, c: Ref };
            /// Two vectors and, for the `FDotAdd` ops, a scalar added to their dot product.
            Dot { a: Ref, b: Ref, add: Ref };
            /// A value clamped to `[lo, hi]`.
            Clamp { a: Ref, lo: Ref, hi: Ref };
            /// A condition choosing between two values.
            Select { cond: Ref, if_true: Ref, if_false: Ref };
            /// A float and a rounding mode.
            FRound { a: Ref, mode: Lit };
            /// A bit field of `count` bits at `offset`.
            BitExtract { value: Ref, offset: Ref, count: Ref };
            /// `base` with a bit field replaced by the low bits of `insert`.
            IBitInsert { base: Ref, insert: Ref, offset: Ref, count: Ref };
            /// A value and a derivative mode.
            Deriv { value: Ref, mode: Lit };
            /// Entry function, optional patch-constant function, stage.
            EntryPoint { function: Ref, patch_constant: Ref, stage: Last };
            /// Target declaration, semantic index, name string.
            Semantic { target: Ref, index: Lit, name: Rest };
            /// Target op, name string.
            DebugName { target: Ref, name: Rest };
            /// Target declaration, struct member index, name string.
            DebugMemberName { target: Ref, member: Lit, name: Rest };
            /// The flattened scalar literals.
            Constant { values: Rest };
            /// A mode set on the entry point, or a declaration with no parameters.
            EntryMode { entry: Ref };
            /// Entry point and a count.
            SetCount { entry: Ref, count: Lit };
            /// Entry point and a primitive type.
            SetPrimitive { entry: Ref, primitive: Lit };
            /// Entry point, workgroup size.
            SetCsWorkgroupSize { entry: Ref, x: Lit, y: Lit, z: Lit };
            /// Entry point, output primitive, stream mask.
            SetGsOutputPrimitive { entry: Ref, primitive: Lit, stream_mask: Lit };
            /// Entry point, primitive, winding, partitioning.
            SetTessPrimitive { entry: Ref, primitive: Lit, winding: Lit, partitioning: Lit };
            /// Entry point, control points in and out.
            SetTessControlPoints { entry: Ref, inputs: Lit, outputs: Lit };
            /// Entry point, rounding and denormal modes.
            SetFpMode { entry: Ref, round_mode: Lit, denorm_mode: Lit };
            /// Entry point, location, component, interpolation modes.
            DclInput { entry: Ref, location: Lit, component: Lit, interpolation: Lit };
            /// Entry point, built-in, interpolation modes.
            DclInputBuiltIn { entry: Ref, builtin: Lit, interpolation: Lit };
            /// Entry point, location, component, GS stream.
            DclOutput { entry: Ref, location: Lit, component: Lit, stream: Lit };
            /// Entry point, built-in, GS stream.
            DclOutputBuiltIn { entry: Ref, builtin: Lit, stream: Lit };
            /// Entry point, spec id, default value literals.
            DclSpecConstant { entry: Ref, spec_id: Lit, default: Rest };
            /// Entry point, byte offset, stage mask.
            DclPushData { entry: Ref, offset: Lit, stages: Lit };
            /// Entry point, register space, register, array size; for SRVs and UAVs the resource
            /// kind, for UAVs the UAV flags (absent: `None`).
            DclBinding { entry: Ref, space: Lit, register: Lit, count: Lit, kind: Lit, uav_flags: Lit };
            /// Entry point, the UAV.
            DclUavCounter { entry: Ref, uav: Ref };
            /// The output, buffer, stride, offset.
            DclXfb { output: Ref, buffer: Lit, stride: Lit, offset: Lit };
            /// Entry point, register space, register, count, kind, render target (−1 depth).
            DclInputTarget { entry: Ref, space: Lit, register: Lit, count: Lit, kind: Lit, target: Lit };
            /// The `DclParam` parameters.
            Function { params: Rest };
            /// The function, then the arguments.
            FunctionCall { callee: Ref, args: Rest };
            /// Merge block and continue block of a construct header, construct kind.
            Label { merge: Ref, continue_target: Ref, construct: Last };
            /// Target block.
            Branch { target: Ref };
            /// Condition, block if true, block if false.
            BranchConditional { cond: Ref, if_true: Ref, if_false: Ref };
            /// Selector, default block, then (case constant, case block) pairs.
            Switch { selector: Ref, default: Ref, cases: Rest };
            /// The returned value (null for void).
            Return { value: Ref };
            /// (predecessor block, value) pairs.
            Phi { incoming: Rest };
            /// Matching `ScopedEndIf`, condition.
            ScopedIf { end: Ref, cond: Ref };
            /// The construct's opening (or, for `ScopedLoop`, closing) op; for
            /// `ScopedSwitchCase` the case value.
            Scoped { construct: Ref, case_value: Lit };
            /// Matching `ScopedEndSwitch`, selector.
            ScopedSwitch { end: Ref, selector: Ref };
            /// Execution scope, memory scope, memory types.
            Barrier { exec_scope: Lit, mem_scope: Lit, memory: Lit };
            /// Composite, constant address, new element.
            CompositeInsert { composite: Ref, address: Ref, value: Ref };
            /// Composite, constant address.
            CompositeExtract { composite: Ref, address: Ref };
            /// The members in order.
            CompositeConstruct { members: Rest };
            /// The function, the `DclParam`.
            ParamLoad { function: Ref, param: Ref };
            /// The `DclTmp`.
            TmpLoad { var: Ref };
            /// The `DclTmp`, the value.
            TmpStore { var: Ref, value: Ref };
            /// What is read (declaration, constant), address into it (null: all of it).
            Load { base: Ref, address: Ref };
            /// What is written, address into it (null: all of it), value.
            Store { base: Ref, address: Ref, value: Ref };
            /// Declaration, index into its array.
            DescriptorLoad { decl: Ref, index: Ref };
            /// Descriptor or pointer, address, alignment.
            AlignedLoad { base: Ref, address: Ref, align: Lit };
            /// Descriptor or pointer, address, value, alignment.
            AlignedStore { base: Ref, address: Ref, value: Ref, align: Lit };
            /// The descriptor queried.
            Query { descriptor: Ref };
            /// Declaration, descriptor or pointer; address; operand(s); atomic op.
            Atomic { base: Ref, address: Ref, value: Ref, atomic_op: Lit };
            /// Descriptor, layer, coordinate, operand(s), atomic op.
            ImageAtomic { descriptor: Ref, layer: Ref, coord: Ref, value: Ref, atomic_op: Lit };
            /// The counter, atomic op.
            CounterAtomic { counter: Ref, atomic_op: Lit };
            /// Descriptor, mip, layer, coordinate, sample, offset.
            ImageLoad { descriptor: Ref, mip: Ref, layer: Ref, coord: Ref, sample: Ref, offset: Ref };
            /// Descriptor, layer, coordinate, value.
            ImageStore { descriptor: Ref, layer: Ref, coord: Ref, value: Ref };
            /// Descriptor, mip.
            ImageQuerySize { descriptor: Ref, mip: Ref };
            /// Descriptor, sampler, layer, coordinate, offset, explicit lod, lod bias, lod clamp,
            /// gradients, depth-compare reference.
            ImageSample {
                descriptor: Ref, sampler: Ref, layer: Ref, coord: Ref, offset: Ref, lod: Ref,
                lod_bias: Ref, lod_clamp: Ref, dx: Ref, dy: Ref, depth_compare: Ref
            };
            /// Descriptor, sampler, layer, coordinate, offset, depth-compare reference, component.
            ImageGather {
                descriptor: Ref, sampler: Ref, layer: Ref, coord: Ref, offset: Ref,
                depth_compare: Ref, component: Lit
            };
            /// Descriptor, sampler, coordinate.
            ImageComputeLod { descriptor: Ref, sampler: Ref, coord: Ref };
            /// 64-bit address, UAV flags.
            Pointer { address: Ref, uav_flags: Lit };
            /// Output stream.
            Emit { stream: Lit };
            /// Input, address, sample index.
            InterpolateAtSample { base: Ref, address: Ref, sample: Ref };
            /// Input, address, offset from the pixel centre.
            InterpolateAtOffset { base: Ref, address: Ref, offset: Ref };
            /// Memory types, ROV scope.
            RovScopedLockBegin { memory: Lit, scope: Lit };
            /// Memory types.
            RovScopedLockEnd { memory: Lit };
            /// The values kept alive.
            Drain { values: Rest };
        }
    };
}

/// One accessor method of a view, by operand kind.
macro_rules! view_method {
    ($f:ident, $n:ident, Ref) => {
        #[doc = concat!("The `", stringify!($n), "` operand (`None` if null or absent).")]
        #[inline]
        pub fn $n(self) -> Option<SsaDef> {
            self.0.operand_def(slots::$f.$n)
        }
    };
    ($f:ident, $n:ident, Lit) => {
        #[doc = concat!("The `", stringify!($n), "` literal (`None` if absent).")]
        #[inline]
        pub fn $n(self) -> Option<u64> {
            self.0.operand_lit(slots::$f.$n)
        }
    };
    ($f:ident, $n:ident, Rest) => {
        #[doc = concat!("The `", stringify!($n), "` operands (all from its position on).")]
        #[inline]
        pub fn $n(self) -> &'a [Operand] {
            self.0.operands.get(slots::$f.$n..).unwrap_or(&[])
        }
    };
    ($f:ident, $n:ident, Last) => {
        #[doc = concat!("The `", stringify!($n), "` literal: the last operand.")]
        #[inline]
        pub fn $n(self) -> Option<u64> {
            self.0.operands.last().and_then(|o| o.as_lit())
        }
    };
}

macro_rules! define_formats {
    ($($(#[doc = $doc:literal])* $name:ident { $($op:ident : $kind:ident),* $(,)? };)*) => {
        /// The operand shape of an opcode; see the [module docs](self).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Format { $($(#[doc = $doc])* $name,)* }

        impl Format {
            /// Every format.
            pub const ALL: &'static [Format] = &[$(Format::$name,)*];

            /// The format's name.
            pub fn name(self) -> &'static str {
                match self { $(Format::$name => stringify!($name),)* }
            }

            /// The operands, named, in order.
            pub fn operands(self) -> &'static [(&'static str, OperandKind)] {
                match self {
                    $(Format::$name => &[$((stringify!($op), OperandKind::$kind)),*],)*
                }
            }
        }

        /// Operand positions by name, per format: `slots::Switch.default` is 1. For code
        /// that writes or splices operands; reads go through the [views](self).
        #[expect(non_upper_case_globals, reason = "a position table reads as `slots::Format.name`")]
        pub mod slots {
            $(
                #[doc = concat!("Operand positions of [`", stringify!($name), "`](super::", stringify!($name), ").")]
                #[derive(Clone, Copy, Debug)]
                pub struct $name { $(pub $op: usize,)* }
                #[doc = concat!("Operand positions of [`", stringify!($name), "`](super::", stringify!($name), ").")]
                pub const $name: $name = {
                    #[allow(unused)]
                    const NAMES: &[&str] = &[$(stringify!($op)),*];
                    $name { $($op: super::position(NAMES, stringify!($op)),)* }
                };
            )*
        }

        $(
            $(#[doc = $doc])*
            #[derive(Clone, Copy, Debug)]
            pub struct $name<'a>(&'a Op);

            impl<'a> OpView<'a> for $name<'a> {
                const FORMAT: Format = Format::$name;
                #[inline]
                fn of(op: &'a Op) -> Self {
                    $name(op)
                }
            }

            impl<'a> $name<'a> {
                /// The view of `op`, which the caller knows to have this format (an op of
                /// another format reads as its operands at these positions; absent ones read
                /// `None`). Never panics: the interpreter and the verifier take malformed IR.
                #[inline]
                pub fn of(op: &'a Op) -> Self {
                    <Self as OpView<'a>>::of(op)
                }
                /// The view of `op` if it has this format.
                #[inline]
                pub fn try_of(op: &'a Op) -> Option<Self> {
                    <Self as OpView<'a>>::try_of(op)
                }
                /// The op viewed.
                #[inline]
                pub fn op(self) -> &'a Op {
                    self.0
                }
                $(view_method!($name, $op, $kind);)*
            }
        )*
    };
}

for_each_format!(define_formats);

/// The operands every memory access names, whatever its format: see [`access`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// What is accessed: a declaration, a descriptor, a pointer or a constant.
    pub base: Option<SsaDef>,
    /// The address into it (null: all of it).
    pub address: Option<SsaDef>,
    /// The value stored (stores) or the atomic's operand.
    pub value: Option<SsaDef>,
}

/// The base, address and value of a load, store or atomic ([`Load`], [`Store`],
/// [`AlignedLoad`], [`AlignedStore`], [`Atomic`] formats); `None` for other ops.
pub fn access(op: &Op) -> Option<Access> {
    let (base, address, value) = match op.opcode.format() {
        Format::Load => (Load(op).base(), Load(op).address(), None),
        Format::Store => (Store(op).base(), Store(op).address(), Store(op).value()),
        Format::AlignedLoad => (AlignedLoad(op).base(), AlignedLoad(op).address(), None),
        Format::AlignedStore => {
            let s = AlignedStore(op);
            (s.base(), s.address(), s.value())
        }
        Format::Atomic => (Atomic(op).base(), Atomic(op).address(), Atomic(op).value()),
        _ => return None,
    };
    Some(Access {
        base,
        address,
        value,
    })
}

impl<'a> Phi<'a> {
    /// The (predecessor block, value) pairs.
    pub fn pairs(self) -> impl Iterator<Item = (Option<SsaDef>, Option<SsaDef>)> + 'a {
        self.incoming()
            .chunks(2)
            .map(|p| (p[0].as_ref(), p.get(1).and_then(|o| o.as_ref())))
    }
}

impl<'a> Switch<'a> {
    /// The (case constant, case block) pairs.
    pub fn case_pairs(self) -> impl Iterator<Item = (Option<SsaDef>, Option<SsaDef>)> + 'a {
        self.cases()
            .chunks(2)
            .map(|p| (p[0].as_ref(), p.get(1).and_then(|o| o.as_ref())))
    }
}

impl Constant<'_> {
    /// The literal of flattened scalar `i` (vector component `i` of a vector constant).
    pub fn scalar(self, i: usize) -> Option<u64> {
        self.values().get(i).and_then(|o| o.as_lit())
    }
}

/// What a literal of kind `k` holds, for [`describe`].
fn literal_kind_name(k: Option<crate::opcode::LitKind>) -> String {
    use crate::opcode::LitKind as K;
    match k {
        Some(K::Int) => "int".into(),
        Some(K::SInt) => "signed int".into(),
        Some(K::Typed) => "scalar of the result type".into(),
        Some(K::CaseValue) => "case value".into(),
        Some(K::Str) => "string".into(),
        Some(K::Enum(e)) => format!("{e:?}"),
        Some(K::Flags(f)) => format!("{f:?} flags"),
        None => "literal".into(),
    }
}

/// The operand list of `op` as `irc ops` prints it: `%a %b`, `mode: RoundMode`, `%args…`.
/// Named operands past the op's maximum count are left out (`FNeg` shows only `%a`).
pub fn signature(op: crate::opcode::OpCode) -> String {
    let info = op.info();
    let names = op.format().operands();
    let bounded = info.max_operands != crate::opcode::MANY;
    let count = if bounded {
        info.max_operands as usize
    } else {
        names.len()
    };
    let fl = op.first_literal_index(if bounded { count } else { usize::MAX / 2 });
    // A trailing `Last` literal counts towards the minimum but always comes last.
    let last = usize::from(names.iter().any(|(_, k)| *k == OperandKind::Last));
    let mut parts = Vec::new();
    for (i, &(name, kind)) in names.iter().enumerate() {
        match kind {
            OperandKind::Ref if i < count => {
                let optional = bounded && i + last >= info.min_operands as usize;
                parts.push(format!("%{name}{}", if optional { "?" } else { "" }));
            }
            OperandKind::Lit if i < count => {
                parts.push(format!(
                    "{name}: {}",
                    literal_kind_name(op.literal_kind(i - fl))
                ));
            }
            OperandKind::Rest if i < fl => parts.push(format!("%{name}…")),
            OperandKind::Rest => parts.push(format!(
                "{name}…: {}",
                literal_kind_name(op.literal_kind(i.saturating_sub(fl)))
            )),
            OperandKind::Last => {
                parts.push(format!("{name}: {}", literal_kind_name(op.literal_kind(0))))
            }
            _ => {}
        }
    }
    parts.join(" ")
}

/// Everything the table says about `op`, as `irc ops NAME` prints it: name and wire value,
/// classes, operands (with the format that reads them) and the one-line doc.
pub fn describe(op: crate::opcode::OpCode) -> String {
    let classes: Vec<&str> = op.info().attrs.names().collect();
    let mut s = format!("{} = {}", op.name(), op.value());
    if !classes.is_empty() {
        s += &format!("  [{}]", classes.join(", "));
    }
    if op.is_declarative() {
        s += "  (declaration)";
    }
    s += &format!("\n    {}\n    operands: {}", op.doc(), signature(op));
    s += &format!("  (read with format::{})", op.format().name());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::{FirstLiteral, OpCode, MANY};

    /// Each opcode's format agrees with its row: literal names sit where the first-literal
    /// rule puts literals, and the named operands cover the allowed counts.
    #[test]
    fn formats_agree_with_the_opcode_table() {
        for &op in OpCode::ALL {
            let info = op.info();
            let ops = op.format().operands();
            let fixed = ops
                .iter()
                .filter(|(_, k)| matches!(k, OperandKind::Ref | OperandKind::Lit))
                .count();
            let has_rest = ops.iter().any(|(_, k)| *k == OperandKind::Rest);
            let has_last = ops.iter().any(|(_, k)| *k == OperandKind::Last);
            if has_rest {
                assert_eq!(info.max_operands, MANY, "{op}: a list needs no upper bound");
            } else if has_last {
                assert_eq!(info.first_literal, FirstLiteral::Last, "{op}");
                assert_eq!(info.max_operands as usize, fixed + 1, "{op}");
            } else {
                // Names past the op's operand count read as absent (`DclCbv` has no `kind`).
                assert!(
                    info.max_operands as usize <= fixed,
                    "{op}: unnamed operands"
                );
                assert!(
                    info.max_operands as usize + 2 >= fixed,
                    "{op}: {fixed} names"
                );
            }
            let count = info.max_operands.min(64) as usize;
            for (i, (name, kind)) in ops.iter().enumerate().take(count) {
                let fl = op.first_literal_index(count);
                match kind {
                    OperandKind::Ref => assert!(i < fl, "{op}.{name} is a literal"),
                    OperandKind::Lit => assert!(i >= fl, "{op}.{name} is a reference"),
                    OperandKind::Rest | OperandKind::Last => {}
                }
            }
        }
    }

    #[test]
    fn descriptions_name_operands_and_classes() {
        let s = describe(OpCode::ImageSample);
        assert!(s.contains("%lod"), "{s}");
        assert!(s.contains("format::ImageSample"), "{s}");
        assert_eq!(signature(OpCode::FNeg), "%a");
        assert_eq!(signature(OpCode::FRound), "%a mode: RoundMode flags");
        assert_eq!(signature(OpCode::Return), "%value?");
        assert_eq!(signature(OpCode::FunctionCall), "%callee %args…");
        assert!(describe(OpCode::FAdd).contains("commutative"));
        for &op in OpCode::ALL {
            assert!(!op.doc().is_empty(), "{op} has no doc");
            assert!(op.doc().ends_with('.'), "{op}: a doc is one sentence");
        }
    }

    #[test]
    fn slots_count_from_zero() {
        assert_eq!(slots::Switch.selector, 0);
        assert_eq!(slots::Switch.default, 1);
        assert_eq!(slots::Switch.cases, 2);
        assert_eq!(slots::ImageSample.depth_compare, 10);
    }
}
