// tests/support/lcqp_branches.hpp: an LCQP's 2^m branches (each pair held on its L side or on its R
// side) solved as QPs by QpSolver: the reference the branch-and-bound tests and fuzz_lcqp compare with.
#pragma once

#include <Eigen/Core>
#include <algorithm>

#include "claw/solvers/lcqp.hpp"
#include "claw/solvers/qp.hpp"

namespace claw_test {

/// What the branch QPs of an LCQP say about it.
template <typename Scalar>
struct LcqpBranches {
  bool hessian_accepted = false;                       ///< false: QpSolver refused Q (nothing else set)
  Scalar best_objective = claw::infinity<Scalar>();    ///< smallest objective of a branch solved Ok
  bool clearly_feasible = false;                       ///< a branch solved Ok with primal residual <= 1e-12
};

/// Solves every branch of `p`: pair i with L_i x = lbL_i (bit i of the mask clear) or
/// R_i x = lbR_i (set), the other side keeping its bounds. m must be small (2^m QPs).
template <typename Scalar, int MaxN, int MaxC, int MaxP>
LcqpBranches<Scalar> solve_lcqp_branches(const claw::LcqpProblem<Scalar, MaxN, MaxC, MaxP>& p) {
  constexpr int kMaxRows = (MaxC == claw::Dynamic || MaxP == claw::Dynamic) ? claw::Dynamic : MaxC + 2 * MaxP;
  const Eigen::Index n = p.Q.rows(), nc = p.A.rows(), m = p.L.rows();
  LcqpBranches<Scalar> out;
  claw::QpSolver<Scalar, claw::Dynamic, claw::Dynamic, MaxN, kMaxRows> qp(n, nc + 2 * m);
  if (qp.set_hessian(p.Q) != claw::Status::Ok) return out;
  out.hessian_accepted = true;
  Eigen::Matrix<Scalar, claw::Dynamic, claw::Dynamic, Eigen::RowMajor, kMaxRows, MaxN> rows(nc + 2 * m, n);
  rows << p.A, p.L, p.R;
  qp.set_constraints(rows);
  claw::Vector<Scalar, claw::Dynamic, kMaxRows> lo(nc + 2 * m), hi(nc + 2 * m);
  for (long mask = 0; mask < (1L << m); ++mask) {
    lo << p.lbA, p.lbL, p.lbR;
    hi << p.ubA, p.ubL, p.ubR;
    for (Eigen::Index i = 0; i < m; ++i) {
      if ((mask >> i) & 1) {
        hi(nc + m + i) = p.lbR(i);
      } else {
        hi(nc + i) = p.lbL(i);
      }
    }
    const auto& branch = qp.solve(p.g, p.lb, p.ub, lo, hi);
    if (branch.status != claw::Status::Ok) continue;
    out.best_objective = std::min(out.best_objective, branch.objective);
    if (branch.residuals.primal <= Scalar(1e-12)) out.clearly_feasible = true;
  }
  return out;
}

}  // namespace claw_test
