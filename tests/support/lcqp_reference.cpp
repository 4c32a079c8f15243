// tests/support/lcqp_reference.cpp: see lcqp_reference.hpp.
#include "support/lcqp_reference.hpp"

#include <catch2/catch.hpp>
#include <limits>

#include "support/reference.hpp"

namespace claw_test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Eigen::MatrixXd matrix_field(const nlohmann::json& value, Eigen::Index rows, Eigen::Index cols) {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(rows, cols);
  if (value.is_null()) return out;
  if (value.is_object()) {
    REQUIRE(value.at("format") == "coo");
    REQUIRE(value.at("shape")[0].get<Eigen::Index>() == rows);
    REQUIRE(value.at("shape")[1].get<Eigen::Index>() == cols);
    const auto& r = value.at("row");
    const auto& c = value.at("col");
    const auto& v = value.at("val");
    REQUIRE(r.size() == v.size());
    REQUIRE(c.size() == v.size());
    for (std::size_t k = 0; k < v.size(); ++k)
      out(r[k].get<Eigen::Index>(), c[k].get<Eigen::Index>()) += to_double(v[k]);
    return out;
  }
  if (rows == 0) return out;
  const Eigen::MatrixXd dense = to_matrix(value);
  REQUIRE(dense.rows() == rows);
  REQUIRE(dense.cols() == cols);
  return dense;
}

/// A bound vector: null field = all `fill`, null entry = `fill`.
Eigen::VectorXd bound_field(const nlohmann::json& value, Eigen::Index size, double fill) {
  Eigen::VectorXd out = Eigen::VectorXd::Constant(size, fill);
  if (value.is_null()) return out;
  REQUIRE(value.size() == static_cast<std::size_t>(size));
  for (Eigen::Index i = 0; i < size; ++i) {
    const auto& entry = value[static_cast<std::size_t>(i)];
    out(i) = entry.is_null() ? fill : to_double(entry);
  }
  return out;
}

Eigen::Index rows_of(const nlohmann::json& value) {
  if (value.is_null()) return 0;
  if (value.is_object()) return value.at("shape")[0].get<Eigen::Index>();
  return static_cast<Eigen::Index>(value.size());
}

}  // namespace

LcqpProblemXd lcqp_problem(const nlohmann::json& lcqp, bool add_regularisation) {
  const Eigen::Index n = static_cast<Eigen::Index>(lcqp.at("g").size());
  const Eigen::Index nc = rows_of(lcqp.at("A"));
  const Eigen::Index m = rows_of(lcqp.at("L"));
  LcqpProblemXd p(n, nc, m);
  p.Q = matrix_field(lcqp.at("Q"), n, n);
  if (add_regularisation && lcqp.contains("Q_reg_diag") && !lcqp.at("Q_reg_diag").is_null())
    p.Q.diagonal() += bound_field(lcqp.at("Q_reg_diag"), n, 0.0);
  p.g = bound_field(lcqp.at("g"), n, 0.0);
  p.A = matrix_field(lcqp.at("A"), nc, n);
  p.lbA = bound_field(lcqp.value("lbA", nlohmann::json()), nc, -kInf);
  p.ubA = bound_field(lcqp.value("ubA", nlohmann::json()), nc, kInf);
  p.lb = bound_field(lcqp.value("lb", nlohmann::json()), n, -kInf);
  p.ub = bound_field(lcqp.value("ub", nlohmann::json()), n, kInf);
  p.L = matrix_field(lcqp.at("L"), m, n);
  p.R = matrix_field(lcqp.at("R"), m, n);
  p.lbL = bound_field(lcqp.value("lbL", nlohmann::json()), m, 0.0);
  p.lbR = bound_field(lcqp.value("lbR", nlohmann::json()), m, 0.0);
  p.ubL = bound_field(lcqp.value("ubL", nlohmann::json()), m, kInf);
  p.ubR = bound_field(lcqp.value("ubR", nlohmann::json()), m, kInf);
  return p;
}

double lcqp_objective(const LcqpProblemXd& problem, const Eigen::VectorXd& x) {
  return 0.5 * x.dot(problem.Q * x) + problem.g.dot(x);
}

}  // namespace claw_test
