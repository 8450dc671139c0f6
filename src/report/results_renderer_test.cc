// docs/results.md's renderer on a store built here: one task measured on the H200 with its
// reference, baseline, expert and two anchors, an evaluation on another device that must not
// show, ceilings, and one latency that beats its bound.

#include "report/results_renderer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/report_builder.h"
#include "report/report_fixture_test_util.h"

namespace d2k::report {
namespace {

using testing::ScratchDir;

record::Environment h200() {
  record::Environment env;
  env.device_name = "NVIDIA H200";
  env.driver = "570.86";
  env.cuda = "12.8";
  env.torch = "2.9.0";
  env.triton = "3.5.0";
  env.python = "3.12.3";
  env.host = "gpu-host";
  env.d2k_version = "0.1.0";
  return env;
}

struct Measured {
  std::string workload;
  double ms = 0.0;        // 0: the workload failed
  double t_sol_ms = 0.0;  // 0: no bound
};

class ResultsRendererTest : public ::testing::Test {
 protected:
  void SetUp() override {
    record::DeviceCeilings ceilings;
    ceilings.matmul["bf16"] = {7.5e14, "cuBLAS"};
    ceilings.datasheet_matmul["bf16"] = {9.89e14, "datasheet (NVIDIA H200 SXM)"};
    ceilings.read = {4.2e12, "Triton streaming read"};
    ceilings.created_at = "2026-12-02T09:00:00Z";
    store_.ceilings().save(h200(), ceilings, {});

    save("reference", "", {{"w1", 10.0}, {"w2", 20.0}});
    save("baseline", "", {{"w1", 5.0}, {"w2", 10.0}});
    save("expert", "", {{"w1", 1.0, 0.5}, {"w2", 2.0, 3.0}});
    save("anchor", "torch_compile", {{"w1", 4.0}, {"w2", 8.0}});
    save("anchor", "cublas", {{"w1", 2.0}, {"w2", 0.0}});
    // Another device's expert, newer: a page is one device's.
    save("expert", "", {{"w1", 0.1}}, "NVIDIA H100");
    save("reference", "", {{"w1", 1.0}}, "NVIDIA H200", "u");
  }

  int64_t save(const std::string& kind, const std::string& anchor,
               const std::vector<Measured>& workloads, const std::string& device = "NVIDIA H200",
               const std::string& task = "t", const std::string& cache_policy = "cold") {
    record::EvaluationResult result;
    result.created_at = "2026-12-02T10:00:0" + std::to_string(counter_++) + "Z";
    result.task_id = task;
    result.impl_kind = kind;
    result.anchor = anchor;
    result.impl_path = "/tasks/" + task + "/" + kind + ".py";
    result.impl_hash = "h" + std::to_string(counter_);
    result.environment = h200();
    result.environment.device_name = device;
    for (const Measured& m : workloads) {
      record::WorkloadResult w;
      w.workload = m.workload;
      if (m.ms == 0.0) {
        w.verdict = record::Verdict::incorrect;
        w.reason_code = "output_mismatch";
      } else {
        w.verdict = record::Verdict::passed;
        record::Latency latency;
        latency.method = "events";
        latency.cache_policy = cache_policy;
        latency.mean_s = m.ms * 1e-3;
        latency.stdev_s = m.ms * 1e-5;
        latency.calls_per_sample = 7;
        latency.samples_s = {latency.mean_s, latency.mean_s, latency.mean_s};
        w.latency = latency;
      }
      if (m.t_sol_ms > 0.0) {
        record::SpeedOfLight sol;
        sol.flops = 1e12;
        sol.bytes = 1e9;
        sol.math_dtype = "bf16";
        sol.peak_flops_per_s = 9.89e14;
        sol.peak_bytes_per_s = 4.8e12;
        sol.flops_source = "datasheet (NVIDIA H200 SXM)";
        sol.bytes_source = "datasheet (NVIDIA H200 SXM)";
        sol.t_sol_s = m.t_sol_ms * 1e-3;
        sol.fraction = sol.t_sol_s / (m.ms * 1e-3);
        w.sol = sol;
      }
      result.workloads.push_back(w);
    }
    return store_.evaluations().save(result);
  }

  // The H100's expert is the newest; the page is asked for the H200.
  Report report() const {
    return build_report(store_, store_.agent_runs(), {.tasks = {}, .models = {}, .runs = {},
                                                      .device = "NVIDIA H200"});
  }
  std::string rendered() const { return ResultsRenderer().render(report(), {}); }

