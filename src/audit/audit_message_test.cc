#include "audit/audit_message.h"

#include <gtest/gtest.h>

#include "audit/audit_rules.h"

namespace d2k::audit {
namespace {

record::AuditedKernel launch(std::string name, uint64_t stream, double seconds) {
  record::AuditedKernel k;
  k.name = std::move(name);
  k.stream = stream;
  k.duration_s = seconds;
  return k;
}

TEST(FitMessageTest, KeepsASmallAuditAsItIs) {
  record::KernelAudit audit;
  audit.kernels = {launch("a", 7, 1e-6), launch("a", 7, 2e-6)};
  EXPECT_EQ(nlohmann::json(fit_message(audit, 4)), nlohmann::json(audit));
}

TEST(FitMessageTest, MergesRepeatedLaunchesWithoutChangingTheFindings) {
  record::KernelAudit audit;
  audit.harness_stream = 7;
  for (int i = 0; i < 100; ++i) {
    audit.kernels.push_back(launch("mine", 7, 1e-6));
    audit.kernels.push_back(
        launch("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
               7, 1e-6));
  }
  audit.kernels.push_back(launch("hidden", 9, 1e-6));
  for (int i = 0; i < 10; ++i) audit.transfers.push_back({"memcpy", "DtoH", 100, 0, 7});
  for (int i = 0; i < 10; ++i) audit.synchronizations.push_back({"stream_synchronize", 7});
  AuditPolicy policy;
  policy.aten_compute_forbidden = true;
  policy.custom_kernels_required = true;

  const record::KernelAudit fitted = fit_message(audit, 8);
  ASSERT_EQ(fitted.kernels.size(), 3u);
  EXPECT_EQ(fitted.kernels[0].name, "mine");
  EXPECT_NEAR(fitted.kernels[0].duration_s, 100e-6, 1e-12);
  EXPECT_EQ(fitted.kernels[0].launches, 100u);
  ASSERT_EQ(fitted.transfers.size(), 1u);
  EXPECT_EQ(fitted.transfers[0].bytes, 1000u);
  ASSERT_EQ(fitted.synchronizations.size(), 1u);
  // Torch glue over its share, the side stream, the round trips; the last names the merged copy.
  const auto findings = audit_findings(audit, policy);
  const auto fitted_findings = audit_findings(fitted, policy);
  ASSERT_EQ(findings.size(), 3u);
  ASSERT_EQ(fitted_findings.size(), 3u);
  for (size_t i = 0; i < findings.size(); ++i) {
    EXPECT_EQ(fitted_findings[i].reason_code, findings[i].reason_code);
    EXPECT_EQ(fitted_findings[i].message, findings[i].message);
  }
  EXPECT_EQ(fitted_findings[2].evidence,
            (std::vector<std::string>{"memcpy DtoH of 1000 bytes on stream 7",
                                      "stream_synchronize of stream 7"}));
}

TEST(FitMessageTest, CountsMergedLaunchesInWhatItSays) {
  record::KernelAudit audit;
  for (int i = 0; i < 10; ++i) {
    audit.kernels.push_back(launch("k" + std::to_string(i % 5), 7, 1e-6));
  }
  const record::KernelAudit fitted = fit_message(audit, 4);
  EXPECT_EQ(fitted.unavailable,
            "the call launched 10 kernels of 5 distinct names and streams, more than an audit "
            "carries (4 entries)");
}

TEST(FitMessageTest, SaysSoWhenEvenTheMergedAuditIsTooLarge) {
  record::KernelAudit audit;
  audit.tracer = "CUPTI";
  for (int i = 0; i < 10; ++i) audit.kernels.push_back(launch("k" + std::to_string(i), 7, 1e-6));
  const record::KernelAudit fitted = fit_message(audit, 4);
  EXPECT_TRUE(fitted.kernels.empty());
  EXPECT_EQ(fitted.tracer, "CUPTI");
  EXPECT_EQ(fitted.unavailable,
            "the call launched 10 kernels of 10 distinct names and streams, more than an audit "
            "carries (4 entries)");
}

}  // namespace
}  // namespace d2k::audit
