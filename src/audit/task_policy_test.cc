#include "audit/task_policy.h"

#include <filesystem>

#include <gtest/gtest.h>

namespace d2k::audit {
namespace {

task::ImplementationRules rules_without_libraries() {
  task::ImplementationRules rules = task::default_implementation_rules();
  rules.forbidden_libraries.clear();
  return rules;
}

TEST(TaskPolicyTest, TheDefaultRulesForbidLibraryComputeOnly) {
  // The defaults forbid cuBLAS, cuBLASLt and cuDNN for native candidates; the audit applies the
  // same to the kernels any candidate runs.
  const AuditPolicy policy = audit_policy(task::default_implementation_rules(), std::nullopt);
  EXPECT_TRUE(policy.library_compute_forbidden);
  EXPECT_FALSE(policy.aten_compute_forbidden);
  EXPECT_FALSE(policy.custom_kernels_required);
  EXPECT_FALSE(policy.peak_aux_bytes_limit.has_value());
  EXPECT_FALSE(policy.host_sync_allowed);
}

TEST(TaskPolicyTest, RequiredCustomKernelsSetAllThreeFlags) {
  task::ImplementationRules rules = rules_without_libraries();
  rules.custom_kernels_required = true;
  const AuditPolicy policy = audit_policy(rules, std::nullopt);
  EXPECT_TRUE(policy.library_compute_forbidden);
  EXPECT_TRUE(policy.aten_compute_forbidden);
  EXPECT_TRUE(policy.custom_kernels_required);
}

TEST(TaskPolicyTest, EachComputeLibraryForbidsLibraryKernelsOnItsOwn) {
  for (const char* library : {"cublas", "cublasLt", "cudnn"}) {
    task::ImplementationRules rules = rules_without_libraries();
    rules.forbidden_libraries = {library};
    EXPECT_TRUE(audit_policy(rules, std::nullopt).library_compute_forbidden) << library;
  }
}

TEST(TaskPolicyTest, OtherLibrariesAndNoneLeaveLibraryKernelsAllowed) {
  task::ImplementationRules rules = rules_without_libraries();
  EXPECT_FALSE(audit_policy(rules, std::nullopt).library_compute_forbidden);
  rules.forbidden_libraries = {"cufft", "cutlass", "mkl"};
  const AuditPolicy policy = audit_policy(rules, std::nullopt);
  EXPECT_FALSE(policy.library_compute_forbidden);
  EXPECT_FALSE(policy.aten_compute_forbidden);
  EXPECT_FALSE(policy.custom_kernels_required);
}

TEST(TaskPolicyTest, AStatedReasonAllowsHostRoundTrips) {
  task::ImplementationRules rules = task::default_implementation_rules();
  rules.host_sync_reason = "the per-expert counts size the launches";
  EXPECT_TRUE(audit_policy(rules, std::nullopt).host_sync_allowed);
}

// fused_moe's contract allows a host round trip (its baseline reads the routing counts back);
// no other task of the repository does.
TEST(TaskPolicyTest, OnlyTheMoeTaskOfTheRepositoryAllowsHostRoundTrips) {
  const std::filesystem::path tasks = std::filesystem::path(D2K_SOURCE_DIR) / "tasks";
  for (const auto& entry : std::filesystem::directory_iterator(tasks)) {
    const auto file = entry.path() / "implementation_requirements.yaml";
    if (!std::filesystem::exists(file)) continue;
    const AuditPolicy policy = audit_policy(task::read_implementation_rules(file), std::nullopt);
    EXPECT_EQ(policy.host_sync_allowed, entry.path().filename() == "fused_moe") << entry.path();
  }
}

TEST(TaskPolicyTest, CarriesTheWorkloadsPeakBound) {
  EXPECT_EQ(audit_policy(rules_without_libraries(), int64_t{1} << 30).peak_aux_bytes_limit,
            int64_t{1} << 30);
}

}  // namespace
}  // namespace d2k::audit
