// tests/support/lcqp_json.hpp: reads the reference LCQP files' `lcqp` blocks (LCQPow's dense form,
// dense or COO matrices, null = infinite or absent) and FLIQC `params` into claw types. Header-only
// and free of the test framework: the tests and the benchmarks both use it.
#pragma once

#include <Eigen/Core>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "claw/filters/fliqc.hpp"
#include "claw/solvers/lcqp.hpp"
#include "support/infinity.hpp"
#include "support/json_core.hpp"

namespace claw_test {

using LcqpProblemXd = claw::LcqpProblem<double>;

namespace lcqp_json_detail {

inline Eigen::Index rows_of(const nlohmann::json& v) {
  if (v.is_null()) return 0;
  if (v.is_object()) return v.at("shape")[0].get<Eigen::Index>();
  return static_cast<Eigen::Index>(v.size());
}

inline bool matrix(const nlohmann::json& v, Eigen::Index rows, Eigen::Index cols,
                   Eigen::MatrixXd& out, std::string& error, const char* name) {
  out.setZero(rows, cols);
  if (v.is_null() || rows == 0) return true;
  if (v.is_object()) {
    if (v.value("format", "") != "coo" || v.at("shape")[0].get<Eigen::Index>() != rows ||
        v.at("shape")[1].get<Eigen::Index>() != cols) {
      error = std::string(name) + ": bad COO header";
      return false;
    }
    const auto& r = v.at("row");
    const auto& c = v.at("col");
    const auto& x = v.at("val");
    if (r.size() != x.size() || c.size() != x.size()) {
      error = std::string(name) + ": COO arrays differ in length";
      return false;
    }
    for (std::size_t k = 0; k < x.size(); ++k) {
      double value = 0.0;
      const Eigen::Index i = r[k].get<Eigen::Index>(), j = c[k].get<Eigen::Index>();
      if (!json_number(x[k], 0.0, value) || i < 0 || i >= rows || j < 0 || j >= cols) {
        error = std::string(name) + ": bad COO entry";
        return false;
      }
      out(i, j) += value;
    }
    return true;
  }
  if (rows_of(v) != rows) {
    error = std::string(name) + ": wrong number of rows";
    return false;
  }
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& row = v[static_cast<std::size_t>(i)];
    if (static_cast<Eigen::Index>(row.size()) != cols) {
      error = std::string(name) + ": wrong number of columns";
      return false;
    }
    for (Eigen::Index j = 0; j < cols; ++j)
      if (!json_number(row[static_cast<std::size_t>(j)], 0.0, out(i, j))) {
        error = std::string(name) + ": bad entry";
        return false;
      }
  }
  return true;
}

inline bool vector(const nlohmann::json& v, Eigen::Index size, double fill, Eigen::VectorXd& out,
                   std::string& error, const char* name) {
  out.setConstant(size, fill);
  if (v.is_null()) return true;
  if (static_cast<Eigen::Index>(v.size()) != size) {
    error = std::string(name) + ": wrong length";
    return false;
  }
  for (Eigen::Index i = 0; i < size; ++i)
    if (!json_number(v[static_cast<std::size_t>(i)], fill, out(i))) {
      error = std::string(name) + ": bad entry";
      return false;
    }
  return true;
}

}  // namespace lcqp_json_detail

