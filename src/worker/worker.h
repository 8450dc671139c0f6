#pragma once

namespace d2k::worker {

// The body of `d2k worker`: reads the Setup from the channel descriptor, loads the task's inputs
// module and the implementation (the reference or a candidate), then runs each Workload the
// orchestrator sends until it sends Exit, reporting over the channel (protocol/messages.h).
// Returns the process exit status. The candidate runs only here, never in the orchestrator.
int run_worker(int channel_fd);

}  // namespace d2k::worker
