#pragma once
// Arithmetic formulas of a workload's parameters, as tasks declare them in config.json (the work
// model, the peak auxiliary memory bound): "4 * batch_size * M * N", "max(M, N)^2". Parsed and
// evaluated by muparser, so tasks get its operators and functions (min, max, sqrt, ^, ...).

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace d2k::task {

// The formula does not parse, names an unknown variable, or has no finite value.
class FormulaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Evaluates `expression` with every number-valued key of `variables` (a JSON object) whose name
// is an identifier as a variable; other keys (strings, objects, booleans) are not variables.
double evaluate_formula(const std::string& expression, const nlohmann::json& variables);

}  // namespace d2k::task
