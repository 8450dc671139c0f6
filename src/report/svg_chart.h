#pragma once
// Inline SVG charts for the HTML report, drawn from plain numbers so they need no script and no
// library. Each function returns one <svg> element, or an empty string when there is nothing to
// draw (the caller then says what is missing).

#include <optional>
#include <string>
#include <vector>

namespace d2k::report {

struct Bar {
  std::string series;  // legend entry, e.g. a configuration
  double value = 0.0;
};

struct BarGroup {
  std::string label;  // x-axis entry, e.g. a model
  std::vector<Bar> bars;
};

// Grouped bars from zero, each labelled with its value, and a dashed line at `reference`.
std::string bar_chart(const std::vector<BarGroup>& groups, double reference,
                      const std::string& reference_label, const std::string& y_label);

struct LineSeries {
  std::string name;
  std::vector<double> values;  // y at x = 0, 1, 2, ...
};

// Lines over x = 0..n-1 from a zero baseline, each labelled with its last value.
std::string line_chart(const std::vector<LineSeries>& series, const std::string& x_label,
                       const std::string& y_label);

struct DotSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per category; absent: not drawn
};

// Per category, one dot per series on a logarithmic axis, and a black bar at the category's
// bound when it has one: latencies against T_SOL, where lower is faster.
std::string log_dot_chart(const std::vector<std::string>& categories,
                          const std::vector<std::optional<double>>& bounds,
                          const std::string& bound_label, const std::vector<DotSeries>& series,
                          const std::string& y_label);

// Text safe inside XML and HTML elements and attributes.
std::string escape_xml(const std::string& text);

}  // namespace d2k::report
