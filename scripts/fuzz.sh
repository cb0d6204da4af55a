#!/usr/bin/env bash
# Fuzzes the scope DSL parser with libFuzzer (+ ASan + UBSan).
#
#   scripts/fuzz.sh [SECONDS]     run for SECONDS (default 20)
#
# Builds fuzz/scope_parser_fuzz.cpp with clang++ into build-fuzz/, copies the
# seed corpus fuzz/corpus/scope/ to build-fuzz/corpus/scope/ (new inputs the
# fuzzer finds stay there, the seeds are never modified) and runs it.
# Exit status: 0 when no crash was found, non-zero on a crash (the
# reproducer is written to build-fuzz/crash-*), 2 on a bad argument, 3 when
# clang++ is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-20}"
case "$seconds" in
  -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
  ''|*[!0-9]*) echo "scripts/fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac

if ! command -v clang++ >/dev/null 2>&1; then
  echo "scripts/fuzz.sh: clang++ not found; install the Debian package 'clang' (libFuzzer ships with it)" >&2
  exit 3
fi

out="$root/build-fuzz"
mkdir -p "$out"
cd "$root"

echo "==> building $out/scope_parser_fuzz" >&2
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I server/core/include -I server/core/src \
  fuzz/scope_parser_fuzz.cpp server/core/src/scope/*.cpp server/core/src/common/status.cpp \
  -o "$out/scope_parser_fuzz"

corpus="$out/corpus/scope"
rm -rf "$corpus"
mkdir -p "$corpus"
cp fuzz/corpus/scope/* "$corpus/"

echo "==> fuzzing for ${seconds}s" >&2
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# -max_len covers the 4096-byte limit plus a little, so the length check is
# exercised too.
exec "$out/scope_parser_fuzz" -max_total_time="$seconds" -max_len=4200 -print_final_stats=1 \
  -artifact_prefix="$out/" "$corpus"
