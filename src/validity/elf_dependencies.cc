#include "validity/elf_dependencies.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace d2k::validity {
namespace {

// A bounds-checked view of the file: a malformed object is an error, never a read past its end.
class Image {
 public:
  explicit Image(const std::filesystem::path& file) : file_(file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  template <typename T>
  T at(uint64_t offset) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) malformed();
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

  std::string string_at(uint64_t table_offset, uint64_t table_size, uint64_t index) const {
    if (index >= table_size || table_offset + table_size > bytes_.size()) malformed();
    const char* start = bytes_.data() + table_offset + index;
    return std::string(start, strnlen(start, table_size - index));
  }

  size_t size() const { return bytes_.size(); }
  [[noreturn]] void malformed() const {
    throw std::runtime_error(file_.string() + ": malformed ELF file");
  }

 private:
  std::filesystem::path file_;
  std::string bytes_;
};

}  // namespace

ElfDependencies read_elf_dependencies(const std::filesystem::path& file) {
  const Image image(file);
  const auto header = image.at<Elf64_Ehdr>(0);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) {
    throw std::runtime_error(file.string() + ": not a 64-bit ELF file");
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr)) image.malformed();
  const auto section = [&](uint64_t index) {
    if (index >= header.e_shnum) image.malformed();
    return image.at<Elf64_Shdr>(header.e_shoff + index * sizeof(Elf64_Shdr));
  };
  ElfDependencies result;
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr shdr = section(i);
    if (shdr.sh_type != SHT_DYNAMIC && shdr.sh_type != SHT_DYNSYM) continue;
    const Elf64_Shdr strings = section(shdr.sh_link);
    if (shdr.sh_type == SHT_DYNAMIC) {
      for (uint64_t offset = 0; offset + sizeof(Elf64_Dyn) <= shdr.sh_size; offset += sizeof(Elf64_Dyn)) {
        const auto entry = image.at<Elf64_Dyn>(shdr.sh_offset + offset);
        if (entry.d_tag == DT_NULL) break;
        if (entry.d_tag == DT_NEEDED) {
          result.needed.push_back(image.string_at(strings.sh_offset, strings.sh_size, entry.d_un.d_val));
        }
      }
    } else {
      // Entry 0 is the reserved null symbol.
      for (uint64_t offset = sizeof(Elf64_Sym); offset + sizeof(Elf64_Sym) <= shdr.sh_size;
           offset += sizeof(Elf64_Sym)) {
        const auto symbol = image.at<Elf64_Sym>(shdr.sh_offset + offset);
        if (symbol.st_shndx != SHN_UNDEF || symbol.st_name == 0) continue;
        result.undefined_symbols.push_back(
            image.string_at(strings.sh_offset, strings.sh_size, symbol.st_name));
      }
    }
  }
  return result;
}

}  // namespace d2k::validity
