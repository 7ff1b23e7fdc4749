//! Limits on the shape of a module that irc accepts before compiling it, so that adversarial
//! input meets a clear error instead of unbounded compile time.
//!
//! * **Control-flow nesting**: at most [`MAX_NESTING`] constructs open at once — `ScopedIf` /
//!   `ScopedLoop` / `ScopedSwitch` in raw IR, structured headers (a `Label` naming a merge
//!   block) in legalized IR. Direct3D itself allows 64 nested flow-control constructs in
//!   shader model 4-5 and fewer in shader model 3 (24 ifs, 4 loops), so no real shader comes
//!   near; a module nested thousands deep would only make the passes' per-construct work
//!   quadratic.
//!
//! The check is one linear walk over the code and allocates at most one entry per open
//! construct.

use crate::format;
use crate::{Module, OpCode, SsaDef};

/// The deepest control-flow nesting irc compiles (see the module docs).
pub const MAX_NESTING: usize = 256;

/// The first op at which more than `max` constructs are open, and that depth.
pub fn nesting_over(m: &Module, max: usize) -> Option<(SsaDef, usize)> {
    // Raw IR: the open scoped constructs. Legalized IR: the merge blocks of the open headers
    // (a header's construct closes where its merge block starts; blocks are in structured
    // order).
    let mut scoped = 0usize;
    let mut merges: Vec<SsaDef> = Vec::new();
    for d in m.code() {
        let op = m.op(d);
        match op.opcode {
            OpCode::Function => {
                scoped = 0;
                merges.clear();
            }
            OpCode::ScopedIf | OpCode::ScopedLoop | OpCode::ScopedSwitch => scoped += 1,
            OpCode::ScopedEndIf | OpCode::ScopedEndLoop | OpCode::ScopedEndSwitch => {
                scoped = scoped.saturating_sub(1)
            }
            OpCode::Label => {
                while merges.last() == Some(&d) {
                    merges.pop();
                }
                if let Some(merge) = format::Label::of(op).merge() {
                    merges.push(merge);
                }
            }
            _ => continue,
        }
        let depth = scoped + merges.len();
        if depth > max {
            return Some((d, depth));
        }
    }
    None
}
