//! The Flash runtime's upload-time AGAL validator (§7), on any bytes.
//!
//! [`validate`] checks one program and returns the first broken rule as a [`ValidationError`]
//! carrying the runtime's error number, the 1-based token (as Flash prints it, "at token 2 of
//! fragment program") and the byte offset of the offending field. [`validate_pair`] adds the
//! rules checked when a vertex/fragment pair is uploaded together (#3757, #3632).
//!
//! It reads raw fields with the layouts of [`crate::isa`] (not through [`crate::decode`]), so
//! that reserved and unused bits are seen.
//!
//! # Rules, in the order they are checked
//!
//! * Header and size: empty → 3615; shorter than the header or bad magic → 3612 (what real
//!   Flash reports, §7.1, so 3616 is never reported); bad version → 3617; byte 5 → 3618;
//!   shader type → 3619; version above the profile's → 3725; no token or a partial token →
//!   3615; too many tokens → 3629.
//! * Per token: opcode out of range → 3620; `sgn` → 3621; stage → 3622 / 3803; version →
//!   3726 (3805 for `tld`, which needs AGAL 4); non-zero unused dest → 3627, unused source →
//!   3636.
//! * Destination: reserved bits 3654; type 3655; roles 3651 / 3652 / 3649 / 3650 / 3750 /
//!   3788 / 3789 / 3786; index bounds 3656–3661, 3749 (depth), 3760 (colour output index in a
//!   profile without MRT); mask zero 3653; depth mask not `.x` 3756; nrm/crs/m33/m34 not exactly
//!   `.xyz` 3628; outputs written inside a conditional 3751; fragment colour with a partial mask
//!   3701; colour written twice (AGAL ≥ 2) 3744.
//! * Sources: reserved 3654; type 3655; sampler in a vertex program 3637, elsewhere than a
//!   texture opcode's source 2 3638; indirect: tex source 3641, fragment 3639, not into
//!   constants 3640, bad index type 3642, indirect fields in direct mode 3643; roles 3644 /
//!   3645 / 3646 / 3749 (depth read, v1) / 3788 / 3789; bounds 3656–3661 (matrix rows
//!   included); temporaries: never written 3647, a swizzled component not written 3648 (the
//!   index register of an indirect source included; §7.6 flow-insensitive semantics).
//! * Combinations: both sources indirect 3626; both constants 3625; a single-source opcode
//!   other than `mov` reading a constant → 3625 too (agal.cpp rule without a number of its own,
//!   [`ValidateOptions::unary_constant`]); matrix source 2 not identity 3689; kil/if sources
//!   not scalar 3703; if sources identical 3758.
//! * Samplers: type not 5 3693; reserved 3654; index 3656; dimension 3664 (3d and unknown);
//!   filter 3665; mipmap 3666; wrap 3667; unknown special bit 3668; unknown format → 3606 (no
//!   upload-time number exists); cube needs clamp 3662 and mipmapping 3704; ted with bias 3740,
//!   without mipmapping 3743; tex in a conditional with non-varying coordinates 3741; second
//!   use of a sampler with other fields 3696.
//! * Control flow (AGAL ≥ 2): ddx/ddy in a conditional 3742; nesting deeper than 4 3624; els
//!   outside an if or twice 3752; eif without if 3623; empty branch 3748; block open at the end
//!   3739.
//! * At the end: fragment colour never written 3634; colour outputs not consecutive from 0
//!   3775; vertex `op` lanes not all written 3635; vertex varying partially written 3633.
//! * Pair: versions differ 3757; a fragment-read varying lane the vertex program does not
//!   write 3632.
//!
//! Not checked (draw-time rules, need the bound resources): 3606/3763 format vs texture,
//! 3607, 3611, 3697, 3700, 3715–3721, 3753/3755, 3774, 3776, 3778. 3804 (tld anisotropic) is
//! unreachable in versions 1–3 (tld needs 4).

use std::fmt;

use crate::decode::RawToken;
use crate::isa::{
    self, dest, sampler, source, swizzle, OpClass, Opcode, Profile, RegType, ShaderKind, StageRule,
    HEADER_BYTES, TOKEN_BYTES,
};
use irc_backend::bits::unknown_mask;

