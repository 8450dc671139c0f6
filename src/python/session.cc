#include "python/session.h"

#include <Python.h>
#include <dlpack/dlpack.h>
#include <pybind11/embed.h>
#include <pybind11/functional.h>

#include <cstdlib>
#include <map>

namespace py = pybind11;

namespace d2k::python {
namespace {

// The harness's own Python helpers. Callables that candidates could replace are bound as default
// arguments when this module is executed, before any candidate is imported.
constexpr const char* kHarnessSource = R"PY(
import importlib.util, json, os, sys, traceback

def load_module(name, path, add_dir, import_dir="", _spec=importlib.util.spec_from_file_location,
                _from_spec=importlib.util.module_from_spec):
    if import_dir and import_dir not in sys.path:
        sys.path.insert(0, import_dir)
    if add_dir:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in sys.path:
            sys.path.insert(0, folder)
    spec = _spec(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load " + path)
    module = _from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

def format_exception(exc, _format=traceback.format_exception):
    return "".join(_format(type(exc), exc, exc.__traceback__))

def to_python(text, _loads=json.loads):
    return _loads(text)

class ReadKeys(dict):
    """A workload's config that records which of its keys get_inputs reads; taking them all at
    once (iterating, copying, unpacking) counts as reading every one."""
    def __init__(self, *args):
        super().__init__(*args)
        self.read = set()
        self.all_read = False
    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)
    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)
    def __contains__(self, key):
        self.read.add(key)
        return super().__contains__(key)
    def pop(self, key, *default):
        self.read.add(key)
        return super().pop(key, *default)
    def setdefault(self, key, default=None):
        self.read.add(key)
        return super().setdefault(key, default)
    def _everything(self, method):
        self.all_read = True
        return method()
    def keys(self):
        return self._everything(super().keys)
    def items(self):
        return self._everything(super().items)
    def values(self):
        return self._everything(super().values)
    def __iter__(self):
        return self._everything(super().__iter__)
    def copy(self):
        return self._everything(super().copy)
    def __reduce_ex__(self, protocol):
        self.all_read = True
        return dict, (dict(super().items()),)

def make_inputs(get_inputs, text, ignored, _loads=json.loads, _keys=dict.keys):
    """get_inputs on the config in `text`; returns its values and the config keys (other than
    `ignored`) it never read."""
    config = ReadKeys(_loads(text))
    arguments = get_inputs(config)
    if config.all_read:
        return arguments, []
    return arguments, sorted(k for k in _keys(config) if k not in config.read and k not in ignored)

try:
    import torch
    import torch.utils.dlpack
except ImportError:
    torch = None

TENSOR_TYPE = torch.Tensor if torch is not None else type(None)
TO_DLPACK = torch.utils.dlpack.to_dlpack if torch is not None else None

def use_stream(handle):
    stream = torch.cuda.ExternalStream(handle)
    torch.cuda.set_stream(stream)
    return stream

def make_capture(_graph_type=torch.cuda.CUDAGraph if torch is not None else None,
                 _graph=torch.cuda.graph if torch is not None else None):
    def capture(body, stream):
        graph = _graph_type()
        with _graph(graph, stream=stream):
            body()
        return graph
    return capture

def memory_stats(_allocated=torch.cuda.memory_allocated if torch is not None else None,
                 _reset_peak=torch.cuda.reset_peak_memory_stats if torch is not None else None,
                 _peak=torch.cuda.max_memory_allocated if torch is not None else None,
                 _empty_cache=torch.cuda.empty_cache if torch is not None else None):
    return _allocated, _reset_peak, _peak, _empty_cache

def environment():
    info = {"python": sys.version.split()[0], "torch": "", "cuda": "", "triton": ""}
    if torch is not None:
        info["torch"] = torch.__version__
        info["cuda"] = torch.version.cuda or ""
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception:
        pass
    return info
)PY";

