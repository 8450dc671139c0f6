#include "task/task_loader.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "task/formula.h"
#include "task/json_source_map.h"
#include "task/task_error.h"
#include "util/bounded_json.h"

namespace d2k::task {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::array<const char*, 6> kRequiredFiles{"task_description.md",
                                                    "config.json",
                                                    "get_inputs.py",
                                                    "reference.py",
                                                    "implementation_requirements.yaml",
                                                    "solution.py"};

// d2k owns the "evaluation" object, so a misspelt key is an error rather than a silent default.
constexpr std::array<std::string_view, 16> kEvaluationKeys{"device",
                                                           "timing",
                                                           "cache",
                                                           "stopping",
                                                           "arguments",
                                                           "outputs",
                                                           "correctness_trials",
                                                           "min_sample_seconds",
                                                           "timing_samples",
                                                           "call_timeout_seconds",
                                                           "workload_timeout_seconds",
                                                           "languages",
                                                           "native",
                                                           "peak_aux_bytes",
                                                           "output_checks",
                                                           "timing_only_anchors"};
constexpr std::array<std::string_view, 4> kDistributionCheckKeys{"kind", "seed_argument", "draws",
                                                                 "significance"};
// The fit test needs some draws to have power, and each draw is a call: keep evaluations bounded.
constexpr double kMaxDistributionDraws = 1e6;
constexpr std::array<std::string_view, 3> kWorkModelKeys{"flops", "bytes", "math_dtype"};
constexpr std::array<std::string_view, 3> kNativeKeys{"nvcc_flags", "cxx_flags",
                                                      "compile_timeout_seconds"};

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TaskError(file, "cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw TaskError(file, "cannot read the file");
  return text.str();
}

json parse_json(const fs::path& file, std::string_view text) {
  try {
    return util::parse_bounded_json(text);
  } catch (const util::JsonInputError& error) {
    // `byte` counts the characters read, the offending one included.
    const TextPosition at = text_position(text, error.byte() > 0 ? error.byte() - 1 : 0);
    throw TaskError(file, at.line, at.column, std::string("invalid JSON: ") + error.what());
  }
}

std::string_view trim(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The text of a markdown ATX heading ("## Title ##" -> "Title"); empty for any other line.
std::string_view heading_text(std::string_view line) {
  const size_t hashes = line.find_first_not_of(' ');
  if (hashes == std::string_view::npos || hashes > 3 || line[hashes] != '#') return {};
  const size_t text_start = line.find_first_not_of('#', hashes);
  if (text_start == std::string_view::npos || text_start - hashes > 6) return {};
  if (line[text_start] != ' ' && line[text_start] != '\t') return {};  // "#tag" is no heading
  std::string_view text = trim(line.substr(text_start));
  const size_t closing = text.find_last_not_of('#');
  if (closing != std::string_view::npos && (text[closing] == ' ' || text[closing] == '\t')) {
    text = trim(text.substr(0, closing));
  }
  return text;
}

std::string find_title(std::string_view markdown, const std::string& fallback) {
  size_t start = 0;
  while (start < markdown.size()) {
    const size_t end = std::min(markdown.find('\n', start), markdown.size());
    const std::string_view text = heading_text(markdown.substr(start, end - start));
    if (!text.empty()) return std::string(text);
    start = end + 1;
  }
  return fallback;
}

std::string folder_name(const fs::path& dir) {
  fs::path normal = fs::absolute(dir).lexically_normal();
  if (!normal.has_filename()) normal = normal.parent_path();  // "tasks/x/"
  return normal.filename().string();
}

std::string describe(const json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  const std::string text = value.dump();
  if (text.size() <= 40) return text;
  size_t cut = 37;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return text.substr(0, cut) + "...";
}

// A value of config.json with its JSON path; `value` is null when the field is absent.
struct Node {
  const json* value;
  std::string path;

  Node child(std::string_view key) const {
    const std::string child_path = path.empty() ? std::string(key) : path + "." + std::string(key);
    if (value == nullptr || !value->is_object()) return {nullptr, child_path};
    const auto it = value->find(key);
    return {it == value->end() ? nullptr : &*it, child_path};
  }

  Node element(size_t index) const {
    return {&value->at(index), path + "[" + std::to_string(index) + "]"};
  }
};

enum class Sign { positive, non_negative };

// Typed reads of config.json; each violation becomes a TaskError pointing at the field.
class ConfigReader {
 public:
  ConfigReader(fs::path file, std::string_view text) : file_(std::move(file)), text_(text) {}

  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    // Only a failing load pays for locating the field.
    const TextPosition at = JsonSourceMap(text_).find(path);
    throw TaskError(file_, at.line, at.column, path.empty() ? problem : path + ": " + problem);
  }

  const json& require(const Node& node) const {
    if (node.value == nullptr) fail(node.path, "required field is missing");
    return *node.value;
  }

  const json& object(const Node& node) const {
    const json& value = require(node);
    if (!value.is_object()) fail(node.path, "expected an object, got " + describe(value));
    return value;
  }

  std::string string(const Node& node) const {
    const json& value = require(node);
    if (!value.is_string()) fail(node.path, "expected a string, got " + describe(value));
    if (value.get_ref<const std::string&>().empty()) fail(node.path, "expected a non-empty string");
    return value.get<std::string>();
  }

  // Non-empty strings, repeats allowed (compiler flags such as -Xcompiler come in pairs).
  std::vector<std::string> strings(const Node& node) const {
    const json& value = require(node);
    if (!value.is_array()) fail(node.path, "expected an array of strings, got " + describe(value));
    std::vector<std::string> result;
    for (size_t i = 0; i < value.size(); ++i) result.push_back(string(node.element(i)));
    return result;
  }

  // Fails on any key of the object at `node` that `known` does not list.
  template <size_t N>
  void known_keys(const Node& node, const std::array<std::string_view, N>& known) const {
    for (const auto& item : object(node).items()) {
      if (std::find(known.begin(), known.end(), item.key()) != known.end()) continue;
      std::string list;
      for (std::string_view key : known) list += (list.empty() ? "" : ", ") + std::string(key);
      fail(node.child(item.key()).path, "unknown field (known: " + list + ")");
    }
  }

  // Distinct non-empty strings.
  std::vector<std::string> names(const Node& node, bool allow_empty) const {
    const json& value = require(node);
    if (!value.is_array()) fail(node.path, "expected an array of strings, got " + describe(value));
    if (value.empty() && !allow_empty) fail(node.path, "expected a non-empty array of strings");
    std::vector<std::string> result;
    for (size_t i = 0; i < value.size(); ++i) {
      const Node item = node.element(i);
      std::string name = string(item);
      if (std::find(result.begin(), result.end(), name) != result.end()) {
        fail(item.path, fmt::format("\"{}\" is listed twice", name));
      }
      result.push_back(std::move(name));
    }
    return result;
  }

  // `fallback` is used when the field is absent; without one the field is required.
  double number(const Node& node, Sign sign, std::optional<double> fallback = {}) const {
    if (node.value == nullptr && fallback) return *fallback;
    const json& value = require(node);
    if (!value.is_number()) fail(node.path, "expected a number, got " + describe(value));
    const double number = value.get<double>();
    if (!std::isfinite(number)) fail(node.path, "expected a finite number");
    if (sign == Sign::positive && !(number > 0.0)) {
      fail(node.path, "expected a number greater than 0, got " + describe(value));
    }
    if (sign == Sign::non_negative && number < 0.0) {
      fail(node.path, "expected a number of at least 0, got " + describe(value));
    }
    return number;
  }

  int integer(const Node& node, int minimum, std::optional<int> fallback = {}) const {
    if (node.value == nullptr && fallback) return *fallback;
    const json& value = require(node);
    if (!value.is_number_integer()) fail(node.path, "expected an integer, got " + describe(value));
    const bool fits = value.is_number_unsigned()
                          ? value.get<uint64_t>() <= static_cast<uint64_t>(INT_MAX)
                          : value.get<int64_t>() >= INT_MIN && value.get<int64_t>() <= INT_MAX;
    if (!fits || value.get<int>() < minimum) {
      fail(node.path,
           fmt::format("expected an integer of at least {}, got {}", minimum, describe(value)));
    }
    return value.get<int>();
  }

 private:
  fs::path file_;
  std::string_view text_;
};

// The workloads listed under `key`; an absent optional list is empty.
std::vector<Workload> read_workloads(const ConfigReader& reader, const Node& config,
                                     const char* key, bool required) {
  const Node list = config.child(key);
  if (!required && list.value == nullptr) return {};
  const json& value = reader.require(list);
  if (!value.is_array() || value.empty()) {
    reader.fail(list.path, "expected a non-empty array of workload objects");
  }
  std::vector<Workload> workloads;
  for (size_t i = 0; i < value.size(); ++i) {
    const Node entry = list.element(i);
    reader.object(entry);
    const Node label = entry.child("label");
    Workload workload{reader.string(label), *entry.value, std::nullopt, std::nullopt};
    for (size_t j = 0; j < workloads.size(); ++j) {
      if (workloads[j].label == workload.label) {
        reader.fail(label.path,
                    fmt::format("duplicate label \"{}\" (also {}[{}])", workload.label, key, j));
      }
    }
    workloads.push_back(std::move(workload));
  }
  return workloads;
}

// A workload's formula variables: fixed_params with the workload entry's keys over them.
json formula_variables(const json& fixed_params, const Workload& workload) {
  json variables = fixed_params;
  for (const auto& [key, value] : workload.params.items()) variables[key] = value;
  return variables;
}

// Reads "work_model" and evaluates its formulas for every workload, so a bad formula fails the
// load rather than an evaluation.
std::optional<WorkModel> read_work_model(const ConfigReader& reader, const Node& config,
                                         const json& fixed_params,
                                         std::vector<Workload>& workloads) {
  const Node node = config.child("work_model");
  if (node.value == nullptr) return std::nullopt;
  reader.known_keys(node, kWorkModelKeys);
  WorkModel model{reader.string(node.child("flops")), reader.string(node.child("bytes")),
                  reader.string(node.child("math_dtype"))};
  if (std::find(kMathDtypes.begin(), kMathDtypes.end(), model.math_dtype) == kMathDtypes.end()) {
    reader.fail(node.child("math_dtype").path,
                fmt::format("expected \"bf16\", \"fp16\", \"fp32\" or \"fp8\", got \"{}\"",
                            model.math_dtype));
  }
  const auto evaluate = [&](const std::string& field, const std::string& formula,
                            const Workload& workload) {
    double value = 0.0;
    try {
      value = evaluate_formula(formula, formula_variables(fixed_params, workload));
    } catch (const FormulaError& error) {
      reader.fail(node.child(field).path,
                  fmt::format("workload \"{}\": {}", workload.label, error.what()));
    }
    if (value < 0.0) {
      reader.fail(node.child(field).path,
                  fmt::format("workload \"{}\": {} is negative", workload.label, value));
    }
    return value;
  };
  for (Workload& workload : workloads) {
    workload.work = Work{evaluate("flops", model.flops, workload),
                         evaluate("bytes", model.bytes, workload)};
  }
  return model;
}

InputRules read_input_rules(const ConfigReader& reader, const Node& config) {
  const Node node = config.child("input_rules");
  reader.object(node);
  InputRules rules;
  rules.static_inputs = reader.names(node.child("static_inputs"), true);
  rules.dynamic_inputs = reader.names(node.child("dynamic_inputs"), true);
  if (const Node mutable_inputs = node.child("mutable_inputs"); mutable_inputs.value != nullptr) {
    rules.mutable_inputs = reader.names(mutable_inputs, true);
  }
  return rules;
}

Tolerance read_tolerance(const ConfigReader& reader, const Node& config) {
  const Node node = config.child("tolerance");
  reader.object(node);
  Tolerance tolerance;
  tolerance.rel_norm_rtol = reader.number(node.child("rel_norm_rtol"), Sign::positive);
  tolerance.atol = reader.number(node.child("atol"), Sign::non_negative, tolerance.atol);
  tolerance.rtol = reader.number(node.child("rtol"), Sign::non_negative, tolerance.rtol);
  tolerance.grader_scale =
      reader.number(node.child("grader_scale"), Sign::positive, tolerance.grader_scale);
  return tolerance;
}

// Each language fits one device: CUDA C++ launches on the harness stream, C++ runs on the host.
std::vector<Language> read_languages(const ConfigReader& reader, const Node& node, Device device) {
  std::vector<Language> languages;
  const std::vector<std::string> names = reader.names(node, false);
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string path = node.path + "[" + std::to_string(i) + "]";
    const std::optional<Language> language = parse_language(names[i]);
    if (!language) {
      reader.fail(path, fmt::format("expected \"python\", \"cuda\" or \"cpp\", got \"{}\"",
                                    names[i]));
    }
    if (*language == Language::cuda && device != Device::cuda) {
      reader.fail(path, "\"cuda\" candidates need \"device\": \"cuda\"");
    }
    if (*language == Language::cpp && device != Device::cpu) {
      reader.fail(path, "\"cpp\" candidates need \"device\": \"cpu\"");
    }
    languages.push_back(*language);
  }
  return languages;
}

