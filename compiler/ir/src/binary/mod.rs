//! The binary format of dxbc-spirv's `ir::Serializer`, byte for byte (reference §A.7–A.10).
//!
//! CONTRACT (owned by the binary-format work):
//! - `pub fn read(bytes: &[u8]) -> Result<Module, ReadError>`: op k (0-based stream position)
//!   becomes `SsaDef` index k (text id %k+1). Never panics. Rejects with byte offset + op index.
//! - `pub fn write(m: &Module) -> Result<Vec<u8>, WriteError>`: ops in program order, numbered
//!   densely; read-then-write of a canonical stream gives identical bytes.
