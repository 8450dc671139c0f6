#include "task/formula.h"

#include <cctype>
#include <cmath>
#include <map>

#include <muParser.h>

namespace d2k::task {
namespace {

// muparser's variable names: a letter or underscore, then letters, digits and underscores.
bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

double evaluate_formula(const std::string& expression, const nlohmann::json& variables) {
  // muparser binds variables by address, so the values must outlive the parser.
  std::map<std::string, double> values;
  for (const auto& [name, value] : variables.items()) {
    if (value.is_number() && is_identifier(name)) values[name] = value.get<double>();
  }
  mu::Parser parser;
  double result = 0.0;
  try {
    for (auto& [name, value] : values) parser.DefineVar(name, &value);
    parser.SetExpr(expression);
    result = parser.Eval();
  } catch (const mu::Parser::exception_type& error) {
    throw FormulaError("\"" + expression + "\": " + error.GetMsg());
  }
  if (!std::isfinite(result)) {
    throw FormulaError("\"" + expression + "\" has no finite value for these parameters");
  }
  return result;
}

}  // namespace d2k::task
