#include "yuzu/agent/identity_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "client/atomic_file.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"

namespace yuzu::agent {
namespace {

namespace fs = std::filesystem;

constexpr mode_t kDirMode = 0700;
constexpr mode_t kFileMode = 0600;
constexpr size_t kMaxIdentityBytes = 64 * 1024;

std::string errno_text() {
    return std::strerror(errno);
}

// mkdir with 0700, or tighten an existing directory that is looser.
Status ensure_private_dir(const fs::path& dir) {
    if (::mkdir(dir.c_str(), kDirMode) != 0 && errno != EEXIST) {
        return Status::Unavailable("cannot create " + dir.string() + ": " + errno_text());
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return Status::Unavailable(dir.string() + " is not a directory");
    }
    if ((st.st_mode & 0777) != kDirMode && ::chmod(dir.c_str(), kDirMode) != 0) {
        return Status::Unavailable("cannot make " + dir.string() + " private: " + errno_text());
    }
    return Status::Ok();
}

std::string string_field(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string identity_name(int index) {
    return "agent-" + std::to_string(index);
}

Result<fs::path> prepare_identity_dir(const fs::path& state_dir, const std::string& name) {
    // A state directory the agent creates is private; one that exists is the
    // operator's and keeps its mode (only the identity directories are forced).
    std::error_code ec;
    if (!fs::exists(state_dir, ec)) {
        if (state_dir.has_parent_path()) fs::create_directories(state_dir.parent_path(), ec);
        if (ec || (::mkdir(state_dir.c_str(), kDirMode) != 0 && errno != EEXIST)) {
            return Status::Unavailable("cannot create state directory " + state_dir.string() +
                                       ": " + (ec ? ec.message() : errno_text()));
        }
    }
    if (!fs::is_directory(state_dir, ec)) {
        return Status::Unavailable("state directory " + state_dir.string() + " is not a directory");
    }
    const fs::path dir = state_dir / name;
    YUZU_RETURN_IF_ERROR(ensure_private_dir(dir));
    return dir;
}

Result<IdentityRecord> load_identity(const fs::path& identity_dir) {
    const fs::path path = identity_dir / kIdentityFileName;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT) return Status::NotFound(path.string() + " does not exist");
        return Status::Unavailable("cannot open " + path.string() + ": " + errno_text());
    }
    struct stat st {};
    if (::fstat(fd, &st) == 0 && (st.st_mode & 0077) != 0) ::fchmod(fd, kFileMode);
    std::string text;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || text.size() + static_cast<size_t>(n) > kMaxIdentityBytes) break;
        text.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    const auto j = yuzu::parse_json_or_discarded(text);
    if (!j.is_object()) return Status::InvalidArgument(path.string() + " is not a JSON object");
    IdentityRecord record;
    record.server_url = string_field(j, "server_url");
    record.agent_id = string_field(j, "agent_id");
    record.device_token = string_field(j, "device_token");
    if (const auto it = j.find("enrolled_at"); it != j.end() && it->is_number_integer()) {
        record.enrolled_at_ms = it->get<int64_t>();
    }
    if (record.server_url.empty() || record.agent_id.empty() || record.device_token.empty()) {
        return Status::InvalidArgument(path.string() +
                                       " lacks server_url, agent_id or device_token");
    }
    return record;
}

Status save_identity(const fs::path& identity_dir, const IdentityRecord& record) {
    const fs::path path = identity_dir / kIdentityFileName;
    const nlohmann::json j = {{"server_url", record.server_url},
                              {"agent_id", record.agent_id},
                              {"device_token", record.device_token},
                              {"enrolled_at", record.enrolled_at_ms}};
    const std::string data = dump_json(j, 2) + "\n";
    return write_file_atomically(path, data, kFileMode);
}

}  // namespace yuzu::agent
