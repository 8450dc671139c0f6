// A store that cannot be written is found before any work, and a record it refuses later is
// kept in a file beside it (or in the scratch folder).

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "store/store.h"
#include "store/unsaved_record.h"
#include "util/hash.h"
#include "util/text.h"

namespace d2k::store {
namespace {

namespace fs = std::filesystem;

class StoreWritableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "d2k_store_writable_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    // Traversable by the unprivileged user the permission checks run as.
    fs::permissions(dir_, fs::perms::all);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::all, fs::perm_options::replace);
    fs::remove_all(dir_);
  }

  fs::path store_path() const { return dir_ / "store.sqlite"; }

  fs::path dir_;
};

// Runs `body` in a child process whose file permissions apply: as `nobody` when this process
// is root (root writes read-only files). Returns the child's exit status; `body` returns it.
int run_unprivileged(const std::function<int()>& body) {
  const pid_t child = fork();
  if (child == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(100);
    int status = 101;
    try {
      status = body();
    } catch (...) {
      status = 102;
    }
    _exit(status);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(StoreWritableTest, AFreshStoreIsWritable) {
  const Store store = Store::open(store_path());
  EXPECT_NO_THROW(store.check_writable());
}

TEST_F(StoreWritableTest, AReadOnlyFileOpensAndIsRefusedForWriting) {
  Store::open(store_path());
  fs::permissions(store_path(), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read,
                  fs::perm_options::replace);
  const int status = run_unprivileged([&] {
    const Store store = Store::open(store_path());
    try {
      store.check_writable();
    } catch (const StoreError& error) {
      return contains(error.what(), "is read-only") && contains(error.what(), "--store") ? 0 : 1;
    }
    return 2;  // the check let a read-only store through
  });
  EXPECT_EQ(status, 0);
}

TEST_F(StoreWritableTest, AStoreInAFolderThatCannotBeWrittenIsRefused) {
  Store::open(store_path());
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::replace);
  const int status = run_unprivileged([&] {
    try {
      Store::open(store_path()).check_writable();
    } catch (const StoreError& error) {
      return contains(error.what(), store_path().string()) ? 0 : 1;
    }
    return 2;
  });
  EXPECT_EQ(status, 0);
}

TEST_F(StoreWritableTest, ReadingOnlyLeavesTheFileByteIdentical) {
  {
    Store store = Store::open(store_path());
    record::EvaluationResult result;
    result.task_id = "t";
    result.impl_kind = "expert";
    store.evaluations().save(result);
  }
  // A committed store is a single file in rollback-journal mode.
  Database(store_path()).exec("PRAGMA journal_mode = DELETE");
  const std::string before = util::hash_file(store_path());
  const Store store = Store::open_read_only(store_path());
  ASSERT_EQ(store.evaluations().list().size(), 1u);
  EXPECT_EQ(store.evaluations().list()[0].task_id, "t");
  EXPECT_EQ(util::hash_file(store_path()), before);
  EXPECT_FALSE(fs::exists(dir_ / "store.sqlite-wal"));
}

TEST_F(StoreWritableTest, ReadingOnlyAStoreOfAnOlderSchemaMigratesACopyInMemory) {
  { std::ofstream create(store_path()); }  // an empty file: schema version 0
  const Store store = Store::open_read_only(store_path());
  EXPECT_TRUE(store.evaluations().list().empty());
  EXPECT_EQ(store.path(), store_path());
  EXPECT_EQ(fs::file_size(store_path()), 0u);
}

TEST_F(StoreWritableTest, ReadingOnlyAMissingStoreCreatesNone) {
  EXPECT_THROW(Store::open_read_only(store_path()), StoreError);
  EXPECT_FALSE(fs::exists(store_path()));
}

TEST_F(StoreWritableTest, AnUnsavedRecordGoesBesideTheStore) {
  const fs::path scratch = dir_ / "scratch";
  const fs::path file =
      write_unsaved_record(store_path(), scratch, "evaluation", {{"task_id", "t"}, {"latency", 1.5}});
  EXPECT_EQ(file.parent_path(), dir_);
  EXPECT_TRUE(contains(file.filename().string(), "store.sqlite.unsaved-evaluation-"));
  const auto kept = nlohmann::json::parse(util::read_text_file(file));
  EXPECT_EQ(kept.at("task_id"), "t");
  EXPECT_EQ(kept.at("latency"), 1.5);
  EXPECT_FALSE(fs::exists(scratch));
}

TEST_F(StoreWritableTest, AnUnsavedRecordGoesToScratchWhenTheStoresFolderIsReadOnly) {
  const fs::path folder = dir_ / "stores";
  const fs::path scratch = dir_ / "scratch";
  fs::create_directories(folder);
  fs::create_directories(scratch);
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                              fs::perms::others_exec,
                  fs::perm_options::replace);
  fs::permissions(scratch, fs::perms::all);
  const int status = run_unprivileged([&] {
    const fs::path file = write_unsaved_record(folder / "store.sqlite", scratch, "evaluation",
                                               {{"task_id", "t"}});
    return file.parent_path() == scratch && fs::exists(file) ? 0 : 1;
  });
  EXPECT_EQ(status, 0);
}

TEST_F(StoreWritableTest, AnUnsavedRecordWithNowhereToGoIsAnError) {
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::replace);
  const int status = run_unprivileged([&] {
    try {
      write_unsaved_record(store_path(), dir_ / "scratch", "evaluation", {{"task_id", "t"}});
    } catch (const StoreError& error) {
      return contains(error.what(), "not writable") ? 0 : 1;
    }
    return 2;
  });
  EXPECT_EQ(status, 0);
}

}  // namespace
}  // namespace d2k::store