NativeBuild read_native(const ConfigReader& reader, const Node& node) {
  NativeBuild native;
  if (node.value == nullptr) return native;
  reader.known_keys(node, kNativeKeys);
  if (const Node flags = node.child("nvcc_flags"); flags.value != nullptr) {
    native.nvcc_flags = reader.strings(flags);
  }
  if (const Node flags = node.child("cxx_flags"); flags.value != nullptr) {
    native.cxx_flags = reader.strings(flags);
  }
  native.compile_timeout_seconds = reader.number(node.child("compile_timeout_seconds"),
                                                 Sign::positive, native.compile_timeout_seconds);
  return native;
}

EvaluationSpec read_evaluation(const ConfigReader& reader, const Node& config) {
  const Node node = config.child("evaluation");
  reader.known_keys(node, kEvaluationKeys);
  EvaluationSpec spec;
  const Node device = node.child("device");
  const std::string device_name = reader.string(device);
  const std::optional<Device> parsed = parse_device(device_name);
  if (!parsed) {
    reader.fail(device.path, fmt::format("expected \"cuda\" or \"cpu\", got \"{}\"", device_name));
  }
  spec.device = *parsed;
  spec.timing_method = reader.string(node.child("timing"));
  if (const Node cache = node.child("cache"); cache.value != nullptr) {
    spec.cache_policy = reader.string(cache);
    if (spec.cache_policy != "cold" && spec.cache_policy != "hot") {
      reader.fail(cache.path, fmt::format("expected \"cold\" or \"hot\", got \"{}\"",
                                          spec.cache_policy));
    }
  }
  if (const Node stopping = node.child("stopping"); stopping.value != nullptr) {
    spec.stopping = reader.string(stopping);
    if (spec.stopping != "fixed" && spec.stopping != "noise") {
      reader.fail(stopping.path, fmt::format("expected \"fixed\" or \"noise\", got \"{}\"",
                                             spec.stopping));
    }
  }
  spec.arguments = reader.names(node.child("arguments"), false);
  spec.outputs = reader.names(node.child("outputs"), false);
  spec.correctness_trials =
      reader.integer(node.child("correctness_trials"), 3, spec.correctness_trials);
  const Node min_sample = node.child("min_sample_seconds");
  spec.min_sample_seconds = reader.number(min_sample, Sign::positive, spec.min_sample_seconds);
  if (spec.device == Device::cuda && spec.min_sample_seconds < kMinSampleSeconds) {
    reader.fail(min_sample.path,
                fmt::format("{} s is below the protocol's minimum of {:g} s for GPU tasks; "
                            "`d2k eval --quick` is the fast path for diagnosis",
                            spec.min_sample_seconds, kMinSampleSeconds));
  }
  spec.timing_samples = reader.integer(node.child("timing_samples"), 2, spec.timing_samples);
  spec.call_timeout_seconds =
      reader.number(node.child("call_timeout_seconds"), Sign::positive, spec.call_timeout_seconds);
  spec.workload_timeout_seconds = reader.number(node.child("workload_timeout_seconds"),
                                                Sign::positive, spec.workload_timeout_seconds);
  if (const Node languages = node.child("languages"); languages.value != nullptr) {
    spec.languages = read_languages(reader, languages, spec.device);
  }
  spec.native = read_native(reader, node.child("native"));
  if (const Node bound = node.child("peak_aux_bytes"); bound.value != nullptr) {
    spec.peak_aux_bytes = reader.string(bound);
  }
  if (const Node anchors = node.child("timing_only_anchors"); anchors.value != nullptr) {
    spec.timing_only_anchors = reader.names(anchors, true);
  }
  return spec;
}

