#pragma once
// The store's schema (docs/store.md): the migrations that build it, one per version, applied in
// order when a file is opened.

#include <filesystem>

#include "store/database.h"

namespace d2k::store {

// The version this build writes: the number of migrations it knows.
int schema_version();

// Brings the file's schema up to schema_version() in one transaction; throws StoreError when the
// file was written by a newer d2k.
void migrate(const Database& db);

// Opens or creates the file (and its parent folders) with the connection settings every store
// uses, and migrates it. A file that cannot be written opens read-only and is not migrated.
Database open_database(const std::filesystem::path& path);

// Opens an existing file for reading only, never changing it (a committed store stays
// byte-identical): as it is when its schema is current, else a migrated copy in memory.
Database open_database_read_only(const std::filesystem::path& path);

}  // namespace d2k::store
