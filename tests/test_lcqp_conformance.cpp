// tests/test_lcqp_conformance.cpp: the LCQP solver against the reference sets of
// $CLAW_REFERENCE_DIR/lcqp/ (FLIQC-form instances with enumerated global optima) and
// $CLAW_REFERENCE_DIR/lcqp_general/ (MacMPEC, IVOCP, moving masses, LCQPow examples, random
// nonconvex; certified optima and LCQPow's results) and $CLAW_REFERENCE_DIR/macmpec/ (further
// MacMPEC LCQPs with enumerated optima), in double and in float ([float]). Instances with n > 100
// carry [large].
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>

#include "claw/solvers/lcqp.hpp"
#include "support/lcqp_reference.hpp"
#include "support/reference.hpp"
#include "support/solver_instances.hpp"

namespace {

using claw::Status;
using claw_test::lcqp_objective;
using claw_test::lcqp_problem;
using claw_test::LcqpProblemXd;

Eigen::VectorXd vector_of(const nlohmann::json& list) { return claw_test::to_vector(list); }

bool close_objective(double f, double f_star) {
  return std::fabs(f - f_star) <= 1e-6 * std::max(1.0, std::fabs(f_star));
}

}  // namespace

TEST_CASE("LCQP conformance: every FLIQC instance gives the global optimum or Infeasible",
          "[conformance][lcqp]") {
  const auto data = claw_test::load_reference("lcqp", "fliqc_instances.json");
  const auto& instances = data["instances"];
  REQUIRE(instances.size() > 0);
  claw::LcqpSolver<double> solver;
  std::size_t feasible = 0, infeasible = 0;
  for (const auto& instance : instances) {
    const std::string label = claw_test::case_label("fliqc_instances.json", instance);
    INFO(label);
    const LcqpProblemXd problem = lcqp_problem(instance["lcqp"], false);
    const auto& result = solver.solve(problem);
    const auto& global = instance["global"];
    if (global["feasible"].get<bool>()) {
      ++feasible;
      REQUIRE(result.status == Status::Ok);
      const Eigen::VectorXd expected = vector_of(global["x"]);
      REQUIRE(result.x.size() == expected.size());
      const double error = (result.x - expected).lpNorm<Eigen::Infinity>();
      INFO("||x - x*||_inf = " << error << ", path " << static_cast<int>(result.path));
      CHECK(error <= 1e-6);
      CHECK(result.residuals.complementarity <= 1e-9);
      CHECK(result.residuals.primal <= 1e-9);
      CHECK(result.certified_global);
    } else {
      ++infeasible;
      CHECK(result.status == Status::Infeasible);
      CHECK(result.certified_global);
    }
  }
  CHECK(feasible > 0);
  CHECK(infeasible > 0);
}

namespace {

struct GeneralTally {
  int certified = 0;
  int certified_hit = 0;
  std::ostringstream misses;
};

/// Runs every instance of lcqp_general/instances.json with n <= 100 (large = false) or n > 100.
void run_general(bool large, GeneralTally& tally) {
  const auto data = claw_test::load_reference("lcqp_general", "instances.json");
  const auto& instances = data["instances"];
  REQUIRE(instances.size() > 0);
  claw::LcqpSolver<double> solver;
  int ran = 0;
  for (const auto& instance : instances) {
    const LcqpProblemXd problem = lcqp_problem(instance["lcqp"], true);
    if ((problem.num_variables() > 100) != large) continue;
    ++ran;
    const std::string id = instance["id"].get<std::string>();
    INFO(claw_test::case_label("instances.json", instance));
    const LcqpProblemXd plain = lcqp_problem(instance["lcqp"], false);
    const auto& result = solver.solve(problem);
    const auto& global = instance["global"];
    const std::string status = global["status"].get<std::string>();
    const auto& lcqpow = instance["lcqpow"]["lcqpow_default"];
    INFO("status " << claw::to_string(result.status) << ", path " << static_cast<int>(result.path)
                   << ", nodes " << result.nodes << ", qp " << result.qp_solves);
    if (status == "certified") {
      ++tally.certified;
      const double f_star = global["objective"].get<double>();
      bool hit = false;
      double f = 0.0;
      if (result.status == Status::Ok) {
        f = lcqp_objective(plain, result.x);
        hit = close_objective(f, f_star) && result.residuals.primal <= 1e-6 &&
              result.residuals.complementarity <= 1e-6;
      }
      if (hit) {
        ++tally.certified_hit;
      } else {
        tally.misses << id << " (f " << f << " vs " << f_star << ", "
                     << claw::to_string(result.status) << ") ";
      }
      const bool lcqpow_reached =
          lcqpow["vs_global"]["category"].get<std::string>() == "global_exact";
      if (lcqpow_reached) {
        INFO("LCQPow reached the global optimum here; claw: f = " << f << ", f* = " << f_star);
        CHECK(hit);
      }
    } else if (status == "certified_infeasible") {
      CHECK(result.status == Status::Infeasible);
    } else {
      // Unknown optimum: no worse than LCQPow's point.
      REQUIRE(result.status == Status::Ok);
      CHECK(result.residuals.primal <= 1e-6);
      CHECK(result.residuals.complementarity <= 1e-6);
      if (lcqpow["success"].get<bool>()) {
        const double f = lcqp_objective(plain, result.x);
        const double f_lcqpow = lcqpow["objective"].get<double>();
        INFO("claw f = " << f << ", LCQPow f = " << f_lcqpow);
        CHECK(f <= f_lcqpow + 1e-6 * std::max(1.0, std::fabs(f_lcqpow)));
      }
    }
  }
  CHECK(ran > 0);
}

}  // namespace

