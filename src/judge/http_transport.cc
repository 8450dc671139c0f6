#include "judge/http_transport.h"

#include <cmath>
#include <string>
#include <utility>

#include <httplib.h>

namespace d2k::judge {
namespace {

// httplib takes timeouts as whole seconds plus microseconds.
std::pair<time_t, time_t> split_seconds(double seconds) {
  const double whole = std::floor(seconds);
  return {static_cast<time_t>(whole), static_cast<time_t>((seconds - whole) * 1e6)};
}

// httplib's error names ("Read") said as what happened.
std::string describe(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection:
      return "could not connect";
    case httplib::Error::ConnectionTimeout:
      return "connecting timed out";
    case httplib::Error::Read:
      return "no complete response within the read timeout, or the connection closed";
    case httplib::Error::Write:
      return "sending the request failed";
    case httplib::Error::SSLConnection:
      return "the TLS handshake failed";
    case httplib::Error::SSLServerVerification:
      return "the server's certificate did not verify";
    default:
      return "httplib error " + httplib::to_string(error);
  }
}

}  // namespace

HttpTransport::HttpTransport(Endpoint endpoint, HttpOptions options)
    : endpoint_(std::move(endpoint)), options_(std::move(options)) {}

HttpResponse HttpTransport::post_json(const std::string& body) {
  httplib::Client client(endpoint_.scheme_host_port());
  const auto [connect_s, connect_us] = split_seconds(options_.connect_timeout_s);
  const auto [read_s, read_us] = split_seconds(options_.read_timeout_s);
  const auto [write_s, write_us] = split_seconds(options_.write_timeout_s);
  client.set_connection_timeout(connect_s, connect_us);
  client.set_read_timeout(read_s, read_us);
  client.set_write_timeout(write_s, write_us);
  if (!options_.api_key.empty()) client.set_bearer_token_auth(options_.api_key);
  const httplib::Result result =
      client.Post(endpoint_.chat_completions_path(), body, "application/json");
  HttpResponse response;
  if (!result) {
    response.error = describe(result.error());
    return response;
  }
  response.status = result->status;
  response.body = result->body;
  response.retry_after = result->get_header_value("Retry-After");
  return response;
}

}  // namespace d2k::judge
