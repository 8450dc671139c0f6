#include "store/unsaved_record.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "store/store_error.h"
#include "util/text.h"

namespace d2k::store {
namespace {

// Writes the whole file or nothing: a partial file would look like a record.
bool write_file(const std::filesystem::path& file, const std::string& text, std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  const std::filesystem::path partial = file.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary);
    out << text;
    out.close();
    if (out) {
      std::filesystem::rename(partial, file, ec);
      if (!ec) return true;
    }
  }
  std::filesystem::remove(partial, ec);
  error = file.parent_path().string() + " is not writable";
  return false;
}

}  // namespace

std::filesystem::path write_unsaved_record(const std::filesystem::path& store_path,
                                           const std::filesystem::path& scratch_root,
                                           std::string_view kind, const nlohmann::json& record) {
  std::string stamp = util::utc_now_iso8601();
  std::replace(stamp.begin(), stamp.end(), ':', '-');  // a name any file system accepts
  const std::string name = store_path.filename().string() + ".unsaved-" + std::string(kind) +
                           "-" + stamp + "-" + std::to_string(getpid()) + ".json";
  // Plain JSON, as record::to_json writes it, so that any JSON reader takes it back.
  const std::string text = record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::string beside_error;
  const auto beside = std::filesystem::absolute(store_path).parent_path() / name;
  if (write_file(beside, text, beside_error)) return beside;
  std::string scratch_error;
  const auto in_scratch = std::filesystem::absolute(scratch_root) / name;
  if (write_file(in_scratch, text, scratch_error)) return in_scratch;
  throw StoreError("the record could not be kept anywhere: " + beside_error + ", and " +
                   scratch_error);
}

}  // namespace d2k::store
