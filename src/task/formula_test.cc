#include "task/formula.h"

#include <gtest/gtest.h>

namespace d2k::task {
namespace {

using nlohmann::json;

TEST(FormulaTest, UsesNumericParametersAsVariables) {
  const json params = {{"batch_size", 2}, {"M", 3}, {"N", 5.5}, {"label", "x"}};
  EXPECT_DOUBLE_EQ(evaluate_formula("4 * batch_size * M * N", params), 132.0);
}

TEST(FormulaTest, OffersMuparserFunctionsAndPowers) {
  const json params = {{"M", 3}, {"N", 2}};
  EXPECT_DOUBLE_EQ(evaluate_formula("min(M, N)^2 * max(M, N)", params), 12.0);
}

TEST(FormulaTest, NonNumericAndNonIdentifierKeysAreNotVariables) {
  const json params = {{"flag", true}, {"2d", 4}, {"inner", {{"M", 1}}}};
  EXPECT_THROW(evaluate_formula("flag + 1", params), FormulaError);
  EXPECT_THROW(evaluate_formula("M", params), FormulaError);
}

TEST(FormulaTest, AnUnknownVariableNamesTheFormula) {
  try {
    evaluate_formula("rows * cols", json{{"rows", 4}});
    FAIL() << "an unknown variable evaluated";
  } catch (const FormulaError& error) {
    EXPECT_NE(std::string(error.what()).find("\"rows * cols\""), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("cols"), std::string::npos) << error.what();
  }
}

TEST(FormulaTest, RejectsSyntaxErrorsAndNonFiniteValues) {
  EXPECT_THROW(evaluate_formula("2 * (M", json{{"M", 1}}), FormulaError);
  EXPECT_THROW(evaluate_formula("1 / M", json{{"M", 0}}), FormulaError);
}

}  // namespace
}  // namespace d2k::task
