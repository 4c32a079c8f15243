// tests/support/reference.cpp: the reference-file reader used by the conformance tests.
// It fails the running Catch2 test, with the file path, when a file cannot be read.
#include "support/reference.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace claw_test {

nlohmann::json load_reference(const std::string& family, const std::string& file) {
  const std::string path = reference_dir() + "/" + family + "/" + file;
  INFO("reference file " << path);
  nlohmann::json parsed;
  std::string error;
  const bool read = read_json_file(path, parsed, error);
  INFO(error);
  REQUIRE(read);
  REQUIRE((parsed.is_array() || parsed.is_object()));
  return parsed;
}

double to_double(const nlohmann::json& value, double null_value) {
  double out = 0.0;
  if (json_number(value, null_value, out)) return out;
  FAIL("unexpected JSON value in a numeric field: " << value.dump());
  return 0.0;
}

Eigen::MatrixXd to_matrix(const nlohmann::json& rows) {
  REQUIRE(rows.is_array());
  const auto n_rows = static_cast<Eigen::Index>(rows.size());
  const auto n_cols = n_rows == 0 ? Eigen::Index(0) : static_cast<Eigen::Index>(rows[0].size());
  Eigen::MatrixXd m(n_rows, n_cols);
  for (Eigen::Index i = 0; i < n_rows; ++i) {
    const auto& row = rows[static_cast<std::size_t>(i)];
    REQUIRE(static_cast<Eigen::Index>(row.size()) == n_cols);
    for (Eigen::Index j = 0; j < n_cols; ++j) m(i, j) = to_double(row[static_cast<std::size_t>(j)]);
  }
  return m;
}

Eigen::VectorXd to_vector(const nlohmann::json& list) {
  REQUIRE(list.is_array());
  Eigen::VectorXd v(static_cast<Eigen::Index>(list.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = to_double(list[static_cast<std::size_t>(i)]);
  return v;
}

std::string case_label(const std::string& file, const nlohmann::json& test_case) {
  std::string label = file + " id ";
  label += test_case.contains("id") ? test_case["id"].dump() : std::string("?");
  if (test_case.contains("note") && test_case["note"].is_string())
    label += " (" + test_case["note"].get<std::string>() + ")";
  return label;
}

std::string exact_differences(const std::string& name, const Eigen::MatrixXd& actual,
                              const Eigen::MatrixXd& expected) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
    std::ostringstream out;
    out << name << ": shape " << actual.rows() << "x" << actual.cols() << " != " << expected.rows()
        << "x" << expected.cols();
    return out.str();
  }
  std::string differences;
  for (Eigen::Index i = 0; i < actual.rows(); ++i)
    for (Eigen::Index j = 0; j < actual.cols(); ++j) {
      const double a = actual(i, j);
      const double e = expected(i, j);
      if (a == e) continue;
      char line[160];
      std::snprintf(line, sizeof line, "%s(%ld,%ld): %.17g != %.17g expected\n", name.c_str(),
                    static_cast<long>(i), static_cast<long>(j), a, e);
      differences += line;
    }
  return differences;
}

}  // namespace claw_test
