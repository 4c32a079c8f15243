// claw/solvers/lcqp/problem.hpp: LcqpProblem, a QP with linear complementarity constraints in
// LCQPow's dense form (the data LcqpSolver and FliqcFilter work on).
#pragma once

#include <Eigen/Core>

#include "claw/core/types.hpp"

namespace claw {

/// An LCQP in LCQPow's dense form (n variables, nc rows of A, m complementarity pairs):
///
///   minimise 1/2 x'Qx + g'x
///   subject to lbA <= A x <= ubA,  lb <= x <= ub,  lbL <= L x <= ubL,  lbR <= R x <= ubR,
///              (L_i x - lbL_i) (R_i x - lbR_i) = 0  for every pair i,
///
/// i.e. 0 <= L x - lbL  perp  R x - lbR >= 0 plus the upper bounds. Q symmetric positive definite
/// (the solver's convex subproblems need it; see LcqpSettings::hessian_regularisation). Infinite
/// entries of lb/ub/lbA/ubA/ubL/ubR mean "no bound"; lbL and lbR must be finite.
/// resize() sets every matrix to zero, lbL = lbR = 0 and every other bound to "none".
/// Sizes: Max* > 0 give inline storage (no heap); Dynamic allocates in resize() only.
template <typename Scalar_, int MaxN_ = Dynamic, int MaxC_ = Dynamic, int MaxP_ = Dynamic>
struct LcqpProblem {
  using Scalar = Scalar_;      ///< the scalar type (float or double)
  using Index = Eigen::Index;  ///< index and size type
  /// Type of Q: n x n, column-major, at most MaxN x MaxN.
  using MatrixQ = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::ColMajor, MaxN_, MaxN_>;
  /// Type of A: nc x n, row-major, at most MaxC x MaxN.
  using MatrixA = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::RowMajor, MaxC_, MaxN_>;
  /// Type of L and R: m x n, row-major, at most MaxP x MaxN.
  using MatrixLR = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::RowMajor, MaxP_, MaxN_>;
  using VectorN = Vector<Scalar, Dynamic, MaxN_>;  ///< n entries (g, lb, ub)
  using VectorC = Vector<Scalar, Dynamic, MaxC_>;  ///< nc entries (lbA, ubA)
  using VectorP = Vector<Scalar, Dynamic, MaxP_>;  ///< m entries (lbL, ubL, lbR, ubR)

  /// Hessian Q, n x n, symmetric positive definite (semidefinite: see
  /// LcqpSettings::auto_regularisation).
  MatrixQ Q;
  /// Linear cost g, n entries.
  VectorN g, lb, ub;
  /// @var lb
  /// Lower bounds of x, n entries (-inf: none).
  /// @var ub
  /// Upper bounds of x, n entries (+inf: none).
  MatrixA A;  ///< constraint matrix A, nc x n
  /// Lower bounds of A x, nc entries (-inf: none).
  VectorC lbA, ubA;
  /// @var ubA
  /// Upper bounds of A x, nc entries (+inf: none).

  /// L, m x n: row L_i gives the first side L_i x - lbL_i of pair i.
  MatrixLR L, R;
  /// @var R
  /// R, m x n: row R_i gives the second side R_i x - lbR_i of pair i.

  /// Lower bounds of L x, m entries, finite: L_i x - lbL_i >= 0 is the first side of pair i.
  VectorP lbL, ubL, lbR, ubR;
  /// @var ubL
  /// Upper bounds of L x, m entries (+inf: none).
  /// @var lbR
  /// Lower bounds of R x, m entries, finite: R_i x - lbR_i >= 0 is the second side of pair i.
  /// @var ubR
  /// Upper bounds of R x, m entries (+inf: none).

  LcqpProblem() = default;
  /// A problem of n variables, nc rows of A and m pairs, as resize() leaves it.
  LcqpProblem(Index n, Index nc, Index m) { resize(n, nc, m); }

  /// Sizes the problem to n variables, nc rows of A and m pairs (allocates for Dynamic sizes):
  /// Q, g, A, L, R zero, lbL = lbR = 0, every other bound "none" (-inf or +inf).
  void resize(Index n, Index nc, Index m) {
    const Scalar inf = infinity<Scalar>();
    Q.setZero(n, n);
    g.setZero(n);
    lb.setConstant(n, -inf);
    ub.setConstant(n, inf);
    A.setZero(nc, n);
    lbA.setConstant(nc, -inf);
    ubA.setConstant(nc, inf);
    L.setZero(m, n);
    R.setZero(m, n);
    lbL.setZero(m);
    lbR.setZero(m);
    ubL.setConstant(m, inf);
    ubR.setConstant(m, inf);
  }

  Index num_variables() const noexcept { return Q.rows(); }    ///< n, the rows of Q
  Index num_constraints() const noexcept { return A.rows(); }  ///< nc, the rows of A
  Index num_pairs() const noexcept { return L.rows(); }        ///< m, the rows of L
};

}  // namespace claw
