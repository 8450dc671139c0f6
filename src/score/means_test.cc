#include "score/means.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace d2k::score {
namespace {

using Values = std::vector<double>;

TEST(MeansTest, GeometricMeanOfOneValueIsThatValueExactly) {
  // In double, exp(log(x)) is not exact for all of these; a tie at a fast_p threshold needs it.
  for (const double value : {1.5, 1.1, 2.68, 0.056, 3.0, 1e-6, 123456.789}) {
    EXPECT_EQ(geometric_mean(Values{value}), value);
  }
}

TEST(MeansTest, GeometricMeanOfExactProductsIsExact) {
  EXPECT_EQ(geometric_mean(Values{1.0, 4.0}), 2.0);
  EXPECT_EQ(geometric_mean(Values{2.0, 0.5}), 1.0);
  EXPECT_EQ(geometric_mean(Values{2.25, 1.0}), 1.5);
  EXPECT_EQ(geometric_mean(Values{1.5, 1.5, 1.5}), 1.5);
  EXPECT_EQ(geometric_mean(Values{2.0, 4.0, 8.0}), 4.0);
  EXPECT_EQ(geometric_mean(Values(26, 1.1)), 1.1);
}

TEST(MeansTest, GeometricMeanOfSeveralValues) {
  EXPECT_DOUBLE_EQ(geometric_mean(Values{1.0, 2.0}), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(geometric_mean(Values{0.5, 3.0, 9.0}), std::cbrt(13.5));
}

TEST(MeansTest, GeometricMeanSurvivesProductsOutsideTheDoubleRange) {
  EXPECT_DOUBLE_EQ(geometric_mean(Values(400, 1e10)), 1e10);
  EXPECT_DOUBLE_EQ(geometric_mean(Values(400, 1e-10)), 1e-10);
  EXPECT_DOUBLE_EQ(geometric_mean(Values{1e300, 1e300, 1e-300}), 1e100);
}

TEST(MeansTest, GeometricMeanRejectsNoValuesAndNonPositiveValues) {
  EXPECT_THROW(geometric_mean(Values{}), std::invalid_argument);
  EXPECT_THROW(geometric_mean(Values{1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(geometric_mean(Values{-2.0, -2.0}), std::invalid_argument);
  EXPECT_THROW(geometric_mean(Values{std::numeric_limits<double>::quiet_NaN()}),
               std::invalid_argument);
  EXPECT_THROW(geometric_mean(Values{std::numeric_limits<double>::infinity()}),
               std::invalid_argument);
}

TEST(MeansTest, ArithmeticMean) {
  EXPECT_EQ(arithmetic_mean(Values{1.0, 2.0, 3.0, 4.0}), 2.5);
  EXPECT_EQ(arithmetic_mean(Values{0.0, 0.0, 90.0}), 30.0);
}

TEST(MeansTest, ArithmeticMeanRejectsNoValuesAndNonFiniteValues) {
  EXPECT_THROW(arithmetic_mean(Values{}), std::invalid_argument);
  EXPECT_THROW(arithmetic_mean(Values{1.0, std::numeric_limits<double>::quiet_NaN()}),
               std::invalid_argument);
}

}  // namespace
}  // namespace d2k::score