/// Validator settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidateOptions {
    /// The Context3D profile (version limit, temporaries, MRT).
    pub profile: Profile,
    /// Reject single-source opcodes other than `mov` reading a constant (agal.cpp; reported
    /// as #3625).
    pub unary_constant: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            profile: Profile::default(),
            unary_constant: true,
        }
    }
}

/// A broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// The runtime error number (#36xx/#37xx/#38xx).
    pub code: u32,
    /// 1-based token index, when the error is in a token.
    pub token: Option<usize>,
    /// Byte offset of the offending field in the program.
    pub offset: usize,
    /// What is wrong, naming the token and program like Flash ("… at token 2 of fragment
    /// program").
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Error #{}: AGAL validation failed: {} (byte {})",
            self.code, self.message, self.offset
        )
    }
}

impl std::error::Error for ValidationError {}

/// What a valid program uses (for linkage checks and drivers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramInfo {
    pub version: u32,
    pub kind: ShaderKind,
    pub tokens: usize,
    /// Vertex programs: lanes written per varying register.
    pub varyings_written: Vec<u8>,
    /// Fragment programs: lanes read per varying register.
    pub varyings_read: Vec<u8>,
    /// Sampler registers used, with their (equal) 64-bit sampler fields.
    pub samplers: Vec<(u16, u64)>,
    /// Fragment colour outputs written.
    pub color_outputs: Vec<u16>,
    pub writes_depth: bool,
}

/// Validates a vertex/fragment pair: each program, then versions (#3757) and varyings
/// (#3632).
pub fn validate_pair(
    vertex: &[u8],
    fragment: &[u8],
    opts: &ValidateOptions,
) -> Result<(ProgramInfo, ProgramInfo), ValidationError> {
    let v = validate(vertex, opts)?;
    let f = validate(fragment, opts)?;
    let fail = |code, message: String| ValidationError {
        code,
        token: None,
        offset: 0,
        message,
    };
    if v.kind != ShaderKind::Vertex || f.kind != ShaderKind::Fragment {
        return Err(fail(
            3619,
            "a pair is a vertex then a fragment program".into(),
        ));
    }
    if v.version != f.version {
        return Err(fail(
            3757,
            format!(
                "vertex program is AGAL {} but fragment program is AGAL {}",
                v.version, f.version
            ),
        ));
    }
    for (i, &read) in f.varyings_read.iter().enumerate() {
        let written = v.varyings_written.get(i).copied().unwrap_or(0);
        if read & !written != 0 {
            return Err(fail(
                3632,
                format!("varying v{i} is read by the fragment program but not written by the vertex program"),
            ));
        }
    }
    Ok((v, f))
}

/// Validates one program.
pub fn validate(bytes: &[u8], opts: &ValidateOptions) -> Result<ProgramInfo, ValidationError> {
    let hdr = |code, offset, message: &str| {
        Err(ValidationError {
            code,
            token: None,
            offset,
            message: message.to_string(),
        })
    };
    if bytes.is_empty() {
        return hdr(3615, 0, "program size below minimum length");
    }
    if bytes.len() < HEADER_BYTES || bytes[isa::header::MAGIC] != isa::MAGIC {
        return hdr(3612, 0, "programs must be in little endian format");
    }
    let vo = isa::header::VERSION;
    let version = u32::from_le_bytes([bytes[vo], bytes[vo + 1], bytes[vo + 2], bytes[vo + 3]]);
    if !isa::VERSIONS.contains(&version) {
        return hdr(3617, vo, "bad AGAL version");
    }
    if bytes[isa::header::TYPE_ID] != isa::SHADER_TYPE_ID {
        return hdr(
            3618,
            isa::header::TYPE_ID,
            "bad shader type id (expected 0xa1)",
        );
    }
    let Some(kind) = ShaderKind::from_bits(bytes[isa::header::SHADER_TYPE]) else {
        return hdr(3619, isa::header::SHADER_TYPE, "bad shader type");
    };
    if version > opts.profile.max_version() {
        return hdr(3725, vo, "AGAL version not allowed by the profile");
    }
    let body = &bytes[HEADER_BYTES..];
    if body.len() < TOKEN_BYTES || !body.len().is_multiple_of(TOKEN_BYTES) {
        return hdr(
            3615,
            HEADER_BYTES + body.len() / TOKEN_BYTES * TOKEN_BYTES,
            "program size below minimum length or not a whole number of tokens",
        );
    }
    let n = body.len() / TOKEN_BYTES;
    if n > isa::max_tokens(version) {
        return hdr(
            3629,
            HEADER_BYTES + isa::max_tokens(version) * TOKEN_BYTES,
            "too many tokens",
        );
    }
    let mut v = Validator {
        version,
        kind,
        opts: *opts,
        temps: [0; 256],
        blocks: Vec::new(),
        info: ProgramInfo {
            version,
            kind,
            tokens: n,
            varyings_written: vec![0; 16],
            varyings_read: vec![0; 16],
            samplers: Vec::new(),
            color_outputs: Vec::new(),
            writes_depth: false,
        },
        op_mask: 0,
        token: 0,
        at: 0,
    };
    for (i, chunk) in body.chunks_exact(TOKEN_BYTES).enumerate() {
        v.token = i + 1;
        v.at = HEADER_BYTES + i * TOKEN_BYTES;
        v.check_token(&RawToken::read(chunk))?;
    }
    v.finish(bytes.len())?;
    Ok(v.info)
}

