#include "store/statement.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "store/database.h"
#include "util/temp_dir.h"

namespace d2k::store {
namespace {

TEST(StatementTest, BindTakesEachValueByItsTypeFromTheFirstIndexOn) {
  util::TempDir dir;
  Database db(dir.path() / "bind.sqlite");
  Statement select = db.prepare(
      "SELECT ?1, typeof(?2), ?2, typeof(?3), ?3, typeof(?4), ?4, typeof(?5), ?5, typeof(?6), ?6, "
      "typeof(?7)");
  select.bind_int(1, 7);
  const std::optional<int64_t> absent;
  const std::optional<std::string> present = "x";
  select.bind(2, true, 2.5, std::string("text"), present, int64_t{1} << 40, absent);
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.column_int(0), 7) << "parameters before `first` keep their bindings";
  EXPECT_EQ(select.column_text(1), "integer");
  EXPECT_EQ(select.column_int(2), 1);
  EXPECT_EQ(select.column_text(3), "real");
  EXPECT_EQ(select.column_double(4), 2.5);
  EXPECT_EQ(select.column_text(5), "text");
  EXPECT_EQ(select.column_text(6), "text");
  EXPECT_EQ(select.column_text(7), "text");
  EXPECT_EQ(select.column_text(8), "x");
  EXPECT_EQ(select.column_text(9), "integer");
  EXPECT_EQ(select.column_int(10), int64_t{1} << 40);
  EXPECT_EQ(select.column_text(11), "null");
}

}  // namespace
}  // namespace d2k::store
