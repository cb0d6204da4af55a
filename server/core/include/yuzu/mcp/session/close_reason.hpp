// Why an MCP stream ended: the `reason` of the stream-closed frame a stream
// ends with (a streamed POST that delivered its result just ends), and the
// label of yuzu_mcp_stream_closes_total. A closed set; docs/user-manual/mcp.md
// says what a client does for each. The first four are streamed-POST only.
#pragma once

#include <array>
#include <string_view>

namespace yuzu::mcp {

enum class CloseReason {
    kCompleted,          // the call's result was delivered
    kCapExpired,         // the response's time budget ran out; the execution continues
    kRecordGone,         // the call's progress record ended (server stopping)
    kCancelled,          // the client's notifications/cancelled detached the response
    kSessionTerminated,  // DELETE, idle expiry or server shutdown: re-initialize
    kSuperseded,         // a newer GET on the same session took the stream over
    kCredentialRevoked,  // the token or web session stopped being valid
    kAuthUnavailable,    // the credential store could not answer within the grace window
    kReplayGap,          // Last-Event-ID is older than the replay ring holds
    kInternalError,      // a server fault ended the stream
    kClientDisconnect,   // the peer went away (server-side only: no frame)
};

inline constexpr std::array<CloseReason, 11> kCloseReasons = {
    CloseReason::kCompleted,         CloseReason::kCapExpired,        CloseReason::kRecordGone,
    CloseReason::kCancelled,         CloseReason::kSessionTerminated, CloseReason::kSuperseded,
    CloseReason::kCredentialRevoked, CloseReason::kAuthUnavailable,   CloseReason::kReplayGap,
    CloseReason::kInternalError,     CloseReason::kClientDisconnect,
};

constexpr std::string_view close_reason_name(CloseReason reason) {
    switch (reason) {
        case CloseReason::kCompleted:
            return "completed";
        case CloseReason::kCapExpired:
            return "cap_expired";
        case CloseReason::kRecordGone:
            return "record_gone";
        case CloseReason::kCancelled:
            return "cancelled";
        case CloseReason::kSessionTerminated:
            return "session_terminated";
        case CloseReason::kSuperseded:
            return "superseded";
        case CloseReason::kCredentialRevoked:
            return "credential_revoked";
        case CloseReason::kAuthUnavailable:
            return "auth_unavailable";
        case CloseReason::kReplayGap:
            return "replay_gap";
        case CloseReason::kInternalError:
            return "internal_error";
        case CloseReason::kClientDisconnect:
            return "client_disconnect";
    }
    return "internal_error";
}

// The remediation text of the close frame's A4 envelope.
constexpr std::string_view close_reason_remediation(CloseReason reason) {
    switch (reason) {
        case CloseReason::kCompleted:
            return "";
        case CloseReason::kCapExpired:
            return "the response's time budget ran out; the execution continues: fetch it "
                   "by execution_id (get_execution_status, query_responses)";
        case CloseReason::kRecordGone:
            return "this response cannot continue; the execution continues: fetch it by "
                   "execution_id, or resume on GET with Last-Event-ID";
        case CloseReason::kCancelled:
            return "detached at your request; the execution continues: fetch it by "
                   "execution_id if you still want it";
        case CloseReason::kSessionTerminated:
            return "the session ended; initialize a new one";
        case CloseReason::kSuperseded:
            return "another GET on this session took the stream over; keep only one open";
        case CloseReason::kCredentialRevoked:
            return "the credential is no longer valid; authenticate again";
        case CloseReason::kAuthUnavailable:
            return "the server could not verify the credential; retry shortly";
        case CloseReason::kReplayGap:
            return "frames after Last-Event-ID are no longer held; initialize a new session "
                   "and fetch results by execution_id (do not repeat a mutating call)";
        case CloseReason::kInternalError:
            return "a server fault ended the stream; reconnect with Last-Event-ID";
        case CloseReason::kClientDisconnect:
            return "";
    }
    return "";
}

}  // namespace yuzu::mcp
