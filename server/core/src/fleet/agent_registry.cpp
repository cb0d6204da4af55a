#include "yuzu/fleet/agent_registry.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <utility>

#include "fleet/field_rules.hpp"
#include "yuzu/common/thread_guard.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::fleet {
namespace {

constexpr size_t kMaxQuarantineReasonBytes = 1024;
constexpr size_t kMaxActorBytes = 128;

constexpr std::string_view kSelectAgent =
    "SELECT a.agent_id, a.hostname, a.os, a.os_version, a.arch, a.version, a.enrolled_at_ms, "
    "a.first_seen_ms, a.last_seen_ms, a.uptime_s, a.signed_off, a.quarantined, "
    "a.quarantine_reason, a.quarantined_by, a.quarantined_at_ms, a.perf_at_ms, a.perf_cpu_pct, "
    "a.perf_mem_used_pct, a.perf_disk_used_pct, a.perf_load1, "
    "NOT EXISTS (SELECT 1 FROM device_tokens d WHERE d.agent_id = a.agent_id "
    "AND d.revoked_at_ms = 0) FROM agents a ";

struct StoredAgent {
    AgentRecord record;
    bool signed_off = false;
};

std::optional<double> optional_real(const store::Statement& s, int column) {
    if (s.column_is_null(column)) return std::nullopt;
    return s.column_double(column);
}

StoredAgent read_agent(const store::Statement& s) {
    StoredAgent out;
    AgentRecord& r = out.record;
    r.agent_id = s.column_text(0);
    r.hostname = s.column_text(1);
    r.os = s.column_text(2);
    r.os_version = s.column_text(3);
    r.arch = s.column_text(4);
    r.version = s.column_text(5);
    r.enrolled_at_ms = s.column_int64(6);
    r.first_seen_ms = s.column_int64(7);
    r.last_seen_ms = s.column_int64(8);
    r.uptime_s = s.column_int64(9);
    out.signed_off = s.column_int64(10) != 0;
    r.quarantined = s.column_int64(11) != 0;
    r.quarantine_reason = s.column_text(12);
    r.quarantined_by = s.column_text(13);
    r.quarantined_at_ms = s.column_int64(14);
    if (!s.column_is_null(15)) {
        PerfSample perf;
        perf.at_ms = s.column_int64(15);
        perf.cpu_pct = optional_real(s, 16);
        perf.mem_used_pct = optional_real(s, 17);
        perf.disk_used_pct = optional_real(s, 18);
        perf.load1 = optional_real(s, 19);
        r.perf = perf;
    }
    r.device_revoked = s.column_int64(20) != 0;
    return out;
}

Status not_registered(const std::string& agent_id) {
    return Status::NotFound("agent '" + agent_id + "' is not registered");
}

void bind_optional(store::Statement& s, int index, const std::optional<double>& v) {
    if (v) {
        s.bind(index, *v);
    } else {
        s.bind_null(index);
    }
}

}  // namespace

AgentRegistry::AgentRegistry(store::Database& db, const Clock& clock, int64_t offline_timeout_ms,
                             store::Database* reader)
    : db_(db),
      reader_(reader != nullptr ? *reader : db),
      clock_(clock),
      offline_timeout_ms_(offline_timeout_ms) {
    assert(offline_timeout_ms_ > 0);
    load_quarantined();
    flusher_ = std::thread([this]() noexcept { flush_loop(); });
}

AgentRegistry::~AgentRegistry() {
    {
        std::lock_guard lock(presence_mu_);
        stopping_ = true;
    }
    flush_wake_.notify_all();
    flusher_.join();
    Status flushed = flush();
    if (!flushed.ok()) {
        spdlog::warn("fleet: could not save agents' heartbeats and last-seen times at shutdown: {}",
                     flushed.to_string());
    }
}

Status AgentRegistry::record_heartbeat(const std::string& agent_id, const Heartbeat& beat) {
    YUZU_RETURN_IF_ERROR(check_heartbeat(beat));
    if (!is_agent_id(agent_id)) return not_registered(agent_id);
    YUZU_RETURN_IF_ERROR(require_registered(agent_id));
    const int64_t now_ms = clock_.now_ms();
    std::lock_guard lock(presence_mu_);
    // Written by the next group commit (at most kFlushInterval away); reads
    // see it at once through the overlay.
    beats_.insert_or_assign(agent_id, PendingBeat{beat, now_ms});
    Presence& p = presence_[agent_id];
    p.last_seen_ms = std::max(p.last_seen_ms, now_ms);
    p.signed_off = false;
    p.dirty = true;
    return Status::Ok();
}

