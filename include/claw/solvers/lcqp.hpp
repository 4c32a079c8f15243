// claw/solvers/lcqp.hpp: QPs with linear complementarity constraints (LCQPs) in LCQPow's form,
// solved by LcqpSolver (lcqp/solver.hpp) without allocation: the problem, settings and result
// types.
#pragma once

#include "claw/solvers/lcqp/problem.hpp"
#include "claw/solvers/lcqp/settings.hpp"
#include "claw/solvers/lcqp/solver.hpp"
#include "claw/solvers/lcqp/types.hpp"
