#include "task/implementation_rules.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "task/task_error.h"

namespace d2k::task {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& file, const YAML::Mark& mark, const std::string& message) {
  // yaml-cpp counts from 0 and marks unknown positions with -1.
  throw TaskError(file, mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 : 0,
                  message);
}

std::vector<std::string> read_names(const fs::path& file, const YAML::Node& node,
                                    const std::string& key) {
  if (!node.IsSequence()) fail(file, node.Mark(), "rules." + key + ": expected a list of strings");
  std::vector<std::string> names;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    if (!item.IsScalar() || item.Scalar().empty()) {
      fail(file, item.Mark(), fmt::format("rules.{}[{}]: expected a non-empty string", key, i));
    }
    names.push_back(item.Scalar());
  }
  return names;
}

void add(std::vector<std::string>& list, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  }
}

bool remove(std::vector<std::string>& list, const std::string& name) {
  const auto it = std::find(list.begin(), list.end(), name);
  if (it == list.end()) return false;
  list.erase(it);
  return true;
}

}  // namespace

ImplementationRules default_implementation_rules() {
  ImplementationRules rules;
  // Ways to run code the analysis cannot see, to reach other processes or the harness's memory,
  // to keep results outside the process, or to work in the background after run() returns.
  rules.forbidden_modules = {
      "ctypes",   "cffi",    "subprocess", "multiprocessing", "threading", "_thread",
      "concurrent", "asyncio", "socket",   "importlib",       "runpy",     "gc",
      "inspect",  "pickle",  "marshal",    "shelve",          "mmap",      "tempfile",
      "shutil",   "torch.utils.cpp_extension",
      // Process creation under other names: os's own backend and the pseudo-terminal helpers.
      "pty",      "posix",   "_posixsubprocess", "pexpect",
      // Raw driver access: streams, memory and modules of the candidate's own.
      "cuda",     "cupy",    "pycuda"};
  rules.hidden_modules = {"reference", "expert"};
  rules.forbidden_calls = {
      "eval",         "exec",          "compile",         "__import__",      "__builtins__",
      "breakpoint",   "open",          "vars",            "globals",         "io.open",
      "os.system",    "os.popen",      "os.fork*",        "os.exec*",
      "os.spawn*",    "os.posix_spawn*", "os.open",       "sys.modules",     "sys._getframe",
      "sys.settrace", "sys.setprofile", "sys.path",       "sys.meta_path",   "sys.path_hooks",
      "functools.lru_cache", "functools.cache", "torch.save", "torch.load", "numpy.save",
      "numpy.load",   "torch.ops.*",   "torch.library.*", "torch._C.*",
      // Streams and graphs belong to the harness: work on another stream escapes its timing,
      // and code that checks for a capture can behave differently while being timed.
      "torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.set_stream", "torch.cuda.ExternalStream",
      "torch.cuda.streams.*", "torch.cuda.graph", "torch.cuda.CUDAGraph", "torch.cuda.graphs.*",
      "torch.cuda.is_current_stream_capturing"};
  rules.forbidden_attributes = {"as_subclass", "_make_subclass", "__dict__",  "__getattribute__",
                                "__subclasses__", "__globals__", "__code__", "__closure__",
                                "__builtins__", "f_back",        "f_globals", "f_locals",
                                "gi_frame",     "tb_frame"};
  rules.torch_glue = {
      "torch.empty", "torch.empty_like", "torch.empty_strided", "torch.zeros", "torch.zeros_like",
      "torch.Tensor", "torch.Size", "torch.dtype", "torch.device", "torch.float16",
      "torch.float32", "torch.float64", "torch.bfloat16", "torch.half", "torch.float",
      "torch.double", "torch.int8", "torch.int16", "torch.int32", "torch.int64", "torch.int",
      "torch.long", "torch.uint8", "torch.bool", "torch.float8_e4m3fn", "torch.float8_e5m2",
      "torch.is_tensor", "torch.finfo", "torch.iinfo", "torch.no_grad", "torch.inference_mode",
      "torch.strided", "torch.contiguous_format", "torch.__version__", "torch.cuda.is_available",
      "torch.cuda.current_device", "torch.cuda.current_stream", "torch.cuda.device",
      "torch.cuda.get_device_properties", "torch.cuda.get_device_capability"};
  rules.compute_methods = {
      "matmul", "mm",   "bmm",  "mv",     "addmm", "addbmm", "baddbmm", "einsum", "dot",
      "exp",    "exp_", "log",  "sum",    "mean",  "norm",   "sqrt",    "rsqrt",  "pow",
      "mul",    "mul_", "add",  "add_",   "sub",   "sub_",   "div",     "div_",   "softmax",
      "log_softmax", "float", "half", "bfloat16", "double", "clamp", "abs", "amax", "amin",
      "cumsum", "copy_"};
  rules.forbidden_libraries = {"cublas", "cublasLt", "cudnn",  "cusolver", "cusparse", "cufft",
                               "torch",  "torch_cpu", "torch_cuda", "c10", "c10_cuda", "ATen",
                               "mkl",    "openblas", "blas",   "cblas",    "lapack",   "dnnl"};
  return rules;
}

