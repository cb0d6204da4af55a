#include "yuzu/metrics/family.hpp"

#include <cassert>
#include <string>
#include <utility>

#include "yuzu/metrics/text_format.hpp"

namespace yuzu::metrics {
namespace {

// The label a histogram's bucket lines carry; a caller may not use it.
constexpr std::string_view kBucketLabel = "le";

[[maybe_unused]] bool AreValidConstantLabels(MetricType type, const Labels& labels) {
    for (const auto& entry : labels) {
        if (!IsValidLabelName(entry.first)) return false;
        if (type == MetricType::kHistogram && entry.first == kBucketLabel) return false;
    }
    return true;
}

void AppendSeries(std::string& out, const std::string& name, const Labels& labels,
                  const Counter& counter) {
    AppendSampleLine(out, name, labels, FormatValue(counter.Value()));
}

void AppendSeries(std::string& out, const std::string& name, const Labels& labels,
                  const Gauge& gauge) {
    AppendSampleLine(out, name, labels, FormatValue(gauge.Value()));
}

void AppendSeries(std::string& out, const std::string& name, const Labels& labels,
                  const Histogram& histogram) {
    const HistogramSnapshot snapshot = histogram.Snapshot();
    const std::string bucket_name = name + "_bucket";
    for (size_t i = 0; i < snapshot.upper_bounds.size(); ++i) {
        AppendSampleLine(out, bucket_name, labels, std::to_string(snapshot.cumulative_counts[i]),
                         kBucketLabel, FormatValue(snapshot.upper_bounds[i]));
    }
    const std::string count = std::to_string(snapshot.count);
    AppendSampleLine(out, bucket_name, labels, count, kBucketLabel, "+Inf");
    AppendSampleLine(out, name + "_sum", labels, FormatValue(snapshot.sum));
    AppendSampleLine(out, name + "_count", labels, count);
}

}  // namespace

FamilyBase::FamilyBase(MetricType type, std::string name, std::string help, Labels constant_labels)
    : type_(type),
      name_(std::move(name)),
      help_(std::move(help)),
      constant_labels_(std::move(constant_labels)) {
    assert(IsValidMetricName(name_) && "metric names match [a-zA-Z_:][a-zA-Z0-9_:]*");
    assert(AreValidConstantLabels(type_, constant_labels_) &&
           "label names match [a-zA-Z_][a-zA-Z0-9_]*, do not start with __, and a "
           "histogram may not use le");
}

FamilyBase::~FamilyBase() = default;

bool FamilyBase::AreValidSeriesLabels(const Labels& labels) const {
    for (const auto& entry : labels) {
        if (!IsValidLabelName(entry.first)) return false;
        if (constant_labels_.contains(entry.first)) return false;
        if (type_ == MetricType::kHistogram && entry.first == kBucketLabel) return false;
    }
    return true;
}

void FamilyBase::AppendHeader(std::string& out) const {
    out += "# HELP ";
    out += name_;
    out += ' ';
    AppendEscapedHelp(out, help_);
    out += "\n# TYPE ";
    out += name_;
    out += ' ';
    out += MetricTypeName(type_);
    out += '\n';
}

Labels FamilyBase::MergedLabels(const Labels& series_labels) const {
    if (constant_labels_.empty()) return series_labels;
    Labels merged = constant_labels_;
    merged.insert(series_labels.begin(), series_labels.end());
    return merged;
}

template <typename T>
Family<T>::Family(std::string name, std::string help, Labels constant_labels)
    : FamilyBase(T::kType, std::move(name), std::move(help), std::move(constant_labels)) {}

template <typename T>
template <typename Make>
T& Family<T>::AddSeries(const Labels& labels, Make&& make) {
    assert(AreValidSeriesLabels(labels) &&
           "label names match [a-zA-Z_][a-zA-Z0-9_]*, do not start with __, do not repeat a "
           "constant label, and a histogram may not use le");
    std::lock_guard lock(mu_);
    auto it = series_.find(labels);
    if (it == series_.end()) it = series_.emplace(labels, make()).first;
    return *it->second;
}

template <typename T>
T& Family<T>::Add(const Labels& labels) requires(!std::is_same_v<T, Histogram>) {
    return AddSeries(labels, [] { return std::make_unique<T>(); });
}

template <typename T>
T& Family<T>::Add(const Labels& labels,
                  const BucketBoundaries& buckets) requires std::is_same_v<T, Histogram> {
    return AddSeries(labels, [&buckets] { return std::make_unique<T>(buckets); });
}

template <typename T>
void Family<T>::Remove(T* metric) {
    std::lock_guard lock(mu_);
    for (auto it = series_.begin(); it != series_.end(); ++it) {
        if (it->second.get() == metric) {
            removed_.push_back(std::move(it->second));
            series_.erase(it);
            return;
        }
    }
}

template <typename T>
bool Family<T>::Has(const Labels& labels) const {
    std::lock_guard lock(mu_);
    return series_.contains(labels);
}

template <typename T>
void Family<T>::SerializeTo(std::string& out) const {
    AppendHeader(out);
    std::lock_guard lock(mu_);
    for (const auto& [labels, metric] : series_) {
        AppendSeries(out, Name(), MergedLabels(labels), *metric);
    }
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

}  // namespace yuzu::metrics
