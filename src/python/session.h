#pragma once
// The embedded interpreter as the worker sees it: load the task's and the candidate's Python
// files, build inputs, call run(...), and read tensors through DLPack. This layer is the only
// one that includes Python headers; everything above it sees C++ types.
//
// Everything the harness needs from torch (the Tensor type, to_dlpack, the stream and graph API)
// is captured before any candidate code runs, so a candidate that patches torch's module
// attributes does not change what the harness calls.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "python/tensor_info.h"

namespace d2k::python {

// The candidate file could not be imported, or defines no callable run.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Python raised inside a call; what() holds the formatted traceback.
class CallError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The call returned something that is not the declared outputs.
class OutputError : public std::runtime_error {
 public:
  OutputError(std::string reason_code, const std::string& message)
      : std::runtime_error(message), reason_code_(std::move(reason_code)) {}
  const std::string& reason_code() const { return reason_code_; }

 private:
  std::string reason_code_;
};

struct SessionOptions {
  bool use_cuda = false;
  uintptr_t stream = 0;  // CUstream made current for PyTorch and Triton when use_cuda
};

// A static argument's value, when it is a Python int or bool (`integer`) or a float.
struct Scalar {
  bool integer = false;
  int64_t int_value = 0;
  double float_value = 0.0;
};

class CapturedGraph {
 public:
  virtual ~CapturedGraph() = default;
  virtual void launch() = 0;
};

class Session {
 public:
  explicit Session(const SessionOptions& options);
  ~Session();
  Session(const Session&) = delete;  // owns the process's one interpreter
  Session& operator=(const Session&) = delete;

  // torch, triton, Python and device facts for the evaluation record.
  nlohmann::json environment() const;

  // The task's get_inputs.py (trusted task code).
  void load_inputs_module(const std::filesystem::path& file);
  // reference.py or a candidate solution; its folder goes first on sys.path so it can import
  // its own helper modules, after `import_dir` when one is given. Throws LoadError.
  void load_implementation(const std::filesystem::path& file,
                           const std::filesystem::path& import_dir = {});

  // Calls get_inputs(config) and keeps the argument list; returns its handle. `unread` gets the
  // config's keys (other than `ignored`) that get_inputs never looked at.
  int make_arguments(const nlohmann::json& config, const std::vector<std::string>& ignored,
                     std::vector<std::string>& unread);
  void release_arguments(int handle);
  size_t argument_count(int handle) const;
  // The argument's tensor, or nullopt for a non-tensor (a static scalar).
  std::optional<TensorInfo> argument_tensor(int handle, size_t index) const;
  // repr() of a non-tensor argument, for comparing static inputs across processes.
  std::string argument_repr(int handle, size_t index) const;
  // The argument as a number (native candidates receive these), or nullopt for anything else,
  // an int beyond int64 included.
  std::optional<Scalar> argument_scalar(int handle, size_t index) const;

  // run(*arguments); keeps the returned value as the last result. Throws CallError.
  void call(int handle);
  // The last result as exactly `expected` plain torch.Tensor outputs. Throws OutputError.
  std::vector<TensorInfo> last_outputs(size_t expected) const;
  void clear_last_result();

  // PyTorch's caching allocator on the current device (CUDA sessions; torch's own functions,
  // captured before any candidate loads): the bytes its tensors hold now, and the highest that
  // has been held since the last reset_peak_device_bytes().
  int64_t device_bytes_allocated() const;
  void reset_peak_device_bytes();
  int64_t peak_device_bytes() const;
  // Gives the blocks PyTorch's caching allocator holds unused back to the device, so a worker
  // waiting for its next workload does not keep the memory another worker's workload needs.
  // Nothing happens in a CPU session.
  void release_cached_device_memory();

  // Distribution checks (docs/protocol.md, "What is compared"): replaces argument `index` of
  // argument list `handle` with the Python int `value` (the sampler's seed for one draw), and
  // calls another function of the loaded implementation module on an argument list, keeping
  // its result as the last result (the reference's target_probabilities). call_function throws
  // LoadError when the module defines no such callable and CallError when it raises.
  void set_integer_argument(int handle, size_t index, int64_t value);
  void call_function(const std::string& name, int handle);

  // Records what `body` launches into a CUDA graph (torch.cuda.CUDAGraph on the harness stream).
  std::unique_ptr<CapturedGraph> capture_graph(const std::function<void()>& body);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace d2k::python
