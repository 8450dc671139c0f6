#pragma once
// Aggregation of the LLM judge's scores (paper §3.3, Eq. 4). Unlike S_perf these are arithmetic
// means: per task over the three levels, per model over the tasks, overall over the models.
// Every function throws std::invalid_argument on an empty set or a level score outside [0, 100].

#include <span>

#include "score/level_scores.h"

namespace d2k::score {

// JS of one task: the mean of its three level scores.
double js(const LevelScores& levels);

// The level scores that count for an implementation: the judged ones when correct, else zeros.
LevelScores counted_levels(const JudgedImplementation& implementation);

// JS_impl of one task: js of counted_levels, so 0 for an incorrect final submission.
double js_impl(const JudgedImplementation& implementation);

// Each level's arithmetic mean over the entries: over tasks for a model's L1/L2/L3 columns,
// or over models for the "Average" row.
LevelScores level_means(std::span<const LevelScores> entries);

// Eq. 4, JS_design of a model: the mean over tasks of js.
double model_js_design(std::span<const LevelScores> proposals);

// Eq. 4, JS_impl of a model: the mean over tasks of js_impl (incorrect tasks count as 0).
double model_js_impl(std::span<const JudgedImplementation> implementations);

// Level means of a model's implementations, with incorrect tasks counted as 0 at every level.
LevelScores model_impl_levels(std::span<const JudgedImplementation> implementations);

// Overall judge score: the arithmetic mean of the model scores.
double overall_js(std::span<const double> model_scores);

}  // namespace d2k::score
