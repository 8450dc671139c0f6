#include "store/database.h"

#include <string>
#include <utility>

#include <sqlite3.h>

#include "store/store_error.h"

namespace d2k::store {

Database::Database(const std::filesystem::path& path, Access access) : path_(path) {
  const int flags = access == Access::read_only ? SQLITE_OPEN_READONLY
                                                : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    // On failure SQLite may still allocate a handle, which carries the message.
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError("cannot open store " + path.string() + ": " + message);
  }
}

Database::~Database() { sqlite3_close(db_); }

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Database& Database::operator=(Database&& other) noexcept {
  std::swap(db_, other.db_);
  std::swap(path_, other.path_);
  return *this;
}

Database Database::in_memory_copy(const Database& file) {
  Database copy(":memory:");
  copy.path_ = file.path_;
  sqlite3_backup* backup = sqlite3_backup_init(copy.db_, "main", file.db_, "main");
  if (backup == nullptr) throw StoreError("store " + file.path_.string() + ": " + sqlite3_errmsg(copy.db_));
  sqlite3_backup_step(backup, -1);
  if (sqlite3_backup_finish(backup) != SQLITE_OK) {
    throw StoreError("store " + file.path_.string() + ": " + sqlite3_errmsg(copy.db_));
  }
  return copy;
}

void Database::exec(const char* sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    throw StoreError("store " + path_.string() + ": " + message);
  }
}

int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

bool Database::read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }

Transaction::Transaction(const Database& db, Mode mode) : db_(db) {
  db_.exec(mode == Mode::immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
}

Transaction::~Transaction() {
  // A destructor cannot report; the exception that skipped commit() already says what failed.
  if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace d2k::store
