//! The assembler's directives (`.proc`, `.end`, `.else`, `.alias`, uniforms, constants,
//! inputs, outputs, `.gsh`, `.word`).

use super::*;

impl Asm {
    // ------------------------------------------------------------------ directives

    pub(super) fn directive(&mut self, cmd: &str, col: usize, args: &str) -> Result<(), AsmError> {
        let list = split_args(args);
        match cmd {
            ".proc" => {
                self.want(&list, 1, col)?;
                if !self.stack.is_empty() {
                    return Err(self.err(col, ".proc inside a block"));
                }
                let name = list[0].to_string();
                if self.procs.contains_key(&name) {
                    return Err(
                        self.err(self.col(list[0]), format!("proc `{name}` already exists"))
                    );
                }
                self.dvle();
                self.stack.push(Block::Proc {
                    name,
                    start: self.instrs.len(),
                });
            }
            ".else" => {
                self.want(&list, 0, col)?;
                let (at, start) = match self.stack.last() {
                    Some(Block::If { at, else_at: None }) => (*at, *at + 1),
                    _ => return Err(self.err(col, ".else without a matching if")),
                };
                self.close_block(start, false, col);
                let here = self.instrs.len();
                self.set_dst(at, here);
                if let Some(Block::If { else_at, .. }) = self.stack.last_mut() {
                    *else_at = Some(here);
                }
            }
            ".end" => {
                self.want(&list, 0, col)?;
                let block = self
                    .stack
                    .pop()
                    .ok_or_else(|| self.err(col, ".end without an open block"))?;
                match block {
                    Block::Proc { name, start } => {
                        self.close_block(start, false, col);
                        let len = self.instrs.len() - start;
                        self.procs.insert(name, (start, len));
                    }
                    Block::For { at } => {
                        self.close_block(at + 1, true, col);
                        let here = self.instrs.len();
                        self.set_dst(at, here - 1);
                    }
                    Block::If { at, else_at } => {
                        self.close_block(else_at.unwrap_or(at + 1), false, col);
                        let here = self.instrs.len();
                        match else_at {
                            None => self.set_dst(at, here),
                            Some(e) => self.set_num(at, here - e),
                        }
                    }
                }
                self.last_block_end = Some(self.instrs.len());
            }
            ".entry" => {
                self.want(&list, 1, col)?;
                self.file_state.entry = Some(list[0].to_string());
            }
            ".nodvle" => self.file_state.nodvle = true,
            ".alias" => {
                let mut it = args.split_whitespace();
                let (Some(name), Some(target), None) = (it.next(), it.next(), it.next()) else {
                    return Err(self.err(col, "expected `.alias name register`"));
                };
                if !valid_ident(name) || self.lookup_reg(name, col).ok().flatten().is_some() {
                    return Err(self.err(self.col(name), format!("invalid alias name `{name}`")));
                }
                let o = self.operand(target)?;
                self.define(name, self.col(name), o.reg, o.swizzle, o.negate)?;
            }
            ".fvec" | ".ivec" | ".bool" => {
                for a in list {
                    self.uniform(cmd, a)?;
                }
            }
            ".constf" | ".consti" => self.constant(cmd, col, args)?,
            ".setf" | ".seti" | ".setb" => self.set_constant(cmd, col, args)?,
            ".in" => self.input(col, &list)?,
            ".out" => self.output(col, args)?,
            ".gsh" => self.gsh(col, args)?,
            ".word" => {
                self.want(&list, 1, col)?;
                let w = parse_int(list[0])
                    .filter(|v| (0..=u32::MAX as i64).contains(v))
                    .ok_or_else(|| self.err(self.col(list[0]), "expected a 32-bit word"))?;
                let ins = decode_instr(self.instrs.len(), w as u32, &[])
                    .map_err(|e| self.err(self.col(list[0]), e.kind.to_string()))?;
                self.push(ins, col);
            }
            _ => return Err(self.err(col, format!("unknown directive `{cmd}`"))),
        }
        Ok(())
    }

    fn define(
        &mut self,
        name: &str,
        col: usize,
        reg: Reg,
        swizzle: Swizzle,
        negate: bool,
    ) -> Result<(), AsmError> {
        if self.file_state.aliases.contains_key(name) {
            return Err(self.err(col, format!("identifier `{name}` already used")));
        }
        self.file_state.aliases.insert(
            name.to_string(),
            Alias {
                reg,
                swizzle,
                negate,
            },
        );
        Ok(())
    }

