#pragma once
// A SQLite connection, and the transactions run on it.

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "store/statement.h"

struct sqlite3;

namespace d2k::store {

class Database {
 public:
  enum class Access { read_write, read_only };

  // Opens the file, creating it if missing when `access` is read_write; throws StoreError with
  // SQLite's message. A file the OS will not let us write opens read-only either way.
  explicit Database(const std::filesystem::path& path, Access access = Access::read_write);
  ~Database();
  Database(const Database&) = delete;  // owns the connection; it must be closed once
  Database& operator=(const Database&) = delete;
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;

  // A copy of `file` in memory, which reads and writes never reach `file`; path() stays the
  // file's, for messages.
  static Database in_memory_copy(const Database& file);

  // Runs constant SQL text that takes no values: schema scripts, pragmas, transaction control.
  void exec(const char* sql) const;
  Statement prepare(std::string_view sql) const { return Statement(db_, sql); }
  int64_t last_insert_rowid() const;
  bool read_only() const;
  const std::filesystem::path& path() const { return path_; }
  sqlite3* handle() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
};

// One transaction: commit() ends it; leaving the scope without commit() rolls it back.
class Transaction {
 public:
  // `immediate` takes the write lock up front, so a writer never fails halfway on a lock upgrade.
  enum class Mode { deferred, immediate };

  explicit Transaction(const Database& db, Mode mode = Mode::immediate);
  ~Transaction();
  Transaction(const Transaction&) = delete;  // one BEGIN pairs with one COMMIT or ROLLBACK
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  const Database& db_;
  bool open_ = true;
};

}  // namespace d2k::store