/// The problem of an instance's `lcqp` block. With `add_regularisation`, the block's Q_reg_diag
/// (when present) is added to Q, as the benchmark suite that recorded the optima did. Conventions
/// (the files' schema): in vectors null is -inf for lb/lbA and +inf for ub/ubA/ubL/ubR; a whole
/// field null means absent; lbL/lbR absent = 0; "DBL_MAX" is taken as the number. false + error on
/// a malformed block.
inline bool read_lcqp(const nlohmann::json& lcqp, bool add_regularisation, LcqpProblemXd& p,
                      std::string& error) {
  namespace d = lcqp_json_detail;
  const nlohmann::json none;
  if (!lcqp.contains("g") || !lcqp.contains("Q") || !lcqp.contains("L") || !lcqp.contains("R")) {
    error = "lcqp block without g, Q, L or R";
    return false;
  }
  const Eigen::Index n = static_cast<Eigen::Index>(lcqp.at("g").size());
  const Eigen::Index nc = d::rows_of(lcqp.value("A", none));
  const Eigen::Index m = d::rows_of(lcqp.at("L"));
  p.resize(n, nc, m);
  Eigen::MatrixXd mat;
  Eigen::VectorXd vec;
  if (!d::matrix(lcqp.at("Q"), n, n, mat, error, "Q")) return false;
  p.Q = mat;
  if (add_regularisation && lcqp.contains("Q_reg_diag") && !lcqp.at("Q_reg_diag").is_null()) {
    if (!d::vector(lcqp.at("Q_reg_diag"), n, 0.0, vec, error, "Q_reg_diag")) return false;
    p.Q.diagonal() += vec;
  }
  if (!d::vector(lcqp.at("g"), n, 0.0, vec, error, "g")) return false;
  p.g = vec;
  if (!d::matrix(lcqp.value("A", none), nc, n, mat, error, "A")) return false;
  p.A = mat;
  if (!d::vector(lcqp.value("lbA", none), nc, -kInf, vec, error, "lbA")) return false;
  p.lbA = vec;
  if (!d::vector(lcqp.value("ubA", none), nc, kInf, vec, error, "ubA")) return false;
  p.ubA = vec;
  if (!d::vector(lcqp.value("lb", none), n, -kInf, vec, error, "lb")) return false;
  p.lb = vec;
  if (!d::vector(lcqp.value("ub", none), n, kInf, vec, error, "ub")) return false;
  p.ub = vec;
  if (!d::matrix(lcqp.at("L"), m, n, mat, error, "L")) return false;
  p.L = mat;
  if (!d::matrix(lcqp.at("R"), m, n, mat, error, "R")) return false;
  p.R = mat;
  if (!d::vector(lcqp.value("lbL", none), m, 0.0, vec, error, "lbL")) return false;
  p.lbL = vec;
  if (!d::vector(lcqp.value("lbR", none), m, 0.0, vec, error, "lbR")) return false;
  p.lbR = vec;
  if (!d::vector(lcqp.value("ubL", none), m, kInf, vec, error, "ubL")) return false;
  p.ubL = vec;
  if (!d::vector(lcqp.value("ubR", none), m, kInf, vec, error, "ubR")) return false;
  p.ubR = vec;
  return true;
}

/// FLIQC settings from an instance's `params`, with every row active (threshold +inf).
inline bool read_fliqc_params(const nlohmann::json& params, claw::FliqcSettings<double>& s,
                              std::string& error) {
  namespace d = lcqp_json_detail;
  s = claw::FliqcSettings<double>{};
  const std::string cost = params.value("quad_cost_type", "IDENTITY");
  if (cost == "IDENTITY")
    s.quad_cost_type = claw::FliqcCostType::Identity;
  else if (cost == "MASS_MATRIX")
    s.quad_cost_type = claw::FliqcCostType::MassMatrix;
  else if (cost == "JOINT_VELOCITY_ERROR")
    s.quad_cost_type = claw::FliqcCostType::VelocityError;
  else if (cost == "MASS_MATRIX_VELOCITY_ERROR")
    s.quad_cost_type = claw::FliqcCostType::MassMatrixVelocityError;
  else {
    error = "unknown quad_cost_type " + cost;
    return false;
  }
  const nlohmann::json none;
  bool ok = json_number(params.value("dt", none), s.dt, s.dt) &&
            json_number(params.value("eps", none), s.eps, s.eps) &&
            json_number(params.value("q_dot_max", none), s.q_dot_max, s.q_dot_max) &&
            json_number(params.value("lambda_cost_penalty", none), s.lambda_cost_penalty,
                        s.lambda_cost_penalty) &&
            json_number(params.value("lambda_max", none), s.lambda_max, s.lambda_max) &&
            json_number(params.value("esc_vel_max", none), s.esc_vel_max, s.esc_vel_max);
  if (!ok) {
    error = "bad numeric parameter";
    return false;
  }
  s.enable_nullspace_projector_in_A = params.value("enable_nullspace_projector_in_A", true);
  s.enable_lambda_constraint_in_x = params.value("enable_lambda_constraint_in_x", true);
  s.enable_lambda_constraint_in_L = params.value("enable_lambda_constraint_in_L", false);
  s.enable_esc_vel_constraint = params.value("enable_esc_vel_constraint", false);
  s.active_threshold = kInf;
  return true;
}

}  // namespace claw_test
