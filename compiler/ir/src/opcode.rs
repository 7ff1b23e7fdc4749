//! The opcode table: the single source of truth for every DXBC-IR opcode.
//!
//! Each row gives the opcode's name and wire value (dxbc-spirv at the pinned commit, plus the
//! spec's historical `CompositeInsert` 224, `MinValue` 768 and `MaxValue` 769), the rule that
//! splits its operands into references and literals (`FL`, reference §A.6), the allowed operand
//! count, what each literal operand holds, and its attributes. Everything else — the `OpCode`
//! enum, names, the reader's operand checks, the printer's literal spelling, the parser, builder
//! helpers — is derived from it. Type rules live in the verifier, as an exhaustive `match`.

use crate::enums::{LitEnum, LitFlags};

/// Operand count meaning "no upper bound".
pub const MANY: u16 = u16::MAX;

/// Where the literal operands of an op begin (`Op::getFirstLiteralOperandIndex`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstLiteral {
    /// Every operand is a reference.
    None,
    /// Operands from this index on are literals.
    At(u16),
    /// Only the last operand is a literal (0 operands: none).
    Last,
}

/// What a literal operand holds; decides its text spelling and the checks on its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LitKind {
    /// An unsigned integer (location, register, count, index, alignment …).
    Int,
    /// A signed integer (render-target index, −1 = depth-stencil).
    SInt,
    /// A scalar of the op's result type (flattened `Constant` values, spec-constant default).
    Typed,
    /// A switch case value (`ScopedSwitchCase`): raw 64-bit, printed signed when negative.
    CaseValue,
    /// A string packed 8 bytes per operand; occupies all remaining operands.
    Str,
    /// A value of a literal enum.
    Enum(LitEnum),
    /// A flag set.
    Flags(LitFlags),
}

/// Attributes of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Attrs(pub u8);

impl Attrs {
    /// Ends a block (`Branch*`, `Switch`, `Return`, `Unreachable`).
    pub const TERMINATOR: Attrs = Attrs(1);
    /// Has an effect beyond its result (stores, atomics, barriers, calls, control flow markers,
    /// discard, emit): must not be removed even when its result is unused.
    pub const EFFECT: Attrs = Attrs(2);
    /// Reads state that stores or other invocations may change: must not be moved across effects
    /// or merged with an identical op (loads, derivatives, image reads).
    pub const READS: Attrs = Attrs(4);
    /// Scoped (unstructured-source) control flow.
    pub const SCOPED: Attrs = Attrs(8);
    /// Has no meaning of its own (debug info, semantics): not code.
    pub const META: Attrs = Attrs(16);
    pub const NONE: Attrs = Attrs(0);

    pub const fn union(self, o: Attrs) -> Attrs {
        Attrs(self.0 | o.0)
    }
    pub const fn contains(self, o: Attrs) -> bool {
        self.0 & o.0 == o.0
    }
}

/// Everything the table says about one opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    pub name: &'static str,
    pub value: u16,
    pub first_literal: FirstLiteral,
    pub min_operands: u16,
    pub max_operands: u16,
    /// Kinds of the literal operands in order; positions past the end use `rest_literal`.
    pub literals: &'static [LitKind],
    pub rest_literal: Option<LitKind>,
    pub attrs: Attrs,
}

macro_rules! attrs {
    () => { Attrs::NONE };
    ($a:ident $(| $b:ident)*) => { Attrs::$a $(.union(Attrs::$b))* };
}

