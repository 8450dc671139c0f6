#pragma once

namespace d2k::eval {

// The body of `d2k worker`: reads one job from the channel descriptor, runs the reference or the
// candidate through the embedded interpreter, reports over the channel, and returns the process
// exit status. The candidate runs only here, never in the orchestrator.
int run_worker(int channel_fd);

}  // namespace d2k::eval
