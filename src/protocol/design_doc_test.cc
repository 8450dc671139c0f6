// docs/design.md lists the worker messages; the list must name exactly the types of
// protocol/messages.h, so a new message cannot go undocumented.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "util/text.h"

namespace d2k::protocol {
namespace {

std::set<std::string> matches(const std::string& text, const std::regex& pattern) {
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it) {
    found.insert((*it)[1]);
  }
  return found;
}

TEST(DesignDocTest, TheMessageListNamesEveryTypeOfTheHeader) {
  const std::string header = util::read_text_file(std::string(D2K_SOURCE_DIR) + "/src/protocol/messages.h");
  const std::string design = util::read_text_file(std::string(D2K_SOURCE_DIR) + "/docs/design.md");
  const auto begin = design.find("Messages are newline-delimited JSON");
  ASSERT_NE(begin, std::string::npos) << "docs/design.md lost its message list";
  const std::string list = design.substr(begin, design.find("\n\n", begin) - begin);
  const std::set<std::string> events = matches(header, std::regex(R"re(kEvent = "(\w+)")re"));
  std::set<std::string> named = matches(list, std::regex(R"(`(\w+)`)"));
  named.erase("event");  // the field that carries the type
  EXPECT_GE(events.size(), 14u);
  EXPECT_EQ(named, events);
}

}  // namespace
}  // namespace d2k::protocol