/// Invokes `$m!` with the whole table. Columns:
/// `Name = value, FL, min..max operands, [literal kinds], rest literal kind, attributes;`
macro_rules! for_each_opcode {
    ($m:ident) => {
        $m! {
            Unknown = 0, None, 0..0, [], None, [];
            EntryPoint = 1, Last, 2..3, [Enum(LitEnum::ShaderStage)], None, [];
            Semantic = 2, At(1), 3..MANY, [Int], Some(Str), [META];
            DebugName = 3, At(1), 2..MANY, [], Some(Str), [META];
            DebugMemberName = 4, At(1), 3..MANY, [Int], Some(Str), [META];
            Constant = 8, At(0), 0..MANY, [], Some(Typed), [];
            Undef = 9, None, 0..0, [], None, [];
            SetCsWorkgroupSize = 16, At(1), 4..4, [Int, Int, Int], None, [];
            SetGsInstances = 17, At(1), 2..2, [Int], None, [];
            SetGsInputPrimitive = 18, At(1), 2..2, [Enum(LitEnum::PrimitiveType)], None, [];
            SetGsOutputVertices = 19, At(1), 2..2, [Int], None, [];
            SetGsOutputPrimitive = 20, At(1), 3..3, [Enum(LitEnum::PrimitiveType), Int], None, [];
            SetPsEarlyFragmentTest = 21, None, 1..1, [], None, [];
            SetPsDepthGreaterEqual = 22, None, 1..1, [], None, [];
            SetPsDepthLessEqual = 23, None, 1..1, [], None, [];
            SetTessPrimitive = 24, At(1), 4..4, [Enum(LitEnum::PrimitiveType), Enum(LitEnum::TessWindingOrder), Enum(LitEnum::TessPartitioning)], None, [];
            SetTessDomain = 25, At(1), 2..2, [Enum(LitEnum::PrimitiveType)], None, [];
            SetTessControlPoints = 26, At(1), 3..3, [Int, Int], None, [];
            SetFpMode = 27, At(1), 3..3, [Flags(LitFlags::RoundMode), Flags(LitFlags::DenormMode)], None, [];
            DclInput = 32, At(1), 3..4, [Int, Int, Flags(LitFlags::InterpolationModes)], None, [];
            DclInputBuiltIn = 33, At(1), 2..3, [Enum(LitEnum::BuiltIn), Flags(LitFlags::InterpolationModes)], None, [];
            DclOutput = 34, At(1), 3..4, [Int, Int, Int], None, [];
            DclOutputBuiltIn = 35, At(1), 2..3, [Enum(LitEnum::BuiltIn), Int], None, [];
            DclSpecConstant = 36, At(1), 3..MANY, [Int], Some(Typed), [];
            DclPushData = 37, At(1), 3..3, [Int, Flags(LitFlags::ShaderStageMask)], None, [];
            DclSampler = 38, At(1), 4..4, [Int, Int, Int], None, [];
            DclCbv = 39, At(1), 4..4, [Int, Int, Int], None, [];
            DclSrv = 40, At(1), 5..5, [Int, Int, Int, Enum(LitEnum::ResourceKind)], None, [];
            DclUav = 41, At(1), 6..6, [Int, Int, Int, Enum(LitEnum::ResourceKind), Flags(LitFlags::UavFlags)], None, [];
            DclUavCounter = 42, None, 2..2, [], None, [];
            DclLds = 43, None, 1..1, [], None, [];
            DclScratch = 44, None, 1..1, [], None, [];
            DclTmp = 45, None, 1..1, [], None, [];
            DclParam = 46, None, 0..0, [], None, [];
            DclXfb = 47, At(1), 4..4, [Int, Int, Int], None, [];
            DclInputTarget = 48, At(1), 6..6, [Int, Int, Int, Enum(LitEnum::ResourceKind), SInt], None, [];
            Function = 64, None, 0..MANY, [], None, [EFFECT];
            FunctionEnd = 65, None, 0..0, [], None, [EFFECT];
            FunctionCall = 66, None, 1..MANY, [], None, [EFFECT];
            Label = 96, Last, 1..3, [Enum(LitEnum::Construct)], None, [EFFECT];
            Branch = 97, None, 1..1, [], None, [TERMINATOR | EFFECT];
            BranchConditional = 98, None, 3..3, [], None, [TERMINATOR | EFFECT];
            Switch = 99, None, 2..MANY, [], None, [TERMINATOR | EFFECT];
            Unreachable = 100, None, 0..0, [], None, [TERMINATOR | EFFECT];
            Return = 101, None, 0..1, [], None, [TERMINATOR | EFFECT];
            Phi = 102, None, 0..MANY, [], None, [];
            ScopedIf = 128, None, 2..2, [], None, [SCOPED | EFFECT];
            ScopedElse = 129, None, 1..1, [], None, [SCOPED | EFFECT];
            ScopedEndIf = 130, None, 1..1, [], None, [SCOPED | EFFECT];
            ScopedLoop = 131, None, 1..1, [], None, [SCOPED | EFFECT];
            ScopedLoopBreak = 132, None, 1..1, [], None, [SCOPED | EFFECT];
            ScopedLoopContinue = 133, None, 1..1, [], None, [SCOPED | EFFECT];
            ScopedEndLoop = 134, None, 1..1, [], None, [SCOPED | EFFECT];
            ScopedSwitch = 135, None, 2..2, [], None, [SCOPED | EFFECT];
            ScopedSwitchCase = 136, At(1), 2..2, [CaseValue], None, [SCOPED | EFFECT];
            ScopedSwitchDefault = 137, None, 1..1, [], None, [SCOPED | EFFECT];
            ScopedSwitchBreak = 138, None, 1..1, [], None, [SCOPED | EFFECT];
            ScopedEndSwitch = 139, None, 1..1, [], None, [SCOPED | EFFECT];
            Barrier = 160, At(0), 3..3, [Enum(LitEnum::Scope), Enum(LitEnum::Scope), Flags(LitFlags::MemoryTypes)], None, [EFFECT];
            ConvertFtoF = 192, None, 1..1, [], None, [];
            ConvertFtoI = 193, None, 1..1, [], None, [];
            ConvertItoF = 194, None, 1..1, [], None, [];
            ConvertItoI = 195, None, 1..1, [], None, [];
            ConvertF32toPackedF16 = 196, None, 1..1, [], None, [];
            ConvertPackedF16toF32 = 197, None, 1..1, [], None, [];
            Cast = 198, None, 1..1, [], None, [];
            ConsumeAs = 199, None, 1..1, [], None, [];
            CompositeInsert = 224, None, 3..3, [], None, [];
            CompositeExtract = 225, None, 2..2, [], None, [];
            CompositeConstruct = 226, None, 1..MANY, [], None, [];
            CheckSparseAccess = 256, None, 1..1, [], None, [];
            ParamLoad = 288, None, 2..2, [], None, [];
            TmpLoad = 289, None, 1..1, [], None, [READS];
            TmpStore = 290, None, 2..2, [], None, [EFFECT];
            ScratchLoad = 291, None, 2..2, [], None, [READS];
            ScratchStore = 292, None, 3..3, [], None, [EFFECT];
            LdsLoad = 293, None, 2..2, [], None, [READS];
            LdsStore = 294, None, 3..3, [], None, [EFFECT];
            PushDataLoad = 295, None, 2..2, [], None, [];
            InputTargetLoad = 296, None, 2..2, [], None, [READS];
            InputLoad = 297, None, 2..2, [], None, [];
            OutputLoad = 298, None, 2..2, [], None, [READS];
            OutputStore = 299, None, 3..3, [], None, [EFFECT];
            DescriptorLoad = 300, None, 2..2, [], None, [];
            BufferLoad = 301, At(2), 3..3, [Int], None, [READS];
            BufferStore = 302, At(3), 4..4, [Int], None, [EFFECT];
            BufferQuerySize = 303, None, 1..1, [], None, [];
            MemoryLoad = 304, At(2), 3..3, [Int], None, [READS];
            MemoryStore = 305, At(3), 4..4, [Int], None, [EFFECT];
            ConstantLoad = 306, None, 2..2, [], None, [];
            LdsAtomic = 320, Last, 4..4, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS];
            BufferAtomic = 321, Last, 4..4, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS];
            ImageAtomic = 322, Last, 5..5, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS];
            CounterAtomic = 323, Last, 2..2, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS];
            MemoryAtomic = 324, Last, 4..4, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS];
            ImageLoad = 352, None, 6..6, [], None, [READS];
            ImageStore = 353, None, 4..4, [], None, [EFFECT];
            ImageQuerySize = 354, None, 2..2, [], None, [];
            ImageQueryMips = 355, None, 1..1, [], None, [];
            ImageQuerySamples = 356, None, 1..1, [], None, [];
            ImageSample = 357, None, 11..11, [], None, [READS];
            ImageGather = 358, At(6), 7..7, [Int], None, [READS];
            ImageComputeLod = 359, None, 3..3, [], None, [READS];
            Pointer = 384, At(1), 2..2, [Flags(LitFlags::UavFlags)], None, [];
            EmitVertex = 416, At(0), 1..1, [Int], None, [EFFECT];
            EmitPrimitive = 417, At(0), 1..1, [Int], None, [EFFECT];
            Demote = 448, None, 0..0, [], None, [EFFECT];
            InterpolateAtCentroid = 480, None, 2..2, [], None, [READS];
            InterpolateAtSample = 481, None, 3..3, [], None, [READS];
            InterpolateAtOffset = 482, None, 3..3, [], None, [READS];
            DerivX = 512, At(1), 2..2, [Enum(LitEnum::DerivativeMode)], None, [READS];
            DerivY = 513, At(1), 2..2, [Enum(LitEnum::DerivativeMode)], None, [READS];
            RovScopedLockBegin = 544, At(0), 2..2, [Flags(LitFlags::MemoryTypes), Flags(LitFlags::RovScope)], None, [EFFECT];
            RovScopedLockEnd = 545, At(0), 1..1, [Flags(LitFlags::MemoryTypes)], None, [EFFECT];
            FEq = 576, None, 2..2, [], None, [];
            FNe = 577, None, 2..2, [], None, [];
            FLt = 578, None, 2..2, [], None, [];
            FLe = 579, None, 2..2, [], None, [];
            FGt = 580, None, 2..2, [], None, [];
            FGe = 581, None, 2..2, [], None, [];
            FIsNan = 582, None, 1..1, [], None, [];
            IEq = 583, None, 2..2, [], None, [];
            INe = 584, None, 2..2, [], None, [];
            SLt = 585, None, 2..2, [], None, [];
            SLe = 586, None, 2..2, [], None, [];
            SGt = 587, None, 2..2, [], None, [];
            SGe = 588, None, 2..2, [], None, [];
            ULt = 589, None, 2..2, [], None, [];
            ULe = 590, None, 2..2, [], None, [];
            UGt = 591, None, 2..2, [], None, [];
            UGe = 592, None, 2..2, [], None, [];
            BAnd = 608, None, 2..2, [], None, [];
            BOr = 609, None, 2..2, [], None, [];
            BEq = 610, None, 2..2, [], None, [];
            BNe = 611, None, 2..2, [], None, [];
            BNot = 612, None, 1..1, [], None, [];
            Select = 640, None, 3..3, [], None, [];
            FAbs = 672, None, 1..1, [], None, [];
            FNeg = 673, None, 1..1, [], None, [];
            FAdd = 674, None, 2..2, [], None, [];
            FSub = 675, None, 2..2, [], None, [];
            FMul = 676, None, 2..2, [], None, [];
            FMulLegacy = 677, None, 2..2, [], None, [];
            FMad = 678, None, 3..3, [], None, [];
            FMadLegacy = 679, None, 3..3, [], None, [];
            FDiv = 680, None, 2..2, [], None, [];
            FRcp = 681, None, 1..1, [], None, [];
            FSqrt = 682, None, 1..1, [], None, [];
            FRsq = 683, None, 1..1, [], None, [];
            FExp2 = 684, None, 1..1, [], None, [];
            FLog2 = 685, None, 1..1, [], None, [];
            FFract = 686, None, 1..1, [], None, [];
            FRound = 687, At(1), 2..2, [Flags(LitFlags::RoundMode)], None, [];
            FMin = 688, None, 2..2, [], None, [];
            FMax = 689, None, 2..2, [], None, [];
            FDot = 690, None, 2..2, [], None, [];
            FDotLegacy = 691, None, 2..2, [], None, [];
            FClamp = 692, None, 3..3, [], None, [];
            FSin = 693, None, 1..1, [], None, [];
            FCos = 694, None, 1..1, [], None, [];
            FPow = 695, None, 2..2, [], None, [];
            FPowLegacy = 696, None, 2..2, [], None, [];
            FSgn = 697, None, 1..1, [], None, [];
            FDotAdd = 698, None, 3..3, [], None, [];
            FDotAddLegacy = 699, None, 3..3, [], None, [];
            FLog2Legacy = 700, None, 1..1, [], None, [];
            IAnd = 704, None, 2..2, [], None, [];
            IOr = 705, None, 2..2, [], None, [];
            IXor = 706, None, 2..2, [], None, [];
            INot = 707, None, 1..1, [], None, [];
            IBitInsert = 708, None, 4..4, [], None, [];
            UBitExtract = 709, None, 3..3, [], None, [];
            SBitExtract = 710, None, 3..3, [], None, [];
            IShl = 711, None, 2..2, [], None, [];
            SShr = 712, None, 2..2, [], None, [];
            UShr = 713, None, 2..2, [], None, [];
            IBitCount = 714, None, 1..1, [], None, [];
            IBitReverse = 715, None, 1..1, [], None, [];
            IFindLsb = 716, None, 1..1, [], None, [];
            SFindMsb = 717, None, 1..1, [], None, [];
            UFindMsb = 718, None, 1..1, [], None, [];
            IAdd = 736, None, 2..2, [], None, [];
            IAddCarry = 737, None, 2..2, [], None, [];
            ISub = 738, None, 2..2, [], None, [];
            ISubBorrow = 739, None, 2..2, [], None, [];
            IAbs = 740, None, 1..1, [], None, [];
            INeg = 741, None, 1..1, [], None, [];
            IMul = 742, None, 2..2, [], None, [];
            SMulExtended = 743, None, 2..2, [], None, [];
            UMulExtended = 744, None, 2..2, [], None, [];
            UDiv = 745, None, 2..2, [], None, [];
            UMod = 746, None, 2..2, [], None, [];
            SMin = 747, None, 2..2, [], None, [];
            SMax = 748, None, 2..2, [], None, [];
            SClamp = 749, None, 3..3, [], None, [];
            UMin = 750, None, 2..2, [], None, [];
            UMax = 751, None, 2..2, [], None, [];
            UClamp = 752, None, 3..3, [], None, [];
            UMSad = 753, None, 3..3, [], None, [];
            MinValue = 768, None, 0..0, [], None, [];
            MaxValue = 769, None, 0..0, [], None, [];
            Drain = 992, None, 0..MANY, [], None, [EFFECT];
        }
    };
}

