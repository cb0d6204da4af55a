# The nginx part of tests/deploy/run.sh, sourced by it (it shares run.sh's
# variables, ok/not_ok/skip helpers and cleanup trap): the reverse-proxy
# recipes under deploy/nginx/ run in front of a real yuzu-server.
# shellcheck shell=bash
# ---- nginx in front (deploy/nginx/) ---------------------------------------

# The two recipes as shipped, except for addresses and certificate: nginx
# listens on free loopback ports with a throw-away self-signed certificate
# and proxies to a yuzu-server of its own (ephemeral ports, its own data
# dir). Needs no root: nginx runs as one process (master_process off, so it
# never changes user) and every file it writes is under $tmp/nginx.
NGINX=""
for candidate in nginx /usr/sbin/nginx; do
  if command -v "$candidate" >/dev/null 2>&1; then
    NGINX="$(command -v "$candidate")"
    break
  fi
done
NGINX_RECIPES="$ROOT/deploy/nginx"
proxy_dir="$tmp/nginx"

# free_port: a loopback TCP port nobody listens on right now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# recipe_copy SRC DEST SHIPPED_LISTEN_PORT LISTEN_PORT SHIPPED_UPSTREAM UPSTREAM:
# SRC with its listen lines moved to 127.0.0.1:LISTEN_PORT (the IPv6 one
# dropped), its upstream server pointed at UPSTREAM and the test
# certificate. Fails when one of those lines is not there exactly once, so
# a changed recipe cannot slip past the test untested.
recipe_copy() {
  local src="$1" dest="$2" lport="$3" port="$4" up="$5" upstream="$6" n
  sed -e "s#^\( *\)listen $lport ssl#\1listen 127.0.0.1:$port ssl#" \
      -e "/^ *listen \[::\]:$lport /d" \
      -e "s#^\( *\)server $up;#\1server $upstream;#" \
      -e "s#^\( *ssl_certificate \).*;#\1$proxy_dir/cert.pem;#" \
      -e "s#^\( *ssl_certificate_key \).*;#\1$proxy_dir/key.pem;#" \
      -e "s#^\( *access_log \)/var/log/nginx/#\1$proxy_dir/#" \
      "$src" >"$dest" || return 1
  for n in "listen 127.0.0.1:$port ssl" "server $upstream;" \
           "ssl_certificate $proxy_dir/cert.pem;" "ssl_certificate_key $proxy_dir/key.pem;"; do
    [ "$(grep -cF -- "$n" "$dest")" = 1 ] || { echo "$(basename "$src"): expected one '$n' after the rewrite"; return 1; }
  done
  ! grep -qE '^ *listen (\[|[0-9]+ )' "$dest" || { echo "$(basename "$src"): a listen line was not rewritten"; return 1; }
  ! grep -q '/var/log/' "$dest" || { echo "$(basename "$src"): a log path was not moved into the test directory"; return 1; }
}

# preq URL [curl args...]: status code of one request; the body goes to
# $proxy_dir/body, the response headers to $proxy_dir/headers.
preq() {
  local url="$1"
  shift
  curl -sk --max-time 15 -o "$proxy_dir/body" -D "$proxy_dir/headers" -w '%{http_code}' "$@" "$url"
}
# has_header NAME: the last response carried header NAME.
has_header() { grep -qi "^$1:" "$proxy_dir/headers"; }

if [ -z "$NGINX" ]; then
  skip "nginx in front: no nginx binary (Debian package nginx); deploy/nginx/ not checked"
elif [ ! -x "$BIN/yuzu-server" ]; then
  not_ok "nginx in front: $BIN/yuzu-server is missing"
