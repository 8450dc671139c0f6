#include "timing/batch_sizing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace d2k::timing {

void validate(const Settings& settings) {
  if (!std::isfinite(settings.min_sample_seconds) || settings.min_sample_seconds < 0.0) {
    throw std::invalid_argument("timing setting min_sample_seconds must be finite and >= 0");
  }
  if (settings.samples < 1) throw std::invalid_argument("timing setting samples must be >= 1");
  if (!(settings.graph_seconds > 0.0)) {
    throw std::invalid_argument("timing setting graph_seconds must be > 0");
  }
  if (settings.max_calls_per_graph < 1 || settings.max_calls_per_sample < 1) {
    throw std::invalid_argument("timing settings max_calls_per_graph and max_calls_per_sample "
                                "must be >= 1");
  }
  if (settings.max_held_back_retakes < 0 || settings.max_short_retakes < 0) {
    throw std::invalid_argument("timing settings for retakes must be >= 0");
  }
  if (settings.stopping == "noise" &&
      !(settings.noise_target > 0.0 && settings.max_sampling_seconds > 0.0)) {
    throw std::invalid_argument("the noise stopping rule needs noise_target > 0 and "
                                "max_sampling_seconds > 0");
  }
}

int64_t calls_per_graph(const Settings& settings, const InputRotation& rotation,
                        double estimate_s) {
  const int64_t rounds_limit = std::max<int64_t>(1, settings.max_calls_per_graph / rotation.sets());
  if (!(estimate_s > 0.0)) return rounds_limit * rotation.sets();
  const double round_s = estimate_s * static_cast<double>(rotation.sets());
  // Clamped while still a double: a tiny estimate gives a ratio no integer type can hold.
  const double rounds = std::clamp(std::round(settings.graph_seconds / round_s), 1.0,
                                   static_cast<double>(rounds_limit));
  return static_cast<int64_t>(rounds) * rotation.sets();
}

int64_t replays_per_sample(const Settings& settings, double replay_s) {
  if (!(replay_s > 0.0)) return 1;
  const double replays = std::ceil(settings.min_sample_seconds * 1.05 / replay_s);
  return static_cast<int64_t>(std::clamp(replays, 1.0, 1e9));
}

}  // namespace d2k::timing
