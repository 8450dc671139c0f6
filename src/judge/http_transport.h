#pragma once
// The Transport over HTTP(S), with Debian's cpp-httplib (built with OpenSSL; https verifies the
// server's certificate against the system's CA store).

#include <string>

#include "judge/endpoint.h"
#include "judge/transport.h"

namespace d2k::judge {

struct HttpOptions {
  std::string api_key;  // sent as "Authorization: Bearer"; empty: no header
  double connect_timeout_s = 10.0;
  double read_timeout_s = 300.0;  // a judge reply can take minutes; the library's default is 5 s
  double write_timeout_s = 60.0;
};

class HttpTransport : public Transport {
 public:
  HttpTransport(Endpoint endpoint, HttpOptions options);
  HttpResponse post_json(const std::string& body) override;

 private:
  Endpoint endpoint_;
  HttpOptions options_;
};

}  // namespace d2k::judge
