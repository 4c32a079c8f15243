// tests/support/solver_instances.cpp: the one instantiation of each configuration
// solver_instances.hpp declares extern.
#include "support/solver_instances.hpp"

template class claw::QpSolver<double, claw::Dynamic, claw::Dynamic>;
template class claw::QpSolver<float, claw::Dynamic, claw::Dynamic>;
template class claw::LcqpSolver<double>;
template class claw::LcqpSolver<float>;
