//! libFuzzer entry for `irc_fuzz`'s `lima_mbs1` target (see tools/fuzz/README.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| irc_fuzz::target("lima_mbs1").map_or((), |t| (t.run)(data)));
