#include "native/library.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "native/builder.h"
#include "native/call_arguments.h"
#include "native/command.h"
#include "util/temp_dir.h"

namespace d2k::native {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Candidates built with the real host compiler, as `d2k eval` builds a .cpp.
class LibraryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    temp_.emplace("d2k_library_test_");
    dir_ = temp_->path();
  }
  static void TearDownTestSuite() { temp_.reset(); }

  static fs::path build(const std::string& name, const std::string& source) {
    const fs::path file = dir_ / (name + ".cpp");
    std::ofstream(file) << source;
    BuildRequest request;
    request.source = file;
    request.toolchain = cxx_toolchain();
    request.target = "test";
    const BuildOutcome outcome = Builder(dir_ / "cache").build(request);
    EXPECT_TRUE(outcome.ok) << outcome.diagnostics;
    return outcome.library;
  }

  static std::string load_error(const fs::path& library) {
    try {
      Library loaded(library);
    } catch (const LoadError& error) {
      return error.what();
    }
    ADD_FAILURE() << "loaded " << library;
    return "";
  }

  static inline std::optional<util::TempDir> temp_;
  static inline fs::path dir_;
};

constexpr const char* kVersion = R"(#include <d2k/native_abi.h>
int32_t d2k_native_abi_version(void) { return D2K_NATIVE_ABI_VERSION; }
)";

// out = alpha * x + offset, checking every field the ABI promises.
constexpr const char* kScaleAdd = R"(
#include <cstdio>
int32_t d2k_native_setup(const d2k_native_call* call, uint64_t* workspace_bytes, char*, size_t) {
  *workspace_bytes = 8 * static_cast<uint64_t>(call->inputs[0].shape[0]);
  return 0;
}
int32_t d2k_native_run(const d2k_native_call* call, char* error, size_t error_size) {
  const DLTensor& x = call->inputs[0];
  const DLTensor& out = call->outputs[0];
  const d2k_native_param* alpha = d2k_native_find_param(call, "alpha");
  const d2k_native_param* offset = d2k_native_find_param(call, "offset");
  if (call->abi_version != D2K_NATIVE_ABI_VERSION || call->num_inputs != 1 ||
      call->num_outputs != 1 || call->num_params != 2 || alpha == nullptr || offset == nullptr ||
      alpha->kind != D2K_NATIVE_FLOAT64 || offset->kind != D2K_NATIVE_INT64 ||
      x.dtype.code != kDLFloat || x.dtype.bits != 32 || x.device.device_type != kDLCPU ||
      x.strides == nullptr || x.strides[0] != 1 || out.shape[0] != x.shape[0] ||
      call->stream != nullptr || call->workspace_bytes != 8 * uint64_t(x.shape[0])) {
    std::snprintf(error, error_size, "unexpected call");
    return 1;
  }
  const float* in = static_cast<const float*>(x.data);
  float* result = static_cast<float*>(out.data);
  for (int64_t i = 0; i < x.shape[0]; ++i) {
    result[i] = float(alpha->float64_value) * in[i] + float(offset->int64_value);
  }
  return 0;
}
)";

TEST_F(LibraryTest, SetsUpAndRunsWithTheDocumentedCall) {
  Library library(build("scale_add", std::string(kVersion) + kScaleAdd));
  std::vector<float> x{1.0f, 2.0f, 3.0f};
  std::vector<float> out(3, 0.0f);
  CallArguments arguments({{x.data(), "float32", {3}, {1}, false}},
                          {{out.data(), "float32", {3}, {1}, false}},
                          {{"alpha", false, 0, 2.0}, {"offset", true, 10, 0.0}}, nullptr);
  ASSERT_TRUE(library.has_setup());
  const uint64_t workspace_bytes = library.setup(arguments.call());
  EXPECT_EQ(workspace_bytes, 24u);
  std::vector<char> workspace(workspace_bytes);
  arguments.set_workspace(workspace.data(), workspace_bytes);
  library.run(arguments.call());
  EXPECT_EQ(out, (std::vector<float>{12.0f, 14.0f, 16.0f}));
}

