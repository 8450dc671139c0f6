#include "store/store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include "store/schema.h"

namespace d2k::store {
namespace {

using namespace std::string_literals;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A fresh folder per test, removed afterwards.
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "d2k_store_test_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path store_path() const { return dir_ / "store.sqlite"; }

  std::filesystem::path dir_;
};

// Exact equality of doubles: the same bits, except that any NaN equals any NaN.
::testing::AssertionResult same_double(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return ::testing::AssertionSuccess();
  if (std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << a << " != " << b;
}

void expect_same(const record::OutputCheck& a, const record::OutputCheck& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_TRUE(same_double(a.rel_norm_error, b.rel_norm_error)) << a.name;
  EXPECT_TRUE(same_double(a.max_abs_error, b.max_abs_error)) << a.name;
  EXPECT_EQ(a.mismatches, b.mismatches);
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(a.nonfinite, b.nonfinite);
  EXPECT_EQ(a.passed, b.passed);
  EXPECT_EQ(a.failure, b.failure);
}

void expect_same(const record::TrialCheck& a, const record::TrialCheck& b) {
  EXPECT_EQ(a.trial, b.trial);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.passed, b.passed);
  EXPECT_EQ(a.failure, b.failure);
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) expect_same(a.outputs[i], b.outputs[i]);
}

void expect_same(const record::WorkloadResult& a, const record::WorkloadResult& b) {
  EXPECT_EQ(a.workload, b.workload);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.reason_code, b.reason_code);
  EXPECT_EQ(a.message, b.message);
  EXPECT_TRUE(same_double(a.wall_seconds, b.wall_seconds)) << a.workload;
  EXPECT_EQ(a.from_cache, b.from_cache);
  EXPECT_EQ(a.workspace_bytes, b.workspace_bytes);
  ASSERT_EQ(a.trials.size(), b.trials.size());
  for (size_t i = 0; i < a.trials.size(); ++i) expect_same(a.trials[i], b.trials[i]);
  ASSERT_EQ(a.latency.has_value(), b.latency.has_value()) << a.workload;
  if (!a.latency) return;
  EXPECT_EQ(a.latency->method, b.latency->method);
  EXPECT_TRUE(same_double(a.latency->mean_s, b.latency->mean_s));
  EXPECT_TRUE(same_double(a.latency->stdev_s, b.latency->stdev_s));
  EXPECT_TRUE(same_double(a.latency->min_s, b.latency->min_s));
  EXPECT_TRUE(same_double(a.latency->max_s, b.latency->max_s));
  EXPECT_EQ(a.latency->calls_per_sample, b.latency->calls_per_sample);
  ASSERT_EQ(a.latency->samples_s.size(), b.latency->samples_s.size());
  for (size_t i = 0; i < a.latency->samples_s.size(); ++i) {
    EXPECT_TRUE(same_double(a.latency->samples_s[i], b.latency->samples_s[i])) << "sample " << i;
  }
}

void expect_same(const record::EvaluationResult& a, const record::EvaluationResult& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.task_id, b.task_id);
  EXPECT_EQ(a.impl_kind, b.impl_kind);
  EXPECT_EQ(a.impl_path, b.impl_path);
  EXPECT_EQ(a.impl_hash, b.impl_hash);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.protocol_version, b.protocol_version);
  EXPECT_EQ(a.base_seed, b.base_seed);
  EXPECT_EQ(a.environment.device_name, b.environment.device_name);
  EXPECT_EQ(a.environment.driver, b.environment.driver);
  EXPECT_EQ(a.environment.cuda, b.environment.cuda);
  EXPECT_EQ(a.environment.torch, b.environment.torch);
  EXPECT_EQ(a.environment.triton, b.environment.triton);
  EXPECT_EQ(a.environment.python, b.environment.python);
  EXPECT_EQ(a.environment.host, b.environment.host);
  EXPECT_EQ(a.environment.d2k_version, b.environment.d2k_version);
  ASSERT_EQ(a.build.has_value(), b.build.has_value());
  if (a.build) {
    EXPECT_EQ(a.build->cached, b.build->cached);
    EXPECT_TRUE(same_double(a.build->seconds, b.build->seconds));
    EXPECT_EQ(a.build->hash, b.build->hash);
    EXPECT_EQ(a.build->command, b.build->command);
  }
  ASSERT_EQ(a.workloads.size(), b.workloads.size());
  for (size_t i = 0; i < a.workloads.size(); ++i) expect_same(a.workloads[i], b.workloads[i]);
}

