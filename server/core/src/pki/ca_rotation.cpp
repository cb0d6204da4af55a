// Engine-key rotation and CRL refresh: the CertificateAuthority methods
// that change which signing generations are trusted.
#include <algorithm>

#include "pki/ca_keys.hpp"
#include "pki/pki_store.hpp"
#include "yuzu/pki/certificate_authority.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::pki {

using namespace detail;

namespace {

Result<RotationStatus> status_of(store::Conn& conn, const std::vector<KeyRow>& rows,
                                 int64_t now_ms) {
    RotationStatus out;
    const KeyRow* active = find_state(rows, kStateActive);
    const KeyRow* pending = find_state(rows, kStatePending);
    if (active == nullptr) return Status::Internal("pki.db has no active signing generation");
    out.from_generation = active->generation;
    if (pending == nullptr) return out;
    out.pending = true;
    out.to_generation = pending->generation;
    out.started_at_ms = pending->created_at_ms;
    out.started_by = pending->created_by;
    auto left = count_agents_not_renewed(conn, active->key_id, pending->key_id, now_ms);
    if (!left.ok()) return left.status();
    out.agents_on_old_generation = *left;
    return out;
}

}  // namespace

Result<RotationStatus> CertificateAuthority::rotation_status() const {
    auto conn = db_->lock();
    auto rows = read_keys(conn);
    if (!rows.ok()) return rows.status();
    return status_of(conn, *rows, clock_.now_ms());
}

Status CertificateAuthority::check_rotation_pending(int to_generation) const {
    auto status = rotation_status();
    if (!status.ok()) return status.status();
    if (!status->pending) return Status::FailedPrecondition("no engine-key rotation is pending");
    if (status->to_generation != to_generation) {
        return Status::FailedPrecondition("the pending rotation is to generation " +
                                          std::to_string(status->to_generation));
    }
    return Status::Ok();
}

Result<RotationStatus> CertificateAuthority::start_rotation(const std::string& by) {
    std::lock_guard lock(mu_);
    {
        auto conn = db_->lock();
        auto rows = read_keys(conn);
        if (!rows.ok()) return rows.status();
        if (find_state(*rows, kStatePending) != nullptr) {
            return Status::FailedPrecondition("an engine-key rotation is already pending");
        }
        const KeyRow* root = find_state(*rows, kStateRoot);
        if (root == nullptr) return Status::Internal("pki.db has no root");
        auto root_keys = open_keys(*root, secrets_);
        if (!root_keys.ok()) return root_keys.status();
        int next = 0;
        for (const KeyRow& r : *rows) next = std::max(next, r.generation);
        ++next;
        auto row = make_generation(next, root_keys->certificate.get(), root_keys->key.get(),
                                   options_.ca_name, secrets_, clock_.now_ms(), by);
        if (!row.ok()) return row.status();
        row->state = kStatePending;
        YUZU_RETURN_IF_ERROR(insert_key(conn, *row));
        // A generation without a CRL would fail every handshake its
        // certificates make, so the first CRL follows at once.
    }
    auto status = rotation_status();
    if (!status.ok()) return status.status();
    Status published = republish_crl_locked(status->to_generation);
    if (published.ok()) published = publish_trust();
    if (!published.ok()) {
        // No half-made generation stays behind (load() also repairs one a
        // crash left without its CRL).
        auto conn = db_->lock();
        (void)delete_key(conn, status->to_generation);
        return published;
    }
    return status;
}

Result<RotationStatus> CertificateAuthority::cancel_rotation() {
    std::lock_guard lock(mu_);
    {
        auto conn = db_->lock();
        auto rows = read_keys(conn);
        if (!rows.ok()) return rows.status();
        const KeyRow* pending = find_state(*rows, kStatePending);
        if (pending == nullptr) {
            return Status::FailedPrecondition("no engine-key rotation is pending");
        }
        auto issued = count_valid(conn, pending->key_id, clock_.now_ms(), /*agents_only=*/false);
        if (!issued.ok()) return issued.status();
        if (*issued > 0) {
            return Status::FailedPrecondition(
                "generation " + std::to_string(pending->generation) + " has already issued " +
                std::to_string(*issued) +
                " certificate(s) still valid; cancelling would strand their holders: confirm "
                "the rotation instead");
        }
        auto tx = conn.transaction();
        YUZU_RETURN_IF_ERROR(delete_key(conn, pending->generation));
        YUZU_RETURN_IF_ERROR(tx.commit());
    }
    YUZU_RETURN_IF_ERROR(publish_trust());
    return rotation_status();
}

Result<RotationStatus> CertificateAuthority::confirm_rotation(int to_generation) {
    std::lock_guard lock(mu_);
    RotationStatus before;
    {
        auto conn = db_->lock();
        auto rows = read_keys(conn);
        if (!rows.ok()) return rows.status();
        auto status = status_of(conn, *rows, clock_.now_ms());
        if (!status.ok()) return status.status();
        if (!status->pending)
            return Status::FailedPrecondition("no engine-key rotation is pending");
        if (status->to_generation != to_generation) {
            return Status::FailedPrecondition("the pending rotation is to generation " +
                                              std::to_string(status->to_generation));
        }
        before = *status;
        auto tx = conn.transaction();
        YUZU_RETURN_IF_ERROR(
            set_key_state(conn, status->from_generation, kStateRetired, clock_.now_ms()));
        YUZU_RETURN_IF_ERROR(set_key_state(conn, status->to_generation, kStateActive, {}));
        YUZU_RETURN_IF_ERROR(tx.commit());
    }
    YUZU_RETURN_IF_ERROR(publish_trust());
    return before;
}

Result<int> CertificateAuthority::refresh_crls(bool force) {
    std::lock_guard lock(mu_);
    std::vector<int> due;
    {
        auto conn = db_->lock();
        auto rows = read_keys(conn);
        if (!rows.ok()) return rows.status();
        const int64_t now = clock_.now_ms();
        for (const KeyRow& r : *rows) {
            if (r.state != kStateActive && r.state != kStatePending) continue;
            auto crl = read_crl(conn, r.generation);
            if (!crl.ok()) return crl.status();
            // A revocation whose republish failed is newer than the CRL.
            auto revoked = latest_revocation_ms(conn, r.key_id);
            if (!revoked.ok()) return revoked.status();
            if (force || !*crl || now - (*crl)->published_at_ms >= kCrlRepublishAfterS * 1000 ||
                *revoked > (*crl)->published_at_ms) {
                due.push_back(r.generation);
            }
        }
    }
    for (int g : due) YUZU_RETURN_IF_ERROR(republish_crl_locked(g));
    if (!due.empty()) YUZU_RETURN_IF_ERROR(publish_trust());
    return static_cast<int>(due.size());
}

}  // namespace yuzu::pki
