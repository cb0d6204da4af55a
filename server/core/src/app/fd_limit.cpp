#include "yuzu/app/fd_limit.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>

namespace yuzu::app {

uint64_t raise_open_files_limit(uint64_t wanted) {
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
    if (lim.rlim_cur < wanted) {
        rlimit raised = lim;
        raised.rlim_cur = std::min<rlim_t>(static_cast<rlim_t>(wanted), lim.rlim_max);
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
    }
    if (lim.rlim_cur < wanted) {
        spdlog::warn(
            "open-files limit is {} (hard limit {}); the connection caps need about {}: raise "
            "LimitNOFILE or ulimit -n, or lower --max-connections / --agent-max-connections",
            static_cast<uint64_t>(lim.rlim_cur), static_cast<uint64_t>(lim.rlim_max), wanted);
    }
    return lim.rlim_cur;
}

}  // namespace yuzu::app