void AgentRegistry::touch(const std::string& agent_id) {
    const int64_t now_ms = clock_.now_ms();
    std::lock_guard lock(presence_mu_);
    Presence& p = presence_[agent_id];
    p.last_seen_ms = std::max(p.last_seen_ms, now_ms);
    p.signed_off = false;
    p.dirty = true;
}

Status AgentRegistry::require_registered(const std::string& agent_id) const {
    auto conn = reader_.lock();
    auto stmt = conn.prepare("SELECT 1 FROM agents WHERE agent_id = ?1");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->bind(1, agent_id).step();
    if (!row.ok()) return row.status();
    return *row ? Status::Ok() : not_registered(agent_id);
}

void AgentRegistry::flush_loop() noexcept {
    std::unique_lock lock(presence_mu_);
    while (!stopping_) {
        flush_wake_.wait_for(lock, kFlushInterval, [this] { return stopping_; });
        if (stopping_) break;
        lock.unlock();
        // A write that throws or fails is logged and counted; what it held
        // is still pending and goes with the next one.
        (void)run_guarded("fleet.presence_flush", [this] {
            Status flushed = flush();
            if (!flushed.ok()) {
                spdlog::warn("fleet: could not save agents' heartbeats and last-seen times: {}",
                             flushed.to_string());
            }
        });
        lock.lock();
    }
}

Status AgentRegistry::flush() {
    std::lock_guard one_writer(flush_mu_);
    std::unordered_map<std::string, PendingBeat> beats;
    std::vector<std::pair<std::string, int64_t>> seen;
    {
        std::lock_guard lock(presence_mu_);
        beats.swap(beats_);
        // Still laid over reads until committed (see overlay_locked).
        inflight_ = beats;
        for (auto& [id, p] : presence_) {
            if (!p.dirty) continue;
            assert(!p.signed_off);  // sign_off() writes and clears the flag
            p.dirty = false;
            seen.emplace_back(id, p.last_seen_ms);
        }
    }
    if (beats.empty() && seen.empty()) return Status::Ok();
    Status written = write_presence(beats, seen);
    std::lock_guard lock(presence_mu_);
    inflight_.clear();
    if (!written.ok()) {
        // Put back what a newer heartbeat or touch has not replaced.
        for (auto& [id, beat] : beats) beats_.try_emplace(id, std::move(beat));
        for (const auto& [id, at] : seen) {
            auto it = presence_.find(id);
            if (it != presence_.end() && !it->second.signed_off) it->second.dirty = true;
        }
    }
    return written;
}

// One transaction for every heartbeat and last-seen time waiting.
Status AgentRegistry::write_presence(const std::unordered_map<std::string, PendingBeat>& beats,
                                     const std::vector<std::pair<std::string, int64_t>>& seen) {
    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    if (!beats.empty()) {
        auto update = conn.prepare(
            "UPDATE agents SET hostname = ?1, os = ?2, os_version = ?3, arch = ?4, version = ?5, "
            "uptime_s = ?6, last_seen_ms = MAX(last_seen_ms, ?7), signed_off = 0, "
            "perf_at_ms = ?8, perf_cpu_pct = ?9, perf_mem_used_pct = ?10, "
            "perf_disk_used_pct = ?11, perf_load1 = ?12 WHERE agent_id = ?13");
        if (!update.ok()) return update.status();
        for (const auto& [id, pending] : beats) {
            const Heartbeat& beat = pending.beat;
            update->bind(1, beat.hostname).bind(2, beat.os).bind(3, beat.os_version);
            update->bind(4, beat.arch).bind(5, beat.agent_version).bind(6, beat.uptime_s);
            update->bind(7, pending.at_ms).bind(13, id);
            if (beat.perf) {
                update->bind(8, beat.perf->at_ms > 0 ? beat.perf->at_ms : pending.at_ms);
                bind_optional(*update, 9, beat.perf->cpu_pct);
                bind_optional(*update, 10, beat.perf->mem_used_pct);
                bind_optional(*update, 11, beat.perf->disk_used_pct);
                bind_optional(*update, 12, beat.perf->load1);
            } else {
                for (int i = 8; i <= 12; ++i) update->bind_null(i);
            }
            YUZU_RETURN_IF_ERROR(update->run());
        }
    }
    if (!seen.empty()) {
        auto update = conn.prepare(
            "UPDATE agents SET last_seen_ms = MAX(last_seen_ms, ?1), signed_off = 0 "
            "WHERE agent_id = ?2");
        if (!update.ok()) return update.status();
        for (const auto& [id, at] : seen) {
            YUZU_RETURN_IF_ERROR(update->bind(1, at).bind(2, id).run());
        }
    }
    return tx.commit();
}

