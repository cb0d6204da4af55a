#!/usr/bin/env bash
# Builds Yuzu and runs yuzu-server on 127.0.0.1:8080 (override with
# YUZU_LISTEN; agents connect to YUZU_AGENT_LISTEN, default 127.0.0.1:8081)
# with its SQLite data in ./var (YUZU_DATA_DIR), starts one yuzu-agent on this
# machine so the fleet is not empty, then prints how to log in and connect an
# MCP client (with a readonly MCP token for the admin, kept 0600 in
# $YUZU_DATA_DIR/mcp-readonly-token). Ctrl-C stops the agent, drains the
# server and exits. Port 0 in YUZU_LISTEN / YUZU_AGENT_LISTEN picks a free
# port; the printed addresses are the bound ones. YUZU_BUILD_DIR overrides
# the build directory (default ./build).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

yuzu_install_packages "${YUZU_DEBIAN_PACKAGES[@]}"
build_dir="${YUZU_BUILD_DIR:-$YUZU_ROOT/build}"
yuzu_build "$build_dir"

export YUZU_LISTEN="${YUZU_LISTEN:-127.0.0.1:8080}"
export YUZU_AGENT_LISTEN="${YUZU_AGENT_LISTEN:-127.0.0.1:8081}"
export YUZU_DATA_DIR="${YUZU_DATA_DIR:-$YUZU_ROOT/var}"
agent_state="$YUZU_DATA_DIR/local-agent"
listen_file="$YUZU_DATA_DIR/listen.json"
rm -f "$listen_file"

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

# The server writes the addresses it bound to listen.json once it listens.
url=""
agent_url=""
for _ in $(seq 1 600); do
  if [ -s "$listen_file" ]; then
    url="$(jq -r .management "$listen_file")"
    agent_url="$(jq -r .agent "$listen_file")"
    if curl -fsS "${url}/livez" >/dev/null 2>&1; then break; fi
  fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "yuzu-server exited during start-up; see the log above" >&2
    wait "$server_pid" || true
    exit 1
  fi
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "yuzu-server did not start listening within 60 s" >&2
  kill -TERM "$server_pid"; wait "$server_pid" || true
  exit 1
fi

# One local agent. It enrolls once (a single-use token from the CLI) and keeps
# its device token in $agent_state, so later runs reuse the same identity.
agent_args=(--server "$agent_url" --state-dir "$agent_state")
if [ ! -f "$agent_state/agent-0/identity.json" ]; then
  token_json="$("$build_dir/bin/yuzu-server" enroll-token create --data-dir "$YUZU_DATA_DIR" \
                  --ttl 600 --max-uses 1 --note "local agent started by scripts/run.sh")"
  export YUZU_AGENT_ENROLLMENT_TOKEN="$(jq -r .token <<<"$token_json")"
fi
"$build_dir/bin/yuzu-agent" "${agent_args[@]}" &
agent_pid=$!
unset YUZU_AGENT_ENROLLMENT_TOKEN

# A readonly MCP token for the admin, reused while it still works, so the
# connection lines below paste as printed. It is a secret: the file is 0600.
mcp_token_file="$YUZU_DATA_DIR/mcp-readonly-token"
mcp_token_works() {
  [ -s "$mcp_token_file" ] || return 1
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' -X POST "${url}/mcp/v1/" \
            -H "Authorization: Bearer $(cat "$mcp_token_file")" \
            -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
            -d '{"jsonrpc":"2.0","id":1,"method":"ping"}')"
  [ "$code" = "200" ]
}
if ! mcp_token_works; then
  token_json="$("$build_dir/bin/yuzu-server" token create --data-dir "$YUZU_DATA_DIR" --user admin \
                  --tier readonly --expires 30d --name "readonly MCP token from scripts/run.sh")"
  (umask 077; jq -r .token <<<"$token_json" >"$mcp_token_file")
fi
mcp_token="$(cat "$mcp_token_file")"
mcp_url="${url}/mcp/v1/"

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
    MCP:       a readonly MCP token for 'admin' (30 days) is in ${mcp_token_file}
    Claude Code:
      claude mcp add --transport http yuzu ${mcp_url} --header "Authorization: Bearer ${mcp_token}"
    Claude Desktop (claude_desktop_config.json, through mcp-remote):
      {"mcpServers": {"yuzu": {"command": "npx", "args": ["mcp-remote", "${mcp_url}", "--header", "Authorization:\${YUZU_AUTH}"], "env": {"YUZU_AUTH": "Bearer ${mcp_token}"}}}}
    Higher tiers (operator, supervised): docs/user-manual/mcp.md; an approval needs a second
               person with TOTP: its section "Approvals need two people"
    Ctrl-C stops the agent and the server.
MSG
wait "$server_pid"
