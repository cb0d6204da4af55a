// Family: every series of one metric name, told apart by their labels
// (prometheus-cpp's Family<T>).
//
// Thread-safety: every member is safe to call from any thread. Series are
// added, removed and serialized under the family's own mutex; the metrics
// themselves are lock-free.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/gauge.hpp"
#include "yuzu/metrics/histogram.hpp"
#include "yuzu/metrics/labels.hpp"
#include "yuzu/metrics/metric_type.hpp"

namespace yuzu::metrics {

// What the Registry needs from a family of any type.
class FamilyBase {
  public:
    // Label names must be valid (asserted), and a histogram may not use "le".
    FamilyBase(MetricType type, std::string name, std::string help, Labels constant_labels);
    virtual ~FamilyBase();
    FamilyBase(const FamilyBase&) = delete;
    FamilyBase& operator=(const FamilyBase&) = delete;

    MetricType Type() const { return type_; }
    const std::string& Name() const { return name_; }
    const std::string& Help() const { return help_; }
    const Labels& ConstantLabels() const { return constant_labels_; }

    // Appends `# HELP`, `# TYPE` and then every series, in label order.
    virtual void SerializeTo(std::string& out) const = 0;

    // True when `labels` may name a series of this family: valid names, none
    // repeating a constant label, no "le" on a histogram.
    bool AreValidSeriesLabels(const Labels& labels) const;

  protected:
    void AppendHeader(std::string& out) const;
    // The constant labels merged with a series' own.
    Labels MergedLabels(const Labels& series_labels) const;

  private:
    const MetricType type_;
    const std::string name_;
    const std::string help_;
    const Labels constant_labels_;
};

template <typename T>
class Family final : public FamilyBase {
  public:
    Family(std::string name, std::string help, Labels constant_labels);

    // The series with these labels, created on first use; the same labels
    // always return the same object. Invalid label names are a programming
    // error (asserted). The reference stays valid for the family's lifetime,
    // even after Remove().
    T& Add(const Labels& labels) requires(!std::is_same_v<T, Histogram>);
    // As above; `buckets` is used only when the series is created.
    T& Add(const Labels& labels,
           const BucketBoundaries& buckets) requires std::is_same_v<T, Histogram>;

    // Stops exporting `metric`. The object itself lives on until the family
    // dies, so a thread still holding it cannot touch freed memory; Add() with
    // the same labels then starts a fresh series. Unknown pointers are ignored.
    void Remove(T* metric);
    bool Has(const Labels& labels) const;

    void SerializeTo(std::string& out) const override;

  private:
    template <typename Make>
    T& AddSeries(const Labels& labels, Make&& make);

    mutable std::mutex mu_;
    std::map<Labels, std::unique_ptr<T>> series_;  // guarded by mu_
    std::vector<std::unique_ptr<T>> removed_;      // guarded by mu_; see Remove()
};

extern template class Family<Counter>;
extern template class Family<Gauge>;
extern template class Family<Histogram>;

}  // namespace yuzu::metrics
