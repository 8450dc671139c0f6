#include "native/builder.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "native/command.h"
#include "util/temp_dir.h"

namespace d2k::native {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fake compiler: a shell script that answers --version with `version` and otherwise appends
// its arguments to a log and runs `body` (which sees the output path as $out).
class FakeCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = dir_ / "candidate.cpp";
    write_source("int x;\n");
  }

  void write_source(const std::string& text) const { std::ofstream(source_) << text; }

  Toolchain compiler(const std::string& body, const std::string& version = "fake 1.0") const {
    const fs::path script = dir_ / "fake-cc";
    std::ofstream(script) << "#!/bin/sh\n"
                          << "if [ \"$1\" = --version ]; then echo '" << version
                          << "'; exit 0; fi\n"
                          << "echo \"$@\" >> '" << log().string() << "'\n"
                          << "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
                          << body << "\n";
    chmod(script.c_str(), 0755);
    return Toolchain{script.string(), {"-O3"}, {"-shared", "-fPIC"}};
  }

  BuildRequest request(const Toolchain& toolchain) const {
    BuildRequest request;
    request.source = source_;
    request.toolchain = toolchain;
    request.target = "x86_64";
    request.timeout_seconds = 30.0;
    return request;
  }

  int compiles() const {
    std::ifstream in(log());
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
  }

  fs::path log() const { return dir_ / "compiles.log"; }
  fs::path cache() const { return dir_ / "cache"; }

  util::TempDir temp_{"d2k_builder_test_"};
  fs::path dir_ = temp_.path();
  fs::path source_;
};

constexpr const char* kWritesOutput = "echo object > \"$out\"";

TEST_F(FakeCompilerTest, CompilesOnceThenReusesTheCachedObject) {
  const Builder builder(cache());
  const Toolchain cc = compiler(kWritesOutput);

  const BuildOutcome first = builder.build(request(cc));
  ASSERT_TRUE(first.ok) << first.diagnostics;
  EXPECT_FALSE(first.cached);
  EXPECT_EQ(first.library, cache() / (first.hash + ".so"));
  EXPECT_EQ(read(first.library), "object\n");
  EXPECT_EQ(first.hash.size(), 16u);

  const BuildOutcome second = builder.build(request(cc));
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.hash, first.hash);
  EXPECT_EQ(second.library, first.library);
  EXPECT_EQ(compiles(), 1);
}

TEST_F(FakeCompilerTest, AChangedSourceRebuilds) {
  const Builder builder(cache());
  const Toolchain cc = compiler(kWritesOutput);
  const BuildOutcome first = builder.build(request(cc));
  write_source("int y;\n");
  const BuildOutcome second = builder.build(request(cc));
  EXPECT_FALSE(second.cached);
  EXPECT_NE(second.hash, first.hash);
  EXPECT_EQ(compiles(), 2);
}

TEST_F(FakeCompilerTest, TheTasksFlagsReplaceTheDefaultsButNotTheRequiredOnes) {
  const Builder builder(cache());
  BuildRequest with_defaults = request(compiler(kWritesOutput));
  const BuildOutcome defaults = builder.build(with_defaults);
  EXPECT_EQ(defaults.command, shell_quote({with_defaults.toolchain.compiler, "-O3", "-shared",
                                           "-fPIC", source_.string(), "-o",
                                           defaults.library.string()}));

  BuildRequest overridden = with_defaults;
  overridden.flags = std::vector<std::string>{"-O1", "-DTILE=64"};
  const BuildOutcome custom = builder.build(overridden);
  EXPECT_FALSE(custom.cached);
  EXPECT_NE(custom.hash, defaults.hash);
  EXPECT_TRUE(contains(custom.command, " -O1 -DTILE=64 -shared -fPIC ")) << custom.command;
  EXPECT_FALSE(contains(custom.command, "-O3")) << custom.command;
  EXPECT_TRUE(contains(read(log()), "-O1 -DTILE=64 -shared -fPIC"));
}

