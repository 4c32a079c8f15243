// tests/fuzz/fuzz_lcqp.cpp: libFuzzer target for LcqpSolver (claw/solvers/lcqp.hpp), bounded sizes
// n <= 8, nc <= 4, m <= 4, float and double. Any data: a refusal has its documented status and x =
// 0; Ok means a finite point that passes the documented acceptance test (bounds, rows, natural
// residual within feasibility_tolerance); the status is one of the documented ones. Moderate double
// problems: branch and bound's certified answer is no worse than any of the 2^m branch QPs (each
// solved by QpSolver) beyond what the branch's point gained from its violations within the
// tolerance (see claw_test::LcqpBranches), and Infeasible only when no branch QP is clearly
// feasible at its minimiser within the certificates' reach (||x||_inf <= t / eps).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "claw/solvers/lcqp.hpp"
#include "fuzz/fuzz_input.hpp"
#include "support/lcqp_branches.hpp"

namespace {

using claw::Status;
using claw_fuzz::FuzzInput;

constexpr int kMaxN = 8;
constexpr int kMaxC = 4;
constexpr int kMaxP = 4;

template <typename Scalar>
using Solver = claw::LcqpSolver<Scalar, kMaxN, kMaxC, kMaxP>;
template <typename Scalar>
using Problem = typename Solver<Scalar>::Problem;

/// The acceptance test of LcqpSettings::feasibility_tolerance, recomputed here, with room for the
/// rounding of the row products.
template <typename Scalar>
bool acceptable(const Problem<Scalar>& p, const claw::Vector<Scalar, claw::Dynamic, kMaxN>& x,
                Scalar tolerance) {
  const Scalar eps = std::numeric_limits<Scalar>::epsilon();
  const Scalar t = tolerance * (Scalar(1) + x.cwiseAbs().maxCoeff());
  const auto n = static_cast<Scalar>(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (p.lb(i) - x(i) > t || x(i) - p.ub(i) > t) return false;
  auto row_ok = [&](const auto& row, Scalar lo, Scalar hi, Scalar& value, Scalar& slack) {
    value = row.dot(x);
    slack = t * std::max(Scalar(1), row.norm()) +
            Scalar(8) * n * eps * row.cwiseAbs().dot(x.cwiseAbs());
    return !(lo - value > slack || value - hi > slack);
  };
  Scalar v, s;
  for (Eigen::Index i = 0; i < p.A.rows(); ++i)
    if (!row_ok(p.A.row(i), p.lbA(i), p.ubA(i), v, s)) return false;
  for (Eigen::Index i = 0; i < p.L.rows(); ++i) {
    Scalar lv, ls, rv, rs;
    if (!row_ok(p.L.row(i), p.lbL(i), p.ubL(i), lv, ls)) return false;
    if (!row_ok(p.R.row(i), p.lbR(i), p.ubR(i), rv, rs)) return false;
    if (std::fabs(std::min(lv - p.lbL(i), rv - p.lbR(i))) > std::max(ls, rs)) return false;
  }
  return true;
}

template <typename Scalar>
void check_result(const Problem<Scalar>& p, const Solver<Scalar>& solver) {
  const auto& r = solver.result();
  switch (r.status) {
    case Status::Ok:
      CLAW_FUZZ_CHECK(claw_fuzz::finite(r.x), "Ok with a non-finite x");
      CLAW_FUZZ_CHECK(std::isfinite(r.objective), "Ok with a non-finite objective");
      CLAW_FUZZ_CHECK(acceptable(p, r.x, solver.settings().feasibility_tolerance),
                      "Ok point fails the documented acceptance test");
      break;
    case Status::Infeasible:
      CLAW_FUZZ_CHECK(r.certified_global, "Infeasible without proof");
      CLAW_FUZZ_CHECK(r.x.isZero(Scalar(0)), "Infeasible with x != 0");
      break;
    case Status::MaxIterations:
    case Status::NumericalOverflow:
    case Status::NonFiniteInput:
    case Status::InvalidBounds:
    case Status::SizeMismatch:
    case Status::InvalidProblem:
      CLAW_FUZZ_CHECK(!r.certified_global, "a failure marked certified");
      CLAW_FUZZ_CHECK(r.x.isZero(Scalar(0)), "a failure with x != 0");
      break;
    default:
      CLAW_FUZZ_CHECK(false, "undocumented status");
  }
}

/// Any data, including NaN/Inf, lower > upper, indefinite Q.
template <typename Scalar>
void run_any(FuzzInput& in, Solver<Scalar>& solver, Problem<Scalar>& p) {
  claw_fuzz::fill_values(in, p.Q);
  claw_fuzz::fill_values(in, p.g);
  claw_fuzz::fill_values(in, p.A);
  claw_fuzz::fill_values(in, p.L);
  claw_fuzz::fill_values(in, p.R);
  for (auto* v : {&p.lb, &p.ub}) claw_fuzz::fill_values(in, *v);
  for (auto* v : {&p.lbA, &p.ubA}) claw_fuzz::fill_values(in, *v);
  for (auto* v : {&p.lbL, &p.ubL, &p.lbR, &p.ubR}) claw_fuzz::fill_values(in, *v);
  static_cast<void>(solver.solve(p));  // check_result reads solver.result()
  check_result(p, solver);
}

/// Moderate data: Q = B'B + I, bounded box, consistent bounds; the structure (variable-selecting
/// L, equality rows) appears often so that every path runs.
template <typename Scalar>
void run_moderate(FuzzInput& in, Solver<Scalar>& solver, Problem<Scalar>& p) {
  const Eigen::Index n = p.Q.rows(), nc = p.A.rows(), m = p.L.rows();
  Eigen::Matrix<Scalar, claw::Dynamic, claw::Dynamic, 0, kMaxN, kMaxN> b(n, n);
  claw_fuzz::fill_moderate(in, b);
  p.Q = b.transpose() * b / Scalar(n) +
        Eigen::Matrix<Scalar, claw::Dynamic, claw::Dynamic, 0, kMaxN, kMaxN>::Identity(n, n);
  claw_fuzz::fill_moderate(in, p.g);
  claw_fuzz::fill_moderate(in, p.A);
  const bool selector = in.boolean();
  for (Eigen::Index i = 0; i < m; ++i) {
    if (selector) {
      p.L.row(i).setZero();
      p.L(i, n - 1 - i) = Scalar(1);
    } else {
      for (Eigen::Index j = 0; j < n; ++j) p.L(i, j) = in.moderate<Scalar>();
    }
    for (Eigen::Index j = 0; j < n; ++j) p.R(i, j) = in.moderate<Scalar>();
    p.lbL(i) = in.boolean() ? Scalar(0) : in.uniform(Scalar(-1), Scalar(1));
    p.lbR(i) = in.uniform(Scalar(-1), Scalar(1));
    p.ubL(i) =
        in.boolean() ? claw::infinity<Scalar>() : p.lbL(i) + in.uniform(Scalar(0), Scalar(5));
    p.ubR(i) =
        in.boolean() ? claw::infinity<Scalar>() : p.lbR(i) + in.uniform(Scalar(0), Scalar(5));
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    const Scalar width = in.uniform(Scalar(0.5), Scalar(10));
    p.lb(i) = in.boolean() ? -claw::infinity<Scalar>() : -width;
    p.ub(i) = in.boolean() ? claw::infinity<Scalar>() : width;
  }
  for (Eigen::Index i = 0; i < nc; ++i) {
    const Scalar centre = in.uniform(Scalar(-1), Scalar(1));
    const bool equality = in.boolean();
    p.lbA(i) = centre;
    p.ubA(i) = equality ? centre : centre + in.uniform(Scalar(0), Scalar(3));
  }
  auto settings = solver.settings();
  settings.max_pairs_for_branch_and_bound = in.boolean() ? 24 : 0;  // sometimes the homotopy
  settings.use_monotone_path = in.integer(0, 3) != 0;               // mostly on
  CLAW_FUZZ_CHECK(solver.set_settings(settings) == Status::Ok, "valid settings refused");
  const auto& r = solver.solve(p);
  check_result(p, solver);
  if constexpr (sizeof(Scalar) == 8) {
    if (settings.max_pairs_for_branch_and_bound == 0 || r.status == Status::MaxIterations) return;
    // The reference allows for what a branch QP's point gained from its violations within the
    // tolerance and for what the solver's point loses to the rounding of its rows, and leaves out
    // branches that pass only up to the infeasibility tolerance
    // (claw_test::LcqpBranches::certified_ceiling): with multipliers of 1e11, a violation of 1e-10
    // is worth 10 in the objective.
    const claw::Vector<Scalar, claw::Dynamic, kMaxN> solver_x = r.x;
    const auto branches = claw_test::solve_lcqp_branches(p, &solver_x);
    if (!branches.hessian_accepted) return;
    const Scalar best = branches.certified_ceiling;
    if (r.status == Status::Infeasible) {
      // The certificates' reach: the monotone path decides at feasibility_tolerance, the branch
      // QPs at qp.infeasibility_tolerance; a point beyond t / eps is no evidence against them.
      const Scalar reach = claw::detail::certificate_reach(
          std::min(settings.feasibility_tolerance, settings.qp.infeasibility_tolerance));
      CLAW_FUZZ_CHECK(!(branches.nearest_clearly_feasible <= reach),
                      "Infeasible, but a branch QP is clearly feasible within the reach");
    } else if (r.status == Status::Ok && r.certified_global && std::isfinite(best)) {
      CLAW_FUZZ_CHECK(r.objective <= best + Scalar(1e-6) * std::max(Scalar(1), std::fabs(best)),
                      "certified optimum worse than the best branch beyond its tolerance");
    }
  }
}

template <typename Scalar>
void run(FuzzInput& in) {
  static Solver<Scalar> solver;  // reused across inputs: state must not leak between solves
  const int n = in.integer(1, kMaxN);
  const int nc = in.integer(0, kMaxC);
  const int m = in.integer(0, std::min(kMaxP, n));
  Problem<Scalar> p(n, nc, m);
  CLAW_FUZZ_CHECK(solver.set_settings(claw::LcqpSettings<Scalar>{}) == Status::Ok,
                  "default settings refused");
  if (in.boolean()) {
    run_any<Scalar>(in, solver, p);
  } else {
    run_moderate<Scalar>(in, solver, p);
  }
}

}  // namespace

CLAW_FUZZ_ENTRY_FLOAT_AND_DOUBLE(run)
