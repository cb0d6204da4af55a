#!/bin/sh
# Command of compose.yaml's "agent" service: passes the token written by
# enroll-token.sh through the environment (never the command line), then
# runs yuzu-agent. Once enrolled, the agent uses the device token in its
# state volume and ignores an enrollment token; the next run of
# enroll-token.sh removes the file.
set -eu
token_file="${ENROLL_TOKEN_FILE:-/var/lib/yuzu-enroll/token}"
if [ -s "$token_file" ]; then
  YUZU_AGENT_ENROLLMENT_TOKEN="$(cat "$token_file")"
  export YUZU_AGENT_ENROLLMENT_TOKEN
fi
exec yuzu-agent --state-dir "${YUZU_AGENT_STATE_DIR:-/var/lib/yuzu-agent}" "$@"
