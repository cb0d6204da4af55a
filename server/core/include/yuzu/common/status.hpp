// Status and Result<T>: errors crossing a module boundary are values.
//
// Every code maps onto exactly one HTTP status, one JSON-RPC code and one
// audit result, in the single table in status.cpp, so a new error never
// invents its own mapping (docs/mcp-server.md prints the table; a test keeps
// the two equal).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace yuzu {

enum class StatusCode {
    kOk = 0,
    kInvalidArgument,     // caller sent something malformed          400 / -32602
    kNotFound,            // the named object does not exist (or is hidden) 404 / -32602
    kAlreadyExists,       // uniqueness violated                        409 / -32602
    kUnauthenticated,     // no or bad credentials                      401 / -32001
    kPermissionDenied,    // authenticated, not allowed                 403 / -32003
    kFailedPrecondition,  // state does not allow it now               409 / -32003
    kResourceExhausted,   // a bounded queue or cap is full             429 / -32603
    kPayloadTooLarge,     // body or field over its limit               413 / -32602
    kUnavailable,         // transient: store busy, subsystem starting  503 / -32603
    kInternal,            // a bug or an unexpected environment failure 500 / -32603
};

std::string_view status_code_name(StatusCode code);
int http_status_for(StatusCode code);
int jsonrpc_code_for(StatusCode code);
// "success", "denied", "failure" or "error".
std::string_view audit_result_for(StatusCode code);
// Every code, in the table's order.
std::vector<StatusCode> all_status_codes();

class [[nodiscard]] Status {
  public:
    Status() = default;
    Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

    static Status Ok() { return Status(); }
    static Status InvalidArgument(std::string m) {
        return {StatusCode::kInvalidArgument, std::move(m)};
    }
    static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
    static Status AlreadyExists(std::string m) {
        return {StatusCode::kAlreadyExists, std::move(m)};
    }
    static Status Unauthenticated(std::string m) {
        return {StatusCode::kUnauthenticated, std::move(m)};
    }
    static Status PermissionDenied(std::string m) {
        return {StatusCode::kPermissionDenied, std::move(m)};
    }
    static Status FailedPrecondition(std::string m) {
        return {StatusCode::kFailedPrecondition, std::move(m)};
    }
    static Status ResourceExhausted(std::string m) {
        return {StatusCode::kResourceExhausted, std::move(m)};
    }
    static Status PayloadTooLarge(std::string m) {
        return {StatusCode::kPayloadTooLarge, std::move(m)};
    }
    static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
    static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

    bool ok() const { return code_ == StatusCode::kOk; }
    StatusCode code() const { return code_; }
    const std::string& message() const { return message_; }
    // "NotFound: agent 'x' is not registered"
    std::string to_string() const;

  private:
    StatusCode code_ = StatusCode::kOk;
    std::string message_;
};

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
  public:
    Result(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
    Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
        assert(!status_.ok() && "a Result built from a Status must carry an error");
    }

    bool ok() const { return value_.has_value(); }
    const Status& status() const { return status_; }

    T& value() & {
        assert(ok());
        return *value_;
    }
    const T& value() const& {
        assert(ok());
        return *value_;
    }
    T&& value() && {
        assert(ok());
        return std::move(*value_);
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

  private:
    std::optional<T> value_;
    Status status_;
};

}  // namespace yuzu

// Propagate a non-ok Status from an expression returning Status.
#define YUZU_RETURN_IF_ERROR(expr)                   \
    do {                                             \
        ::yuzu::Status yuzu_status_ = (expr);        \
        if (!yuzu_status_.ok()) return yuzu_status_; \
    } while (0)
