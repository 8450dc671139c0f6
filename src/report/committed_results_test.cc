// docs/results.md is what the committed store renders, and no latency in it beats its bound.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "report/renderer_registry.h"
#include "report/report_builder.h"

namespace d2k::report {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = D2K_SOURCE_DIR;
const fs::path kStore = kSource / "results" / "h200.sqlite";

#define D2K_SKIP_WITHOUT_COMMITTED_STORE()                                                   \
  if (!fs::exists(kStore)) {                                                                 \
    GTEST_SKIP() << "results/h200.sqlite does not exist yet: it is measured on the H200 with " \
                    "tools/measure_results.sh and committed; until then docs/results.md "    \
                    "has no store to be checked against";                                    \
  }

Report committed_report() {
  const store::Store store = store::Store::open_read_only(kStore);
  return build_report(store, store.agent_runs(), {});
}

TEST(CommittedResults, DocsResultsIsWhatTheCommittedStoreRenders) {
  D2K_SKIP_WITHOUT_COMMITTED_STORE();
  std::ifstream in(kSource / "docs" / "results.md", std::ios::binary);
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), RendererRegistry::instance().get("results").render(committed_report(), {}))
      << "docs/results.md differs from what results/h200.sqlite renders; render it again: "
         "build/d2k report --store results/h200.sqlite --format results --output docs/results.md";
}

TEST(CommittedResults, NoCommittedLatencyBeatsItsSpeedOfLightBound) {
  D2K_SKIP_WITHOUT_COMMITTED_STORE();
  for (const OverSpeedOfLight& over : committed_report().results.over_sol) {
    ADD_FAILURE() << over.task_id << " / " << over.workload << " / " << over.implementation
                  << " reaches " << over.fraction * 100.0
                  << " % of its speed-of-light bound: the bound or its work model is wrong";
  }
}

}  // namespace
}  // namespace d2k::report
