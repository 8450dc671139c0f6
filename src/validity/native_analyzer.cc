#include "validity/native_analyzer.h"

#include <fstream>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "validity/elf_dependencies.h"

namespace d2k::validity {
namespace {

namespace fs = std::filesystem;

record::Finding library_finding(const std::string& library, std::string message, std::string file,
                                int line, std::vector<std::string> evidence) {
  return {"forbidden_library:" + library, "forbidden_library", std::move(message),
          std::move(file), line, std::move(evidence)};
}

// The C++ namespace a library's mangled symbols live in.
std::string namespace_of(const std::string& library) { return library == "ATen" ? "at" : library; }

void scan_includes(const fs::path& file, const fs::path& folder,
                   const task::ImplementationRules& rules, std::set<fs::path>& seen,
                   std::vector<record::Finding>& findings) {
  if (!seen.insert(fs::weakly_canonical(file)).second) return;
  static const std::regex include(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::ifstream in(file);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    std::smatch match;
    if (!std::regex_search(text, match, include)) continue;
    const std::string header = match[2];
    const std::string library = forbidden_library_of_header(header, rules.forbidden_libraries);
    if (!library.empty()) {
      findings.push_back(library_finding(library, fmt::format("includes <{}>", header),
                                         fs::relative(file, folder).string(), line, {text}));
    } else if (match[1] == "\"" && fs::is_regular_file(file.parent_path() / header)) {
      scan_includes(file.parent_path() / header, folder, rules, seen, findings);
    }
  }
}

}  // namespace

std::string forbidden_library_of_soname(const std::string& soname,
                                        const std::vector<std::string>& forbidden) {
  std::string stem = fs::path(soname).filename().string();
  if (stem.rfind("lib", 0) == 0) stem = stem.substr(3);
  stem = stem.substr(0, stem.find(".so"));
  for (const auto& library : forbidden) {
    if (stem == library) return library;
  }
  return "";
}

std::string forbidden_library_of_header(const std::string& header,
                                        const std::vector<std::string>& forbidden) {
  const auto slash = header.find('/');
  const std::string first = header.substr(0, slash);
  const std::string stem = fs::path(header).stem().string();
  for (const auto& library : forbidden) {
    if (slash != std::string::npos && first == library) return library;
    if (slash == std::string::npos && (stem == library || stem.rfind(library + "_", 0) == 0)) {
      return library;
    }
  }
  return "";
}

std::string forbidden_library_of_symbol(const std::string& symbol,
                                        const std::vector<std::string>& forbidden) {
  for (const auto& library : forbidden) {
    // C entry points: cublasCreate_v2, cudnnConvolutionForward, cblas_sgemm.
    if (symbol.rfind(library, 0) == 0 && symbol.size() > library.size()) {
      const char next = symbol[library.size()];
      if (next == '_' || (next >= 'A' && next <= 'Z')) return library;
    }
    // C++ entry points in the library's namespace: _ZN5torch..., _ZNK3c10..., _ZN2at...
    const std::string ns = namespace_of(library);
    const std::string nested = std::to_string(ns.size()) + ns;
    if (symbol.rfind("_ZN" + nested, 0) == 0 || symbol.rfind("_ZNK" + nested, 0) == 0) {
      return library;
    }
  }
  return "";
}

std::vector<record::Finding> analyze_native(const fs::path& source, const fs::path& library,
                                            const task::ImplementationRules& rules) {
  std::vector<record::Finding> findings;
  std::set<fs::path> seen;
  scan_includes(source, source.parent_path(), rules, seen, findings);
  if (library.empty()) return findings;
  const ElfDependencies dependencies = read_elf_dependencies(library);
  for (const auto& soname : dependencies.needed) {
    const std::string forbidden = forbidden_library_of_soname(soname, rules.forbidden_libraries);
    if (!forbidden.empty()) {
      findings.push_back(library_finding(forbidden,
                                         fmt::format("the built object needs {}", soname),
                                         library.filename().string(), 0, {soname}));
    }
  }
  std::vector<std::string> symbols;
  std::string forbidden;
  for (const auto& symbol : dependencies.undefined_symbols) {
    const std::string owner = forbidden_library_of_symbol(symbol, rules.forbidden_libraries);
    if (owner.empty()) continue;
    if (forbidden.empty()) forbidden = owner;
    symbols.push_back(symbol);
  }
  if (!symbols.empty()) {
    findings.push_back(library_finding(
        forbidden, fmt::format("the built object calls {} undefined symbol(s) of {}",
                               symbols.size(), forbidden),
        library.filename().string(), 0, symbols));
  }
  return findings;
}

}  // namespace d2k::validity
