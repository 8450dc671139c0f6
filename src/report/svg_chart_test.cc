#include "report/svg_chart.h"

#include <gtest/gtest.h>

namespace d2k::report {
namespace {

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(SvgChartTest, NothingToDrawGivesNoChart) {
  EXPECT_EQ(bar_chart({}, 100, "x", "y"), "");
  EXPECT_EQ(line_chart({{"a", {}}}, "x", "y"), "");
  EXPECT_EQ(log_dot_chart({"w"}, {std::nullopt}, "T", {{"a", {std::nullopt}}}, "y"), "");
}

TEST(SvgChartTest, BarsOnePerValueWithLegend) {
  const std::string svg = bar_chart({{"m1", {{"none", 50}, {"L1", 80}}}, {"m2", {{"none", 120}}}},
                                    100, "Expert = 100 %", "percent");
  // Three bars and two legend swatches.
  EXPECT_EQ(count(svg, "<rect"), 5u);
  EXPECT_NE(svg.find(">120</text>"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
}

TEST(SvgChartTest, LogChartPutsFasterLower) {
  const std::string svg =
      log_dot_chart({"w"}, {1e-4}, "T_SOL", {{"slow", {1e-2}}, {"fast", {1e-3}}}, "latency");
  const auto cy = [&](const std::string& fill) {
    const size_t at = svg.find("fill=\"" + fill + "\"/>");
    const size_t start = svg.rfind("cy=\"", at) + 4;
    return std::stod(svg.substr(start));
  };
  EXPECT_LT(cy("#0072B2"), cy("#E69F00"));  // the slow dot is higher on the page (smaller y)
  EXPECT_NE(svg.find(">T_SOL</text>"), std::string::npos);
}

TEST(SvgChartTest, TextIsEscaped) {
  EXPECT_EQ(escape_xml("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
  const std::string svg = line_chart({{"<m>", {1.0, 2.0}}}, "turn", "S");
  EXPECT_EQ(svg.find("<m>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;m&gt;"), std::string::npos);
}

}  // namespace
}  // namespace d2k::report
