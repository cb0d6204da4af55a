#!/usr/bin/env bash
# Builds Yuzu and runs yuzu-server in the foreground on 127.0.0.1:8080
# (override with YUZU_LISTEN) with its SQLite data in ./var (YUZU_DATA_DIR).
# Ctrl-C (SIGINT) drains in-flight requests and exits cleanly.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

yuzu_install_packages "${YUZU_DEBIAN_PACKAGES[@]}"
build_dir="$YUZU_ROOT/build"
yuzu_build "$build_dir"

export YUZU_LISTEN="${YUZU_LISTEN:-127.0.0.1:8080}"
export YUZU_DATA_DIR="${YUZU_DATA_DIR:-$YUZU_ROOT/var}"
url="http://${YUZU_LISTEN}"

cat >&2 <<MSG
==> starting yuzu-server on ${url} (data in ${YUZU_DATA_DIR})
    health:   curl ${url}/livez
    metrics:  curl ${url}/metrics
MSG
exec "$build_dir/bin/yuzu-server"
