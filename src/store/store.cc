#include "store/store.h"

#include <cstdlib>
#include <utility>

#include "store/schema.h"

namespace d2k::store {

Store::Store(std::shared_ptr<const Database> db)
    : db_(std::move(db)),
      evaluations_(db_),
      judge_assessments_(db_),
      ceilings_(db_),
      agent_runs_(db_) {}

Store Store::open(const std::filesystem::path& path) {
  return Store(std::make_shared<const Database>(open_database(path)));
}

Store Store::open_read_only(const std::filesystem::path& path) {
  return Store(std::make_shared<const Database>(open_database_read_only(path)));
}

void Store::check_writable() const {
  if (db_->read_only()) {
    throw StoreError("store " + path().string() +
                     " is read-only; make it writable, or name another with --store or $D2K_STORE");
  }
  try {
    // A write that is rolled back: the write lock and the journal are what a save needs.
    Transaction probe(*db_);
    db_->exec("UPDATE meta SET value = value WHERE key = 'schema_version'");
  } catch (const StoreError& error) {
    throw StoreError("store " + path().string() + " cannot be written (" + error.what() +
                     "); name another with --store or $D2K_STORE");
  }
}

std::filesystem::path Store::default_path() {
  const char* env = std::getenv("D2K_STORE");
  if (env != nullptr && *env != '\0') return env;
  return std::filesystem::current_path() / "d2k-store.sqlite";
}

}  // namespace d2k::store
