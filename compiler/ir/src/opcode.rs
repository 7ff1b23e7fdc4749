//! The opcode table: the single source of truth for every DXBC-IR opcode.
//!
//! Each row gives a one-line doc of what the op computes, the opcode's name and wire value
//! (dxbc-spirv at the pinned commit, plus the spec's historical `CompositeInsert` 224,
//! `MinValue` 768 and `MaxValue` 769), the rule that splits its operands into references and
//! literals (`FL`, reference §A.6), the allowed operand count, what each literal operand holds,
//! its attributes and classes ([`Attrs`]: commutative, lane-wise, float/int/bool, compare,
//! control, resource, legacy …) and its operand format ([`crate::format`], which names the
//! operands and generates typed accessors). Everything else — the `OpCode` enum and its rustdoc,
//! names, the reader's operand checks, the printer's literal spelling, the parser, builder
//! helpers, class queries ([`OpCode::is`]), `irc ops` — is derived from it. Type rules live in
//! the verifier, as an exhaustive `match`.

use crate::enums::{LitEnum, LitFlags};
use crate::format::Format;

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

/// Attributes of an opcode: its classes. Passes ask the table ([`OpCode::is`]) instead of
/// keeping their own lists of opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Attrs(pub u32);

impl std::ops::BitOr for Attrs {
    type Output = Attrs;
    fn bitor(self, o: Attrs) -> Attrs {
        self.union(o)
    }
}

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
    /// Swapping its two operands never changes the result (value numbering sorts them).
    pub const COMMUTATIVE: Attrs = Attrs(32);
    /// Pure, and computes component i of a vector result from component i of each vector
    /// operand with the function the scalar op uses (a scalar operand applies to every
    /// component): vectorizable lane by lane.
    pub const LANEWISE: Attrs = Attrs(64);
    /// Computes on floats: float arithmetic (float result) and float comparisons (with
    /// [`Attrs::COMPARE`], bool result).
    pub const FLOAT: Attrs = Attrs(128);
    /// Computes on integers: integer arithmetic and bit ops (integer result; the bitwise ops
    /// also take bools) and integer comparisons (with [`Attrs::COMPARE`], bool result).
    pub const INT: Attrs = Attrs(256);
    /// The result is a bool (comparisons, boolean logic, sparse checks).
    pub const BOOL: Attrs = Attrs(512);
    /// A comparison of two values (or a NaN test).
    pub const COMPARE: Attrs = Attrs(1024);
    /// Control flow: functions, blocks, branches, phis, scoped constructs.
    pub const CONTROL: Attrs = Attrs(2048);
    /// Declares, addresses or accesses a resource or memory (buffers, images, samplers,
    /// LDS, scratch, push data, pointers).
    pub const RESOURCE: Attrs = Attrs(4096);
    /// D3D9 legacy semantics (a zero product is zero even for inf/NaN …).
    pub const LEGACY: Attrs = Attrs(8192);
    pub const NONE: Attrs = Attrs(0);

    /// Every class, with its name (for `irc ops`).
    pub const NAMED: &'static [(&'static str, Attrs)] = &[
        ("terminator", Attrs::TERMINATOR),
        ("effect", Attrs::EFFECT),
        ("reads", Attrs::READS),
        ("scoped", Attrs::SCOPED),
        ("meta", Attrs::META),
        ("commutative", Attrs::COMMUTATIVE),
        ("lanewise", Attrs::LANEWISE),
        ("float", Attrs::FLOAT),
        ("int", Attrs::INT),
        ("bool", Attrs::BOOL),
        ("compare", Attrs::COMPARE),
        ("control", Attrs::CONTROL),
        ("resource", Attrs::RESOURCE),
        ("legacy", Attrs::LEGACY),
    ];

    pub const fn union(self, o: Attrs) -> Attrs {
        Attrs(self.0 | o.0)
    }
    pub const fn contains(self, o: Attrs) -> bool {
        self.0 & o.0 == o.0
    }
    /// The names of the classes set, in [`Attrs::NAMED`] order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Attrs::NAMED
            .iter()
            .filter(move |(_, a)| self.contains(*a))
            .map(|(n, _)| *n)
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
    /// The operand format: operand names and the typed view that reads them.
    pub format: Format,
    /// What the op computes, in one line.
    pub doc: &'static str,
}

macro_rules! attrs {
    () => { Attrs::NONE };
    ($a:ident $(| $b:ident)*) => { Attrs::$a $(.union(Attrs::$b))* };
}

