#include "eval/runtime_audit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace d2k::eval {
namespace {

using ::testing::HasSubstr;

task::Task gpu_task() {
  task::Task task;
  task.id = "scale_add";
  task.evaluation.device = task::Device::cuda;
  task.rules = task::default_implementation_rules();
  return task;
}

task::Workload workload(std::optional<int64_t> peak_bound = std::nullopt) {
  task::Workload w;
  w.label = "small";
  w.peak_aux_bytes = peak_bound;
  return w;
}

record::WorkloadResult passed() {
  record::WorkloadResult result;
  result.workload = "small";
  result.verdict = record::Verdict::passed;
  result.reason_code = "";
  result.latency = record::Latency{};
  result.latency->mean_s = 1e-5;
  return result;
}

// What a traced call saw: one kernel on stream `stream` (the harness's is 7).
record::KernelAudit audit_message(const std::string& kernel, uint64_t stream,
                                  std::optional<int64_t> peak = 0) {
  record::KernelAudit audit;
  audit.tracer = "CUPTI test";
  audit.harness_stream = 7;
  record::AuditedKernel k;
  k.name = kernel;
  k.stream = stream;
  k.duration_s = 1e-5;
  audit.kernels = {k};
  audit.peak_aux_bytes = peak;
  return audit;
}

TEST(RuntimeAuditTest, ACleanCallKeepsThePassAndRecordsTheAudit) {
  RuntimeAudit audit = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::solution);
  ASSERT_TRUE(audit.traces());
  audit.add_fresh(audit_message("_scale_add_kernel", 7));
  record::WorkloadResult result = passed();
  audit.apply(result);
  EXPECT_EQ(result.verdict, record::Verdict::passed);
  EXPECT_TRUE(result.latency.has_value());
  ASSERT_TRUE(result.audit.has_value());
  EXPECT_EQ(result.audit->kernels.at(0).name, "_scale_add_kernel");
  EXPECT_TRUE(result.findings.empty());
}

TEST(RuntimeAuditTest, AFindingMakesAPassedWorkloadInvalidWithItsReasonCode) {
  RuntimeAudit audit = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::solution);
  audit.add_fresh(audit_message("_scale_add_kernel", 13));  // not the harness's stream
  record::WorkloadResult result = passed();
  audit.apply(result);
  EXPECT_EQ(result.verdict, record::Verdict::invalid);
  EXPECT_EQ(result.reason_code, "side_stream");
  EXPECT_THAT(result.message, HasSubstr("runtime audit: side_stream: "));
  EXPECT_THAT(result.message, HasSubstr("_scale_add_kernel on stream 13"));
  EXPECT_FALSE(result.latency.has_value());
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].rule, "runtime_audit:side_stream");
}

TEST(RuntimeAuditTest, TheTasksRulesDecideTheFindings) {
  // The default rules forbid cuBLAS, so a library gemm is a finding; with cuBLAS allowed it is not.
  const std::string gemm = "nvjet_sm90_tst_128x128_64x4_1x2_h_bz_coopA_NNT";
  RuntimeAudit forbidding = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::baseline);
  forbidding.add_fresh(audit_message(gemm, 7));
  record::WorkloadResult result = passed();
  forbidding.apply(result);
  EXPECT_EQ(result.reason_code, "library_compute");

  task::Task lenient = gpu_task();
  lenient.rules.forbidden_libraries.clear();
  RuntimeAudit allowing = RuntimeAudit::for_workload(lenient, workload(), task::ImplKind::expert);
  allowing.add_fresh(audit_message(gemm, 7));
  record::WorkloadResult allowed = passed();
  allowing.apply(allowed);
  EXPECT_EQ(allowed.verdict, record::Verdict::passed);
}

TEST(RuntimeAuditTest, TheWorkloadsPeakBoundApplies) {
  RuntimeAudit audit =
      RuntimeAudit::for_workload(gpu_task(), workload(1 << 20), task::ImplKind::solution);
  audit.add_fresh(audit_message("_scale_add_kernel", 7, int64_t{64} << 20));
  record::WorkloadResult result = passed();
  audit.apply(result);
  EXPECT_EQ(result.reason_code, "peak_memory");
  EXPECT_THAT(result.message, HasSubstr("67108864 bytes"));
}

TEST(RuntimeAuditTest, AFailedWorkloadKeepsItsVerdictAndGetsTheFindingsAsEvidence) {
  RuntimeAudit audit = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::solution);
  audit.add_fresh(audit_message("_scale_add_kernel", 13));
  record::WorkloadResult result = passed();
  result.verdict = record::Verdict::incorrect;
  result.reason_code = "output_mismatch";
  result.message = "trial 0: wrong";
  audit.apply(result);
  EXPECT_EQ(result.verdict, record::Verdict::incorrect);
  EXPECT_EQ(result.reason_code, "output_mismatch");
  EXPECT_EQ(result.message, "trial 0: wrong");
  EXPECT_EQ(result.findings.size(), 1u);
}

TEST(RuntimeAuditTest, AnUntracedCallKeepsTheVerdictAndSaysWhy) {
  RuntimeAudit audit = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::solution);
  record::KernelAudit unavailable;
  unavailable.unavailable = "CUPTI (libcupti) not found";
  audit.add_fresh(unavailable);
  record::WorkloadResult result = passed();
  audit.apply(result);
  EXPECT_EQ(result.verdict, record::Verdict::passed);
  ASSERT_TRUE(result.audit.has_value());
  EXPECT_EQ(result.audit->unavailable, "CUPTI (libcupti) not found");
  EXPECT_TRUE(result.findings.empty());
}

