#pragma once
// The optimization-progress score S'_perf (paper Appendix A.4, Figure 4): at each turn, every
// task contributes the best eligible score it has reached so far, or a fallback of 0.1 before its
// first eligible submission, and the model's value is the geometric mean over all tasks.

#include <span>
#include <vector>

#include "score/submission.h"

namespace d2k::score {

// A task's contribution before its first eligible submission. Smaller than Eq. 1's 0.5 so the
// curve rarely drops when a first, slow, eligible score replaces it. It is not a floor: an
// eligible score below it replaces it all the same.
inline constexpr double kTrajectoryFallback = 0.1;

// A task's retained score after each turn 0..last_turn (element k counts submissions with
// turn <= k). Throws std::invalid_argument when last_turn < 0, a submission's turn is outside
// [0, last_turn], or an eligible score is not finite and positive.
std::vector<double> task_trajectory(std::span<const Submission> submissions, int last_turn);

// S'_perf after each turn 0..last_turn: the geometric mean over all tasks of task_trajectory.
// Each element of `tasks` holds one task's submissions, in any order. Throws as
// task_trajectory does, and on an empty task set.
std::vector<double> model_trajectory(std::span<const std::vector<Submission>> tasks,
                                     int last_turn);

}  // namespace d2k::score
