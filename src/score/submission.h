#pragma once

namespace d2k::score {

// One submission an agent made for a task during its optimization run (paper Appendix A.4).
struct Submission {
  int turn = 0;             // the agent turn it was made at, 0 or more
  bool eligible = false;    // correct, with valid latencies on every workload
  double task_score = 0.0;  // its Eq. 1 speedup; read only when eligible
};

}  // namespace d2k::score