/// Where a register appears, for messages.
#[derive(Clone, Copy)]
enum Role {
    Dest,
    Src(u8),
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Role::Dest => write!(f, "for destination operand"),
            Role::Src(i) => write!(f, "for source operand {i}"),
        }
    }
}

struct Block {
    has_else: bool,
    empty: bool,
}

struct Validator {
    version: u32,
    kind: ShaderKind,
    opts: ValidateOptions,
    /// Lanes written per temporary (flow-insensitive, §7.6).
    temps: [u8; 256],
    blocks: Vec<Block>,
    info: ProgramInfo,
    /// Lanes of `op` written (vertex).
    op_mask: u8,
    token: usize,
    at: usize,
}

type R = Result<(), ValidationError>;

/// Field masks of the reserved bits.
fn reserved(fields: &[isa::Field]) -> u128 {
    unknown_mask(fields)
}

impl Validator {
    fn err(&self, code: u32, field: usize, message: impl Into<String>) -> R {
        Err(ValidationError {
            code,
            token: Some(self.token),
            offset: self.at + field,
            message: format!(
                "{} at token {} of {} program",
                message.into(),
                self.token,
                self.kind.name()
            ),
        })
    }

    fn frag(&self) -> bool {
        self.kind == ShaderKind::Fragment
    }

    fn check_token(&mut self, t: &RawToken) -> R {
        let Some(op) = Opcode::from_bits(t.opcode.into()) else {
            return self.err(
                3620,
                isa::token::OPCODE,
                format!("invalid opcode, value out of range: {}", t.opcode),
            );
        };
        let field_op = isa::token::OPCODE;
        let Some(min) = op.min_version() else {
            return self.err(
                3621,
                field_op,
                format!("opcode {} not implemented", op.mnemonic()),
            );
        };
        match op.stage() {
            StageRule::FragmentOnly if !self.frag() => {
                return self.err(
                    3622,
                    field_op,
                    format!("{} is only allowed in fragment programs", op.mnemonic()),
                );
            }
            StageRule::VertexOnly if self.frag() => {
                return self.err(
                    3803,
                    field_op,
                    format!("{} is only allowed in vertex programs", op.mnemonic()),
                );
            }
            _ => {}
        }
        if min > self.version {
            let code = if min >= 4 { 3805 } else { 3726 };
            return self.err(
                code,
                field_op,
                format!("{} needs AGAL version {min}", op.mnemonic()),
            );
        }
        if !op.has_dest() && t.dest != 0 {
            return self.err(
                3627,
                isa::token::DEST,
                "destination must be zero for this opcode",
            );
        }
        if op.num_srcs() < 1 && t.src1 != 0 {
            return self.err(
                3636,
                isa::token::SOURCE1,
                "unused source operand 1 must be zero",
            );
        }
        if op.num_srcs() < 2 && t.src2 != 0 {
            return self.err(
                3636,
                isa::token::SOURCE2,
                "unused source operand 2 must be zero",
            );
        }
        self.control_flow(op, t)?;
        // Sources are read before the destination is written.
        if op.num_srcs() >= 1 {
            self.check_source(op, t.src1, 1)?;
        }
        if op.has_sampler() {
            self.check_sampler(op, t)?;
        } else if op.num_srcs() >= 2 {
            self.check_source(op, t.src2, 2)?;
        }
        self.combinations(op, t)?;
        if op.has_dest() {
            self.check_dest(op, t.dest)?;
        }
        Ok(())
    }

