// tests/support/lcqp_reference.cpp: see lcqp_reference.hpp.
#include "support/lcqp_reference.hpp"

#include <catch2/catch.hpp>
#include <string>

namespace claw_test {

LcqpProblemXd lcqp_problem(const nlohmann::json& lcqp, bool add_regularisation) {
  LcqpProblemXd problem;
  std::string error;
  const bool ok = read_lcqp(lcqp, add_regularisation, problem, error);
  INFO(error);
  REQUIRE(ok);
  return problem;
}

claw::FliqcSettings<double> fliqc_settings(const nlohmann::json& params) {
  claw::FliqcSettings<double> settings;
  std::string error;
  const bool ok = read_fliqc_params(params, settings, error);
  INFO(error);
  REQUIRE(ok);
  return settings;
}

claw::LcqpProblem<float> rounded_to_float(const LcqpProblemXd& p) {
  claw::LcqpProblem<float> f(p.num_variables(), p.num_constraints(), p.num_pairs());
  f.Q = p.Q.cast<float>();
  f.g = p.g.cast<float>();
  f.A = p.A.cast<float>();
  f.lbA = p.lbA.cast<float>();
  f.ubA = p.ubA.cast<float>();
  f.lb = p.lb.cast<float>();
  f.ub = p.ub.cast<float>();
  f.L = p.L.cast<float>();
  f.lbL = p.lbL.cast<float>();
  f.ubL = p.ubL.cast<float>();
  f.R = p.R.cast<float>();
  f.lbR = p.lbR.cast<float>();
  f.ubR = p.ubR.cast<float>();
  return f;
}

double lcqp_objective(const LcqpProblemXd& problem, const Eigen::VectorXd& x) {
  return 0.5 * x.dot(problem.Q * x) + problem.g.dot(x);
}

}  // namespace claw_test
