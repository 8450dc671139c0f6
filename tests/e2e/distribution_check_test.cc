// End-to-end tests of the distribution check: the real `d2k eval` evaluates samplers for the
// CPU fixture task cpu_sampling in worker processes. Each candidate under
// tests/fixtures/solutions/cpu_sampling/ declares the verdict (and reason, message parts) every
// workload must get, in `# expect-...:` header lines.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "d2k_run.h"
#include "util/expect_header_test_util.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kTask = "cpu_sampling";

struct Sampler {
  fs::path file;
  std::string verdict;
  std::optional<std::string> reason;
  std::vector<std::string> messages;
};

void PrintTo(const Sampler& sampler, std::ostream* os) { *os << sampler.file.filename().string(); }

std::vector<Sampler> samplers() {
  std::vector<Sampler> result;
  for (const auto& entry : fs::directory_iterator(kFixtures / "solutions" / kTask)) {
    if (entry.path().extension() != ".py") continue;
    const util::ExpectHeader header = util::read_expect_header(entry.path());
    result.push_back(Sampler{header.file, header.verdict, header.reason, header.messages});
  }
  std::sort(result.begin(), result.end(),
            [](const Sampler& a, const Sampler& b) { return a.file < b.file; });
  return result;
}

std::string test_name(const ::testing::TestParamInfo<Sampler>& info) {
  std::string name = info.param.file.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// The fit test's evidence on a passing workload: one output check naming the chi-square fit.
bool has_fit_evidence(const json& workload) {
  for (const auto& trial : workload.at("trials")) {
    for (const auto& output : trial.at("outputs")) {
      if (contains(output.value("name", ""), "chi-square fit of")) return true;
    }
  }
  return false;
}

class DistributionCheckE2eTest : public ::testing::TestWithParam<Sampler> {};

TEST_P(DistributionCheckE2eTest, EveryWorkloadGetsTheDeclaredVerdict) {
  const Sampler& sampler = GetParam();
  ASSERT_FALSE(sampler.verdict.empty()) << sampler.file << " has no expect-verdict header";
  D2kRun run;
  const RunResult result =
      run.d2k({"eval", task_dir(kTask).string(), "--solution", sampler.file.string(), "--json"});
  ASSERT_TRUE(result.exited) << result.err;
  const json evaluation = parse_evaluation(result);
  ASSERT_TRUE(evaluation.is_object()) << result.err;
  const auto labels = workload_labels(kTask);
  const json& workloads = evaluation.at("workloads");
  ASSERT_EQ(workloads.size(), labels.size()) << result.err;
  for (const json& workload : workloads) {
    SCOPED_TRACE(workload.at("workload").get<std::string>() + ": " + workload.value("message", ""));
    EXPECT_EQ(workload.at("verdict"), sampler.verdict);
    if (sampler.reason) EXPECT_EQ(workload.at("reason_code"), *sampler.reason);
    for (const auto& part : sampler.messages) {
      EXPECT_TRUE(contains(workload.at("message"), part)) << "message lacks: " << part;
    }
    if (sampler.verdict == "passed") EXPECT_TRUE(has_fit_evidence(workload));
  }
  EXPECT_EQ(result.status, sampler.verdict == "passed" ? 0 : 1) << result.err;
}

INSTANTIATE_TEST_SUITE_P(Samplers, DistributionCheckE2eTest, ::testing::ValuesIn(samplers()),
                         test_name);

TEST(DistributionCheckE2eReferenceTest, TheReferenceSamplerPasses) {
  D2kRun run;
  const RunResult result =
      run.d2k({"eval", task_dir(kTask).string(), "--impl", "reference", "--json", "--no-cache"});
  ASSERT_TRUE(result.exited) << result.err;
  const json evaluation = parse_evaluation(result);
  ASSERT_TRUE(evaluation.is_object()) << result.err;
  for (const json& workload : evaluation.at("workloads")) {
    EXPECT_EQ(workload.at("verdict"), "passed") << workload.value("message", "");
    EXPECT_TRUE(has_fit_evidence(workload));
  }
  EXPECT_EQ(result.status, 0) << result.err;
}

}  // namespace
}  // namespace d2k::e2e