namespace {

/// run_general, then the 97 % rule on that group (both groups at 97 % make the whole set so).
void check_general(bool large) {
  GeneralTally tally;
  run_general(large, tally);
  INFO("misses: " << tally.misses.str());
  INFO(tally.certified_hit << " of " << tally.certified << " certified optima reached");
  CHECK(tally.certified_hit >= 0.97 * tally.certified);
}

}  // namespace

TEST_CASE("LCQP conformance: general LCQPs with n <= 100 reach the certified optima",
          "[conformance][lcqp]") {
  check_general(false);
}

TEST_CASE("LCQP conformance: general LCQPs with n > 100 reach the certified optima",
          "[conformance][lcqp][large]") {
  check_general(true);
}

namespace {

/// Float tolerances. Rounding the data to float perturbs it by eps_f = 1.2e-7 relative; an answer
/// whose condition number is at most 1 / sqrt(eps_f) moves by at most sqrt(eps_f) = 3.5e-4
/// relative (x and the objective), far below the gap between two branches of these problems.
const double kFloatRelative = std::sqrt(static_cast<double>(std::numeric_limits<float>::epsilon()));

/// The problem in the solver's scalar type (rounded once for float).
const LcqpProblemXd& in_scalar(const LcqpProblemXd& problem, double) { return problem; }
claw::LcqpProblem<float> in_scalar(const LcqpProblemXd& problem, float) {
  return claw_test::rounded_to_float(problem);
}

/// The largest violation of the problem's bounds and rows at x, and of complementarity (natural
/// residual max_i |min(L_i x - lbL_i, R_i x - lbR_i)|), each row's divided by max(1, ||row||),
/// recomputed here from the data alone, relative to 1 + ||x||_inf: LcqpSettings'
/// feasibility_tolerance bounds it for every Ok answer.
double relative_violation(const LcqpProblemXd& p, const Eigen::VectorXd& x) {
  double v = 0.0;
  auto rows = [&v, &x](const Eigen::MatrixXd& a, const Eigen::VectorXd& lo,
                       const Eigen::VectorXd& hi) {
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      const double ax = a.row(i).dot(x), norm = std::max(1.0, a.row(i).norm());
      v = std::max({v, (lo(i) - ax) / norm, (ax - hi(i)) / norm});
    }
  };
  rows(Eigen::MatrixXd::Identity(x.size(), x.size()), p.lb, p.ub);
  rows(p.A, p.lbA, p.ubA);
  rows(p.L, p.lbL, p.ubL);
  rows(p.R, p.lbR, p.ubR);
  for (Eigen::Index i = 0; i < p.num_pairs(); ++i) {
    const double l = (p.L.row(i).dot(x) - p.lbL(i)) / std::max(1.0, p.L.row(i).norm());
    const double r = (p.R.row(i).dot(x) - p.lbR(i)) / std::max(1.0, p.R.row(i).norm());
    v = std::max(v, std::fabs(std::min(l, r)));
  }
  return v / (1.0 + x.lpNorm<Eigen::Infinity>());
}

/// Every MacMPEC LCQP of the file through LcqpSolver<Scalar>. Every one is feasible (MacMPEC lists
/// a finite f*): Ok, feasible within `feasibility`, the reported objective the data's. The
/// reference value is the enumerated global optimum (every branch solved by an independent convex
/// solver) where the enumeration completed, which claw must reach within `relative`; elsewhere
/// MacMPEC's best known value, which claw must reach or beat. MacMPEC's table value is not used
/// where an enumeration exists (the file notes an entry off by the model's constant).
template <typename Scalar>
void run_macmpec(double relative, double feasibility) {
  const auto data = claw_test::load_reference("macmpec", "lcqp.json");
  const auto& instances = data["instances"];
  REQUIRE(instances.size() > 0);
  claw::LcqpSolver<Scalar> solver;
  int enumerated = 0;
  for (const auto& instance : instances) {
    INFO("lcqp.json " << instance["name"].get<std::string>());
    const LcqpProblemXd problem = lcqp_problem(instance["lcqp"], false);
    const auto& result = solver.solve(in_scalar(problem, Scalar()));
    INFO("status " << claw::to_string(result.status) << ", path " << static_cast<int>(result.path)
                   << ", nodes " << result.nodes << ", qp " << result.qp_solves);
    REQUIRE(result.status == Status::Ok);
    const Eigen::VectorXd x = result.x.template cast<double>();
    CHECK(relative_violation(problem, x) <= feasibility);
    const double f = lcqp_objective(problem, x);
    CHECK(std::fabs(f - static_cast<double>(result.objective)) <=
          relative * std::max(1.0, std::fabs(f)));
    const auto& enumeration = instance.value("enumerated_global_cvxopt", nlohmann::json());
    const bool complete = enumeration.is_object() && enumeration.value("complete", false);
    const double f_star = complete ? enumeration["objective"].get<double>()
                                   : instance["fstar_as_lcqp_objective"].get<double>();
    INFO("f = " << f << (complete ? ", enumerated f* = " : ", MacMPEC's f* = ") << f_star);
    const double allowance = relative * std::max(1.0, std::fabs(f_star));
    CHECK(f <= f_star + allowance);
    if (complete) {
      ++enumerated;
      CHECK(f >= f_star - allowance);
    }
  }
  CHECK(enumerated > 0);
}

}  // namespace

