#include "validity/native_analyzer.h"

#include <fstream>

#include <gtest/gtest.h>

#include "validity/elf_dependencies.h"

namespace d2k::validity {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kForbidden = task::default_implementation_rules().forbidden_libraries;

TEST(NativeAnalyzer, NamesTheLibraryOfASonameHeaderOrSymbol) {
  EXPECT_EQ(forbidden_library_of_soname("libcublas.so.12", kForbidden), "cublas");
  EXPECT_EQ(forbidden_library_of_soname("libcublasLt.so.12", kForbidden), "cublasLt");
  EXPECT_EQ(forbidden_library_of_soname("libcudart.so.12", kForbidden), "");
  EXPECT_EQ(forbidden_library_of_soname("libc.so.6", kForbidden), "");
  EXPECT_EQ(forbidden_library_of_header("cublas_v2.h", kForbidden), "cublas");
  EXPECT_EQ(forbidden_library_of_header("torch/extension.h", kForbidden), "torch");
  EXPECT_EQ(forbidden_library_of_header("cuda_runtime.h", kForbidden), "");
  EXPECT_EQ(forbidden_library_of_header("d2k/native_abi.h", kForbidden), "");
  EXPECT_EQ(forbidden_library_of_symbol("cublasSgemm_v2", kForbidden), "cublas");
  EXPECT_EQ(forbidden_library_of_symbol("_ZN2at6matmulERKNS_6TensorES2_", kForbidden), "ATen");
  EXPECT_EQ(forbidden_library_of_symbol("cudaMalloc", kForbidden), "");
  EXPECT_EQ(forbidden_library_of_symbol("blast_off", kForbidden), "");
}

TEST(NativeAnalyzer, ReadsTheNeededLibrariesOfARealObject) {
  // Any shared library of this system that links libc shows DT_NEEDED reading works.
  const fs::path object = "/usr/lib/x86_64-linux-gnu/libyaml-cpp.so.0.7";
  if (!fs::exists(object)) GTEST_SKIP() << object << " is not installed";
  const ElfDependencies dependencies = read_elf_dependencies(object);
  EXPECT_NE(std::find(dependencies.needed.begin(), dependencies.needed.end(), "libc.so.6"),
            dependencies.needed.end());
  EXPECT_FALSE(dependencies.undefined_symbols.empty());
}

TEST(NativeAnalyzer, RejectsAFileThatIsNotElf) {
  const fs::path file = fs::temp_directory_path() / "d2k-not-elf.so";
  std::ofstream(file) << "not an object";
  EXPECT_THROW(read_elf_dependencies(file), std::runtime_error);
  fs::remove(file);
}

TEST(NativeAnalyzer, FindsForbiddenIncludesWithTheirLine) {
  const fs::path dir = fs::temp_directory_path() / "d2k-native-analyzer-test";
  fs::create_directories(dir);
  std::ofstream(dir / "helper.h") << "#pragma once\n#include <cudnn.h>\n";
  std::ofstream(dir / "solution.cu") << "#include <cuda_runtime.h>\n#include \"helper.h\"\n"
                                        "  #  include <cublas_v2.h>\n";
  const auto findings = analyze_native(dir / "solution.cu", "", task::default_implementation_rules());
  fs::remove_all(dir);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].rule, "forbidden_library:cudnn");
  EXPECT_EQ(findings[0].file, "helper.h");
  EXPECT_EQ(findings[0].line, 2);
  EXPECT_EQ(findings[1].rule, "forbidden_library:cublas");
  EXPECT_EQ(findings[1].file, "solution.cu");
  EXPECT_EQ(findings[1].line, 3);
  EXPECT_EQ(findings[1].reason_code, "forbidden_library");
}

TEST(NativeAnalyzer, FindsAForbiddenLibraryTheBuiltObjectNeeds) {
  const fs::path object = "/usr/lib/x86_64-linux-gnu/libyaml-cpp.so.0.7";
  if (!fs::exists(object)) GTEST_SKIP() << object << " is not installed";
  const fs::path source = fs::temp_directory_path() / "d2k-native-analyzer-empty.cpp";
  std::ofstream(source) << "int x;\n";
  task::ImplementationRules rules = task::default_implementation_rules();
  EXPECT_TRUE(analyze_native(source, object, rules).empty());
  rules.forbidden_libraries.push_back("stdc++");
  const auto findings = analyze_native(source, object, rules);
  fs::remove(source);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "forbidden_library:stdc++");
  EXPECT_EQ(findings[0].evidence, std::vector<std::string>{"libstdc++.so.6"});
}

}  // namespace
}  // namespace d2k::validity