void check_timing_only_anchors(const ConfigReader& reader, const Node& config, const Task& task) {
  const std::vector<std::string> known = task.anchor_names();
  const Node list = config.child("evaluation").child("timing_only_anchors");
  for (size_t i = 0; i < task.evaluation.timing_only_anchors.size(); ++i) {
    const std::string& name = task.evaluation.timing_only_anchors[i];
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      reader.fail(list.element(i).path,
                  fmt::format("no anchor \"{}\" (anchors/{}.py)", name, name));
    }
  }
}

// Evaluates evaluation.peak_aux_bytes for every workload, so a bad formula fails the load.
// Fractions of a byte round down.
void read_peak_aux_bounds(const ConfigReader& reader, const Node& config, const json& fixed_params,
                          const std::optional<std::string>& formula,
                          std::vector<Workload>& workloads) {
  if (!formula) return;
  const std::string path = config.child("evaluation").child("peak_aux_bytes").path;
  for (Workload& workload : workloads) {
    double value = 0.0;
    try {
      value = evaluate_formula(*formula, formula_variables(fixed_params, workload));
    } catch (const FormulaError& error) {
      reader.fail(path, fmt::format("workload \"{}\": {}", workload.label, error.what()));
    }
    if (value < 0.0) {
      reader.fail(path, fmt::format("workload \"{}\": {} is negative", workload.label, value));
    }
    if (value >= 9.2e18) {
      reader.fail(path, fmt::format("workload \"{}\": {} bytes is beyond any device",
                                    workload.label, value));
    }
    workload.peak_aux_bytes = static_cast<int64_t>(value);
  }
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Every argument is either static or dynamic, and the input rules name only arguments.
void check_arguments_covered(const ConfigReader& reader, const InputRules& rules,
                             const EvaluationSpec& spec) {
  const auto check_listed = [&](const std::vector<std::string>& names, std::string_view list) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (!contains(spec.arguments, names[i])) {
        reader.fail(fmt::format("input_rules.{}[{}]", list, i),
                    fmt::format("\"{}\" is not one of evaluation.arguments", names[i]));
      }
    }
  };
  check_listed(rules.static_inputs, "static_inputs");
  check_listed(rules.dynamic_inputs, "dynamic_inputs");
  check_listed(rules.mutable_inputs, "mutable_inputs");
  for (size_t i = 0; i < rules.dynamic_inputs.size(); ++i) {
    if (contains(rules.static_inputs, rules.dynamic_inputs[i])) {
      reader.fail(fmt::format("input_rules.dynamic_inputs[{}]", i),
                  fmt::format("\"{}\" is also a static input", rules.dynamic_inputs[i]));
    }
  }
  for (size_t i = 0; i < rules.mutable_inputs.size(); ++i) {
    if (!contains(rules.dynamic_inputs, rules.mutable_inputs[i])) {
      reader.fail(
          fmt::format("input_rules.mutable_inputs[{}]", i),
          fmt::format("\"{}\" must also be listed in dynamic_inputs", rules.mutable_inputs[i]));
    }
  }
  for (size_t i = 0; i < spec.arguments.size(); ++i) {
    if (!contains(rules.static_inputs, spec.arguments[i]) &&
        !contains(rules.dynamic_inputs, spec.arguments[i])) {
      reader.fail(fmt::format("evaluation.arguments[{}]", i),
                  fmt::format("\"{}\" is in neither input_rules.static_inputs nor "
                              "input_rules.dynamic_inputs",
                              spec.arguments[i]));
    }
  }
}

