#include "yuzu/common/thread_priority.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <string>

namespace yuzu {
namespace {

id_t this_thread_id() {
    return static_cast<id_t>(::syscall(SYS_gettid));
}

}  // namespace

int thread_nice_value() {
    errno = 0;
    const int value = ::getpriority(PRIO_PROCESS, this_thread_id());
    return errno == 0 ? value : 0;
}

Status lower_thread_priority(int steps) {
    assert(steps >= 0 && "raising a priority needs privileges this server does not ask for");
    if (steps <= 0) return Status::Ok();
    const id_t tid = this_thread_id();
    errno = 0;
    const int current = ::getpriority(PRIO_PROCESS, tid);
    if (errno != 0 || ::setpriority(PRIO_PROCESS, tid, current + steps) != 0) {
        return Status::Unavailable(std::string("cannot lower the thread's CPU priority: ") +
                                   std::strerror(errno));
    }
    return Status::Ok();
}

}  // namespace yuzu
