// tests/support/solver_instances.hpp: the solver configurations several test sources share,
// declared extern so that qp_instances.cpp and lcqp_instances.cpp alone instantiate them (compile
// time only).
#pragma once

#include <type_traits>

#include "claw/filters/fliqc.hpp"
#include "claw/solvers/lcqp.hpp"
#include "claw/solvers/qp.hpp"

// Each solver's iteration sits in a member defined outside its class (QpSolver::solve_from,
// LcqpSolver::solve_impl), so a source that sees these declarations compiles none of it.
extern template class claw::QpSolver<double, claw::Dynamic, claw::Dynamic>;
extern template class claw::QpSolver<float, claw::Dynamic, claw::Dynamic>;
extern template class claw::LcqpSolver<double>;
extern template class claw::LcqpSolver<float>;
// The LCQP of FliqcFilter<double, 7, 7, 16> (its Solver).
extern template class claw::LcqpSolver<double, 23, 16, 16>;
static_assert(std::is_same<claw::FliqcFilter<double, 7, 7, 16>::Solver,
                           claw::LcqpSolver<double, 23, 16, 16>>::value,
              "solver_instances: FliqcFilter<double, 7, 7, 16>::Solver changed");
