#pragma once
// The two judge requests (implementation and design assessment) and the evidence-repair
// message, built from the templates. Every text that d2k did not write (task files, expert
// material, the candidate, verification errors quoting them) enters the prompt fenced
// (artifact_fence.h) and through a single substitution pass (prompt_template.h).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/source_listing.h"
#include "judge/task_material.h"
#include "judge/template_set.h"
#include "judge/verification.h"
#include "record/judge_assessment.h"

namespace d2k::judge {

struct ChatMessage {
  std::string role;  // system | user | assistant
  std::string content;
};

void to_json(nlohmann::json& j, const ChatMessage& v);

struct JudgeRequest {
  record::JudgeKind kind = record::JudgeKind::impl;
  std::vector<ChatMessage> messages;  // system, then user
};

// Throws std::runtime_error when the task lacks guidance.json.
JudgeRequest build_impl_request(const TemplateSet& templates, const TaskMaterial& task,
                                const SourceListing& solution);
// Throws std::runtime_error when the task lacks judge_criteria.md.
JudgeRequest build_design_request(const TemplateSet& templates, const TaskMaterial& task,
                                  const DesignText& design);
// The user message that asks for attempt `attempt` of `max_attempts` after `errors`.
ChatMessage build_repair_message(const TemplateSet& templates,
                                 const std::vector<std::string>& errors, int attempt,
                                 int max_attempts);

}  // namespace d2k::judge
