#!/usr/bin/env bash
# Fuzzes the scope DSL parser, the config file parser and the MCP JSON-RPC
# envelope (bounded JSON parse + envelope checks) with libFuzzer (+ ASan +
# UBSan).
#
#   scripts/fuzz.sh [SECONDS]     run each target for SECONDS (default 20)
#
# Builds fuzz/scope_parser_fuzz.cpp, fuzz/config_file_fuzz.cpp and
# fuzz/jsonrpc_envelope_fuzz.cpp with clang++ into build-fuzz/, copies each
# seed corpus fuzz/corpus/<name>/ to build-fuzz/corpus/<name>/ (new inputs
# the fuzzer finds stay there, the seeds are never modified) and runs the
# targets one after the other.
# Exit status: 0 when no crash was found, non-zero on a crash in any target
# (the reproducer is written to build-fuzz/crash-* for scope,
# build-fuzz/config-crash-* for config, build-fuzz/jsonrpc-crash-* for the
# envelope), 2 on a bad argument, 3 when clang++ is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-20}"
case "$seconds" in
  -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
  ''|*[!0-9]*) echo "scripts/fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac

if ! command -v clang++ >/dev/null 2>&1; then
  echo "scripts/fuzz.sh: clang++ not found; install the Debian package 'clang' (libFuzzer ships with it)" >&2
  exit 3
fi

out="$root/build-fuzz"
mkdir -p "$out"
cd "$root"

# build NAME SOURCE...: one fuzz target into build-fuzz/NAME.
build() {
  local name="$1"
  shift
  echo "==> building $out/$name" >&2
  clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I server/core/include -I server/core/src "$@" -o "$out/$name"
}

# fuzz NAME CORPUS ARTIFACT_PREFIX MAX_LEN: runs build-fuzz/NAME for
# $seconds on a fresh copy of fuzz/corpus/CORPUS/; its exit status.
fuzz() {
  local name="$1" corpus="$out/corpus/$2" prefix="$3" max_len="$4"
  rm -rf "$corpus"
  mkdir -p "$corpus"
  cp "fuzz/corpus/$2/"* "$corpus/"
  echo "==> fuzzing $name for ${seconds}s" >&2
  "$out/$name" -max_total_time="$seconds" -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix="$prefix" "$corpus"
}

# Both are built before either runs, so a compile error costs no fuzzing time.
build scope_parser_fuzz fuzz/scope_parser_fuzz.cpp server/core/src/scope/*.cpp \
  server/core/src/common/status.cpp
build config_file_fuzz fuzz/config_file_fuzz.cpp server/core/src/app/config_file.cpp \
  server/core/src/common/status.cpp
build jsonrpc_envelope_fuzz fuzz/jsonrpc_envelope_fuzz.cpp server/core/src/mcp/jsonrpc.cpp \
  server/core/src/common/json_parse.cpp server/core/src/common/status.cpp

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# -max_len covers each parser's line limit (4096 bytes) plus a little, so the
# length checks are exercised too; 8192 also reaches the config file's
# 256-entry bound (its 64 KiB size bound is left to the unit tests).
scope_status=0
fuzz scope_parser_fuzz scope "$out/" 4200 || scope_status=$?
config_status=0
fuzz config_file_fuzz config "$out/config-" 8192 || config_status=$?
# Bodies a little past 64 levels of nesting and long strings both fit.
jsonrpc_status=0
fuzz jsonrpc_envelope_fuzz jsonrpc "$out/jsonrpc-" 4096 || jsonrpc_status=$?

echo "==> scope parser: exit $scope_status; config file: exit $config_status;" \
  "JSON-RPC envelope: exit $jsonrpc_status" >&2
if [ "$scope_status" -ne 0 ]; then exit "$scope_status"; fi
if [ "$config_status" -ne 0 ]; then exit "$config_status"; fi
exit "$jsonrpc_status"
