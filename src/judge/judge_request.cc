#include "judge/judge_request.h"

#include <stdexcept>

#include "judge/artifact_fence.h"

namespace d2k::judge {
namespace {

std::string fenced_files(const std::vector<NamedText>& files) {
  std::string out;
  for (const NamedText& file : files) {
    if (!out.empty()) out += "\n\n";
    out += fence_artifact("task file " + file.name, file.text);
  }
  return out;
}

ChatMessage system_message(const TemplateSet& templates) {
  return {"system", templates.system().render({})};
}

}  // namespace

void to_json(nlohmann::json& j, const ChatMessage& v) {
  j = {{"role", v.role}, {"content", v.content}};
}

JudgeRequest build_impl_request(const TemplateSet& templates, const TaskMaterial& task,
                                const SourceListing& solution) {
  if (!task.guidance) {
    throw std::runtime_error(
        "the task has no guidance.json: the implementation assessment "
        "scores against the expert's three levels");
  }
  std::vector<NamedText> visible = task.public_files;
  visible.push_back(task.solution_template);
  const std::string expert_impl =
      task.expert_solution
          ? fence_artifact("expert implementation " + task.expert_solution->name,
                           task.expert_solution->text)
          : "(None: this task has no expert implementation, expert/solution.py. Judge the "
            "candidate against the three-level guidance alone.)";
  JudgeRequest request;
  request.kind = record::JudgeKind::impl;
  request.messages.push_back(system_message(templates));
  request.messages.push_back(
      {"user", templates.user(record::JudgeKind::impl)
                   .render({{"task", task.task},
                            {"target", task.target},
                            {"public_workspace", fenced_files(visible)},
                            {"expert_levels",
                             fence_artifact("expert guidance guidance.json", *task.guidance)},
                            {"expert_impl", expert_impl},
                            {"solution_lines", std::to_string(solution.line_count())},
                            {"solution", fence_artifact("candidate solution (numbered)",
                                                        solution.numbered())}})});
  return request;
}

JudgeRequest build_design_request(const TemplateSet& templates, const TaskMaterial& task,
                                  const DesignText& design) {
  if (!task.criteria) {
    throw std::runtime_error(
        "the task has no judge_criteria.md: the design assessment scores "
        "against the task's expert criteria");
  }
  const std::string notes =
      task.judge_notes ? "TASK-SPECIFIC JUDGE NOTES:\n" +
                             fence_artifact("judge notes judge_notes.md", *task.judge_notes)
                       : "";
  JudgeRequest request;
  request.kind = record::JudgeKind::design;
  request.messages.push_back(system_message(templates));
  request.messages.push_back(
      {"user", templates.user(record::JudgeKind::design)
                   .render({{"task", task.task},
                            {"target", task.target},
                            {"public_workspace", fenced_files(task.public_files)},
                            {"candidate",
                             fence_artifact("candidate design model_design.json", design.raw())},
                            {"judge_notes", notes},
                            {"criteria", fence_artifact("expert criteria judge_criteria.md",
                                                        *task.criteria)}})});
  return request;
}

ChatMessage build_repair_message(const TemplateSet& templates,
                                 const std::vector<std::string>& errors, int attempt,
                                 int max_attempts) {
  std::string list;
  for (const std::string& error : errors) list += "- " + error + "\n";
  return {"user",
          templates.repair().render({{"attempt", std::to_string(attempt)},
                                     {"max_attempts", std::to_string(max_attempts)},
                                     {"errors", fence_artifact("verification errors", list)}})};
}

}  // namespace d2k::judge
