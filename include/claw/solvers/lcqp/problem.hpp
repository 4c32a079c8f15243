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
  using Scalar = Scalar_;
  using Index = Eigen::Index;
  using MatrixQ = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::ColMajor, MaxN_, MaxN_>;
  using MatrixA = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::RowMajor, MaxC_, MaxN_>;
  using MatrixLR = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::RowMajor, MaxP_, MaxN_>;
  using VectorN = Vector<Scalar, Dynamic, MaxN_>;
  using VectorC = Vector<Scalar, Dynamic, MaxC_>;
  using VectorP = Vector<Scalar, Dynamic, MaxP_>;

  MatrixQ Q;
  VectorN g, lb, ub;
  MatrixA A;
  VectorC lbA, ubA;
  MatrixLR L, R;
  VectorP lbL, ubL, lbR, ubR;

  LcqpProblem() = default;
  LcqpProblem(Index n, Index nc, Index m) { resize(n, nc, m); }

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

  Index num_variables() const noexcept { return Q.rows(); }
  Index num_constraints() const noexcept { return A.rows(); }
  Index num_pairs() const noexcept { return L.rows(); }
};

}  // namespace claw
