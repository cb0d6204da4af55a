// LoginThrottle: admission control for password logins, asked before any
// password hash runs, so guessing costs the guesser time and not the server
// its CPU.
//
// Two limits, each answered at once with a wait in seconds (never queued):
// - per source address, a token bucket: `burst` attempts at once, then one
//   more every `refill_interval_ms`. Every attempt counts, right password or
//   not. At most `max_sources` addresses are remembered; the least recently
//   seen is forgotten first (it has had the longest to refill anyway).
// - across all sources, at most `max_concurrent_hashes` password checks at
//   a time (default half the cores, at least one), so a flood from many
//   addresses still leaves cores for everything else. An attempt refused
//   for this still spends its source's token, so one address cannot keep
//   the slots contended beyond its burst.
//
// A source is whatever string the caller names it by (the peer address).
// Behind a reverse proxy every client is the proxy's address and shares one
// bucket.
//
// Thread-safety: safe to call from any thread. An admission may be released
// on any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "yuzu/common/clock.hpp"

namespace yuzu::auth {

inline constexpr int kLoginBurst = 10;
inline constexpr int64_t kLoginRefillIntervalMs = 3'000;
inline constexpr size_t kLoginMaxTrackedSources = 4'096;
// What a refusal for lack of a free hash slot asks the client to wait.
inline constexpr int kLoginBusyRetryAfterS = 1;

struct LoginThrottleOptions {
    int burst = kLoginBurst;                              // attempts a new source may make at once
    int64_t refill_interval_ms = kLoginRefillIntervalMs;  // one more attempt per interval
    size_t max_sources = kLoginMaxTrackedSources;         // addresses remembered
    int max_concurrent_hashes = 0;                        // 0: max(1, hardware_concurrency / 2)
};

enum class LoginRefusal {
    kNone,         // admitted
    kRateLimited,  // this source used up its attempts
    kBusy,         // every password-hash slot is taken
};
// "none", "rate_limited", "busy" (the audit row's detail).
std::string_view login_refusal_name(LoginRefusal refusal);

// The throttle's answer to one attempt. An admitted one holds a hash slot
// until it is destroyed, so keep it alive across the password check (and no
// longer than the throttle).
class LoginAdmission {
  public:
    LoginAdmission(LoginAdmission&& other) noexcept;
    LoginAdmission& operator=(LoginAdmission&&) = delete;
    LoginAdmission(const LoginAdmission&) = delete;
    LoginAdmission& operator=(const LoginAdmission&) = delete;
    ~LoginAdmission();

    bool admitted() const { return refusal_ == LoginRefusal::kNone; }
    LoginRefusal refusal() const { return refusal_; }
    // How long to wait before trying again (the Retry-After); 0 if admitted.
    int retry_after_s() const { return retry_after_s_; }
    // Whether this refusal deserves an audit row: the first of a run from its
    // source, or the first busy refusal in a second. A flood then cannot
    // write audit rows as fast as it can send requests.
    bool worth_auditing() const { return worth_auditing_; }

  private:
    friend class LoginThrottle;
    LoginAdmission(std::atomic<int>* slot, LoginRefusal refusal, int retry_after_s,
                   bool worth_auditing)
        : slot_(slot),
          refusal_(refusal),
          retry_after_s_(retry_after_s),
          worth_auditing_(worth_auditing) {}

    std::atomic<int>* slot_;  // the in-use count to decrement on release; null if none held
    LoginRefusal refusal_;
    int retry_after_s_;
    bool worth_auditing_;
};

class LoginThrottle {
  public:
    // clock must outlive the throttle.
    explicit LoginThrottle(const Clock& clock, LoginThrottleOptions options = {});
    LoginThrottle(const LoginThrottle&) = delete;
    LoginThrottle& operator=(const LoginThrottle&) = delete;

    // Spends one of `source`'s attempts and takes a hash slot; or says why
    // not and how long to wait. Never blocks.
    LoginAdmission admit(const std::string& source);

    int max_concurrent_hashes() const { return max_hashes_; }
    int hashes_in_flight() const { return in_flight_.load(); }
    size_t tracked_sources() const;
    // Refusals since start, by reason (kNone: admissions).
    uint64_t count(LoginRefusal outcome) const;

  private:
    struct Bucket {
        int tokens = 0;
        int64_t refilled_at_ms = 0;            // tokens are counted up to this time
        bool refusal_audited = false;          // a refusal since the last admission was audited
        std::list<std::string>::iterator age;  // its place in by_age_
    };

    bool take_slot();
    bool busy_worth_auditing(int64_t now_ms);
    void refill(Bucket& bucket, int64_t now_ms) const;
    Bucket& bucket_for(const std::string& source, int64_t now_ms);  // caller holds mu_

    const Clock& clock_;
    const int burst_;
    const int64_t refill_interval_ms_;
    const size_t max_sources_;
    const int max_hashes_;

    std::atomic<int> in_flight_{0};  // hash slots taken
    std::atomic<int64_t> last_busy_audit_ms_;
    std::atomic<uint64_t> admitted_{0};
    std::atomic<uint64_t> rate_limited_{0};
    std::atomic<uint64_t> busy_{0};

    mutable std::mutex mu_;
    // Guarded by mu_:
    std::unordered_map<std::string, Bucket> buckets_;
    std::list<std::string> by_age_;  // least recently seen source first
};

}  // namespace yuzu::auth
