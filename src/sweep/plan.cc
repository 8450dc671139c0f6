#include "sweep/plan.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "agent/guidance_config.h"
#include "sweep/plan_error.h"
#include "util/enum_names.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

constexpr util::EnumNames<RunKind, 7> kRunKindNames{{
    {RunKind::reference, "reference"},
    {RunKind::baseline, "baseline"},
    {RunKind::expert, "expert"},
    {RunKind::anchor, "anchor"},
    {RunKind::solution, "solution"},
    {RunKind::agent, "agent"},
    {RunKind::judge, "judge"},
}};

// A node of the plan and where it is, for error messages.
struct Field {
  YAML::Node node;
  std::string path;

  Field child(const std::string& key) const {
    return {node[key], path.empty() ? key : path + "." + key};
  }
  Field element(size_t i) const { return {node[i], path + "[" + std::to_string(i) + "]"}; }
  bool present() const { return node.IsDefined() && !node.IsNull(); }
};

std::string join(const auto& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

class Reader {
 public:
  explicit Reader(fs::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const Field& field, const std::string& problem) const {
    // A missing key has no mark of its own; yaml-cpp marks unknown positions with -1.
    const YAML::Mark mark = field.node.IsDefined() ? field.node.Mark() : YAML::Mark::null_mark();
    throw PlanError(file_, mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 : 0,
                    field.path.empty() ? problem : field.path + ": " + problem);
  }

  void map(const Field& field) const {
    if (!field.node.IsMap()) fail(field, "expected a mapping");
  }

  template <size_t N>
  void known_keys(const Field& field, const std::array<std::string_view, N>& known) const {
    map(field);
    for (const auto& item : field.node) {
      const std::string key = item.first.as<std::string>();
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        fail({item.first, field.child(key).path}, "unknown field (known: " + join(known) + ")");
      }
    }
  }

  std::string string(const Field& field) const {
    if (!field.present()) fail(field, "required field is missing");
    if (!field.node.IsScalar() || field.node.Scalar().empty()) fail(field, "expected a non-empty string");
    return field.node.Scalar();
  }

  std::string string_or(const Field& field, std::string fallback) const {
    return field.present() ? string(field) : std::move(fallback);
  }

  // A string or a list of distinct strings.
  std::vector<std::string> names(const Field& field) const {
    if (field.node.IsScalar()) return {string(field)};
    if (!field.node.IsSequence() || field.node.size() == 0) {
      fail(field, "expected a string or a non-empty list of strings");
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < field.node.size(); ++i) {
      std::string name = string(field.element(i));
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        fail(field.element(i), fmt::format("\"{}\" is listed twice", name));
      }
      names.push_back(std::move(name));
    }
    return names;
  }

  int integer(const Field& field, int minimum, int fallback) const {
    if (!field.present()) return fallback;
    int value = 0;
    if (!field.node.IsScalar() || !YAML::convert<int>::decode(field.node, value) ||
        value < minimum) {
      fail(field, fmt::format("expected an integer of at least {}", minimum));
    }
    return value;
  }

  double number(const Field& field, double fallback) const {
    if (!field.present()) return fallback;
    double value = 0.0;
    if (!field.node.IsScalar() || !YAML::convert<double>::decode(field.node, value) ||
        !(value > 0.0)) {
      fail(field, "expected a number greater than 0");
    }
    return value;
  }

 private:
  fs::path file_;
};

constexpr std::array<std::string_view, 8> kPlanKeys{"name",    "tasks",   "categories", "runs",
                                                    "repeats", "devices", "work_dir",   "executor"};
constexpr std::array<std::string_view, 5> kAgentKeys{"agent", "model", "configs", "budget",
                                                     "timeout"};
constexpr std::array<std::string_view, 1> kJudgeKeys{"model"};
constexpr std::array<std::string_view, 4> kLocalKeys{"kind", "retries", "gpus", "cpu_workers"};
constexpr std::array<std::string_view, 7> kSlurmKeys{"kind",        "retries",       "partition",
                                                     "max_running", "gpus_per_cell", "sbatch_args",
                                                     "poll_seconds"};

AgentRunSpec read_agent(const Reader& reader, const Field& field) {
  reader.known_keys(field, kAgentKeys);
  AgentRunSpec spec;
  spec.agent = reader.string(field.child("agent"));
  spec.model = reader.string_or(field.child("model"), "");
  const Field configs = field.child("configs");
  if (!configs.present()) reader.fail(configs, "required field is missing");
  spec.configs = reader.names(configs);
  for (size_t i = 0; i < spec.configs.size(); ++i) {
    if (!agent::parse_guidance_config(spec.configs[i])) {
      reader.fail(configs.node.IsSequence() ? configs.element(i) : configs,
                  fmt::format("\"{}\" is not a configuration (none, L1, L1+L2, L1+L2+L3, design)",
                              spec.configs[i]));
    }
  }
  spec.budget = reader.integer(field.child("budget"), 1, 0);
  spec.timeout_seconds = reader.number(field.child("timeout"), 0.0);
  return spec;
}

