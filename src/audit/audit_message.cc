#include "audit/audit_message.h"

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace d2k::audit {
namespace {

// Merges entries with the same key into the first of them, keeping first-seen order.
template <typename Entry, typename Key, typename Merge>
std::vector<Entry> merged(const std::vector<Entry>& entries, Key key, Merge merge) {
  std::vector<Entry> out;
  std::map<decltype(key(entries.front())), size_t> index;
  for (const Entry& entry : entries) {
    const auto [it, added] = index.try_emplace(key(entry), out.size());
    if (added) {
      out.push_back(entry);
    } else {
      merge(out[it->second], entry);
    }
  }
  return out;
}

size_t entries(const record::KernelAudit& audit) {
  return audit.kernels.size() + audit.transfers.size() + audit.synchronizations.size();
}

}  // namespace

record::KernelAudit fit_message(record::KernelAudit audit, size_t max_entries) {
  if (entries(audit) <= max_entries) return audit;
  uint64_t launches = 0;
  for (const record::AuditedKernel& kernel : audit.kernels) launches += kernel.launches;
  if (!audit.kernels.empty()) {
    audit.kernels = merged(
        audit.kernels,
        [](const record::AuditedKernel& k) { return std::make_tuple(k.name, k.device, k.stream); },
        [](record::AuditedKernel& into, const record::AuditedKernel& k) {
          into.duration_s += k.duration_s;
          into.launches += k.launches;
        });
  }
  if (!audit.transfers.empty()) {
    audit.transfers = merged(
        audit.transfers,
        [](const record::AuditedTransfer& t) {
          return std::make_tuple(t.operation, t.kind, t.device, t.stream);
        },
        [](record::AuditedTransfer& into, const record::AuditedTransfer& t) {
          into.bytes += t.bytes;
        });
  }
  if (!audit.synchronizations.empty()) {
    audit.synchronizations = merged(
        audit.synchronizations,
        [](const record::AuditedSync& s) { return std::make_tuple(s.kind, s.stream); },
        [](record::AuditedSync&, const record::AuditedSync&) {});
  }
  if (entries(audit) > max_entries) {
    record::KernelAudit too_large;
    too_large.tracer = audit.tracer;
    too_large.unavailable = fmt::format(
        "the call launched {} kernels of {} distinct names and streams, more than an audit "
        "carries ({} entries)",
        launches, audit.kernels.size(), max_entries);
    return too_large;
  }
  return audit;
}

}  // namespace d2k::audit