else
  install -d -m 0700 "$proxy_dir" "$proxy_dir/data"
  mport="$(free_port)"
  aport="$(free_port)"
  # yuzu first: the recipes need its ports. Told the proxy's name and
  # origin as deploy.md says (yuzu.test stands for the public name).
  (umask 077 && exec "$BIN/yuzu-server" --listen 127.0.0.1:0 --agent-listen 127.0.0.1:0 \
     --data-dir "$proxy_dir/data" --allowed-host yuzu.test \
     --mcp-allowed-origin "https://127.0.0.1:$mport") >"$proxy_dir/server.log" 2>&1 &
  proxy_server_pid=$!
  proxy_upstream=""
  proxy_agent_upstream=""
  for ((i = 0; i < 600; i++)); do
    if [ -f "$proxy_dir/data/listen.json" ]; then
      proxy_upstream="$(sed -n 's/.*"management":"\([^"]*\)".*/\1/p' "$proxy_dir/data/listen.json")"
      proxy_agent_upstream="$(sed -n 's/.*"agent":"\([^"]*\)".*/\1/p' "$proxy_dir/data/listen.json")"
      [ -n "$proxy_upstream" ] && [ -n "$proxy_agent_upstream" ] && break
    fi
    kill -0 "$proxy_server_pid" 2>/dev/null || break
    sleep 0.1
  done
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj /CN=localhost -keyout "$proxy_dir/key.pem" -out "$proxy_dir/cert.pem" \
    >"$proxy_dir/openssl.log" 2>&1
  cat >"$proxy_dir/nginx.conf" <<NGINXCONF
master_process off;
daemon off;
pid $proxy_dir/nginx.pid;
error_log $proxy_dir/error.log info;
events { worker_connections 256; }
http {
    access_log $proxy_dir/access.log;
    client_body_temp_path $proxy_dir/client_body;
    proxy_temp_path $proxy_dir/proxy_temp;
    fastcgi_temp_path $proxy_dir/fastcgi_temp;
    uwsgi_temp_path $proxy_dir/uwsgi_temp;
    scgi_temp_path $proxy_dir/scgi_temp;
    default_type application/octet-stream;
    # Test only: yuzu's own X-Accel-Buffering: no would hide a buffered
    # stream location, so nginx ignores it here and the recipe's settings
    # are what the stream check below tests.
    proxy_ignore_headers X-Accel-Buffering;
    include $proxy_dir/yuzu.conf;
    include $proxy_dir/yuzu-agent.conf;
}
NGINXCONF
  nginx_args=(-e "$proxy_dir/startup.log" -p "$proxy_dir/" -c "$proxy_dir/nginx.conf")
  config_ok=0
  if [ -z "$proxy_upstream" ]; then
    not_ok "nginx in front: yuzu-server did not write listen.json"
    detail <"$proxy_dir/server.log"
  elif ! [ -s "$proxy_dir/cert.pem" ]; then
    not_ok "nginx in front: openssl could not make a test certificate"
    detail <"$proxy_dir/openssl.log"
  elif ! out="$(recipe_copy "$NGINX_RECIPES/yuzu.conf" "$proxy_dir/yuzu.conf" 443 "$mport" \
                  127.0.0.1:8080 "${proxy_upstream#http://}" &&
                recipe_copy "$NGINX_RECIPES/yuzu-agent.conf" "$proxy_dir/yuzu-agent.conf" 8443 "$aport" \
                  127.0.0.1:8081 "${proxy_agent_upstream#http://}")"; then
    not_ok "nginx in front: deploy/nginx/ recipes could not be adapted to the test"
    printf '%s\n' "$out" | detail
  elif out="$("$NGINX" -t "${nginx_args[@]}" 2>&1)" && ! grep -qE '\[(warn|emerg|alert|crit)\]' <<<"$out"; then
    config_ok=1
    ok "nginx -t accepts deploy/nginx/yuzu.conf and yuzu-agent.conf ($("$NGINX" -v 2>&1 | sed 's/.*: //'), no warnings)"
  else
    not_ok "nginx -t of deploy/nginx/yuzu.conf and yuzu-agent.conf"
    printf '%s\n' "$out" | detail
  fi

  mgmt_proxy="https://127.0.0.1:$mport"
  agent_proxy="https://127.0.0.1:$aport"
  code=""
  if [ "$config_ok" = 1 ]; then
    "$NGINX" "${nginx_args[@]}" >"$proxy_dir/nginx.out" 2>&1 &
    nginx_pid=$!
    for ((i = 0; i < 100; i++)); do
      code="$(preq "$mgmt_proxy/livez")"
      [ "$code" = 200 ] && break
      kill -0 "$nginx_pid" 2>/dev/null || break
      sleep 0.1
    done
    if [ "$code" = 200 ] && grep -q '"ok"' "$proxy_dir/body"; then
      ok "through nginx: GET /livez is 200"
    else
      not_ok "through nginx: GET /livez answered '$code'"
      cat "$proxy_dir/nginx.out" "$proxy_dir/error.log" "$proxy_dir/body" 2>/dev/null | detail
    fi
  fi

  if [ "$code" = 200 ]; then
    mcp_init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deploy-check","version":"1"}}}'
    mcp_headers=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')

    # MCP without a token: yuzu's own 401 (JSON error body, X-Correlation-Id,
    # WWW-Authenticate for the client) passes through unchanged.
    code="$(preq "$mgmt_proxy/mcp/v1/" "${mcp_headers[@]}" --data-binary "$mcp_init")"
    if [ "$code" = 401 ] && jq -e '.error.code | type == "number"' "$proxy_dir/body" >/dev/null 2>&1 &&
       has_header X-Correlation-Id && grep -qi '^www-authenticate: bearer' "$proxy_dir/headers"; then
      ok "through nginx: POST /mcp/v1/ without a token gets yuzu's 401 with its error body and WWW-Authenticate"
    else
      not_ok "through nginx: POST /mcp/v1/ without a token answered '$code'"
      detail <"$proxy_dir/body"
    fi

    # Bodies: over 4 MiB nginx refuses (no X-Correlation-Id: yuzu never saw
    # it), with a length or chunked; under it, nginx buffers the whole body
    # (a temporary file past 128k) and hands it to yuzu.
    head -c $((4 * 1024 * 1024 + 1)) /dev/zero >"$proxy_dir/over.bin"
    head -c $((3 * 1024 * 1024)) /dev/zero >"$proxy_dir/under.bin"
    code="$(preq "$mgmt_proxy/mcp/v1/" "${mcp_headers[@]}" --data-binary @"$proxy_dir/over.bin")"
    has_header X-Correlation-Id && code="$code from yuzu"
    code_chunked="$(preq "$mgmt_proxy/mcp/v1/" --http1.1 "${mcp_headers[@]}" \
                      -H 'Transfer-Encoding: chunked' --data-binary @"$proxy_dir/over.bin")"
    has_header X-Correlation-Id && code_chunked="$code_chunked from yuzu"
    if [ "$code" = 413 ] && [ "$code_chunked" = 413 ]; then
      ok "through nginx: a body over 4 MiB is refused by nginx with 413 (Content-Length and chunked)"
    else
      not_ok "through nginx: a body over 4 MiB answered '$code' (Content-Length), '$code_chunked' (chunked); want 413 from nginx"
    fi
    code="$(preq "$mgmt_proxy/mcp/v1/" "${mcp_headers[@]}" --data-binary @"$proxy_dir/under.bin")"
    if [ "$code" = 401 ] && has_header X-Correlation-Id; then
      ok "through nginx: a 3 MiB body is buffered whole and reaches yuzu (its 401)"
    else
      not_ok "through nginx: a 3 MiB body answered '$code'; want yuzu's 401"
      detail <"$proxy_dir/error.log"
    fi

    # Host reaches yuzu as the client sent it: loopback names and an
    # --allowed-host pass, a foreign name is yuzu's to refuse.
    c_local="$(preq "$mgmt_proxy/login" -H 'Host: localhost')"
    c_allowed="$(preq "$mgmt_proxy/login" -H 'Host: yuzu.test')"
    c_mcp_evil="$(preq "$mgmt_proxy/mcp/v1/" "${mcp_headers[@]}" -H 'Host: evil.example' \
                   --data-binary "$mcp_init")"
    if [ "$c_local" = 200 ] && [ "$c_allowed" = 200 ] && [ "$c_mcp_evil" = 403 ]; then
      ok "through nginx: Host reaches yuzu (localhost and --allowed-host yuzu.test 200 on /login; evil.example 403 on /mcp/v1/)"
    else
      not_ok "through nginx: Host passing: localhost '$c_local', yuzu.test '$c_allowed' (want 200 on /login); evil.example '$c_mcp_evil' (want 403 on /mcp/v1/)"
    fi
    c_evil="$(preq "$mgmt_proxy/login" -H 'Host: evil.example')"
    c_livez_evil="$(preq "$mgmt_proxy/livez" -H 'Host: evil.example')"
    if [ "$c_evil" = 403 ] && [ "$c_livez_evil" = 200 ]; then
      ok "through nginx: a foreign Host is refused on every route but the probes (evil.example: /login 403, /livez 200)"
    else
      not_ok "through nginx: Host evil.example got '$c_evil' on GET /login (want 403) and '$c_livez_evil' on /livez (want 200)"
    fi

    # Origin on POST /login: what a browser on the proxy's page sends
    # (https, the proxy's port) must pass, given the public origin as
    # deploy.md says; a foreign one is refused.
    login_body='{"username":"deploy-check-nobody","password":"not-the-password"}'
    c_own="$(preq "$mgmt_proxy/login" -H 'Content-Type: application/json' \
              -H "Origin: $mgmt_proxy" --data-binary "$login_body")"
    if [ "$c_own" = 401 ]; then
      ok "through nginx: POST /login with the proxy's own Origin ($mgmt_proxy) is not refused (401 for a wrong password)"
    else
      not_ok "through nginx: POST /login with the proxy's own Origin ($mgmt_proxy) answered '$c_own'; want 401"
      detail <"$proxy_dir/body"
    fi
    c_foreign="$(preq "$mgmt_proxy/login" -H 'Content-Type: application/json' \
                  -H 'Origin: https://evil.example' --data-binary "$login_body")"
    if [ "$c_foreign" = 403 ]; then
      ok "through nginx: POST /login with a foreign Origin is refused (403)"
    else
      not_ok "through nginx: POST /login with Origin https://evil.example answered '$c_foreign'; want 403"
    fi

    # The proxy's per-client login limit: 1 + burst 3 at once, then nginx's
    # own 429 with Retry-After (no X-Correlation-Id: it never reached yuzu).
    limited=""
    for ((i = 0; i < 8; i++)); do
      code="$(preq "$mgmt_proxy/login" -H 'Content-Type: application/json' --data-binary "$login_body")"
      if [ "$code" = 429 ] && has_header Retry-After && ! has_header X-Correlation-Id; then
        limited=$((i + 1))
        break
      fi
    done
    if [ -n "$limited" ]; then
      ok "through nginx: rapid POST /login from one address gets nginx's 429 with Retry-After (request $limited of 8 after the 2 above)"
    else
      not_ok "through nginx: 8 rapid POST /login got no 429 from nginx (last answer '$code')"
    fi

    # The agent plane through its proxy: enroll by hand (no yuzu-agent).
    enroll_secret="$("$BIN/yuzu-server" enroll-token create --data-dir "$proxy_dir/data" --max-uses 1 2>>"$proxy_dir/cli.log" |
                     sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
    api_token="$("$BIN/yuzu-server" token create --data-dir "$proxy_dir/data" --name deploy-nginx-check 2>>"$proxy_dir/cli.log" |
                 sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
    device_token=""
    code="$(preq "$agent_proxy/agent/v1/enroll" -H 'Content-Type: application/json' \
             --data-binary "{\"enrollment_token\":\"$enroll_secret\",\"hostname\":\"nginx-check\",\"os\":\"linux\",\"arch\":\"x86_64\",\"agent_version\":\"test\"}")"
    if [ "$code" = 201 ]; then
      device_token="$(jq -r '.device_token // empty' "$proxy_dir/body")"
    fi
    if [ -n "$device_token" ]; then
      ok "through nginx's agent-plane server: POST /agent/v1/enroll is 201"
    else
      not_ok "through nginx's agent-plane server: POST /agent/v1/enroll answered '$code'"
      cat "$proxy_dir/cli.log" "$proxy_dir/body" 2>/dev/null | detail
    fi

    # The event stream is not buffered: with an execution waiting on that
    # agent (it never polls, so the stream stays open), the replayed
    # "dispatched" event must arrive while the stream is still open. Over
    # HTTP/1.1, because there a buffered location holds it until the stream
    # ends (nginx 1.22 passed it on over HTTP/2 even when buffered).
    execution_id=""
    if [ -n "$device_token" ] && [ -n "$api_token" ]; then
      code="$(preq "$mgmt_proxy/api/v1/executions" -H "Authorization: Bearer $api_token" \
               -H 'Content-Type: application/json' --data-binary '{"plugin":"os","action":"info"}')"
      if [ "$code" = 201 ] && [ "$(jq -r '.agents_reached' "$proxy_dir/body")" = 1 ]; then
        execution_id="$(jq -r '.execution_id' "$proxy_dir/body")"
      else
        not_ok "through nginx: POST /api/v1/executions answered '$code'"
        detail <"$proxy_dir/body"
      fi
    fi
    if [ -n "$execution_id" ]; then
      curl -sk --http1.1 -N --max-time 3 -D "$proxy_dir/sse.headers" -o "$proxy_dir/sse.body" \
        -H "Authorization: Bearer $api_token" "$mgmt_proxy/api/v1/events?execution_id=$execution_id"
      rc=$?
      if [ "$rc" = 28 ] && grep -q '^event: dispatched' "$proxy_dir/sse.body" &&
         grep -qi '^content-type: text/event-stream' "$proxy_dir/sse.headers"; then
        ok "through nginx: GET /api/v1/events delivers events while the stream is open (not buffered)"
      else
        not_ok "through nginx: event stream (curl exit $rc, want 28: still open after 3 s; want an 'event: dispatched' line)"
        cat "$proxy_dir/sse.headers" "$proxy_dir/sse.body" 2>/dev/null | detail
      fi
      # ... and the agent collects that command with a long-poll through the
      # agent-plane server.
      code="$(preq "$agent_proxy/agent/v1/commands?wait_s=5" -H "Authorization: Bearer $device_token")"
      if [ "$code" = 200 ] && grep -qF "$execution_id" "$proxy_dir/body"; then
        ok "through nginx's agent-plane server: GET /agent/v1/commands returns the queued command"
      else
        not_ok "through nginx's agent-plane server: GET /agent/v1/commands answered '$code'"
        detail <"$proxy_dir/body"
      fi
    fi
  fi

  if [ -n "$nginx_pid" ]; then
    kill -TERM "$nginx_pid" 2>/dev/null
    wait_exit "$nginx_pid" 10
    [ "$exit_status" = timeout ] && kill -KILL "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    nginx_pid=""
  fi
  if [ -n "$proxy_server_pid" ]; then
    kill -TERM "$proxy_server_pid" 2>/dev/null
    wait_exit "$proxy_server_pid" "$STOP_BOUND_S"
    proxy_server_pid=""
    if [ "$exit_status" != 0 ]; then
      not_ok "yuzu-server behind nginx: exit status '$exit_status' on SIGTERM"
      tail -n 5 "$proxy_dir/server.log" | detail
    fi
  fi
fi