const char* python_executable() {
  const char* from_env = std::getenv("D2K_PYTHON");
  return from_env != nullptr && *from_env != '\0' ? from_env : D2K_PYTHON_EXECUTABLE;
}

// Starts CPython as if `python_executable()` were running, so a virtual environment's
// site-packages (where torch lives on the GPU machine) is found.
void start_interpreter() {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // signals stay with d2k: a crash must look like a crash
  config.parse_argv = 0;
  PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, python_executable());
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    throw std::runtime_error(std::string("cannot start Python (") + python_executable() +
                             "): " + (status.err_msg ? status.err_msg : "unknown error"));
  }
}

std::string dtype_name(const DLDataType& type) {
  if (type.lanes != 1) throw std::runtime_error("vector dtypes are not supported");
  switch (type.code) {
    case kDLFloat:
      if (type.bits == 16) return "float16";
      if (type.bits == 32) return "float32";
      if (type.bits == 64) return "float64";
      break;
    case kDLBfloat:
      if (type.bits == 16) return "bfloat16";
      break;
    case kDLInt:
      if (type.bits == 8) return "int8";
      if (type.bits == 16) return "int16";
      if (type.bits == 32) return "int32";
      if (type.bits == 64) return "int64";
      break;
    case kDLUInt:
      if (type.bits == 8) return "uint8";
      break;
    case 6:  // kDLBool in DLPack >= 0.8
      if (type.bits == 8) return "bool";
      break;
  }
  throw std::runtime_error("unsupported dtype (DLPack code " + std::to_string(type.code) +
                           ", " + std::to_string(type.bits) + " bits)");
}

}  // namespace

struct Session::State {
  py::object harness;
  py::object tensor_type;
  py::object to_dlpack;
  py::object capture;
  py::object format_exception;
  py::object to_python;
  py::object make_inputs;
  py::object stream;  // torch.cuda.ExternalStream around the harness stream
  // torch.cuda.memory_allocated, reset_peak_memory_stats, max_memory_allocated
  py::object memory_allocated;
  py::object reset_peak_memory;
  py::object peak_memory;
  py::object empty_cache;
  py::object get_inputs;
  py::object run;
  py::object implementation_module;  // for call_function
  py::object last_result;
  std::map<int, py::list> arguments;
  int next_handle = 0;

  std::string describe(const py::error_already_set& error) const {
    try {
      return format_exception(error.value()).cast<std::string>();
    } catch (...) {
      return error.what();
    }
  }

  TensorInfo read(const py::handle& tensor) const {
    py::object capsule = to_dlpack(tensor);
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (managed == nullptr) throw std::runtime_error("to_dlpack returned no DLPack capsule");
    const DLTensor& dl = managed->dl_tensor;
    TensorInfo info;
    info.data = static_cast<char*>(dl.data) + dl.byte_offset;
    info.dtype = dtype_name(dl.dtype);
    info.element_size = (dl.dtype.bits + 7) / 8;
    info.on_device = dl.device.device_type != kDLCPU;
    info.shape.assign(dl.shape, dl.shape + dl.ndim);
    if (dl.strides != nullptr) {
      info.strides.assign(dl.strides, dl.strides + dl.ndim);
    } else {
      info.strides.resize(dl.ndim);
      int64_t stride = 1;
      for (int d = dl.ndim; d-- > 0;) {
        info.strides[d] = stride;
        stride *= dl.shape[d];
      }
    }
    return info;  // the capsule's destructor releases DLPack's reference; the tensor stays alive
  }
};