// evaluation.output_checks: {"<output>": {"kind": "distribution", "seed_argument": "<argument>",
// "draws": <integer or formula>, "significance": <number>}}. Names are checked against the
// outputs and input rules in check_distribution_checks, once those are read.
std::vector<DistributionCheck> read_output_checks(const ConfigReader& reader, const Node& config) {
  std::vector<DistributionCheck> checks;
  const Node node = config.child("evaluation").child("output_checks");
  if (node.value == nullptr) return checks;
  for (const auto& item : reader.object(node).items()) {
    const Node entry = node.child(item.key());
    reader.known_keys(entry, kDistributionCheckKeys);
    const Node kind = entry.child("kind");
    if (reader.string(kind) != "distribution") {
      reader.fail(kind.path, fmt::format("expected \"distribution\", got \"{}\"",
                                         kind.value->get<std::string>()));
    }
    DistributionCheck check;
    check.output = item.key();
    check.seed_argument = reader.string(entry.child("seed_argument"));
    const Node draws = entry.child("draws");
    const json& draws_value = reader.require(draws);
    if (draws_value.is_number_integer()) {
      check.draws = std::to_string(reader.integer(draws, 1));
    } else if (draws_value.is_string()) {
      check.draws = reader.string(draws);
    } else {
      reader.fail(draws.path, "expected a positive integer or a formula string, got " +
                                  describe(draws_value));
    }
    const Node significance = entry.child("significance");
    check.significance = reader.number(significance, Sign::positive, check.significance);
    if (check.significance >= 0.5) {
      reader.fail(significance.path,
                  fmt::format("expected a number below 0.5, got {}", check.significance));
    }
    checks.push_back(std::move(check));
  }
  if (checks.size() > 1) {
    reader.fail(node.path, "at most one output may have a distribution check");
  }
  return checks;
}

