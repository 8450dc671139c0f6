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

// The content-fingerprint cache: a 4-byte read-back and a wait for it inside the call.
TEST(AuditRulesTest, HostRoundTripsAreFoundUnlessTheTaskAllowsThem) {
  record::KernelAudit audit = audit_of({kernel("fingerprint"), kernel("ns_step")});
  audit.transfers = {
      {.operation = "memcpy", .kind = "DtoH", .bytes = 4, .device = 0, .stream = kHarnessStream},
      {.operation = "memcpy", .kind = "HtoD", .bytes = 64, .device = 0, .stream = kHarnessStream},
      {.operation = "memcpy", .kind = "DtoD", .bytes = 64, .device = 0, .stream = kHarnessStream},
      {.operation = "memset", .kind = "", .bytes = 32, .device = 0, .stream = kHarnessStream}};
  audit.synchronizations = {{.kind = "stream_wait_event", .stream = kHarnessStream},
                            {.kind = "stream_synchronize", .stream = kHarnessStream},
                            {.kind = "context_synchronize", .stream = std::nullopt},
                            {.kind = "unknown", .stream = std::nullopt}};
  const auto findings = audit_findings(audit, strict());
  ASSERT_EQ(codes(findings), (std::vector<std::string>{"host_sync"}));
  EXPECT_EQ(findings[0].rule, "runtime_audit:host_sync");
  EXPECT_EQ(findings[0].evidence,
            (std::vector<std::string>{"memcpy DtoH of 4 bytes on stream 13",
                                      "stream_synchronize of stream 13", "context_synchronize"}));
  AuditPolicy allowing = strict();
  allowing.host_sync_allowed = true;
  EXPECT_TRUE(audit_findings(audit, allowing).empty());
}

TEST(AuditRulesTest, CopiesBetweenDeviceBuffersAndStreamWaitsAreNoRoundTrip) {
  record::KernelAudit audit = audit_of({kernel("ns_step")});
  audit.transfers = {
      {.operation = "memcpy", .kind = "HtoD", .bytes = 64, .device = 0, .stream = kHarnessStream},
      {.operation = "memcpy", .kind = "DtoD", .bytes = 64, .device = 0, .stream = kHarnessStream}};
  audit.synchronizations = {{.kind = "stream_wait_event", .stream = kHarnessStream}};
  EXPECT_TRUE(audit_findings(audit, strict()).empty());
}

// Host computation with a copy back and no kernel: the missing kernel is named first, as the
// Python exploit of that class expects; the round trips follow, then the memory bound.
TEST(AuditRulesTest, HostSyncComesAfterTheKernelAndStreamRulesAndBeforeTheMemoryBound) {
  record::KernelAudit audit = audit_of({});
  audit.transfers = {
      {.operation = "memcpy", .kind = "DtoH", .bytes = 4096, .device = 0, .stream = kHarnessStream},
      {.operation = "memcpy", .kind = "HtoD", .bytes = 4096, .device = 0, .stream = 7}};
  audit.peak_aux_bytes = 2048;
  AuditPolicy policy = strict();
  policy.peak_aux_bytes_limit = 1024;
  EXPECT_EQ(
      codes(audit_findings(audit, policy)),
      (std::vector<std::string>{"no_custom_kernel", "side_stream", "host_sync", "peak_memory"}));
}

TEST(AuditRulesTest, EvidenceIsBounded) {
  std::vector<record::AuditedKernel> kernels;
  for (int i = 0; i < 20; ++i) kernels.push_back(kernel("k" + std::to_string(i), 1e-3, 40 + i));
  const auto findings = audit_findings(audit_of(kernels), AuditPolicy{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].evidence.size(), kEvidenceLimit);
}

// The work comparison (docs/protocol.md, "Runtime audit"): the Muon fingerprint cache measured
// on the H200 ran 18 kernels for about 148 ms on fresh inputs, and on the timed inputs one small
// kernel and a 716 MB device-to-device copy of the stored output.
record::KernelAudit muon_fresh() {
  std::vector<record::AuditedKernel> kernels{
      kernel("fingerprint", 4e-6), kernel("sumsq_kernel", 3e-4), kernel("normalize_kernel", 4e-4)};
  for (int i = 0; i < 15; ++i) kernels.push_back(kernel("gemm_kernel<true, __half>", 9.8e-3));
  return audit_of(kernels);
}

