#pragma once
// Static checks of a native candidate (docs/protocol.md, "Implementation validity"): the headers
// its source includes, and the libraries and symbols its built shared object asks the dynamic
// linker for, against the task's forbidden libraries.

#include <filesystem>
#include <string>
#include <vector>

#include "record/finding.h"
#include "task/implementation_rules.h"

namespace d2k::validity {

// `source` and the headers it includes with quotes from its own folder; `library` is the built
// object (empty when it has not been built). Throws std::runtime_error when `library` cannot be
// read as ELF.
std::vector<record::Finding> analyze_native(const std::filesystem::path& source,
                                            const std::filesystem::path& library,
                                            const task::ImplementationRules& rules);

// The library stem a soname, header path or symbol belongs to, among `forbidden`; empty when
// none: "libcublas.so.12" and "cublas_v2.h" give "cublas", "torch/extension.h" gives "torch".
std::string forbidden_library_of_soname(const std::string& soname,
                                        const std::vector<std::string>& forbidden);
std::string forbidden_library_of_header(const std::string& header,
                                        const std::vector<std::string>& forbidden);
std::string forbidden_library_of_symbol(const std::string& symbol,
                                        const std::vector<std::string>& forbidden);

}  // namespace d2k::validity