TEST_F(FakeCompilerTest, ANewCompilerVersionOrTargetRebuilds) {
  const Builder builder(cache());
  const BuildOutcome first = builder.build(request(compiler(kWritesOutput, "fake 1.0")));
  const BuildOutcome upgraded = builder.build(request(compiler(kWritesOutput, "fake 2.0")));
  BuildRequest other_gpu = request(compiler(kWritesOutput, "fake 2.0"));
  other_gpu.target = "x86_64 NVIDIA B200";
  const BuildOutcome retargeted = builder.build(other_gpu);
  EXPECT_FALSE(upgraded.cached);
  EXPECT_FALSE(retargeted.cached);
  EXPECT_NE(upgraded.hash, first.hash);
  EXPECT_NE(retargeted.hash, upgraded.hash);
  EXPECT_EQ(compiles(), 3);
}

TEST_F(FakeCompilerTest, AFailureKeepsTheCompilersOutputAndCachesNothing) {
  const Builder builder(cache());
  const Toolchain cc =
      compiler("echo \"candidate.cpp:3:1: error: expected ';' before '}' token\" >&2; exit 1");

  const BuildOutcome failed = builder.build(request(cc));
  EXPECT_FALSE(failed.ok);
  EXPECT_FALSE(failed.cached);
  EXPECT_TRUE(failed.library.empty());
  EXPECT_TRUE(
      contains(failed.diagnostics, "candidate.cpp:3:1: error: expected ';' before '}' token"))
      << failed.diagnostics;
  EXPECT_TRUE(contains(failed.diagnostics, "exited with status 1")) << failed.diagnostics;
  EXPECT_TRUE(fs::is_empty(cache())) << "a failed build left files in the cache";

  builder.build(request(cc));
  EXPECT_EQ(compiles(), 2);
}

TEST_F(FakeCompilerTest, ACompilerThatWritesNoObjectFails) {
  const BuildOutcome outcome = Builder(cache()).build(request(compiler("exit 0")));
  EXPECT_FALSE(outcome.ok);
  EXPECT_TRUE(contains(outcome.diagnostics, "wrote no shared object")) << outcome.diagnostics;
}

TEST_F(FakeCompilerTest, ACompilerPastTheTimeLimitIsKilled) {
  BuildRequest slow = request(compiler("sleep 30; " + std::string(kWritesOutput)));
  slow.timeout_seconds = 1.0;
  const BuildOutcome outcome = Builder(cache()).build(slow);
  EXPECT_FALSE(outcome.ok);
  EXPECT_LT(outcome.seconds, 10.0);
  EXPECT_TRUE(contains(outcome.diagnostics, "killed after 1 s (time limit)"))
      << outcome.diagnostics;
  EXPECT_TRUE(fs::is_empty(cache()));
}

TEST_F(FakeCompilerTest, LongCompilerOutputIsBounded) {
  const BuildOutcome outcome = Builder(cache()).build(request(
      compiler("yes 'candidate.cpp:1:1: error: too many errors' | head -c 200000; exit 1")));
  EXPECT_FALSE(outcome.ok);
  EXPECT_TRUE(contains(outcome.diagnostics, "candidate.cpp:1:1: error: too many errors"));
  EXPECT_TRUE(contains(outcome.diagnostics, "more bytes]")) << outcome.diagnostics.substr(0, 200);
  EXPECT_LT(outcome.diagnostics.size(), Builder::kOutputLimit + 512);
  EXPECT_GT(outcome.diagnostics.size(), Builder::kOutputLimit - 64);
}

TEST_F(FakeCompilerTest, AMissingCompilerIsABuildError) {
  Toolchain missing{"d2k-no-such-compiler", {}, {}};
  EXPECT_THROW(Builder(cache()).build(request(missing)), BuildError);
}

TEST_F(FakeCompilerTest, ACompilerWithoutAVersionIsABuildError) {
  const fs::path script = dir_ / "no-version";
  std::ofstream(script) << "#!/bin/sh\necho 'unknown option' >&2\nexit 2\n";
  chmod(script.c_str(), 0755);
  try {
    Builder(cache()).build(request(Toolchain{script.string(), {}, {}}));
    FAIL() << "built with a compiler that has no --version";
  } catch (const BuildError& error) {
    EXPECT_TRUE(contains(error.what(), "unknown option")) << error.what();
  }
}