macro_rules! define_opcodes {
    ($($name:ident = $val:literal, $fl:ident $(($fla:literal))?, $min:literal..$max:tt,
       [$($lit:ident $(($litarg:expr))?),*], $rest:ident $(($restarg:ident))?, [$($attr:ident)|*];)*) => {
        /// A DXBC-IR opcode. The discriminant is the wire value.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum OpCode { $($name = $val,)* }

        impl OpCode {
            /// Every opcode, in numeric order.
            pub const ALL: &'static [OpCode] = &[$(OpCode::$name,)*];

            /// The opcode with this wire value, if assigned.
            pub fn from_u16(v: u16) -> Option<OpCode> {
                match v { $($val => Some(OpCode::$name),)* _ => None }
            }

            /// The table row of this opcode.
            pub fn info(self) -> &'static OpInfo {
                match self {
                    $(OpCode::$name => {
                        const INFO: OpInfo = OpInfo {
                            name: stringify!($name),
                            value: $val,
                            first_literal: FirstLiteral::$fl $(($fla))?,
                            min_operands: $min,
                            max_operands: $max,
                            literals: &[$(LitKind::$lit $(($litarg))?),*],
                            rest_literal: $rest $((LitKind::$restarg))?,
                            attrs: attrs!($($attr)|*),
                        };
                        &INFO
                    })*
                }
            }

            /// Parses an opcode name.
            pub fn from_name(s: &str) -> Option<OpCode> {
                match s { $(stringify!($name) => Some(OpCode::$name),)* _ => None }
            }
        }
    };
}

