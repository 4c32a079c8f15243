// python/src/actuator.cpp: claw.Actuator, Newton's actuator pipeline per joint (command delay ->
// the PID drive -> output clamps: effort limits or the DC-motor envelope, a position table).
#include <claw/blocks/actuator.hpp>
#include <memory>

#include "common.hpp"
#include "settings.hpp"
#include "snapshot.hpp"

namespace claw_python {

namespace {

using Actuator = claw::Actuator<double, Eigen::Dynamic>;

/// The keyword settings of the output clamps: the effort limits (as for the laws) and the delay.
struct ActuatorSettings {
  claw::EffortLimits<double, Eigen::Dynamic> limits;
  Eigen::Index delay = 0;
};
const Field<ActuatorSettings> kActuatorFields[] = {
    Field<ActuatorSettings>{"delay",
                            [](ActuatorSettings& s, py::handle v, Eigen::Index, const char* w) {
                              s.delay = cast_setting<Eigen::Index>(v, w, "delay");
                            }},
    CLAW_PYTHON_LIMIT_FIELDS(ActuatorSettings)};

}  // namespace

void bind_actuator(py::module_& m) {
  py::class_<Actuator::State>(m, "ActuatorState",
                              "An opaque snapshot of an Actuator: state() makes one, set_state()\n"
                              "restores it.");
  py::class_<Actuator> cls(
      m, "Actuator",
      "Actuator(drive, **settings): Newton's actuator pipeline for drive.n joints: the commands\n"
      "delayed by `delay` control steps (0 ..= 8), the PID (a copy of `drive`, a claw.Pid), then "
      "the\n"
      "output clamps the PID does not see: effort limits (effort_limit, effort_lower /\n"
      "effort_upper, or effort_limit_kind=DcMotor with stall_effort, peak_effort, no_load_speed)\n"
      "and a position table (set_position_limit). Bit for bit the same steps written by hand.");
  cls.def(py::init([](const claw::Pid<double, Eigen::Dynamic>& drive, const py::kwargs& kwargs) {
            const Eigen::Index n = drive.size();
            auto actuator = std::make_unique<Actuator>(n);
            ActuatorSettings s;
            s.limits.resize(n);
            apply_fields(s, kwargs, n, "Actuator", kActuatorFields);
            require_ok(actuator->drive().configure(drive.settings()), "Actuator");
            require_ok(actuator->configure(s.delay, s.limits), "Actuator");
            return actuator;
          }),
          py::arg("drive"))
      .def_property_readonly("n", &Actuator::size)
      .def_property_readonly("delay", &Actuator::delay)
      .def(
          "set_position_limit",
          [](Actuator& self, py::handle position, py::handle limit) {
            const Eigen::Index n = self.size();
            return self.position_limit().configure(
                matrix_in(position, "Actuator.set_position_limit", "position", -1, n),
                matrix_in(limit, "Actuator.set_position_limit", "limit", -1, n));
          },
          py::arg("position"), py::arg("limit"),
          "|effort| <= L(q), L piecewise linear through (position[i], limit[i]) per joint (rows:\n"
          "up to 8 points, strictly increasing; columns: joints); end values outside. Status.")
      .def(
          "update",
          [](Actuator& self, py::handle target, py::handle q, py::handle v, py::handle out,
             py::handle target_velocity, py::handle feedforward) {
            const Eigen::Index n = self.size();
            const char* w = "Actuator.update";
            auto t = vector_in(target, w, "target", n);
            auto qm = vector_in(q, w, "q", n);
            auto vm = vector_in(v, w, "v", n);
            auto o = vector_out(out, w, "out", n);
            if (target_velocity.is_none() && feedforward.is_none())
              return self.update(t, qm, vm, o);
            const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
            return self.update(t, vector_or(target_velocity, zero, w, "target_velocity", n),
                               vector_or(feedforward, zero, w, "feedforward", n), qm, vm, o);
          },
          py::arg("target"), py::arg("q"), py::arg("v"), py::arg("out"), py::kw_only(),
          py::arg("target_velocity") = py::none(), py::arg("feedforward") = py::none(),
          "One control period: out [effort] from the target q* [pos] of `delay` steps ago (and "
          "v*,\n"
          "ff when given: the full form delays them too), q [pos], v [pos/s]. Use one form per\n"
          "actuator. Returns Status (NonFiniteInput: nothing touched).")
      .def(
          "reset",
          [](Actuator& self, py::handle held_target) {
            if (held_target.is_none()) {
              self.reset();
              return claw::Status::Ok;
            }
            return self.reset(vector_in(held_target, "Actuator.reset", "held_target", self.size()));
          },
          py::arg("held_target") = py::none(),
          "Restarts the drive and empties the delay lines (the q* line holding held_target when\n"
          "given). Returns Status.")
      .def(
          "reset_joints",
          [](Actuator& self, py::handle selected) {
            return self.reset_joints(mask_in(selected, "Actuator.reset_joints", self.size()));
          },
          py::arg("selected"), "Restarts the selected joints only; returns Status.");
  bind_snapshot(cls);
}

}  // namespace claw_python
