// One HTTP(S) connection's worth of client to the agent plane: JSON in and
// out, a bearer token, and the few reply headers the protocol uses.
// https:// verifies the server's certificate and host name against
// --ca-file or the system store; verification is never turned off.
//
// A channel given a source address binds each connection to it (an IPv4
// address; see source_address.hpp); one that cannot be bound is logged
// once and the connection goes out from the default address.
//
// A channel given a ClientCredential presents its client.crt and
// client.key over https (never over http) once both exist, and builds a
// new connection at its first request after they change (the credential's
// generation moved). A credential that cannot be loaded (expired, not a
// pair) is warned about once per change, and the channel goes without it.
//
// Thread-safety: requests are issued by one thread at a time (the owner);
// cancel() may be called from any thread and aborts the request in flight.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "yuzu/agent/server_endpoint.hpp"

namespace yuzu::agent {

class ClientCredential;

struct HttpReply {
    int status = 0;  // 0 when no answer arrived (connect, TLS, timeout, cancel)
    std::string body;
    std::string transport_error;  // set when status == 0
    std::optional<int> retry_after_s;
    std::string correlation_id;

    bool ok() const { return status >= 200 && status < 300; }
};

struct HttpTimeouts {
    std::chrono::milliseconds connect{5000};
    std::chrono::milliseconds read{30'000};
    std::chrono::milliseconds write{30'000};
};

class HttpChannel {
  public:
    // source_address "": the kernel picks the source address. keep_alive:
    // the connection is reused between requests (the poll channel, busy
    // enough that the server's idle timeout never closes it under it).
    // credential, when given, outlives the channel.
    HttpChannel(const ServerEndpoint& endpoint, const std::string& ca_file, HttpTimeouts timeouts,
                const std::string& source_address = "", bool keep_alive = false,
                const ClientCredential* credential = nullptr);
    ~HttpChannel();
    HttpChannel(const HttpChannel&) = delete;
    HttpChannel& operator=(const HttpChannel&) = delete;

    // path is relative to the endpoint's base path, e.g. "/agent/v1/heartbeat".
    // An empty bearer sends no Authorization header (enrollment).
    HttpReply get(const std::string& path, const std::string& bearer,
                  std::chrono::milliseconds read_timeout);
    HttpReply post(const std::string& path, const std::string& bearer, const std::string& json);
    // A post the server may hold like a long-poll (a result that carries the
    // next poll): read_timeout replaces the channel's.
    HttpReply post(const std::string& path, const std::string& bearer, const std::string& json,
                   std::chrono::milliseconds read_timeout);

    void cancel();

    // Whether the connection presents a client certificate (after the last
    // request, or construction).
    bool presents_client_certificate() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// "Retry-After: 7" -> 7. HTTP-dates and garbage give nothing (the caller
// then uses the protocol's default).
std::optional<int> parse_retry_after(const std::string& value);

}  // namespace yuzu::agent
