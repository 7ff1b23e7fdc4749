//! A label/fixup code buffer for targets whose instructions are a fixed number of words
//! (Lima GP, PICA200, AGAL).
//!
//! The emitter appends instructions with [`CodeBuffer::push`], creates labels with
//! [`CodeBuffer::new_label`] and binds them to the current instruction with
//! [`CodeBuffer::bind`]; a branch whose target is not known yet records a [`Fixup`] naming the
//! instruction, the [`Field`] holding the target and how the target is counted
//! ([`FixupKind`]). [`CodeBuffer::finish`] writes every target into its field and fails on a
//! label never bound or a target that does not fit the field.
//!
//! An instruction is `words_per_instr` 32-bit words seen as one little-endian `u128` (up to
//! four words), so that fields use the same bit numbering as the target's bit table
//! ([`crate::bits`]).
//!
//! Lima PP does not use it: its instructions have variable length (2–19 words, the length of
//! each depending on the units present), and each control word stores the *next* instruction's
//! length, so branch offsets are known only once every instruction is encoded; its encoder
//! links the program itself (`encode::link_program`).

use crate::bits::Field;

/// A branch target not bound yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub u32);

/// How a fixup's target is written into its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FixupKind {
    /// The target's instruction index, unsigned.
    Absolute,
    /// Target index minus (the branch's index + `bias`), two's complement.
    Relative { bias: i64 },
}

/// A field of instruction `at` to fill with the position of `label`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fixup {
    pub at: usize,
    pub label: Label,
    pub field: Field,
    pub kind: FixupKind,
}

/// Why [`CodeBuffer::finish`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
    #[error("label {0} is used by instruction {1} but never bound")]
    Unbound(u32, usize),
    #[error("instruction {at}: target {value} does not fit field {field} ({width} bits)")]
    OutOfRange {
        at: usize,
        value: i64,
        field: &'static str,
        width: u32,
    },
    #[error("fixup at instruction {0}, which does not exist ({1} instructions)")]
    NoInstruction(usize, usize),
    #[error("label {0} bound twice")]
    Rebound(u32),
    #[error("label {0} was not made by this buffer")]
    Unknown(u32),
}

/// Instructions of a fixed number of words, with labels and fixups.
#[derive(Debug, Clone, Default)]
pub struct CodeBuffer {
    words_per_instr: usize,
    instrs: Vec<u128>,
    labels: Vec<Option<usize>>,
    fixups: Vec<Fixup>,
}

impl CodeBuffer {
    /// An empty buffer of `words_per_instr`-word instructions (1..=4).
    pub fn new(words_per_instr: usize) -> CodeBuffer {
        CodeBuffer {
            words_per_instr: words_per_instr.clamp(1, 4),
            ..CodeBuffer::default()
        }
    }

    /// Empties the buffer for reuse, keeping its allocations.
    pub fn clear(&mut self) {
        self.instrs.clear();
        self.labels.clear();
        self.fixups.clear();
    }

    /// Number of instructions so far (the index of the next one).
    pub fn len(&self) -> usize {
        self.instrs.len()
    }

    /// Whether no instruction was pushed.
    pub fn is_empty(&self) -> bool {
        self.instrs.is_empty()
    }

    /// Appends an instruction; returns its index.
    pub fn push(&mut self, bits: u128) -> usize {
        self.instrs.push(bits);
        self.instrs.len() - 1
    }

    /// A new, unbound label.
    pub fn new_label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() as u32 - 1)
    }

    /// Binds `label` to the next instruction pushed.
    pub fn bind(&mut self, label: Label) -> Result<(), BufferError> {
        let Some(slot) = self.labels.get_mut(label.0 as usize) else {
            return Err(BufferError::Unknown(label.0));
        };
        if slot.is_some() {
            return Err(BufferError::Rebound(label.0));
        }
        *slot = Some(self.instrs.len());
        Ok(())
    }

    /// Where `label` is bound, if it is.
    pub fn label_pos(&self, label: Label) -> Option<usize> {
        self.labels.get(label.0 as usize).copied().flatten()
    }

    /// Asks for `field` of instruction `at` to hold the position of `label`.
    pub fn fixup(&mut self, at: usize, label: Label, field: Field, kind: FixupKind) {
        self.fixups.push(Fixup {
            at,
            label,
            field,
            kind,
        });
    }

    /// Resolves every fixup and returns the words (instruction by instruction, low word
    /// first).
    pub fn finish(&mut self) -> Result<Vec<u32>, BufferError> {
        for f in &self.fixups {
            let target = match self.labels.get(f.label.0 as usize) {
                Some(Some(t)) => *t,
                Some(None) => return Err(BufferError::Unbound(f.label.0, f.at)),
                None => return Err(BufferError::Unknown(f.label.0)),
            };
            let n = self.instrs.len();
            let ins = self
                .instrs
                .get_mut(f.at)
                .ok_or(BufferError::NoInstruction(f.at, n))?;
            let (value, fits) = match f.kind {
                FixupKind::Absolute => {
                    let v = target as i64;
                    (v, f.field.fits(v as u64))
                }
                FixupKind::Relative { bias } => {
                    let v = target as i64 - (f.at as i64 + bias);
                    (v, f.field.fits_signed(v))
                }
            };
            if !fits {
                return Err(BufferError::OutOfRange {
                    at: f.at,
                    value,
                    field: f.field.name,
                    width: f.field.width,
                });
            }
            *ins = f.field.set(*ins, value as u64);
        }
        let mut words = Vec::with_capacity(self.instrs.len() * self.words_per_instr);
        for &ins in &self.instrs {
            for w in 0..self.words_per_instr {
                words.push((ins >> (32 * w)) as u32);
            }
        }
        Ok(words)
    }
}