BuildKey sample_key() {
  return BuildKey{"nvcc", "Cuda compilation tools, release 13.0", {"-O3", "-shared"}, "x86_64 H200",
                  "__global__ void k() {}\n"};
}

TEST(BuildKeyTest, IsStableAndCoversEveryField) {
  const std::string base = sample_key().hash();
  EXPECT_EQ(sample_key().hash(), base);
  EXPECT_EQ(base.size(), 16u);

  BuildKey key = sample_key();
  key.compiler = "/usr/local/cuda/bin/nvcc";
  EXPECT_NE(key.hash(), base);
  key = sample_key();
  key.compiler_version += "1";
  EXPECT_NE(key.hash(), base);
  key = sample_key();
  key.flags.push_back("-lineinfo");
  EXPECT_NE(key.hash(), base);
  key = sample_key();
  key.target = "x86_64 B200";
  EXPECT_NE(key.hash(), base);
  key = sample_key();
  key.source += " ";
  EXPECT_NE(key.hash(), base);
}

TEST(BuildKeyTest, FieldBoundariesMatter) {
  BuildKey split = sample_key();
  split.flags = {"-O", "3"};
  BuildKey joined = sample_key();
  joined.flags = {"-O3"};
  EXPECT_NE(split.hash(), joined.hash());

  BuildKey moved = sample_key();
  moved.compiler = "nvcc-";
  moved.compiler_version = "Cuda compilation tools, release 13.0";
  BuildKey original = sample_key();
  original.compiler = "nvcc";
  original.compiler_version = "-Cuda compilation tools, release 13.0";
  EXPECT_NE(moved.hash(), original.hash());
}

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) saved_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

TEST(DefaultCacheDirTest, ComesFromD2kCacheOrHome) {
  {
    ScopedEnv cache("D2K_CACHE", "/var/d2k-cache");
    EXPECT_EQ(default_cache_dir(), fs::path("/var/d2k-cache/native"));
  }
  ScopedEnv no_cache("D2K_CACHE", nullptr);
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(default_cache_dir(), fs::path("/home/someone/.cache/d2k/native"));
}

TEST(ToolchainTest, DefaultsAndRequiredFlags) {
  const Toolchain nvcc = nvcc_toolchain();
  EXPECT_EQ(nvcc.default_flags,
            (std::vector<std::string>{"-gencode=arch=compute_90a,code=sm_90a", "-O3"}));
  ASSERT_GE(nvcc.required_flags.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(nvcc.required_flags.begin(), nvcc.required_flags.begin() + 3),
            (std::vector<std::string>{"-shared", "-Xcompiler", "-fPIC"}));
  const Toolchain cxx = cxx_toolchain();
  EXPECT_EQ(std::vector<std::string>(cxx.required_flags.begin(), cxx.required_flags.begin() + 2),
            (std::vector<std::string>{"-shared", "-fPIC"}));
  // Both find d2k/native_abi.h and dlpack/dlpack.h, which may sit in a system folder.
  for (const Toolchain* toolchain : {&nvcc, &cxx}) {
    bool abi = false;
    bool dlpack = fs::exists("/usr/include/dlpack/dlpack.h") ||
                  fs::exists("/usr/local/include/dlpack/dlpack.h");
    for (const auto& flag : toolchain->required_flags) {
      if (flag.rfind("-I", 0) != 0) continue;
      EXPECT_NE(flag, "-I/usr/include");
      abi = abi || fs::exists(fs::path(flag.substr(2)) / "d2k" / "native_abi.h");
      dlpack = dlpack || fs::exists(fs::path(flag.substr(2)) / "dlpack" / "dlpack.h");
    }
    EXPECT_TRUE(abi && dlpack) << toolchain->compiler;
  }
}

TEST(ToolchainTest, EnvironmentChoosesTheCompiler) {
  ScopedEnv nvcc("D2K_NVCC", "/opt/cuda-13/bin/nvcc");
  ScopedEnv cxx("CXX", "clang++-16");
  EXPECT_EQ(nvcc_toolchain().compiler, "/opt/cuda-13/bin/nvcc");
  EXPECT_EQ(cxx_toolchain().compiler, "clang++-16");
}

}  // namespace
}  // namespace d2k::native
