//! Tests of the C API, from Rust and from C. They are unit tests because the crate has no
//! rlib (see Cargo.toml).

mod c_example;
mod ffi;
mod header;
