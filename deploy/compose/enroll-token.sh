#!/bin/sh
# One-shot step of compose.yaml (service "enroll"): writes a single-use
# enrollment token for the compose agent to a volume only the agent reads.
# It runs after the server is healthy, opens the server's data directory
# directly (yuzu-server enroll-token create; safe while the server runs, the
# stores use SQLite WAL) and never prints the token.
#
# Once the agent has enrolled (its identity is in its state volume) no token
# is made and any old one is removed, so `docker compose up` again does not
# mint tokens nobody uses.
set -eu
data_dir="${YUZU_DATA_DIR:-/var/lib/yuzu}"
agent_state="${YUZU_AGENT_STATE_DIR:-/var/lib/yuzu-agent}"
token_file="${ENROLL_TOKEN_FILE:-/var/lib/yuzu-enroll/token}"
umask 0077

if [ -f "$agent_state/agent-0/identity.json" ]; then
  rm -f "$token_file"
  echo "enroll-token: the agent is already enrolled; no token needed"
  exit 0
fi

# Prints {"expires_at":...,"id":"...","token":"yuzu_..."} on one line.
json="$(yuzu-server enroll-token create --data-dir "$data_dir" --ttl 900 --max-uses 1 \
          --note "compose agent")"
token="$(printf '%s\n' "$json" | sed -n 's/.*"token":"\([A-Za-z0-9_]*\)".*/\1/p')"
if [ -z "$token" ]; then
  echo "enroll-token: no token in the output of yuzu-server enroll-token create" >&2
  exit 1
fi
printf '%s\n' "$token" >"$token_file.tmp"
mv "$token_file.tmp" "$token_file"
echo "enroll-token: wrote a single-use token (15 minutes) to $token_file"
