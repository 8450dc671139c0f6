#pragma once
// The texts an agent starts from, written for d2k (not copied from the paper): the instructions
// of a kernel-generation run, and the brief of the independent design run (after the paper's
// Appendix B.2).

#include <string>

#include "agent/guidance_config.h"
#include "task/task.h"

namespace d2k::agent {

// INSTRUCTIONS.md: the workspace's files, the tools, what `submit` reports, what counts as the
// final submission, and the turn budget.
std::string agent_instructions(const task::Task& task, GuidanceConfig config, int turn_budget);

// DESIGN_BRIEF.md: what model_design.json must say, angle by angle, and how to hand it in.
std::string design_brief(const task::Task& task);

// The short prompt an agent CLI is started with; it points at INSTRUCTIONS.md.
std::string start_prompt(GuidanceConfig config);

}  // namespace d2k::agent
