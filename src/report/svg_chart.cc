#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <array>

#include <fmt/format.h>

#include "report/text_table.h"

namespace d2k::report {
namespace {

constexpr double kWidth = 760.0;
constexpr double kHeight = 340.0;
constexpr double kLeft = 70.0;
constexpr double kRight = 190.0;  // room for the legend
constexpr double kTop = 20.0;
constexpr double kBottom = 60.0;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

// Colour-blind-safe (Okabe-Ito), in legend order.
constexpr std::array<const char*, 8> kPalette = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                 "#CC79A7", "#56B4E9", "#F0E442", "#000000"};

const char* colour(size_t index) { return kPalette[index % kPalette.size()]; }

std::string open_svg(const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">"
      "<title>{2}</title>",
      kWidth, kHeight, escape_xml(title));
}

// Axis lines and the y-axis title, rotated along the axis.
std::string axes(const std::string& x_label, const std::string& y_label) {
  std::string out = fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>"
      "<line x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" stroke=\"#333\"/>",
      kLeft, kTop, kTop + kPlotHeight, kLeft + kPlotWidth);
  out += fmt::format(
      "<text x=\"16\" y=\"{0:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {0:.1f})\">"
      "{1}</text>",
      kTop + kPlotHeight / 2, escape_xml(y_label));
  if (!x_label.empty()) {
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
                       kLeft + kPlotWidth / 2, kHeight - 12, escape_xml(x_label));
  }
  return out;
}

std::string legend(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    const double y = kTop + 10 + 20.0 * static_cast<double>(i);
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>",
        kLeft + kPlotWidth + 16, y - 10, colour(i), kLeft + kPlotWidth + 34, y,
        escape_xml(names[i]));
  }
  return out;
}

// A round tick step (1, 2 or 5 times a power of ten) that splits [0, top] into at most six.
double tick_step(double top) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(top / 6.0)));
  for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (top / (factor * magnitude) <= 6.0) return factor * magnitude;
  }
  return 10.0 * magnitude;
}

// The axis top for values up to `highest`: a whole number of round steps, with headroom for
// the value labels.
double axis_top(double highest) {
  const double step = tick_step(highest * 1.1);
  return step * std::ceil(highest * 1.1 / step);
}

// Grid lines and labels of a linear y-axis from 0 to `top` (from axis_top).
std::string linear_ticks(double top) {
  std::string out;
  const double step = tick_step(top);
  const auto ticks = static_cast<int>(std::floor(top / step + 1e-9));
  for (int i = 0; i <= ticks; ++i) {
    const double value = step * i;
    const double y = kTop + kPlotHeight * (1.0 - value / top);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:g}</text>",
        kLeft, y, kLeft + kPlotWidth, kLeft - 6, y + 4, value);
  }
  return out;
}

}  // namespace

std::string escape_xml(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string bar_chart(const std::vector<BarGroup>& groups, double reference,
                      const std::string& reference_label, const std::string& y_label) {
  std::vector<std::string> series;
  double top = reference;
  for (const auto& group : groups) {
    for (const auto& bar : group.bars) {
      if (std::find(series.begin(), series.end(), bar.series) == series.end()) {
        series.push_back(bar.series);
      }
      top = std::max(top, bar.value);
    }
  }
  if (series.empty()) return "";
  top = axis_top(top);
  const auto y_of = [&](double value) { return kTop + kPlotHeight * (1.0 - value / top); };
  std::string out = open_svg(y_label) + linear_ticks(top) + axes("", y_label);
  const double group_width = kPlotWidth / static_cast<double>(groups.size());
  const double bar_width = group_width * 0.8 / static_cast<double>(series.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const double group_left = kLeft + group_width * static_cast<double>(g) + group_width * 0.1;
    for (const auto& bar : groups[g].bars) {
      const size_t s = std::find(series.begin(), series.end(), bar.series) - series.begin();
      const double x = group_left + bar_width * static_cast<double>(s);
      const double y = y_of(std::max(bar.value, 0.0));
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>"
          "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"10\">{:.0f}</text>",
          x, y, bar_width * 0.92, kTop + kPlotHeight - y, colour(s), x + bar_width * 0.46, y - 3,
          bar.value);
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
                       group_left + group_width * 0.4, kTop + kPlotHeight + 18,
                       escape_xml(groups[g].label));
  }
  out += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#333\" "
      "stroke-dasharray=\"6 4\"/><text x=\"{2:.1f}\" y=\"{3:.1f}\" text-anchor=\"end\">{4}</text>",
      kLeft, y_of(reference), kLeft + kPlotWidth, y_of(reference) - 4,
      escape_xml(reference_label));
  return out + legend(series) + "</svg>";
}

