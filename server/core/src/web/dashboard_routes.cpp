// The dashboard's assets, its entry point and the sign-in page.
#include "dashboard_routes.hpp"

#include <string>

#include "dashboard_assets.hpp"
#include "dashboard_page.hpp"
#include "dashboard_text.hpp"

namespace yuzu::web {
namespace {

constexpr char kHome[] = "/approvals";

void write_asset(httplib::Response& res, std::string_view body, const char* content_type) {
    set_dashboard_headers(res);
    res.status = 200;
    res.set_content(body.data(), body.size(), content_type);
}

// Where to go after signing in: the requested local page, never back to the
// sign-in page itself.
std::string next_page(const httplib::Request& req) {
    std::string next = safe_local_path(req.get_param_value("next"), kHome);
    if (next == "/login" || next.rfind("/login?", 0) == 0) next = kHome;
    return next;
}

std::string login_body(const std::string& next) {
    const std::string n = html_escape(next);
    std::string out = "<section class=\"panel narrow\">\n<h1>Sign in</h1>\n";
    // A plain form POST works without the script too: POST /login answers
    // it with a redirect to `next`. The script posts JSON instead so that
    // a refusal shows here as text.
    out += "<form id=\"login-form\" method=\"post\" action=\"/login\" data-next=\"" + n + "\">\n";
    out += "<input type=\"hidden\" name=\"next\" value=\"" + n + "\">\n";
    out += R"(<label for="login-username">Username</label>
<input id="login-username" name="username" type="text" autocomplete="username" required autofocus>
<label for="login-password">Password</label>
<input id="login-password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
<p class="error" id="login-error" role="alert" hidden></p>
</form>
</section>
)";
    return out;
}

void login_page(const WebContext& ctx, const httplib::Request& req, httplib::Response& res) {
    const std::string next = next_page(req);
    if (dashboard_session(ctx, req)) {
        write_redirect(res, next);
        return;
    }
    Page page;
    page.title = "Sign in";
    page.page_id = "login";
    page.body_html = login_body(next);
    write_page(res, 200, page);
}

void home(const WebContext& ctx, const httplib::Request& req, httplib::Response& res) {
    write_redirect(res, dashboard_session(ctx, req) ? kHome : "/login");
}

}  // namespace

void register_dashboard_routes(http::HttpServer& server, const WebContext& ctx) {
    server.get("/ui/app\\.js", "/ui/app.js", [](const httplib::Request&, httplib::Response& res) {
        write_asset(res, dashboard_script(), "text/javascript; charset=utf-8");
    });
    server.get("/ui/app\\.css", "/ui/app.css", [](const httplib::Request&, httplib::Response& res) {
        write_asset(res, dashboard_stylesheet(), "text/css; charset=utf-8");
    });
    server.get("/", "/", [&ctx](const httplib::Request& req, httplib::Response& res) {
        home(ctx, req, res);
    });
    server.get("/login", "/login", [&ctx](const httplib::Request& req, httplib::Response& res) {
        login_page(ctx, req, res);
    });
    register_dashboard_approval_routes(server, ctx);
}

}  // namespace yuzu::web