for_each_opcode!(define_opcodes);

/// Last declarative opcode value: opcodes at or below it are declarations, which precede code.
pub const LAST_DECLARATIVE: u16 = 63;

impl OpCode {
    pub fn name(self) -> &'static str {
        self.info().name
    }
    pub fn value(self) -> u16 {
        self as u16
    }
    /// Declarative ops (value ≤ 63) precede all code ops.
    pub fn is_declarative(self) -> bool {
        (self as u16) <= LAST_DECLARATIVE
    }
    pub fn is_terminator(self) -> bool {
        self.info().attrs.contains(Attrs::TERMINATOR)
    }
    pub fn has_effect(self) -> bool {
        self.info().attrs.contains(Attrs::EFFECT)
    }
    pub fn reads_state(self) -> bool {
        self.info().attrs.contains(Attrs::READS)
    }
    pub fn is_scoped(self) -> bool {
        self.info().attrs.contains(Attrs::SCOPED)
    }
    pub fn is_meta(self) -> bool {
        self.info().attrs.contains(Attrs::META)
    }
    /// Constant or Undef: unique per (type, flags, operands).
    pub fn is_constant_like(self) -> bool {
        matches!(self, OpCode::Constant | OpCode::Undef)
    }

    /// Index of the first literal operand for an op with `count` operands (rule FL).
    pub fn first_literal_index(self, count: usize) -> usize {
        match self.info().first_literal {
            FirstLiteral::None => count,
            FirstLiteral::At(k) => (k as usize).min(count),
            FirstLiteral::Last => count.saturating_sub(1),
        }
    }

    /// What the `i`-th literal (counted from the first literal) holds.
    pub fn literal_kind(self, i: usize) -> Option<LitKind> {
        let info = self.info();
        info.literals.get(i).copied().or(info.rest_literal)
    }

    /// True if `count` operands are allowed.
    pub fn accepts_operand_count(self, count: usize) -> bool {
        let info = self.info();
        if count < info.min_operands as usize
            || (info.max_operands != MANY && count > info.max_operands as usize)
        {
            return false;
        }
        match self {
            OpCode::Switch => count.is_multiple_of(2),
            OpCode::Phi => count.is_multiple_of(2),
            _ => true,
        }
    }

    /// True if operand `index` may reference an op later in the stream (reference §A.5 notes).
    pub fn allows_forward_ref(self, index: usize) -> bool {
        match self {
            OpCode::Semantic | OpCode::DebugName | OpCode::DebugMemberName => index == 0,
            OpCode::EntryPoint => true,
            // The callee may be defined after the caller.
            OpCode::FunctionCall => index == 0,
            OpCode::Label | OpCode::Phi | OpCode::Branch => true,
            OpCode::BranchConditional => index >= 1,
            OpCode::Switch => index == 1 || (index >= 3 && index % 2 == 1),
            OpCode::ScopedIf | OpCode::ScopedLoop | OpCode::ScopedSwitch => index == 0,
            _ => false,
        }
    }
}