// Every field set, with the values most likely to be lost: uint64 beyond int64, NaN, infinities,
// denormals, embedded NUL bytes, quotes, non-ASCII text, absent and empty latencies. -0.0 appears
// only inside JSON columns: SQLite's REAL columns store it as 0.0 (see docs/store.md).
record::EvaluationResult full_result() {
  record::EvaluationResult r;
  r.created_at = "2026-11-29T21:40:05Z";
  r.task_id = "rms_norm";
  r.impl_kind = "solution";
  r.impl_path = "/tmp/my solution/solution.py";
  r.impl_hash = "0123456789abcdef";
  r.device = "cuda";
  r.protocol_version = 7;
  r.base_seed = std::numeric_limits<uint64_t>::max();
  r.environment = {.device_name = "NVIDIA H200",
                   .driver = "560.35.03",
                   .cuda = "12.6",
                   .torch = "2.5.1",
                   .triton = "3.1.0",
                   .python = "3.11.2",
                   .host = "gpu-node-ü",
                   .d2k_version = "0.1.0"};
  r.build = record::Build{.cached = true,
                          .seconds = 0.125,
                          .hash = "00ff00ff00ff00ff",
                          .command = "nvcc -O3 '/tmp/my solution/solution.cu' -o x.so"};

  record::WorkloadResult timed;
  timed.workload = "batch=1 'q' \"dq\"";
  timed.verdict = record::Verdict::passed;
  timed.wall_seconds = 12.75;
  timed.workspace_bytes = int64_t{1} << 40;
  timed.trials = {
      {.trial = 0,
       .seed = std::numeric_limits<uint64_t>::max() - 1,
       .kind = "fresh",
       .passed = true,
       .outputs = {{.name = "y",
                    .rel_norm_error = 1.25e-7,
                    .max_abs_error = 3.0000000000000004,
                    .mismatches = 3,
                    .elements = int64_t{1} << 40,
                    .nonfinite = 0,
                    .passed = true,
                    .failure = ""},
                   {.name = "state",
                    .rel_norm_error = kNaN,
                    .max_abs_error = kInf,
                    .mismatches = -1,
                    .elements = 7,
                    .nonfinite = 2,
                    .passed = false,
                    .failure = "NaN in output"}},
       .failure = ""},
      {.trial = 1,
       .seed = 42,
       .kind = "same_buffers",
       .passed = false,
       .outputs = {{.name = "y", .rel_norm_error = -kInf, .max_abs_error = -0.0}},
       .failure = "mismatch {\"$double\": 1}"},
  };
  timed.latency = record::Latency{.method = "events",
                                  .mean_s = 1.5e-5,
                                  .stdev_s = kNaN,
                                  .min_s = 5e-324,
                                  .max_s = kInf,
                                  .calls_per_sample = 123456789012,
                                  .samples_s = {0.1, 1e-300, 2.5e-5, -0.0, kNaN, kInf, -kInf}};

  record::WorkloadResult failed;
  failed.workload = "batch=64";
  failed.verdict = record::Verdict::runtime_error;
  failed.reason_code = "exception";
  failed.message = "Traceback\nline 2\0after nul"s;
  failed.wall_seconds = kNaN;
  failed.from_cache = true;

  record::WorkloadResult empty_latency;
  empty_latency.workload = "";
  empty_latency.verdict = record::Verdict::harness_error;
  empty_latency.wall_seconds = 5e-324;
  empty_latency.latency = record::Latency{};

  r.workloads = {timed, failed, empty_latency};
  return r;
}

