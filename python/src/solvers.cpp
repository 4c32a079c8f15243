// python/src/solvers.cpp: claw.QpSolver, claw.LcqpSolver and claw.FliqcFilter on numpy arrays.
// The solver API seams (template parameter order, what solve() / filter() return) are named in
// one place each: the aliases and the *_call functions below.
#include <claw/filters/fliqc.hpp>
#include <claw/solvers/lcqp.hpp>
#include <claw/solvers/qp.hpp>

#include "settings.hpp"

namespace claw_python {

namespace {

constexpr int D = Eigen::Dynamic;
/// Every size dynamic: the same type whatever the order of the size parameters.
using Qp = claw::QpSolver<double, D, D, D, D>;
using Lcqp = claw::LcqpSolver<double>;
using LcqpProblem = Lcqp::Problem;
/// Up to 16 joints and 16 distances (the same bound for both, so the order of the two maxima
/// does not matter).
constexpr int kFliqcMax = 16;
using Fliqc = claw::FliqcFilter<double, D, kFliqcMax, kFliqcMax>;
using FliqcSettings = Fliqc::Settings;

/// The one call of QpSolver::solve; returns the status of the solve.
template <typename... Args>
claw::Status qp_solve_call(Qp& qp, const Args&... args) {
  return qp.solve(args...).status;
}
/// The one call of LcqpSolver::solve.
claw::Status lcqp_solve_call(Lcqp& solver, const LcqpProblem& problem) {
  return solver.solve(problem).status;
}
/// The one call of FliqcFilter::filter; the result is read with result() afterwards.
template <typename... Args>
void fliqc_filter_call(Fliqc& filter, const Args&... args) {
  (void)filter.filter(args...);
}

/// A float64 vector of n entries, or `fill` everywhere when None.
Eigen::VectorXd vector_or_fill(py::handle obj, const char* where, const char* name, Eigen::Index n,
                               double fill) {
  if (obj.is_none()) return Eigen::VectorXd::Constant(n, fill);
  return vector_in(obj, where, name, n);
}

const Field<FliqcSettings> kFliqcFields[] = {
    CLAW_PYTHON_VALUE(FliqcSettings, quad_cost_type),
    CLAW_PYTHON_VALUE(FliqcSettings, velocity_error_as_original),
    CLAW_PYTHON_VALUE(FliqcSettings, lambda_cost_penalty),
    CLAW_PYTHON_VALUE(FliqcSettings, enable_lambda_constraint_in_L),
    CLAW_PYTHON_VALUE(FliqcSettings, enable_lambda_constraint_in_x),
    CLAW_PYTHON_VALUE(FliqcSettings, enable_esc_vel_constraint),
    CLAW_PYTHON_VALUE(FliqcSettings, enable_nullspace_projector_in_A),
    CLAW_PYTHON_VALUE(FliqcSettings, exempt_blocked_rows_from_projector),
    CLAW_PYTHON_VALUE(FliqcSettings, dt),
    CLAW_PYTHON_VALUE(FliqcSettings, eps),
    CLAW_PYTHON_VALUE(FliqcSettings, active_threshold),
    CLAW_PYTHON_VALUE(FliqcSettings, lambda_max),
    CLAW_PYTHON_VALUE(FliqcSettings, esc_vel_max),
    CLAW_PYTHON_VALUE(FliqcSettings, q_dot_max),
    CLAW_PYTHON_VALUE(FliqcSettings, fallback)};

}  // namespace

void bind_solvers(py::module_& m) {
  py::enum_<claw::LcqpPath>(m, "LcqpPath", "How an LCQP answer was found.")
      .value("None_", claw::LcqpPath::None, "refused before any work")
      .value("Monotone", claw::LcqpPath::Monotone, "monotone LCP path (certified)")
      .value("BranchAndBound", claw::LcqpPath::BranchAndBound,
             "branch and bound (certified when done)")
      .value("PenaltyHomotopy", claw::LcqpPath::PenaltyHomotopy, "penalty homotopy (local)");
  py::enum_<claw::FliqcCostType>(m, "FliqcCostType", "FLIQC's quadratic cost on qdot.")
      .value("Identity", claw::FliqcCostType::Identity, "1/2 qdot' qdot")
      .value("MassMatrix", claw::FliqcCostType::MassMatrix, "1/2 qdot' M qdot")
      .value("VelocityError", claw::FliqcCostType::VelocityError, "1/2 |qdot - qdot_guide|^2")
      .value("MassMatrixVelocityError", claw::FliqcCostType::MassMatrixVelocityError,
             "1/2 (qdot - qdot_guide)' M (qdot - qdot_guide)");
  py::enum_<claw::FliqcFallback>(m, "FliqcFallback", "FLIQC's command on a cycle it cannot solve.")
      .value("Stop", claw::FliqcFallback::Stop, "qdot = 0")
      .value("LeastViolation", claw::FliqcFallback::LeastViolation,
             "the velocity minimising the largest predicted violation");

  py::class_<Qp>(m, "QpSolver",
                 "QpSolver(n, m): dense strictly convex QP (Goldfarb-Idnani dual active set),\n"
                 "  minimise 1/2 x'Qx + g'x  subject to  lbA <= A x <= ubA,  lb <= x <= ub,\n"
                 "n variables, m rows of A; +-inf bounds are absent, equal bounds are equalities.\n"
                 "solve() returns the Status; the answer is in x, objective, multipliers.")
      .def(py::init([](Eigen::Index n, Eigen::Index rows) {
             if (n < 0 || rows < 0) throw py::value_error("QpSolver: n and m must be >= 0");
             return std::make_unique<Qp>(n, rows);
           }),
           py::arg("n"), py::arg("m") = 0)
      .def(
          "solve",
          [](Qp& self, py::handle Q, py::handle g, py::handle A, py::handle lb, py::handle ub,
             py::handle lbA, py::handle ubA) {
            const char* w = "QpSolver.solve";
            const Eigen::Index n = self.num_variables(), rows = self.num_constraints();
            const Eigen::MatrixXd q = matrix_in(Q, w, "Q", n, n);
            const auto gv = vector_in(g, w, "g", n);
            const Eigen::MatrixXd a = A.is_none() ? Eigen::MatrixXd::Zero(rows, n)
                                                  : Eigen::MatrixXd(matrix_in(A, w, "A", rows, n));
            const double inf = std::numeric_limits<double>::infinity();
            const Eigen::VectorXd l = vector_or_fill(lb, w, "lb", n, -inf);
            const Eigen::VectorXd u = vector_or_fill(ub, w, "ub", n, inf);
            const Eigen::VectorXd la = vector_or_fill(lbA, w, "lbA", rows, -inf);
            const Eigen::VectorXd ua = vector_or_fill(ubA, w, "ubA", rows, inf);
            return qp_solve_call(self, q, gv, a, l, u, la, ua);
          },
          py::arg("Q"), py::arg("g"), py::arg("A") = py::none(), py::arg("lb") = py::none(),
          py::arg("ub") = py::none(), py::arg("lbA") = py::none(), py::arg("ubA") = py::none(),
          "Installs Q (n, n) and A (m, n) and solves cold; bounds (n,) / (m,) default to +-inf.\n"
          "Returns Status: Ok, Infeasible, MaxIterations, NonFiniteInput, InvalidBounds, ...")
      .def_property_readonly(
          "x", [](const Qp& s) { return to_numpy(s.result().x); },
          "Minimiser of the last solve (n,).")
      .def_property_readonly(
          "objective", [](const Qp& s) { return s.result().objective; }, "1/2 x'Qx + g'x at x.")
      .def_property_readonly(
          "iterations", [](const Qp& s) { return s.result().iterations; },
          "Active-set changes of the last solve.")
      .def_property_readonly(
          "status", [](const Qp& s) { return s.result().status; }, "Status of the last solve.")
      .def_property_readonly(
          "bound_multipliers", [](const Qp& s) { return to_numpy(s.result().bound_multipliers); },
          "Multipliers of the variable bounds (n,).")
      .def_property_readonly(
          "constraint_multipliers",
          [](const Qp& s) { return to_numpy(s.result().constraint_multipliers); },
          "Multipliers of the rows of A (m,).");

  py::class_<Lcqp>(m, "LcqpSolver",
                   "LcqpSolver(): QP with complementarity constraints,\n"
                   "  minimise 1/2 x'Qx + g'x  s.t.  lbA <= A x <= ubA, lb <= x <= ub,\n"
                   "  lbL <= L x <= ubL, lbR <= R x <= ubR, (L x - lbL)'(R x - lbR) = 0 pairwise.\n"
                   "Certified global answers where the monotone path or branch and bound finish.")
      .def(py::init<>())
      .def(
          "solve",
          [](Lcqp& self, py::handle Q, py::handle g, py::handle lb, py::handle ub, py::handle A,
             py::handle lbA, py::handle ubA, py::handle L, py::handle lbL, py::handle ubL,
             py::handle R, py::handle lbR, py::handle ubR) {
            const char* w = "LcqpSolver.solve";
            const auto q = matrix_in(Q, w, "Q");
            const Eigen::Index n = q.rows();
            const Eigen::Index nc = A.is_none() ? 0 : matrix_in(A, w, "A", -1, n).rows();
            const Eigen::Index np = L.is_none() ? 0 : matrix_in(L, w, "L", -1, n).rows();
            const double inf = std::numeric_limits<double>::infinity();
            LcqpProblem p(n, nc, np);
            p.Q = matrix_in(Q, w, "Q", n, n);
            p.g = vector_in(g, w, "g", n);
            p.lb = vector_or_fill(lb, w, "lb", n, -inf);
            p.ub = vector_or_fill(ub, w, "ub", n, inf);
            if (nc > 0) p.A = matrix_in(A, w, "A", nc, n);
            p.lbA = vector_or_fill(lbA, w, "lbA", nc, -inf);
            p.ubA = vector_or_fill(ubA, w, "ubA", nc, inf);
            if (np > 0) {
              p.L = matrix_in(L, w, "L", np, n);
              p.R = matrix_in(R, w, "R", np, n);
            }
            p.lbL = vector_or_fill(lbL, w, "lbL", np, 0.0);
            p.ubL = vector_or_fill(ubL, w, "ubL", np, inf);
            p.lbR = vector_or_fill(lbR, w, "lbR", np, 0.0);
            p.ubR = vector_or_fill(ubR, w, "ubR", np, inf);
            return lcqp_solve_call(self, p);
          },
          py::arg("Q"), py::arg("g"), py::kw_only(), py::arg("lb") = py::none(),
          py::arg("ub") = py::none(), py::arg("A") = py::none(), py::arg("lbA") = py::none(),
          py::arg("ubA") = py::none(), py::arg("L") = py::none(), py::arg("lbL") = py::none(),
          py::arg("ubL") = py::none(), py::arg("R") = py::none(), py::arg("lbR") = py::none(),
          py::arg("ubR") = py::none(),
          "Solves; absent bounds are +-inf (lbL, lbR default 0). Returns Status.")
      .def_property_readonly(
          "x", [](const Lcqp& s) { return to_numpy(s.result().x); }, "Answer of the last solve.")
      .def_property_readonly(
          "objective", [](const Lcqp& s) { return s.result().objective; }, "1/2 x'Qx + g'x at x.")
      .def_property_readonly(
          "status", [](const Lcqp& s) { return s.result().status; }, "Status of the last solve.")
      .def_property_readonly(
          "certified_global", [](const Lcqp& s) { return s.result().certified_global; },
          "True when the answer (Ok or Infeasible) is proved global.")
      .def_property_readonly(
          "path", [](const Lcqp& s) { return s.result().path; },
          "How the answer was found (LcqpPath).");

  py::class_<Fliqc>(
      m, "FliqcFilter",
      "FliqcFilter(n, **settings): the FLIQC joint-velocity safety filter for n <= 16 joints and\n"
      "up to 16 distances: bends qdot_guide [rad/s] so that each predicted distance\n"
      "psi_i + dt P_i qdot [m] stays >= eps, through an LCQP with contact forces lambda.\n"
      "Keywords: quad_cost_type (FliqcCostType), lambda_cost_penalty, dt [s], eps [m],\n"
      "active_threshold [m], lambda_max, esc_vel_max, q_dot_max [rad/s], fallback\n"
      "(FliqcFallback), enable_lambda_constraint_in_L / _in_x, enable_esc_vel_constraint,\n"
      "enable_nullspace_projector_in_A, velocity_error_as_original.")
      .def(py::init([](Eigen::Index n, const py::kwargs& kwargs) {
             if (n < 1 || n > kFliqcMax) throw py::value_error("FliqcFilter: n must be in 1..16");
             auto f = std::make_unique<Fliqc>();
             require_ok(f->set_num_joints(n), "FliqcFilter");
             FliqcSettings s = f->settings();
             apply_fields(s, kwargs, n, "FliqcFilter", kFliqcFields);
             require_ok(f->configure(s), "FliqcFilter");
             return f;
           }),
           py::arg("n"))
      .def(
          "configure",
          [](Fliqc& self, const py::kwargs& kwargs) {
            FliqcSettings s = self.settings();
            apply_fields(s, kwargs, 0, "FliqcFilter.configure", kFliqcFields);
            return self.configure(s);
          },
          "Changes the given settings; returns Status (old settings kept unless Ok).")
      .def("reset", &Fliqc::reset, "Forgets the warm start.")
      .def(
          "filter",
          [](Fliqc& self, py::handle qdot_guide, py::handle jacobian, py::handle psi, py::handle p,
             py::handle mass, py::handle p_inv) {
            const char* w = "FliqcFilter.filter";
            const auto guide = vector_in(qdot_guide, w, "qdot_guide");
            const Eigen::Index n = guide.size();
            const auto j = matrix_in(jacobian, w, "jacobian", -1, n);
            const auto distances = vector_in(psi, w, "psi");
            if (distances.size() > kFliqcMax)
              throw py::value_error("FliqcFilter.filter: at most 16 distances");
            const auto pm = matrix_in(p, w, "p", distances.size(), n);
            if (mass.is_none() && p_inv.is_none()) {
              fliqc_filter_call(self, guide, j, distances, pm);
            } else {
              const Eigen::MatrixXd mm = mass.is_none()
                                             ? Eigen::MatrixXd::Identity(n, n)
                                             : Eigen::MatrixXd(matrix_in(mass, w, "mass", n, n));
              if (p_inv.is_none())
                fliqc_filter_call(self, guide, mm, j, distances, pm);
              else
                fliqc_filter_call(self, guide, mm, j, distances, pm,
                                  matrix_in(p_inv, w, "p_inv", distances.size(), n));
            }
            const auto& r = self.result();
            return py::make_tuple(to_numpy(r.qdot), to_numpy(r.lambda), r.status,
                                  r.certified_global);
          },
          py::arg("qdot_guide"), py::arg("jacobian"), py::arg("psi"), py::arg("p"),
          py::arg("mass") = py::none(), py::arg("p_inv") = py::none(),
          "One cycle: qdot_guide (n,) [rad/s], jacobian (>= 3, n) (rows 0-2 translational), psi\n"
          "(m,) distances [m], p (m, n) distance Jacobians, optional mass (n, n) and p_inv (m, "
          "n).\n"
          "Returns (qdot, lambda, status, certified): qdot is the command (the fallback's when\n"
          "status is not Ok, never NaN), certified tells that the LCQP answer is proved global.")
      .def_property_readonly(
          "active_count", [](const Fliqc& s) { return s.result().active_count; },
          "Distances that entered the last cycle.")
      .def_property_readonly(
          "fallback_applied", [](const Fliqc& s) { return s.result().fallback_applied; },
          "True when the last qdot is the fallback's.")
      .def_property_readonly(
          "velocity_scaled", [](const Fliqc& s) { return s.result().velocity_scaled; },
          "True when no distance was active and the guide was scaled into the\n"
          "velocity bounds.")
      .def_property_readonly(
          "projector_blocked_count",
          [](const Fliqc& s) { return s.result().projector_blocked_count; },
          "Active distances of the last cycle whose reaction the null-space projector removes.");
}

}  // namespace claw_python
