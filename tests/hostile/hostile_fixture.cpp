#include "hostile/hostile_fixture.hpp"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace yuzu::testing::hostile {

using nlohmann::json;

HeaderList json_headers(const std::string& bearer_token) {
    HeaderList h{{"Content-Type", "application/json"}};
    if (!bearer_token.empty()) h.emplace_back("Authorization", "Bearer " + bearer_token);
    return h;
}

bool sets_session_cookie(const HttpResponse& r) {
    for (const std::string& v : r.header_values("Set-Cookie")) {
        if (v.rfind("yuzu_session=", 0) == 0 && v.size() > 13 && v[13] != ';') return true;
    }
    return false;
}

void Hostile::TearDown() {
    if (!HasFailure() || !server_) return;
    std::string log = server_->log();
    constexpr size_t kTail = 8000;
    if (log.size() > kTail) log = "...\n" + log.substr(log.size() - kTail);
    std::printf("---- yuzu-server log (tail) ----\n%s\n---- end of log ----\n", log.c_str());
}

bool Hostile::start(std::vector<std::string> args) {
    ServerProcess::Options o;
    o.args = std::move(args);
    return start_with(std::move(o));
}

bool Hostile::start_with(ServerProcess::Options options) {
    client_.reset();
    server_.reset();
    options.env["YUZU_BOOTSTRAP_ADMIN_PASSWORD"] = identity::kAdminPassword;
    server_ = std::make_unique<ServerProcess>(options);
    if (!server_->wait_ready(std::chrono::seconds(2))) {
        ADD_FAILURE() << "yuzu-server did not start with the flags this row needs:\n"
                      << server_->log();
        return false;
    }
    client_ = std::make_unique<httplib::Client>(server_->base_url());
    client_->set_read_timeout(30, 0);
    admin_ = identity::login(*client_, "admin", identity::kAdminPassword);
    admin_token_ = identity::create_token(*client_, admin_, "hostile-admin");
    readonly_token_ = identity::create_token(*client_, admin_, "hostile-readonly", "readonly",
                                             identity::now_s() + 7 * 86400);
    if (admin_token_.empty() || readonly_token_.empty()) {
        ADD_FAILURE() << "could not log in as admin and create tokens";
        return false;
    }
    return true;
}

std::string Hostile::mcp_request(const std::string& body, const std::string& token) const {
    HeaderList h = json_headers(token);
    h.emplace_back("Accept", "application/json, text/event-stream");
    return http_request("POST", "/mcp/v1/", port(), h, body);
}

std::string Hostile::login_request(const std::string& user, const std::string& password,
                                   const HeaderList& extra) const {
    HeaderList h = json_headers();
    h.insert(h.end(), extra.begin(), extra.end());
    return http_request("POST", "/login", port(), h,
                        json{{"username", user}, {"password", password}}.dump());
}

std::string Hostile::enroll_device(const std::string& hostname) {
    auto token = client_->Post("/api/v1/enrollment-tokens", identity::bearer(admin_token_), "{}",
                               "application/json");
    if (!token || token->status != 201) {
        ADD_FAILURE() << "enrollment token: " << (token ? token->body : "no answer");
        return "";
    }
    const json t = json::parse(token->body, nullptr, false);
    const std::string enrollment = t.is_object() ? t.value("token", "") : "";
    const json body = {{"enrollment_token", enrollment},
                       {"hostname", hostname},
                       {"os", "linux"},
                       {"arch", "x86_64"},
                       {"agent_version", "test"}};
    const Exchange ex = roundtrip(
        agent_port(),
        http_request("POST", "/agent/v1/enroll", agent_port(), json_headers(), body.dump()));
    if (!ex.response || ex.response->status != 201) {
        ADD_FAILURE() << "enroll: " << (ex.response ? describe(ex.response) : ex.error);
        return "";
    }
    const json answer = json::parse(ex.response->body, nullptr, false);
    return answer.is_object() ? answer.value("device_token", "") : "";
}

bool Hostile::await_open_connections(const std::string& listener, int count, milliseconds timeout) {
    const std::string series = "yuzu_http_open_connections{listener=\"" + listener + "\"} ";
    int last = -1;
    const bool settled = eventually(
        [&] {
            // The scrape counts itself. It asks Connection: close and waits
            // for the server's close, which frees its place first, so a
            // caller that opens connections next finds `count` taken.
            auto conn = RawConnection::open(port(), kLoopback, milliseconds(1000));
            if (!conn || !conn->send_all(http_request("GET", "/metrics", port()))) return false;
            const auto response = conn->read_response(milliseconds(1000));
            if (!response || !conn->wait_closed(milliseconds(1000))) return false;
            const std::string& text = response->body;
            const size_t at = text.find("\n" + series);
            if (at == std::string::npos) return false;
            last = std::atoi(text.c_str() + at + 1 + series.size());
            return last == count;
        },
        timeout);
    if (!settled) {
        std::printf("[ hostile  ] note: %s open connections did not settle at %d (last read %d)\n",
                    listener.c_str(), count, last);
    }
    return settled;
}

void Hostile::expect_alive(const std::string& after) {
    const Exchange ex =
        roundtrip(port(), http_request("GET", "/livez", port()), milliseconds(2000));
    ASSERT_TRUE(ex.response) << "the server died after " << after << ": " << ex.error;
    EXPECT_EQ(ex.response->status, 200) << after << ": " << describe(ex.response);
    EXPECT_LT(ms(ex.elapsed), 100.0) << "/livez after " << after;
    EXPECT_TRUE(server_->running()) << after;
}

void Hostile::expect_stayed_up(LivenessProbe& probe, const std::string& during) {
    const LivenessProbe::Report r = probe.stop();
    report("livez_probes", r.probes, "");
    report("livez_max_ms", r.max_ms, "ms");
    report("livez_p50_ms", r.p50_ms, "ms");
    std::string failures;
    for (const std::string& f : r.failure_samples) failures += "\n  " + f;
    EXPECT_GT(r.probes, 0) << during;
    EXPECT_EQ(r.failures, 0) << "/livez failed during " << during << ":" << failures;
    EXPECT_LT(r.max_ms, 100.0) << "slowest /livez during " << during;
    expect_alive(during);
}

void report_rss(const RssWatch& rss, const std::string& key) {
    report(key + "_baseline_kib", static_cast<double>(rss.baseline_bytes()) / 1024, "KiB");
    report(key + "_peak_kib", static_cast<double>(rss.peak_bytes()) / 1024, "KiB");
    report(key + "_growth_kib", static_cast<double>(rss.growth_bytes()) / 1024,
           rss.kernel_peak_used() ? "KiB (VmRSS samples and VmHWM)" : "KiB (VmRSS samples)");
}

void report(const std::string& key, double value, const std::string& unit) {
    char text[64];
    std::snprintf(text, sizeof text, "%.1f", value);
    ::testing::Test::RecordProperty(key, text);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::printf("[ hostile  ] %s: %s = %s %s\n", info != nullptr ? info->name() : "-", key.c_str(),
                text, unit.c_str());
    std::fflush(stdout);
}

}  // namespace yuzu::testing::hostile
