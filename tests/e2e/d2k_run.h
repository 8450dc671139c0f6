#pragma once
// What the end-to-end tests share: the fixture folders and one `d2k` run in a folder of its own.

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "subprocess.h"

namespace d2k::e2e {

inline const std::filesystem::path kBinary = D2K_BINARY;
inline const std::filesystem::path kFixtures = D2K_TEST_FIXTURES;

inline std::filesystem::path task_dir(const std::string& task) {
  return kFixtures / "tasks" / task;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The workload labels of a fixture task, in config order.
inline std::vector<std::string> workload_labels(const std::string& task) {
  std::ifstream in(task_dir(task) / "config.json");
  const nlohmann::json config = nlohmann::json::parse(in);
  std::vector<std::string> labels;
  for (const auto& workload : config.at("workloads")) labels.push_back(workload.at("label"));
  return labels;
}

// One `d2k` run in its own folder with its own store and native build cache.
class D2kRun {
 public:
  D2kRun() { setenv("D2K_CACHE", cache().c_str(), 1); }

  std::filesystem::path store() const { return dir_.path() / "store.sqlite"; }
  std::filesystem::path cache() const { return dir_.path() / "cache"; }
  const std::filesystem::path& dir() const { return dir_.path(); }

  // `d2k --store <store> args...`, run in the folder.
  RunResult d2k(const std::vector<std::string>& args) const {
    std::vector<std::string> all{"--store", store().string()};
    all.insert(all.end(), args.begin(), args.end());
    return run_process(kBinary, all, dir_.path());
  }

 private:
  TempDir dir_;
};

// Whether the CUDA compiler can run here (the toolkit's nvcc on the path or in /usr/local/cuda).
inline bool nvcc_available() {
  return std::system("command -v nvcc > /dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc") == 0;
}

// In a test body: skips the test where no nvcc can run, or fails it when $D2K_REQUIRE_NVCC is
// set, as CI sets it (tools/run_tests.sh): CI's machine has the CUDA toolkit.
#define D2K_SKIP_WITHOUT_NVCC()                                                 \
  if (!::d2k::e2e::nvcc_available()) {                                          \
    if (std::getenv("D2K_REQUIRE_NVCC") != nullptr) {                           \
      FAIL() << "no nvcc on this machine, and $D2K_REQUIRE_NVCC is set";        \
    }                                                                           \
    GTEST_SKIP() << "no nvcc on this machine";                                  \
  }

// Parses `d2k ... --json` output; fails the test (and returns null) when it is not JSON.
inline nlohmann::json parse_evaluation(const RunResult& run) {
  try {
    return nlohmann::json::parse(run.out);
  } catch (const nlohmann::json::exception& error) {
    ADD_FAILURE() << "stdout is not JSON (" << error.what() << ")\nstdout:\n"
                  << run.out << "\nstderr:\n" << run.err;
    return nullptr;
  }
}

}  // namespace d2k::e2e
