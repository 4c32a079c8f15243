// tests/test_qp_maros_meszaros.cpp: QpSolver on the strictly convex members of the Maros-Meszaros
// convex QP set ($CLAW_REFERENCE_DIR/maros_meszaros/qp.json, schema in its README): every one Ok,
// verified, within 1e-6 relative of the published optimum; and the positive semidefinite members
// through LcqpSolver with no pairs (its regularised QP, refined to Q's own optimum): never
// Infeasible, an Ok answer at the optimum, an indefinite Q refused. Problems with n > 100 carry
// [large]. The iteration cap is set to 4 (n + m) here.
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "claw/solvers/lcqp.hpp"
#include "claw/solvers/qp.hpp"
#include "support/qp_certificate.hpp"
#include "support/reference.hpp"
#include "support/solver_instances.hpp"

namespace {

using claw::Status;

/// A dense matrix from sparse triplets {"i": [...], "j": [...], "v": [...]} (duplicates summed).
Eigen::MatrixXd from_triplets(const nlohmann::json& t, Eigen::Index rows, Eigen::Index cols) {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(rows, cols);
  const auto& is = t["i"];
  const auto& js = t["j"];
  const auto& vs = t["v"];
  REQUIRE(is.size() == js.size());
  REQUIRE(is.size() == vs.size());
  for (std::size_t k = 0; k < is.size(); ++k) {
    const auto i = is[k].get<Eigen::Index>(), j = js[k].get<Eigen::Index>();
    REQUIRE((i >= 0 && i < rows && j >= 0 && j < cols));
    out(i, j) += claw_test::to_double(vs[k]);
  }
  return out;
}

/// A bound vector: null entries (and "inf" strings) are the side's infinity.
Eigen::VectorXd bounds(const nlohmann::json& list, double infinite) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(list.size()));
  for (std::size_t k = 0; k < list.size(); ++k)
    out(static_cast<Eigen::Index>(k)) = claw_test::to_double(list[k], infinite);
  return out;
}

void solve_member(const nlohmann::json& problem) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto n = problem["n"].get<Eigen::Index>(), m = problem["m"].get<Eigen::Index>();
  const Eigen::MatrixXd q = from_triplets(problem["P"], n, n);
  const Eigen::MatrixXd a = from_triplets(problem["C"], m, n);
  const Eigen::VectorXd g = claw_test::to_vector(problem["q"]);
  const Eigen::VectorXd lb = bounds(problem["lb"], -inf), ub = bounds(problem["ub"], inf);
  const Eigen::VectorXd lba = bounds(problem["lbA"], -inf), uba = bounds(problem["ubA"], inf);
  const double r = claw_test::to_double(problem["r"]);
  const double opt = claw_test::to_double(problem["published"]["OPT"]);
  claw::QpSolverXd qp(n, m);
  // The active-set iteration changes one constraint per step: the cap scales with the problem.
  auto settings = qp.settings();
  settings.max_iterations = static_cast<int>(std::max<Eigen::Index>(1000, 4 * (n + m)));
  REQUIRE(qp.set_settings(settings) == Status::Ok);
  REQUIRE(qp.set_hessian(q) == Status::Ok);
  REQUIRE(qp.set_constraints(a) == Status::Ok);
  const auto& result = qp.solve(g, lb, ub, lba, uba);
  INFO("status " << claw::to_string(result.status) << ", iterations " << result.iterations);
  REQUIRE(result.status == Status::Ok);
  CHECK(claw_test::qp_answer_excess(q, g, a, lb, ub, lba, uba, result.x, result.bound_multipliers,
                                    result.constraint_multipliers, settings.infeasibility_tolerance,
                                    settings.stationarity_tolerance) <= 1.0 + 1e-3);
  const double f = result.objective + r;
  INFO("objective " << f << ", published " << opt);
  CHECK(std::fabs(f - opt) <= 1e-6 * std::max(1.0, std::fabs(opt)));
}

}  // namespace

