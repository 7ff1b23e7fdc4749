//! libFuzzer entry for `irc_fuzz`'s `pica_decode` target (see tools/fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| irc_fuzz::target("pica_decode").map_or((), |t| (t.run)(data)));
