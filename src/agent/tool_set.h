#pragma once
// The tools an agent is given for its configuration: read, write, bash and submit for kernel
// generation; read and submit_design for the design run, which writes and runs no code (§3.3).

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "agent/command_runner.h"
#include "agent/guidance_config.h"
#include "agent/run_session.h"
#include "agent/submission_evaluator.h"
#include "mcp/tool.h"

namespace d2k::agent {

// The referenced objects must outlive the tools.
std::vector<std::unique_ptr<mcp::Tool>> make_tools(GuidanceConfig config,
                                                   const std::filesystem::path& workspace,
                                                   CommandRunner& runner,
                                                   SubmissionEvaluator& evaluator,
                                                   RunSession& session);

// The server's `instructions` for clients that show them to the model.
std::string server_instructions(GuidanceConfig config);

}  // namespace d2k::agent