record::EvaluationResult simple_result(const std::string& task, const std::string& impl_kind,
                                       const std::string& created_at, bool passed) {
  record::EvaluationResult r;
  r.created_at = created_at;
  r.task_id = task;
  r.impl_kind = impl_kind;
  r.impl_path = "tasks/" + task + "/" + impl_kind + ".py";
  r.impl_hash = "hash-" + impl_kind;
  r.device = "cpu";
  r.environment.device_name = "cpu-model";
  record::WorkloadResult w;
  w.workload = "w0";
  w.verdict = passed ? record::Verdict::passed : record::Verdict::incorrect;
  r.workloads.push_back(w);
  return r;
}

int64_t count_rows(const std::filesystem::path& path, const std::string& table) {
  Database db(path);
  Statement count = db.prepare("SELECT count(*) FROM " + table);
  EXPECT_TRUE(count.step());
  return count.column_int(0);
}

TEST_F(StoreTest, RoundTripKeepsEveryField) {
  Store store = Store::open(store_path());
  record::EvaluationResult saved = full_result();
  const int64_t id = store.evaluations().save(saved);
  EXPECT_GT(id, 0);
  EXPECT_EQ(saved.id, id);

  const auto loaded = store.evaluations().load(id);
  ASSERT_TRUE(loaded.has_value());
  expect_same(saved, *loaded);
  EXPECT_EQ(loaded->workloads[1].message, "Traceback\nline 2\0after nul"s);
  EXPECT_FALSE(loaded->workloads[1].latency.has_value());
  EXPECT_TRUE(loaded->workloads[2].latency.has_value());
  EXPECT_FALSE(loaded->workloads[1].workspace_bytes.has_value());
}

TEST_F(StoreTest, AnEvaluationWithoutABuildLoadsWithout) {
  Store store = Store::open(store_path());
  record::EvaluationResult r = simple_result("t", "solution", "2026-01-01T00:00:00Z", true);
  store.evaluations().save(r);
  const auto loaded = store.evaluations().load(r.id);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_FALSE(loaded->build.has_value());
  EXPECT_FALSE(loaded->workloads.at(0).workspace_bytes.has_value());
}

TEST_F(StoreTest, InvalidUtf8IsKeptInColumnsAndReplacedInsideJson) {
  Store store = Store::open(store_path());
  record::EvaluationResult r = simple_result("t", "solution", "2026-01-01T00:00:00Z", false);
  const std::string cut = "caf\xc3";  // "café" cut inside its last character
  r.workloads[0].message = cut;
  r.workloads[0].trials = {{.failure = cut}};
  store.evaluations().save(r);
  const auto loaded = store.evaluations().load(r.id);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->workloads[0].message, cut);
  EXPECT_EQ(loaded->workloads[0].trials.at(0).failure, "caf\xef\xbf\xbd");  // U+FFFD
}

TEST_F(StoreTest, LoadOfUnknownIdIsEmpty) {
  Store store = Store::open(store_path());
  record::EvaluationResult r = simple_result("t", "reference", "2026-01-01T00:00:00Z", true);
  const int64_t id = store.evaluations().save(r);
  EXPECT_FALSE(store.evaluations().load(id + 1).has_value());
  EXPECT_FALSE(store.evaluations().load(0).has_value());
}

TEST_F(StoreTest, SaveStampsMissingCreatedAt) {
  Store store = Store::open(store_path());
  record::EvaluationResult r = simple_result("t", "reference", "", true);
  store.evaluations().save(r);
  ASSERT_EQ(r.created_at.size(), 20u) << r.created_at;  // 2026-11-29T21:40:05Z
  EXPECT_EQ(r.created_at.back(), 'Z');
  EXPECT_EQ(store.evaluations().load(r.id)->created_at, r.created_at);
}

TEST_F(StoreTest, IdsIncreaseAndEnvironmentsAreShared) {
  Store store = Store::open(store_path());
  record::EvaluationResult a = simple_result("t", "reference", "2026-01-01T00:00:00Z", true);
  record::EvaluationResult b = a;
  record::EvaluationResult c = a;
  c.environment.torch = "2.6.0";
  const int64_t first = store.evaluations().save(a);
  const int64_t second = store.evaluations().save(b);
  store.evaluations().save(c);
  EXPECT_GT(second, first);
  EXPECT_EQ(count_rows(store_path(), "evaluations"), 3);
  EXPECT_EQ(count_rows(store_path(), "environments"), 2);
  EXPECT_EQ(store.evaluations().load(c.id)->environment.torch, "2.6.0");
}

