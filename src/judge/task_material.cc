#include "judge/task_material.h"

#include "util/text.h"

namespace d2k::judge {
namespace {

std::optional<std::string> read_optional(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  return util::read_text_file(path);
}

}  // namespace

TaskMaterial TaskMaterial::read(const task::Task& task) {
  TaskMaterial m;
  m.task = task.id + ": " + task.title;
  m.target = task.evaluation.device == task::Device::cuda
                 ? kGpuTarget
                 : "the host CPU (a CPU task: eager PyTorch, no GPU)";
  for (const char* name : {"task_description.md", "reference.py", "get_inputs.py", "config.json",
                           "implementation_requirements.yaml"}) {
    m.public_files.push_back({name, util::read_text_file(task.dir / name)});
  }
  m.solution_template = {"solution.py", util::read_text_file(task.dir / "solution.py")};
  m.guidance = read_optional(task.dir / "guidance.json");
  const std::filesystem::path expert = task.implementation_file(task::ImplKind::expert);
  if (std::filesystem::exists(expert)) {
    m.expert_solution = NamedText{"expert/" + expert.filename().string(), util::read_text_file(expert)};
  }
  m.criteria = read_optional(task.dir / "judge_criteria.md");
  m.judge_notes = read_optional(task.dir / "judge_notes.md");
  return m;
}

}  // namespace d2k::judge
