// AuditCursor: the keyset position behind AuditPage::next_cursor.
//
// A page continues strictly after the (timestamp_ms, id) of the previous
// page's last row in newest-first order. The text form is opaque to clients
// (32 lowercase hex digits today); decode() accepts only what encode() makes.
// Thread-safety: a value type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "yuzu/audit/audit_event.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::audit {

struct AuditCursor {
    int64_t timestamp_ms = 0;  // >= 0
    int64_t id = 0;            // >= 1

    static AuditCursor after(const AuditEvent& last_row) {
        return {last_row.timestamp_ms, last_row.id};
    }

    std::string encode() const;
    // InvalidArgument when `text` is not a cursor this server made.
    static Result<AuditCursor> decode(std::string_view text);

    // Whether `event` comes after this position in newest-first order, i.e.
    // (event.timestamp_ms, event.id) < (timestamp_ms, id).
    bool precedes(const AuditEvent& event) const {
        return event.timestamp_ms < timestamp_ms ||
               (event.timestamp_ms == timestamp_ms && event.id < id);
    }

    bool operator==(const AuditCursor&) const = default;
};

}  // namespace yuzu::audit