Session::Session(const SessionOptions& options) : state_(std::make_unique<State>()) {
  start_interpreter();
  try {
    state_->harness = py::module_::import("types").attr("ModuleType")("_d2k_harness");
    py::exec(kHarnessSource, state_->harness.attr("__dict__"));
    state_->tensor_type = state_->harness.attr("TENSOR_TYPE");
    state_->to_dlpack = state_->harness.attr("TO_DLPACK");
    state_->format_exception = state_->harness.attr("format_exception");
    state_->to_python = state_->harness.attr("to_python");
    state_->make_inputs = state_->harness.attr("make_inputs");
    if (state_->to_dlpack.is_none()) throw std::runtime_error("PyTorch is not importable");
    if (options.use_cuda) {
      state_->stream = state_->harness.attr("use_stream")(options.stream);
      state_->capture = state_->harness.attr("make_capture")();
      const py::tuple memory = state_->harness.attr("memory_stats")();
      state_->memory_allocated = memory[0];
      state_->reset_peak_memory = memory[1];
      state_->peak_memory = memory[2];
      state_->empty_cache = memory[3];
    }
  } catch (const py::error_already_set& error) {
    throw std::runtime_error("harness start-up failed: " + state_->describe(error));
  }
}

// The interpreter is deliberately not finalized: the worker exits right after, and finalizing
// torch and CUDA modules at exit is slow and can hang.
Session::~Session() = default;

nlohmann::json Session::environment() const {
  py::object info = state_->harness.attr("environment")();
  return nlohmann::json::parse(py::module_::import("json").attr("dumps")(info).cast<std::string>());
}

void Session::load_inputs_module(const std::filesystem::path& file) {
  try {
    py::object module = state_->harness.attr("load_module")("d2k_task_inputs", file.string(), false);
    state_->get_inputs = module.attr("get_inputs");
  } catch (const py::error_already_set& error) {
    throw std::runtime_error("cannot load " + file.string() + ":\n" + state_->describe(error));
  }
}

void Session::load_implementation(const std::filesystem::path& file,
                                  const std::filesystem::path& import_dir) {
  py::object module;
  try {
    module = state_->harness.attr("load_module")("solution", file.string(), true,
                                                 import_dir.string());
  } catch (const py::error_already_set& error) {
    throw LoadError("importing " + file.filename().string() + " failed:\n" +
                    state_->describe(error));
  }
  if (!py::hasattr(module, "run") || !PyCallable_Check(module.attr("run").ptr())) {
    throw LoadError(file.filename().string() + " defines no callable run(...)");
  }
  state_->run = module.attr("run");
  state_->implementation_module = module;
}

int Session::make_arguments(const nlohmann::json& config, const std::vector<std::string>& ignored,
                            std::vector<std::string>& unread) {
  try {
    py::list names;
    for (const auto& name : ignored) names.append(name);
    const py::tuple made = state_->make_inputs(state_->get_inputs, config.dump(), py::set(names));
    const int handle = state_->next_handle++;
    state_->arguments.emplace(handle, py::list(made[0]));
    unread.clear();
    for (const py::handle key : made[1]) unread.push_back(py::str(key).cast<std::string>());
    return handle;
  } catch (const py::error_already_set& error) {
    throw std::runtime_error("get_inputs failed:\n" + state_->describe(error));
  }
}

void Session::release_arguments(int handle) { state_->arguments.erase(handle); }

size_t Session::argument_count(int handle) const { return state_->arguments.at(handle).size(); }

std::optional<TensorInfo> Session::argument_tensor(int handle, size_t index) const {
  py::handle item = state_->arguments.at(handle)[index];
  if (!py::isinstance(item, state_->tensor_type)) return std::nullopt;
  return state_->read(item);
}

std::string Session::argument_repr(int handle, size_t index) const {
  return py::repr(state_->arguments.at(handle)[index]).cast<std::string>();
}

std::optional<Scalar> Session::argument_scalar(int handle, size_t index) const {
  PyObject* item = state_->arguments.at(handle)[index].ptr();
  if (PyBool_Check(item)) return Scalar{true, item == Py_True ? 1 : 0, 0.0};
  if (PyLong_Check(item)) {
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (overflow != 0) return std::nullopt;
    return Scalar{true, value, 0.0};
  }
  if (PyFloat_Check(item)) return Scalar{false, 0, PyFloat_AsDouble(item)};
  return std::nullopt;
}

