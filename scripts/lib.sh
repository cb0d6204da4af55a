# Shared by scripts/run.sh and scripts/test.sh: install missing Debian
# packages, then configure and build. Sourced, not executed.

YUZU_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Everything the build, the server and the whole test suite need.
YUZU_DEBIAN_PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache git
  libcpp-httplib-dev nlohmann-json3-dev libspdlog-dev libcli11-dev
  libsqlite3-dev libssl-dev libgtest-dev libbenchmark-dev
  sqlite3 openssl curl ca-certificates jq
  prometheus json-schema-test-suite
  clang chromium
  systemd python3-yaml docker-compose nginx
)

yuzu_log() { printf '==> %s\n' "$*" >&2; }

yuzu_install_packages() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  yuzu_log "installing Debian packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "need root or sudo to install: ${missing[*]}" >&2; return 1; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The end-to-end checks run the official MCP packages on Node.js (20 or newer
# preferred). An existing node is kept as it is: replacing a newer Node.js
# with Debian's would be a downgrade.
yuzu_install_node() {
  command -v node >/dev/null && command -v npm >/dev/null && return 0
  yuzu_install_packages nodejs npm
}

# yuzu_build BUILD_DIR [extra cmake args...]
yuzu_build() {
  local build_dir="$1"; shift
  local jobs
  jobs="$(nproc 2>/dev/null || echo 2)"
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    yuzu_log "configuring $build_dir"
    # Line tables (-g1) are enough for backtraces and sanitizer reports and
    # build and link far faster than full DWARF on a 2-core machine.
    cmake -S "$YUZU_ROOT" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "$@" >/dev/null
  fi
  yuzu_log "building in $build_dir"
  cmake --build "$build_dir" -j "$jobs"
}
