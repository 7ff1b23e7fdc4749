//! libFuzzer entry for `irc_fuzz`'s `compile_ir` target (see tools/fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| irc_fuzz::target("compile_ir").map_or((), |t| (t.run)(data)));