TEST_F(StoreTest, ListFiltersAndOrdersNewestFirst) {
  Store store = Store::open(store_path());
  record::EvaluationResult a = simple_result("t1", "solution", "2026-01-02T00:00:00Z", true);
  record::EvaluationResult b = simple_result("t1", "reference", "2026-01-03T00:00:00Z", true);
  b.workloads.push_back(b.workloads[0]);
  b.workloads[1].workload = "w1";
  b.workloads[1].verdict = record::Verdict::timed_out;
  record::EvaluationResult d = simple_result("t1", "solution", "2026-01-03T00:00:00Z", true);
  record::EvaluationResult c = simple_result("t2", "solution", "2026-01-01T00:00:00Z", true);
  record::EvaluationResult e = simple_result("t2", "solution", "2026-01-01T12:00:00Z", false);
  // Saved out of time order, so that ordering by id alone would fail.
  for (auto* r : {&a, &b, &d, &c, &e}) store.evaluations().save(*r);

  auto ids = [&](const Query& query) {
    std::vector<int64_t> out;
    for (const auto& s : store.evaluations().list(query)) out.push_back(s.id);
    return out;
  };
  using Ids = std::vector<int64_t>;
  EXPECT_EQ(ids({}), (Ids{d.id, b.id, a.id, e.id, c.id}));  // b and d tie: higher id first
  EXPECT_EQ(ids({.task = "t1"}), (Ids{d.id, b.id, a.id}));
  EXPECT_EQ(ids({.impl_kind = "solution"}), (Ids{d.id, a.id, e.id, c.id}));
  EXPECT_EQ(ids({.passed_only = true}), (Ids{d.id, a.id, c.id}));
  EXPECT_EQ(ids({.task = "t2", .impl_kind = "solution", .passed_only = true}), (Ids{c.id}));
  EXPECT_EQ(ids({.limit = 2}), (Ids{d.id, b.id}));
  EXPECT_EQ(ids({.limit = 0}).size(), 5u);
  EXPECT_TRUE(ids({.task = "nope"}).empty());

  const auto summaries = store.evaluations().list({.impl_kind = "reference"});
  ASSERT_EQ(summaries.size(), 1u);
  const EvaluationSummary& s = summaries[0];
  EXPECT_EQ(s.id, b.id);
  EXPECT_EQ(s.created_at, "2026-01-03T00:00:00Z");
  EXPECT_EQ(s.task_id, "t1");
  EXPECT_EQ(s.impl_kind, "reference");
  EXPECT_EQ(s.impl_path, "tasks/t1/reference.py");
  EXPECT_EQ(s.impl_hash, "hash-reference");
  EXPECT_EQ(s.device_name, "cpu-model");
  EXPECT_FALSE(s.passed);
  EXPECT_EQ(s.workloads_passed, 1);
  EXPECT_EQ(s.workloads_total, 2);
}

TEST_F(StoreTest, ListReturnsFiftyByDefault) {
  Store store = Store::open(store_path());
  for (int i = 0; i < 51; ++i) {
    record::EvaluationResult r = simple_result("t", "solution", "2026-01-01T00:00:00Z", true);
    store.evaluations().save(r);
  }
  EXPECT_EQ(store.evaluations().list({}).size(), 50u);
  EXPECT_EQ(store.evaluations().list({.limit = 0}).size(), 51u);
}

// A one-workload evaluation of task "t", workload "w", whose latency mean tells it apart.
record::EvaluationResult cache_entry(const std::string& device_name, const std::string& hash,
                                     int protocol_version, const std::string& created_at,
                                     record::Verdict verdict, double mean_s) {
  record::EvaluationResult r = simple_result("t", "reference", created_at, true);
  r.environment.device_name = device_name;
  r.impl_hash = hash;
  r.protocol_version = protocol_version;
  r.workloads[0].workload = "w";
  r.workloads[0].verdict = verdict;
  r.workloads[0].latency = record::Latency{.method = "events", .mean_s = mean_s};
  return r;
}

