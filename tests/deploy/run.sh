#!/usr/bin/env bash
# Checks of deploy/ (systemd units, env files, compose, Dockerfile) and of
# the install rules, against the built binaries in $YUZU_BUILD_DIR/bin
# (default <repo>/build):
#   units      systemd-analyze verify of both units (copies whose ExecStart
#              names the built binaries) prints nothing; the units agree
#              with themselves (data dir = StateDirectory, 210 s stop, ...)
#   env files  deploy/systemd/*.env list exactly the YUZU_* variables of
#              server/core/src/app/flags.cpp and agent/src/main.cpp
#   server     yuzu-server started as yuzu-server.service would start it
#              (its ExecStart, its EnvironmentFile's example values, its
#              UMask), ready, then SIGTERM: exit 0 well inside 210 s, and no
#              file in the data dir readable by group or others
#   agent      a token from deploy/compose/enroll-token.sh, then yuzu-agent
#              started as yuzu-agent.service would start it: it enrolls,
#              its state is private, SIGTERM exits 0
#   compose    compose.yaml's structure (docker compose config -q too when
#              the compose plugin is there); the Dockerfile's base images,
#              build packages and runtime libraries; docker build when a
#              daemon answers
#   nginx      when nginx is installed: deploy/nginx/*.conf pass nginx -t, and
#              nginx started from them (self-signed TLS, loopback ports, as
#              the current user) in front of a yuzu-server passes probes,
#              MCP errors, Host and Origin through, refuses bodies over
#              4 MiB and fast repeated logins itself, does not buffer the
#              event stream, and carries the agent plane
#   install    cmake --install into a temporary prefix: the layout, and the
#              installed units verify and name the installed binaries
# One line per check ("ok - ..." / "not ok - ..."; "# skip - ..." lines are
# not counted), then "N passed, M failed". Exit status 1 on any failure.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${YUZU_BUILD_DIR:-$ROOT/build}"
BIN="$BUILD/bin"
SYSTEMD_DIR="$ROOT/deploy/systemd"
COMPOSE_DIR="$ROOT/deploy/compose"
# Bound on a clean SIGTERM stop here: an idle server and agent stop in well
# under a second; the units allow 210 s for the worst case in production.
STOP_BOUND_S=35

passed=0
failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
skip() { echo "# skip - $*"; }
# Indented detail under a failure, at most 20 lines.
detail() { sed -e 's/^/#   /' | head -n 20; }

