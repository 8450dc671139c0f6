#pragma once
// Fencing of untrusted text (task files, expert material, the candidate) inside a judge prompt.

#include <string>
#include <string_view>

namespace d2k::judge {

// `content` between a BEGIN and an END line that carry `label` and a tag:
//
//   <<<BEGIN candidate solution [3f9a0c1de2b47a65]>>>
//   ...content...
//   <<<END candidate solution [3f9a0c1de2b47a65]>>>
//
// The tag is derived from the content's hash and re-drawn until it does not occur in the
// content, so no line of the content can close the block early. The same content always gets
// the same tag, which keeps dry-run requests reproducible. `label` is text d2k chooses.
std::string fence_artifact(std::string_view label, std::string_view content);

}  // namespace d2k::judge