TEST_F(StoreTest, CachedWorkloadIsNewestPassedForTheKey) {
  Store store = Store::open(store_path());
  using record::Verdict;
  std::vector<record::EvaluationResult> entries = {
      cache_entry("H200", "h", 1, "2026-01-02T00:00:00Z", Verdict::passed, 2.0),
      cache_entry("H200", "h", 1, "2026-01-03T00:00:00Z", Verdict::incorrect, 3.0),
      cache_entry("H200", "h", 2, "2026-01-04T00:00:00Z", Verdict::passed, 4.0),
      cache_entry("B200", "h", 1, "2026-01-04T00:00:00Z", Verdict::passed, 5.0),
      cache_entry("H200", "other", 1, "2026-01-04T00:00:00Z", Verdict::passed, 6.0),
      // Older than the first entry but saved last, so ordering by id alone would pick it.
      cache_entry("H200", "h", 1, "2026-01-01T00:00:00Z", Verdict::passed, 1.0),
  };
  record::EvaluationResult other_task =
      cache_entry("H200", "h", 1, "2026-01-05T00:00:00Z", Verdict::passed, 7.0);
  other_task.task_id = "t2";
  entries.push_back(other_task);
  record::EvaluationResult other_workload =
      cache_entry("H200", "h", 1, "2026-01-05T00:00:00Z", Verdict::passed, 8.0);
  other_workload.workloads[0].workload = "w2";
  entries.push_back(other_workload);
  for (auto& r : entries) store.evaluations().save(r);

  const CacheKey key{.device_name = "H200",
                     .task_id = "t",
                     .workload = "w",
                     .impl_kind = "reference",
                     .impl_hash = "h",
                     .protocol_version = 1};
  const auto hit = store.evaluations().cached_workload(key);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->verdict, record::Verdict::passed);
  ASSERT_TRUE(hit->latency.has_value());
  EXPECT_EQ(hit->latency->mean_s, 2.0);

  CacheKey newer_protocol = key;
  newer_protocol.protocol_version = 2;
  EXPECT_EQ(store.evaluations().cached_workload(newer_protocol)->latency->mean_s, 4.0);
  CacheKey other_device = key;
  other_device.device_name = "B200";
  EXPECT_EQ(store.evaluations().cached_workload(other_device)->latency->mean_s, 5.0);

  CacheKey unknown = key;
  unknown.device_name = "A100";
  EXPECT_FALSE(store.evaluations().cached_workload(unknown).has_value());
  unknown = key;
  unknown.protocol_version = 3;
  EXPECT_FALSE(store.evaluations().cached_workload(unknown).has_value());
}

TEST_F(StoreTest, CachedWorkloadIgnoresAKeyWithOnlyFailures) {
  Store store = Store::open(store_path());
  record::EvaluationResult r =
      cache_entry("H200", "h", 1, "2026-01-01T00:00:00Z", record::Verdict::timed_out, 1.0);
  store.evaluations().save(r);
  EXPECT_FALSE(store.evaluations().cached_workload({"H200", "t", "w", "reference", "h", 1}).has_value());
}

TEST_F(StoreTest, CachedWorkloadComesOnlyFromTheSameKind) {
  // A submission byte-identical to the baseline, measured later (and noisily): a baseline
  // evaluation must not take its latency, nor the submission the baseline's.
  Store store = Store::open(store_path());
  record::EvaluationResult baseline =
      cache_entry("H200", "h", 1, "2026-01-01T00:00:00Z", record::Verdict::passed, 1.0);
  baseline.impl_kind = "baseline";
  record::EvaluationResult submission =
      cache_entry("H200", "h", 1, "2026-01-02T00:00:00Z", record::Verdict::passed, 9.0);
  submission.impl_kind = "solution";
  store.evaluations().save(baseline);
  store.evaluations().save(submission);
  const auto hit = store.evaluations().cached_workload({"H200", "t", "w", "baseline", "h", 1});
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->latency->mean_s, 1.0);
  EXPECT_EQ(store.evaluations().cached_workload({"H200", "t", "w", "solution", "h", 1})->latency->mean_s, 9.0);
  EXPECT_FALSE(store.evaluations().cached_workload({"H200", "t", "w", "expert", "h", 1}).has_value());
}