tmp="$(mktemp -d)"
server_pid=""
agent_pid=""
proxy_server_pid=""
nginx_pid=""
cleanup() {
  local pid
  for pid in "$nginx_pid" "$proxy_server_pid" "$agent_pid" "$server_pid"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
    fi
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

# A Python with PyYAML (Debian package python3-yaml) for the compose checks.
PYTHON=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import yaml' 2>/dev/null; then
    PYTHON="$candidate"
    break
  fi
done

# ---- unit file helpers ----------------------------------------------------

# unit_value FILE KEY: the value of the last KEY= line (as systemd, a later
# assignment of a single-valued setting wins).
unit_value() {
  sed -n "s/^$2=//p" "$1" | tail -n 1
}

# unit_exec FILE ARRAY: splits ExecStart= of FILE into ARRAY. The units keep
# ExecStart simple on purpose (no quotes, specifiers, variables, prefixes or
# continuation lines) so that this split is exactly systemd's; anything else
# is refused rather than guessed at.
unit_exec() {
  local file="$1" line
  local -n _ue_argv="$2"
  line="$(unit_value "$file" ExecStart)"
  case "$line" in
    "" | [-@+!:]* | *[\"\'%\$\\]*)
      echo "ExecStart of $file is empty or uses syntax this check does not parse: $line" >&2
      return 1
      ;;
  esac
  read -r -a _ue_argv <<<"$line"
}

# env_assignments ENV_FILE: KEY=VALUE for every active line and every
# commented example with a value ("#KEY=VALUE"), in file order.
env_assignments() {
  sed -n -E 's/^#?(YUZU_[A-Z0-9_]+=.+)$/\1/p' "$1"
}

# private_violations DIR: entries under DIR (DIR included) with any group or
# other permission bit.
private_violations() {
  find "$1" -perm /077 -printf '%m %p\n' 2>/dev/null
}

# wait_exit PID BOUND_S: waits for PID (a child of this shell, so not in a
# subshell) to end; sets exit_status to its status, or "timeout" if it is
# still running after BOUND_S seconds.
exit_status=""
wait_exit() {
  local pid="$1" bound="$2" i
  for ((i = 0; i < bound * 10; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      exit_status=$?
      return
    fi
    sleep 0.1
  done
  exit_status=timeout
}

# ---- units: systemd-analyze verify ----------------------------------------

if ! command -v systemd-analyze >/dev/null; then
  not_ok "systemd-analyze is not installed (Debian package systemd)"
else
  for name in yuzu-server yuzu-agent; do
    unit="$SYSTEMD_DIR/$name.service"
    if [ ! -x "$BIN/$name" ]; then
      not_ok "systemd-analyze verify $name.service: $BIN/$name is missing (build it first)"
      continue
    fi
    # verify insists that ExecStart's binary exists, so it checks a copy
    # pointing at the built one; nothing else is changed. User=yuzu stays:
    # systemd-analyze (252, Debian 12) does not resolve User= when verifying,
    # so a missing yuzu user here is not reported (and the unit needs none).
    # In this container systemd is not PID 1; verify printed nothing about
    # that for a clean unit, so every line it prints counts as a warning
    # about the unit.
    mkdir -p "$tmp/verify"
    sed "s#^ExecStart=/usr/local/bin/$name #ExecStart=$BIN/$name #" "$unit" \
      >"$tmp/verify/$name.service"
    out="$(systemd-analyze verify "$tmp/verify/$name.service" 2>&1)"
    rc=$?
    if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
      ok "systemd-analyze verify $name.service is clean"
    else
      not_ok "systemd-analyze verify $name.service (exit $rc)"
      printf '%s\n' "$out" | detail
    fi
  done
fi

# ---- units: internal consistency ------------------------------------------

check_unit_facts() {
  local name="$1" state_flag="$2" unit="$SYSTEMD_DIR/$1.service" problems=() argv=()
  local state_dir env_file i found=""
  [ "$(unit_value "$unit" TimeoutStopSec)" = 210 ] || problems+=("TimeoutStopSec is not 210")
  [ "$(unit_value "$unit" KillSignal)" = SIGTERM ] || problems+=("KillSignal is not SIGTERM")
  [ "$(unit_value "$unit" UMask)" = 0077 ] || problems+=("UMask is not 0077")
  [ "$(unit_value "$unit" StateDirectoryMode)" = 0700 ] || problems+=("StateDirectoryMode is not 0700")
  [ "$(unit_value "$unit" NoNewPrivileges)" = yes ] || problems+=("NoNewPrivileges is not yes")
  [ "$(unit_value "$unit" ProtectSystem)" = strict ] || problems+=("ProtectSystem is not strict")
  state_dir="/var/lib/$(unit_value "$unit" StateDirectory)"
  if unit_exec "$unit" argv 2>"$tmp/exec.err"; then
    [ "${argv[0]}" = "/usr/local/bin/$name" ] || problems+=("ExecStart runs ${argv[0]}")
    for ((i = 1; i < ${#argv[@]}; i++)); do
      if [ "${argv[$i]}" = "$state_flag" ]; then found="${argv[$((i + 1))]:-}"; fi
    done
    # Under ProtectSystem=strict only the StateDirectory is writable.
    [ "$found" = "$state_dir" ] || problems+=("$state_flag '$found' is not the StateDirectory $state_dir")
  else
    problems+=("$(cat "$tmp/exec.err")")
  fi
  env_file="$(unit_value "$unit" EnvironmentFile)"
  [ "$env_file" = "-/etc/yuzu/$name.env" ] || problems+=("EnvironmentFile is '$env_file'")
  [ -f "$SYSTEMD_DIR/$name.env" ] || problems+=("deploy/systemd/$name.env is missing")
  if [ "$name" = yuzu-server ]; then
    [ "$(unit_value "$unit" User)" = yuzu ] || problems+=("User is not yuzu")
    [ "$(unit_value "$unit" Group)" = yuzu ] || problems+=("Group is not yuzu")
    grep -qx 'CapabilityBoundingSet=' "$unit" || problems+=("CapabilityBoundingSet is not empty")
  fi
  if [ ${#problems[@]} -eq 0 ]; then
    ok "$name.service: data dir is its StateDirectory, 210 s SIGTERM stop, UMask 0077, env file shipped"
  else
    not_ok "$name.service settings"
    printf '%s\n' "${problems[@]}" | detail
  fi
}
check_unit_facts yuzu-server --data-dir
check_unit_facts yuzu-agent --state-dir

# ---- env files list exactly the real variables ----------------------------

check_env_names() {
  local env_file="$1" label="$2"
  shift 2
  local want have
  # The variables the program reads: every envname("YUZU_...") and getenv.
  want="$(grep -ohE '(envname|getenv)\("YUZU_[A-Z0-9_]+"' "$@" | grep -oE 'YUZU_[A-Z0-9_]+' | sort -u)"
  have="$(sed -n -E 's/^#?(YUZU_[A-Z0-9_]+)=.*$/\1/p' "$env_file" | sort -u)"
  if [ -n "$want" ] && [ "$want" = "$have" ]; then
    ok "$label lists exactly the $(wc -l <<<"$want") YUZU_* variables the program reads"
  else
    not_ok "$label does not match the program's YUZU_* variables"
    diff <(echo "$want") <(echo "$have") |
      sed -n 's/^</missing from the env file:/p; s/^>/not read by the program:/p' | detail
  fi
}
check_env_names "$SYSTEMD_DIR/yuzu-server.env" deploy/systemd/yuzu-server.env \
  "$ROOT/server/core/src/app/flags.cpp"
check_env_names "$SYSTEMD_DIR/yuzu-agent.env" deploy/systemd/yuzu-agent.env \
  "$ROOT/agent/src/main.cpp"

# ---- server started as the unit would start it ----------------------------

# unit_command NAME ARGV ENV: fills ARGV and ENV with the command line and
# environment of NAME's unit, for a run rooted at $tmp: the binary from
# $BIN, /var/lib/<StateDirectory> moved to $tmp/var-lib/<StateDirectory>,
# the env file's example values; creates that directory as systemd would.
unit_command() {
  local name="$1" unit="$SYSTEMD_DIR/$1.service" state i kv
  local -n _uc_cmd="$2"
  local -n _uc_env="$3"
  unit_exec "$unit" _uc_cmd || return 1
  state="$(unit_value "$unit" StateDirectory)"
  _uc_cmd[0]="$BIN/$name"
  for ((i = 1; i < ${#_uc_cmd[@]}; i++)); do
    _uc_cmd[i]="${_uc_cmd[i]/#\/var\/lib\/$state/$tmp/var-lib/$state}"
  done
  # As systemd: a clean environment, the unit's Environment= values, then
  # the EnvironmentFile's (which win).
  _uc_env=("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "LANG=C.UTF-8")
  while IFS= read -r kv; do
    _uc_env+=("$kv")
  done < <(sed -n 's/^Environment=//p' "$unit")
  while IFS= read -r kv; do
    _uc_env+=("${kv//\/var\/lib\/$state/$tmp/var-lib/$state}")
  done < <(env_assignments "$SYSTEMD_DIR/$(basename "$(unit_value "$unit" EnvironmentFile)")")
  install -d -m "$(unit_value "$unit" StateDirectoryMode)" "$tmp/var-lib/$state"
}

server_cmd=()
server_env=()
server_data="$tmp/var-lib/yuzu"
server_ready=0
agent_url=""
if [ ! -x "$BIN/yuzu-server" ]; then
  not_ok "yuzu-server as the unit starts it: $BIN/yuzu-server is missing"
elif ! unit_command yuzu-server server_cmd server_env 2>"$tmp/cmd.err"; then
  not_ok "yuzu-server as the unit starts it: $(cat "$tmp/cmd.err")"
else
  # Ephemeral ports instead of the examples' 8080/8081 (later entries win).
  server_env+=("YUZU_LISTEN=127.0.0.1:0" "YUZU_AGENT_LISTEN=127.0.0.1:0")
  server_umask="$(unit_value "$SYSTEMD_DIR/yuzu-server.service" UMask)"
  (umask "$server_umask" && exec env -i "${server_env[@]}" "${server_cmd[@]}") \
    >"$tmp/server.log" 2>&1 &
  server_pid=$!
  mgmt=""
  for ((i = 0; i < 600; i++)); do
    if [ -f "$server_data/listen.json" ]; then
      mgmt="$(sed -n 's/.*"management":"\([^"]*\)".*/\1/p' "$server_data/listen.json")"
      agent_url="$(sed -n 's/.*"agent":"\([^"]*\)".*/\1/p' "$server_data/listen.json")"
      [ -n "$mgmt" ] && break
    fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  code=""
  if [ -n "$mgmt" ]; then
    for ((i = 0; i < 300; i++)); do
      code="$(curl -s -o /dev/null -w '%{http_code}' "$mgmt/readyz" 2>/dev/null)"
      [ "$code" = 200 ] && break
      sleep 0.1
    done
  fi
  if [ "$code" = 200 ]; then
    server_ready=1
    ok "yuzu-server started from the unit's ExecStart and yuzu-server.env examples is ready (/readyz 200)"
    violations="$(private_violations "$server_data")"
    if [ -z "$violations" ]; then
      ok "while serving, nothing in the data dir is readable by group or others (UMask $server_umask)"
    else
      not_ok "data dir entries readable by group or others while serving"
      printf '%s\n' "$violations" | detail
    fi
  else
    not_ok "yuzu-server started as the unit does did not become ready (listen '${mgmt}', /readyz '${code}')"
    detail <"$tmp/server.log"
  fi
fi

# ---- agent: compose enrollment script, then the agent as the unit would ----

enroll_env=("PATH=$BIN:/usr/local/bin:/usr/bin:/bin" "YUZU_DATA_DIR=$server_data"
  "YUZU_AGENT_STATE_DIR=$tmp/var-lib/yuzu-agent" "ENROLL_TOKEN_FILE=$tmp/enroll/token")
token_ok=0
if [ "$server_ready" = 1 ]; then
  install -d -m 0700 "$tmp/enroll"
  env -i "${enroll_env[@]}" sh "$COMPOSE_DIR/enroll-token.sh" >"$tmp/enroll.log" 2>&1
  rc=$?
  mode="$(stat -c %a "$tmp/enroll/token" 2>/dev/null)"
  if [ "$rc" -eq 0 ] && [ "$mode" = 600 ] && grep -qxE 'yuzu_[A-Za-z0-9]+' "$tmp/enroll/token"; then
    token_ok=1
    ok "deploy/compose/enroll-token.sh writes a single-use token, mode 0600, without printing it"
  else
    not_ok "deploy/compose/enroll-token.sh (exit $rc, token file mode '${mode}')"
    detail <"$tmp/enroll.log"
  fi
  if grep -q 'yuzu_' "$tmp/enroll.log"; then
    not_ok "deploy/compose/enroll-token.sh printed the token"
  fi
fi

agent_cmd=()
agent_env=()
agent_state="$tmp/var-lib/yuzu-agent"
if [ "$token_ok" = 1 ] && [ ! -x "$BIN/yuzu-agent" ]; then
  not_ok "yuzu-agent as the unit starts it: $BIN/yuzu-agent is missing"
elif [ "$token_ok" = 1 ]; then
  if ! unit_command yuzu-agent agent_cmd agent_env 2>"$tmp/cmd.err"; then
    not_ok "yuzu-agent as the unit starts it: $(cat "$tmp/cmd.err")"
  else
    # The server this run started, instead of the example's 127.0.0.1:8081.
    # The unit's agent plane speaks HTTPS with a certificate from the
    # server's internal CA: the agent trusts that CA's root.
    agent_env+=("YUZU_AGENT_SERVER=$agent_url"
      "YUZU_AGENT_ENROLLMENT_TOKEN=$(cat "$tmp/enroll/token")"
      "YUZU_AGENT_CA_FILE=$server_data/pki-root-ca.pem")
    agent_umask="$(unit_value "$SYSTEMD_DIR/yuzu-agent.service" UMask)"
    (umask "$agent_umask" && exec env -i "${agent_env[@]}" "${agent_cmd[@]}") \
      >"$tmp/agent.log" 2>&1 &
    agent_pid=$!
    for ((i = 0; i < 300; i++)); do
      [ -f "$agent_state/agent-0/identity.json" ] && break
      kill -0 "$agent_pid" 2>/dev/null || break
      sleep 0.1
    done
    if [ -f "$agent_state/agent-0/identity.json" ]; then
      ok "yuzu-agent started from the unit's ExecStart and yuzu-agent.env examples enrolls"
      case "$agent_url" in
        https://*) ok "the unit's agent plane speaks HTTPS ($agent_url)" ;;
        *) not_ok "the unit's agent plane is not HTTPS: '$agent_url' (YUZU_AGENT_MTLS=required)" ;;
      esac
      if [ -s "$agent_state/agent-0/client.crt" ] && [ -s "$agent_state/agent-0/client.key" ]; then
        ok "the agent holds a client certificate from the server's CA (agent-0/client.crt)"
      else
        not_ok "the agent enrolled without a client certificate under agent-0/"
      fi
      # Past enrollment every request needs that certificate: the agent is
      # only online if its heartbeats got through.
      list_token="$("$BIN/yuzu-server" token create --data-dir "$server_data" --name deploy-mtls-check 2>>"$tmp/cli.log" |
                    sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
      online=""
      for ((i = 0; i < 100; i++)); do
        online="$(curl -s -H "Authorization: Bearer $list_token" "$mgmt/api/v1/agents" 2>/dev/null |
                  jq -r '[.agents[]? | select(.online == true)] | length' 2>/dev/null)"
        [ "${online:-0}" -ge 1 ] && break
        sleep 0.1
      done
      if [ "${online:-0}" -ge 1 ]; then
        ok "the agent is online: its heartbeats pass the agent plane's client-certificate check"
      else
        not_ok "the agent enrolled but is not online over mTLS (online agents: '${online}')"
        tail -n 20 "$tmp/agent.log" 2>/dev/null | detail
      fi
      violations="$(private_violations "$agent_state")"
      if [ -z "$violations" ]; then
        ok "nothing in the agent's state dir is readable by group or others (UMask $agent_umask)"
      else
        not_ok "agent state entries readable by group or others"
        printf '%s\n' "$violations" | detail
      fi
    else
      not_ok "yuzu-agent started as the unit does did not enroll"
      detail <"$tmp/agent.log"
    fi
    kill -TERM "$agent_pid" 2>/dev/null
    wait_exit "$agent_pid" "$STOP_BOUND_S"
    status="$exit_status"
    agent_pid=""
    if [ "$status" = 0 ]; then
      ok "yuzu-agent exits 0 on SIGTERM within ${STOP_BOUND_S} s"
    else
      not_ok "yuzu-agent on SIGTERM: exit status '$status' (bound ${STOP_BOUND_S} s)"
      tail -n 5 "$tmp/agent.log" | detail
    fi
    # Enrolled now: the compose step must not mint another token.
    env -i "${enroll_env[@]}" sh "$COMPOSE_DIR/enroll-token.sh" >"$tmp/enroll2.log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && [ ! -e "$tmp/enroll/token" ]; then
      ok "deploy/compose/enroll-token.sh makes no token once the agent is enrolled, and removes the old one"
    else
      not_ok "deploy/compose/enroll-token.sh after enrollment (exit $rc)"
      detail <"$tmp/enroll2.log"
    fi
  fi
fi

# ---- server: SIGTERM ------------------------------------------------------

if [ -n "$server_pid" ]; then
  kill -TERM "$server_pid" 2>/dev/null
  start_s=$SECONDS
  wait_exit "$server_pid" "$STOP_BOUND_S"
  status="$exit_status"
  server_pid=""
  if [ "$status" = 0 ]; then
    ok "yuzu-server exits 0 on SIGTERM in $((SECONDS - start_s)) s (bound ${STOP_BOUND_S} s, unit allows 210 s)"
  else
    not_ok "yuzu-server on SIGTERM: exit status '$status' (bound ${STOP_BOUND_S} s)"
    tail -n 5 "$tmp/server.log" | detail
  fi
  violations="$(private_violations "$server_data")"
  if [ -z "$violations" ] && [ -f "$server_data/audit.db" ]; then
    ok "after the stop, no data dir file is readable by group or others"
  else
    not_ok "data dir after the stop (audit.db present? group/other-readable entries below)"
    { ls -la "$server_data"; printf '%s\n' "$violations"; } | detail
  fi
fi

# ---- compose --------------------------------------------------------------

compose="$COMPOSE_DIR/compose.yaml"
if docker compose version >/dev/null 2>&1; then
  if out="$(cd "$ROOT" && docker compose -f "$compose" config -q 2>&1)"; then
    ok "docker compose config -q accepts deploy/compose/compose.yaml"
  else
    not_ok "docker compose config -q rejects deploy/compose/compose.yaml"
    printf '%s\n' "$out" | detail
  fi
elif command -v docker-compose >/dev/null 2>&1; then
  # Debian's docker-compose (1.29) validates against the Compose schema
  # without a daemon.
  if out="$(cd "$ROOT" && docker-compose -f "$compose" config -q 2>&1)"; then
    ok "docker-compose config -q (the Compose schema) accepts deploy/compose/compose.yaml"
  else
    not_ok "docker-compose config -q rejects deploy/compose/compose.yaml"
    printf '%s\n' "$out" | detail
  fi
else
  skip "docker compose config: no compose plugin (docker compose version fails); structural check below"
fi

if [ -z "$PYTHON" ]; then
  not_ok "compose.yaml structure: no python3 with PyYAML (Debian package python3-yaml)"
elif out="$("$PYTHON" - "$compose" "$COMPOSE_DIR" <<'PY' 2>&1
import os, sys, yaml

path, compose_dir = sys.argv[1], sys.argv[2]
with open(path) as f:
    doc = yaml.safe_load(f)
problems = []
def need(cond, msg):
    if not cond:
        problems.append(msg)

services = doc.get("services") or {}
for name in ("server", "agent", "enroll"):
    need(name in services, f"no service '{name}'")
server = services.get("server", {})
agent = services.get("agent", {})
enroll = services.get("enroll", {})
need(str(server.get("stop_grace_period")) == "210s", "server stop_grace_period is not 210s")
need(server.get("stop_signal", "SIGTERM") == "SIGTERM", "server stop_signal is not SIGTERM")

hc = server.get("healthcheck") or {}
test = hc.get("test")
test_text = " ".join(test) if isinstance(test, list) else str(test)
need("curl" in test_text and "/readyz" in test_text, "server healthcheck is not curl on /readyz")

volumes = doc.get("volumes") or {}
def mounts(svc):
    out = {}
    for v in svc.get("volumes") or []:
        parts = str(v).split(":")
        if len(parts) >= 2:
            out[parts[1]] = parts[0]
    return out
cmd = server.get("command") or []
data_dir = cmd[cmd.index("--data-dir") + 1] if "--data-dir" in cmd else None
need(data_dir is not None, "server command has no --data-dir")
vol = mounts(server).get(data_dir)
need(vol is not None and vol in volumes, f"server data dir {data_dir} is not on a named volume")
need(mounts(enroll).get(data_dir) == vol, "enroll does not mount the server's data volume")
need(data_dir not in mounts(agent), "the agent mounts the server's data volume")

for p in server.get("ports") or []:
    need(str(p).startswith("127.0.0.1:"), f"published port '{p}' is not bound to 127.0.0.1")
for name, svc in services.items():
    if name != "server":
        need(not svc.get("ports"), f"service '{name}' publishes ports")

deps = agent.get("depends_on") or {}
need((deps.get("enroll") or {}).get("condition") == "service_completed_successfully",
     "agent does not wait for enroll to complete")
need((deps.get("server") or {}).get("condition") == "service_healthy",
     "agent does not wait for a healthy server")
need(((enroll.get("depends_on") or {}).get("server") or {}).get("condition") == "service_healthy",
     "enroll does not wait for a healthy server")
need(str((agent.get("environment") or {}).get("YUZU_AGENT_SERVER", "")).startswith("http"),
     "agent has no YUZU_AGENT_SERVER")

# Image references: never a registry host (a first path component with a
# dot or a port, or localhost).
for name, svc in services.items():
    image = svc.get("image", "")
    first = image.split("/")[0] if "/" in image else ""
    need(not ("." in first or ":" in first or first == "localhost"),
         f"service '{name}' image '{image}' names a registry host")
    # The scripts the services run are shipped next to compose.yaml.
    for arg in svc.get("command") or []:
        if arg.startswith("/usr/local/libexec/yuzu/"):
            need(os.path.isfile(os.path.join(compose_dir, os.path.basename(arg))),
                 f"service '{name}' runs {arg}, not in deploy/compose/")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
)"; then
  ok "compose.yaml: server, enroll and agent; 210 s stop; curl /readyz healthcheck; data on a named volume; port on 127.0.0.1"
else
  not_ok "compose.yaml structure"
  printf '%s\n' "$out" | detail
fi

# Dockerfile: base images, the build stage's packages against
# scripts/lib.sh, the runtime stage's packages against the libraries the
# built binaries really link (this host is Debian 12 too).
lib_packages="$(bash -c 'source "$1/scripts/lib.sh" && printf "%s\n" "${YUZU_DEBIAN_PACKAGES[@]}"' _ "$ROOT" 2>/dev/null)"
needed_packages=""
for exe in yuzu-server yuzu-agent; do
  [ -x "$BIN/$exe" ] || continue
  while read -r lib; do
    # A sanitizer build links the sanitizer runtimes; the image builds
    # without sanitizers, so they are not the runtime stage's business.
    case "$lib" in libasan.so* | libubsan.so* | libtsan.so* | liblsan.so*) continue ;; esac
    path="$(ldd "$BIN/$exe" | awk -v l="$lib" '$1 == l { print $3 }')"
    [ -n "$path" ] || continue
    # dpkg knows a file by the path its package ships, which on merged-/usr
    # Debian may be the /lib one ldd prints or the /usr/lib one it resolves to.
    pkg=""
    for candidate in "$path" "$(readlink -f "$path")" "/usr$path" "${path#/usr}"; do
      pkg="$(dpkg -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1)"
      [ -n "$pkg" ] && break
    done
    needed_packages+="${pkg:-?$lib}"$'\n'
  done < <(readelf -d "$BIN/$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
if out="$(LIB_PACKAGES="$lib_packages" NEEDED_PACKAGES="$needed_packages" \
            python3 - "$COMPOSE_DIR/Dockerfile" <<'PY' 2>&1
import os, re, sys
lib_packages = set(os.environ["LIB_PACKAGES"].split())
needed = set(os.environ["NEEDED_PACKAGES"].split())
# Required packages of the debian:12 image itself.
base = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}
text = open(sys.argv[1]).read().replace("\\\n", " ")
stages = []
for line in text.splitlines():
    line = line.strip()
    if re.match(r"(?i)^FROM\s", line):
        stages.append({"from": line.split()[1], "packages": set(), "text": ""})
    elif stages:
        stages[-1]["text"] += line + "\n"
        m = re.search(r"apt-get install ([^&]*)", line)
        if m:
            stages[-1]["packages"] |= {t for t in m.group(1).split() if not t.startswith("-")}
problems = []
for s in stages:
    first = s["from"].split("/")[0] if "/" in s["from"] else ""
    if "." in first or ":" in first or first == "localhost":
        problems.append(f"FROM {s['from']} names a registry host")
    if s["from"] != "debian:12":
        problems.append(f"FROM {s['from']} is not debian:12")
if len(stages) != 2:
    problems.append(f"{len(stages)} stages, expected build and runtime")
else:
    build, runtime = stages
    if "-DYUZU_BUILD_TESTS=OFF" not in build["text"]:
        problems.append("the build stage does not pass -DYUZU_BUILD_TESTS=OFF")
    if "-G Ninja" not in build["text"]:
        problems.append("the build stage does not use Ninja")
    extra = build["packages"] - lib_packages
    if not lib_packages:
        problems.append("could not read YUZU_DEBIAN_PACKAGES from scripts/lib.sh")
    elif extra:
        problems.append("build packages not in scripts/lib.sh: " + " ".join(sorted(extra)))
    if not needed:
        problems.append("no built binaries to read the linked libraries from")
    missing = needed - runtime["packages"] - base
    if missing:
        problems.append("runtime stage lacks packages of linked libraries: " + " ".join(sorted(missing)))
    dev = {p for p in runtime["packages"] if p.endswith("-dev")}
    if dev:
        problems.append("runtime stage installs -dev packages: " + " ".join(sorted(dev)))
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
)"; then
  ok "Dockerfile: debian:12 stages, build packages from scripts/lib.sh, tests off, runtime has the linked libraries ($(sort -u <<<"$needed_packages" | sed '/^$/d' | paste -sd ' '))"
else
  not_ok "Dockerfile"
  printf '%s\n' "$out" | detail
fi

scripts_ok=1
for script in "$COMPOSE_DIR"/*.sh; do
  if ! sh -n "$script" 2>"$tmp/sh.err"; then
    not_ok "sh -n $(basename "$script")"
    detail <"$tmp/sh.err"
    scripts_ok=0
  elif ! grep -qF "deploy/compose/$(basename "$script")" "$COMPOSE_DIR/Dockerfile"; then
    not_ok "$(basename "$script") is not copied into the image by the Dockerfile"
    scripts_ok=0
  fi
done
[ "$scripts_ok" = 1 ] && ok "deploy/compose/*.sh parse (sh -n) and are copied into the image"

if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  if out="$(docker build -q -f "$COMPOSE_DIR/Dockerfile" -t yuzu:deploy-test "$ROOT" 2>&1)"; then
    ok "docker build of deploy/compose/Dockerfile"
  else
    not_ok "docker build of deploy/compose/Dockerfile"
    printf '%s\n' "$out" | tail -n 20 | detail
  fi
else
  skip "docker build: no docker daemon"
fi

# ---- nginx in front (deploy/nginx/): tests/deploy/nginx_checks.sh ---------
# shellcheck source=tests/deploy/nginx_checks.sh
source "$ROOT/tests/deploy/nginx_checks.sh"

# ---- cmake --install --------------------------------------------------------

prefix="$tmp/prefix"
# The install rules come from the source tree the build directory was
# configured from, which need not be this one.
build_source="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)"
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  not_ok "cmake --install: $BUILD is not a configured build directory"
elif ! out="$(cmake --install "$BUILD" --prefix "$prefix" 2>&1)"; then
  not_ok "cmake --install $BUILD --prefix <tmp>"
  {
    if [ "$build_source" != "$ROOT" ]; then
      echo "note: $BUILD was configured from $build_source, not $ROOT"
    fi
    printf '%s\n' "$out" | tail -n 12
  } | detail
else
  missing=()
  for f in bin/yuzu-server bin/yuzu-agent \
           lib/systemd/system/yuzu-server.service lib/systemd/system/yuzu-agent.service \
           etc/yuzu/yuzu-server.env etc/yuzu/yuzu-agent.env \
           share/doc/yuzu/README.md share/doc/yuzu/docs/user-manual/deploy.md; do
    [ -e "$prefix/$f" ] || missing+=("$f")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    ok "cmake --install: bin/, lib/systemd/system/, etc/yuzu/ and share/doc/yuzu/ as documented"
  else
    not_ok "cmake --install layout: missing ${missing[*]}"
    if ! grep -q 'include(cmake/YuzuInstall.cmake)' "$ROOT/CMakeLists.txt"; then
      echo "CMakeLists.txt does not include(cmake/YuzuInstall.cmake)" | detail
    elif ! grep -q 'YUZU_SYSTEMD_UNIT_DIR' "$BUILD/CMakeCache.txt"; then
      echo "$BUILD was configured before the include; re-run cmake (or build once)" | detail
    fi
  fi
  for name in yuzu-server yuzu-agent; do
    unit="$prefix/lib/systemd/system/$name.service"
    [ -f "$unit" ] || continue
    if [ "$(unit_value "$unit" ExecStart | cut -d' ' -f1)" != "$prefix/bin/$name" ]; then
      not_ok "installed $name.service runs '$(unit_value "$unit" ExecStart)', not $prefix/bin/$name"
    elif out="$(systemd-analyze verify "$unit" 2>&1)" && [ -z "$out" ]; then
      ok "installed $name.service names the installed binary and verifies clean"
    else
      not_ok "systemd-analyze verify of the installed $name.service"
      printf '%s\n' "$out" | detail
    fi
  done
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