TEST_CASE("LCQP conformance: MacMPEC LCQPs reach the enumerated optimum or MacMPEC's value",
          "[conformance][lcqp]") {
  run_macmpec<double>(1e-6, claw::LcqpSettings<double>().feasibility_tolerance);
}

TEST_CASE(
    "LCQP conformance in float: MacMPEC LCQPs reach the enumerated optimum or MacMPEC's value",
    "[conformance][lcqp][float]") {
  run_macmpec<float>(kFloatRelative, claw::LcqpSettings<float>().feasibility_tolerance);
}

TEST_CASE("LCQP conformance in float: every FLIQC instance gives the global optimum or Infeasible",
          "[conformance][lcqp][float]") {
  const auto data = claw_test::load_reference("lcqp", "fliqc_instances.json");
  const auto& instances = data["instances"];
  REQUIRE(instances.size() > 0);
  claw::LcqpSolver<float> solver;
  const double feasibility = claw::LcqpSettings<float>().feasibility_tolerance;
  for (const auto& instance : instances) {
    INFO(claw_test::case_label("fliqc_instances.json", instance));
    const LcqpProblemXd problem = lcqp_problem(instance["lcqp"], false);
    const auto& result = solver.solve(claw_test::rounded_to_float(problem));
    const auto& global = instance["global"];
    CHECK(result.certified_global);
    if (!global["feasible"].get<bool>()) {
      CHECK(result.status == Status::Infeasible);
      continue;
    }
    REQUIRE(result.status == Status::Ok);
    const Eigen::VectorXd expected = vector_of(global["x"]);
    const Eigen::VectorXd x = result.x.cast<double>();
    CHECK((x - expected).lpNorm<Eigen::Infinity>() <=
          kFloatRelative * std::max(1.0, expected.lpNorm<Eigen::Infinity>()));
    CHECK(relative_violation(problem, x) <= feasibility);
  }
}

// The general set in float (n <= 100): what float must never do. A certified answer is the
// certified optimum; Infeasible only where the record certifies infeasibility; Ok is feasible;
// an uncertified Ok may be a worse local point (counted, not failed).
TEST_CASE("LCQP conformance in float: general LCQPs, no wrong certificate and no infeasible Ok",
          "[conformance][lcqp][float]") {
  const auto data = claw_test::load_reference("lcqp_general", "instances.json");
  claw::LcqpSolver<float> solver;
  const double feasibility = claw::LcqpSettings<float>().feasibility_tolerance;
  int ran = 0, certified = 0;
  for (const auto& instance : data["instances"]) {
    const LcqpProblemXd problem = lcqp_problem(instance["lcqp"], true);
    if (problem.num_variables() > 100) continue;
    ++ran;
    INFO(claw_test::case_label("instances.json", instance));
    const LcqpProblemXd plain = lcqp_problem(instance["lcqp"], false);
    const auto& result = solver.solve(claw_test::rounded_to_float(problem));
    INFO("status " << claw::to_string(result.status) << ", path " << static_cast<int>(result.path));
    const std::string record = instance["global"]["status"].get<std::string>();
    if (result.status == Status::Infeasible) CHECK(record == "certified_infeasible");
    if (record == "certified_infeasible") CHECK(result.status != Status::Ok);
    if (result.status != Status::Ok) continue;
    const Eigen::VectorXd x = result.x.cast<double>();
    CHECK(relative_violation(problem, x) <= feasibility);
    if (result.certified_global && record == "certified") {
      ++certified;
      const double f_star = instance["global"]["objective"].get<double>();
      const double f = lcqp_objective(plain, x);
      INFO("f = " << f << ", certified f* = " << f_star);
      CHECK(std::fabs(f - f_star) <= kFloatRelative * std::max(1.0, std::fabs(f_star)));
    }
  }
  CHECK(ran > 0);
  CHECK(certified > 0);
}
