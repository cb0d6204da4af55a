#include "dashboard_page.hpp"

#include "dashboard_text.hpp"

namespace yuzu::web {

void set_dashboard_headers(httplib::Response& res) {
    res.set_header("Content-Security-Policy", kDashboardCsp);
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Referrer-Policy", "no-referrer");
    res.set_header("Cache-Control", "no-store");
}

namespace {

// The top bar: the user's name, the page links, and a logout form that posts
// the CSRF token as a form field (POST /logout accepts it there).
std::string user_bar(const http::Authenticated& who) {
    std::string out;
    out += "<nav><a href=\"/approvals\">Approvals</a></nav>\n";
    out += "<span class=\"user\">Signed in as <strong id=\"current-user\">" +
           html_escape(who.principal.username) + "</strong></span>\n";
    out += "<form class=\"logout\" method=\"post\" action=\"/logout\">";
    out +=
        "<input type=\"hidden\" name=\"csrf_token\" value=\"" + html_escape(who.csrf_token) + "\">";
    out += "<button type=\"submit\">Log out</button></form>\n";
    return out;
}

}  // namespace

std::string render_page(const Page& page) {
    std::string out;
    out.reserve(2048 + page.body_html.size());
    out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    out +=
        "<meta name=\"viewport\" content=\"width=device-width, "
        "initial-scale=1\">\n";
    if (page.session != nullptr) {
        out +=
            "<meta name=\"yuzu-csrf\" content=\"" + html_escape(page.session->csrf_token) + "\">\n";
    }
    out += "<title>" + html_escape(page.title) + " - Yuzu</title>\n";
    // An empty data: icon keeps the browser from asking for /favicon.ico.
    out += "<link rel=\"icon\" href=\"data:,\">\n";
    out += "<link rel=\"stylesheet\" href=\"/ui/app.css\">\n";
    out += "<script src=\"/ui/app.js\" defer></script>\n</head>\n";
    out += "<body data-page=\"" + html_escape(page.page_id) + "\"" + page.data_attrs + ">\n";
    out += "<header class=\"topbar\">\n<span class=\"brand\">Yuzu</span>\n";
    if (page.session != nullptr) out += user_bar(*page.session);
    out += "</header>\n<main>\n";
    out += page.body_html;
    out += "</main>\n</body>\n</html>\n";
    return out;
}

void write_page(httplib::Response& res, int status, const Page& page) {
    set_dashboard_headers(res);
    res.status = status;
    res.set_content(render_page(page), "text/html; charset=utf-8");
}

void write_redirect(httplib::Response& res, const std::string& location) {
    set_dashboard_headers(res);
    res.set_redirect(location, 303);
}

std::optional<http::Authenticated> dashboard_session(const WebContext& ctx,
                                                     const httplib::Request& req) {
    auto who = http::authenticate(req, ctx.resolver, true);
    if (!who.ok() || !who->via_cookie || !who->principal.is_interactive()) return std::nullopt;
    return std::move(who).value();
}

}  // namespace yuzu::web
