#include "timing/held_back.h"

#include <gtest/gtest.h>

namespace d2k::timing {
namespace {

record::DeviceReading reading(uint64_t reasons, uint64_t power_ns = 0, uint64_t thermal_ns = 0) {
  return {1980.0, 50.0, reasons, power_ns, thermal_ns};
}

TEST(HeldBackTest, FreeRunningIsEmpty) {
  EXPECT_EQ(held_back_between(reading(0), reading(0)), "");
  // Idle (0x1) and application clocks (0x2) are not throttling.
  EXPECT_EQ(held_back_between(reading(0x1), reading(0x2)), "");
}

TEST(HeldBackTest, NamesEveryReasonFromEitherReading) {
  EXPECT_EQ(held_back_between(reading(0x20), reading(0)), "thermal");
  EXPECT_EQ(held_back_between(reading(0), reading(0x8 | 0x80)), "hw_slowdown,power_brake");
  EXPECT_EQ(held_back_between(reading(0x4), reading(0)), "power_cap");
}

TEST(HeldBackTest, ViolationCountersThatGrewCount) {
  EXPECT_EQ(held_back_between(reading(0, 0, 100), reading(0, 0, 250)), "thermal");
  EXPECT_EQ(held_back_between(reading(0, 100, 0), reading(0, 250, 0)), "power_cap");
  EXPECT_EQ(held_back_between(reading(0, 100, 100), reading(0, 100, 100)), "");
}

TEST(HeldBackTest, OnlyPassingSlowdownsAreWorthARetake) {
  EXPECT_TRUE(worth_retaking("thermal"));
  EXPECT_TRUE(worth_retaking("hw_slowdown,power_cap"));
  EXPECT_TRUE(worth_retaking("power_brake"));
  EXPECT_FALSE(worth_retaking("power_cap"));
  EXPECT_FALSE(worth_retaking(""));
}

}  // namespace
}  // namespace d2k::timing
