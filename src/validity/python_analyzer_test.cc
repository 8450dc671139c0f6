// The static analysis of Python candidates: each rule is shown by a source that breaks it, with
// the reason code and line it must get, and legitimate code that must pass.

#include "validity/python_analyzer.h"
#include "util/temp_dir.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace d2k::validity {
namespace {

namespace fs = std::filesystem;
using ::testing::IsEmpty;

class PythonAnalyzerTest : public ::testing::Test {
 protected:
  void write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
  }

  std::vector<record::Finding> analyze(const std::string& source) {
    write("solution.py", source);
    return PythonAnalyzer().analyze(dir_ / "solution.py", rules);
  }

  // The reason codes of the findings, each with its line: "forbidden_call@3".
  std::vector<std::string> reasons(const std::string& source) {
    std::vector<std::string> codes;
    for (const auto& finding : analyze(source)) {
      codes.push_back(finding.reason_code + "@" + std::to_string(finding.line));
    }
    return codes;
  }

  task::ImplementationRules rules = task::default_implementation_rules();
  util::TempDir temp_{"d2k-analyzer-test-"};
  fs::path dir_ = temp_.path();
};

constexpr const char* kHonest = R"(import torch

BLOCK = 64


def _rows(x, start):
    return x[start:start + BLOCK]


def run(x, alpha=1.0):
    out = torch.empty_like(x)
    for start in range(0, x.shape[0], BLOCK):
        block = _rows(x, start)
        out[start:start + BLOCK] = block * alpha
    return out
)";

TEST_F(PythonAnalyzerTest, HonestCodePasses) { EXPECT_THAT(analyze(kHonest), IsEmpty()); }

TEST_F(PythonAnalyzerTest, ForbiddenCallsAreFoundThroughAliases) {
  rules.forbidden_calls.push_back("torch.matmul");
  EXPECT_EQ(reasons("import torch\ntorch.matmul\n"), std::vector<std::string>{"forbidden_call@2"});
  EXPECT_EQ(reasons("import torch as t\n\ndef run(a, b):\n    return t.matmul(a, b)\n"),
            std::vector<std::string>{"forbidden_call@4"});
  EXPECT_EQ(reasons("from torch import matmul as mm\nf = mm\ndef run(a, b):\n    return f(a, b)\n"),
            (std::vector<std::string>{"forbidden_call@2", "forbidden_call@4"}));
}

TEST_F(PythonAnalyzerTest, GetattrWithAConstantNameIsFolded) {
  rules.forbidden_calls.push_back("torch.matmul");
  EXPECT_EQ(reasons("import torch\nNAME = 'mat' + 'mul'\n\ndef run(a, b):\n"
                    "    return getattr(torch, NAME)(a, b)\n"),
            std::vector<std::string>{"forbidden_call@5"});
  EXPECT_EQ(reasons("import torch\ndef run(a, b):\n    return getattr(torch, ''.join(['mat', 'mul']))(a, b)\n"),
            std::vector<std::string>{"forbidden_call@3"});
  EXPECT_EQ(reasons("import torch\ndef run(a, b, n):\n    return getattr(torch, n)(a, b)\n"),
            std::vector<std::string>{"dynamic_attribute@3"});
}

TEST_F(PythonAnalyzerTest, DynamicCodeIsForbiddenUnlessAllowed) {
  EXPECT_EQ(reasons("def run(x):\n    return eval('x + 1')\n"), std::vector<std::string>{"forbidden_call@2"});
  EXPECT_EQ(reasons("import builtins\ndef run(x):\n    return builtins.exec('1')\n"),
            std::vector<std::string>{"forbidden_call@3"});
  EXPECT_EQ(reasons("import os\nos.system('ls')\n"), std::vector<std::string>{"forbidden_call@2"});
  EXPECT_EQ(reasons("import ctypes\n"), std::vector<std::string>{"forbidden_module@1"});
  EXPECT_EQ(reasons("from importlib import import_module\n"), std::vector<std::string>{"forbidden_module@1"});
  rules.forbidden_calls.erase(std::find(rules.forbidden_calls.begin(), rules.forbidden_calls.end(), "eval"));
  EXPECT_THAT(analyze("def run(x):\n    return eval('x + 1')\n"), IsEmpty());
}

// Every way to start a process, through every import form: each is a finding, on its line.
TEST_F(PythonAnalyzerTest, ProcessCreationIsForbiddenThroughAnyAlias) {
  for (const std::string source :
       {"import pty\n", "import pty as p\n", "from pty import spawn\n", "from pty import fork as f\n",
        "import subprocess as s\n", "from subprocess import Popen\n", "import multiprocessing.pool\n",
        "from multiprocessing import Process as P\n", "import posix\n", "import _posixsubprocess\n"}) {
    EXPECT_EQ(reasons(source), std::vector<std::string>{"forbidden_module@1"}) << source;
  }
  for (const std::string source :
       {"import os\nos.fork()\n", "import os\nos.forkpty()\n", "import os as o\no.system('x')\n",
        "from os import popen\npopen('x')\n", "from os import execv as e\ne('/bin/sh', [])\n",
        "import os\nos.posix_spawn('/bin/sh', [], {})\n", "import os\nos.posix_spawnp('sh', [], {})\n",
        "import os\nf = getattr(os, 'fo' + 'rk')\n", "from os import spawnlp as s\ns(0, 'sh')\n"}) {
    EXPECT_EQ(reasons(source), std::vector<std::string>{"forbidden_call@2"}) << source;
  }
}

