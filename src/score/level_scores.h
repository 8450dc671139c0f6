#pragma once
// The judge's scores for one proposal or implementation at the three design levels (paper
// §2.3, §3.3): L1 algorithmic insights, L2 dataflow design, L3 low-level optimization, each
// 0 to 100. Also the aggregate of such scores over tasks or models, level by level.

namespace d2k::score {

struct LevelScores {
  double l1 = 0.0;
  double l2 = 0.0;
  double l3 = 0.0;
};

// A judged final implementation of one task. An incorrect one scores 0 at every level whatever
// the judge said (§3.3), so that every task counts in the implementation averages.
struct JudgedImplementation {
  LevelScores levels;
  bool correct = false;  // the final submission passed the correctness evaluation
};

}  // namespace d2k::score
