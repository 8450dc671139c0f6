#include "store/statement.h"

#include <limits>

#include <sqlite3.h>

#include "store/store_error.h"

namespace d2k::store {

Statement::Statement(sqlite3* db, std::string_view sql) {
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK) {
    throw StoreError("sqlite: " + std::string(sqlite3_errmsg(db)) +
                     " (preparing: " + std::string(sql) + ")");
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::bind_int(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail("bind");
}

void Statement::bind_double(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) fail("bind");
}

void Statement::bind_text(int index, std::string_view value) {
  // The length is explicit so embedded NUL bytes survive.
  if (sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT,
                          SQLITE_UTF8) != SQLITE_OK) {
    fail("bind");
  }
}

void Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail("bind");
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail("step");
}

void Statement::reset() {
  if (sqlite3_reset(stmt_) != SQLITE_OK) fail("reset");
}

bool Statement::column_is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::column_double(int column) const {
  if (column_is_null(column)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::column_text(int column) const {
  // Text first, then its length: that is the order SQLite documents as safe.
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  const int size = sqlite3_column_bytes(stmt_, column);
  return text == nullptr ? std::string() : std::string(text, static_cast<size_t>(size));
}

void Statement::fail(std::string_view what) const {
  throw StoreError("sqlite " + std::string(what) + ": " + sqlite3_errmsg(sqlite3_db_handle(stmt_)) +
                   " (in: " + sqlite3_sql(stmt_) + ")");
}

}  // namespace d2k::store
