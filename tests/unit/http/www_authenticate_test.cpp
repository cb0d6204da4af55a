// 401 challenges (RFC 6750 §3): authenticate() says why a request has no
// principal, and write_unauthorized() turns that into WWW-Authenticate —
// plain `Bearer realm="yuzu"` when no bearer token was presented, and
// error="invalid_token" with a fixed error_description naming the reason
// (expired, revoked, unknown) when one was. A description never repeats the
// presented token.
#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "yuzu/http/authenticator.hpp"

namespace yuzu::http {
namespace {

constexpr char kGood[] = "yuzu_good";

// Tokens by name; the failure says what the resolver would have learnt from
// the token store.
class FakeResolver final : public CredentialResolver {
  public:
    Result<Authenticated> from_token(std::string_view raw) const override {
        return resolve_token(raw, nullptr);
    }
    Result<Authenticated> resolve_token(std::string_view raw, AuthFailure* failure) const override {
        ++calls;
        last_token = std::string(raw);
        if (raw == kGood) {
            Authenticated who;
            who.principal.username = "alice";
            who.principal.kind = auth::PrincipalKind::kApiToken;
            return who;
        }
        const auto it = reasons.find(std::string(raw));
        if (failure != nullptr) {
            *failure = it == reasons.end() ? AuthFailure::kUnknownToken : it->second;
        }
        return Status::Unauthenticated(std::string(
            auth_failure_description(failure != nullptr ? *failure : AuthFailure::kUnknownToken)));
    }
    Result<Authenticated> from_session_cookie(std::string_view) const override {
        return Status::Unauthenticated("session expired; log in again");
    }