// The check names a declared output and a static argument, and its draws formula gives a
// usable count on every workload (fractions round down).
void check_distribution_checks(const ConfigReader& reader, const Node& config, Task& task) {
  const Node node = config.child("evaluation").child("output_checks");
  for (const auto& check : task.evaluation.distribution_checks) {
    const Node entry = node.child(check.output);
    if (!contains(task.evaluation.outputs, check.output)) {
      reader.fail(entry.path, fmt::format("\"{}\" is not one of evaluation.outputs", check.output));
    }
    if (!contains(task.evaluation.arguments, check.seed_argument) ||
        !contains(task.input_rules.static_inputs, check.seed_argument)) {
      reader.fail(entry.child("seed_argument").path,
                  fmt::format("\"{}\" must be an argument listed in input_rules.static_inputs "
                              "(a Python int the harness varies per draw)",
                              check.seed_argument));
    }
    const std::string path = entry.child("draws").path;
    for (Workload& workload : task.all_workloads()) {
      double value = 0.0;
      try {
        value = evaluate_formula(check.draws, formula_variables(task.fixed_params, workload));
      } catch (const FormulaError& error) {
        reader.fail(path, fmt::format("workload \"{}\": {}", workload.label, error.what()));
      }
      if (!(value >= 1.0) || value > kMaxDistributionDraws) {
        reader.fail(path, fmt::format("workload \"{}\": {} draws; expected 1 to {:g}",
                                      workload.label, value, kMaxDistributionDraws));
      }
      workload.distribution_draws = static_cast<int>(value);
    }
  }
}

