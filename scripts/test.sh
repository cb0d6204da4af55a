#!/usr/bin/env bash
# Runs every Yuzu test: unit and integration (CTest), then the end-to-end
# checks. Installs missing Debian packages and builds first.
#
#   scripts/test.sh              plain build in ./build
#   scripts/test.sh --sanitize   ASan+UBSan build in ./build-sanitize
set -euo pipefail
source "$(dirname "$0")/lib.sh"

build_dir="$YUZU_ROOT/build"
cmake_args=()
for arg in "$@"; do
  case "$arg" in
    --sanitize)
      build_dir="$YUZU_ROOT/build-sanitize"
      cmake_args+=(-DYUZU_SANITIZE=address,undefined)
      ;;
    -h|--help)
      sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "scripts/test.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

yuzu_install_packages "${YUZU_DEBIAN_PACKAGES[@]}"
yuzu_install_node
yuzu_build "$build_dir" "${cmake_args[@]}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

yuzu_log "running unit and integration tests (ctest)"
status=0
(cd "$build_dir" && ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)") || status=1

# The scope-DSL parser under libFuzzer (clang) for a bounded time.
yuzu_log "fuzzing the scope and config-file parsers and the JSON-RPC envelope (${YUZU_FUZZ_SECONDS:-30} s each)"
"$YUZU_ROOT/scripts/fuzz.sh" "${YUZU_FUZZ_SECONDS:-30}" || status=1

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
