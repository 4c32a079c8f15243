// tests/support/regression_data.hpp: what the runners of tests/data/regressions (the QP and the
// LCQP inputs) share: the folder and its *.json files, status names, and checks of a file's fields.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

#include "claw/core/status.hpp"

namespace claw_test {

/// $CLAW_REGRESSIONS_DIR if set and non-empty, else the source tree's tests/data/regressions
/// (CLAW_DEFAULT_REGRESSIONS_DIR, which the build defines for the sources that include this).
inline std::string regressions_dir() {
  const char* env = std::getenv("CLAW_REGRESSIONS_DIR");
  if (env != nullptr && env[0] != '\0') return env;
  return CLAW_DEFAULT_REGRESSIONS_DIR;
}

/// The *.json files of `dir`, sorted by name; empty when there are none or `dir` is unreadable.
inline std::vector<std::string> json_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    if (it->path().extension() == ".json") files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// The status named `name` (claw::to_string's spelling); false when no status has that name.
inline bool status_named(const std::string& name, claw::Status& out) {
  for (int i = 0; i < 256; ++i) {
    const auto status = static_cast<claw::Status>(i);
    if (name != "Unknown" && name == claw::to_string(status)) {
      out = status;
      return true;
    }
  }
  return false;
}

/// A status's name, for checks whose failure message should show it.
inline std::string status_name(claw::Status status) { return claw::to_string(status); }

/// IllConditioned, MaxIterations, NumericalOverflow: neither an optimum nor infeasibility proved.
inline bool undecided(claw::Status s) {
  return s == claw::Status::IllConditioned || s == claw::Status::MaxIterations ||
         s == claw::Status::NumericalOverflow;
}

/// Fails the test (naming `what`) unless every key of `object` is one of the space-separated
/// names of `allowed`: a misspelt field must not turn a check off.
inline void check_keys(const nlohmann::json& object, const std::string& allowed,
                       const std::string& what) {
  const std::string names = " " + allowed + " ";
  for (auto it = object.begin(); it != object.end(); ++it) {
    INFO(what << ": field \"" << it.key() << "\"");
    CHECK(names.find(" " + it.key() + " ") != std::string::npos);
  }
}

/// object[key]; fails the test (naming the key) and gives null when `object` has no such member.
inline const nlohmann::json& member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json missing;
  const bool present = object.is_object() && object.contains(key);
  INFO("field \"" << key << "\" of " << object.dump().substr(0, 200));
  CHECK(present);
  return present ? object[key] : missing;
}

}  // namespace claw_test
