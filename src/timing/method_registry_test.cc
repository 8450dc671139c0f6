#include "timing/method_registry.h"

#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace d2k::timing {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MethodRegistryTest, ListsEventsAndGraph) {
  EXPECT_THAT(MethodRegistry::instance().names(), ElementsAre("events", "graph"));
}

TEST(MethodRegistryTest, CreatesTheNamedMethod) {
  const MethodRegistry& registry = MethodRegistry::instance();
  for (const std::string& name : registry.names()) {
    const auto method = registry.create(name);
    ASSERT_NE(method, nullptr);
    EXPECT_EQ(method->name(), name);
    EXPECT_EQ(registry.description(name), method->description());
    EXPECT_FALSE(registry.description(name).empty());
  }
}

TEST(MethodRegistryTest, UnknownNameIsRejectedWithKnownNames) {
  const MethodRegistry& registry = MethodRegistry::instance();
  try {
    registry.create("cold");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(std::string(error.what()),
                AllOf(HasSubstr("'cold'"), HasSubstr("events"), HasSubstr("graph")));
  }
  EXPECT_THROW(registry.description("cold"), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::timing