TEST_F(PythonAnalyzerTest, ALocalNameThatShadowsABuiltinIsNotTheBuiltin) {
  EXPECT_THAT(analyze("def run(x, compile=False):\n    return x if compile else x\n"), IsEmpty());
}

TEST_F(PythonAnalyzerTest, TheReferenceAndExpertCannotBeImported) {
  EXPECT_EQ(reasons("from reference import run\n"), std::vector<std::string>{"reference_import@1"});
  EXPECT_EQ(reasons("import expert.solution as e\n"), std::vector<std::string>{"reference_import@1"});
}

TEST_F(PythonAnalyzerTest, ModulesImportedFromTheWorkspaceAreAnalyzedToo) {
  rules.forbidden_calls.push_back("torch.matmul");
  write("helpers/ops.py", "import torch\n\n\ndef product(a, b):\n    return torch.matmul(a, b)\n");
  write("helpers/__init__.py", "");
  const auto findings = analyze("from helpers.ops import product\n\ndef run(a, b):\n    return product(a, b)\n");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].reason_code, "forbidden_call");
  EXPECT_EQ(findings[0].file, "helpers/ops.py");
  EXPECT_EQ(findings[0].line, 5);
  EXPECT_EQ(findings[0].rule, "forbidden_call:torch.matmul");
  EXPECT_EQ(findings[0].evidence, std::vector<std::string>{"return torch.matmul(a, b)"});
}

TEST_F(PythonAnalyzerTest, TheMatmulOperatorWhereTheTaskForbidsIt) {
  const std::string source = "import operator\ndef run(a, b):\n    c = a @ b\n    c @= b\n"
                             "    return operator.matmul(c, b.__matmul__(a))\n";
  EXPECT_THAT(analyze(source), IsEmpty());
  rules.forbidden_operators.push_back("@");
  EXPECT_EQ(reasons(source), (std::vector<std::string>{"forbidden_operator@3", "forbidden_operator@4",
                                                       "forbidden_operator@5"}));
}

TEST_F(PythonAnalyzerTest, StateKeptBetweenCallsIsFound) {
  EXPECT_EQ(reasons("_cache = {}\ndef run(x):\n    _cache[x.data_ptr()] = x\n    return x\n"),
            std::vector<std::string>{"module_state@3"});
  EXPECT_EQ(reasons("seen = []\ndef run(x):\n    seen.append(x)\n    return x\n"),
            std::vector<std::string>{"module_state@3"});
  EXPECT_EQ(reasons("calls = 0\ndef run(x):\n    global calls\n    calls += 1\n    return x\n"),
            std::vector<std::string>{"module_state@3"});
  EXPECT_EQ(reasons("def run(x, memo={}):\n    return x\n"), std::vector<std::string>{"module_state@1"});
  EXPECT_EQ(reasons("import functools\n@functools.lru_cache\ndef f(n):\n    return n\n"),
            std::vector<std::string>{"forbidden_call@2"});
  rules.forbid_module_state = false;
  EXPECT_THAT(analyze("_cache = {}\ndef run(x):\n    _cache[1] = x\n    return x\n"), IsEmpty());
}

TEST_F(PythonAnalyzerTest, PatchingAnotherModuleIsFound) {
  EXPECT_EQ(reasons("import time\ntime.perf_counter = lambda: 0.0\n"),
            std::vector<std::string>{"monkey_patch@2"});
  EXPECT_EQ(reasons("import torch\nsetattr(torch.cuda, 'Event', object)\n"),
            std::vector<std::string>{"monkey_patch@2"});
  EXPECT_EQ(reasons("from torch import cuda as c\nc.Event.elapsed_time = None\n"),
            std::vector<std::string>{"monkey_patch@2"});
}

TEST_F(PythonAnalyzerTest, TensorSubclassesAreFound) {
  EXPECT_EQ(reasons("import torch\nclass Lazy(torch.Tensor):\n    pass\n"),
            std::vector<std::string>{"tensor_subclass@2"});
  EXPECT_EQ(reasons("class Box:\n    def __torch_function__(self, *a):\n        pass\n"),
            std::vector<std::string>{"tensor_subclass@2"});
}

TEST_F(PythonAnalyzerTest, CustomKernelsRequiredAllowsOnlyGlue) {
  rules.custom_kernels_required = true;
  const std::string kernel = "import torch\nimport triton\nimport triton.language as tl\n\n"
                             "@triton.jit\ndef k(x_ptr, n, B: tl.constexpr):\n"
                             "    v = tl.load(x_ptr + tl.arange(0, B))\n    a = v @ v\n"
                             "    tl.store(x_ptr + tl.arange(0, B), tl.sum(v, 0) + a)\n\n";
  rules.forbidden_operators.push_back("@");
  EXPECT_THAT(analyze(kernel + "def run(x):\n    out = torch.empty_like(x, dtype=torch.float16)\n"
                               "    k[(1,)](out, x.numel(), B=16)\n    return out.view(-1)\n"),
              IsEmpty());
  EXPECT_EQ(reasons(kernel + "def run(x):\n    return torch.exp(x)\n"),
            std::vector<std::string>{"torch_compute@12"});
  EXPECT_EQ(reasons(kernel + "def run(x):\n    return x.sum()\n"),
            std::vector<std::string>{"torch_compute@12"});
  EXPECT_EQ(reasons("import torch\ndef run(x):\n    return torch.empty_like(x)\n"),
            std::vector<std::string>{"no_custom_kernel@0"});
}

TEST_F(PythonAnalyzerTest, SourceThatDoesNotParseIsLeftToTheWorker) {
  EXPECT_THAT(analyze("def run(x:\n"), IsEmpty());
}

}  // namespace
}  // namespace d2k::validity