    fn control_flow(&mut self, op: Opcode, t: &RawToken) -> R {
        let f = isa::token::OPCODE;
        match op.class() {
            OpClass::If => {
                if self.blocks.len() >= 4 {
                    return self.err(3624, f, "conditional nesting too deep (more than 4)");
                }
                if t.src1 == t.src2 {
                    return self.err(3758, isa::token::SOURCE2, "condition sources are identical");
                }
                self.mark_content();
                self.blocks.push(Block {
                    has_else: false,
                    empty: true,
                });
            }
            OpClass::Else => match self.blocks.last_mut() {
                None => return self.err(3752, f, "els without an open if"),
                Some(b) if b.has_else => return self.err(3752, f, "second els in one if"),
                Some(b) if b.empty => return self.err(3748, f, "empty conditional branch"),
                Some(b) => {
                    b.has_else = true;
                    b.empty = true;
                }
            },
            OpClass::EndIf => match self.blocks.last() {
                None => return self.err(3623, f, "eif without an open if"),
                Some(b) if b.empty => return self.err(3748, f, "empty conditional branch"),
                Some(_) => {
                    self.blocks.pop();
                }
            },
            OpClass::Derivative if !self.blocks.is_empty() => {
                return self.err(3742, f, "ddx/ddy not allowed inside conditionals");
            }
            _ => self.mark_content(),
        }
        Ok(())
    }

    fn mark_content(&mut self) {
        if let Some(b) = self.blocks.last_mut() {
            b.empty = false;
        }
    }

    /// Index-bound error number of a register type.
    fn bound_code(ty: RegType) -> u32 {
        match ty {
            RegType::Sampler => 3656,
            RegType::Varying => 3657,
            RegType::Attribute => 3658,
            RegType::Constant => 3659,
            RegType::Output => 3660,
            RegType::Temporary => 3661,
            RegType::DepthOutput => 3749,
            RegType::InstanceId => 3655,
        }
    }

    fn limit(&self, ty: RegType) -> u32 {
        match ty {
            RegType::Temporary => self.opts.profile.max_temporaries(self.version, self.kind),
            _ => ty.limit(self.version, self.kind),
        }
    }

    fn check_bounds(&self, ty: RegType, reg: u64, count: u64, field: usize, role: Role) -> R {
        let limit = u64::from(self.limit(ty));
        if reg + count > limit {
            let last = reg + count - 1;
            return self.err(
                Self::bound_code(ty),
                field,
                format!("{ty:?} register index {last} out of bounds (limit {limit}) {role}"),
            );
        }
        Ok(())
    }

