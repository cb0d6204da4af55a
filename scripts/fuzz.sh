#!/usr/bin/env bash
# Fuzzes the scope DSL parser, the config file parser, the MCP JSON-RPC
# envelope (bounded JSON parse + envelope checks), the 2026-07-28 era's
# _meta parser and header-value decoding, the agent-plane request
# bodies (enrollment, heartbeat, inventory, results), the agentic layer's
# question classifier and playbook lookup, and the CA's CSR check with libFuzzer
# (+ ASan + UBSan), 1,000,000 executions per target.
#
#   scripts/fuzz.sh [CAP_SECONDS]   stop a target that has not reached
#                                   1,000,000 executions after CAP_SECONDS
#                                   (default 480); that counts as a failure
#
# Builds the targets fuzz/<name>.cpp with clang++ -O2 into build-fuzz/, then
# runs each with -runs=1000000 and -max_total_time=CAP_SECONDS on a fresh
# copy of its seed corpus fuzz/corpus/<corpus>/ in build-fuzz/corpus/<corpus>/
# (new inputs the fuzzer finds stay there, the seeds are never modified),
# two targets at a time when there are two cores. Each target's compiler
# and libFuzzer output go to build-fuzz/<name>.build.log and
# build-fuzz/<name>.log; the summary prints its executions
# (stat::number_of_executed_units) and executions per second.
# Exit status: 0 when every target ran 1,000,000 executions without a crash;
# 1 when a target crashed or hung on one input for 20 s (the reproducer is
# build-fuzz/<corpus>-crash-* or -timeout-*, e.g. build-fuzz/agent-crash-<sha1>),
# stopped short at the cap, or did not build; 2 on a bad argument; 3 when
# clang++ is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The cap catches a target that would never finish, not a slow one: on a
# busy shared 2-core machine the slowest target has run at 3,700/s, which
# is 270 s for 1,000,000 executions.
cap="${1:-480}"
case "$cap" in
  -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
  ''|*[!0-9]*) echo "scripts/fuzz.sh: CAP_SECONDS must be a whole number, got '$cap'" >&2; exit 2 ;;
esac
runs=1000000

if ! command -v clang++ >/dev/null 2>&1; then
  echo "scripts/fuzz.sh: clang++ not found; install the Debian package 'clang' (libFuzzer ships with it)" >&2
  exit 3
fi

out="$root/build-fuzz"
mkdir -p "$out"
cd "$root"
# One target per core, at most two: the machines this runs on have two.
jobs="$(nproc 2>/dev/null || echo 1)"
if [ "$jobs" -gt 2 ]; then jobs=2; fi

# build NAME SOURCE...: one fuzz target into build-fuzz/NAME; compiler
# output in build-fuzz/NAME.build.log.
build() {
  local name="$1"
  shift
  clang++ -std=c++20 -g -O2 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I server/core/include -I server/core/src "$@" -o "$out/$name" >"$out/$name.build.log" 2>&1
}

# fuzz NAME CORPUS MAX_LEN: runs build-fuzz/NAME for $runs executions (at
# most $cap seconds) on a fresh copy of fuzz/corpus/CORPUS/; libFuzzer's
# exit status goes to build-fuzz/NAME.status, a crash's input to
# build-fuzz/CORPUS-crash-* (an input that takes over 20 s is a crash too,
# build-fuzz/CORPUS-timeout-*).
fuzz() {
  local name="$1" corpus="$out/corpus/$2" prefix="$out/$2-" max_len="$3" status=0
  : >"$out/$name.log"
  rm -rf "$corpus"
  mkdir -p "$corpus"
  cp "fuzz/corpus/$2/"* "$corpus/"
  "$out/$name" -runs="$runs" -max_total_time="$cap" -max_len="$max_len" -print_final_stats=1 \
    -timeout=20 -artifact_prefix="$prefix" "$corpus" >"$out/$name.log" 2>&1 || status=$?
  echo "$status" >"$out/$name.status"
}

