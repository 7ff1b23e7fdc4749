//! The units of the PP simulator: operand fetch, the seven pipeline stages, and the arithmetic of every opcode.
//!
//! Choices where the reference (§4–§6) is silent, all *unverified* on hardware:
//! * Loads place their components starting at lane x (varying: Mesa's "head" register classes, §13); lanes
//!   beyond the loaded size read 0. Uniform/temporary loads and temp stores use the *natural lane* of each
//!   element instead (`flat address % 4`, so `load.u 3.y` appears in `^uniform.y`); Mesa only uses vec4
//!   alignment there, where both readings agree.
//! * Indirect offsets (varying, uniform, temp, sampler index) truncate the register value toward zero.
//! * Perspective 2/3 divide all four components by `.z`/`.w`; `normalize` normalizes `.xyz` and keeps `.w`;
//!   cube loads pass coordinates through (the sampler handles faces); gl_FrontFacing is 1.0/0.0 in all lanes.
//! * `.int` truncates toward zero (Mesa lowers ftrunc to it, §13); logical ops treat non-zero as true and
//!   return 1.0/0.0; shifted multiplies scale by 2^shift.
//! * Derivatives: `dFdx` = arg0 of the right lane + arg1 of the left lane of the same row, `dFdy` = arg0 of the
//!   top lane + arg1 of the bottom lane of the same column. With Mesa's operand negations (§6) this gives
//!   right − left and bottom − top, identical for both lanes of the pair.
//! * atan_pt1/atan_pt2/atan/atan2 are unsupported (their semantics are unknown).

use super::instr::*;
use super::isa::{self, alignment, AccOp, CombineOp, MulOp, OutMod, UniformSource};
use super::sim::{Exec, SimErrorKind as E, Write};
use super::texture::{LodMode, SampleRequest};

fn b2f(b: bool) -> f32 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// min with a NaN operand giving the other one and −0 < +0 (the reference is silent on both;
/// this is IEEE 754-2019 minimumNumber, what the IR's `FMin` means).
fn fmin(a: f32, b: f32) -> f32 {
    if a.is_nan() || (a == b && b.is_sign_negative()) || b < a {
        b
    } else {
        a
    }
}

/// max with a NaN operand giving the other one and +0 > −0 (maximumNumber).
fn fmax(a: f32, b: f32) -> f32 {
    if a.is_nan() || (a == b && a.is_sign_negative()) || b > a {
        b
    } else {
        a
    }
}

fn apply_mod(x: f32, m: OutMod) -> f32 {
    match m {
        OutMod::None => x,
        // min(max(x, 0), 1) with the rules above: NaN saturates to 0 as D3D's saturate and
        // NIR's fsat define it, −0 to +0 (the reference is silent on both).
        OutMod::Sat => fmin(fmax(x, 0.0), 1.0),
        OutMod::Pos => fmax(x, 0.0),
        OutMod::Int => x.trunc(),
    }
}

fn src_mod(x: f32, abs: bool, neg: bool) -> f32 {
    let x = if abs { x.abs() } else { x };
    if neg {
        -x
    } else {
        x
    }
}

fn mul_op(op: MulOp, a: f32, b: f32) -> f32 {
    match op {
        MulOp::Mul
        | MulOp::MulShl1
        | MulOp::MulShl2
        | MulOp::MulShl3
        | MulOp::MulShr4
        | MulOp::MulShr3
        | MulOp::MulShr2
        | MulOp::MulShr1 => a * b * (op.shift() as f32).exp2(),
        MulOp::Not => b2f(a == 0.0),
        MulOp::And => b2f(a != 0.0 && b != 0.0),
        MulOp::Or => b2f(a != 0.0 || b != 0.0),
        MulOp::Xor => b2f((a != 0.0) != (b != 0.0)),
        MulOp::Ne => b2f(a != b),
        MulOp::Gt => b2f(a > b),
        MulOp::Ge => b2f(a >= b),
        MulOp::Eq => b2f(a == b),
        MulOp::Min => fmin(a, b),
        MulOp::Max => fmax(a, b),
        MulOp::Mov => a,
    }
}

