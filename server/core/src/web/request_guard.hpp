// The management listener's request guard (http::ServerOptions::pre_route):
// the Host and Origin rules of host_policy.hpp on every route, before any
// handler runs and before the body is read.
//
//   Host    refused (403) on every route, so a DNS-rebinding page can read
//           neither /metrics nor the dashboard nor REST. Exempt: GET/HEAD
//           /livez and /readyz — see kProbePaths in request_guard.cpp.
//   Origin  refused (403) when present and foreign on every request that can
//           change state (any method but GET, HEAD, OPTIONS): POST /login
//           would otherwise log a victim's browser into an attacker's
//           account, and POST /logout and the cookie-authenticated REST
//           writes get the check on top of their CSRF token.
//   /mcp/   not judged here: the MCP transport refuses Host and Origin itself
//           with JSON-RPC errors (http_transport.hpp), and answering those
//           requests twice or in another shape would break MCP clients.
//
// Safe to call from any thread; the guard keeps no state.
#pragma once

#include <httplib.h>

#include <functional>

#include "yuzu/http/host_policy.hpp"

namespace yuzu::web {

// `tls` is the listener's scheme, for the same-origin comparison.
std::function<bool(const httplib::Request&, httplib::Response&)> make_management_request_guard(
    http::HostPolicy policy, bool tls);

}  // namespace yuzu::web