    fn check_dest(&mut self, op: Opcode, d: u32) -> R {
        let f = isa::token::DEST;
        let p = u128::from(d);
        if p & reserved(dest::ALL) != 0 {
            return self.err(3654, f, "reserved destination bits must be zero");
        }
        let ty_bits = dest::TYPE.get(p);
        let Some(ty) = RegType::from_bits(ty_bits) else {
            return self.err(
                3655,
                f,
                format!("unknown register type {ty_bits} for destination operand"),
            );
        };
        let reg = dest::REG.get(p);
        let mask = dest::MASK.get(p) as u8;
        let role = Role::Dest;
        match ty {
            RegType::Attribute => {
                return self.err(
                    3651,
                    f,
                    "attribute registers can not be written to for destination operand",
                )
            }
            RegType::Constant => {
                return self.err(
                    3652,
                    f,
                    "constant registers can not be written to for destination operand",
                )
            }
            RegType::Sampler => {
                return self.err(
                    3649,
                    f,
                    "sampler registers can not be written to for destination operand",
                )
            }
            RegType::Varying if self.frag() => {
                return self.err(
                    3650,
                    f,
                    "varying registers can not be written in fragment programs",
                )
            }
            RegType::DepthOutput if !self.frag() => {
                return self.err(3750, f, "depth output only allowed in fragment programs")
            }
            RegType::InstanceId => {
                self.instance_id_role(f)?;
                return self.err(3786, f, "iid can not be written to");
            }
            _ => {}
        }
        self.check_bounds(ty, reg, 1, f, role)?;
        if ty == RegType::Output && self.frag() && reg >= 1 && !self.opts.profile.mrt() {
            return self.err(3760, f, "colour output index out of range for this profile");
        }
        if mask == 0 {
            return self.err(3653, f, "write mask is zero");
        }
        if ty == RegType::DepthOutput && mask != 1 {
            return self.err(3756, f, "depth output write mask must be exactly .x");
        }
        if let Some(m) = op.required_mask() {
            if mask != m {
                return self.err(
                    3628,
                    f,
                    format!("{} destination must be masked to .xyz", op.mnemonic()),
                );
            }
        }
        let in_if = !self.blocks.is_empty();
        match ty {
            RegType::Temporary => self.temps[reg as usize & 255] |= mask,
            RegType::Output | RegType::DepthOutput if in_if => {
                return self.err(
                    3751,
                    f,
                    "output registers can not be written inside conditionals",
                );
            }
            RegType::Output if self.frag() => {
                if mask != 0xF {
                    return self.err(
                        3701,
                        f,
                        "the output color register can not use a write mask",
                    );
                }
                if self.info.color_outputs.contains(&(reg as u16)) {
                    if self.version >= 2 {
                        return self.err(3744, f, "color output written multiple times");
                    }
                } else {
                    self.info.color_outputs.push(reg as u16);
                }
            }
            RegType::Output => self.op_mask |= mask,
            RegType::DepthOutput => self.info.writes_depth = true,
            RegType::Varying => self.info.varyings_written[reg as usize & 15] |= mask,
            _ => {}
        }
        Ok(())
    }

    fn instance_id_role(&self, f: usize) -> R {
        if self.frag() {
            return self.err(3788, f, "iid only allowed in vertex programs");
        }
        if self.version < 3 {
            return self.err(3789, f, "iid needs AGAL version 3");
        }
        Ok(())
    }

    /// Reads of a temporary: all lanes of `needed` must have been written.
    fn temp_read(&self, reg: u64, needed: u8, f: usize, role: Role) -> R {
        let w = self.temps[reg as usize & 255];
        if w == 0 {
            return self.err(
                3647,
                f,
                format!("temporary register vt/ft{reg} read without being written to {role}"),
            );
        }
        if w & needed != needed {
            return self.err(
                3648,
                f,
                format!("temporary register component read without being written to {role}"),
            );
        }
        Ok(())
    }