  ScratchDir dir_;
  store::Store store_ = store::Store::open(dir_.path() / "h200.sqlite");
  int counter_ = 0;
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(ResultsRendererTest, EveryImplementationPerWorkloadWithSpeedupsAndItsCommand) {
  const std::string page = rendered();
  EXPECT_TRUE(contains(page, "rendered from the store `h200.sqlite`")) << page;
  EXPECT_TRUE(contains(page, "tools/measure_results.sh results/h200.sqlite")) << page;
  EXPECT_TRUE(contains(page, "## t\n")) << page;
  EXPECT_TRUE(contains(page, "### w1\n")) << page;
  EXPECT_TRUE(contains(page, "| reference | #1 | 10 | 0.1 | 3 x 7 | events, cold | 1.00x | 0.50x |  | "
                             "`d2k eval t --impl reference --workload w1` |")) << page;
  EXPECT_TRUE(contains(page, "| expert | #3 | 1 | 0.01 | 3 x 7 | events, cold | 10.00x | 5.00x | "
                             "50.0 % | `d2k eval t --impl expert --workload w1` |")) << page;
  EXPECT_TRUE(contains(page, "| anchor torch_compile | #4 | 4 |")) << page;
  EXPECT_TRUE(contains(page, "`d2k eval t --anchor torch_compile --workload w2`")) << page;
  // A failing workload shows its verdict, not a latency.
  EXPECT_TRUE(contains(page, "| anchor cublas | #5 | incorrect (output_mismatch) |")) << page;
}

// A later run of one workload replaces that row only; a hot-cache study replaces none.
TEST_F(ResultsRendererTest, EachWorkloadFromTheNewestColdEvaluationThatRanIt) {
  const int64_t rerun = save("expert", "", {{"w2", 2.5}});
  save("expert", "", {{"w1", 0.9}, {"w2", 1.9}}, "NVIDIA H200", "t", "hot");
  const std::string page = rendered();
  EXPECT_TRUE(contains(page, "| expert | #3 | 1 | 0.01 | 3 x 7 | events, cold |")) << page;
  EXPECT_TRUE(contains(page, "| expert | #" + std::to_string(rerun) + " | 2.5 |")) << page;
  EXPECT_FALSE(contains(page, "events, hot")) << page;
  EXPECT_FALSE(contains(page, "| 0.9 |")) << page;
}

TEST_F(ResultsRendererTest, ExpertAgainstEachAnchor) {
  const std::string page = rendered();
  EXPECT_TRUE(contains(page, "| w1 | cublas | 2 | 1 | 2.00x |")) << page;
  EXPECT_TRUE(contains(page, "| w1 | torch_compile | 4 | 1 | 4.00x |")) << page;
  EXPECT_TRUE(contains(page, "| w2 | torch_compile | 8 | 2 | 4.00x |")) << page;
  EXPECT_FALSE(contains(page, "| w2 | cublas |")) << page;
}

TEST_F(ResultsRendererTest, TheBoundAndItsSourceAndALatencyAboveItFlagged) {
  const std::string page = rendered();
  EXPECT_TRUE(contains(page, "T_SOL = 0.5 ms (compute, bf16 989 TFLOP/s (datasheet (NVIDIA H200 SXM)))"))
      << page;
  EXPECT_TRUE(contains(page, "**150.0 % (above the bound)**")) << page;
  EXPECT_TRUE(contains(page, "- t / w2 / expert: 150.0 %")) << page;
  const Report built = report();
  ASSERT_EQ(built.results.over_sol.size(), 1u);
  EXPECT_EQ(built.results.over_sol[0].implementation, "expert");
}

TEST_F(ResultsRendererTest, OneDeviceWithItsEnvironmentAndCeilings) {
  const std::string page = rendered();
  EXPECT_FALSE(contains(page, "| expert | #6 |")) << "the H100's expert is on another page";
  EXPECT_TRUE(contains(page, "| Device | NVIDIA H200 |")) << page;
  EXPECT_TRUE(contains(page, "| PyTorch | 2.9.0 |")) << page;
  EXPECT_TRUE(contains(page, "| Triton | 3.5.0 |")) << page;
  EXPECT_TRUE(contains(page, "| bf16 matrix product | 989 TFLOP/s | datasheet (NVIDIA H200 SXM) |"))
      << page;
  EXPECT_TRUE(contains(page, "| memory bandwidth | 4200 GB/s | Triton streaming read |")) << page;
  // Task u has only a reference: what is missing is said, with its command.
  EXPECT_TRUE(contains(page, "- Missing: no expert evaluation (d2k eval u --impl expert)")) << page;
}

TEST_F(ResultsRendererTest, TheSameStoreRendersTheSamePage) {
  EXPECT_EQ(rendered(), rendered());
}

TEST(ResultsRendererEmptyTest, AStoreWithoutEvaluationsSaysSo) {
  ScratchDir dir;
  const store::Store store = store::Store::open(dir.path() / "h200.sqlite");
  const std::string page = ResultsRenderer().render(build_report(store, store.agent_runs(), {}), {});
  EXPECT_TRUE(contains(page, "The store holds no reference, baseline, expert or anchor evaluation."))
      << page;
}

}  // namespace
}  // namespace d2k::report