RunSpec read_run(const Reader& reader, const Field& field, const fs::path& base) {
  RunSpec run;
  if (field.node.IsScalar()) {
    const std::string name = reader.string(field);
    const auto kind = util::find_value(kRunKindNames, name);
    if (!kind || (*kind != RunKind::reference && *kind != RunKind::baseline &&
                  *kind != RunKind::expert && *kind != RunKind::anchor)) {
      reader.fail(field, fmt::format("\"{}\" is not a run (reference, baseline, expert, anchor, "
                                     "or a mapping: anchor, solution, agent, judge)",
                                     name));
    }
    run.kind = *kind;
    return run;
  }
  reader.map(field);
  if (field.node.size() != 1) {
    reader.fail(field, "expected one key: anchor, solution, agent or judge");
  }
  const std::string key = field.node.begin()->first.as<std::string>();
  const Field value = field.child(key);
  if (key == "anchor") {
    run.kind = RunKind::anchor;
    run.names = reader.names(value);
    if (run.names == std::vector<std::string>{"all"}) run.names.clear();
  } else if (key == "solution") {
    run.kind = RunKind::solution;
    const std::vector<std::string> files = reader.names(value);
    for (size_t i = 0; i < files.size(); ++i) {
      const fs::path file = fs::absolute(base / files[i]).lexically_normal();
      if (!fs::is_regular_file(file)) {
        reader.fail(value.node.IsSequence() ? value.element(i) : value,
                    "no such file: " + file.string());
      }
      run.names.push_back(file.string());
    }
  } else if (key == "agent") {
    run.kind = RunKind::agent;
    run.agent = read_agent(reader, value);
  } else if (key == "judge") {
    run.kind = RunKind::judge;
    if (value.present()) {
      reader.known_keys(value, kJudgeKeys);
      run.judge.model = reader.string_or(value.child("model"), "");
    }
  } else {
    reader.fail(field.child(key), "unknown run (known: anchor, solution, agent, judge)");
  }
  return run;
}

ExecutorSpec read_executor(const Reader& reader, const Field& field) {
  ExecutorSpec spec;
  if (!field.present()) return spec;
  reader.map(field);
  spec.kind = reader.string_or(field.child("kind"), spec.kind);
  if (spec.kind == "local") {
    reader.known_keys(field, kLocalKeys);
    spec.gpus = reader.integer(field.child("gpus"), 0, spec.gpus);
    spec.cpu_workers = reader.integer(field.child("cpu_workers"), 1, spec.cpu_workers);
  } else if (spec.kind == "slurm") {
    reader.known_keys(field, kSlurmKeys);
    spec.partition = reader.string_or(field.child("partition"), "");
    spec.max_running = reader.integer(field.child("max_running"), 0, spec.max_running);
    spec.gpus_per_cell = reader.integer(field.child("gpus_per_cell"), 1, spec.gpus_per_cell);
    if (const Field args = field.child("sbatch_args"); args.present()) {
      if (!args.node.IsSequence()) reader.fail(args, "expected a list of strings");
      for (size_t i = 0; i < args.node.size(); ++i) {
        spec.sbatch_args.push_back(reader.string(args.element(i)));
      }
    }
    spec.poll_seconds = reader.number(field.child("poll_seconds"), spec.poll_seconds);
  } else {
    reader.fail(field.child("kind"),
                fmt::format("\"{}\" is not an executor (local, slurm)", spec.kind));
  }
  spec.retries = reader.integer(field.child("retries"), 0, spec.retries);
  return spec;
}

}  // namespace

std::string to_string(RunKind kind) { return util::find_name(kRunKindNames, kind); }

Plan load_plan(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw PlanError(file, 0, 0, "cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  const Reader reader(file);
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& error) {
    throw PlanError(file, error.mark.line + 1, error.mark.column + 1, "invalid YAML: " + error.msg);
  }
  const Field top{root, ""};
  reader.known_keys(top, kPlanKeys);
  const fs::path base = fs::absolute(file).parent_path();

  Plan plan;
  plan.file = fs::absolute(file).lexically_normal();
  plan.name = reader.string_or(top.child("name"), file.stem().string());
  const Field tasks = top.child("tasks");
  if (tasks.present()) {
    plan.task_ids = reader.names(tasks);
    if (plan.task_ids == std::vector<std::string>{"all"}) {
      plan.all_tasks = true;
      plan.task_ids.clear();
    }
  }
  if (const Field categories = top.child("categories"); categories.present()) {
    const std::vector<std::string> names = reader.names(categories);
    for (size_t i = 0; i < names.size(); ++i) {
      const auto category = task::parse_category(names[i]);
      if (!category) {
        reader.fail(categories.node.IsSequence() ? categories.element(i) : categories,
                    fmt::format("\"{}\" is not a category (attention_recurrent, moe_distributed, "
                                "indexing_sampling_control, quantization_training_structural)",
                                names[i]));
      }
      plan.categories.push_back(*category);
    }
  }
  if (!plan.all_tasks && plan.task_ids.empty() && plan.categories.empty()) {
    reader.fail(tasks, "required field is missing (task ids, \"all\", or give categories)");
  }
  const Field runs = top.child("runs");
  if (!runs.node.IsSequence() || runs.node.size() == 0) {
    reader.fail(runs, runs.present() ? "expected a non-empty list" : "required field is missing");
  }
  for (size_t i = 0; i < runs.node.size(); ++i) {
    plan.runs.push_back(read_run(reader, runs.element(i), base));
  }
  plan.repeats = reader.integer(top.child("repeats"), 1, plan.repeats);
  if (const Field devices = top.child("devices"); devices.present()) {
    plan.devices = reader.names(devices);
  }
  plan.work_dir = top.child("work_dir").present()
                      ? fs::absolute(base / reader.string(top.child("work_dir"))).lexically_normal()
                      : base / (plan.name + ".sweep");
  plan.executor = read_executor(reader, top.child("executor"));
  return plan;
}

}  // namespace d2k::sweep
