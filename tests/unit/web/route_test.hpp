// What the web route tests share: a real HttpServer on port 0 over a real
// Identity and a MemoryAuditLog, the WebContext the routes read, an
// httplib client, and signed-in users with session cookies. A test fixture
// derives, fills the context fields it needs (approvals, ...), then calls
// serve() with the routes under test.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/session_store.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/http/identity_resolver.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/metrics/registry.hpp"
#include "yuzu/web/web_context.hpp"

namespace yuzu::web::testing {

inline constexpr char kRouteTestPassword[] = "web-route-test-password";

class RouteTest : public ::testing::Test {
  protected:
    // Time runs on clock_ (a ManualClock the test moves by hand)...
    RouteTest() : time_(clock_) {}
    // ... or on another clock (SystemClock for tests that need real time).
    explicit RouteTest(const Clock& time) : time_(time) {}

    // Opens the identity store and builds ctx_.
    void open_identity() {
        auth::IdentityOptions options;
        options.data_dir = dir_.str();
        options.bootstrap_password_value = kRouteTestPassword;
        options.user_options.password_log_n = 10;
        auto identity = auth::Identity::open(options, time_);
        ASSERT_TRUE(identity.ok()) << identity.status().to_string();
        identity_ = std::move(identity).value();
        resolver_ = std::make_unique<http::IdentityResolver>(*identity_);
        ctx_ = std::make_unique<WebContext>(WebContext{*identity_, audit_, *resolver_, time_});
    }

    // Registers the routes under test, binds port 0 and serves.
    void serve(const std::function<void(http::HttpServer&, const WebContext&)>& register_routes) {
        http::ServerOptions so;
        so.name = "web-route-test";
        so.host = "127.0.0.1";
        so.port = 0;
        so.worker_threads = 2;
        auto server = http::HttpServer::create(so, metrics_);
        ASSERT_TRUE(server.ok()) << server.status().to_string();
        server_ = std::move(server).value();
        register_routes(*server_, *ctx_);
        ASSERT_TRUE(server_->bind().ok());
        serving_ = std::thread([this] { server_->serve(); });
        client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    }

    void TearDown() override {
        if (server_) server_->stop();
        if (serving_.joinable()) serving_.join();
    }

    // A user with `roles` and a live web session for them.
    auth::NewSession sign_in(const std::string& username, const std::vector<std::string>& roles) {
        EXPECT_TRUE(identity_->users().create_user(username, kRouteTestPassword, roles).ok());
        auto s = identity_->sessions().create(username, "127.0.0.1", "web-route-test");
        EXPECT_TRUE(s.ok());
        return s.ok() ? *s : auth::NewSession{};
    }

    // The session's cookies, with the CSRF header a state change needs.
    static httplib::Headers cookie(const auth::NewSession& s, bool csrf = true) {
        httplib::Headers h{
            {"Cookie", "yuzu_session=" + s.cookie_secret + "; yuzu_csrf=" + s.csrf_token}};
        if (csrf) h.emplace("X-CSRF-Token", s.csrf_token);
        return h;
    }

    ManualClock clock_{1'800'000'000'000};
    const Clock& time_;
    ::yuzu::testing::TempDir dir_;
    audit::MemoryAuditLog audit_{time_};
    metrics::Registry metrics_;
    std::unique_ptr<auth::Identity> identity_;
    std::unique_ptr<http::IdentityResolver> resolver_;
    std::unique_ptr<WebContext> ctx_;
    std::unique_ptr<http::HttpServer> server_;
    std::thread serving_;
    std::unique_ptr<httplib::Client> client_;
};

}  // namespace yuzu::web::testing
