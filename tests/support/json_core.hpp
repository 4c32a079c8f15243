// tests/support/json_core.hpp: what every reader of the JSON test data (reference files, regression
// inputs) shares, free of the test framework (the tests and the benchmarks use it): paths, numbers.
#pragma once

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace claw_test {

/// $CLAW_REFERENCE_DIR if set and non-empty, else the source tree's tests/data/reference
/// (CLAW_DEFAULT_REFERENCE_DIR, set by the build).
inline std::string reference_dir() {
  const char* env = std::getenv("CLAW_REFERENCE_DIR");
  if (env != nullptr && env[0] != '\0') return env;
  return CLAW_DEFAULT_REFERENCE_DIR;
}

/// Reads and parses a whole JSON file; false + error when missing or malformed.
inline bool read_json_file(const std::string& path, nlohmann::json& out, std::string& error) {
  std::ifstream in(path);
  if (!in.good()) {
    error = "cannot open " + path;
    return false;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  out = nlohmann::json::parse(buffer.str(), nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) {
    error = "cannot parse " + path;
    return false;
  }
  return true;
}

/// A C99 hexadecimal floating literal as printf's %a writes it ("0x1.8p+1", "-0x1p-1074"): the
/// double it names, exactly when its digits fit one (read by std::strtod). false for anything else,
/// or a value that overflows.
inline bool hex_float(const std::string& s, double& out) {
  const std::size_t sign = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (s.size() < sign + 3 || s[sign] != '0' || (s[sign + 1] != 'x' && s[sign + 1] != 'X'))
    return false;
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(value)) return false;
  out = value;
  return true;
}

/// A JSON number, or the strings "inf"/"Infinity", "-inf"/"-Infinity", "DBL_MAX", "-DBL_MAX" (the
/// latter two as the finite number) or a hex float (hex_float: every double written exactly); null
/// gives `fill`. false on anything else.
inline bool json_number(const nlohmann::json& v, double fill, double& out) {
  if (v.is_null()) {
    out = fill;
    return true;
  }
  if (v.is_number()) {
    out = v.get<double>();
    return true;
  }
  if (!v.is_string()) return false;
  const std::string s = v.get<std::string>();
  if (s == "inf" || s == "Infinity")
    out = std::numeric_limits<double>::infinity();
  else if (s == "-inf" || s == "-Infinity")
    out = -std::numeric_limits<double>::infinity();
  else if (s == "DBL_MAX")
    out = std::numeric_limits<double>::max();
  else if (s == "-DBL_MAX")
    out = -std::numeric_limits<double>::max();
  else
    return hex_float(s, out);
  return true;
}

}  // namespace claw_test
