#include "report/csv_renderer.h"

#include <gtest/gtest.h>

#include "report/json_renderer.h"
#include "report/renderer_registry.h"
#include "report/report_builder.h"
#include "report/report_fixture_test_util.h"

namespace d2k::report {
namespace {

class RenderersTest : public ::testing::Test {
 protected:
  RenderersTest() : fixture_(dir_.path() / "store.sqlite") {
    testing::fill_paper_fixture(fixture_);
    const store::AgentStore agents = store::Store::open(fixture_.path()).agent_runs();
    report_ = build_report(fixture_.store(), agents, {});
  }

  testing::ScratchDir dir_;
  testing::FixtureStore fixture_;
  Report report_;
};

TEST_F(RenderersTest, CsvTableHoldsUnroundedValues) {
  const std::string csv = CsvRenderer().render(report_, {.table = "table1"});
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "Implementation,Configuration,Correct,Tasks,S_perf,Without run");
  EXPECT_NE(csv.find("\nfixture-agent / m-one,L1+L2+L3,2,2,2.82842712474619"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nfixture-agent / m-two,none,1,2,0.7071067811865"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nBaseline,,2,2,1,\n"), std::string::npos) << csv;  // blanks stay empty
  EXPECT_EQ(csv.find('#'), std::string::npos);
}

TEST_F(RenderersTest, CsvWithoutTableHasEveryTableAndItsGaps) {
  const std::string csv = CsvRenderer().render(report_, {});
  for (const char* id : {"table1", "table2_design", "table2_impl", "table4", "table5", "table6",
                         "figure3", "figure4", "task:alpha", "task:beta"}) {
    EXPECT_NE(csv.find(std::string("# ") + id + "\n"), std::string::npos) << id;
  }
  EXPECT_NE(csv.find("# missing: no SOL"), std::string::npos);
  // A latency in seconds; a percentage in percent.
  EXPECT_NE(csv.find("\na2,0.001,0.016,0.008,0.002,0.004,0.002,0.008\n"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nOverall,none,25,25,0\n"), std::string::npos) << csv;
}

TEST_F(RenderersTest, CsvQuotesFieldsWithCommas) {
  const std::string csv = CsvRenderer().render(report_, {.table = "table2_design"});
  EXPECT_NE(csv.find("\nfixture-agent / m-two,,,,,\"alpha, beta\"\n"), std::string::npos) << csv;
}

TEST_F(RenderersTest, CsvUnknownTableListsTheKnownOnes) {
  try {
    CsvRenderer().render(report_, {.table = "table3"});
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("table2_impl"), std::string::npos);
  }
}

TEST_F(RenderersTest, JsonIsTheDataModel) {
  const auto j = nlohmann::json::parse(JsonRenderer().render(report_, {}));
  EXPECT_EQ(j["tasks"], (nlohmann::json{"alpha", "beta"}));
  EXPECT_DOUBLE_EQ(j["table1"]["rows"][2]["sperf"].get<double>(), 2.0);
  EXPECT_TRUE(j["table2"]["design"][1]["js_design"].is_null());
  EXPECT_EQ(j["figure4"]["series"][0]["sperf_by_turn"].size(), 5u);
  EXPECT_TRUE(j["task_views"][1]["t_sol_s"][0].is_null());
  EXPECT_EQ(j["task_views"][1]["missing"][0]["command"],
            "d2k doctor (measures the device's ceilings), then d2k eval beta --impl baseline "
            "--no-cache");
}

TEST(RendererRegistryTest, ListsEveryFormatAndRejectsOthers) {
  const auto& registry = RendererRegistry::instance();
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"md", "csv", "json", "html", "results"}));
  EXPECT_FALSE(registry.description("html").empty());
  EXPECT_THROW(registry.get("pdf"), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::report
