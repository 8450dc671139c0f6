#include "judge/endpoint.h"

#include <charconv>
#include <stdexcept>

namespace d2k::judge {

Endpoint Endpoint::parse(std::string_view base_url) {
  const auto fail = [&](const char* why) {
    return std::invalid_argument("judge base URL '" + std::string(base_url) + "': " + why);
  };
  Endpoint e;
  const size_t scheme_end = base_url.find("://");
  if (scheme_end == std::string_view::npos) throw fail("expected http://HOST[:PORT][/PATH]");
  e.scheme = base_url.substr(0, scheme_end);
  if (e.scheme != "http" && e.scheme != "https") throw fail("the scheme must be http or https");
  std::string_view rest = base_url.substr(scheme_end + 3);
  const size_t path_start = rest.find('/');
  std::string_view authority = rest.substr(0, path_start);
  if (path_start != std::string_view::npos) e.path_prefix = rest.substr(path_start);
  while (!e.path_prefix.empty() && e.path_prefix.back() == '/') e.path_prefix.pop_back();
  if (authority.find('@') != std::string_view::npos) {
    throw fail("user information in the URL is not accepted; give the key with --api-key");
  }
  if (e.path_prefix.find_first_of("?#") != std::string::npos) {
    throw fail("a query or fragment is not part of a base URL");
  }
  // A port follows the last ':' unless that ':' is inside an IPv6 literal ("[::1]").
  const size_t colon = authority.rfind(':');
  const size_t bracket = authority.rfind(']');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    const std::string_view port = authority.substr(colon + 1);
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), e.port);
    if (error != std::errc() || end != port.data() + port.size() || e.port <= 0 || e.port > 65535) {
      throw fail("the port must be a number from 1 to 65535");
    }
    authority = authority.substr(0, colon);
  } else {
    e.port = e.scheme == "https" ? 443 : 80;
  }
  if (authority.empty()) throw fail("no host");
  e.host = authority;
  return e;
}

std::string Endpoint::scheme_host_port() const {
  return scheme + "://" + host + ":" + std::to_string(port);
}

std::string Endpoint::host_label() const { return host + ":" + std::to_string(port); }

std::string Endpoint::chat_completions_path() const { return path_prefix + "/chat/completions"; }

}  // namespace d2k::judge