TEST(RuntimeAuditTest, APassedWorkloadWithoutAnAuditMessageSaysSo) {
  RuntimeAudit audit = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::solution);
  record::WorkloadResult result = passed();
  audit.apply(result);
  EXPECT_EQ(result.verdict, record::Verdict::passed);
  ASSERT_TRUE(result.audit.has_value());
  EXPECT_EQ(result.audit->unavailable, "the candidate worker reported no audit");

  record::WorkloadResult crashed = passed();
  crashed.verdict = record::Verdict::crashed;
  audit.apply(crashed);
  EXPECT_FALSE(crashed.audit.has_value());  // the failure says what happened
}

TEST(RuntimeAuditTest, TheFreshCallsFindingsComeBackBeforeTiming) {
  RuntimeAudit audit = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::solution);
  EXPECT_TRUE(audit.add_fresh(audit_message("_scale_add_kernel", 7)).empty());
  const auto findings = audit.add_fresh(audit_message("_scale_add_kernel", 13));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].reason_code, "side_stream");
  // The evaluator failed the workload with that reason and timed nothing; the message gets every
  // finding with its evidence.
  record::WorkloadResult stopped;
  stopped.verdict = record::Verdict::invalid;
  stopped.reason_code = "side_stream";
  stopped.message = "runtime audit before timing";
  audit.apply(stopped);
  EXPECT_EQ(stopped.verdict, record::Verdict::invalid);
  EXPECT_THAT(stopped.message, HasSubstr("_scale_add_kernel on stream 13"));
}

TEST(RuntimeAuditTest, TheTimedSetCallIsRecordedAndCheckedByTheSameRules) {
  RuntimeAudit audit = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::solution);
  audit.add_fresh(audit_message("_scale_add_kernel", 7));
  audit.add_timed(audit_message("_scale_add_kernel", 13));
  record::WorkloadResult result = passed();
  audit.apply(result);
  ASSERT_TRUE(result.timed_audit.has_value());
  EXPECT_EQ(result.reason_code, "side_stream");
  EXPECT_THAT(result.message, HasSubstr("on a timed input set"));
}

// The fingerprint cache on a task that allows host round trips: the timed set's call copies its
// stored answer instead of running the kernel.
TEST(RuntimeAuditTest, ATimedSetCallDoingAFractionOfTheFreshCallsWorkIsCachedWork) {
  RuntimeAudit audit = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::solution);
  record::KernelAudit fresh = audit_message("_scale_add_kernel", 7);
  fresh.kernels.front().duration_s = 2e-3;
  ASSERT_TRUE(audit.add_fresh(fresh).empty());
  record::KernelAudit cached = audit_message("fingerprint", 7);
  cached.transfers = {{.operation = "memcpy", .kind = "DtoD", .bytes = 1 << 28, .device = 0,
                       .stream = 7}};
  audit.add_timed(cached);
  record::WorkloadResult result = passed();
  audit.apply(result);
  EXPECT_EQ(result.verdict, record::Verdict::invalid);
  EXPECT_EQ(result.reason_code, "cached_work");
  EXPECT_THAT(result.message, HasSubstr("timed inputs: memcpy DtoD of 268435456 bytes"));
  EXPECT_FALSE(result.latency.has_value());

  RuntimeAudit honest = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::expert);
  honest.add_fresh(fresh);
  record::KernelAudit again = fresh;
  again.kernels.front().duration_s = 1.2e-3;  // a warm cache: faster, the same work
  honest.add_timed(again);
  record::WorkloadResult kept = passed();
  honest.apply(kept);
  EXPECT_EQ(kept.verdict, record::Verdict::passed);
}

// A round trip inside the call, for a task that does not allow one.
TEST(RuntimeAuditTest, AHostRoundTripOnTheFreshCallStopsTheWorkloadBeforeTiming) {
  RuntimeAudit audit = RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::solution);
  record::KernelAudit fresh = audit_message("_scale_add_kernel", 7);
  fresh.transfers = {{.operation = "memcpy", .kind = "DtoH", .bytes = 4, .device = 0, .stream = 7}};
  fresh.synchronizations = {{.kind = "stream_synchronize", .stream = 7}};
  const auto findings = audit.add_fresh(fresh);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].reason_code, "host_sync");

  task::Task allowing = gpu_task();
  allowing.rules.host_sync_reason = "the count of kept rows sizes the output";
  RuntimeAudit allowed = RuntimeAudit::for_workload(allowing, workload(), task::ImplKind::baseline);
  EXPECT_TRUE(allowed.add_fresh(fresh).empty());
}

TEST(RuntimeAuditTest, TheReferenceIsNotAuditedAndACpuTaskSaysWhy) {
  RuntimeAudit reference =
      RuntimeAudit::for_workload(gpu_task(), workload(), task::ImplKind::reference);
  EXPECT_FALSE(reference.traces());
  record::WorkloadResult result = passed();
  reference.apply(result);
  EXPECT_FALSE(result.audit.has_value());

  task::Task cpu = gpu_task();
  cpu.evaluation.device = task::Device::cpu;
  RuntimeAudit host = RuntimeAudit::for_workload(cpu, workload(), task::ImplKind::baseline);
  EXPECT_FALSE(host.traces());
  record::WorkloadResult on_cpu = passed();
  host.apply(on_cpu);
  EXPECT_EQ(on_cpu.verdict, record::Verdict::passed);
  ASSERT_TRUE(on_cpu.audit.has_value());
  EXPECT_THAT(on_cpu.audit->unavailable, HasSubstr("CPU task"));
}

}  // namespace
}  // namespace d2k::eval