TEST_F(StoreTest, ReopeningKeepsData) {
  record::EvaluationResult saved = full_result();
  {
    Store store = Store::open(store_path());
    store.evaluations().save(saved);
  }
  Store reopened = Store::open(store_path());
  const auto loaded = reopened.evaluations().load(saved.id);
  ASSERT_TRUE(loaded.has_value());
  expect_same(saved, *loaded);
  EXPECT_EQ(reopened.evaluations().list({}).size(), 1u);
}

TEST_F(StoreTest, TwoConnectionsSeeEachOthersWrites) {
  Store writer = Store::open(store_path());
  Store reader = Store::open(store_path());
  record::EvaluationResult r = simple_result("t", "expert", "2026-01-01T00:00:00Z", true);
  writer.evaluations().save(r);
  ASSERT_TRUE(reader.evaluations().load(r.id).has_value());
  EXPECT_EQ(reader.evaluations().load(r.id)->impl_kind, "expert");
}

TEST_F(StoreTest, SchemaVersionIsRecorded) {
  Store::open(store_path());
  Database db(store_path());
  Statement version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  ASSERT_TRUE(version.step());
  EXPECT_EQ(version.column_int(0), schema_version());
}

TEST_F(StoreTest, SchemaFromTheFutureIsRefused) {
  Store::open(store_path());
  {
    Database db(store_path());
    db.exec("UPDATE meta SET value = value + 1 WHERE key = 'schema_version'");
  }
  try {
    Store::open(store_path());
    FAIL() << "opened a store with a newer schema";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("schema version 10, newer than this d2k knows (9)"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(StoreTest, WalModeIsOn) {
  Store::open(store_path());
  Database db(store_path());  // WAL is a property of the file, seen by every connection
  Statement mode = db.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.column_text(0), "wal");
}

TEST_F(StoreTest, OpenCreatesParentFolders) {
  const auto path = dir_ / "a" / "b" / "store.sqlite";
  Store::open(path);
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST_F(StoreTest, AFileThatIsNotADatabaseIsRefusedWithSqlitesMessage) {
  std::ofstream(store_path()) << std::string(4096, 'x');
  try {
    Store::open(store_path());
    FAIL() << "opened a file that is not a database";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("not a database"), std::string::npos) << error.what();
  }
}

record::JudgeAssessment judge_assessment(const std::string& task, record::JudgeKind kind,
                                         record::JudgeStatus status,
                                         const std::string& created_at) {
  record::JudgeAssessment a;
  a.created_at = created_at;
  a.task_id = task;
  a.kind = kind;
  a.candidate_path = "runs/r1/solution.py";
  a.candidate_hash = "00ff00ff00ff00ff";
  a.template_version = "impl-1+system-1+repair-1";
  a.template_hash = "0123456789abcdef";
  a.model = "judge-model";
  a.base_url_host = "127.0.0.1:8000";
  a.response_format = "json_schema";
  a.status = status;
  a.attempts = 2;
  a.usage = {.prompt_tokens = 9000, .completion_tokens = 800, .total_tokens = 9800,
             .cached_tokens = 4096};
  if (status == record::JudgeStatus::verified) {
    a.levels = {{.id = "L1", .score = 40, .band = "isolated_fragment",
                 .evidence = {{.line_start = 210, .line_end = 214, .quote = "for a in C:\n  f(a)"}},
                 .reason = "no composed \"Q\"", .alternative_design = "none"},
                {.id = "L2", .score = 54.5, .band = "partial_implementation",
                 .evidence = {{.quote = "ü quote"}}, .reason = "r2", .alternative_design = "none"},
                {.id = "L3", .score = 62, .band = "partial_implementation", .evidence = {},
                 .reason = "r3", .alternative_design = "alt"}};
    a.js = record::mean_level_score(a.levels);
    a.response = "{\"levels\": []}";
  } else {
    a.error = "L2 evidence[0] (line 9): bad";
  }
  return a;
}

TEST_F(StoreTest, JudgeAssessmentRoundTripKeepsEveryField) {
  Store store = Store::open(store_path());
  record::JudgeAssessment saved = judge_assessment("muon", record::JudgeKind::impl,
                                                   record::JudgeStatus::verified,
                                                   "2026-11-30T10:00:00Z");
  saved.correctness = "evaluation 12 (passed)";
  const int64_t id = store.judge_assessments().save(saved);
  EXPECT_EQ(saved.id, id);
  const auto rows = store.judge_assessments().list();
  ASSERT_EQ(rows.size(), 1u);
  const record::JudgeAssessment& loaded = rows[0];
  EXPECT_EQ(nlohmann::json(loaded), nlohmann::json(saved));
  ASSERT_EQ(loaded.levels.size(), 3u);
  EXPECT_EQ(loaded.levels[0].evidence[0].quote, "for a in C:\n  f(a)");
  EXPECT_EQ(loaded.levels[0].evidence[0].line_end, 214);
  EXPECT_EQ(loaded.usage.cached_tokens, 4096);
  Database db(store_path());
  Statement scores = db.prepare("SELECT l1_score, l2_score, l3_score, js FROM judge_assessments");
  ASSERT_TRUE(scores.step());
  EXPECT_EQ(scores.column_double(1), 54.5);
  EXPECT_DOUBLE_EQ(scores.column_double(3), (40 + 54.5 + 62) / 3);
}

TEST_F(StoreTest, JudgeAssessmentWithoutScoresHasNullScoreColumns) {
  Store store = Store::open(store_path());
  record::JudgeAssessment a = judge_assessment("muon", record::JudgeKind::design,
                                               record::JudgeStatus::unverified, "");
  store.judge_assessments().save(a);
  EXPECT_EQ(a.created_at.size(), 20u);
  const auto rows = store.judge_assessments().list();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].js.has_value());
  EXPECT_TRUE(rows[0].levels.empty());
  EXPECT_EQ(rows[0].error, "L2 evidence[0] (line 9): bad");
  Database db(store_path());
  Statement nulls = db.prepare(
      "SELECT l1_score IS NULL AND l2_score IS NULL AND l3_score IS NULL AND js IS NULL "
      "FROM judge_assessments");
  ASSERT_TRUE(nulls.step());
  EXPECT_EQ(nulls.column_int(0), 1);
}

