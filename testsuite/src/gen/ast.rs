//! The abstract program the generator draws first: statements over typed variables, with
//! structured control flow only. It is then lowered to raw IR (scoped control flow, temporaries)
//! or to structured SSA IR, so both forms of one program must compute the same outputs.

/// Type of a generator variable or expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    F32,
    I32,
    U32,
    Bool,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Un {
    FNeg,
    FAbs,
    FFract,
    FFloor,
    FSqrtAbs,
    /// `rsq(|x|)`.
    FRsqAbs,
    /// `rcp(rsq(|x|))`: D3D9's length idiom, which targets with a square root fuse.
    FRcpRsqAbs,
    FRcp,
    FExp2,
    FLog2Abs,
    /// D3D9's `log` (`FLog2Legacy`: the logarithm of `|x|`, `log(0) = −inf`).
    FLog2Legacy,
    FSin,
    FCos,
    FtoI,
    FtoU,
    ItoF,
    UtoF,
    INeg,
    INot,
    BNot,
}

/// Binary operators; the operand type decides which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    FAdd,
    FSub,
    FMul,
    FMulLegacy,
    /// D3D9's `pow`: `exp2(b · log2(a))` with the legacy product.
    FPowLegacy,
    FDiv,
    FMin,
    FMax,
    IAdd,
    ISub,
    IMul,
    IAnd,
    IOr,
    IXor,
    IShl,
    UShr,
    SShr,
    UMin,
    UMax,
    SMin,
    SMax,
    UDiv,
    UMod,
    BAnd,
    BOr,
}

/// Comparisons (result bool).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    FLt,
    FGe,
    FEq,
    FNe,
    SLt,
    ULt,
    IEq,
}

/// An expression.
#[derive(Clone, Debug)]
pub enum Expr {
    Var(usize),
    ConstF(f32),
    ConstI(i32),
    ConstU(u32),
    ConstB(bool),
    /// Component `comp` of input `loc` (f32).
    Input(usize, u32),
    /// Component `comp` of constant-buffer vector `index` (a u32 expression, kept in range).
    Cbuf(Box<Expr>, u32),
    /// Component `comp` of a texture sample at (u, v).
    Sample(Box<Expr>, Box<Expr>, u32),
    Un(Un, Box<Expr>),
    Bin(Bin, Box<Expr>, Box<Expr>),
    Mad(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a · b + c` with D3D9's product (`0 · x = 0`).
    MadLegacy(Box<Expr>, Box<Expr>, Box<Expr>),
    /// The dot product of two vectors built from 2-4 f32 expressions each (`FDot`, or
    /// `FDotLegacy` with D3D9's products), plus `add` if present (`FDotAdd`,
    /// `FDotAddLegacy`).
    Dot {
        legacy: bool,
        a: Vec<Expr>,
        b: Vec<Expr>,
        add: Option<Box<Expr>>,
    },
    Cmp(Cmp, Box<Expr>, Box<Expr>),
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    Assign(usize, Expr),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// A loop running exactly `trips` times with counter variable `counter` (an i32 variable
    /// reset to 0 before the loop); the body must not assign the counter.
    Loop {
        counter: usize,
        trips: i32,
        body: Vec<Stmt>,
    },
    /// A switch on an i32 expression; cases do not fall through.
    Switch(Expr, Vec<(i32, Vec<Stmt>)>, Vec<Stmt>),
    /// Discard the invocation if the condition holds.
    Discard(Expr),
}

/// A whole program.
#[derive(Clone, Debug)]
pub struct Program {
    pub vars: Vec<Ty>,
    /// Number of f32x4 inputs.
    pub inputs: usize,
    /// Number of f32x4 outputs; output k component c is variable `outputs[k][c]`.
    pub outputs: Vec<[usize; 4]>,
    /// Number of f32x4 vectors in the constant buffer (0: none).
    pub cbuf_vectors: u32,
    pub uses_texture: bool,
    pub body: Vec<Stmt>,
    /// The entry point's stage (`ShaderStage` value): pixel, or vertex or geometry for
    /// [`super::vertex_form`] and [`super::geometry_form`].
    pub stage: u32,
}

impl Expr {
    /// The type of the expression.
    pub fn ty(&self, vars: &[Ty]) -> Ty {
        match self {
            Expr::Var(v) => vars[*v],
            Expr::ConstF(_) | Expr::Input(..) | Expr::Cbuf(..) | Expr::Sample(..) => Ty::F32,
            Expr::Mad(..) | Expr::MadLegacy(..) | Expr::Dot { .. } => Ty::F32,
            Expr::ConstI(_) => Ty::I32,
            Expr::ConstU(_) => Ty::U32,
            Expr::ConstB(_) | Expr::Cmp(..) => Ty::Bool,
            Expr::Un(op, a) => match op {
                Un::FtoI => Ty::I32,
                Un::FtoU => Ty::U32,
                Un::ItoF | Un::UtoF => Ty::F32,
                Un::BNot => Ty::Bool,
                _ => a.ty(vars),
            },
            Expr::Bin(_, a, _) => a.ty(vars),
            Expr::Select(_, a, _) => a.ty(vars),
        }
    }
}
