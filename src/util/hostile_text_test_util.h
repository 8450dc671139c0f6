#pragma once
// Bounded random inputs for the tests that feed a parser hostile text: fixed seeds, so a failure
// reproduces, and a fixed number of rounds, so each test fits CI in a few seconds. A round is
// random bytes, JSON nested past any sane depth, or a valid text with bytes flipped, dropped or
// inserted.

#include <cstdint>
#include <random>
#include <string>

namespace d2k::util {

class HostileText {
 public:
  explicit HostileText(uint64_t seed) : rng_(seed) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // One hostile variant of `valid`.
  std::string next(const std::string& valid) {
    switch (pick(4)) {
      case 0: return bytes(pick(200));
      case 1: return nested(20 + pick(3000));
      default: return mutate(valid);
    }
  }

  std::string bytes(int length) {
    std::string text;
    for (int i = 0; i < length; ++i) text.push_back(static_cast<char>(pick(256)));
    return text;
  }

  // Arrays and objects inside each other, `depth` deep, sometimes left open.
  std::string nested(int depth) {
    std::string open, close;
    for (int i = 0; i < depth; ++i) {
      const bool array = pick(2) == 0;
      open += array ? "[" : "{\"k\":";
      close.insert(close.begin(), array ? ']' : '}');
    }
    return pick(4) == 0 ? open : open + "1" + close;
  }

  std::string mutate(std::string text) {
    for (int edits = 1 + pick(6); edits > 0 && !text.empty(); --edits) {
      const size_t at = static_cast<size_t>(pick(static_cast<int>(text.size())));
      switch (pick(3)) {
        case 0: text.erase(at, 1 + pick(4)); break;
        case 1: text.insert(at, 1, "{}[]\",:\\0-e."[pick(13)]); break;
        default: text[at] = static_cast<char>(pick(256));
      }
    }
    return text;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace d2k::util
