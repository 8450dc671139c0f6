#include "audit/audit_rules.h"

#include <gtest/gtest.h>

namespace d2k::audit {
namespace {

constexpr uint64_t kHarnessStream = 13;

record::AuditedKernel kernel(const std::string& name, double duration_s = 1e-3,
                             uint64_t stream = kHarnessStream, uint32_t device = 0) {
  record::AuditedKernel k;
  k.name = name;
  k.stream = stream;
  k.device = device;
  k.duration_s = duration_s;
  return k;
}

record::KernelAudit audit_of(std::vector<record::AuditedKernel> kernels) {
  record::KernelAudit audit;
  audit.harness_stream = kHarnessStream;
  audit.kernels = std::move(kernels);
  return audit;
}

// The Muon task's rules: custom kernels required, PyTorch and libraries only as glue.
AuditPolicy strict() {
  AuditPolicy policy;
  policy.library_compute_forbidden = true;
  policy.aten_compute_forbidden = true;
  policy.custom_kernels_required = true;
  return policy;
}

const std::string kFill =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >";
const std::string kCublas = "nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_TNT";
const std::string kNorm =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::NormTwoOps<float, float, float> > >";

std::vector<std::string> codes(const std::vector<record::Finding>& findings) {
  std::vector<std::string> result;
  for (const auto& f : findings) result.push_back(f.reason_code);
  return result;
}

TEST(AuditRulesTest, CustomKernelsWithALittleGlueAreValid) {
  const auto audit = audit_of({kernel(kFill, 1e-5), kernel("ns_step", 1e-3), kernel("ns_step", 1e-3)});
  EXPECT_TRUE(audit_findings(audit, strict()).empty());
}

TEST(AuditRulesTest, LibraryAndTorchComputeAreFoundWithTheirKernels) {
  const auto audit = audit_of({kernel(kNorm), kernel(kCublas), kernel(kCublas), kernel("ns_step")});
  const auto findings = audit_findings(audit, strict());
  ASSERT_EQ(codes(findings), (std::vector<std::string>{"library_compute", "torch_compute"}));
  EXPECT_EQ(findings[0].evidence, (std::vector<std::string>{kCublas}));  // once, not twice
  EXPECT_EQ(findings[0].rule, "runtime_audit:library_compute");
  EXPECT_EQ(findings[1].evidence, (std::vector<std::string>{kNorm}));
}

TEST(AuditRulesTest, APermissiveTaskAllowsLibrariesAndTorch) {
  const auto audit = audit_of({kernel(kNorm), kernel(kCublas)});
  EXPECT_TRUE(audit_findings(audit, AuditPolicy{}).empty());
}

TEST(AuditRulesTest, GlueOverItsShareOfKernelTimeIsAFinding) {
  const auto audit = audit_of({kernel(kFill, 2e-4), kernel("ns_step", 8e-4)});
  const auto findings = audit_findings(audit, strict());
  ASSERT_EQ(codes(findings), (std::vector<std::string>{"glue_limit"}));
  EXPECT_NE(findings[0].message.find("20.0%"), std::string::npos) << findings[0].message;
  AuditPolicy looser = strict();
  looser.glue_time_share_limit = 0.25;
  EXPECT_TRUE(audit_findings(audit, looser).empty());
}

TEST(AuditRulesTest, NoKernelOrOnlyForeignKernelsBreakTheCustomKernelRule) {
  auto findings = audit_findings(audit_of({}), strict());
  ASSERT_EQ(codes(findings), (std::vector<std::string>{"no_custom_kernel"}));
  EXPECT_NE(findings[0].message.find("no kernel"), std::string::npos);
  findings = audit_findings(audit_of({kernel(kCublas)}), strict());
  EXPECT_EQ(codes(findings), (std::vector<std::string>{"library_compute", "no_custom_kernel"}));
  AuditPolicy optional = strict();
  optional.custom_kernels_required = false;
  optional.library_compute_forbidden = false;
  EXPECT_TRUE(audit_findings(audit_of({kernel(kCublas)}), optional).empty());
}

TEST(AuditRulesTest, WorkOffTheHarnessStreamOrDeviceIsFound) {
  record::KernelAudit audit = audit_of({kernel("ns_step"), kernel("ns_side", 1e-3, 99)});
  audit.transfers = {{.operation = "memcpy", .kind = "DtoD", .bytes = 64, .device = 1, .stream = 5},
                     {.operation = "memset", .kind = "", .bytes = 32, .device = 0, .stream = kHarnessStream}};
  const auto findings = audit_findings(audit, AuditPolicy{});
  ASSERT_EQ(codes(findings), (std::vector<std::string>{"side_stream", "other_device"}));
  EXPECT_EQ(findings[0].evidence, (std::vector<std::string>{"ns_side on stream 99"}));
  EXPECT_EQ(findings[1].evidence, (std::vector<std::string>{"memcpy DtoD of 64 bytes on device 1"}));
}

TEST(AuditRulesTest, PeakAuxiliaryMemoryOverTheBoundIsFound) {
  record::KernelAudit audit = audit_of({kernel("ns_step")});
  audit.peak_aux_bytes = 2048;
  AuditPolicy policy;
  policy.peak_aux_bytes_limit = 1024;
  const auto findings = audit_findings(audit, policy);
  ASSERT_EQ(codes(findings), (std::vector<std::string>{"peak_memory"}));
  EXPECT_NE(findings[0].message.find("2048"), std::string::npos);
  policy.peak_aux_bytes_limit = 2048;  // at the bound is within it
  EXPECT_TRUE(audit_findings(audit, policy).empty());
  audit.peak_aux_bytes.reset();  // unmeasured: nothing to hold against the bound
  policy.peak_aux_bytes_limit = 1;
  EXPECT_TRUE(audit_findings(audit, policy).empty());
}

TEST(AuditRulesTest, EvidenceIsBounded) {
  std::vector<record::AuditedKernel> kernels;
  for (int i = 0; i < 20; ++i) kernels.push_back(kernel("k" + std::to_string(i), 1e-3, 40 + i));
  const auto findings = audit_findings(audit_of(kernels), AuditPolicy{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].evidence.size(), kEvidenceLimit);
}

}  // namespace
}  // namespace d2k::audit