/// Invokes `$m!` with the whole table. Each row is a one-line doc comment, then
/// `Name = value, FL, min..max operands, [literal kinds], rest literal kind, [classes], format;`
/// (the format, in [`crate::format`], names the operands).
macro_rules! for_each_opcode {
    ($m:ident) => {
        $m! {
            /// An invalid opcode (zero): never produced, rejected by the verifier.
            Unknown = 0, None, 0..0, [], None, [], Nullary;
            /// Declares the shader's entry: its function, an optional patch-constant function (hull shaders) and the stage.
            EntryPoint = 1, Last, 2..3, [Enum(LitEnum::ShaderStage)], None, [], EntryPoint;
            /// Attaches an HLSL semantic name and index to an input or output declaration.
            Semantic = 2, At(1), 3..MANY, [Int], Some(Str), [META], Semantic;
            /// Attaches a debug name to any op.
            DebugName = 3, At(1), 2..MANY, [], Some(Str), [META], DebugName;
            /// Attaches a debug name to one struct member of a declaration.
            DebugMemberName = 4, At(1), 3..MANY, [Int], Some(Str), [META], DebugMemberName;
            /// A constant of the result type; the literals are its scalars, flattened in member order.
            Constant = 8, At(0), 0..MANY, [], Some(Typed), [], Constant;
            /// An undefined value of the result type.
            Undef = 9, None, 0..0, [], None, [], Nullary;
            /// Sets the compute shader's workgroup size x, y, z.
            SetCsWorkgroupSize = 16, At(1), 4..4, [Int, Int, Int], None, [], SetCsWorkgroupSize;
            /// Sets the geometry shader's instance count.
            SetGsInstances = 17, At(1), 2..2, [Int], None, [], SetCount;
            /// Sets the geometry shader's input primitive type.
            SetGsInputPrimitive = 18, At(1), 2..2, [Enum(LitEnum::PrimitiveType)], None, [], SetPrimitive;
            /// Sets the geometry shader's maximum output vertex count.
            SetGsOutputVertices = 19, At(1), 2..2, [Int], None, [], SetCount;
            /// Sets the geometry shader's output primitive type and stream mask.
            SetGsOutputPrimitive = 20, At(1), 3..3, [Enum(LitEnum::PrimitiveType), Int], None, [], SetGsOutputPrimitive;
            /// Forces early depth/stencil tests in the pixel shader.
            SetPsEarlyFragmentTest = 21, None, 1..1, [], None, [], EntryMode;
            /// Promises the pixel shader only writes depth greater or equal to the interpolated depth.
            SetPsDepthGreaterEqual = 22, None, 1..1, [], None, [], EntryMode;
            /// Promises the pixel shader only writes depth less or equal to the interpolated depth.
            SetPsDepthLessEqual = 23, None, 1..1, [], None, [], EntryMode;
            /// Sets the tessellator's output primitive, winding order and partitioning.
            SetTessPrimitive = 24, At(1), 4..4, [Enum(LitEnum::PrimitiveType), Enum(LitEnum::TessWindingOrder), Enum(LitEnum::TessPartitioning)], None, [], SetTessPrimitive;
            /// Sets the tessellation domain.
            SetTessDomain = 25, At(1), 2..2, [Enum(LitEnum::PrimitiveType)], None, [], SetPrimitive;
            /// Sets the hull shader's input and output control point counts.
            SetTessControlPoints = 26, At(1), 3..3, [Int, Int], None, [], SetTessControlPoints;
            /// Sets the rounding and denormal modes for floats of the result type.
            SetFpMode = 27, At(1), 3..3, [Flags(LitFlags::RoundMode), Flags(LitFlags::DenormMode)], None, [], SetFpMode;
            /// Declares a user input at a location and first component, with interpolation modes.
            DclInput = 32, At(1), 3..4, [Int, Int, Flags(LitFlags::InterpolationModes)], None, [], DclInput;
            /// Declares a built-in input (position, vertex id …), with interpolation modes.
            DclInputBuiltIn = 33, At(1), 2..3, [Enum(LitEnum::BuiltIn), Flags(LitFlags::InterpolationModes)], None, [], DclInputBuiltIn;
            /// Declares a user output at a location and first component (and GS stream).
            DclOutput = 34, At(1), 3..4, [Int, Int, Int], None, [], DclOutput;
            /// Declares a built-in output (position, depth …) (and GS stream).
            DclOutputBuiltIn = 35, At(1), 2..3, [Enum(LitEnum::BuiltIn), Int], None, [], DclOutputBuiltIn;
            /// Declares a specialization constant with an id and default value.
            DclSpecConstant = 36, At(1), 3..MANY, [Int], Some(Typed), [], DclSpecConstant;
            /// Declares push data (root constants) at a byte offset, visible to a set of stages.
            DclPushData = 37, At(1), 3..3, [Int, Flags(LitFlags::ShaderStageMask)], None, [], DclPushData;
            /// Declares a sampler (array) at space, register, count.
            DclSampler = 38, At(1), 4..4, [Int, Int, Int], None, [RESOURCE], DclBinding;
            /// Declares a constant buffer (array) at space, register, count.
            DclCbv = 39, At(1), 4..4, [Int, Int, Int], None, [RESOURCE], DclBinding;
            /// Declares a shader resource view (array) of a resource kind.
            DclSrv = 40, At(1), 5..5, [Int, Int, Int, Enum(LitEnum::ResourceKind)], None, [RESOURCE], DclBinding;
            /// Declares an unordered access view (array) of a resource kind, with UAV flags.
            DclUav = 41, At(1), 6..6, [Int, Int, Int, Enum(LitEnum::ResourceKind), Flags(LitFlags::UavFlags)], None, [RESOURCE], DclBinding;
            /// Declares the atomic counter of a UAV.
            DclUavCounter = 42, None, 2..2, [], None, [RESOURCE], DclUavCounter;
            /// Declares a workgroup-shared (LDS) variable of the result type.
            DclLds = 43, None, 1..1, [], None, [], EntryMode;
            /// Declares a private scratch array of the result type.
            DclScratch = 44, None, 1..1, [], None, [], EntryMode;
            /// Declares a temporary (pre-SSA register) of the result type.
            DclTmp = 45, None, 1..1, [], None, [], EntryMode;
            /// Declares a function parameter of the result type.
            DclParam = 46, None, 0..0, [], None, [], Nullary;
            /// Declares transform feedback for an output: buffer, stride, offset.
            DclXfb = 47, At(1), 4..4, [Int, Int, Int], None, [], DclXfb;
            /// Declares a readable render target (framebuffer fetch); −1 is depth-stencil.
            DclInputTarget = 48, At(1), 6..6, [Int, Int, Int, Enum(LitEnum::ResourceKind), SInt], None, [RESOURCE], DclInputTarget;
            /// Starts a function returning the result type, with its parameters.
            Function = 64, None, 0..MANY, [], None, [EFFECT | CONTROL], Function;
            /// Ends the current function.
            FunctionEnd = 65, None, 0..0, [], None, [EFFECT | CONTROL], Nullary;
            /// Calls a function with arguments; the result is its return value.
            FunctionCall = 66, None, 1..MANY, [], None, [EFFECT | CONTROL], FunctionCall;
            /// Starts a block; a construct header also names its merge (and continue) block.
            Label = 96, Last, 1..3, [Enum(LitEnum::Construct)], None, [EFFECT | CONTROL], Label;
            /// Jumps to a block.
            Branch = 97, None, 1..1, [], None, [TERMINATOR | EFFECT | CONTROL], Branch;
            /// Jumps to one of two blocks on a bool.
            BranchConditional = 98, None, 3..3, [], None, [TERMINATOR | EFFECT | CONTROL], BranchConditional;
            /// Jumps to the block of the case equal to the selector, else to the default block.
            Switch = 99, None, 2..MANY, [], None, [TERMINATOR | EFFECT | CONTROL], Switch;
            /// Marks a point control never reaches.
            Unreachable = 100, None, 0..0, [], None, [TERMINATOR | EFFECT | CONTROL], Nullary;
            /// Returns from the function, with a value unless it returns void.
            Return = 101, None, 0..1, [], None, [TERMINATOR | EFFECT | CONTROL], Return;
            /// Picks the value paired with the predecessor block control came from.
            Phi = 102, None, 0..MANY, [], None, [CONTROL], Phi;
            /// Opens an if (unstructured source) on a bool, naming its end.
            ScopedIf = 128, None, 2..2, [], None, [SCOPED | EFFECT | CONTROL], ScopedIf;
            /// Starts the else part of an if.
            ScopedElse = 129, None, 1..1, [], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Closes an if.
            ScopedEndIf = 130, None, 1..1, [], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Opens a loop, naming its end.
            ScopedLoop = 131, None, 1..1, [], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Leaves the loop.
            ScopedLoopBreak = 132, None, 1..1, [], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Jumps to the next iteration of the loop.
            ScopedLoopContinue = 133, None, 1..1, [], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Closes a loop (jumps back to its start).
            ScopedEndLoop = 134, None, 1..1, [], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Opens a switch on a selector, naming its end.
            ScopedSwitch = 135, None, 2..2, [], None, [SCOPED | EFFECT | CONTROL], ScopedSwitch;
            /// Starts the code of one case value.
            ScopedSwitchCase = 136, At(1), 2..2, [CaseValue], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Starts the code of the default case.
            ScopedSwitchDefault = 137, None, 1..1, [], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Leaves the switch.
            ScopedSwitchBreak = 138, None, 1..1, [], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Closes a switch.
            ScopedEndSwitch = 139, None, 1..1, [], None, [SCOPED | EFFECT | CONTROL], Scoped;
            /// Waits for invocations in an execution scope and orders memory in a memory scope.
            Barrier = 160, At(0), 3..3, [Enum(LitEnum::Scope), Enum(LitEnum::Scope), Flags(LitFlags::MemoryTypes)], None, [EFFECT], Barrier;
            /// Converts floats to another float width (rounding to nearest even).
            ConvertFtoF = 192, None, 1..1, [], None, [LANEWISE], Arith;
            /// Converts floats to integers, rounding toward zero and saturating (NaN → 0).
            ConvertFtoI = 193, None, 1..1, [], None, [LANEWISE], Arith;
            /// Converts integers (signed per the operand type) to floats.
            ConvertItoF = 194, None, 1..1, [], None, [LANEWISE], Arith;
            /// Converts integers to another width (sign- or zero-extends per the operand type).
            ConvertItoI = 195, None, 1..1, [], None, [LANEWISE], Arith;
            /// Packs a vec2 of f32 into one u32 of two f16 halves (x in the low half).
            ConvertF32toPackedF16 = 196, None, 1..1, [], None, [], Arith;
            /// Unpacks a u32 of two f16 halves into a vec2 of f32.
            ConvertPackedF16toF32 = 197, None, 1..1, [], None, [], Arith;
            /// Reinterprets the bits of a value as the result type (same total size).
            Cast = 198, None, 1..1, [], None, [], Arith;
            /// Reinterprets a value of unknown type as the result type (before type resolution).
            ConsumeAs = 199, None, 1..1, [], None, [], Arith;
            /// The composite with the element at a constant address replaced by a value.
            CompositeInsert = 224, None, 3..3, [], None, [], CompositeInsert;
            /// The element of a composite (vector, struct, array) at a constant address.
            CompositeExtract = 225, None, 2..2, [], None, [], CompositeExtract;
            /// A vector, struct or array built from its members in order.
            CompositeConstruct = 226, None, 1..MANY, [], None, [], CompositeConstruct;
            /// True if the sparse feedback of a resource read says all texels were resident.
            CheckSparseAccess = 256, None, 1..1, [], None, [BOOL], Arith;
            /// Reads a parameter of the current function.
            ParamLoad = 288, None, 2..2, [], None, [], ParamLoad;
            /// Reads a temporary (before SSA construction).
            TmpLoad = 289, None, 1..1, [], None, [READS], TmpLoad;
            /// Writes a temporary (before SSA construction).
            TmpStore = 290, None, 2..2, [], None, [EFFECT], TmpStore;
            /// Reads the scratch array at an address.
            ScratchLoad = 291, None, 2..2, [], None, [READS | RESOURCE], Load;
            /// Writes the scratch array at an address.
            ScratchStore = 292, None, 3..3, [], None, [EFFECT | RESOURCE], Store;
            /// Reads workgroup-shared memory at an address.
            LdsLoad = 293, None, 2..2, [], None, [READS | RESOURCE], Load;
            /// Writes workgroup-shared memory at an address.
            LdsStore = 294, None, 3..3, [], None, [EFFECT | RESOURCE], Store;
            /// Reads push data at an address.
            PushDataLoad = 295, None, 2..2, [], None, [RESOURCE], Load;
            /// Reads a render target's current value (framebuffer fetch) at a sample.
            InputTargetLoad = 296, None, 2..2, [], None, [READS | RESOURCE], Load;
            /// Reads an input at an address (null: the whole input).
            InputLoad = 297, None, 2..2, [], None, [], Load;
            /// Reads back an output at an address.
            OutputLoad = 298, None, 2..2, [], None, [READS], Load;
            /// Writes an output at an address (null: the whole output).
            OutputStore = 299, None, 3..3, [], None, [EFFECT], Store;
            /// The descriptor of a resource declaration, at an index into its array.
            DescriptorLoad = 300, None, 2..2, [], None, [RESOURCE], DescriptorLoad;
            /// Reads a buffer (CBV, SRV, UAV) at an address, with a known alignment.
            BufferLoad = 301, At(2), 3..3, [Int], None, [READS | RESOURCE], AlignedLoad;
            /// Writes a UAV buffer at an address, with a known alignment.
            BufferStore = 302, At(3), 4..4, [Int], None, [EFFECT | RESOURCE], AlignedStore;
            /// The element (or byte) count of a buffer.
            BufferQuerySize = 303, None, 1..1, [], None, [RESOURCE], Query;
            /// Reads memory through a pointer at an address, with a known alignment.
            MemoryLoad = 304, At(2), 3..3, [Int], None, [READS | RESOURCE], AlignedLoad;
            /// Writes memory through a pointer at an address, with a known alignment.
            MemoryStore = 305, At(3), 4..4, [Int], None, [EFFECT | RESOURCE], AlignedStore;
            /// Reads a constant composite at a (dynamic) address; out of range reads zero.
            ConstantLoad = 306, None, 2..2, [], None, [], Load;
            /// Atomically updates workgroup-shared memory; the result is the old value.
            LdsAtomic = 320, Last, 4..4, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS | RESOURCE], Atomic;
            /// Atomically updates a UAV buffer element; the result is the old value.
            BufferAtomic = 321, Last, 4..4, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS | RESOURCE], Atomic;
            /// Atomically updates a UAV image texel; the result is the old value.
            ImageAtomic = 322, Last, 5..5, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS | RESOURCE], ImageAtomic;
            /// Increments or decrements a UAV counter; the result is the old value.
            CounterAtomic = 323, Last, 2..2, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS | RESOURCE], CounterAtomic;
            /// Atomically updates memory through a pointer; the result is the old value.
            MemoryAtomic = 324, Last, 4..4, [Enum(LitEnum::AtomicOp)], None, [EFFECT | READS | RESOURCE], Atomic;
            /// Reads a texel without filtering (mip, layer, coordinate, sample, offset).
            ImageLoad = 352, None, 6..6, [], None, [READS | RESOURCE], ImageLoad;
            /// Writes a texel of a UAV image.
            ImageStore = 353, None, 4..4, [], None, [EFFECT | RESOURCE], ImageStore;
            /// The size (and layer count) of an image at a mip level.
            ImageQuerySize = 354, None, 2..2, [], None, [RESOURCE], ImageQuerySize;
            /// The mip level count of an image.
            ImageQueryMips = 355, None, 1..1, [], None, [RESOURCE], Query;
            /// The sample count of an image.
            ImageQuerySamples = 356, None, 1..1, [], None, [RESOURCE], Query;
            /// Filters a texture with a sampler: implicit or explicit lod, bias, clamp, gradients, depth compare.
            ImageSample = 357, None, 11..11, [], None, [READS | RESOURCE], ImageSample;
            /// Gathers one component of the four texels a bilinear sample would read.
            ImageGather = 358, At(6), 7..7, [Int], None, [READS | RESOURCE], ImageGather;
            /// The lod a sample at a coordinate would use (clamped and unclamped).
            ImageComputeLod = 359, None, 3..3, [], None, [READS | RESOURCE], ImageComputeLod;
            /// A typed pointer from a 64-bit address, with UAV flags.
            Pointer = 384, At(1), 2..2, [Flags(LitFlags::UavFlags)], None, [], Pointer;
            /// Emits a vertex to a geometry shader output stream.
            EmitVertex = 416, At(0), 1..1, [Int], None, [EFFECT], Emit;
            /// Ends the current primitive of a geometry shader output stream.
            EmitPrimitive = 417, At(0), 1..1, [Int], None, [EFFECT], Emit;
            /// Discards the pixel (it keeps running as a helper invocation for derivatives).
            Demote = 448, None, 0..0, [], None, [EFFECT], Nullary;
            /// Interpolates an input at the pixel's centroid.
            InterpolateAtCentroid = 480, None, 2..2, [], None, [READS], Load;
            /// Interpolates an input at a sample position.
            InterpolateAtSample = 481, None, 3..3, [], None, [READS], InterpolateAtSample;
            /// Interpolates an input at an offset from the pixel centre.
            InterpolateAtOffset = 482, None, 3..3, [], None, [READS], InterpolateAtOffset;
            /// The screen-space derivative of a value along x (coarse or fine).
            DerivX = 512, At(1), 2..2, [Enum(LitEnum::DerivativeMode)], None, [READS], Deriv;
            /// The screen-space derivative of a value along y (coarse or fine).
            DerivY = 513, At(1), 2..2, [Enum(LitEnum::DerivativeMode)], None, [READS], Deriv;
            /// Enters a rasterizer-ordered critical section.
            RovScopedLockBegin = 544, At(0), 2..2, [Flags(LitFlags::MemoryTypes), Flags(LitFlags::RovScope)], None, [EFFECT], RovScopedLockBegin;
            /// Leaves a rasterizer-ordered critical section.
            RovScopedLockEnd = 545, At(0), 1..1, [Flags(LitFlags::MemoryTypes)], None, [EFFECT], RovScopedLockEnd;
            /// a == b for floats (false if either is NaN).
            FEq = 576, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | BOOL | COMPARE | FLOAT], Arith;
            /// a != b for floats (true if either is NaN).
            FNe = 577, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | BOOL | COMPARE | FLOAT], Arith;
            /// a < b for floats.
            FLt = 578, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | FLOAT], Arith;
            /// a <= b for floats.
            FLe = 579, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | FLOAT], Arith;
            /// a > b for floats.
            FGt = 580, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | FLOAT], Arith;
            /// a >= b for floats.
            FGe = 581, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | FLOAT], Arith;
            /// True if a is NaN.
            FIsNan = 582, None, 1..1, [], None, [LANEWISE | BOOL | COMPARE | FLOAT], Arith;
            /// a == b for integers.
            IEq = 583, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a != b for integers.
            INe = 584, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a < b for signed integers.
            SLt = 585, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a <= b for signed integers.
            SLe = 586, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a > b for signed integers.
            SGt = 587, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a >= b for signed integers.
            SGe = 588, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a < b for unsigned integers.
            ULt = 589, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a <= b for unsigned integers.
            ULe = 590, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a > b for unsigned integers.
            UGt = 591, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a >= b for unsigned integers.
            UGe = 592, None, 2..2, [], None, [LANEWISE | BOOL | COMPARE | INT], Arith;
            /// a && b.
            BAnd = 608, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | BOOL], Arith;
            /// a || b.
            BOr = 609, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | BOOL], Arith;
            /// a == b for bools.
            BEq = 610, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | BOOL], Arith;
            /// a != b for bools (exclusive or).
            BNe = 611, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | BOOL], Arith;
            /// !a.
            BNot = 612, None, 1..1, [], None, [LANEWISE | BOOL], Arith;
            /// if_true where cond holds, else if_false (per component for a vector cond).
            Select = 640, None, 3..3, [], None, [LANEWISE], Select;
            /// abs(a).
            FAbs = 672, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// -a.
            FNeg = 673, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// a + b.
            FAdd = 674, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | FLOAT], Arith;
            /// a - b.
            FSub = 675, None, 2..2, [], None, [LANEWISE | FLOAT], Arith;
            /// a * b.
            FMul = 676, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | FLOAT], Arith;
            /// a * b, except that ±0 times anything (inf, NaN too) is +0 (D3D9).
            FMulLegacy = 677, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | FLOAT | LEGACY], Arith;
            /// a * b + c (not fused).
            FMad = 678, None, 3..3, [], None, [LANEWISE | FLOAT], Arith;
            /// a * b + c with the legacy 0 * anything = 0 product.
            FMadLegacy = 679, None, 3..3, [], None, [LANEWISE | FLOAT | LEGACY], Arith;
            /// a / b.
            FDiv = 680, None, 2..2, [], None, [LANEWISE | FLOAT], Arith;
            /// 1 / a.
            FRcp = 681, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// sqrt(a).
            FSqrt = 682, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// 1 / sqrt(a).
            FRsq = 683, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// 2 to the power a.
            FExp2 = 684, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// log2(a).
            FLog2 = 685, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// a - floor(a).
            FFract = 686, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// a rounded by the mode: nearest even, toward -inf (floor), +inf (ceil) or zero (trunc).
            FRound = 687, At(1), 2..2, [Flags(LitFlags::RoundMode)], None, [LANEWISE | FLOAT], FRound;
            /// min(a, b); a NaN operand yields the other.
            FMin = 688, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | FLOAT], Arith;
            /// max(a, b); a NaN operand yields the other.
            FMax = 689, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | FLOAT], Arith;
            /// The dot product of two vectors, summed left to right, each step rounded.
            FDot = 690, None, 2..2, [], None, [COMMUTATIVE | FLOAT], Dot;
            /// The dot product with legacy 0 * anything = 0 products.
            FDotLegacy = 691, None, 2..2, [], None, [COMMUTATIVE | FLOAT | LEGACY], Dot;
            /// min(max(a, lo), hi).
            FClamp = 692, None, 3..3, [], None, [LANEWISE | FLOAT], Clamp;
            /// sin(a), a in radians.
            FSin = 693, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// cos(a), a in radians.
            FCos = 694, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// exp2(b * log2(a)): a to the power b, NaN for a < 0.
            FPow = 695, None, 2..2, [], None, [LANEWISE | FLOAT], Arith;
            /// exp2(b * log2(a)) with the product as FMulLegacy (D3D9 pow).
            FPowLegacy = 696, None, 2..2, [], None, [LANEWISE | FLOAT | LEGACY], Arith;
            /// The sign of a: ±1 for nonzero a, a itself for ±0 and NaN.
            FSgn = 697, None, 1..1, [], None, [LANEWISE | FLOAT], Arith;
            /// dot(a, b) + c.
            FDotAdd = 698, None, 3..3, [], None, [FLOAT], Dot;
            /// dot(a, b) + c with legacy 0 * anything = 0 products.
            FDotAddLegacy = 699, None, 3..3, [], None, [FLOAT | LEGACY], Dot;
            /// log2(abs(a)), -MAX for 0 (D3D9 log).
            FLog2Legacy = 700, None, 1..1, [], None, [LANEWISE | FLOAT | LEGACY], Arith;
            /// a & b (on bool: logical and).
            IAnd = 704, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | INT], Arith;
            /// a | b (on bool: logical or).
            IOr = 705, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | INT], Arith;
            /// a ^ b (on bool: logical xor).
            IXor = 706, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | INT], Arith;
            /// !a, every bit flipped (on bool: logical not).
            INot = 707, None, 1..1, [], None, [LANEWISE | INT], Arith;
            /// base with count bits at offset replaced by the low bits of insert.
            IBitInsert = 708, None, 4..4, [], None, [INT], IBitInsert;
            /// count bits of value from offset, zero-extended.
            UBitExtract = 709, None, 3..3, [], None, [INT], BitExtract;
            /// count bits of value from offset, sign-extended.
            SBitExtract = 710, None, 3..3, [], None, [INT], BitExtract;
            /// a << (b masked to the bit width).
            IShl = 711, None, 2..2, [], None, [LANEWISE | INT], Arith;
            /// a >> (b masked to the bit width), arithmetic.
            SShr = 712, None, 2..2, [], None, [LANEWISE | INT], Arith;
            /// a >> (b masked to the bit width), logical.
            UShr = 713, None, 2..2, [], None, [LANEWISE | INT], Arith;
            /// The number of set bits of a.
            IBitCount = 714, None, 1..1, [], None, [INT], Arith;
            /// a with its bits in reverse order.
            IBitReverse = 715, None, 1..1, [], None, [INT], Arith;
            /// The index of the lowest set bit of a, or -1 (all ones) if none.
            IFindLsb = 716, None, 1..1, [], None, [INT], Arith;
            /// The index of the highest bit differing from the sign bit of a, or -1.
            SFindMsb = 717, None, 1..1, [], None, [INT], Arith;
            /// The index of the highest set bit of a, or -1.
            UFindMsb = 718, None, 1..1, [], None, [INT], Arith;
            /// a + b, wrapping.
            IAdd = 736, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | INT], Arith;
            /// vec2(a + b wrapping, carry out).
            IAddCarry = 737, None, 2..2, [], None, [COMMUTATIVE | INT], Arith;
            /// a - b, wrapping.
            ISub = 738, None, 2..2, [], None, [LANEWISE | INT], Arith;
            /// vec2(a - b wrapping, borrow out).
            ISubBorrow = 739, None, 2..2, [], None, [INT], Arith;
            /// abs(a), wrapping (abs of the minimum is itself).
            IAbs = 740, None, 1..1, [], None, [LANEWISE | INT], Arith;
            /// -a, wrapping.
            INeg = 741, None, 1..1, [], None, [LANEWISE | INT], Arith;
            /// a * b, low bits.
            IMul = 742, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | INT], Arith;
            /// vec2(low, high) of the signed full product a * b.
            SMulExtended = 743, None, 2..2, [], None, [COMMUTATIVE | INT], Arith;
            /// vec2(low, high) of the unsigned full product a * b.
            UMulExtended = 744, None, 2..2, [], None, [COMMUTATIVE | INT], Arith;
            /// a / b unsigned (division by zero gives all ones).
            UDiv = 745, None, 2..2, [], None, [LANEWISE | INT], Arith;
            /// a % b unsigned (by zero gives all ones).
            UMod = 746, None, 2..2, [], None, [LANEWISE | INT], Arith;
            /// min(a, b) signed.
            SMin = 747, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | INT], Arith;
            /// max(a, b) signed.
            SMax = 748, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | INT], Arith;
            /// min(max(a, lo), hi) signed.
            SClamp = 749, None, 3..3, [], None, [LANEWISE | INT], Clamp;
            /// min(a, b) unsigned.
            UMin = 750, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | INT], Arith;
            /// max(a, b) unsigned.
            UMax = 751, None, 2..2, [], None, [COMMUTATIVE | LANEWISE | INT], Arith;
            /// min(max(a, lo), hi) unsigned.
            UClamp = 752, None, 3..3, [], None, [LANEWISE | INT], Clamp;
            /// Masked sum of absolute byte differences of a and b (bytes of a that are 0 skipped), plus c.
            UMSad = 753, None, 3..3, [], None, [INT], Arith;
            /// The smallest finite value of the scalar result type.
            MinValue = 768, None, 0..0, [], None, [], Nullary;
            /// The largest finite value of the scalar result type.
            MaxValue = 769, None, 0..0, [], None, [], Nullary;
            /// Keeps values alive (test harness); the result is its first operand.
            Drain = 992, None, 0..MANY, [], None, [EFFECT], Drain;
        }
    };
}