void read_config(Task& task, const fs::path& file) {
  const std::string text = read_text(file);
  task.config = parse_json(file, text);
  const ConfigReader reader(file, text);
  const Node root{&task.config, ""};
  reader.object(root);
  if (const Node category = root.child("category"); category.value != nullptr) {
    const std::string name = reader.string(category);
    task.category = parse_category(name);
    if (!task.category) {
      reader.fail(category.path,
                  fmt::format("\"{}\" is not a category (attention_recurrent, moe_distributed, "
                              "indexing_sampling_control, quantization_training_structural)",
                              name));
    }
  }
  const Node fixed_params = root.child("fixed_params");
  task.fixed_params = fixed_params.value != nullptr ? reader.object(fixed_params) : json::object();
  task.workloads = read_workloads(reader, root, "workloads", true);
  task.quick_workloads = read_workloads(reader, root, "quick_workloads", false);
  task.work_model = read_work_model(reader, root, task.fixed_params, task.workloads);
  task.input_rules = read_input_rules(reader, root);
  task.tolerance = read_tolerance(reader, root);
  task.evaluation = read_evaluation(reader, root);
  for (auto* workloads : {&task.workloads, &task.quick_workloads}) {
    read_peak_aux_bounds(reader, root, task.fixed_params, task.evaluation.peak_aux_bytes,
                         *workloads);
  }
  check_arguments_covered(reader, task.input_rules, task.evaluation);
  task.evaluation.distribution_checks = read_output_checks(reader, root);
  check_distribution_checks(reader, root, task);
  check_timing_only_anchors(reader, root, task);
}

