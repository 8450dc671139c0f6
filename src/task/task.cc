#include "task/task.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "util/enum_names.h"

namespace d2k::task {
namespace {

constexpr util::EnumNames<Device, 2> kDeviceNames{{
    {Device::cuda, "cuda"},
    {Device::cpu, "cpu"},
}};

constexpr util::EnumNames<ImplKind, 5> kImplKindNames{{
    {ImplKind::reference, "reference"},
    {ImplKind::baseline, "baseline"},
    {ImplKind::expert, "expert"},
    {ImplKind::solution, "solution"},
    {ImplKind::anchor, "anchor"},
}};

constexpr util::EnumNames<Category, 4> kCategoryNames{{
    {Category::attention_recurrent, "attention_recurrent"},
    {Category::moe_distributed, "moe_distributed"},
    {Category::indexing_sampling_control, "indexing_sampling_control"},
    {Category::quantization_training_structural, "quantization_training_structural"},
}};

constexpr util::EnumNames<Language, 3> kLanguageNames{{
    {Language::python, "python"},
    {Language::cuda, "cuda"},
    {Language::cpp, "cpp"},
}};

// Every enumerator is in its table, so a miss is a programming error.
template <typename Enum, size_t N>
std::string name_of(const util::EnumNames<Enum, N>& names, Enum value) {
  const char* name = util::find_name(names, value);
  if (name == nullptr) throw std::invalid_argument("enum value out of range");
  return name;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A baseline or expert is solution.py, or a native solution.cu / solution.cpp when the folder
// holds no solution.py; with none of them, solution.py is named in the caller's error.
std::filesystem::path solution_in(const std::filesystem::path& folder) {
  for (const char* name : {"solution.py", "solution.cu", "solution.cpp"}) {
    if (std::filesystem::exists(folder / name)) return folder / name;
  }
  return folder / "solution.py";
}

}  // namespace

std::string to_string(Device device) { return name_of(kDeviceNames, device); }

std::optional<Device> parse_device(std::string_view text) { return util::find_value(kDeviceNames, text); }

std::string to_string(ImplKind kind) { return name_of(kImplKindNames, kind); }

std::optional<ImplKind> parse_impl_kind(std::string_view text) {
  return util::find_value(kImplKindNames, text);
}

std::string to_string(Category category) { return name_of(kCategoryNames, category); }

std::optional<Category> parse_category(std::string_view text) {
  return util::find_value(kCategoryNames, text);
}

std::string to_string(Language language) { return name_of(kLanguageNames, language); }

std::optional<Language> parse_language(std::string_view text) {
  return util::find_value(kLanguageNames, text);
}

std::optional<Language> language_of_file(const std::filesystem::path& file) {
  const std::string extension = file.extension().string();
  if (extension == ".py") return Language::python;
  if (extension == ".cu") return Language::cuda;
  if (extension == ".cpp" || extension == ".cc" || extension == ".cxx") return Language::cpp;
  return std::nullopt;
}

bool EvaluationSpec::accepts(Language language) const {
  return std::find(languages.begin(), languages.end(), language) != languages.end();
}

const DistributionCheck* EvaluationSpec::distribution_check(std::string_view output) const {
  for (const auto& check : distribution_checks) {
    if (check.output == output) return &check;
  }
  return nullptr;
}

bool InputRules::is_mutable(std::string_view name) const { return contains(mutable_inputs, name); }

std::vector<std::reference_wrapper<Workload>> Task::all_workloads() {
  std::vector<std::reference_wrapper<Workload>> all(workloads.begin(), workloads.end());
  all.insert(all.end(), quick_workloads.begin(), quick_workloads.end());
  return all;
}

const Workload* Task::find_workload(std::string_view label) const {
  for (const Workload& workload : workloads) {
    if (workload.label == label) return &workload;
  }
  return nullptr;
}

std::filesystem::path Task::implementation_file(ImplKind kind) const {
  switch (kind) {
    case ImplKind::reference:
      return dir / "reference.py";
    case ImplKind::baseline:
      return solution_in(dir / "baseline");
    case ImplKind::expert:
      return solution_in(dir / "expert");
    case ImplKind::solution:
      throw std::invalid_argument(
          "a solution is a file given by the user; it has no fixed place in the task folder");
    case ImplKind::anchor:
      throw std::invalid_argument("an anchor is named: anchor_file(name)");
  }
  throw std::invalid_argument("ImplKind value out of range");
}

std::vector<std::string> Task::anchor_names() const {
  std::vector<std::string> names;
  const std::filesystem::path folder = dir / "anchors";
  if (!std::filesystem::is_directory(folder)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::filesystem::path Task::anchor_file(const std::string& name) const {
  const std::vector<std::string> names = anchor_names();
  if (!contains(names, name)) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("task " + id + " has no anchor '" + name + "' (anchors: " +
                                (known.empty() ? "none" : known) + ")");
  }
  return dir / "anchors" / (name + ".py");
}

}  // namespace d2k::task
