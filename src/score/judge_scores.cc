#include "score/judge_scores.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "score/input_checks.h"
#include "score/means.h"

namespace d2k::score {
namespace {

constexpr double kMaxScore = 100.0;

void validate(const LevelScores& levels) {
  require_within(levels.l1, 0.0, kMaxScore, "L1 judge score");
  require_within(levels.l2, 0.0, kMaxScore, "L2 judge score");
  require_within(levels.l3, 0.0, kMaxScore, "L3 judge score");
}

std::vector<LevelScores> counted(std::span<const JudgedImplementation> implementations) {
  std::vector<LevelScores> levels;
  levels.reserve(implementations.size());
  for (const JudgedImplementation& implementation : implementations) {
    levels.push_back(counted_levels(implementation));
  }
  return levels;
}

// Eq. 4: the mean over tasks of each task's js.
double mean_js(std::span<const LevelScores> tasks, const char* score_name) {
  if (tasks.empty()) throw std::invalid_argument(std::string(score_name) + " over no tasks");
  std::vector<double> scores;
  scores.reserve(tasks.size());
  for (const LevelScores& levels : tasks) scores.push_back(js(levels));
  return arithmetic_mean(scores);
}

}  // namespace

double js(const LevelScores& levels) {
  validate(levels);
  return (levels.l1 + levels.l2 + levels.l3) / 3.0;
}

LevelScores counted_levels(const JudgedImplementation& implementation) {
  validate(implementation.levels);
  return implementation.correct ? implementation.levels : LevelScores{};
}

double js_impl(const JudgedImplementation& implementation) {
  return js(counted_levels(implementation));
}

LevelScores level_means(std::span<const LevelScores> entries) {
  if (entries.empty()) throw std::invalid_argument("judge score means over no entries");
  std::vector<double> l1, l2, l3;
  for (const LevelScores& levels : entries) {
    validate(levels);
    l1.push_back(levels.l1);
    l2.push_back(levels.l2);
    l3.push_back(levels.l3);
  }
  return {arithmetic_mean(l1), arithmetic_mean(l2), arithmetic_mean(l3)};
}

double model_js_design(std::span<const LevelScores> proposals) {
  return mean_js(proposals, "JS_design");
}

double model_js_impl(std::span<const JudgedImplementation> implementations) {
  return mean_js(counted(implementations), "JS_impl");
}

LevelScores model_impl_levels(std::span<const JudgedImplementation> implementations) {
  return level_means(counted(implementations));
}

double overall_js(std::span<const double> model_scores) {
  if (model_scores.empty()) throw std::invalid_argument("overall judge score of no models");
  for (const double score : model_scores) require_within(score, 0.0, kMaxScore, "model JS");
  return arithmetic_mean(model_scores);
}

}  // namespace d2k::score
