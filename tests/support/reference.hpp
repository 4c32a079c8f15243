// tests/support/reference.hpp: reads the reference JSON files of ../shared/reference/ (copied to
// tests/data/reference/) from $CLAW_REFERENCE_DIR, and turns their arrays into Eigen objects.
#pragma once

#include <Eigen/Core>
#include <nlohmann/json.hpp>
#include <string>

#include "support/json_core.hpp"  // reference_dir(), read_json_file(), json_number()

namespace claw_test {

/// Parses <reference_dir>/<family>/<file>; on a missing or unparsable file, fails the current
/// test with the path. The top level is an array of cases or an object (e.g. {schema, instances}).
nlohmann::json load_reference(const std::string& family, const std::string& file);

/// A JSON number or one of json_number()'s strings; null gives `null_value`; fails the test
/// otherwise.
double to_double(const nlohmann::json& value, double null_value = 0.0);

/// A list of rows as a dense matrix / a list as a vector (entries through to_double).
Eigen::MatrixXd to_matrix(const nlohmann::json& rows);
Eigen::VectorXd to_vector(const nlohmann::json& list);

/// Case label for messages: "<file> id <id>".
std::string case_label(const std::string& file, const nlohmann::json& test_case);

/// Lists the entries where `actual` and `expected` differ under == (bit-exact up to the sign of
/// zero), e.g. "state(1,0): 0.52999999999999992 != 0.53"; empty when all match.
std::string exact_differences(const std::string& name, const Eigen::MatrixXd& actual,
                              const Eigen::MatrixXd& expected);

}  // namespace claw_test
