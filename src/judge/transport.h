#pragma once
// The HTTP exchange under the chat client, behind an interface so that the retry and fallback
// logic is tested with a scripted fake and the real client can be swapped (libcurl, a proxy).

#include <string>

namespace d2k::judge {

struct HttpResponse {
  int status = 0;  // 0: no response (refused, timed out, TLS failure)
  std::string body;
  std::string retry_after;  // the Retry-After header, when the server sent one
  std::string error;        // why there is no response, when status is 0
};

class Transport {
 public:
  virtual ~Transport() = default;
  // POSTs `body` (JSON) to the chat-completions endpoint.
  virtual HttpResponse post_json(const std::string& body) = 0;
};

}  // namespace d2k::judge
