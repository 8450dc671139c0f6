#include "agent/tool_set.h"

#include "agent/bash_tool.h"
#include "agent/read_tool.h"
#include "agent/submit_design_tool.h"
#include "agent/submit_tool.h"
#include "agent/write_tool.h"
#include "util/python_executable.h"

namespace d2k::agent {

std::vector<std::unique_ptr<mcp::Tool>> make_tools(GuidanceConfig config,
                                                   const std::filesystem::path& workspace,
                                                   CommandRunner& runner,
                                                   SubmissionEvaluator& evaluator,
                                                   RunSession& session) {
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  tools.push_back(std::make_unique<ReadTool>(workspace));
  if (config == GuidanceConfig::design) {
    tools.push_back(std::make_unique<SubmitDesignTool>(workspace, session));
    return tools;
  }
  tools.push_back(std::make_unique<WriteTool>(workspace));
  tools.push_back(std::make_unique<BashTool>(workspace, runner, util::python_executable()));
  tools.push_back(std::make_unique<SubmitTool>(workspace, submissions_dir_for(workspace), evaluator, session));
  return tools;
}

std::string server_instructions(GuidanceConfig config) {
  if (config == GuidanceConfig::design) {
    return "d2k design run: read INSTRUCTIONS.md and DESIGN_BRIEF.md with `read`, then hand in "
           "model_design.json with `submit_design`.";
  }
  return "d2k kernel optimization: read INSTRUCTIONS.md with `read`; edit with `write`, compile and "
         "profile with `bash`, and evaluate with `submit`. The eligible submission with the highest "
         "geometric-mean speedup is the final one.";
}

}  // namespace d2k::agent