macro_rules! define_opcodes {
    ($(#[doc = $doc:literal] $name:ident = $val:literal, $fl:ident $(($fla:literal))?, $min:literal..$max:tt,
       [$($lit:ident $(($litarg:expr))?),*], $rest:ident $(($restarg:ident))?, [$($attr:ident)|*],
       $format:ident;)*) => {
        /// A DXBC-IR opcode. The discriminant is the wire value. Each variant's doc says what
        /// it computes; its operands are named by its [`Format`] (`irc ops NAME` prints both).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum OpCode { $(#[doc = $doc] #[doc = concat!("\n\nOperands: [`", stringify!($format), "`](crate::format::", stringify!($format), ").")] $name = $val,)* }

        impl OpCode {
            /// Every opcode, in numeric order.
            pub const ALL: &'static [OpCode] = &[$(OpCode::$name,)*];

            /// The opcode with this wire value, if assigned.
            pub fn from_u16(v: u16) -> Option<OpCode> {
                match v { $($val => Some(OpCode::$name),)* _ => None }
            }

            /// The table row of this opcode.
            #[inline]
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
                            format: Format::$format,
                            doc: $doc.trim_ascii_start(),
                        };
                        &INFO
                    })*
                }
            }

            /// The classes of this opcode: [`OpInfo::attrs`] from a table indexed by value (the
            /// class tests below run for nearly every op of every pass).
            #[inline]
            pub fn attrs(self) -> Attrs {
                const TABLE: [Attrs; OPCODE_VALUE_BOUND] = {
                    let mut t = [Attrs::NONE; OPCODE_VALUE_BOUND];
                    $(t[$val] = attrs!($($attr)|*);)*
                    t
                };
                TABLE[self as usize]
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

/// One past the highest opcode value: opcodes fit 10 bits (tables indexed by value use it).
pub const OPCODE_VALUE_BOUND: usize = 1024;

impl OpCode {
    pub fn name(self) -> &'static str {
        self.info().name
    }
    pub fn value(self) -> u16 {
        self as u16
    }
    /// Declarative ops (value ≤ 63) precede all code ops.
    #[inline]
    pub fn is_declarative(self) -> bool {
        (self as u16) <= LAST_DECLARATIVE
    }
    #[inline]
    pub fn is_terminator(self) -> bool {
        self.attrs().contains(Attrs::TERMINATOR)
    }
    #[inline]
    pub fn has_effect(self) -> bool {
        self.attrs().contains(Attrs::EFFECT)
    }
    #[inline]
    pub fn reads_state(self) -> bool {
        self.attrs().contains(Attrs::READS)
    }
    #[inline]
    pub fn is_scoped(self) -> bool {
        self.attrs().contains(Attrs::SCOPED)
    }
    #[inline]
    pub fn is_meta(self) -> bool {
        self.attrs().contains(Attrs::META)
    }
    /// True if the op is in every class of `a` (`op.is(Attrs::COMMUTATIVE)`).
    #[inline]
    pub fn is(self, a: Attrs) -> bool {
        self.attrs().contains(a)
    }
    /// The operand format.
    #[inline]
    pub fn format(self) -> Format {
        self.info().format
    }
    /// What the op computes, in one line.
    pub fn doc(self) -> &'static str {
        self.info().doc
    }
    /// Constant or Undef: unique per (type, flags, operands).
    #[inline]
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
            assert!(
                usize::from(op.value()) < OPCODE_VALUE_BOUND,
                "opcode must fit 10 bits"
            );
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