impl std::fmt::Display for OpCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for &op in OpCode::ALL {
            assert!(seen.insert(op.value()), "duplicate value {}", op.value());
            assert_eq!(OpCode::from_u16(op.value()), Some(op));
            assert_eq!(OpCode::from_name(op.name()), Some(op));
            assert!(op.value() < 1024, "opcode must fit 10 bits");
        }
        // 199 ops of the pinned commit (reference §A.5) + CompositeInsert, MinValue, MaxValue.
        assert_eq!(OpCode::ALL.len(), 202);
    }

    #[test]
    fn first_literal_rule_matches_reference_table() {
        // §A.6 of the reference, one probe per group.
        assert_eq!(OpCode::Constant.first_literal_index(4), 0);
        assert_eq!(OpCode::DclInput.first_literal_index(4), 1);
        assert_eq!(OpCode::BufferLoad.first_literal_index(3), 2);
        assert_eq!(OpCode::BufferStore.first_literal_index(4), 3);
        assert_eq!(OpCode::ImageGather.first_literal_index(7), 6);
        assert_eq!(OpCode::EntryPoint.first_literal_index(3), 2);
        assert_eq!(OpCode::Label.first_literal_index(1), 0);
        assert_eq!(OpCode::Label.first_literal_index(0), 0);
        assert_eq!(OpCode::Switch.first_literal_index(6), 6);
        assert_eq!(OpCode::SetPsEarlyFragmentTest.first_literal_index(1), 1);
    }

    #[test]
    fn declarative_boundary() {
        assert!(OpCode::DclInputTarget.is_declarative());
        assert!(!OpCode::Function.is_declarative());
        assert!(OpCode::Return.is_terminator());
        assert!(!OpCode::Label.is_terminator());
    }
}
