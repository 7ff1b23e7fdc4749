//! libFuzzer entry for `irc_fuzz`'s `ir_text` target (see tools/fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| irc_fuzz::target("ir_text").map_or((), |t| (t.run)(data)));
