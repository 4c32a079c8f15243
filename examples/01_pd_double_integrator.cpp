// examples/01_pd_double_integrator.cpp: claw's PdController regulating a unit-mass double
// integrator x'' = tau to 0, checked against the critically damped continuous closed loop; writes a
// CSV.
//
// Plant: one joint of mass 1, the effort held constant over each control period h, so the plant is
// advanced exactly: x <- x + v h + tau h^2 / 2, v <- v + tau h.
// Controller: PdController<double, 1> in jiminy-compatible mode, command state held at rest at 0
// (target acceleration 0), tau = kp ((0 - x) + kd (0 - v)) with kp = w^2 and kd = 2 / w [s].
// The parallel derivative gain is kp kd = 2 w, so in continuous time x'' + 2 w x' + w^2 x = 0:
// critically damped, x(t) = (x0 + (v0 + w x0) t) exp(-w t). The sampled loop differs from it by
// O(h); the table shows by how much.
//
// Usage: 01_pd_double_integrator [output.csv]   (default: pd_double_integrator.csv)

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "claw/blocks/pd_controller.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"

namespace {

using Controller = claw::PdController<double, 1>;
using Vec1 = Controller::VectorType;

constexpr double kOmega = 10.0;    // closed-loop natural frequency w [rad/s]
constexpr double kPeriod = 1e-3;   // control period h [s]
constexpr long kSteps = 1500;      // 1.5 s of control periods
constexpr long kPrintEvery = 100;  // table row every 0.1 s
constexpr double kX0 = 1.0;        // initial position [m]
constexpr double kV0 = 0.0;        // initial velocity [m/s]

// Position of the continuous critically damped loop at time t [s].
double closed_form_position(double t) {
  return (kX0 + (kV0 + kOmega * kX0) * t) * std::exp(-kOmega * t);
}

// Prints what failed and returns false unless `status` is Ok.
bool succeeded(claw::Status status, const char* call) {
  if (claw::ok(status)) return true;
  std::fprintf(stderr, "01_pd_double_integrator: %s failed: %s\n", call, claw::to_string(status));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const char* csv_path = (argc > 1) ? argv[1] : "pd_double_integrator.csv";

  // Bounds far wider than anything this run reaches: the command state never touches them.
  Controller::Settings settings;
  settings.bounds.lower = claw::StateMatrix<double, 1>(-1e3, -1e3, -1e6);
  settings.bounds.upper = claw::StateMatrix<double, 1>(1e3, 1e3, 1e6);
  settings.kp = Vec1::Constant(kOmega * kOmega);  // [N/m]
  settings.kd = Vec1::Constant(2.0 / kOmega);     // time constant [s]
  settings.effort_limit = Vec1::Constant(claw::infinity<double>());
  settings.control_dt = kPeriod;
  settings.mode = claw::ZohMode::JiminyCompatible;

  Controller controller;
  if (!succeeded(controller.configure(settings), "configure")) return EXIT_FAILURE;
  // Target: at rest at the origin (p* = 0, v* = 0, a* = 0).
  if (!succeeded(controller.set_command_state(claw::StateMatrix<double, 1>::Zero()),
                 "set_command_state"))
    return EXIT_FAILURE;

  std::FILE* csv = std::fopen(csv_path, "w");
  if (csv == nullptr) {
    std::fprintf(stderr, "01_pd_double_integrator: cannot open %s for writing\n", csv_path);
    return EXIT_FAILURE;
  }
  std::fprintf(csv, "t,x,v,tau,x_closed\n");

  std::printf("PD control of a unit-mass double integrator x'' = tau (claw::PdController)\n");
  std::printf("w = %g rad/s, kp = %g N/m, kd = %g s (derivative gain %g N s/m), h = %g s\n", kOmega,
              settings.kp(0), settings.kd(0), settings.kp(0) * settings.kd(0), kPeriod);
  std::printf("x0 = %g m, v0 = %g m/s; closed form x(t) = (x0 + (v0 + w x0) t) exp(-w t)\n\n", kX0,
              kV0);
  std::printf("%6s %13s %13s %13s %13s %12s\n", "t [s]", "x [m]", "v [m/s]", "tau [N]",
              "x_closed [m]", "error [m]");

  const Vec1 target_acceleration = Vec1::Zero();
  Vec1 x = Vec1::Constant(kX0);
  Vec1 v = Vec1::Constant(kV0);
  Vec1 tau = Vec1::Zero();
  double max_error = 0.0;
  double max_error_time = 0.0;

  for (long k = 0; k <= kSteps; ++k) {
    const double t = static_cast<double>(k) * kPeriod;
    // Effort for the period starting now, from the measured state.
    if (!succeeded(controller.update(x, v, target_acceleration, tau), "update")) {
      std::fclose(csv);
      return EXIT_FAILURE;
    }
    const double x_closed = closed_form_position(t);
    const double error = x(0) - x_closed;
    if (std::fabs(error) > max_error) {
      max_error = std::fabs(error);
      max_error_time = t;
    }
    std::fprintf(csv, "%.9f,%.17g,%.17g,%.17g,%.17g\n", t, x(0), v(0), tau(0), x_closed);
    if (k % kPrintEvery == 0)
      std::printf("%6.2f %13.6e %13.6e %13.6e %13.6e %12.3e\n", t, x(0), v(0), tau(0), x_closed,
                  error);
    if (k == kSteps) break;
    // Exact plant motion under the effort held over [t, t + h].
    x(0) += v(0) * kPeriod + 0.5 * tau(0) * kPeriod * kPeriod;
    v(0) += tau(0) * kPeriod;
  }

  if (std::fclose(csv) != 0) {
    std::fprintf(stderr, "01_pd_double_integrator: error writing %s\n", csv_path);
    return EXIT_FAILURE;
  }
  std::printf("\nmax |x - x_closed| = %.3e m (at t = %.3f s), %ld control periods of %g s\n",
              max_error, max_error_time, kSteps, kPeriod);
  std::printf("wrote %s\n", csv_path);
  return EXIT_SUCCESS;
}