void AgentRegistry::overlay_locked(AgentRecord& r) const {
    auto it = beats_.find(r.agent_id);
    if (it == beats_.end()) {
        it = inflight_.find(r.agent_id);
        if (it == inflight_.end()) return;
    }
    const Heartbeat& beat = it->second.beat;
    r.hostname = beat.hostname;
    r.os = beat.os;
    r.os_version = beat.os_version;
    r.arch = beat.arch;
    r.version = beat.agent_version;
    r.uptime_s = beat.uptime_s;
    r.perf = beat.perf;
    if (r.perf && r.perf->at_ms <= 0) r.perf->at_ms = it->second.at_ms;
}

Status AgentRegistry::sign_off(const std::string& agent_id) {
    if (!is_agent_id(agent_id)) return not_registered(agent_id);
    // What is waiting goes first, so a heartbeat written after the sign-off
    // cannot undo it (rare: goodbyes are once per agent run).
    if (Status flushed = flush(); !flushed.ok()) return flushed;
    const int64_t now_ms = clock_.now_ms();
    std::lock_guard lock(presence_mu_);
    auto known = presence_.find(agent_id);
    const int64_t seen = known == presence_.end() ? 0 : known->second.last_seen_ms;
    {
        auto conn = db_.lock();
        auto update = conn.prepare(
            "UPDATE agents SET signed_off = 1, signed_off_at_ms = ?1, "
            "last_seen_ms = MAX(last_seen_ms, ?2) WHERE agent_id = ?3");
        if (!update.ok()) return update.status();
        YUZU_RETURN_IF_ERROR(update->bind(1, now_ms).bind(2, seen).bind(3, agent_id).run());
        if (conn.changes() == 0) return not_registered(agent_id);
    }
    Presence& p = presence_[agent_id];
    p.signed_off = true;
    p.dirty = false;
    // A heartbeat that arrived after the flush above must not be written
    // after the sign-off (it would clear signed_off in the store).
    beats_.erase(agent_id);
    return Status::Ok();
}

bool AgentRegistry::resolve_presence_locked(const std::string& agent_id, int64_t& last_seen_ms,
                                            bool stored_signed_off, int64_t now_ms) const {
    bool signed_off = stored_signed_off;
    auto it = presence_.find(agent_id);
    if (it != presence_.end()) {
        // Every presence change in this process went through presence_, so
        // its sign-off state is the latest word.
        last_seen_ms = std::max(last_seen_ms, it->second.last_seen_ms);
        signed_off = it->second.signed_off;
    }
    return !signed_off && now_ms - last_seen_ms < offline_timeout_ms_;
}

Result<AgentRecord> AgentRegistry::get(const std::string& agent_id) const {
    if (!is_agent_id(agent_id)) return not_registered(agent_id);
    StoredAgent stored;
    {
        auto conn = reader_.lock();
        auto stmt = conn.prepare(std::string(kSelectAgent) + "WHERE a.agent_id = ?1");
        if (!stmt.ok()) return stmt.status();
        auto row = stmt->bind(1, agent_id).step();
        if (!row.ok()) return row.status();
        if (!*row) return not_registered(agent_id);
        stored = read_agent(*stmt);
    }
    const int64_t now_ms = clock_.now_ms();
    std::lock_guard lock(presence_mu_);
    AgentRecord& r = stored.record;
    r.online = resolve_presence_locked(r.agent_id, r.last_seen_ms, stored.signed_off, now_ms);
    overlay_locked(r);
    return std::move(stored.record);
}

