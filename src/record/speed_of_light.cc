#include "record/speed_of_light.h"

#include <cmath>

namespace d2k::record {

void to_json(nlohmann::json& j, const SpeedOfLight& v) {
  j = {{"flops", v.flops},
       {"bytes", v.bytes},
       {"math_dtype", v.math_dtype},
       {"peak_flops_per_s", v.peak_flops_per_s},
       {"peak_bytes_per_s", v.peak_bytes_per_s},
       {"flops_source", v.flops_source},
       {"bytes_source", v.bytes_source},
       {"t_sol_s", v.t_sol_s}};
  // JSON has no NaN: a missing fraction is null.
  j["fraction"] = std::isfinite(v.fraction) ? nlohmann::json(v.fraction) : nlohmann::json(nullptr);
}

void from_json(const nlohmann::json& j, SpeedOfLight& v) {
  v.flops = j.value("flops", 0.0);
  v.bytes = j.value("bytes", 0.0);
  v.math_dtype = j.value("math_dtype", "");
  v.peak_flops_per_s = j.value("peak_flops_per_s", 0.0);
  v.peak_bytes_per_s = j.value("peak_bytes_per_s", 0.0);
  v.flops_source = j.value("flops_source", "");
  v.bytes_source = j.value("bytes_source", "");
  v.t_sol_s = j.value("t_sol_s", 0.0);
  const auto fraction = j.find("fraction");
  v.fraction = fraction != j.end() && fraction->is_number() ? fraction->get<double>()
                                                            : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace d2k::record
