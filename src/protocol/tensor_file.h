#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::protocol {

// A tensor a worker wrote to its scratch folder: raw row-major bytes plus this description.
struct TensorFile {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  bool on_device = false;
  std::filesystem::path path;

  int64_t numel() const;
};

void to_json(nlohmann::json& j, const TensorFile& v);
void from_json(const nlohmann::json& j, TensorFile& v);

size_t dtype_size(const std::string& dtype);  // throws std::invalid_argument for unknown names
bool is_floating(const std::string& dtype);

void write_bytes(const std::filesystem::path& path, const std::vector<std::byte>& bytes);

// A read-only view of a tensor file's bytes (memory-mapped).
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;  // owns the mapping
  MappedFile& operator=(const MappedFile&) = delete;
  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace d2k::protocol
