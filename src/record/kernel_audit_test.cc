#include "record/kernel_audit.h"

#include <gtest/gtest.h>

#include "record/result.h"

namespace d2k::record {
namespace {

TEST(KernelAuditJsonTest, RoundTripsEveryField) {
  KernelAudit audit;
  audit.tracer = "CUPTI 130001 (/usr/local/cuda/lib64/libcupti.so.13)";
  audit.harness_device = 1;
  audit.harness_stream = 7;
  audit.calls = 4;
  audit.kernels = {{.name = "ns_step", .device = 1, .stream = 7, .grid = {132, 2, 1},
                    .block = {128, 1, 1}, .duration_s = 2.5e-4, .registers_per_thread = 96,
                    .static_shared_bytes = 1024, .dynamic_shared_bytes = 65536, .launches = 3}};
  audit.transfers = {{.operation = "memcpy", .kind = "DtoH", .bytes = 4, .device = 1, .stream = 7}};
  audit.synchronizations = {{.kind = "stream_synchronize", .stream = 7},
                            {.kind = "context_synchronize", .stream = std::nullopt}};
  audit.peak_aux_bytes = int64_t{5} << 32;
  const nlohmann::json j = audit;
  const KernelAudit back = j.get<KernelAudit>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(back.kernels.at(0).grid, (std::array<int32_t, 3>{132, 2, 1}));
  EXPECT_EQ(back.kernels.at(0).launches, 3u);
  EXPECT_EQ(back.calls, 4u);
  EXPECT_EQ(back.synchronizations.at(0).stream, 7u);
  EXPECT_FALSE(back.synchronizations.at(1).stream.has_value());
  EXPECT_EQ(back.peak_aux_bytes, int64_t{5} << 32);
}

TEST(KernelAuditJsonTest, RecordsStoredBeforeTheNewerFieldsReadAsOneCallOneLaunchNoWaits) {
  const nlohmann::json old = {{"kernels", {{{"name", "ns_step"}, {"duration_s", 1e-3}}}},
                              {"transfers", nlohmann::json::array()}};
  const KernelAudit back = old.get<KernelAudit>();
  EXPECT_EQ(back.kernels.at(0).launches, 1u);
  EXPECT_EQ(back.calls, 1u);
  EXPECT_TRUE(back.synchronizations.empty());
}

TEST(KernelAuditJsonTest, AnUnmeasuredPeakIsNull) {
  const nlohmann::json j = KernelAudit{};
  EXPECT_TRUE(j.at("peak_aux_bytes").is_null());
  EXPECT_FALSE(j.get<KernelAudit>().peak_aux_bytes.has_value());
}

TEST(KernelAuditJsonTest, KeepsWhyACallWasNotTraced) {
  KernelAudit audit;
  audit.unavailable = "CUPTI not found";
  const KernelAudit back = nlohmann::json(audit).get<KernelAudit>();
  EXPECT_EQ(back.unavailable, "CUPTI not found");
  // Records stored before the field existed read as traced.
  EXPECT_EQ(nlohmann::json::object().get<KernelAudit>().unavailable, "");
}

TEST(KernelAuditJsonTest, AWorkloadCarriesItsAuditOnlyWhenItHasOne) {
  WorkloadResult w;
  w.workload = "w0";
  EXPECT_FALSE(nlohmann::json(w).contains("audit"));
  w.audit = KernelAudit{};
  w.audit->harness_stream = 3;
  const WorkloadResult back = nlohmann::json(w).get<WorkloadResult>();
  ASSERT_TRUE(back.audit.has_value());
  EXPECT_EQ(back.audit->harness_stream, 3u);
}

}  // namespace
}  // namespace d2k::record
