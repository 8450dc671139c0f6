#include "worker/tensor_dump.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "protocol/tensor_file.h"
#include "runtime/input_digest.h"

namespace d2k::worker {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path) {
  throw std::runtime_error(fmt::format("{} {}: {}", what, path.string(), std::strerror(errno)));
}

}  // namespace

void write_tensor(const python::TensorInfo& tensor, const std::filesystem::path& path) {
  if (!tensor.is_contiguous()) {
    protocol::write_bytes(path, python::copy_to_host(tensor));
    return;
  }
  const size_t bytes = tensor.nbytes();
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail("cannot create", path);
  if (bytes > 0) {
    if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      close(fd);
      fail("cannot size", path);
    }
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (mapped == MAP_FAILED) {
      close(fd);
      fail("cannot map", path);
    }
    try {
      runtime::copy_to_host_pinned(mapped, tensor.data, bytes, tensor.on_device);
    } catch (...) {
      munmap(mapped, bytes);
      close(fd);
      throw;
    }
    munmap(mapped, bytes);
  }
  close(fd);
}

std::string tensor_digest(const python::TensorInfo& tensor, Device& device) {
  if (tensor.on_device && tensor.is_contiguous()) {
    if (const auto digest = device.digest(tensor.data, tensor.nbytes())) {
      return fmt::format("{:016x}", *digest);
    }
  }
  const auto bytes = python::copy_to_host(tensor);
  return fmt::format("{:016x}", runtime::host_digest(bytes.data(), bytes.size()));
}

}  // namespace d2k::worker
