//! Fuzz target: the binary reader accepts arbitrary bytes without panicking, and whatever it
//! accepts writes back and re-reads to an equal module.
//!
//! Run with `cargo +nightly fuzz run read_binary` from `compiler/ir`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(module) = irc_ir::binary::read(data) else {
        return;
    };
    let bytes = irc_ir::binary::write(&module).expect("an accepted module must serialize");
    let again = irc_ir::binary::read(&bytes).expect("a written module must read back");
    assert!(again == module, "module changed across write and read");
});