TEST_CASE("Maros-Meszaros: strictly convex members (n <= 100) at their published optimum",
          "[conformance][qp]") {
  const auto data = claw_test::load_reference("maros_meszaros", "qp.json");
  int solved = 0;
  for (const auto& problem : data["problems"]) {
    if (!problem["strictly_convex"].get<bool>() || problem["n"].get<int>() > 100) continue;
    INFO(problem["name"].get<std::string>());
    solve_member(problem);
    ++solved;
  }
  CHECK(solved > 0);
}

TEST_CASE("Maros-Meszaros: strictly convex members (n > 100) at their published optimum",
          "[conformance][qp][large]") {
  const auto data = claw_test::load_reference("maros_meszaros", "qp.json");
  int solved = 0;
  for (const auto& problem : data["problems"]) {
    if (!problem["strictly_convex"].get<bool>() || problem["n"].get<int>() <= 100) continue;
    INFO(problem["name"].get<std::string>());
    solve_member(problem);
    ++solved;
  }
  CHECK(solved > 0);
}

TEST_CASE("Maros-Meszaros: semidefinite members through LcqpSolver (no pairs), never Infeasible",
          "[conformance][qp][large][semidefinite]") {
  const double inf = std::numeric_limits<double>::infinity();
  const auto data = claw_test::load_reference("maros_meszaros", "qp.json");
  int members = 0, optimal = 0, refused = 0;
  std::string others;
  for (const auto& problem : data["problems"]) {
    if (problem["strictly_convex"].get<bool>()) continue;
    const std::string name = problem["name"].get<std::string>();
    INFO(name);
    const auto n = problem["n"].get<Eigen::Index>(), m = problem["m"].get<Eigen::Index>();
    claw::LcqpProblem<double> p(n, m, 0);
    p.Q = from_triplets(problem["P"], n, n);
    p.A = from_triplets(problem["C"], m, n);
    p.g = claw_test::to_vector(problem["q"]);
    p.lb = bounds(problem["lb"], -inf);
    p.ub = bounds(problem["ub"], inf);
    p.lbA = bounds(problem["lbA"], -inf);
    p.ubA = bounds(problem["ubA"], inf);
    const double opt = claw_test::to_double(problem["published"]["OPT"]);
    claw::LcqpSolver<double> solver;
    auto settings = solver.settings();
    settings.qp.max_iterations = static_cast<int>(std::max<Eigen::Index>(1000, 4 * (n + m)));
    REQUIRE(solver.set_settings(settings) == Status::Ok);
    const auto& r = solver.solve(p);
    ++members;
    const double f = r.objective + claw_test::to_double(problem["r"]);
    const bool at_opt =
        r.status == Status::Ok && std::fabs(f - opt) <= 1e-6 * std::max(1.0, std::fabs(opt));
    optimal += at_opt ? 1 : 0;
    if (!at_opt) others += " " + name + ":" + claw::to_string(r.status);
    // Every member is feasible: never Infeasible. A Q with an eigenvalue below its rounding
    // (indefinite as stored) is refused; every other member ends at the optimum or undecided.
    const Eigen::VectorXd eigenvalues =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(p.Q, Eigen::EigenvaluesOnly).eigenvalues();
    const double q_scale = std::max(1.0, p.Q.cwiseAbs().maxCoeff());
    const bool indefinite = eigenvalues.minCoeff() < -1e-9 * q_scale;
    if (indefinite) {
      CHECK(r.status == Status::InvalidProblem);
      ++refused;
    } else {
      CHECK((r.status == Status::Ok || r.status == Status::MaxIterations ||
             r.status == Status::IllConditioned));
    }
    if (r.status == Status::Ok) CHECK(at_opt);
  }
  // At least 13 of every 14 members with a semidefinite Q at the optimum (52 of 56 on the
  // published set; measured there: 55, VALUES refused as indefinite).
  const int semidefinite = members - refused;
  CHECK(optimal >= semidefinite - semidefinite / 14);
  WARN("semidefinite members: " << optimal << " of " << members
                                << " at the optimum; others:" << others);
}
