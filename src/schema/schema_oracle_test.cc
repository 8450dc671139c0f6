// The differential check: the shared corpus tests/schema_oracle/cases/*.json, plus the tasks'
// guidance.json files and the example designs, go through d2k's validator and through ajv's
// 2020-12 validator (npm, tests/schema_oracle/oracle.js); the two must agree on every instance.
// CI installs ajv (tools/run_tests.sh) and sets D2K_REQUIRE_SCHEMA_ORACLE, which turns a missing
// oracle from a skip into a failure.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "schema/schema.h"

namespace d2k::schema {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSourceDir = D2K_SOURCE_DIR;
const fs::path kOracleDir = kSourceDir / "tests" / "schema_oracle";

json read_json(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kOracleDir / "cases")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A case's schema, inline or named by "schema_file" (relative to the repository root).
json case_schema(const json& test_case) {
  return test_case.contains("schema_file")
             ? read_json(kSourceDir / test_case.at("schema_file").get<std::string>())
             : test_case.at("schema");
}

void collect_keys(const json& value, std::set<std::string>& keys) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      keys.insert(key);
      collect_keys(child, keys);
    }
  } else if (value.is_array()) {
    for (const json& child : value) collect_keys(child, keys);
  }
}

// Standard output of `command`; fails the test when it exits non-zero.
std::string run(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return output;
  }
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << command;
  return output;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

TEST(SchemaOracleTest, CorpusCoversEveryKeywordAndLoads) {
  const std::set<std::string> supported = {
      "$schema",  "$id",      "title",     "description", "type",
      "properties", "required", "additionalProperties", "items", "minItems",
      "maxItems", "minLength", "maxLength", "pattern",     "enum",
      "const",    "minimum",  "maximum",   "exclusiveMinimum", "exclusiveMaximum",
      "$defs",    "$ref"};
  std::set<std::string> used;
  size_t instances = 0;
  for (const fs::path& file : corpus_files()) {
    const json test_case = read_json(file);
    collect_keys(case_schema(test_case), used);
    EXPECT_NO_THROW(Schema{case_schema(test_case)}) << file;
    instances += test_case.at("instances").size();
  }
  for (const std::string& keyword : supported) {
    EXPECT_TRUE(used.count(keyword)) << "no corpus schema uses " << keyword;
  }
  EXPECT_GE(instances, 40u);
}

class SchemaOracleAgreementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const bool have_node = std::system("command -v node > /dev/null 2>&1") == 0;
    const bool have_ajv = fs::exists(kOracleDir / "node_modules" / "ajv" / "package.json");
    if (have_node && have_ajv) return;
    const std::string missing =
        !have_node ? "node is not on PATH"
                   : "ajv is not installed: run (cd tests/schema_oracle && npm ci)";
    if (std::getenv("D2K_REQUIRE_SCHEMA_ORACLE") != nullptr) FAIL() << missing;
    GTEST_SKIP() << missing;
  }

  void TearDown() override { fs::remove(extra_case_); }

  // The tasks' guidance.json files and the example designs in docs/examples, and each with its
  // first stage's id broken, as a case file.
  fs::path write_design_documents_case() {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(kSourceDir / "tasks")) {
      const fs::path file = entry.path() / "guidance.json";
      if (fs::exists(file)) files.push_back(file);
    }
    EXPECT_FALSE(files.empty()) << "no tasks/*/guidance.json";
    if (fs::is_directory(kSourceDir / "docs" / "examples")) {
      for (const auto& entry : fs::directory_iterator(kSourceDir / "docs" / "examples")) {
        if (entry.path().filename().string().ends_with("design.json")) files.push_back(entry);
      }
    }
    json instances = json::array();
    for (const fs::path& file : files) {
      json guidance = read_json(file);
      instances.push_back(guidance);
      if (guidance.contains("/level_2_dataflow_design/stages/0/stage_id"_json_pointer)) {
        guidance["/level_2_dataflow_design/stages/0/stage_id"_json_pointer] = "Not An Id";
        instances.push_back(guidance);
      }
    }
    std::ofstream(extra_case_) << json{{"schema_file", "schemas/design_schema.json"},
                                      {"instances", instances}}
                                      .dump(2);
    return extra_case_;
  }

  fs::path extra_case_ = fs::temp_directory_path() /
                         ("d2k_oracle_tasks_" + std::to_string(getpid()) + ".json");
};

TEST_F(SchemaOracleAgreementTest, AjvAgreesOnEveryInstance) {
  std::vector<fs::path> cases = corpus_files();
  cases.push_back(write_design_documents_case());
  std::string command = "node " + quoted(kOracleDir / "oracle.js");
  for (const fs::path& file : cases) command += " " + quoted(file);
  const json verdicts = json::parse(run(command));

  size_t compared = 0;
  for (const fs::path& file : cases) {
    const json test_case = read_json(file);
    const json& ajv = verdicts.at(file.string());
    ASSERT_TRUE(ajv.is_array()) << file << ": ajv refused the schema: " << ajv.dump();
    const Schema schema(case_schema(test_case));
    const json& instances = test_case.at("instances");
    ASSERT_EQ(ajv.size(), instances.size()) << file;
    for (size_t i = 0; i < instances.size(); ++i) {
      const auto violations = schema.validate(instances[i]);
      std::string reasons;
      for (const Violation& violation : violations) reasons += "\n  " + violation.to_string();
      EXPECT_EQ(violations.empty(), ajv[i].get<bool>())
          << file.filename() << " instance " << i << ": " << instances[i].dump()
          << "\nd2k says " << (violations.empty() ? "valid" : "invalid:") << reasons;
      ++compared;
    }
  }
  std::printf("d2k and ajv compared on %zu instances from %zu case files\n", compared,
              cases.size());
  EXPECT_GE(compared, 40u);
}

}  // namespace
}  // namespace d2k::schema
