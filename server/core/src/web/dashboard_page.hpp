// Private to the web module: what every dashboard response shares — the
// security headers, the HTML page shell (stylesheet and script from /ui/,
// never inline, so the CSP needs no 'unsafe-inline'), redirects, and the
// check for a signed-in web session.
//
// Thread-safety: stateless functions; safe to call from any thread.
#pragma once

#include <httplib.h>

#include <optional>
#include <string>

#include "yuzu/http/authenticator.hpp"
#include "yuzu/web/web_context.hpp"

namespace yuzu::web {

// The dashboard's Content-Security-Policy: its own script and stylesheet
// only, fetches to itself only, no framing, no <base>, forms post to itself.
inline constexpr char kDashboardCsp[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' "
    "data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri "
    "'none'";

// Sets the CSP, nosniff, no-referrer and no-store headers. Every dashboard
// response carries them: pages, redirects and the /ui/ assets alike.
void set_dashboard_headers(httplib::Response& res);

// One page: a title, the <main> content and, when someone is signed in, the
// session (for the user bar, the logout form and the CSRF token meta tag
// that the script sends as X-CSRF-Token).
struct Page {
    std::string title;      // plain text; escaped here
    std::string page_id;    // <body data-page>: which part of app.js runs
    std::string body_html;  // already-escaped HTML for <main>
    const http::Authenticated* session = nullptr;
    std::string data_attrs;  // extra escaped attributes for <body>, e.g. ` data-x="1"`
};

std::string render_page(const Page& page);

// render_page() as a text/html response with the dashboard headers.
void write_page(httplib::Response& res, int status, const Page& page);

// 303 See Other to a local path, with the dashboard headers.
void write_redirect(httplib::Response& res, const std::string& location);

// The web session behind a dashboard request: a valid session cookie, not a
// token (a token has no CSRF token or step-up proof, so it cannot drive the
// pages). nullopt when there is none or it has expired.
std::optional<http::Authenticated> dashboard_session(const WebContext& ctx,
                                                     const httplib::Request& req);

}  // namespace yuzu::web