record::KernelAudit muon_cached() {
  record::KernelAudit audit = audit_of({kernel("fingerprint", 4e-6)});
  audit.transfers = {{.operation = "memcpy", .kind = "DtoD", .bytes = 716177408, .device = 0,
                      .stream = kHarnessStream}};
  return audit;
}

TEST(WorkFindingsTest, ACallOnTimedInputsDoingAFractionOfTheWorkIsCachedWork) {
  const auto findings = work_findings(muon_fresh(), muon_cached(), AuditPolicy{});
  ASSERT_EQ(codes(findings), (std::vector<std::string>{"cached_work"}));
  EXPECT_EQ(findings[0].rule, "runtime_audit:cached_work");
  EXPECT_EQ(findings[0].message,
            "on input sets the timed calls had used, a call ran 4.0 us of kernel time, 0.0% of "
            "the 147.704 ms it ran on fresh inputs; a call that does the work needs at least "
            "25%");
  EXPECT_EQ(findings[0].evidence,
            (std::vector<std::string>{
                "fresh inputs: 18 kernel launches, 147.704 ms of kernel time",
                "fresh inputs: gemm_kernel<true, __half> x15, 147.000 ms",
                "fresh inputs: normalize_kernel x1, 400.0 us",
                "fresh inputs: sumsq_kernel x1, 300.0 us",
                "fresh inputs: fingerprint x1, 4.0 us",
                "timed inputs: 1 kernel launch, 4.0 us of kernel time",
                "timed inputs: fingerprint x1, 4.0 us",
                "timed inputs: memcpy DtoD of 716177408 bytes"}));
}

// Two honest calls differ: a warm L2, clocks still rising on the first call, a data-dependent
// number of launches. None of that comes near a quarter of the work.
TEST(WorkFindingsTest, LegitimateVariationBetweenTwoCallsIsNoFinding) {
  std::vector<record::AuditedKernel> fewer(10, kernel("gemm_kernel<true, __half>", 9.8e-3));
  EXPECT_TRUE(work_findings(muon_fresh(), audit_of(fewer), AuditPolicy{}).empty());  // 66%
  std::vector<record::AuditedKernel> more(30, kernel("expert_gemm", 1e-4));
  EXPECT_TRUE(work_findings(audit_of(more), audit_of({kernel("expert_gemm", 1e-3)}),
                            AuditPolicy{}).empty());  // one long launch instead of 30 short ones
  EXPECT_TRUE(work_findings(muon_fresh(), muon_fresh(), AuditPolicy{}).empty());
}

TEST(WorkFindingsTest, TheShareIsThePolicysAndItsBoundIsInclusive) {
  const auto fresh = audit_of({kernel("k", 4e-3)});
  EXPECT_TRUE(work_findings(fresh, audit_of({kernel("k", 1e-3)}), AuditPolicy{}).empty());
  EXPECT_EQ(work_findings(fresh, audit_of({kernel("k", 0.9e-3)}), AuditPolicy{}).size(), 1u);
  AuditPolicy stricter;
  stricter.min_timed_input_work_share = 0.5;
  EXPECT_EQ(work_findings(fresh, audit_of({kernel("k", 1.9e-3)}), stricter).size(), 1u);
  const auto findings = work_findings(fresh, audit_of({}), stricter);  // no kernel at all
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].message.find("at least 50%"), std::string::npos) << findings[0].message;
}

// Back-to-back calls traced as one window, as the timing loop makes them: kernel time per call.
TEST(WorkFindingsTest, ABatchOfTimedCallsIsComparedPerCall) {
  record::KernelAudit batch = audit_of({});
  batch.calls = 4;
  for (int i = 0; i < 4; ++i) batch.kernels.push_back(kernel("gemm_kernel<true, __half>", 40e-3));
  EXPECT_TRUE(work_findings(muon_fresh(), batch, AuditPolicy{}).empty());  // 40 ms per call: 27%
  batch.kernels.resize(1);  // one call did the work, three copied its answer
  const auto findings = work_findings(muon_fresh(), batch, AuditPolicy{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].message.find("a call ran 10.000 ms of kernel time, 6.8%"),
            std::string::npos)
      << findings[0].message;
  EXPECT_EQ(findings[0].evidence.at(5),
            "timed inputs: 1 kernel launch, 40.000 ms of kernel time in 4 back-to-back calls "
            "(10.000 ms per call)");
}