    fn check_source(&mut self, op: Opcode, s: u64, i: u8) -> R {
        let f = if i == 1 {
            isa::token::SOURCE1
        } else {
            isa::token::SOURCE2
        };
        let role = Role::Src(i);
        let p = u128::from(s);
        if p & reserved(source::ALL) != 0 {
            return self.err(3654, f, format!("reserved source bits must be zero {role}"));
        }
        let ty_bits = source::TYPE.get(p);
        let Some(ty) = RegType::from_bits(ty_bits) else {
            return self.err(3655, f, format!("unknown register type {ty_bits} {role}"));
        };
        if ty == RegType::Sampler {
            if !self.frag() {
                return self.err(
                    3637,
                    f,
                    format!("sampler registers only allowed in fragment programs {role}"),
                );
            }
            return self.err(3638, f, format!("sampler register only allowed as second operand in texture instructions {role}"));
        }
        match ty {
            RegType::Varying if !self.frag() => {
                return self.err(
                    3644,
                    f,
                    format!("varying registers can only be read in fragment programs {role}"),
                )
            }
            RegType::Attribute if self.frag() => {
                return self.err(
                    3645,
                    f,
                    format!("attribute registers can only be read in vertex programs {role}"),
                )
            }
            RegType::Output => {
                return self.err(3646, f, format!("can not read from output register {role}"))
            }
            RegType::DepthOutput if self.version < 2 => {
                return self.err(
                    3749,
                    f,
                    format!("depth output register index out of bounds {role}"),
                )
            }
            RegType::DepthOutput => {
                return self.err(
                    3646,
                    f,
                    format!("can not read from depth output register {role}"),
                )
            }
            RegType::InstanceId => self.instance_id_role(f)?,
            _ => {}
        }
        let reg = source::REG.get(p);
        let swz = source::SWIZZLE.get(p) as u8;
        let rows = if i == 2 {
            u64::from(op.matrix_rows())
        } else {
            0
        };
        if source::INDIRECT.get(p) != 0 {
            if op.has_sampler() {
                return self.err(
                    3641,
                    f,
                    format!("indirect addressing not allowed for this operand {role}"),
                );
            }
            if self.frag() {
                return self.err(
                    3639,
                    f,
                    format!("indirect addressing only allowed in vertex programs {role}"),
                );
            }
            if ty != RegType::Constant {
                return self.err(
                    3640,
                    f,
                    format!("indirect addressing only allowed into constant registers {role}"),
                );
            }
            let it_bits = source::INDEX_TYPE.get(p);
            let it = RegType::from_bits(it_bits);
            let Some(it @ (RegType::Attribute | RegType::Constant | RegType::Temporary)) = it
            else {
                return self.err(
                    3642,
                    f,
                    format!("index register must be attribute, constant or temporary {role}"),
                );
            };
            self.check_bounds(it, reg, 1, f, role)?;
            if it == RegType::Temporary {
                let sel = source::INDEX_SELECT.get(p) as u8;
                self.temp_read(reg, 1 << sel, f, role)?;
            }
            return Ok(());
        }
        let ind =
            p & (source::OFFSET.mask() | source::INDEX_TYPE.mask() | source::INDEX_SELECT.mask());
        if ind != 0 {
            return self.err(
                3643,
                f,
                format!("indirect fields must be zero in direct mode {role}"),
            );
        }
        if ty == RegType::InstanceId && reg != 0 {
            return self.err(3655, f, format!("iid has only index 0 {role}"));
        }
        self.check_bounds(ty, reg, rows.max(1), f, role)?;
        match ty {
            RegType::Temporary if rows > 0 => {
                for r in 0..rows {
                    self.temp_read(reg + r, 0xF, f, role)?;
                }
            }
            RegType::Temporary => self.temp_read(reg, swizzle::read_mask(swz), f, role)?,
            RegType::Varying => {
                self.info.varyings_read[reg as usize & 15] |= swizzle::read_mask(swz)
            }
            _ => {}
        }
        Ok(())
    }

    fn combinations(&mut self, op: Opcode, t: &RawToken) -> R {
        let (p1, p2) = (u128::from(t.src1), u128::from(t.src2));
        let is_const = |p: u128| source::TYPE.get(p) == RegType::Constant.bits();
        let two = op.num_srcs() == 2 && !op.has_sampler();
        if two && source::INDIRECT.get(p1) != 0 && source::INDIRECT.get(p2) != 0 {
            return self.err(
                3626,
                isa::token::SOURCE2,
                "both operands are indirect reads",
            );
        }
        if two && is_const(p1) && is_const(p2) {
            return self.err(
                3625,
                isa::token::SOURCE2,
                "both operands are constants (this must be precomputed)",
            );
        }
        if self.opts.unary_constant && op.num_srcs() == 1 && op != Opcode::Mov && is_const(p1) {
            return self.err(
                3625,
                isa::token::SOURCE1,
                format!(
                    "{} of a constant (this must be precomputed; mov it to a temporary)",
                    op.mnemonic()
                ),
            );
        }
        if op.class() == OpClass::Matrix && source::SWIZZLE.get(p2) as u8 != swizzle::IDENTITY {
            return self.err(
                3689,
                isa::token::SOURCE2,
                "matrix operand must use the identity swizzle",
            );
        }
        if matches!(op.class(), OpClass::Kill | OpClass::If) {
            if !swizzle::is_scalar(source::SWIZZLE.get(p1) as u8) {
                return self.err(3703, isa::token::SOURCE1, "source swizzle must be scalar");
            }
            if op.class() == OpClass::If && !swizzle::is_scalar(source::SWIZZLE.get(p2) as u8) {
                return self.err(3703, isa::token::SOURCE2, "source swizzle must be scalar");
            }
        }
        Ok(())
    }

