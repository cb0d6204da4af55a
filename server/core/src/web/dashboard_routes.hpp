// Private to the web module: the dashboard's route registrars. The dashboard
// is server-rendered HTML plus one script and one stylesheet under /ui/:
//   GET /           → /approvals when signed in, else /login
//   GET /login      sign-in form (posts to POST /login)
//   GET /approvals  pending approval tickets, approve / reject with TOTP
//   GET /ui/app.js, GET /ui/app.css
// Every response carries the dashboard's security headers (dashboard_page.hpp).
//
// Thread-safety: registration runs once before serving; the handlers keep no
// state of their own and run concurrently.
#pragma once

#include "yuzu/http/server.hpp"
#include "yuzu/web/web_context.hpp"

namespace yuzu::web {

// All of the dashboard: assets, sign-in and the pages.
void register_dashboard_routes(http::HttpServer& server, const WebContext& ctx);

// GET /approvals (dashboard_approvals.cpp).
void register_dashboard_approval_routes(http::HttpServer& server, const WebContext& ctx);

}  // namespace yuzu::web
