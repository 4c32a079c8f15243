// tests/support/qp_instances.cpp: the one instantiation of each QP configuration
// solver_instances.hpp declares extern (the contracted QP tests link this one alone).
#include "support/solver_instances.hpp"

template class claw::QpSolver<double, claw::Dynamic, claw::Dynamic>;
template class claw::QpSolver<float, claw::Dynamic, claw::Dynamic>;