    fn check_sampler(&mut self, op: Opcode, t: &RawToken) -> R {
        let f = isa::token::SOURCE2;
        let p = u128::from(t.src2);
        let ty = sampler::TYPE.get(p);
        if ty != RegType::Sampler.bits() {
            return self.err(
                3693,
                f,
                "second operand of a texture instruction must be a sampler",
            );
        }
        if p & reserved(sampler::ALL) != 0 {
            return self.err(3654, f, "reserved sampler bits must be zero");
        }
        let reg = sampler::REG.get(p);
        self.check_bounds(RegType::Sampler, reg, 1, f, Role::Src(2))?;
        let dim = sampler::DIMENSION.get(p);
        if !matches!(dim, 0 | 1 | 3) {
            return self.err(3664, f, format!("sampler dimension {dim} not supported"));
        }
        let filter = sampler::FILTER.get(p);
        if filter > 5 {
            return self.err(3665, f, format!("unknown sampler filter {filter}"));
        }
        let mip = sampler::MIPMAP.get(p);
        if mip > 2 {
            return self.err(3666, f, format!("unknown sampler mipmap mode {mip}"));
        }
        let wrap = sampler::WRAP.get(p);
        if wrap > 3 {
            return self.err(3667, f, format!("unknown sampler wrap mode {wrap}"));
        }
        if sampler::SPECIAL.get(p) & !u64::from(isa::special::KNOWN) != 0 {
            return self.err(3668, f, "unknown sampler special flag");
        }
        if sampler::FORMAT.get(p) > 3 {
            return self.err(3606, f, "unknown sampler texture format");
        }
        if dim == 1 && wrap != 0 {
            return self.err(3662, f, "cube textures require clamp wrapping");
        }
        if dim == 1 && mip == 0 {
            return self.err(3704, f, "cube textures must enable mipmapping");
        }
        if op == Opcode::Ted {
            if sampler::LOD_BIAS.get(p) != 0 {
                return self.err(3740, f, "ted can not use a LOD bias");
            }
            if mip == 0 {
                return self.err(3743, f, "ted must enable mipmapping");
            }
        }
        if op == Opcode::Tex
            && !self.blocks.is_empty()
            && source::TYPE.get(u128::from(t.src1)) != RegType::Varying.bits()
        {
            return self.err(
                3741,
                isa::token::SOURCE1,
                "tex inside a conditional must use a varying as coordinates (use ted)",
            );
        }
        let reg = reg as u16;
        match self.info.samplers.iter().find(|(r, _)| *r == reg) {
            Some(&(_, prev)) if prev != t.src2 => {
                return self.err(
                    3696,
                    f,
                    "second use of sampler register needs to specify the exact same properties",
                );
            }
            Some(_) => {}
            None => self.info.samplers.push((reg, t.src2)),
        }
        Ok(())
    }

    fn finish(&mut self, len: usize) -> R {
        self.token = self.info.tokens;
        self.at = len;
        if !self.blocks.is_empty() {
            return self.err(
                3739,
                0,
                "conditional block still open at the end of the program",
            );
        }
        if self.frag() {
            let outs = &self.info.color_outputs;
            if outs.is_empty() {
                return self.err(3634, 0, "fragment output (oc) must write all components");
            }
            if (0..outs.len() as u16).any(|i| !outs.contains(&i)) {
                return self.err(3775, 0, "colour outputs must be consecutive from oc0");
            }
        } else {
            if self.op_mask != 0xF {
                return self.err(3635, 0, "vertex output (op) must write all components");
            }
            if let Some(i) = self
                .info
                .varyings_written
                .iter()
                .position(|&m| m != 0 && m != 0xF)
            {
                return self.err(
                    3633,
                    0,
                    format!(
                        "varying v{i} written only partially; all four components must be written"
                    ),
                );
            }
        }
        Ok(())
    }
}
