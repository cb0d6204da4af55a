#include "client/http_channel.hpp"

#include <httplib.h>
#include <openssl/x509.h>

#include <algorithm>
#include <charconv>

namespace yuzu::agent {
namespace {

#ifndef YUZU_VERSION
#define YUZU_VERSION "0.0.0"
#endif

constexpr int kMaxRetryAfterS = 3600;

void set_timeout(httplib::Client& client, void (httplib::Client::*setter)(time_t, time_t),
                 std::chrono::milliseconds d) {
    const auto ms = std::max<int64_t>(d.count(), 1);
    (client.*setter)(static_cast<time_t>(ms / 1000), static_cast<time_t>((ms % 1000) * 1000));
}

HttpReply to_reply(const httplib::Result& result, const httplib::Client& client, bool tls) {
    HttpReply reply;
    if (!result) {
        reply.transport_error = httplib::to_string(result.error());
        if (tls && result.error() == httplib::Error::SSLServerVerification) {
            const long verify = client.get_openssl_verify_result();
            reply.transport_error +=
                std::string(" (") + X509_verify_cert_error_string(verify) + "; check --ca-file)";
        }
        return reply;
    }
    reply.status = result->status;
    reply.body = result->body;
    reply.correlation_id = result->get_header_value("X-Correlation-Id");
    if (result->has_header("Retry-After")) {
        reply.retry_after_s = parse_retry_after(result->get_header_value("Retry-After"));
    }
    return reply;
}

}  // namespace

std::optional<int> parse_retry_after(const std::string& value) {
    int seconds = 0;
    const char* end = value.data() + value.size();
    const auto r = std::from_chars(value.data(), end, seconds);
    if (value.empty() || r.ec != std::errc() || r.ptr != end || seconds < 0) return std::nullopt;
    return std::min(seconds, kMaxRetryAfterS);
}

struct HttpChannel::Impl {
    Impl(const ServerEndpoint& endpoint, const std::string& ca_file)
        : client(endpoint.origin()), base_path(endpoint.base_path), tls(endpoint.tls()) {
        if (tls) {
            client.enable_server_certificate_verification(true);
            if (!ca_file.empty()) client.set_ca_cert_path(ca_file);
        }
        client.set_keep_alive(false);
        client.set_default_headers({{"User-Agent", std::string("yuzu-agent/") + YUZU_VERSION},
                                    {"Accept", "application/json"}});
    }

    httplib::Headers headers(const std::string& bearer) const {
        httplib::Headers h;
        if (!bearer.empty()) h.emplace("Authorization", "Bearer " + bearer);
        return h;
    }

    httplib::Client client;
    std::string base_path;
    bool tls;
    HttpTimeouts timeouts;
};

HttpChannel::HttpChannel(const ServerEndpoint& endpoint, const std::string& ca_file,
                         HttpTimeouts timeouts)
    : impl_(std::make_unique<Impl>(endpoint, ca_file)) {
    impl_->timeouts = timeouts;
    set_timeout(impl_->client, &httplib::Client::set_connection_timeout, timeouts.connect);
    set_timeout(impl_->client, &httplib::Client::set_write_timeout, timeouts.write);
}

HttpChannel::~HttpChannel() = default;

HttpReply HttpChannel::get(const std::string& path, const std::string& bearer,
                           std::chrono::milliseconds read_timeout) {
    set_timeout(impl_->client, &httplib::Client::set_read_timeout, read_timeout);
    auto result = impl_->client.Get(impl_->base_path + path, impl_->headers(bearer));
    return to_reply(result, impl_->client, impl_->tls);
}

HttpReply HttpChannel::post(const std::string& path, const std::string& bearer,
                            const std::string& json) {
    set_timeout(impl_->client, &httplib::Client::set_read_timeout, impl_->timeouts.read);
    auto result = impl_->client.Post(impl_->base_path + path, impl_->headers(bearer), json,
                                     "application/json");
    return to_reply(result, impl_->client, impl_->tls);
}

void HttpChannel::cancel() {
    impl_->client.stop();
}

}  // namespace yuzu::agent
