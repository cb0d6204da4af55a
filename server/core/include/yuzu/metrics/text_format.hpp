// Building blocks of the text exposition format 0.0.4: number formatting,
// escaping and sample lines. Registry::Serialize() is built from these.
//
// Thread-safety: pure functions, safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/metrics/labels.hpp"

namespace yuzu::metrics {

// Integers that a double holds exactly print without exponent or point ("3",
// "1000000"); other values print in the shortest form that reads back to the
// same double ("0.005", "2.5", "1e-05"); NaN, +Inf and -Inf as spelled.
std::string FormatValue(double value);

// Help text: backslash -> \\ and newline -> \n.
void AppendEscapedHelp(std::string& out, std::string_view help);

// Label value: backslash -> \\, double quote -> \" and newline -> \n.
void AppendEscapedLabelValue(std::string& out, std::string_view value);

// Both escapers replace each byte that does not start valid UTF-8 with
// U+FFFD: one bad byte in a label value makes Prometheus reject the whole
// scrape, and label values may come from request input.

// Appends `name{k="v",...,extra="value"} sample\n`; the braces are omitted
// when there are no labels. `extra_label_name` (the histogram's "le") goes
// last when not empty.
void AppendSampleLine(std::string& out, std::string_view name, const Labels& labels,
                      std::string_view sample, std::string_view extra_label_name = {},
                      std::string_view extra_label_value = {});

}  // namespace yuzu::metrics