TEST_F(LibraryTest, AFailingCallCarriesTheCandidatesMessage) {
  Library library(build("fails", std::string(kVersion) + R"(
#include <cstdio>
int32_t d2k_native_run(const d2k_native_call*, char* error, size_t error_size) {
  std::snprintf(error, error_size, "shape %d not supported", 7);
  return 3;
})"));
  CallArguments arguments({}, {}, {}, nullptr);
  EXPECT_FALSE(library.has_setup());
  EXPECT_EQ(library.setup(arguments.call()), 0u);
  try {
    library.run(arguments.call());
    FAIL() << "a nonzero status did not throw";
  } catch (const CallError& error) {
    EXPECT_EQ(std::string(error.what()), "d2k_native_run returned 3: shape 7 not supported");
  }
}

TEST_F(LibraryTest, AMessageWithoutTerminatorIsCutAtTheBuffer) {
  Library library(build("unterminated", std::string(kVersion) + R"(
#include <cstring>
int32_t d2k_native_run(const d2k_native_call*, char* error, size_t error_size) {
  std::memset(error, 'e', error_size);
  return 1;
})"));
  CallArguments arguments({}, {}, {}, nullptr);
  try {
    library.run(arguments.call());
    FAIL();
  } catch (const CallError& error) {
    EXPECT_TRUE(contains(error.what(), std::string(4095, 'e')));
    EXPECT_FALSE(contains(error.what(), std::string(4096, 'e')));
  }
}

TEST_F(LibraryTest, MissingRunIsALoadError) {
  EXPECT_TRUE(contains(load_error(build("no_run", kVersion)), "does not export d2k_native_run"));
}

TEST_F(LibraryTest, MissingVersionIsALoadError) {
  const std::string error = load_error(build("no_version", R"(#include <d2k/native_abi.h>
int32_t d2k_native_run(const d2k_native_call*, char*, size_t) { return 0; })"));
  EXPECT_TRUE(contains(error, "does not export d2k_native_abi_version")) << error;
}

TEST_F(LibraryTest, AnotherAbiVersionIsALoadError) {
  const std::string error = load_error(build("old_abi", R"(#include <d2k/native_abi.h>
int32_t d2k_native_abi_version(void) { return 999; }
int32_t d2k_native_run(const d2k_native_call*, char*, size_t) { return 0; })"));
  EXPECT_TRUE(contains(error, "native ABI version 999; this d2k speaks version 1")) << error;
}

TEST_F(LibraryTest, AFileThatIsNoSharedObjectIsALoadError) {
  const fs::path junk = dir_ / "junk.so";
  std::ofstream(junk) << "not an ELF file";
  EXPECT_TRUE(contains(load_error(junk), "cannot load the candidate")) << load_error(junk);
}

// The CUDA C++ Muon baseline builds with the default nvcc flags (sm_90a) and exports the ABI.
// Loading needs no GPU: the version entry point launches nothing. Without nvcc it skips, unless
// $D2K_REQUIRE_NVCC is set, as CI sets it (tools/run_tests.sh).
TEST_F(LibraryTest, TheCudaMuonBaselineBuildsWithNvcc) {
  const Toolchain nvcc = nvcc_toolchain();
  try {
    run_command({nvcc.compiler, "--version"}, dir_, 60.0, 4096);
  } catch (const std::runtime_error& error) {
    if (std::getenv("D2K_REQUIRE_NVCC") != nullptr) {
      FAIL() << "no nvcc here, and $D2K_REQUIRE_NVCC is set: " << error.what();
    }
    GTEST_SKIP() << "no nvcc here: " << error.what();
  }
  BuildRequest request;
  request.source =
      fs::path(D2K_SOURCE_DIR) / "tasks" / "muon_orthogonalization" / "baseline" / "solution.cu";
  request.toolchain = nvcc;
  request.target = "test";
  const BuildOutcome outcome = Builder(dir_ / "cache").build(request);
  ASSERT_TRUE(outcome.ok) << outcome.diagnostics;
  EXPECT_TRUE(contains(outcome.command, "-gencode=arch=compute_90a,code=sm_90a"))
      << outcome.command;
  Library library(outcome.library);
  EXPECT_TRUE(library.has_setup());
}

TEST(CallArgumentsTest, DescribesEveryTensorAndParameter) {
  float x[6] = {};
  uint16_t out[2] = {};
  CallArguments arguments({{x, "float32", {2, 3}, {3, 1}, true}},
                          {{out, "bfloat16", {2}, {1}, true}}, {{"steps", true, 5, 0.0}},
                          reinterpret_cast<void*>(0x1234));
  const d2k_native_call& call = arguments.call();
  EXPECT_EQ(call.abi_version, D2K_NATIVE_ABI_VERSION);
  ASSERT_EQ(call.num_inputs, 1);
  EXPECT_EQ(call.inputs[0].data, x);
  EXPECT_EQ(call.inputs[0].ndim, 2);
  EXPECT_EQ(call.inputs[0].shape[1], 3);
  EXPECT_EQ(call.inputs[0].strides[0], 3);
  EXPECT_EQ(call.inputs[0].device.device_type, kDLCUDA);
  EXPECT_EQ(call.inputs[0].byte_offset, 0u);
  ASSERT_EQ(call.num_outputs, 1);
  EXPECT_EQ(call.outputs[0].dtype.code, kDLBfloat);
  EXPECT_EQ(call.outputs[0].dtype.bits, 16);
  ASSERT_EQ(call.num_params, 1);
  EXPECT_STREQ(call.params[0].name, "steps");
  EXPECT_EQ(call.params[0].kind, D2K_NATIVE_INT64);
  EXPECT_EQ(call.params[0].int64_value, 5);
  EXPECT_EQ(call.stream, reinterpret_cast<void*>(0x1234));
  EXPECT_EQ(call.workspace, nullptr);
  EXPECT_EQ(call.workspace_bytes, 0u);
}

TEST(CallArgumentsTest, DtypeNamesMapToDlpack) {
  EXPECT_EQ(dl_data_type("bool").code, 6);
  EXPECT_EQ(dl_data_type("int64").bits, 64);
  EXPECT_EQ(dl_data_type("uint8").code, kDLUInt);
  EXPECT_THROW(dl_data_type("complex64"), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::native
