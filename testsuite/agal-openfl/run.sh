#!/usr/bin/env bash
# Cross-check of irc's AGAL encoder with a third-party assembler: every corpus shader agal-fp /
# agal-vp compile, every agal filetest and every program under testsuite/bench/agal is compiled
# to its disassembly (`--emit asm`) and its bytes (`--emit bin`); OpenFL's AGALMiniAssembler
# (npm openfl 8.9.6, installed by `npm ci` from package-lock.json) assembles the disassembly and
# must give the same bytes (check.js).
#
# usage: testsuite/agal-openfl/run.sh IRC_BINARY CORPUS_DIR   (after `npm ci` in this directory)
set -euo pipefail
irc="$1"
corpus="$2"
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Filetests: the header lines (`test …`, `target …`, `option …`) are not IR.
for t in agal-fp agal-vp; do
  mkdir -p "$work/ft-$t"
  for f in "$root"/testsuite/filetests/targets/$t/*.ir; do
    grep -v -E '^(test|target|option) ' "$f" > "$work/ft-$t/$(basename "$f")"
  done
done
for t in agal-fp agal-vp; do
  for emit in asm bin; do
    # Exit status 1: some inputs are unsupported (not ours to check here); 2+: a failure.
    for dir in "$corpus/ir" "$work/ft-$t" "$root/testsuite/bench/agal"; do
      status=0
      "$irc" compile --target "$t" "$dir" --emit "$emit" --out-dir "$work/out-$t" > /dev/null 2>&1 || status=$?
      [ "$status" -le 1 ] || { echo "irc compile --target $t $dir failed ($status)"; exit 1; }
    done
  done
done
node "$here/check.js" "$work/out-agal-fp" "$work/out-agal-vp"
