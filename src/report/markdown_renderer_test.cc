#include "report/markdown_renderer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "report/report_builder.h"
#include "report/report_fixture_test_util.h"

namespace d2k::report {
namespace {

const std::filesystem::path kGolden =
    std::filesystem::path(D2K_TEST_FIXTURES) / "report" / "paper_fixture.md";

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Where two texts part, line by line, for a readable failure.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected);
  std::istringstream a(actual);
  std::string e_line;
  std::string a_line;
  for (int line = 1;; ++line) {
    const bool more_e = static_cast<bool>(std::getline(e, e_line));
    const bool more_a = static_cast<bool>(std::getline(a, a_line));
    if (!more_e && !more_a) return "no line differs";
    if (!more_e || !more_a || e_line != a_line) {
      return "first difference at line " + std::to_string(line) + ":\n  expected: " +
             (more_e ? e_line : "<end>") + "\n  actual:   " + (more_a ? a_line : "<end>");
    }
  }
}

// The whole Markdown report of the paper fixture, compared with the reviewed text. After an
// intended change, D2K_UPDATE_GOLDEN=1 rewrites the file; review its diff before committing.
TEST(MarkdownGoldenTest, PaperFixtureMatchesTheExpectedText) {
  testing::ScratchDir dir;
  testing::FixtureStore fixture(dir.path() / "store.sqlite");
  testing::fill_paper_fixture(fixture);
  const store::AgentStore agents = store::Store::open(fixture.path()).agent_runs();
  const std::string markdown =
      MarkdownRenderer().render(build_report(fixture.store(), agents, {}), {});
  const char* update = std::getenv("D2K_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(kGolden.parent_path());
    std::ofstream(kGolden, std::ios::binary) << markdown;
  }
  ASSERT_TRUE(std::filesystem::exists(kGolden)) << kGolden;
  EXPECT_EQ(markdown, read(kGolden)) << first_difference(read(kGolden), markdown);
}

TEST(MarkdownRendererTest, EscapesPipesInCells) {
  Report report;
  report.tasks = {"a|b"};
  report.table4.rows.push_back({.implementation = "x|y", .config = "", .correct = 1,
                                .speedup = 1.5});
  const std::string markdown = MarkdownRenderer().render(report, {});
  EXPECT_NE(markdown.find("| x\\|y | — | 1 | 1.50x |"), std::string::npos) << markdown;
}

}  // namespace
}  // namespace d2k::report
