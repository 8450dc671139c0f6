#pragma once
// A prepared SQLite statement. Values only ever reach SQL through bound parameters.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

struct sqlite3;
struct sqlite3_stmt;

namespace d2k::store {

class Statement {
 public:
  // Prepares `sql` on `db`; throws StoreError with SQLite's message.
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;  // owns the sqlite3_stmt; it must be finalized once
  Statement& operator=(const Statement&) = delete;

  // Parameters are numbered from 1, as in SQLite's ?NNN.
  void bind_int(int index, int64_t value);
  // SQLite has no NaN: a NaN is stored as NULL, and column_double() reads NULL back as NaN.
  void bind_double(int index, double value);
  void bind_text(int index, std::string_view value);
  void bind_null(int index);
  // Binds `values` to ?first, ?first+1, ... in order: integers and bools as integers,
  // floating-point values as doubles, strings as text, an empty std::optional as NULL (as the
  // "?N IS NULL OR column = ?N" filters want).
  template <typename... Values>
  void bind(int first, const Values&... values) {
    int index = first;
    (bind_value(index++, values), ...);
  }

  // Runs to the next row: true when a row is available, false when done.
  bool step();
  // Makes the statement runnable again; bindings are kept until rebound.
  void reset();

  // Columns are numbered from 0.
  bool column_is_null(int column) const;
  int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;

 private:
  template <typename T>
  void bind_value(int index, const std::optional<T>& value) {
    if (value) {
      bind_value(index, *value);
    } else {
      bind_null(index);
    }
  }
  template <typename T>
  void bind_value(int index, const T& value) {
    if constexpr (std::is_floating_point_v<T>) {
      bind_double(index, value);
    } else if constexpr (std::is_integral_v<T>) {
      bind_int(index, static_cast<int64_t>(value));
    } else {
      bind_text(index, std::string_view(value));
    }
  }

  [[noreturn]] void fail(std::string_view what) const;

  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace d2k::store