    fn uniform(&mut self, cmd: &str, a: &str) -> Result<(), AsmError> {
        let c = self.col(a);
        let (name, size) = match a.find('[') {
            Some(i) => {
                let n = a[i + 1..]
                    .trim_end()
                    .strip_suffix(']')
                    .and_then(parse_int)
                    .filter(|n| (1..=96).contains(n))
                    .ok_or_else(|| self.err(c, format!("invalid uniform size in `{a}`")))?;
                (a[..i].trim(), n as u8)
            }
            None => (a.trim(), 1),
        };
        if !valid_ident(name) {
            return Err(self.err(c, format!("invalid uniform name `{name}`")));
        }
        let kind = cmd.as_bytes()[1] as char; // f, i, b
        let (limit, unified) = match kind {
            'f' => (96u8, reg::UNIFIED_FLOAT),
            'i' => (4, reg::UNIFIED_INT),
            _ => (16, reg::UNIFIED_BOOL),
        };
        let first = if self.is_gs() {
            let fs = &mut self.file_state;
            let next = match kind {
                'f' => fs.gs_fvec.get_or_insert(0),
                'i' => &mut fs.gs_ivec,
                _ => &mut fs.gs_bool,
            };
            let first = *next;
            *next = next.saturating_add(size);
            first
        } else if let Some(&(first, sz, k)) = self.globals.get(name) {
            if k != kind || sz != size {
                return Err(self.err(c, format!("uniform `{name}` redeclared differently")));
            }
            first
        } else {
            let next = match kind {
                'f' => &mut self.next_fvec,
                'i' => &mut self.next_ivec,
                _ => &mut self.next_bool,
            };
            let first = *next;
            *next = next.saturating_add(size);
            self.globals.insert(name.to_string(), (first, size, kind));
            first
        };
        if first as u32 + size as u32 > limit as u32 {
            return Err(self.err(c, format!("not enough uniform space for `{name}`")));
        }
        let reg = match kind {
            'f' => Reg::C(first),
            'i' => Reg::I(first),
            _ => Reg::B(first),
        };
        self.define(name, c, reg, Swizzle::IDENTITY, false)?;
        if !name.starts_with('_') {
            let first_u = unified + first as u16;
            self.dvle().uniforms.push(UniformEntry {
                name: name.to_string(),
                first: first_u,
                last: first_u + size as u16 - 1,
            });
        }
        Ok(())
    }

    fn parse_vec4(&self, col: usize, args: &str) -> Result<(String, Vec<String>), AsmError> {
        let open = args
            .find('(')
            .ok_or_else(|| self.err(col, "expected `name(x, y, z, w)`"))?;
        let close = args
            .rfind(')')
            .filter(|&c| c > open)
            .ok_or_else(|| self.err(col, "missing `)`"))?;
        let vals: Vec<String> = args[open + 1..close]
            .split(',')
            .map(|s| s.trim().to_string())
            .collect();
        if vals.len() != 4 {
            return Err(self.err(col, "expected four values"));
        }
        Ok((args[..open].trim().to_string(), vals))
    }

    fn constant(&mut self, cmd: &str, col: usize, args: &str) -> Result<(), AsmError> {
        let (name, vals) = self.parse_vec4(col, args)?;
        let float = cmd == ".constf";
        let floor = if float {
            if self.is_gs() {
                self.file_state.gs_fvec.unwrap_or(0)
            } else {
                self.next_fvec
            }
        } else if self.is_gs() {
            self.file_state.gs_ivec
        } else {
            self.next_ivec
        };
        let next = if float {
            self.file_state.const_c.get_or_insert(96)
        } else {
            self.file_state.const_i.get_or_insert(4)
        };
        if *next == 0 || *next - 1 < floor {
            return Err(self.err(col, format!("not enough space for constant `{name}`")));
        }
        *next -= 1;
        let r = *next;
        let value = self.const_value(float, col, &vals)?;
        let reg = if float { Reg::C(r) } else { Reg::I(r) };
        self.define(&name, col, reg, Swizzle::IDENTITY, false)?;
        self.dvle().constants.push(Constant {
            reg: r as u16,
            value,
        });
        Ok(())
    }

    fn const_value(
        &self,
        float: bool,
        col: usize,
        vals: &[String],
    ) -> Result<ConstValue, AsmError> {
        if float {
            let mut v = [0u32; 4];
            for (o, s) in v.iter_mut().zip(vals) {
                let f: f64 = s
                    .parse()
                    .map_err(|_| self.err(col, format!("invalid number `{s}`")))?;
                *o = float24::from_f32(f as f32);
            }
            Ok(ConstValue::Float(v))
        } else {
            let mut v = [0u8; 4];
            for (o, s) in v.iter_mut().zip(vals) {
                *o = parse_int(s).ok_or_else(|| self.err(col, format!("invalid integer `{s}`")))?
                    as u8;
            }
            Ok(ConstValue::Int(v))
        }
    }

