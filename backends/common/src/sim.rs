//! The interface every target's simulator offers: run encoded code words on the target's
//! inputs. Simulators decode the words themselves, independently of the encoder (they share
//! only the bit-field table), so that running compiled code checks the encoder too.

/// A simulator for one target.
pub trait Simulator {
    /// What one run consumes (Lima PP: a 2×2 quad's varyings, uniforms and special inputs).
    type Inputs;
    /// What one run produces (Lima PP: every lane's registers and discard flag).
    type Outputs;
    /// A failed run (undecodable words, an invalid operand, running out of fuel …).
    type Error: std::error::Error;

    /// Runs the program `words` on `inputs`.
    fn run(&self, words: &[u32], inputs: &Self::Inputs) -> Result<Self::Outputs, Self::Error>;
}