TEST_F(StoreTest, JudgeAssessmentsListFiltersAndOrdersNewestFirst) {
  Store store = Store::open(store_path());
  using record::JudgeKind;
  using record::JudgeStatus;
  auto a = judge_assessment("t1", JudgeKind::impl, JudgeStatus::verified, "2026-01-02T00:00:00Z");
  auto b = judge_assessment("t1", JudgeKind::design, JudgeStatus::verified, "2026-01-03T00:00:00Z");
  auto c = judge_assessment("t2", JudgeKind::impl, JudgeStatus::error, "2026-01-01T00:00:00Z");
  auto d = judge_assessment("t1", JudgeKind::impl, JudgeStatus::unverified, "2026-01-03T00:00:00Z");
  for (auto* x : {&a, &b, &c, &d}) store.judge_assessments().save(*x);
  auto ids = [&](const JudgeQuery& query) {
    std::vector<int64_t> out;
    for (const auto& row : store.judge_assessments().list(query)) out.push_back(row.id);
    return out;
  };
  using Ids = std::vector<int64_t>;
  EXPECT_EQ(ids({}), (Ids{d.id, b.id, a.id, c.id}));
  EXPECT_EQ(ids({.task = "t1"}), (Ids{d.id, b.id, a.id}));
  EXPECT_EQ(ids({.kind = JudgeKind::impl}), (Ids{d.id, a.id, c.id}));
  EXPECT_EQ(ids({.task = "t1", .kind = JudgeKind::impl, .status = JudgeStatus::verified}),
            (Ids{a.id}));
  EXPECT_EQ(ids({.limit = 2}), (Ids{d.id, b.id}));
}

