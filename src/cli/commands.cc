#include "cli/commands.h"

#include "store/store.h"

namespace d2k::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"tasks", "list the tasks", define_tasks},
      {"show", "show one task", define_show},
      {"validate-guidance", "check tasks' guidance.json against the design schema",
       define_validate_guidance},
      {"eval", "evaluate an implementation of a task", define_eval},
      {"profile", "run one workload's calls under Nsight Compute or compute-sanitizer",
       define_profile},
      {"results", "query stored evaluations", define_results},
      {"judge", "score an implementation or a design with an LLM judge", define_judge},
      {"report", "render the paper's tables and figures from the store", define_report},
      {"doctor", "check the toolchain and measure the device's speed-of-light ceilings",
       define_doctor},
      {"timing-methods", "list the timing methods", define_timing_methods},
      {"reason-codes", "list every reason code with its verdict (Markdown)", define_reason_codes},
      {"agent", "run a coding agent on a task through the MCP tools", define_agent},
      {"mcp", "serve the agent tools over MCP (stdio)", define_mcp},
      {"sweep", "run a plan's grid of evaluations and agent runs, locally or on Slurm",
       define_sweep},
      {"store", "merge stores (import)", define_store},
      {"worker", "internal: run one evaluation worker", define_worker},
  };
  return table;
}

store::Store open_store_for_writing(const GlobalOptions& global) {
  store::Store store = store::Store::open(store_path(global));
  store.check_writable();
  return store;
}

std::filesystem::path store_path(const GlobalOptions& global) {
  return global.store_path.empty() ? store::Store::default_path()
                                   : std::filesystem::path(global.store_path);
}

}  // namespace d2k::cli
