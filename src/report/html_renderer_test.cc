#include "report/html_renderer.h"

#include <gtest/gtest.h>

#include <fstream>

#include "report/headless_chromium_test_util.h"
#include "report/report_builder.h"
#include "report/report_fixture_test_util.h"

namespace d2k::report {
namespace {

using testing::load_page;
using testing::png_size;

constexpr int kWidth = 1280;
constexpr int kHeight = 1800;

class HtmlRendererTest : public ::testing::Test {
 protected:

  std::string render(bool with_fixture) {
    testing::FixtureStore fixture(dir_.path() / "store.sqlite");
    if (with_fixture) testing::fill_paper_fixture(fixture);
    const store::AgentStore agents = store::Store::open(fixture.path()).agent_runs();
    return HtmlRenderer().render(build_report(fixture.store(), agents, {}), {});
  }

  std::filesystem::path write(const std::string& name, const std::string& html) {
    const auto path = dir_.path() / name;
    std::ofstream(path, std::ios::binary) << html;
    return path;
  }

  testing::ScratchDir dir_;
};

// The tests that load pages in the browser.
class HtmlInChromiumTest : public HtmlRendererTest {
 protected:
  void SetUp() override {
    if (testing::chromium_available()) return;
    const std::string missing =
        "no " + testing::chromium_binary() + " on PATH: install it (tools/install_deps.sh)";
    if (std::getenv("D2K_REQUIRE_CHROMIUM") != nullptr) FAIL() << missing;
    GTEST_SKIP() << missing;
  }
};

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// Inserts `element` just before </head>.
std::string with_in_head(std::string html, const std::string& element) {
  html.insert(html.find("</head>"), element);
  return html;
}

TEST_F(HtmlRendererTest, IsOneSelfContainedPageWithCharts) {
  const std::string html = render(true);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  // Figure 3's bars, Figure 4's line, and one chart per task.
  EXPECT_NE(html.find("<rect x="), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  size_t charts = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    ++charts;
  }
  EXPECT_EQ(charts, 4u);
  EXPECT_NE(html.find("no SOL"), std::string::npos);
}

TEST_F(HtmlInChromiumTest, LoadsInHeadlessChromiumWithoutConsoleErrors) {
  const auto page = write("report.html", render(true));
  const auto png = dir_.path() / "report.png";
  const testing::PageLoad load = load_page(page, png, kWidth, kHeight, dir_.path());
  ASSERT_TRUE(load.exited && load.status == 0)
      << "is Chromium installed (tools/install_deps.sh)?\n" << load.log;
  EXPECT_TRUE(load.console.empty()) << joined(load.console);
  ASSERT_TRUE(std::filesystem::exists(png)) << load.log;
  EXPECT_GT(std::filesystem::file_size(png), 10'000u);  // a blank page compresses to ~3 kB
  const auto size = png_size(png);
  ASSERT_TRUE(size);
  EXPECT_EQ(size->width, static_cast<uint32_t>(kWidth));
  EXPECT_EQ(size->height, static_cast<uint32_t>(kHeight));
}

TEST_F(HtmlInChromiumTest, EmptyStoreReportLoadsCleanly) {
  const auto page = write("empty.html", render(false));
  const testing::PageLoad load = load_page(page, dir_.path() / "empty.png", 800, 600, dir_.path());
  ASSERT_TRUE(load.exited && load.status == 0) << load.log;
  EXPECT_TRUE(load.console.empty()) << joined(load.console);
  EXPECT_TRUE(png_size(dir_.path() / "empty.png"));
}

// The check itself must catch broken pages: a script error, and the report's own page made to
// fetch a stylesheet or run a script, which its Content-Security-Policy refuses and logs.
TEST_F(HtmlInChromiumTest, ConsoleCheckCatchesBrokenPages) {
  const std::string report = render(true);
  const std::vector<std::pair<std::string, std::string>> broken = {
      {"script_error.html",
       "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>"
       "<script>missing_function();</script></body></html>"},
      {"external_style.html",
       with_in_head(report, "<link rel=\"stylesheet\" href=\"https://example.invalid/a.css\">")},
      {"inline_script.html", with_in_head(report, "<script>document.title = 'x';</script>")},
  };
  for (const auto& [name, html] : broken) {
    const testing::PageLoad load =
        load_page(write(name, html), dir_.path() / (name + ".png"), 800, 600, dir_.path());
    ASSERT_TRUE(load.exited) << load.log;
    EXPECT_FALSE(load.console.empty()) << name << " was not caught\n" << load.log;
  }
}

TEST(PngSizeTest, RejectsFilesThatAreNotPng) {
  testing::ScratchDir dir;
  const auto path = dir.path() / "not.png";
  std::ofstream(path) << "GIF89a and then some more bytes to be long enough";
  EXPECT_FALSE(png_size(path));
  EXPECT_FALSE(png_size(dir.path() / "absent.png"));
}

}  // namespace
}  // namespace d2k::report
