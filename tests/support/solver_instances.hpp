// tests/support/solver_instances.hpp: the solver configurations several test sources share,
// declared extern so that solver_instances.cpp alone instantiates them (compile time only).
#pragma once

#include "claw/solvers/lcqp.hpp"
#include "claw/solvers/qp.hpp"

extern template class claw::QpSolver<double, claw::Dynamic, claw::Dynamic>;
extern template class claw::QpSolver<float, claw::Dynamic, claw::Dynamic>;
extern template class claw::LcqpSolver<double>;
extern template class claw::LcqpSolver<float>;
