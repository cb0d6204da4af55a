#!/usr/bin/env bash
# Runs every Yuzu test: unit and integration (CTest), then the end-to-end
# checks. Installs missing Debian packages and builds first.
#
#   scripts/test.sh              plain build in ./build
#   scripts/test.sh --sanitize   ASan+UBSan build in ./build-sanitize
#   scripts/test.sh --tsan       ThreadSanitizer build in ./build-tsan (without
#                                the libFuzzer step: the fuzz targets are ASan builds)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

build_dir="$YUZU_ROOT/build"
cmake_args=()
mode=""
run_fuzz=1
for arg in "$@"; do
  case "$arg" in
    --sanitize|--tsan)
      if [ -n "$mode" ] && [ "$mode" != "$arg" ]; then
        echo "scripts/test.sh: --sanitize and --tsan are separate builds; give one of them" >&2
        exit 2
      fi
      mode="$arg"
      ;;
    -h|--help)
      sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "scripts/test.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
case "$mode" in
  --sanitize)
    build_dir="$YUZU_ROOT/build-sanitize"
    cmake_args+=(-DYUZU_SANITIZE=address,undefined)
    ;;
  --tsan)
    build_dir="$YUZU_ROOT/build-tsan"
    cmake_args+=(-DYUZU_SANITIZE=thread)
    run_fuzz=0
    ;;
esac

yuzu_install_packages "${YUZU_DEBIAN_PACKAGES[@]}"
yuzu_install_node
yuzu_build "$build_dir" "${cmake_args[@]}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# second_deadlock_stack: a lock-order report names where both locks were taken.
# ignore_noninstrumented_modules: Debian's libcpp-httplib, libsqlite3 and
# libssl are not built with TSan, so their own synchronisation (e.g. the
# guard of a function-local static in httplib's chunked writer) is
# invisible to it; accesses those libraries make through intercepted calls
# (memcpy, send) would otherwise be reported as races against ours.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1}"
# GCC 12's ThreadSanitizer cannot place its shadow memory under more ASLR
# entropy than 28 bits ("FATAL: ThreadSanitizer: unexpected memory mapping");
# newer kernels default to 32.
rnd_bits="$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 0)"
if [ "$mode" = --tsan ] && [ "$rnd_bits" -gt 28 ]; then
  yuzu_log "warning: vm.mmap_rnd_bits is $rnd_bits; if every test dies with 'unexpected memory mapping', run: sysctl -w vm.mmap_rnd_bits=28"
fi

yuzu_log "running unit and integration tests (ctest)"
status=0
(cd "$build_dir" && ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)") || status=1

# The fuzz targets are libFuzzer+ASan builds of their own (scripts/fuzz.sh):
# a --tsan run has nothing to add there and leaves them out.
if [ "$run_fuzz" = 1 ]; then
  # Each parser under libFuzzer (clang) for 1,000,000 executions; YUZU_FUZZ_SECONDS
  # overrides the per-target time cap (fuzz.sh's default, 480 s).
  yuzu_log "fuzzing the scope and config-file parsers, the JSON-RPC envelope, the 2026 _meta and header values, the agent-plane bodies, the question classifier and the CSR check (1,000,000 executions each)"
  "$YUZU_ROOT/scripts/fuzz.sh" ${YUZU_FUZZ_SECONDS:+"$YUZU_FUZZ_SECONDS"} || status=1
else
  yuzu_log "skipping the libFuzzer step under --tsan (the fuzz targets are ASan builds)"
fi

if [ -x "$YUZU_ROOT/tests/e2e/run.sh" ]; then
  yuzu_log "running end-to-end checks"
  YUZU_BUILD_DIR="$build_dir" "$YUZU_ROOT/tests/e2e/run.sh" || status=1
fi

# The deploy artefacts: systemd units (systemd-analyze verify, and a start
# as the unit would), the compose file, cmake --install, the Prometheus
# rules (promtool check/test) and their runbooks, the Grafana dashboard.
yuzu_log "checking the deploy artefacts"
YUZU_BUILD_DIR="$build_dir" "$YUZU_ROOT/tests/deploy/run.sh" || status=1
"$YUZU_ROOT/tests/deploy/check_rules.sh" || status=1

if [ "$status" -ne 0 ]; then
  yuzu_log "FAILED"
  exit 1
fi
yuzu_log "all tests passed"
