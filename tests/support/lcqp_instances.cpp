// tests/support/lcqp_instances.cpp: the one instantiation of each LCQP configuration
// solver_instances.hpp declares extern.
#include "support/solver_instances.hpp"

template class claw::LcqpSolver<double>;
template class claw::LcqpSolver<float>;
template class claw::LcqpSolver<double, 23, 16, 16>;
