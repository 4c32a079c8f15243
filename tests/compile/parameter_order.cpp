// tests/compile/parameter_order.cpp: sized solver types spelled in claw's one template-parameter
// order (CLAW_SPELLING=0, must compile) or in an order with MaxN not right after N (1: QpSolver
// <Scalar, N, M>, 2: FliqcFilter<Scalar, N, MaxM, MaxN>), which must fail on the class's
// static_assert naming the order. (FliqcFilter<Scalar, N, MaxM> has too few arguments to compile.)
#include "claw/filters/fliqc.hpp"
#include "claw/solvers/qp.hpp"

int main() {
#if CLAW_SPELLING == 1
  claw::QpSolver<double, 7, 4> qp;  // 7 variables, 4 rows: MaxN must follow N
  return static_cast<int>(qp.num_variables());
#elif CLAW_SPELLING == 2
  claw::FliqcFilter<double, 7, 16, 7> fliqc;  // 7 joints, 16 distances: MaxN must follow N
  return static_cast<int>(fliqc.result().qdot.size());
#else
  claw::QpSolver<double, 7, 7, 4> qp;
  claw::FliqcFilter<double, 7, 7, 16> fliqc;
  return qp.num_variables() == 7 && qp.num_constraints() == 4 && fliqc.result().qdot.size() == 7
             ? 0
             : 1;
#endif
}