# Each entry: NAME CORPUS MAX_LEN SOURCE... ; the slowest targets come
# first so the two slots finish close together. MAX_LEN: the JSON targets'
# 4096 holds bodies a little past 64 levels of nesting, strings longer than
# every field limit but the per-source cap, and inventory reports over the
# 64-source bound; scope's and config's cover their line limit (4096 bytes)
# plus a little, so the length checks are exercised too, and config's 8192
# also reaches its 256-entry bound (its 64 KiB size bound is left to the
# unit tests). csr's 17000 passes the 16 KiB CSR bound.
targets=(
  "agent_plane_body_fuzz agent 4096 fuzz/agent_plane_body_fuzz.cpp
   server/core/src/agentapi/agent_bodies.cpp server/core/src/fleet/field_rules.cpp
   server/core/src/fleet/inventory_rules.cpp server/core/src/execution/json_text.cpp
   server/core/src/common/json_text.cpp
   server/core/src/common/json_parse.cpp server/core/src/common/json_reader.cpp server/core/src/common/status.cpp"
  "jsonrpc_envelope_fuzz jsonrpc 4096 fuzz/jsonrpc_envelope_fuzz.cpp
   server/core/src/mcp/protocol/jsonrpc.cpp server/core/src/common/json_parse.cpp server/core/src/common/json_reader.cpp server/core/src/common/json_text.cpp
   server/core/src/common/status.cpp"
  "mcp_era_fuzz era 4096 fuzz/mcp_era_fuzz.cpp
   server/core/src/mcp/protocol/request_meta.cpp server/core/src/mcp/session/log_level.cpp
   server/core/src/mcp/transport/header_value_codec.cpp server/core/src/auth/token_codec.cpp
   server/core/src/auth/random.cpp
   server/core/src/mcp/protocol/jsonrpc.cpp server/core/src/common/json_parse.cpp server/core/src/common/json_reader.cpp
   server/core/src/common/json_text.cpp server/core/src/common/status.cpp -lcrypto"
  "config_file_fuzz config 8192 fuzz/config_file_fuzz.cpp
   server/core/src/app/config_file.cpp server/core/src/common/status.cpp"
  "scope_parser_fuzz scope 4200 fuzz/scope_parser_fuzz.cpp server/core/src/scope/*.cpp
   server/core/src/common/status.cpp"
  "question_text_fuzz question 4200 fuzz/question_text_fuzz.cpp
   server/core/src/mcp/agentic/question_classifier.cpp server/core/src/mcp/agentic/playbooks.cpp"
  "csr_check_fuzz csr 17000 fuzz/csr_check_fuzz.cpp server/core/src/pki/csr_check.cpp
   server/core/src/pki/openssl_util.cpp server/core/src/common/status.cpp -lcrypto"
)

# run_all STEP: calls STEP with each target's fields, $jobs at a time.
run_all() {
  local step="$1" spec running=0
  for spec in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
      wait -n || true
      running=$((running - 1))
    fi
    # shellcheck disable=SC2086 # the fields (and the scope sources' glob) split on purpose
    "$step" $spec &
    running=$((running + 1))
  done
  wait || true
}

# The steps record a failure first, so a step that dies early is not read
# as a success left over from an earlier run.
build_step() {
  local name="$1"
  shift 3
  echo 1 >"$out/$name.build.status"
  echo "==> building $out/$name" >&2
  if build "$name" "$@"; then echo 0; else echo 1; fi >"$out/$name.build.status"
}
fuzz_step() {
  echo 1 >"$out/$1.status"
  echo "==> fuzzing $1 for $runs executions (at most ${cap}s)" >&2
  fuzz "$1" "$2" "$3"
}

# Every target is built before any runs, so a compile error costs no fuzzing time.
run_all build_step
built=0
for spec in "${targets[@]}"; do
  name="${spec%% *}"
  if [ "$(cat "$out/$name.build.status")" -ne 0 ]; then
    echo "==> $name did not build:" >&2
    cat "$out/$name.build.log" >&2
    built=1
  fi
done
if [ "$built" -ne 0 ]; then exit 1; fi

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# ASan records a stack for every malloc and free, a tenth of the JSON
# targets' time; without them a report still has the faulting access's
# stack, and rerunning build-fuzz/NAME on the reproducer (with
# ASAN_OPTIONS=malloc_context_size=30) shows where the memory came from.
case "${ASAN_OPTIONS:-}" in
  *malloc_context_size=*) ;;
  *) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}malloc_context_size=0" ;;
esac
started=$SECONDS
run_all fuzz_step

# The count comes from -print_final_stats, the time from libFuzzer's
# "Done N runs in S second(s)".
failed=0
for spec in "${targets[@]}"; do
  name="${spec%% *}"
  log="$out/$name.log"
  status="$(cat "$out/$name.status")"
  executed="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  per_second="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  seconds="$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)"
  echo "==> $name: stat::number_of_executed_units ${executed:-?} in ${seconds:-?}s" \
    "(${per_second:-?}/s), exit $status" >&2
  if [ "$status" -ne 0 ]; then
    echo "==> $name failed; the end of $log:" >&2
    tail -n 80 "$log" >&2
    failed=1
  elif [ -z "$executed" ] || [ "$executed" -lt "$runs" ]; then
    echo "==> $name stopped at the ${cap}s cap after ${executed:-no} executions, short of $runs;" \
      "a slower or busier machine needs a larger CAP_SECONDS" >&2
    failed=1
  fi
done
echo "==> fuzzing took $((SECONDS - started))s" >&2
exit "$failed"
