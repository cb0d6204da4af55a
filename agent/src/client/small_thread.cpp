#include "client/small_thread.hpp"

#include <limits.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "yuzu/common/thread_guard.hpp"

namespace yuzu::agent {
namespace {

struct Start {
    const char* guard;
    std::function<void()> body;
};

void* run_start(void* arg) noexcept {
    const std::unique_ptr<Start> start(static_cast<Start*>(arg));
    (void)run_guarded(start->guard, start->body);
    return nullptr;
}

}  // namespace

SmallThread::SmallThread(SmallThread&& other) noexcept
    : thread_(std::exchange(other.thread_, {})) {}

SmallThread& SmallThread::operator=(SmallThread&& other) noexcept {
    if (this != &other) {
        if (joinable()) join();
        thread_ = std::exchange(other.thread_, {});
    }
    return *this;
}

SmallThread::~SmallThread() {
    if (joinable()) join();
}

Status SmallThread::start(const char* guard, size_t stack_bytes, std::function<void()> body) {
    if (joinable()) return Status::FailedPrecondition("thread already started");
    pthread_attr_t attr;
    if (const int rc = pthread_attr_init(&attr); rc != 0) {
        return Status::Unavailable(std::string("cannot start a thread: ") + std::strerror(rc));
    }
    int rc = pthread_attr_setstacksize(&attr, std::max<size_t>(stack_bytes, PTHREAD_STACK_MIN));
    auto start = std::make_unique<Start>(Start{guard, std::move(body)});
    pthread_t thread{};
    if (rc == 0) rc = pthread_create(&thread, &attr, run_start, start.get());
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        return Status::Unavailable(std::string("cannot start a thread: ") + std::strerror(rc));
    }
    (void)start.release();  // the thread owns it now
    thread_ = thread;
    return Status::Ok();
}

void SmallThread::join() {
    if (!thread_) return;
    (void)pthread_join(*thread_, nullptr);
    thread_.reset();
}

}  // namespace yuzu::agent