/// Lane-wise add-unit ops; `None` for the cross-lane ones (sum, derivatives, select).
fn acc_op(op: AccOp, a: f32, b: f32) -> Option<f32> {
    Some(match op {
        AccOp::Add => a + b,
        AccOp::Fract => a - a.floor(),
        AccOp::Ne => b2f(a != b),
        AccOp::Gt => b2f(a > b),
        AccOp::Ge => b2f(a >= b),
        AccOp::Eq => b2f(a == b),
        AccOp::Floor => a.floor(),
        AccOp::Ceil => a.ceil(),
        AccOp::Min => fmin(a, b),
        AccOp::Max => fmax(a, b),
        AccOp::Mov => a,
        AccOp::Sum3 | AccOp::Sum4 | AccOp::DFdx | AccOp::DFdy | AccOp::Sel => return None,
    })
}

/// Lane pairs for derivatives: (lane whose arg0 is used, lane whose arg1 is used).
fn deriv_pair(op: AccOp, lane: usize) -> (usize, usize) {
    let (x, y) = (lane & 1, lane >> 1);
    if op == AccOp::DFdx {
        (y * 2 + 1, y * 2)
    } else {
        (x, 2 + x)
    }
}

impl Exec<'_> {
    // ---- operand fetch -------------------------------------------------------------------------------------

    fn reg_value(&self, lane: usize, r: Vec4Reg) -> Result<[f32; 4], E> {
        let p = &self.pipe[lane];
        let konst = |c: &Option<[half::f16; 4]>, name| {
            c.map(|c| c.map(|h| h.to_f32()))
                .ok_or(E::PipelineNotWritten(name))
        };
        match r {
            Vec4Reg::Gpr(n) => self.lanes[lane]
                .regs
                .get(usize::from(n))
                .copied()
                .ok_or(E::RegisterOutOfRange(n)),
            Vec4Reg::Const0 => konst(&self.instr.const0, "^const0"),
            Vec4Reg::Const1 => konst(&self.instr.const1, "^const1"),
            Vec4Reg::Texture => p.texture.ok_or(E::PipelineNotWritten("^texture")),
            Vec4Reg::Uniform => p.uniform.ok_or(E::PipelineNotWritten("^uniform")),
        }
    }

    fn check_strict(&self, lane: usize, r: Vec4Reg, comp: usize) -> Result<(), E> {
        if let Vec4Reg::Gpr(n) = r {
            let slot = usize::from(n) * 4 + comp;
            if self.opts.strict_pipeline && slot < 32 && self.lanes[lane].written & (1 << slot) != 0
            {
                return Err(E::IntraInstructionRead {
                    reg: n,
                    comp: comp as u8,
                });
            }
        }
        Ok(())
    }

    pub(super) fn vsrc(
        &self,
        lane: usize,
        s: &Vec4Src,
        special: Option<[f32; 4]>,
    ) -> Result<[f32; 4], E> {
        let base = match special {
            Some(v) => v,
            None => self.reg_value(lane, s.reg)?,
        };
        let mut out = [0.0; 4];
        for (i, o) in out.iter_mut().enumerate() {
            let c = s.swizzle.lane(i);
            if special.is_none() {
                self.check_strict(lane, s.reg, c)?;
            }
            *o = src_mod(base[c], s.abs, s.neg);
        }
        Ok(out)
    }

    pub(super) fn sreg(&self, lane: usize, r: ScalarReg) -> Result<f32, E> {
        self.check_strict(lane, r.vec4(), r.comp())?;
        Ok(self.reg_value(lane, r.vec4())?[r.comp()])
    }

    fn ssrc(&self, lane: usize, s: &ScalarSrc, special: Option<f32>) -> Result<f32, E> {
        let v = match special {
            Some(v) => v,
            None => self.sreg(lane, s.reg)?,
        };
        Ok(src_mod(v, s.abs, s.neg))
    }

    fn int_of(&self, lane: usize, r: ScalarReg) -> Result<i64, E> {
        // Clamped so that address arithmetic can never overflow.
        Ok((self.sreg(lane, r)?.trunc() as i64).clamp(-(1 << 31), 1 << 31))
    }

    // ---- result writes ----------------------------------------------------------------------------------

    fn write_vec(
        &mut self,
        lane: usize,
        unit: &'static str,
        dest: u8,
        mask: u8,
        v: [f32; 4],
    ) -> Result<(), E> {
        if mask & 0xF == 0 {
            return Ok(());
        }
        if dest >= isa::reg::GPR_COUNT {
            return Err(E::InvalidDest { unit, dest });
        }
        for (i, &value) in v.iter().enumerate() {
            if mask & (1 << i) != 0 {
                let value = self.round(value);
                self.pending.push(Write::Slot {
                    lane,
                    slot: usize::from(dest) * 4 + i,
                    value,
                });
            }
        }
        Ok(())
    }

    fn write_scalar(
        &mut self,
        lane: usize,
        unit: &'static str,
        dest: ScalarReg,
        v: f32,
    ) -> Result<(), E> {
        if dest.0 >= isa::reg::GPR_COUNT * 4 {
            return Err(E::InvalidDest { unit, dest: dest.0 });
        }
        let value = self.round(v);
        self.pending.push(Write::Slot {
            lane,
            slot: usize::from(dest.0),
            value,
        });
        Ok(())
    }

    fn finish(&self, x: f32, m: OutMod) -> f32 {
        self.round(apply_mod(x, m))
    }

    // ---- stage 1: varying -------------------------------------------------------------------------------

    fn load_varying(&self, lane: usize, imm: &VaryingImm) -> Result<[f32; 4], E> {
        let mut idx = i64::from(imm.index);
        if let Some(r) = imm.offset() {
            idx += self.int_of(lane, r)?;
        }
        let vary = &self.inputs.lanes[lane].varyings;
        let n = match imm.alignment {
            alignment::SCALAR => 1,
            alignment::VEC2 => 2,
            _ => 4,
        };
        let flat = idx * n;
        let mut out = [0.0; 4];
        for (j, o) in out.iter_mut().enumerate().take(n as usize) {
            let a = flat + j as i64;
            let slot = usize::try_from(a.div_euclid(4))
                .ok()
                .and_then(|s| vary.get(s));
            *o = slot.ok_or(E::VaryingOutOfRange(idx))?[a.rem_euclid(4) as usize];
        }
        Ok(out)
    }

    fn varying_value(&self, lane: usize, v: &Varying) -> Result<[f32; 4], E> {
        let inputs = &self.inputs.lanes[lane];
        let divide = |v: [f32; 4], p: u8| match p {
            isa::perspective::DIV_Z => v.map(|c| c / v[2]),
            isa::perspective::DIV_W => v.map(|c| c / v[3]),
            _ => v,
        };
        let normalize = |v: [f32; 4]| {
            let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            [v[0] / len, v[1] / len, v[2] / len, v[3]]
        };
        Ok(match &v.source {
            VaryingSource::Varying { perspective, imm } => {
                divide(self.load_varying(lane, imm)?, *perspective)
            }
            VaryingSource::Register { perspective, reg } => {
                let x = self.vsrc(lane, &reg.src, None)?;
                divide(if reg.normalize { normalize(x) } else { x }, *perspective)
            }
            VaryingSource::CubeVarying(imm) => self.load_varying(lane, imm)?,
            VaryingSource::CubeRegister(reg) => self.vsrc(lane, &reg.src, None)?,
            VaryingSource::Normalize(reg) => normalize(self.vsrc(lane, &reg.src, None)?),
            VaryingSource::FragCoord(_) => inputs.frag_coord,
            VaryingSource::PointCoord(_) => {
                [inputs.point_coord[0], inputs.point_coord[1], 0.0, 1.0]
            }
            VaryingSource::FrontFacing(_) => [b2f(inputs.front_facing); 4],
        })
    }

    pub(super) fn stage_varying(&mut self) -> Result<(), E> {
        let Some(v) = self.instr.varying else {
            return Ok(());
        };
        let vals = self.per_lane(|ex, l| ex.varying_value(l, &v))?;
        for (l, val) in vals.into_iter().enumerate() {
            if v.dest == isa::reg::DISCARD {
                let masked =
                    std::array::from_fn(|i| if v.mask & (1 << i) != 0 { val[i] } else { 0.0 });
                self.pipe[l].discard = Some(masked);
            } else {
                self.write_vec(l, "varying", v.dest, v.mask, val)?;
            }
        }
        Ok(())
    }

    // ---- stage 2: sampler -------------------------------------------------------------------------------

    pub(super) fn stage_sampler(&mut self) -> Result<(), E> {
        let Some(s) = self.instr.sampler else {
            return Ok(());
        };
        if !self.instr.control.sync {
            return Err(E::MissingSync("texture fetch"));
        }
        let coords =
            self.per_lane(|ex, l| ex.pipe[l].discard.ok_or(E::PipelineNotWritten("^discard")))?;
        let reqs = self.per_lane(|ex, l| {
            let mut sampler = i64::from(s.index);
            if s.offset_en {
                sampler += ex.int_of(l, s.index_offset)?;
            }
            let lod = if s.lod_bias_en {
                let v = ex.sreg(l, s.lod_bias)?;
                if s.explicit_lod {
                    LodMode::Explicit(v)
                } else {
                    LodMode::Bias(v)
                }
            } else {
                LodMode::Auto
            };
            let sampler =
                u32::try_from(sampler).map_err(|_| E::Unsupported("negative sampler index"))?;
            Ok(Some(SampleRequest {
                sampler,
                ty: s.ty,
                coords: coords[l],
                quad_coords: coords,
                lod,
                lane: l,
            }))
        })?;
        for (l, req) in reqs.iter().enumerate() {
            if let Some(req) = req {
                let t = self.textures.sample(req);
                self.pipe[l].texture = Some(t.map(|c| self.round(c)));
            }
        }
        Ok(())
    }

    // ---- stage 3: uniform / temporary load --------------------------------------------------------------

    fn elements(align: u8) -> i64 {
        match align {
            alignment::SCALAR => 1,
            alignment::VEC2 => 2,
            _ => 4,
        }
    }

    fn uniform_value(&self, lane: usize, u: &UniformLoad) -> Result<[f32; 4], E> {
        let mut addr = i64::from(u.index);
        if u.offset_en {
            addr += self.int_of(lane, u.offset_reg)?;
        }
        let n = Self::elements(u.alignment);
        let flat = addr * n;
        let mut out = [0.0; 4];
        for j in 0..n {
            let a = flat + j;
            let v = match u.source {
                UniformSource::Uniform => {
                    let slot = usize::try_from(a.div_euclid(4))
                        .ok()
                        .and_then(|s| self.inputs.uniforms.get(s));
                    slot.ok_or(E::UniformOutOfRange(addr))?[a.rem_euclid(4) as usize]
                }
                UniformSource::Temporary => self.lanes[lane].temps.get(&a).copied().unwrap_or(0.0),
                UniformSource::Other(_) => return Err(E::Unsupported("uniform source 1/2")),
            };
            out[a.rem_euclid(4) as usize] = self.round(v);
        }
        Ok(out)
    }

    pub(super) fn stage_uniform(&mut self) -> Result<(), E> {
        let Some(u) = self.instr.uniform else {
            return Ok(());
        };
        let vals = self.per_lane(|ex, l| ex.uniform_value(l, &u).map(Some))?;
        for (l, v) in vals.into_iter().enumerate() {
            self.pipe[l].uniform = v;
        }
        Ok(())
    }

    // ---- stage 4: vec4 mul ∥ scalar mul -----------------------------------------------------------------

    pub(super) fn stage_mul(&mut self) -> Result<(), E> {
        if let Some(m) = self.instr.vec4_mul {
            let vals = self.per_lane(|ex, l| {
                let a = ex.vsrc(l, &m.arg0, None)?;
                let b = if m.op.num_srcs() > 1 {
                    ex.vsrc(l, &m.arg1, None)?
                } else {
                    [0.0; 4]
                };
                Ok(std::array::from_fn(|i| {
                    ex.finish(mul_op(m.op, a[i], b[i]), m.modifier)
                }))
            })?;
            for (l, v) in vals.into_iter().enumerate() {
                self.pipe[l].vmul = Some(v);
                if self.active[l] {
                    self.write_vec(l, "vec4 mul", m.dest, m.mask, v)?;
                }
            }
        }
        if let Some(m) = self.instr.float_mul {
            let vals = self.per_lane(|ex, l| {
                let a = ex.ssrc(l, &m.arg0, None)?;
                let b = if m.op.num_srcs() > 1 {
                    ex.ssrc(l, &m.arg1, None)?
                } else {
                    0.0
                };
                Ok(ex.finish(mul_op(m.op, a, b), m.modifier))
            })?;
            for (l, v) in vals.into_iter().enumerate() {
                self.pipe[l].fmul = Some(v);
                if m.output_en && self.active[l] {
                    self.write_scalar(l, "scalar mul", m.dest, v)?;
                }
            }
        }
        Ok(())
    }

    // ---- stage 5: vec4 add ∥ scalar add -----------------------------------------------------------------

    fn check_sync_for(&self, op: AccOp) -> Result<(), E> {
        if matches!(op, AccOp::DFdx | AccOp::DFdy) && !self.instr.control.sync {
            return Err(E::MissingSync("derivative"));
        }
        Ok(())
    }

    fn fmul(&self, lane: usize) -> Result<f32, E> {
        self.pipe[lane].fmul.ok_or(E::PipelineNotWritten("^fmul"))
    }

    pub(super) fn stage_acc(&mut self) -> Result<(), E> {
        if let Some(a) = self.instr.vec4_acc {
            self.check_sync_for(a.op)?;
            let args = self.per_lane(|ex, l| {
                let special = if a.mul_in {
                    Some(ex.pipe[l].vmul.ok_or(E::PipelineNotWritten("^vmul"))?)
                } else {
                    None
                };
                let x = ex.vsrc(l, &a.arg0, special)?;
                let y = if a.op.num_srcs() > 1 {
                    ex.vsrc(l, &a.arg1, None)?
                } else {
                    [0.0; 4]
                };
                Ok((x, y))
            })?;
            let vals = self.per_lane(|ex, l| {
                let (x, y) = args[l];
                let r: [f32; 4] = match a.op {
                    AccOp::Sum3 => [x[0] + x[1] + x[2]; 4],
                    AccOp::Sum4 => [x[0] + x[1] + x[2] + x[3]; 4],
                    AccOp::DFdx | AccOp::DFdy => {
                        let (p, q) = deriv_pair(a.op, l);
                        std::array::from_fn(|i| args[p].0[i] + args[q].1[i])
                    }
                    AccOp::Sel => {
                        let c = ex.fmul(l)?;
                        if c != 0.0 {
                            x
                        } else {
                            y
                        }
                    }
                    AccOp::Add
                    | AccOp::Fract
                    | AccOp::Ne
                    | AccOp::Gt
                    | AccOp::Ge
                    | AccOp::Eq
                    | AccOp::Floor
                    | AccOp::Ceil
                    | AccOp::Min
                    | AccOp::Max
                    | AccOp::Mov => {
                        std::array::from_fn(|i| acc_op(a.op, x[i], y[i]).unwrap_or(0.0))
                    }
                };
                Ok(r.map(|c| ex.finish(c, a.modifier)))
            })?;
            for (l, v) in vals.into_iter().enumerate() {
                if self.active[l] {
                    self.write_vec(l, "vec4 add", a.dest, a.mask, v)?;
                }
            }
        }
        if let Some(a) = self.instr.float_acc {
            self.check_sync_for(a.op)?;
            let args = self.per_lane(|ex, l| {
                let special = if a.mul_in { Some(ex.fmul(l)?) } else { None };
                let x = ex.ssrc(l, &a.arg0, special)?;
                let y = if a.op.num_srcs() > 1 {
                    ex.ssrc(l, &a.arg1, None)?
                } else {
                    0.0
                };
                Ok((x, y))
            })?;
            let vals = self.per_lane(|ex, l| {
                let (x, y) = args[l];
                let r = match a.op {
                    AccOp::DFdx | AccOp::DFdy => {
                        let (p, q) = deriv_pair(a.op, l);
                        args[p].0 + args[q].1
                    }
                    AccOp::Sel => {
                        if ex.fmul(l)? != 0.0 {
                            x
                        } else {
                            y
                        }
                    }
                    AccOp::Sum3 | AccOp::Sum4 => {
                        return Err(E::Unsupported("sum3/sum4 in the scalar add unit"))
                    }
                    AccOp::Add
                    | AccOp::Fract
                    | AccOp::Ne
                    | AccOp::Gt
                    | AccOp::Ge
                    | AccOp::Eq
                    | AccOp::Floor
                    | AccOp::Ceil
                    | AccOp::Min
                    | AccOp::Max
                    | AccOp::Mov => acc_op(a.op, x, y).unwrap_or(0.0),
                };
                Ok(ex.finish(r, a.modifier))
            })?;
            for (l, v) in vals.into_iter().enumerate() {
                if a.output_en && self.active[l] {
                    self.write_scalar(l, "scalar add", a.dest, v)?;
                }
            }
        }
        Ok(())
    }

    // ---- stage 6: combiner ∥ branch ---------------------------------------------------------------------

    fn combine_lane(&mut self, l: usize, c: &Combine) -> Result<(), E> {
        match c {
            Combine::Scalar {
                op,
                dest,
                modifier,
                arg0,
                ..
            } => {
                let x = self.ssrc(l, arg0, None)?;
                // Evaluated in f64 and rounded once (then to fp16 in that mode).
                let d = f64::from(x);
                let r = match op {
                    CombineOp::Rcp => (1.0 / d) as f32,
                    CombineOp::Mov => x,
                    CombineOp::Sqrt => d.sqrt() as f32,
                    CombineOp::Rsqrt => (1.0 / d.sqrt()) as f32,
                    CombineOp::Exp2 => d.exp2() as f32,
                    CombineOp::Log2 => d.log2() as f32,
                    CombineOp::Sin => (d * std::f64::consts::TAU).sin() as f32,
                    CombineOp::Cos => (d * std::f64::consts::TAU).cos() as f32,
                    CombineOp::Atan | CombineOp::Atan2 => {
                        return Err(E::Unsupported("combiner atan"))
                    }
                };
                let r = self.finish(r, *modifier);
                self.write_scalar(l, "combiner", *dest, r)
            }
            Combine::VecMul {
                dest,
                mask,
                arg0,
                arg1,
            } => {
                let s = self.ssrc(l, arg0, None)?;
                let v = self.vsrc(l, arg1, None)?;
                self.write_vec(l, "combiner", *dest, *mask, v.map(|c| s * c))
            }
            Combine::AtanPt1 { .. } | Combine::AtanPt2 { .. } => {
                Err(E::Unsupported("combiner atan_pt1/atan_pt2"))
            }
        }
    }

    pub(super) fn stage_combine_branch(&mut self) -> Result<(), E> {
        let active = self.active;
        if let Some(b) = self.instr.branch {
            for l in (0..4).filter(|&l| active[l]) {
                match b {
                    Branch::Discard => self.pending.push(Write::Discard { lane: l }),
                    // All three conditions = unconditional: taken, operands not read (Mesa
                    // writes them as 0 and they may hold anything, even NaN).
                    Branch::Branch { cond, .. } if cond.mask() == 7 => self.taken[l] = true,
                    Branch::Branch {
                        cond, arg0, arg1, ..
                    } => {
                        let (x, y) = (self.sreg(l, arg0)?, self.sreg(l, arg1)?);
                        self.taken[l] = cond.holds(x, y);
                    }
                }
            }
        }
        if let Some(c) = self.instr.combine {
            for l in (0..4).filter(|&l| active[l]) {
                self.combine_lane(l, &c)?;
            }
        }
        Ok(())
    }

    // ---- stage 7: temp write / fb read ------------------------------------------------------------------

    pub(super) fn stage_temp_write(&mut self) -> Result<(), E> {
        let Some(t) = self.instr.temp_write else {
            return Ok(());
        };
        let active = self.active;
        for l in (0..4).filter(|&l| active[l]) {
            match t {
                TempWrite::FbRead { color, dest, .. } => {
                    let inp = &self.inputs.lanes[l];
                    let (v, mask) = if color {
                        (inp.fb_color, 0xF)
                    } else {
                        ([inp.fb_depth, 0.0, 0.0, 0.0], 0x1)
                    };
                    self.write_vec(l, "fb read", dest, mask, v)?;
                }
                TempWrite::Store {
                    dest,
                    source,
                    alignment: align,
                    offset_reg,
                    offset_en,
                    index,
                    ..
                } => {
                    if u64::from(dest) != isa::TEMP_WRITE_DEST_TEMPORARY {
                        return Err(E::Unsupported("temp write with dest != 3"));
                    }
                    let mut addr = i64::from(index);
                    if offset_en {
                        addr += self.int_of(l, offset_reg)?;
                    }
                    let n = Self::elements(align);
                    let flat = addr * n;
                    if n == 1 {
                        let v = self.sreg(l, source)?;
                        self.pending.push(Write::Temp {
                            lane: l,
                            addr: flat,
                            value: v,
                        });
                    } else {
                        let v = self.vsrc(
                            l,
                            &Vec4Src {
                                reg: source.vec4(),
                                swizzle: isa::Swizzle::IDENTITY,
                                abs: false,
                                neg: false,
                            },
                            None,
                        )?;
                        for j in 0..n {
                            let a = flat + j;
                            self.pending.push(Write::Temp {
                                lane: l,
                                addr: a,
                                value: v[a.rem_euclid(4) as usize],
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