Result<std::vector<AgentRecord>> AgentRegistry::list() const {
    std::vector<StoredAgent> stored;
    {
        auto conn = reader_.lock();
        auto stmt = conn.prepare(std::string(kSelectAgent) + "ORDER BY a.agent_id");
        if (!stmt.ok()) return stmt.status();
        for (;;) {
            auto row = stmt->step();
            if (!row.ok()) return row.status();
            if (!*row) break;
            stored.push_back(read_agent(*stmt));
        }
    }
    const int64_t now_ms = clock_.now_ms();
    std::vector<AgentRecord> out;
    out.reserve(stored.size());
    std::lock_guard lock(presence_mu_);
    for (StoredAgent& s : stored) {
        AgentRecord& r = s.record;
        r.online = resolve_presence_locked(r.agent_id, r.last_seen_ms, s.signed_off, now_ms);
        overlay_locked(r);
        out.push_back(std::move(r));
    }
    return out;
}

size_t AgentRegistry::online_count() const {
    struct Seen {
        std::string agent_id;
        int64_t last_seen_ms;
        bool signed_off;
    };
    std::vector<Seen> seen;
    {
        auto conn = reader_.lock();
        auto stmt = conn.prepare("SELECT agent_id, last_seen_ms, signed_off FROM agents");
        if (!stmt.ok()) {
            spdlog::warn("fleet: cannot count online agents: {}", stmt.status().to_string());
            return 0;
        }
        for (;;) {
            auto row = stmt->step();
            if (!row.ok()) {
                spdlog::warn("fleet: cannot count online agents: {}", row.status().to_string());
                return 0;
            }
            if (!*row) break;
            seen.push_back(
                {stmt->column_text(0), stmt->column_int64(1), stmt->column_int64(2) != 0});
        }
    }
    const int64_t now_ms = clock_.now_ms();
    std::lock_guard lock(presence_mu_);
    return static_cast<size_t>(std::count_if(seen.begin(), seen.end(), [&](Seen& s) {
        return resolve_presence_locked(s.agent_id, s.last_seen_ms, s.signed_off, now_ms);
    }));
}

size_t AgentRegistry::total_count() const {
    auto conn = reader_.lock();
    auto stmt = conn.prepare("SELECT COUNT(*) FROM agents");
    if (!stmt.ok()) {
        spdlog::warn("fleet: cannot count agents: {}", stmt.status().to_string());
        return 0;
    }
    auto row = stmt->step();
    if (!row.ok() || !*row) {
        spdlog::warn("fleet: cannot count agents: {}", row.status().to_string());
        return 0;
    }
    return static_cast<size_t>(stmt->column_int64(0));
}

Status AgentRegistry::set_quarantine(const std::string& agent_id, bool quarantined,
                                     const std::string& reason, const std::string& by) {
    YUZU_RETURN_IF_ERROR(check_text_field("reason", reason, 0, kMaxQuarantineReasonBytes, true));
    YUZU_RETURN_IF_ERROR(check_text_field("by", by, 0, kMaxActorBytes, true));
    if (!is_agent_id(agent_id)) return not_registered(agent_id);
    // One change at a time, so the memory copy ends as the store does.
    std::lock_guard one_change(quarantine_mu_);
    {
        auto conn = db_.lock();
        auto update = conn.prepare(
            "UPDATE agents SET quarantined = ?1, quarantine_reason = ?2, quarantined_by = ?3, "
            "quarantined_at_ms = ?4 WHERE agent_id = ?5");
        if (!update.ok()) return update.status();
        update->bind(1, quarantined ? 1 : 0).bind(2, reason).bind(3, by);
        YUZU_RETURN_IF_ERROR(update->bind(4, clock_.now_ms()).bind(5, agent_id).run());
        if (conn.changes() == 0) return not_registered(agent_id);
    }
    std::lock_guard lock(presence_mu_);
    if (quarantined) {
        quarantined_.insert(agent_id);
    } else {
        quarantined_.erase(agent_id);
    }
    return Status::Ok();
}

bool AgentRegistry::quarantined(const std::string& agent_id) const {
    {
        std::lock_guard lock(presence_mu_);
        if (quarantine_loaded_) return quarantined_.count(agent_id) > 0;
    }
    auto record = get(agent_id);
    return record.ok() && record->quarantined;
}

void AgentRegistry::load_quarantined() {
    auto conn = reader_.lock();
    auto stmt = conn.prepare("SELECT agent_id FROM agents WHERE quarantined = 1");
    if (!stmt.ok()) return;  // answered from the store instead
    std::unordered_set<std::string> ids;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return;
        if (!*row) break;
        ids.insert(stmt->column_text(0));
    }
    std::lock_guard lock(presence_mu_);
    quarantined_ = std::move(ids);
    quarantine_loaded_ = true;
}

}  // namespace yuzu::fleet