void Session::call(int handle) {
  state_->last_result = py::none();
  try {
    state_->last_result = state_->run(*state_->arguments.at(handle));
  } catch (const py::error_already_set& error) {
    throw CallError(state_->describe(error));
  }
}

void Session::set_integer_argument(int handle, size_t index, int64_t value) {
  state_->arguments.at(handle)[index] = py::int_(value);
}

void Session::call_function(const std::string& name, int handle) {
  const py::object& module = state_->implementation_module;
  if (!module || !py::hasattr(module, name.c_str()) ||
      !PyCallable_Check(module.attr(name.c_str()).ptr())) {
    throw LoadError("the implementation defines no callable " + name + "(...)");
  }
  state_->last_result = py::none();
  try {
    state_->last_result = module.attr(name.c_str())(*state_->arguments.at(handle));
  } catch (const py::error_already_set& error) {
    throw CallError(state_->describe(error));
  }
}

std::vector<TensorInfo> Session::last_outputs(size_t expected) const {
  std::vector<py::handle> items;
  const py::object& result = state_->last_result;
  if (py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result)) {
    for (py::handle item : result) items.push_back(item);
  } else {
    items.push_back(result);
  }
  if (items.size() != expected) {
    throw OutputError("output_count", "run returned " + std::to_string(items.size()) +
                                          " values; the task declares " +
                                          std::to_string(expected) + " outputs");
  }
  std::vector<TensorInfo> outputs;
  for (size_t i = 0; i < items.size(); ++i) {
    // Exactly torch.Tensor: a subclass can defer work or fake values behind the harness's back.
    if (Py_TYPE(items[i].ptr()) != reinterpret_cast<PyTypeObject*>(state_->tensor_type.ptr())) {
      throw OutputError("output_type", "output " + std::to_string(i) + " is a " +
                                           std::string(Py_TYPE(items[i].ptr())->tp_name) +
                                           ", not exactly torch.Tensor");
    }
    try {
      outputs.push_back(state_->read(items[i]));
    } catch (const py::error_already_set& error) {
      // to_dlpack refuses, e.g., tensors that require grad
      throw OutputError("output_type", "output " + std::to_string(i) + " cannot be read: " +
                                           state_->describe(error));
    } catch (const std::runtime_error& error) {
      throw OutputError("output_dtype", "output " + std::to_string(i) + ": " + error.what());
    }
  }
  return outputs;
}

void Session::clear_last_result() { state_->last_result = py::none(); }

namespace {

class TorchGraph : public CapturedGraph {
 public:
  explicit TorchGraph(py::object graph) : graph_(std::move(graph)), replay_(graph_.attr("replay")) {}
  void launch() override { replay_(); }

 private:
  py::object graph_;
  py::object replay_;
};

}  // namespace

std::unique_ptr<CapturedGraph> Session::capture_graph(const std::function<void()>& body) {
  if (!state_->capture || state_->capture.is_none()) {
    throw std::runtime_error("graph capture needs a CUDA session");
  }
  try {
    py::object graph = state_->capture(py::cpp_function(body), state_->stream);
    return std::make_unique<TorchGraph>(std::move(graph));
  } catch (const py::error_already_set& error) {
    throw CallError("graph capture failed:\n" + state_->describe(error));
  }
}

int64_t Session::device_bytes_allocated() const {
  if (!state_->memory_allocated) throw std::runtime_error("memory statistics need a CUDA session");
  return state_->memory_allocated().cast<int64_t>();
}

void Session::reset_peak_device_bytes() {
  if (!state_->reset_peak_memory) throw std::runtime_error("memory statistics need a CUDA session");
  state_->reset_peak_memory();
}

void Session::release_cached_device_memory() {
  if (state_->empty_cache) state_->empty_cache();
}

int64_t Session::peak_device_bytes() const {
  if (!state_->peak_memory) throw std::runtime_error("memory statistics need a CUDA session");
  return state_->peak_memory().cast<int64_t>();
}

}  // namespace d2k::python