    std::map<std::string, AuthFailure> reasons = {
        {"yuzu_expired", AuthFailure::kExpiredToken},
        {"yuzu_revoked", AuthFailure::kRevokedToken},
        {"yuzu_rotated", AuthFailure::kSupersededToken},
        {"yuzu_store_down", AuthFailure::kUnverifiedToken},
    };
    mutable int calls = 0;
    mutable std::string last_token;
};

// A resolver that only implements the two pure functions: the default
// resolve_token() must still report a refused token as unknown.
class MinimalResolver final : public CredentialResolver {
  public:
    Result<Authenticated> from_token(std::string_view) const override {
        return Status::Unauthenticated("no");
    }
    Result<Authenticated> from_session_cookie(std::string_view) const override {
        return Status::Unauthenticated("no");
    }
};

httplib::Request request(std::multimap<std::string, std::string> headers) {
    httplib::Request req;
    req.method = "GET";
    for (auto& [k, v] : headers) req.headers.emplace(k, v);
    return req;
}

AuthFailure failure_of(const CredentialResolver& resolver,
                       std::multimap<std::string, std::string> headers) {
    AuthFailure failure = AuthFailure::kNone;
    auto who = authenticate(request(std::move(headers)), resolver, true, &failure);
    EXPECT_FALSE(who.ok());
    EXPECT_EQ(who.ok() ? StatusCode::kOk : who.status().code(), StatusCode::kUnauthenticated);
    return failure;
}

TEST(WwwAuthenticate, ChallengeTextPerFailure) {
    EXPECT_EQ(www_authenticate_challenge(AuthFailure::kNoCredentials), R"(Bearer realm="yuzu")");
    EXPECT_EQ(www_authenticate_challenge(AuthFailure::kExpiredToken),
              R"(Bearer realm="yuzu", error="invalid_token", )"
              R"(error_description="the token has expired")");
    EXPECT_EQ(www_authenticate_challenge(AuthFailure::kRevokedToken),
              R"(Bearer realm="yuzu", error="invalid_token", )"
              R"(error_description="the token has been revoked")");
    EXPECT_EQ(www_authenticate_challenge(AuthFailure::kUnknownToken),
              R"(Bearer realm="yuzu", error="invalid_token", )"
              R"(error_description="the token is unknown")");
    EXPECT_EQ(
        www_authenticate_challenge(AuthFailure::kSupersededToken),
        R"(Bearer realm="yuzu", error="invalid_token", )"
        R"(error_description="the token secret was replaced by rotation; use the new secret")");
    // Not a statement about the token, and not a bearer token at all: no error code.
    EXPECT_EQ(www_authenticate_challenge(AuthFailure::kUnverifiedToken), R"(Bearer realm="yuzu")");
    EXPECT_EQ(www_authenticate_challenge(AuthFailure::kInvalidSession), R"(Bearer realm="yuzu")");
}

TEST(WwwAuthenticate, DescriptionsUseOnlyTheCharactersRfc6750Allows) {
    for (AuthFailure f :
         {AuthFailure::kNone, AuthFailure::kNoCredentials, AuthFailure::kUnknownToken,
          AuthFailure::kExpiredToken, AuthFailure::kRevokedToken, AuthFailure::kSupersededToken,
          AuthFailure::kUnverifiedToken, AuthFailure::kInvalidSession}) {
        for (char c : auth_failure_description(f)) {
            const auto u = static_cast<unsigned char>(c);
            EXPECT_TRUE(u >= 0x20 && u <= 0x7e && c != '"' && c != '\\') << int(u);
        }
    }
}

TEST(WwwAuthenticate, AuthenticateSaysWhyATokenWasRefused) {
    FakeResolver resolver;
    EXPECT_EQ(failure_of(resolver, {{"Authorization", "Bearer yuzu_expired"}}),
              AuthFailure::kExpiredToken);
    EXPECT_EQ(failure_of(resolver, {{"Authorization", "bearer  yuzu_revoked "}}),
              AuthFailure::kRevokedToken);
    EXPECT_EQ(resolver.last_token, "yuzu_revoked");
    EXPECT_EQ(failure_of(resolver, {{"Authorization", "Bearer yuzu_nobody"}}),
              AuthFailure::kUnknownToken);
    EXPECT_EQ(failure_of(resolver, {{"X-Yuzu-Token", "yuzu_expired"}}), AuthFailure::kExpiredToken);
    EXPECT_EQ(failure_of(resolver, {{"Authorization", "Bearer yuzu_rotated"}}),
              AuthFailure::kSupersededToken);
}

TEST(WwwAuthenticate, NoBearerTokenIsNoCredentials) {
    FakeResolver resolver;
    EXPECT_EQ(failure_of(resolver, {}), AuthFailure::kNoCredentials);
    EXPECT_EQ(failure_of(resolver, {{"Authorization", "Basic YWxpY2U6cHc="}}),
              AuthFailure::kNoCredentials);
    EXPECT_EQ(resolver.calls, 0) << "another scheme is not looked up";
    EXPECT_EQ(failure_of(resolver, {{"Cookie", "yuzu_session=stale"}}),
              AuthFailure::kInvalidSession);
}

TEST(WwwAuthenticate, SuccessLeavesNoFailure) {
    FakeResolver resolver;
    AuthFailure failure = AuthFailure::kExpiredToken;
    auto who =
        authenticate(request({{"Authorization", "Bearer yuzu_good"}}), resolver, true, &failure);
    ASSERT_TRUE(who.ok());
    EXPECT_EQ(failure, AuthFailure::kNone);
    EXPECT_EQ(who->principal.username, "alice");
    // The failure pointer is optional.
    EXPECT_FALSE(authenticate(request({{"Authorization", "Bearer yuzu_expired"}}), resolver).ok());
}

TEST(WwwAuthenticate, DefaultResolveTokenCallsARefusalUnknown) {
    MinimalResolver resolver;
    EXPECT_EQ(failure_of(resolver, {{"Authorization", "Bearer yuzu_whatever"}}),
              AuthFailure::kUnknownToken);
}

TEST(WwwAuthenticate, WriteUnauthorizedSetsTheChallengeAndTheBody) {
    httplib::Response res;
    write_unauthorized(res, AuthFailure::kExpiredToken, "the token has expired");
    EXPECT_EQ(res.status, 401);
    EXPECT_EQ(res.get_header_value("WWW-Authenticate"),
              R"(Bearer realm="yuzu", error="invalid_token", )"
              R"(error_description="the token has expired")");
    EXPECT_EQ(res.headers.count("WWW-Authenticate"), 1u);
    const auto body = nlohmann::json::parse(res.body);
    EXPECT_EQ(body["error"]["code"], 401);
    EXPECT_EQ(body["error"]["message"], "the token has expired");

    httplib::Response plain;
    write_unauthorized(plain, "authentication required");
    EXPECT_EQ(plain.status, 401);
    EXPECT_EQ(plain.get_header_value("WWW-Authenticate"), R"(Bearer realm="yuzu")");
}

TEST(WwwAuthenticate, TheChallengeNeverEchoesThePresentedToken) {
    FakeResolver resolver;
    const std::string secret = "yuzu_expired";
    AuthFailure failure = AuthFailure::kNone;
    auto who =
        authenticate(request({{"Authorization", "Bearer " + secret}}), resolver, true, &failure);
    ASSERT_FALSE(who.ok());
    httplib::Response res;
    write_unauthorized(res, failure, who.status().message());
    EXPECT_EQ(res.get_header_value("WWW-Authenticate").find(secret), std::string::npos);
    EXPECT_EQ(res.body.find(secret), std::string::npos);
}

}  // namespace
}  // namespace yuzu::http
