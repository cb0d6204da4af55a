#include "yuzu/metrics/registry.hpp"

#include <cassert>

namespace yuzu::metrics {

Registry::Registry() = default;
Registry::~Registry() = default;

void Registry::AddCollector(std::function<void()> collect) {
    std::lock_guard lock(collect_mu_);
    collectors_.push_back(std::move(collect));
}

std::string Registry::Serialize() const {
    {
        std::lock_guard lock(collect_mu_);
        for (const auto& collect : collectors_) collect();
    }
    // Families are never removed, so the pointers outlive the lock; serializing
    // outside it keeps registration from waiting on a scrape.
    std::vector<const FamilyBase*> families;
    {
        std::lock_guard lock(mu_);
        families.reserve(families_.size());
        for (const auto& entry : families_) families.push_back(entry.second.get());
    }
    std::string out;
    for (const FamilyBase* family : families) family->SerializeTo(out);
    return out;
}

template <typename T>
Family<T>& Registry::Add(const std::string& name, const std::string& help,
                         const Labels& constant_labels) {
    std::lock_guard lock(mu_);
    const auto it = families_.find(name);
    if (it == families_.end()) {
        auto family = std::make_unique<Family<T>>(name, help, constant_labels);
        Family<T>& added = *family;
        families_.emplace(name, std::move(family));
        return added;
    }
    FamilyBase& existing = *it->second;
    if (existing.Type() != T::kType) {
        assert(false && "a metric family was registered twice with different types");
        unexported_.push_back(std::make_unique<Family<T>>(name, help, constant_labels));
        return static_cast<Family<T>&>(*unexported_.back());
    }
    assert(existing.ConstantLabels() == constant_labels &&
           "a metric family was registered twice with different constant labels");
    return static_cast<Family<T>&>(existing);
}

template Family<Counter>& Registry::Add<Counter>(const std::string&, const std::string&,
                                                 const Labels&);
template Family<Gauge>& Registry::Add<Gauge>(const std::string&, const std::string&, const Labels&);
template Family<Histogram>& Registry::Add<Histogram>(const std::string&, const std::string&,
                                                     const Labels&);

}  // namespace yuzu::metrics
