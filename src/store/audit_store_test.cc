// The store's runtime-audit columns: each workload's audit, its findings and peak auxiliary bytes.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "store/database.h"
#include "store/store.h"

namespace d2k::store {
namespace {

class AuditStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "d2k_audit_store_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path path() const { return dir_ / "store.sqlite"; }

  std::filesystem::path dir_;
};

record::EvaluationResult audited_result() {
  record::EvaluationResult result;
  result.task_id = "muon";
  result.impl_kind = "solution";
  result.device = "cuda";
  result.environment.device_name = "NVIDIA H200";
  record::WorkloadResult flagged;
  flagged.workload = "w0";
  flagged.verdict = record::Verdict::invalid;
  flagged.reason_code = "library_compute";
  record::KernelAudit audit;
  audit.harness_device = 0;
  audit.harness_stream = 7;
  audit.kernels = {{.name = "nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_TNT", .device = 0, .stream = 7,
                    .grid = {132, 1, 1}, .block = {384, 1, 1}, .duration_s = 1.25e-3,
                    .registers_per_thread = 168, .static_shared_bytes = 0,
                    .dynamic_shared_bytes = 213248}};
  audit.transfers = {{.operation = "memset", .kind = "", .bytes = 4096, .device = 0, .stream = 7}};
  audit.peak_aux_bytes = int64_t{3} << 30;
  flagged.audit = audit;
  flagged.findings = {{.rule = "library_compute", .reason_code = "library_compute",
                       .message = "cuBLAS ran", .file = "", .line = 0,
                       .evidence = {"nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_TNT"}}};
  record::WorkloadResult plain;
  plain.workload = "w1";
  plain.verdict = record::Verdict::passed;
  result.workloads = {flagged, plain};
  return result;
}

TEST_F(AuditStoreTest, AuditAndFindingsRoundTrip) {
  Store store = Store::open(path());
  record::EvaluationResult saved = audited_result();
  const auto loaded = store.evaluations().load(store.evaluations().save(saved));
  ASSERT_TRUE(loaded.has_value());
  const record::WorkloadResult& w = loaded->workloads[0];
  EXPECT_EQ(nlohmann::json(w), nlohmann::json(saved.workloads[0]));
  ASSERT_TRUE(w.audit.has_value());
  EXPECT_EQ(w.audit->kernels.at(0).dynamic_shared_bytes, 213248);
  EXPECT_EQ(w.audit->peak_aux_bytes, int64_t{3} << 30);
  EXPECT_EQ(w.findings.at(0).evidence.at(0), "nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_TNT");
  EXPECT_FALSE(loaded->workloads[1].audit.has_value());
  EXPECT_TRUE(loaded->workloads[1].findings.empty());
}

TEST_F(AuditStoreTest, PeakAuxiliaryBytesHaveTheirOwnColumn) {
  {
    Store store = Store::open(path());
    record::EvaluationResult saved = audited_result();
    store.evaluations().save(saved);
  }
  Database db(path());
  Statement select = db.prepare("SELECT peak_aux_bytes FROM workload_results ORDER BY ordinal");
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.column_int(0), int64_t{3} << 30);
  ASSERT_TRUE(select.step());
  EXPECT_TRUE(select.column_is_null(0));
}

}  // namespace
}  // namespace d2k::store
