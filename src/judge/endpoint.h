#pragma once
// An OpenAI-compatible base URL ("https://api.example.com/v1"), taken apart.

#include <string>
#include <string_view>

namespace d2k::judge {

struct Endpoint {
  std::string scheme;  // http | https
  std::string host;
  int port = 0;             // the scheme's default when the URL names none
  std::string path_prefix;  // "/v1", or empty

  // Throws std::invalid_argument for anything but http(s)://host[:port][/path], or a URL with
  // user information (a key belongs in --api-key, not in the URL).
  static Endpoint parse(std::string_view base_url);

  std::string scheme_host_port() const;       // "https://api.example.com:443"
  std::string host_label() const;             // "api.example.com:443": what the store keeps
  std::string chat_completions_path() const;  // "/v1/chat/completions"
};

}  // namespace d2k::judge
