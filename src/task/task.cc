#include "task/task.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

namespace d2k::task {
namespace {

constexpr std::array<std::pair<Device, const char*>, 2> kDeviceNames{{
    {Device::cuda, "cuda"},
    {Device::cpu, "cpu"},
}};

constexpr std::array<std::pair<ImplKind, const char*>, 4> kImplKindNames{{
    {ImplKind::reference, "reference"},
    {ImplKind::baseline, "baseline"},
    {ImplKind::expert, "expert"},
    {ImplKind::solution, "solution"},
}};

constexpr std::array<std::pair<Language, const char*>, 3> kLanguageNames{{
    {Language::python, "python"},
    {Language::cuda, "cuda"},
    {Language::cpp, "cpp"},
}};

template <typename Enum, size_t N>
std::string name_of(const std::array<std::pair<Enum, const char*>, N>& names, Enum value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  throw std::invalid_argument("enum value out of range");
}

template <typename Enum, size_t N>
std::optional<Enum> parse_name(const std::array<std::pair<Enum, const char*>, N>& names,
                               std::string_view text) {
  for (const auto& [v, name] : names) {
    if (text == name) return v;
  }
  return std::nullopt;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::string to_string(Device device) { return name_of(kDeviceNames, device); }

std::optional<Device> parse_device(std::string_view text) { return parse_name(kDeviceNames, text); }

std::string to_string(ImplKind kind) { return name_of(kImplKindNames, kind); }

std::optional<ImplKind> parse_impl_kind(std::string_view text) {
  return parse_name(kImplKindNames, text);
}

std::string to_string(Language language) { return name_of(kLanguageNames, language); }

std::optional<Language> parse_language(std::string_view text) {
  return parse_name(kLanguageNames, text);
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

bool InputRules::is_mutable(std::string_view name) const { return contains(mutable_inputs, name); }

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
      return dir / "baseline" / "solution.py";
    case ImplKind::expert:
      return dir / "expert" / "solution.py";
    case ImplKind::solution:
      throw std::invalid_argument(
          "a solution is a file given by the user; it has no fixed place in the task folder");
  }
  throw std::invalid_argument("ImplKind value out of range");
}

}  // namespace d2k::task
