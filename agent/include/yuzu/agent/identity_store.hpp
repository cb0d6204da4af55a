// An identity's state on disk: <state-dir>/<name>/identity.json holding
// the server URL, agent id and device token. The directory is 0700 and the
// file 0600; the file is replaced atomically (temp file, fsync, rename), so
// a crash leaves either the old or the new record, never a torn one.
//
// Thread-safety: free functions; two threads must not save the same identity
// at once (each identity is owned by one thread).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "yuzu/common/status.hpp"

namespace yuzu::agent {

inline constexpr const char* kIdentityFileName = "identity.json";

struct IdentityRecord {
    std::string server_url;    // ServerEndpoint::url() at enrollment
    std::string agent_id;      // 32 lowercase hex, from the server
    std::string device_token;  // secret: never logged
    int64_t enrolled_at_ms = 0;
};

// "agent-<index>": the directory name of the index-th identity.
std::string identity_name(int index);

// Creates <state_dir>/<name> with mode 0700, tightening an existing one that
// is looser. A missing state_dir is created 0700; an existing one keeps its
// mode. Unavailable when it cannot.
Result<std::filesystem::path> prepare_identity_dir(const std::filesystem::path& state_dir,
                                                   const std::string& name);

// NotFound when the directory has no identity.json; InvalidArgument when it
// is not a complete record; Unavailable when it cannot be read. A file
// readable by others is tightened to 0600.
Result<IdentityRecord> load_identity(const std::filesystem::path& identity_dir);

// Writes identity.json (0600) atomically.
Status save_identity(const std::filesystem::path& identity_dir, const IdentityRecord& record);

}  // namespace yuzu::agent
