// tests/test_qp_conformance.cpp: QpSolver's statuses on data nobody here wrote: the FLIQC LCQPs of
// $CLAW_REFERENCE_DIR/lcqp/fliqc_instances.json with their complementarity dropped (rows [A; L;
// R]), every answer re-checked from the problem and the result alone
// (tests/support/qp_certificate.hpp).
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <limits>
#include <string>

#include "claw/solvers/qp.hpp"
#include "support/lcqp_reference.hpp"
#include "support/qp_certificate.hpp"
#include "support/reference.hpp"
#include "support/solver_instances.hpp"

namespace {

using claw::Status;

/// The relaxation's statuses over a reference file, each verified independently.
struct Tally {
  int ok = 0, infeasible = 0, undecided = 0;
};

/// Solves the relaxation of `p` (its L and R rows kept with their bounds, the pairs' products
/// dropped), with lambda's "DBL_MAX" upper bounds as read or made +inf, and checks what the
/// status claims: Ok answers pass qp_answer_excess, Infeasible ones carry a certificate that
/// qp_certificate_margin accepts.
Status solve_relaxation(const claw_test::LcqpProblemXd& p, bool dbl_max_as_inf, Tally& tally) {
  const Eigen::Index n = p.Q.rows(), nc = p.A.rows(), m = p.L.rows();
  Eigen::MatrixXd rows(nc + 2 * m, n);
  rows << p.A, p.L, p.R;
  Eigen::VectorXd lo(nc + 2 * m), hi(nc + 2 * m);
  lo << p.lbA, p.lbL, p.lbR;
  hi << p.ubA, p.ubL, p.ubR;
  Eigen::VectorXd lb = p.lb, ub = p.ub;
  const double big = std::numeric_limits<double>::max();
  if (dbl_max_as_inf) {
    for (Eigen::Index j = 0; j < n; ++j)
      if (ub(j) == big) ub(j) = std::numeric_limits<double>::infinity();
    for (Eigen::Index i = 0; i < hi.size(); ++i)
      if (hi(i) == big) hi(i) = std::numeric_limits<double>::infinity();
  }
  claw::QpSolverXd qp(n, nc + 2 * m);
  REQUIRE(qp.set_hessian(p.Q) == Status::Ok);
  REQUIRE(qp.set_constraints(rows) == Status::Ok);
  const auto& r = qp.solve(p.g, lb, ub, lo, hi);
  const auto& s = qp.settings();
  if (r.status == Status::Ok) {
    ++tally.ok;
    // The promise up to the check's own rounding in double.
    CHECK(claw_test::qp_answer_excess(p.Q, p.g, rows, lb, ub, lo, hi, r.x, r.bound_multipliers,
                                      r.constraint_multipliers, s.infeasibility_tolerance,
                                      s.stationarity_tolerance) <= 1.0 + 1e-3);
  } else if (r.status == Status::Infeasible) {
    ++tally.infeasible;
    CHECK(claw_test::qp_certificate_margin<double>(rows, lb, ub, lo, hi, r.constraint_multipliers,
                                                   s.infeasibility_tolerance) > 0);
  } else {
    ++tally.undecided;
    CHECK((r.status == Status::IllConditioned || r.status == Status::MaxIterations));
  }
  return r.status;
}

}  // namespace

TEST_CASE("QP conformance: FLIQC relaxations are Ok verified, Infeasible certified, or undecided",
          "[conformance][qp]") {
  const auto data = claw_test::load_reference("lcqp", "fliqc_instances.json");
  const auto& instances = data["instances"];
  REQUIRE(instances.size() > 0);
  Tally tally;
  int feasible_lcqps = 0;
  for (const auto& instance : instances) {
    INFO(claw_test::case_label("fliqc_instances.json", instance));
    const claw_test::LcqpProblemXd problem = claw_test::lcqp_problem(instance["lcqp"], false);
    const bool lcqp_feasible = instance["global"]["feasible"].get<bool>();
    feasible_lcqps += lcqp_feasible ? 1 : 0;
    for (const bool as_inf : {false, true}) {
      INFO((as_inf ? "lambda <= +inf" : "lambda <= DBL_MAX"));
      const Status status = solve_relaxation(problem, as_inf, tally);
      // A feasible LCQP has a feasible relaxation: its global optimum is a point of it.
      if (lcqp_feasible) CHECK(status == Status::Ok);
    }
  }
  INFO("relaxations: " << tally.ok << " Ok, " << tally.infeasible << " Infeasible, "
                       << tally.undecided << " undecided");
  CHECK(tally.ok >= 2 * feasible_lcqps);
  CHECK(tally.ok + tally.infeasible + tally.undecided == 2 * static_cast<int>(instances.size()));
  WARN("FLIQC relaxations: " << tally.ok << " Ok, " << tally.infeasible << " Infeasible, "
                             << tally.undecided << " undecided (of " << 2 * instances.size()
                             << ")");
}
