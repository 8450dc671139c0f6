#pragma once
// What a built shared object asks the dynamic linker for: its DT_NEEDED libraries and the
// symbols it leaves undefined. Read from the ELF file itself with <elf.h>; nothing is loaded.

#include <filesystem>
#include <string>
#include <vector>

namespace d2k::validity {

struct ElfDependencies {
  std::vector<std::string> needed;             // sonames, e.g. "libcublas.so.12"
  std::vector<std::string> undefined_symbols;  // names in .dynsym without a definition
};

// Throws std::runtime_error when the file cannot be read or is not a 64-bit ELF file.
ElfDependencies read_elf_dependencies(const std::filesystem::path& file);

}  // namespace d2k::validity
