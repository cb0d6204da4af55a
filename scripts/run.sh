#!/usr/bin/env bash
# Builds Yuzu and runs yuzu-server on 127.0.0.1:8080 (override with
# YUZU_LISTEN) with its SQLite data in ./var (YUZU_DATA_DIR), then prints how
# to log in. Ctrl-C drains in-flight requests and stops the server.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

yuzu_install_packages "${YUZU_DEBIAN_PACKAGES[@]}"
build_dir="$YUZU_ROOT/build"
yuzu_build "$build_dir"

export YUZU_LISTEN="${YUZU_LISTEN:-127.0.0.1:8080}"
export YUZU_DATA_DIR="${YUZU_DATA_DIR:-$YUZU_ROOT/var}"
url="http://${YUZU_LISTEN}"

"$build_dir/bin/yuzu-server" &
server_pid=$!
trap 'kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid"; exit 0' INT TERM

for _ in $(seq 1 600); do
  if curl -fsS "${url}/livez" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "yuzu-server exited during start-up; see the log above" >&2
    wait "$server_pid" || true
    exit 1
  fi
  sleep 0.1
done

password_note="the password you set on first start"
if [ -f "$YUZU_DATA_DIR/initial-admin-password" ]; then
  password_note="cat $YUZU_DATA_DIR/initial-admin-password   (delete the file once you have logged in)"
fi
cat >&2 <<MSG

==> yuzu-server is running at ${url} (data in ${YUZU_DATA_DIR})
    health:    curl ${url}/livez
    metrics:   curl ${url}/metrics
    log in:    user 'admin', password: ${password_note}
               curl -c cookies -H 'Content-Type: application/json' \\
                    -d '{"username":"admin","password":"..."}' ${url}/login
    MCP:       create a token with an MCP tier (docs/user-manual/mcp.md), then
               claude mcp add --transport http yuzu ${url}/mcp/v1/ \\
                    --header "Authorization: Bearer yuzu_..."
    Ctrl-C stops the server.
MSG
wait "$server_pid"
