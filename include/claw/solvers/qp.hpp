// claw/solvers/qp.hpp: the dense strictly convex QP solver, QpSolver (qp/solver.hpp), with its
// settings, result types and the checks that decide every answer's status (qp/verification.hpp).
#pragma once

#include "claw/solvers/qp/settings.hpp"
#include "claw/solvers/qp/solver.hpp"
#include "claw/solvers/qp/types.hpp"
#include "claw/solvers/qp/verification.hpp"