[[noreturn]] void yaml_fail(const fs::path& file, const YAML::Mark& mark,
                            const std::string& message) {
  // yaml-cpp counts from 0 and marks unknown positions with -1.
  throw TaskError(file, mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 : 0,
                  message);
}

std::vector<std::string> read_requirements(const fs::path& file) {
  YAML::Node root;
  try {
    root = YAML::Load(read_text(file));
  } catch (const YAML::Exception& error) {
    yaml_fail(file, error.mark, "invalid YAML: " + error.msg);
  }
  if (!root.IsMap()) yaml_fail(file, root.Mark(), "expected a mapping with a 'requirements' key");
  const YAML::Node list = std::as_const(root)["requirements"];
  if (!list) yaml_fail(file, root.Mark(), "requirements: required key is missing");
  if (!list.IsSequence() || list.size() == 0) {
    yaml_fail(file, list.Mark(), "requirements: expected a non-empty list of strings");
  }
  std::vector<std::string> requirements;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    if (!item.IsScalar() || item.Scalar().empty()) {
      yaml_fail(file, item.Mark(), fmt::format("requirements[{}]: expected a string", i));
    }
    requirements.push_back(item.Scalar());
  }
  return requirements;
}

}  // namespace

Task load_task(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw TaskError(dir, "no such task folder");
  for (const char* name : kRequiredFiles) {
    if (!fs::is_regular_file(dir / name)) throw TaskError(dir / name, "required file is missing");
  }
  Task task;
  task.id = folder_name(dir);
  task.dir = dir;
  task.title = find_title(read_text(dir / "task_description.md"), task.id);
  read_config(task, dir / "config.json");
  task.requirements = read_requirements(dir / "implementation_requirements.yaml");
  task.rules = read_implementation_rules(dir / "implementation_requirements.yaml");
  // Optional, and read by people and agents rather than by d2k; it must still be valid JSON.
  if (const fs::path guidance = dir / "guidance.json"; fs::exists(guidance)) {
    parse_json(guidance, read_text(guidance));
  }
  return task;
}

std::vector<fs::path> find_task_dirs(const fs::path& root) {
  if (!fs::is_directory(root)) throw TaskError(root, "no such tasks folder");
  std::vector<fs::path> dirs;
  for (const fs::directory_entry& entry : fs::directory_iterator(root)) {
    if (entry.is_directory() && fs::is_regular_file(entry.path() / "config.json")) {
      dirs.push_back(entry.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

fs::path default_tasks_root() {
  if (const char* env = std::getenv("D2K_TASKS"); env != nullptr && *env != '\0') return env;
  return fs::path(D2K_SOURCE_DIR) / "tasks";
}

}  // namespace d2k::task