std::string line_chart(const std::vector<LineSeries>& series, const std::string& x_label,
                       const std::string& y_label) {
  size_t longest = 0;
  double top = 0.0;
  for (const auto& line : series) {
    longest = std::max(longest, line.values.size());
    for (const double v : line.values) top = std::max(top, v);
  }
  if (longest == 0 || top <= 0.0) return "";
  top = axis_top(top);
  const double last_x = static_cast<double>(std::max<size_t>(longest - 1, 1));
  const auto x_of = [&](size_t i) { return kLeft + kPlotWidth * static_cast<double>(i) / last_x; };
  const auto y_of = [&](double v) { return kTop + kPlotHeight * (1.0 - v / top); };
  std::string out = open_svg(y_label) + linear_ticks(top) + axes(x_label, y_label);
  for (int i = 0; i <= 4; ++i) {
    const auto turn = static_cast<size_t>(std::lround(last_x * i / 4.0));
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
                       x_of(turn), kTop + kPlotHeight + 16, turn);
  }
  std::vector<std::string> names;
  for (size_t s = 0; s < series.size(); ++s) {
    const auto& values = series[s].values;
    names.push_back(series[s].name);
    if (values.empty()) continue;
    std::string points;
    for (size_t i = 0; i < values.size(); ++i) {
      points += fmt::format("{}{:.1f},{:.1f}", i == 0 ? "" : " ", x_of(i), y_of(values[i]));
    }
    out += fmt::format(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"{}\">{:.2f}</text>",
        points, colour(s), x_of(values.size() - 1), y_of(values.back()) - 6, colour(s),
        values.back());
  }
  return out + legend(names) + "</svg>";
}

std::string log_dot_chart(const std::vector<std::string>& categories,
                          const std::vector<std::optional<double>>& bounds,
                          const std::string& bound_label, const std::vector<DotSeries>& series,
                          const std::string& y_label) {
  double low = INFINITY;
  double high = 0.0;
  const auto include = [&](const std::optional<double>& v) {
    if (v && *v > 0.0) {
      low = std::min(low, *v);
      high = std::max(high, *v);
    }
  };
  for (const auto& bound : bounds) include(bound);
  for (const auto& s : series) {
    for (const auto& v : s.values) include(v);
  }
  if (categories.empty() || high <= 0.0) return "";
  const double decade_low = std::floor(std::log10(low));
  const double decade_high = std::max(std::ceil(std::log10(high)), decade_low + 1.0);
  const auto y_of = [&](double v) {
    return kTop + kPlotHeight * (1.0 - (std::log10(v) - decade_low) / (decade_high - decade_low));
  };
  std::string out = open_svg(y_label) + axes("workload", y_label);
  for (double d = decade_low; d <= decade_high; d += 1.0) {
    const double y = y_of(std::pow(10.0, d));
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>",
        kLeft, y, kLeft + kPlotWidth, kLeft - 6, y + 4,
        escape_xml(format_seconds(std::pow(10.0, d))));
  }
  const double slot = kPlotWidth / static_cast<double>(categories.size());
  for (size_t c = 0; c < categories.size(); ++c) {
    const double centre = kLeft + slot * (static_cast<double>(c) + 0.5);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", centre,
                       kTop + kPlotHeight + 18, escape_xml(categories[c]));
    if (c < bounds.size() && bounds[c]) {
      const double y = y_of(*bounds[c]);
      out += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#000\" "
          "stroke-width=\"3\"/><text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\">{}</text>",
          centre - slot * 0.4, y, centre + slot * 0.4, y, centre + slot * 0.4 - 30, y + 13,
          escape_xml(bound_label));
    }
    for (size_t s = 0; s < series.size(); ++s) {
      if (c >= series[s].values.size() || !series[s].values[c] || *series[s].values[c] <= 0.0) {
        continue;
      }
      const double spread = series.size() > 1 ? slot * 0.6 / static_cast<double>(series.size() - 1)
                                              : 0.0;
      const double x = centre - slot * 0.3 * (series.size() > 1 ? 1.0 : 0.0) +
                       spread * static_cast<double>(s);
      out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"/>", x,
                         y_of(*series[s].values[c]), colour(s));
    }
  }
  std::vector<std::string> names;
  for (const auto& s : series) names.push_back(s.name);
  return out + legend(names) + "</svg>";
}

}  // namespace d2k::report
