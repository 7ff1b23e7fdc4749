//! libFuzzer entry for `irc_fuzz`'s `ir_binary` target (see tools/fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| irc_fuzz::target("ir_binary").map_or((), |t| (t.run)(data)));
