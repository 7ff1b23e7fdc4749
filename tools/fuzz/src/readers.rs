//! Fuzz bodies for the readers: the IR binary reader and text parser, and each backend's
//! container reader, decoder, disassembler, assembler and (with little fuel) simulator.
//! Every accepted input must also pass the round trip the reader's own tests promise.

use irc_ir::{binary, text, verifier};

/// Fuel for simulator runs of decoded programs: enough to execute small programs, little
/// enough that a decoded infinite loop costs microseconds.
const SIM_FUEL: u64 = 64;

/// Little-endian 32-bit words of `data` (a trailing partial word is dropped).
fn words(data: &[u8]) -> Vec<u32> {
    data.chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// The binary IR reader: an accepted module verifies (with or without errors) without
/// panicking, writes and reads back equal, and prints and parses back equal.
pub fn ir_binary(data: &[u8]) {
    let Ok(m) = binary::read(data) else { return };
    let _ = verifier::verify(&m);
    let out = binary::write(&m).unwrap_or_else(|e| panic!("accepted module fails to write: {e}"));
    let again = binary::read(&out).unwrap_or_else(|e| panic!("written module fails to read: {e}"));
    assert!(again == m, "module changed across write/read");
    let printed = text::print(&m);
    let parsed = text::parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert!(parsed == m, "parse(print(m)) != m\n{printed}");
}

/// The text IR parser: an accepted module verifies without panicking and prints back to text
/// that parses to the same module; if it writes as binary, that reads back equal.
pub fn ir_text(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = text::parse(src) else { return };
    let _ = verifier::verify(&m);
    let printed = text::print(&m);
    let parsed = text::parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert!(parsed == m, "parse(print(m)) != m\n{printed}");
    // The writer numbers densely, so compare the second write with the first.
    if let Ok(out) = binary::write(&m) {
        let again =
            binary::read(&out).unwrap_or_else(|e| panic!("written module fails to read: {e}"));
        let twice =
            binary::write(&again).unwrap_or_else(|e| panic!("re-read module fails to write: {e}"));
        assert!(twice == out, "binary changed across read/write\n{printed}");
    }
}

/// The MBS1 container reader, then the Lima PP decoder and disassembler on its code.
pub fn lima_mbs1(data: &[u8]) {
    let Ok(code) = irc_lima::pp::mbs::read_mbs1(data) else {
        return;
    };
    if let Ok(p) = irc_lima::pp::decode_program(&code) {
        let _ = irc_lima::pp::disassemble_program(&p);
    }
}

/// Lima PP: decode, disassemble (one line per instruction), re-assemble the disassembly to
/// the same instructions, and run the simulator with little fuel.
pub fn lima_pp_decode(data: &[u8]) {
    use irc_lima::pp::sim::{run_program, LaneInputs};
    use irc_lima::pp::texture::NoTextures;
    use irc_lima::pp::{Precision, QuadInputs, SimOptions};
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(p) = irc_lima::pp::decode_program(&words(rest)) else {
        return;
    };
    let text = irc_lima::pp::disassemble_program(&p);
    assert_eq!(text.lines().count(), p.len(), "{text}");
    let inputs = QuadInputs {
        lanes: std::array::from_fn(|l| LaneInputs {
            varyings: (0..16).map(|i| [i as f32, l as f32, -0.5, 2.0]).collect(),
            frag_coord: [l as f32, 1.0, 0.5, 1.0],
            ..Default::default()
        }),
        uniforms: (0..16).map(|i| [i as f32 * 0.5, 1.0, -1.0, 0.0]).collect(),
    };
    let opts = SimOptions {
        precision: if mode & 1 == 0 {
            Precision::Fp16
        } else {
            Precision::Fp32
        },
        fuel: SIM_FUEL,
        strict_pipeline: mode & 2 != 0,
    };
    let _ = run_program(&p, &inputs, &NoTextures, &opts);
}

/// Lima PP assembler: an assembled program that encodes decodes to the same disassembly,
/// and its disassembly assembles again to the same disassembly.
pub fn lima_pp_asm(data: &[u8]) {
    use irc_lima::pp::{
        asm::assemble, decode_program, disassemble_program, encode::encode_program,
    };
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    // An empty program assembles (nothing to encode) but is not a program the decoder takes.
    let Ok(p) = assemble(src)
        .map_err(drop)
        .and_then(|p| if p.is_empty() { Err(()) } else { Ok(p) })
    else {
        return;
    };
    let text = disassemble_program(&p);
    let back = assemble(&text).unwrap_or_else(|e| panic!("{e}\n--- disassembly ---\n{text}"));
    assert_eq!(disassemble_program(&back), text, "asm(disasm(p))");
    if let Ok(w) = encode_program(&p) {
        let d = decode_program(&w).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(disassemble_program(&d), text, "decode(encode(p))");
    }
}

/// Lima GP: decode, disassemble, re-assemble to the same instructions, simulate with fuel.
pub fn lima_gp_decode(data: &[u8]) {
    use irc_lima::gp::{
        assemble, decode_bytes, disassemble_program, run_program, GpInputs, SimOptions,
    };
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(p) = decode_bytes(rest) else { return };
    let text = disassemble_program(&p);
    let _ = assemble(&text);
    let mut inputs = GpInputs::default();
    for (i, a) in inputs.attributes.iter_mut().enumerate() {
        *a = [i as f32, -1.5, 0.25, 1e30];
    }
    inputs.uniforms = (0..16).map(|i| [i as f32 * 0.5, -2.0, 7.0, 0.0]).collect();
    let opts = SimOptions {
        fuel: SIM_FUEL,
        strict: mode & 1 != 0,
    };
    let _ = run_program(&p, &inputs, &opts);
}

/// Lima GP assembler: an assembled program that encodes decodes to the same disassembly.
pub fn lima_gp_asm(data: &[u8]) {
    use irc_lima::gp::{assemble, decode_bytes, disassemble_program, encode_bytes};
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(p) = assemble(src) else { return };
    if p.is_empty() {
        return; // as for the PP assembler
    }
    let text = disassemble_program(&p);
    if let Ok(b) = encode_bytes(&p) {
        let d = decode_bytes(&b).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(disassemble_program(&d), text, "decode(encode(p))");
    }
}

/// PICA200 SHBIN reader, then the disassembler on every DVLE.
pub fn pica_shbin(data: &[u8]) {
    let Ok(sh) = irc_pica::shbin::read(data) else {
        return;
    };
    let _ = irc_pica::disasm::disassemble_shbin(&sh);
}

/// PICA200 decoder (first byte: operand-descriptor count; then descriptors, then code),
/// disassembler and simulator.
pub fn pica_decode(data: &[u8]) {
    use irc_pica::sim::{run, SimOptions, Uniforms};
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let all = words(rest);
    let split = (usize::from(n) % 129).min(all.len());
    let (descs, code) = all.split_at(split);
    let Ok(p) = irc_pica::decode::decode_program(code, descs) else {
        return;
    };
    let _ = irc_pica::disasm::disassemble_program(&p, &[(0, None)]);
    let inputs: [[f32; 4]; 16] = std::array::from_fn(|i| [i as f32, -1.5, 0.25, 2.0]);
    let opts = SimOptions {
        fuel: SIM_FUEL,
        ..SimOptions::default()
    };
    let _ = run(&p, 0, &inputs, &Uniforms::default(), &opts);
}

/// PICA200 assembler (picasso syntax): an assembled SHBIN writes, reads back and
/// disassembles.
pub fn pica_asm(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(sh) = irc_pica::asm::assemble(src) else {
        return;
    };
    let bytes = irc_pica::shbin::write(&sh);
    let back = irc_pica::shbin::read(&bytes)
        .unwrap_or_else(|e| panic!("written SHBIN fails to read: {e}"));
    assert_eq!(back.code, sh.code, "SHBIN code changed across write/read");
    assert_eq!(
        back.opdescs, sh.opdescs,
        "SHBIN descriptors changed across write/read"
    );
    let _ = irc_pica::disasm::disassemble_shbin(&back);
}

/// AGAL: the decoder, disassembler, validator and simulator; an accepted program encodes back
/// to the same bytes and its disassembly assembles to the same program.
pub fn agal_decode(data: &[u8]) {
    use irc_agal::sim::{run, RunInputs};
    use irc_agal::validate::{validate, ValidateOptions};
    let _ = irc_agal::disasm::disassemble(data);
    let _ = validate(data, &ValidateOptions::default());
    if let Ok(p) = irc_agal::decode::decode_program(data) {
        assert_eq!(
            irc_agal::encode::encode_program(&p),
            data,
            "encode(decode(b))"
        );
        let text = irc_agal::disasm::disassemble_program(&p);
        let q = irc_agal::asm::assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(q, p, "asm(disasm(p))\n{text}");
    }
    let constants = [[1.0f32; 4]; 4];
    let lanes = if data.get(6) == Some(&1) { 4 } else { 1 };
    let inputs = RunInputs {
        constants: &constants,
        inputs: vec![vec![[0.5, -1.0, 2.0, 3.0]; 16]; lanes],
        instance_id: 1,
        textures: &irc_backend::NoTextures,
        samplers: &[],
        fuel: SIM_FUEL,
    };
    let _ = run(data, &inputs);
}

/// AGAL assembler: an assembled program encodes, decodes back equal and disassembles.
pub fn agal_asm(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(p) = irc_agal::asm::assemble(src) else {
        return;
    };
    let bytes = irc_agal::encode::encode_program(&p);
    let d = irc_agal::decode::decode_program(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(d, p, "decode(encode(p))");
    let _ = irc_agal::disasm::disassemble_program(&d);
}
