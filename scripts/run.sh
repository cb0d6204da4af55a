#!/usr/bin/env bash
# Builds Yuzu and runs yuzu-server on 127.0.0.1:8080 (override with
# YUZU_LISTEN; agents connect to YUZU_AGENT_LISTEN, default 127.0.0.1:8081)
# with its SQLite data in ./var (YUZU_DATA_DIR), starts one yuzu-agent on this
# machine so the fleet is not empty, then prints how to log in and connect an
# MCP client. Ctrl-C stops the agent, drains the server and exits.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

yuzu_install_packages "${YUZU_DEBIAN_PACKAGES[@]}"
build_dir="$YUZU_ROOT/build"
yuzu_build "$build_dir"

export YUZU_LISTEN="${YUZU_LISTEN:-127.0.0.1:8080}"
export YUZU_AGENT_LISTEN="${YUZU_AGENT_LISTEN:-127.0.0.1:8081}"
export YUZU_DATA_DIR="${YUZU_DATA_DIR:-$YUZU_ROOT/var}"
url="http://${YUZU_LISTEN}"
agent_state="$YUZU_DATA_DIR/local-agent"

"$build_dir/bin/yuzu-server" &
server_pid=$!
agent_pid=""
stop_all() {
  if [ -n "$agent_pid" ]; then kill -TERM "$agent_pid" 2>/dev/null; wait "$agent_pid" || true; fi
  kill -TERM "$server_pid" 2>/dev/null
  wait "$server_pid" || true
  exit 0
}
trap stop_all INT TERM

for _ in $(seq 1 600); do
  if curl -fsS "${url}/livez" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "yuzu-server exited during start-up; see the log above" >&2
    wait "$server_pid" || true
    exit 1
  fi
  sleep 0.1
done

# One local agent. It enrolls once (a single-use token from the CLI) and keeps
# its device token in $agent_state, so later runs reuse the same identity.
agent_args=(--server "http://${YUZU_AGENT_LISTEN}" --state-dir "$agent_state")
if [ ! -f "$agent_state/agent-0/identity.json" ]; then
  token_json="$("$build_dir/bin/yuzu-server" enroll-token create --data-dir "$YUZU_DATA_DIR" \
                  --ttl 600 --max-uses 1 --note "local agent started by scripts/run.sh")"
  export YUZU_AGENT_ENROLLMENT_TOKEN="$(jq -r .token <<<"$token_json")"
fi
"$build_dir/bin/yuzu-agent" "${agent_args[@]}" &
agent_pid=$!
unset YUZU_AGENT_ENROLLMENT_TOKEN

password_note="the password you set on first start"
if [ -f "$YUZU_DATA_DIR/initial-admin-password" ]; then
  password_note="cat $YUZU_DATA_DIR/initial-admin-password   (delete the file once you have logged in)"
fi
cat >&2 <<MSG

==> yuzu-server is running at ${url} (data in ${YUZU_DATA_DIR})
    agent:     one yuzu-agent on this machine (pid ${agent_pid}, state in ${agent_state})
    dashboard: ${url}/login
    health:    curl ${url}/livez
    metrics:   curl ${url}/metrics
    log in:    user 'admin', password: ${password_note}
               curl -c cookies -H 'Content-Type: application/json' \\
                    -d '{"username":"admin","password":"..."}' ${url}/login
    MCP:       create a token with an MCP tier (docs/user-manual/mcp.md), then
               claude mcp add --transport http yuzu ${url}/mcp/v1/ \\
                    --header "Authorization: Bearer yuzu_..."
    Ctrl-C stops the agent and the server.
MSG
wait "$server_pid"
