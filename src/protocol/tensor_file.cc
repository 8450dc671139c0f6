#include "protocol/tensor_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

namespace d2k::protocol {

int64_t TensorFile::numel() const {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

void to_json(nlohmann::json& j, const TensorFile& v) {
  j = {{"name", v.name}, {"dtype", v.dtype}, {"shape", v.shape},
       {"on_device", v.on_device}, {"path", v.path.string()}};
}

void from_json(const nlohmann::json& j, TensorFile& v) {
  v.name = j.at("name").get<std::string>();
  v.dtype = j.at("dtype").get<std::string>();
  v.shape = j.at("shape").get<std::vector<int64_t>>();
  v.on_device = j.at("on_device").get<bool>();
  v.path = j.at("path").get<std::string>();
}

size_t dtype_size(const std::string& dtype) {
  static const std::map<std::string, size_t> sizes = {
      {"float16", 2}, {"bfloat16", 2}, {"float32", 4}, {"float64", 8}, {"int8", 1},
      {"int16", 2},   {"int32", 4},    {"int64", 8},   {"uint8", 1},   {"bool", 1}};
  auto it = sizes.find(dtype);
  if (it == sizes.end()) throw std::invalid_argument("unknown dtype '" + dtype + "'");
  return it->second;
}

bool is_floating(const std::string& dtype) {
  return dtype == "float16" || dtype == "bfloat16" || dtype == "float32" || dtype == "float64";
}

void write_bytes(const std::filesystem::path& path, const std::vector<std::byte>& bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw std::runtime_error("cannot write " + path.string());
  const size_t written = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), file);
  const bool ok = written == bytes.size() && std::fclose(file) == 0;
  if (!ok) throw std::runtime_error("short write to " + path.string());
}

MappedFile::MappedFile(const std::filesystem::path& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  struct stat info {};
  fstat(fd, &info);
  size_ = static_cast<size_t>(info.st_size);
  if (size_ > 0) {
    // Populated up front: a comparison reads every page, and faulting them in one by one costs
    // more than reading them.
    void* mapped = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (mapped == MAP_FAILED) {
      close(fd);
      throw std::runtime_error("cannot map " + path.string() + ": " + std::strerror(errno));
    }
    data_ = static_cast<const std::byte*>(mapped);
  }
  close(fd);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace d2k::protocol
