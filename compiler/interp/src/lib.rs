//! # irc-interp: the reference interpreter of DXBC-IR
//!
//! Defines the exact meaning of every op; passes and backends are tested against it. It runs
//! both IR shapes — **raw** (functions without labels, `Scoped*` control flow, `DclTmp` +
//! `TmpLoad`/`TmpStore`, `ConsumeAs`, legacy D3D9 ops) and **structured** (`Label`, `Branch*`,
//! `Switch`, `Phi`) — and never panics: malformed modules, out-of-range accesses, running out of
//! fuel and unsupported ops all end the run with a [`Trap`] value.
//!
//! ```
//! use irc_interp::{run, RunConfig, ShaderInputs};
//! # let module = irc_ir::Module::new();
//! let inputs = ShaderInputs::random(&module, 7);
//! let result = run(&module, &inputs, &RunConfig::default());
//! assert!(result.is_err()); // an empty module has no entry point
//! ```
//!
//! ## Data model
//! - [`Value`]: void, [`Scalar`] (bool, i8…u64, f16, f32, f64, `Unknown` = raw 32 bits),
//!   vector, composite (struct members / array elements, outermost dimension first) or a
//!   descriptor handle. Scalar equality is bitwise. Min-precision types evaluate as
//!   f16/i16/u16 (what `LowerMin16Pass` picks by default).
//! - [`ShaderInputs`] / [`Outputs`]: see [`inputs`]. I/O is keyed by [`IoSlot`]
//!   (location/component or built-in number), resources by [`Binding`] (space, register);
//!   buffers are `u32` dwords, images are mip chains of 4-dword texels (raw bits interpreted by
//!   the declared type), samplers choose point/linear filtering and wrap/clamp/mirror/border.
//!   Legacy D3D9 built-ins (30–38) are ordinary input data of their declared struct/array type.
//!   [`ShaderInputs::random`] fills everything from a seed (see [`random`]).
//!
//! ## Execution
//! Vertex and geometry shaders run one invocation (GS: `EmitVertex` snapshots the outputs of
//! its stream into [`Outputs::gs_vertices`], `EmitPrimitive` starts a new strip; one GS
//! instance). Pixel shaders run a 2×2 quad; compute shaders one workgroup (workgroup id 0).
//! Lanes run independently and synchronize only at cross-lane ops (derivatives, implicit-LOD
//! sampling, compute barriers) — see [`exec`] for the scheduling and the divergent case, and
//! [`quad`] for derivative rules. `Demote` marks the lane discarded; it keeps running as a
//! helper whose UAV writes are dropped. Hull and domain shaders trap with `UnsupportedStage`.
//!
//! ## Semantics decisions
//! - **FMad is not fused**: `round(round(a·b) + c)` (also `FMadLegacy`, and the dot-product
//!   chains). dxbc-spirv splits and re-fuses multiply-adds freely, which is exact only under this
//!   reading; downstream comparisons must use the same rule.
//! - **FMin/FMax**: a NaN operand yields the other operand; `min(−0,+0) = −0`,
//!   `max(−0,+0) = +0`. `FClamp = FMin(FMax(x, lo), hi)`.
//! - **Legacy ops** (reference §B.6): `FMulLegacy` is 0 when either operand is ±0, even times
//!   inf/NaN (with the sign that dxbc-spirv's select lowering gives), `FLog2Legacy(0) = −MAX`.
//! - **Float comparisons** are ordered except `FNe`. `FRound` modes map to trunc / nearest-even
//!   / floor / ceil. Transcendentals use the host libm in f64.
//! - **Float modes** (`SetFpMode`, per width; [`fp_mode`]): under `Flush` every float
//!   computation of that width (arithmetic, comparisons, min/max, rounding, float→float
//!   conversions, derivatives) reads denormal operands as signed zero and flushes denormal
//!   results; `FAbs`/`FNeg`, `Select`, loads, stores and casts move bits unchanged. Under
//!   `RoundMode::Zero` results round toward zero. A width without `SetFpMode` is IEEE
//!   (nearest-even, denormals preserved).
//! - **Integers** wrap; shift counts, bitfield offsets and counts are masked to width − 1;
//!   `UDiv`/`UMod` by zero give all ones; find-LSB/MSB give −1 when no bit is found.
//! - **Conversions**: float→int truncates and saturates, NaN → 0; int→float and f64→f32/f16
//!   round to nearest-even; `ConvertF32toPackedF16` rounds toward zero and clamps finite values to
//!   ±65504; `ConsumeAs` follows reference §B.5.
//! - **Undef** (and uninitialized temps, outputs, scratch and LDS) is zero.
//! - **Memory**: buffers, scratch, LDS and push data are robust (out-of-range reads 0, writes
//!   dropped), with dxbc-spirv's scalar-aligned layout. `ConstantLoad` is robust too: an
//!   out-of-range **array** index reads 0 — this is what dxbc-spirv's legalization makes of it
//!   (`CleanupScratchPass::enableBoundChecking`, on by default, pads every dynamically indexed
//!   constant array and scratch array by one zero element per dimension and clamps each array
//!   index with `UMin(i, size)`; scratch stores get an `i < size` branch). The D3D9 constant
//!   registers (`InputLoad` of `LegacyConstBool/Int/Float`) also read 0 past the end (DXVK
//!   lowers them to a constant buffer over-declared by one zero element, dynamic indices
//!   clamped). Other I/O, composites and vector-component/struct-member indices trap.
//!   `BufferQuerySize` counts elements. Missing resources behave as null descriptors. Sparse
//!   feedback always reports "resident" (`CheckSparseAccess` = true).
//! - **Constants**: literals per reference §A.7; min-precision float constants hold f32 bits
//!   and are rounded to f16 (nearest-even), min-precision ints hold i32/u32 values.
//! - **GS**: `GsVertexCountIn` in [`ShaderInputs::random`] is the input primitive's vertex
//!   count. Outputs of several streams that share a slot report stream 0's final value in
//!   [`InvocationOutputs`] (emitted vertices carry their own stream's values).
//! - **Oracles, not semantics**: [`RunConfig::fold_zero_products`] evaluates non-precise
//!   `a·0` as dxbc-spirv's `ArithmeticPass` folds it (off by default). [`compare`] compares
//!   two runs (bitwise, NaN == NaN).
//! - `InterpolateAt*` return the input value (no sub-pixel interpolation model); derivatives
//!   outside pixel shaders are 0; `Barrier` outside compute and ROV locks are no-ops.
//!
//! ## Unsupported ops (trap `Unsupported`)
//! `InputTargetLoad`, `Pointer`, `MemoryLoad`, `MemoryStore`, `MemoryAtomic`. Multisampled
//! images are single-sampled (sample index ignored, `ImageQuerySamples` = 1).

pub mod compare;
pub mod exec;
pub mod image;
pub mod inputs;
mod ops;
mod program;
pub mod quad;
pub mod random;
mod resources;
pub mod trap;

/// Values and the arithmetic of pure ops live in `irc-arith`, shared with constant folding.
pub use irc_arith::{access, convert, eval, float, fp_mode, int, value};

pub use exec::{run, RunConfig};
pub use inputs::{
    AddressMode, Binding, CompareOp, Filter, GsVertex, Image, ImageDim, InvocationInputs,
    InvocationOutputs, IoSlot, Outputs, Resource, Sampler, ShaderInputs,
};
pub use trap::{Trap, TrapKind};
pub use value::{Descriptor, DescriptorClass, Scalar, Value};
