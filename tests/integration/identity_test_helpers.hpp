// Helpers shared by the identity integration tests: a server with a known
// admin password, JSON login with cookie capture, authenticated requests by
// cookie (with or without the CSRF token) or bearer token, and TOTP codes
// computed independently of the server (RFC 4226/6238 over OpenSSL HMAC).
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdint>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/server_process.hpp"

namespace yuzu::testing::identity {

using nlohmann::json;

inline constexpr char kAdminPassword[] = "correct-horse-battery";

inline ServerProcess::Options server_options() {
    ServerProcess::Options o;
    o.env["YUZU_BOOTSTRAP_ADMIN_PASSWORD"] = kAdminPassword;
    return o;
}

// The value of cookie `name` from the response's Set-Cookie headers, and its
// whole header line in `line` when given. "" when absent.
inline std::string set_cookie(const httplib::Response& res, const std::string& name,
                              std::string* line = nullptr) {
    auto range = res.headers.equal_range("Set-Cookie");
    for (auto it = range.first; it != range.second; ++it) {
        const std::string& v = it->second;
        if (v.rfind(name + "=", 0) != 0) continue;
        if (line != nullptr) *line = v;
        const auto end = v.find(';');
        return v.substr(name.size() + 1,
                        end == std::string::npos ? std::string::npos : end - name.size() - 1);
    }
    return "";
}

// A logged-in web session.
struct Session {
    std::string cookie;  // yuzu_session value
    std::string csrf;    // yuzu_csrf value

    httplib::Headers headers(bool with_csrf = true) const {
        httplib::Headers h{{"Cookie", "yuzu_session=" + cookie + "; yuzu_csrf=" + csrf}};
        if (with_csrf) h.emplace("X-CSRF-Token", csrf);
        return h;
    }
};

inline httplib::Result login_json(httplib::Client& c, const std::string& user,
                                  const std::string& password) {
    return c.Post("/login", json{{"username", user}, {"password", password}}.dump(),
                  "application/json");
}

// Logs in (asserting success) and returns the session.
inline Session login(httplib::Client& c, const std::string& user, const std::string& password) {
    Session s;
    auto res = login_json(c, user, password);
    EXPECT_TRUE(res);
    if (!res) return s;
    EXPECT_EQ(res->status, 200) << res->body;
    s.cookie = set_cookie(*res, "yuzu_session");
    s.csrf = set_cookie(*res, "yuzu_csrf");
    EXPECT_FALSE(s.cookie.empty());
    EXPECT_FALSE(s.csrf.empty());
    return s;
}

inline httplib::Headers bearer(const std::string& token) {
    return {{"Authorization", "Bearer " + token}};
}

// Creates an API token for the session's user and returns its raw secret.
inline std::string create_token(httplib::Client& c, const Session& s, const std::string& name,
                                const std::string& tier = "", int64_t expires_at = 0) {
    json body{{"name", name}, {"mcp_tier", tier}};
    if (expires_at != 0) body["expires_at"] = expires_at;
    auto res = c.Post("/api/v1/tokens", s.headers(), body.dump(), "application/json");
    EXPECT_TRUE(res);
    if (!res) return "";
    EXPECT_EQ(res->status, 201) << res->body;
    return res->status == 201 ? json::parse(res->body)["token"].get<std::string>() : "";
}

// Creates a user through the REST API with an admin token.
inline void create_user(httplib::Client& c, const std::string& admin_token, const std::string& user,
                        const std::string& password, const std::vector<std::string>& roles) {
    auto res = c.Post("/api/v1/users", bearer(admin_token),
                      json{{"username", user}, {"password", password}, {"roles", roles}}.dump(),
                      "application/json");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 201) << res->body;
}

// Audit rows matching the query string (e.g. "action=auth.login&target_id=bob").
inline json audit_events(httplib::Client& c, const std::string& token, const std::string& query) {
    auto res = c.Get("/api/v1/audit?" + query, bearer(token));
    EXPECT_TRUE(res);
    if (!res) return json::array();
    EXPECT_EQ(res->status, 200) << res->body;
    return json::parse(res->body)["events"];
}

// RFC 4648 base32 (upper case, padding optional).
inline std::vector<uint8_t> base32_decode(const std::string& text) {
    std::vector<uint8_t> out;
    uint32_t buffer = 0;
    int bits = 0;
    for (char ch : text) {
        if (ch == '=') break;
        int v = -1;
        if (ch >= 'A' && ch <= 'Z') v = ch - 'A';
        if (ch >= 'a' && ch <= 'z') v = ch - 'a';
        if (ch >= '2' && ch <= '7') v = ch - '2' + 26;
        if (v < 0) continue;
        buffer = (buffer << 5) | static_cast<uint32_t>(v);
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<uint8_t>((buffer >> bits) & 0xff));
        }
    }
    return out;
}

// The 6-digit TOTP code (SHA-1, 30 s steps) for unix time t.
inline std::string totp_code(const std::string& base32_secret, int64_t t) {
    const std::vector<uint8_t> key = base32_decode(base32_secret);
    uint64_t counter = static_cast<uint64_t>(t / 30);
    uint8_t msg[8];
    for (int i = 7; i >= 0; --i) {
        msg[i] = static_cast<uint8_t>(counter & 0xff);
        counter >>= 8;
    }
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), msg, sizeof msg, mac, &mac_len);
    const int offset = mac[mac_len - 1] & 0x0f;
    const uint32_t bin = (static_cast<uint32_t>(mac[offset] & 0x7f) << 24) |
                         (static_cast<uint32_t>(mac[offset + 1]) << 16) |
                         (static_cast<uint32_t>(mac[offset + 2]) << 8) |
                         static_cast<uint32_t>(mac[offset + 3]);
    std::string code = std::to_string(bin % 1000000);
    return std::string(6 - code.size(), '0') + code;
}

inline int64_t now_s() {
    return static_cast<int64_t>(std::time(nullptr));
}

inline std::string read_file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace yuzu::testing::identity
