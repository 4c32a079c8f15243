// tests/support/regression_data.hpp: what the runners of tests/data/regressions (the QP and the
// LCQP inputs) share: the folder, its *.json files, status names, and typed reads of a file's
// fields.
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
#include "support/json_core.hpp"

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

/// A number as a double (json_number's forms: a JSON number, "inf", "-inf", a hex float); fails
/// the test on anything else, null included.
inline double field_real(const nlohmann::json& v) {
  double out = 0.0;
  const bool read = !v.is_null() && json_number(v, 0.0, out);
  INFO("number " << v.dump());
  CHECK(read);
  return out;
}

/// A JSON integer; fails the test (and gives 0) on anything else.
inline int field_integer(const nlohmann::json& v) {
  INFO("integer " << v.dump());
  const bool is_integer = v.is_number_integer();
  CHECK(is_integer);
  return is_integer ? v.get<int>() : 0;
}

/// A JSON string; fails the test (and gives "") on anything else.
inline std::string field_text(const nlohmann::json& v) {
  INFO("string " << v.dump());
  const bool is_string = v.is_string();
  CHECK(is_string);
  return is_string ? v.get<std::string>() : std::string();
}

/// A status by its name (status_named); fails the test on an unknown name.
inline claw::Status field_status(const nlohmann::json& v) {
  claw::Status out = claw::Status::Ok;
  const std::string name = field_text(v);
  INFO("status name \"" << name << "\"");
  CHECK(status_named(name, out));
  return out;
}

/// Reads the regression file at `path` into `file`: it must parse, be an object and hold only the
/// space-separated fields of `allowed` (REQUIRE: the section stops otherwise).
inline void read_regression_file(const std::string& path, const char* allowed,
                                 nlohmann::json& file) {
  INFO("file " << path);
  std::string error;
  const bool read = read_json_file(path, file, error);
  INFO(error);
  REQUIRE(read);
  REQUIRE(file.is_object());
  check_keys(file, allowed, "file");
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