TEST(WorkFindingsTest, NothingIsComparedWithoutTwoTracesOrWithoutFreshKernelTime) {
  record::KernelAudit untraced;
  untraced.unavailable = "CUPTI (libcupti) not found";
  EXPECT_TRUE(work_findings(untraced, muon_cached(), AuditPolicy{}).empty());
  EXPECT_TRUE(work_findings(muon_fresh(), untraced, AuditPolicy{}).empty());
  // Host computation launches nothing on either call; other rules speak to that.
  EXPECT_TRUE(work_findings(audit_of({}), audit_of({}), AuditPolicy{}).empty());
}

TEST(WorkFindingsTest, MergedLaunchesCountAndEachKernelListIsBounded) {
  std::vector<record::AuditedKernel> many;
  for (int i = 0; i < 20; ++i) many.push_back(kernel("k" + std::to_string(i), 1e-3));
  many[0].launches = 100;  // an audit message merged them
  record::KernelAudit cached = audit_of({});
  for (int i = 0; i < 20; ++i) {
    cached.transfers.push_back({.operation = "memcpy", .kind = "DtoD", .bytes = uint64_t(i) + 1,
                                .device = 0, .stream = kHarnessStream});
  }
  const auto findings = work_findings(audit_of(many), cached, AuditPolicy{});
  ASSERT_EQ(findings.size(), 1u);
  const auto& evidence = findings[0].evidence;
  EXPECT_EQ(evidence.front(), "fresh inputs: 119 kernel launches, 20.000 ms of kernel time");
  EXPECT_EQ(evidence.size(), (1 + kEvidenceLimit) + 1 + kEvidenceLimit);
}

// The Muon fingerprint cache as the orchestrator sees it: the fresh call reads a fingerprint back
// (host_sync), the call on timed inputs does too, and copies its stored answer (cached_work).
TEST(TracedCallFindingsTest, TheFreshCallsFindingsComeFirstThenTheComparisonThenTheTimedCalls) {
  record::KernelAudit fresh = muon_fresh();
  record::KernelAudit cached = muon_cached();
  for (record::KernelAudit* audit : {&fresh, &cached}) {
    audit->transfers.push_back(
        {.operation = "memcpy", .kind = "DtoH", .bytes = 4, .device = 0, .stream = kHarnessStream});
    audit->synchronizations.push_back({.kind = "stream_synchronize", .stream = kHarnessStream});
  }
  const auto findings = traced_call_findings(fresh, cached, strict());
  ASSERT_EQ(codes(findings), (std::vector<std::string>{"host_sync", "cached_work", "host_sync"}));
  EXPECT_EQ(findings[0].message.rfind("the call copied", 0), 0u) << findings[0].message;
  EXPECT_EQ(findings[2].message.rfind("on a timed input set: the call copied", 0), 0u)
      << findings[2].message;

  AuditPolicy allowing = strict();  // a task whose semantics need a host decision
  allowing.host_sync_allowed = true;
  EXPECT_EQ(codes(traced_call_findings(fresh, cached, allowing)),
            (std::vector<std::string>{"cached_work"}));
}

TEST(TracedCallFindingsTest, BeforeTimingOrWithoutTracesOnlyWhatWasTracedCounts) {
  record::KernelAudit side = audit_of({kernel("ns_step", 1e-3, 99)});
  EXPECT_EQ(codes(traced_call_findings(side, std::nullopt, strict())),
            (std::vector<std::string>{"side_stream"}));
  record::KernelAudit untraced;
  untraced.unavailable = "the CUPTI tracer failed: CUPTI_ERROR_NOT_INITIALIZED";
  EXPECT_EQ(codes(traced_call_findings(side, untraced, strict())),
            (std::vector<std::string>{"side_stream"}));
  EXPECT_TRUE(traced_call_findings(untraced, side, strict()).empty());
}

}  // namespace
}  // namespace d2k::audit
