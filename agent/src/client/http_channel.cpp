#include "client/http_channel.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>

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

// Once per process: every identity would fail the same way.
void warn_source_address(const std::string& address, const char* why) {
    static std::atomic<bool> warned{false};
    if (warned.exchange(true)) return;
    spdlog::warn(
        "cannot bind to source address {} ({}); connecting from the default address, which a "
        "server capping connections per address may refuse (--no-virtual-source-addresses "
        "turns the binding off)",
        address, why);
}

// Binds each socket the client opens to `address` before connect(). The
// client's own socket options are none (httplib applies
// default_socket_options to servers only), so this replaces nothing.
void bind_source_address(httplib::Client& client, const std::string& address) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    source.sin_port = 0;
    if (::inet_pton(AF_INET, address.c_str(), &source.sin_addr) != 1) {
        warn_source_address(address, "not an IPv4 address");
        return;
    }
    client.set_address_family(AF_INET);  // "localhost" must not resolve to ::1
    client.set_socket_options([source, address](socket_t sock) {
        // The port is then chosen by connect() for the whole 4-tuple, instead
        // of bind() reserving an ephemeral port of the address per socket.
        const int one = 1;
        (void)::setsockopt(sock, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (::bind(sock, reinterpret_cast<const sockaddr*>(&source), sizeof source) != 0) {
            warn_source_address(address, std::strerror(errno));
        }
    });
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
    Impl(const ServerEndpoint& endpoint, const std::string& ca_file,
         const std::string& source_address)
        : client(endpoint.origin()), base_path(endpoint.base_path), tls(endpoint.tls()) {
        if (!source_address.empty()) bind_source_address(client, source_address);
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
                         HttpTimeouts timeouts, const std::string& source_address, bool keep_alive)
    : impl_(std::make_unique<Impl>(endpoint, ca_file, source_address)) {
    impl_->timeouts = timeouts;
    impl_->client.set_keep_alive(keep_alive);
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
    return post(path, bearer, json, impl_->timeouts.read);
}

HttpReply HttpChannel::post(const std::string& path, const std::string& bearer,
                            const std::string& json, std::chrono::milliseconds read_timeout) {
    set_timeout(impl_->client, &httplib::Client::set_read_timeout, read_timeout);
    auto result = impl_->client.Post(impl_->base_path + path, impl_->headers(bearer), json,
                                     "application/json");
    return to_reply(result, impl_->client, impl_->tls);
}

void HttpChannel::cancel() {
    impl_->client.stop();
}

}  // namespace yuzu::agent