    fn set_constant(&mut self, cmd: &str, col: usize, args: &str) -> Result<(), AsmError> {
        let (target, value) = if cmd == ".setb" {
            let mut it = args.split_whitespace();
            let (Some(t), Some(v)) = (it.next(), it.next()) else {
                return Err(self.err(col, "expected `.setb bN true|false`"));
            };
            let b = match v {
                "true" | "1" | "on" => true,
                "false" | "0" | "off" => false,
                _ => return Err(self.err(self.col(v), "expected true or false")),
            };
            (t.to_string(), ConstValue::Bool(b))
        } else {
            let (name, vals) = self.parse_vec4(col, args)?;
            let v = self.const_value(cmd == ".setf", col, &vals)?;
            (name, v)
        };
        let o = self.operand(&target)?;
        let reg = match (o.reg, value) {
            (Reg::C(n), ConstValue::Float(_))
            | (Reg::I(n), ConstValue::Int(_))
            | (Reg::B(n), ConstValue::Bool(_)) => n,
            _ => return Err(self.err(col, "register kind does not match the directive")),
        };
        self.dvle().constants.push(Constant {
            reg: reg as u16,
            value,
        });
        Ok(())
    }

    fn input(&mut self, col: usize, list: &[&str]) -> Result<(), AsmError> {
        let Some(spec) = list.first() else {
            return Err(self.err(col, "expected `.in name [vN]`"));
        };
        let mut it = spec.split_whitespace();
        let name = it.next().unwrap_or("");
        let n = match it.next() {
            Some(r) => match self.lookup_reg(r, self.col(r))? {
                Some(Reg::V(n)) => n,
                _ => return Err(self.err(self.col(r), "expected an input register vN")),
            },
            None => {
                let used = self.dvle().input_mask;
                (0..16u8)
                    .find(|i| used & (1 << i) == 0)
                    .ok_or_else(|| self.err(col, "no free input register"))?
            }
        };
        self.define(name, self.col(name), Reg::V(n), Swizzle::IDENTITY, false)?;
        let d = self.dvle();
        d.input_mask |= 1 << n;
        d.uniforms.push(UniformEntry {
            name: name.to_string(),
            first: n as u16,
            last: n as u16,
        });
        Ok(())
    }

    fn output(&mut self, col: usize, args: &str) -> Result<(), AsmError> {
        let mut it = args.split_whitespace();
        let (Some(name), Some(sem)) = (it.next(), it.next()) else {
            return Err(self.err(col, "expected `.out name semantic [oN]`"));
        };
        let (sem_name, sem_mask) = match sem.split_once('.') {
            Some((s, m)) => (
                s,
                Some(mask_of(parse_swizzle(m).ok_or_else(|| {
                    self.err(self.col(sem), format!("invalid mask `{m}`"))
                })?)),
            ),
            None => (sem, None),
        };
        let semantic = semantic::NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(sem_name))
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                self.err(
                    self.col(sem),
                    format!("unknown output semantic `{sem_name}`"),
                )
            })?;
        let (reg, swz) = match it.next() {
            Some(r) => {
                let o = self.operand(r)?;
                match o.reg {
                    Reg::O(n) => (n, (r.contains('.')).then_some(o.swizzle)),
                    _ => return Err(self.err(self.col(r), "expected an output register oN")),
                }
            }
            None => {
                let used = self.dvle().output_mask;
                let n = (0..16u8)
                    .find(|i| used & (1 << i) == 0)
                    .ok_or_else(|| self.err(col, "no free output register"))?;
                (n, None)
            }
        };
        let mask = sem_mask.or(swz.map(mask_of)).unwrap_or(Mask::XYZW);
        if name != "-" {
            self.define(
                name,
                self.col(name),
                Reg::O(reg),
                swz.unwrap_or(Swizzle::IDENTITY),
                false,
            )?;
        }
        let d = self.dvle();
        d.output_mask |= 1 << reg;
        d.outputs.push(OutputEntry {
            semantic,
            reg: reg as u16,
            mask: table_mask(mask),
        });
        if semantic == semantic::DUMMY {
            d.merge_outmaps = true;
        }
        Ok(())
    }

    fn gsh(&mut self, col: usize, args: &str) -> Result<(), AsmError> {
        let words: Vec<&str> = args.split_whitespace().collect();
        let creg = |s: &str| match self.lookup_reg(s, col) {
            Ok(Some(Reg::C(n))) => Ok(n),
            _ => Err(self.err(self.col(s), "expected a float uniform cN")),
        };
        let num = |s: &str| {
            parse_int(s)
                .filter(|v| (0..=255).contains(v))
                .map(|v| v as u8)
                .ok_or_else(|| self.err(self.col(s), "expected a number"))
        };
        let (mode, first, fixed_start, var_num, fixed_num) = match words.as_slice() {
            ["point", c] => (0, creg(c)?, 0, 0, 0),
            ["variable", c, n] => (1, creg(c)?, 0, num(n)?, 0),
            ["fixed", c, arr, n] => (2, creg(c)?, creg(arr)?, 0, num(n)?),
            _ => {
                return Err(self.err(
                    col,
                    "expected `.gsh point cN | variable cN n | fixed cN cArr n`",
                ))
            }
        };
        let d = self.dvle();
        d.kind = ShaderType::Geometry;
        d.gs_mode = mode;
        d.gs_fixed_start = fixed_start;
        d.gs_variable_num = var_num;
        d.gs_fixed_num = fixed_num;
        self.file_state.gs_fvec = Some(first);
        Ok(())
    }
}
