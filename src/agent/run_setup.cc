#include "agent/run_setup.h"

#include <stdexcept>

#include "agent/run_session.h"
#include "agent/workspace_stager.h"

namespace d2k::agent {

std::string workspace_key(const std::filesystem::path& workspace) {
  return std::filesystem::canonical(workspace).string();
}

PreparedRun prepare_run(store::AgentStore& store, const task::Task& task, GuidanceConfig config,
                        int turn_budget, const std::filesystem::path& workspace) {
  if (turn_budget < 1) throw std::runtime_error("the turn budget must be at least 1");
  PreparedRun prepared;
  prepared.files = stage_workspace(task, config, turn_budget, workspace);
  store::AgentRun& run = prepared.run;
  run.task_id = task.id;
  run.config = to_string(config);
  run.workspace = workspace_key(workspace);
  run.turn_budget = turn_budget;
  run.turn_source = kTurnsFromToolCalls;
  run.status = kStatusPrepared;
  store.create_run(run);
  return prepared;
}

}  // namespace d2k::agent