ImplementationRules read_implementation_rules(const fs::path& file) {
  ImplementationRules rules = default_implementation_rules();
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& error) {
    fail(file, error.mark, "invalid YAML: " + error.msg);
  }
  if (!root.IsMap()) return rules;  // the requirements reader reports this
  const YAML::Node node = std::as_const(root)["rules"];
  if (!node) return rules;
  if (!node.IsMap()) fail(file, node.Mark(), "rules: expected a mapping");
  const std::array<std::pair<std::string_view, std::vector<std::string>*>, 6> lists{{
      {"forbidden_modules", &rules.forbidden_modules},
      {"forbidden_calls", &rules.forbidden_calls},
      {"forbidden_attributes", &rules.forbidden_attributes},
      {"forbidden_operators", &rules.forbidden_operators},
      {"forbidden_libraries", &rules.forbidden_libraries},
      {"torch_glue", &rules.torch_glue},
  }};
  std::vector<std::pair<std::string, YAML::Node>> allowed;
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    const YAML::Node value = entry.second;
    const auto list = std::find_if(lists.begin(), lists.end(),
                                   [&](const auto& known) { return known.first == key; });
    if (list != lists.end()) {
      add(*list->second, read_names(file, value, key));
    } else if (key == "allow") {
      const auto names = read_names(file, value, key);
      for (size_t i = 0; i < names.size(); ++i) allowed.emplace_back(names[i], value[i]);
    } else if (key == "custom_kernels") {
      if (!value.IsScalar() || (value.Scalar() != "required" && value.Scalar() != "optional")) {
        fail(file, value.Mark(), "rules.custom_kernels: expected \"required\" or \"optional\"");
      }
      rules.custom_kernels_required = value.Scalar() == "required";
    } else if (key == "allow_host_sync") {
      if (!value.IsScalar() || value.Scalar().empty()) {
        fail(file, value.Mark(),
             "rules.allow_host_sync: expected the reason the task needs a host round trip");
      }
      rules.host_sync_reason = value.Scalar();
    } else {
      fail(file, entry.first.Mark(),
           fmt::format("rules.{}: unknown key (known: forbidden_modules, forbidden_calls, "
                       "forbidden_attributes, forbidden_operators, forbidden_libraries, "
                       "torch_glue, allow, custom_kernels, allow_host_sync)",
                       key));
    }
  }
  // Applied after every addition, so the order of keys in the file does not matter.
  for (const auto& [name, mark_node] : allowed) {
    bool found = name == "module_state";
    if (found) rules.forbid_module_state = false;
    for (auto* list : {&rules.forbidden_modules, &rules.hidden_modules, &rules.forbidden_calls,
                       &rules.forbidden_attributes, &rules.forbidden_operators,
                       &rules.forbidden_libraries}) {
      found = remove(*list, name) || found;
    }
    if (!found) {
      fail(file, mark_node.Mark(),
           fmt::format("rules.allow: \"{}\" is not a rule that could be lifted", name));
    }
  }
  return rules;
}

void to_json(nlohmann::json& j, const ImplementationRules& v) {
  j = {{"forbidden_modules", v.forbidden_modules},
       {"hidden_modules", v.hidden_modules},
       {"forbidden_calls", v.forbidden_calls},
       {"forbidden_attributes", v.forbidden_attributes},
       {"forbidden_operators", v.forbidden_operators},
       {"module_state", v.forbid_module_state},
       {"custom_kernels_required", v.custom_kernels_required},
       {"torch_glue", v.torch_glue},
       {"compute_methods", v.compute_methods},
       {"forbidden_libraries", v.forbidden_libraries},
       {"host_sync_reason", v.host_sync_reason}};
}

}  // namespace d2k::task
