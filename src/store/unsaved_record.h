#pragma once
// Where a record goes when the store refuses it after the work is done: a JSON file beside the
// store, or in the scratch folder when the store's folder cannot be written either, so that an
// evaluation that ran is never lost to a full disk or a store made read-only meanwhile.

#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

namespace d2k::store {

// Writes `record` as `<store file name>.unsaved-<kind>-<UTC time>-<pid>.json` beside
// `store_path`, else in `scratch_root`; returns the file written. Throws StoreError naming both
// folders when neither can be written.
std::filesystem::path write_unsaved_record(const std::filesystem::path& store_path,
                                           const std::filesystem::path& scratch_root,
                                           std::string_view kind, const nlohmann::json& record);

}  // namespace d2k::store
