// Assembles irc's AGAL disassembly with OpenFL's port of Adobe's AGALMiniAssembler
// (npm `openfl` 8.9.6, pinned in package-lock.json) and requires the same bytes as irc's
// encoder.
//
// usage: node check.js DIR...   (every NAME.s in DIR, as `irc compile -t agal-… --emit asm
//        --out-dir DIR` writes it, next to NAME.bin from `--emit bin`; files given directly
//        are read the same way)
// Exit status: 0 when every program matches, 1 otherwise (each mismatch is listed).
"use strict";
const fs = require("fs");
const path = require("path");
// OpenFL's timer reads `window.performance` (the assembler times itself); node has
// `performance` on its global object.
globalThis.window = globalThis;
const AGALMiniAssembler = require("openfl/lib/openfl/utils/AGALMiniAssembler.js").default;

function programs(args) {
  const out = [];
  for (const a of args) {
    if (fs.statSync(a).isDirectory()) {
      for (const f of fs.readdirSync(a).sort()) {
        if (f.endsWith(".s")) out.push(path.join(a, f));
      }
    } else {
      out.push(a);
    }
  }
  return out;
}

function bytesOf(ba) {
  // OpenFL's ByteArray: `length` bytes at the start of its buffer.
  const b = ba.b || (ba.__b ? ba.__b : null);
  if (b) return Buffer.from(b.buffer, b.byteOffset, ba.length);
  const out = Buffer.alloc(ba.length);
  ba.position = 0;
  for (let i = 0; i < ba.length; i++) out[i] = ba.readUnsignedByte();
  return out;
}

const asm = new AGALMiniAssembler(false);
let ok = 0;
const bad = [];
for (const file of programs(process.argv.slice(2))) {
  const text = fs.readFileSync(file, "utf8").split("\n");
  const head = /^\.agal (vertex|fragment) (\d+)$/.exec(text[0].trim());
  if (!head) {
    bad.push(`${file}: no '.agal KIND VERSION' line`);
    continue;
  }
  const want = fs.readFileSync(file.replace(/\.s$/, ".bin"));
  const body = text.slice(1).join("\n");
  asm.assemble(head[1], body, Number(head[2]));
  if (asm.error) {
    bad.push(`${file}: OpenFL rejects it: ${asm.error}`);
    continue;
  }
  const got = bytesOf(asm.agalcode);
  if (!got.equals(want)) {
    let at = 0;
    while (at < got.length && at < want.length && got[at] === want[at]) at++;
    bad.push(
      `${file}: bytes differ at offset ${at} (token ${Math.floor((at - 7) / 24)}): ` +
        `OpenFL ${got.length} bytes, irc ${want.length}`
    );
    continue;
  }
  ok++;
}
for (const b of bad) console.log(b);
console.log(`openfl AGALMiniAssembler: ${ok} identical, ${bad.length} different`);
process.exit(bad.length === 0 && ok > 0 ? 0 : 1);