TEST_F(StoreTest, ListFiltersByImplementationHash) {
  Store store = Store::open(store_path());
  record::EvaluationResult a = simple_result("t", "solution", "2026-01-01T00:00:00Z", true);
  record::EvaluationResult b = simple_result("t", "solution", "2026-01-02T00:00:00Z", false);
  b.impl_hash = "other";
  store.evaluations().save(a);
  store.evaluations().save(b);
  const auto rows = store.evaluations().list({.impl_hash = "other"});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, b.id);
}

TEST_F(StoreTest, AnAnchorKeepsItsName) {
  Store store = Store::open(store_path());
  record::EvaluationResult anchor = simple_result("t", "anchor", "2026-01-01T00:00:00Z", true);
  anchor.anchor = "torch_compile";
  record::EvaluationResult expert = simple_result("t", "expert", "2026-01-01T00:00:01Z", true);
  store.evaluations().save(anchor);
  store.evaluations().save(expert);
  EXPECT_EQ(store.evaluations().load(anchor.id)->anchor, "torch_compile");
  EXPECT_EQ(store.evaluations().load(expert.id)->anchor, "");
  const auto listed = store.evaluations().list({.impl_kind = "anchor"});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].anchor, "torch_compile");
}

TEST_F(StoreTest, JudgeTableIsAddedToAVersionOneStore) {
  record::EvaluationResult r = simple_result("t", "baseline", "2026-01-01T00:00:00Z", true);
  {
    Store store = Store::open(store_path());
    store.evaluations().save(r);
  }
  {
    // Take the file back to version 1: the evaluation tables as they were, no judge table.
    Database db(store_path());
    db.exec("ALTER TABLE evaluations DROP COLUMN outputs_compared");
    db.exec("ALTER TABLE evaluations DROP COLUMN anchor");
    db.exec("ALTER TABLE evaluations DROP COLUMN mode");
    db.exec("ALTER TABLE workload_results DROP COLUMN timing_json");
    db.exec("ALTER TABLE workload_results DROP COLUMN latency_json");
    db.exec("DROP TABLE agent_events");
    db.exec("DROP TABLE agent_runs");
    db.exec("ALTER TABLE workload_results DROP COLUMN peak_aux_bytes");
    db.exec("ALTER TABLE workload_results DROP COLUMN audit_json");
    db.exec("ALTER TABLE evaluations DROP COLUMN validity_json");
    db.exec("ALTER TABLE workload_results DROP COLUMN sol_json");
    db.exec("DROP TABLE device_ceilings");
    db.exec("DROP TABLE judge_assessments");
    db.exec("ALTER TABLE evaluations DROP COLUMN build_json");
    db.exec("ALTER TABLE workload_results DROP COLUMN workspace_bytes");
    db.exec("UPDATE meta SET value = 1 WHERE key = 'schema_version'");
  }
  Store store = Store::open(store_path());
  ASSERT_TRUE(store.evaluations().load(r.id).has_value());
  record::JudgeAssessment a = judge_assessment("t", record::JudgeKind::impl,
                                               record::JudgeStatus::verified, "");
  store.judge_assessments().save(a);
  EXPECT_EQ(store.judge_assessments().list().size(), 1u);
}

TEST(StoreDefaultPath, ComesFromTheEnvironmentOrTheCurrentDirectory) {
  const char* before = std::getenv("D2K_STORE");
  const std::string saved = before != nullptr ? before : "";
  ASSERT_EQ(setenv("D2K_STORE", "/data/evals.sqlite", 1), 0);
  EXPECT_EQ(Store::default_path(), std::filesystem::path("/data/evals.sqlite"));
  ASSERT_EQ(unsetenv("D2K_STORE"), 0);
  EXPECT_EQ(Store::default_path(), std::filesystem::current_path() / "d2k-store.sqlite");
  if (before != nullptr) setenv("D2K_STORE", saved.c_str(), 1);
}

}  // namespace
}  // namespace d2k::store
