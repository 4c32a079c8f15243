// python/src/module.cpp: the extension module claw._claw; each concept is bound in its own file.
#include <claw/core/config.hpp>

#include "arrays.hpp"
#include "common.hpp"

PYBIND11_MODULE(_claw, m) {
  m.doc() =
      "claw: robot joint control laws (PD/PID, zero-order-hold integration, gym_jiminy's PD\n"
      "blocks, stable PD, velocity servo, QP/LCQP solvers, FLIQC filter) on numpy float64 arrays,\n"
      "computed in place by the C++ library. Units: positions [rad or m], efforts [N m or N],\n"
      "times [s]. A claw.Status is returned for every refusal; exceptions mean misuse.";
  if (!claw_python::import_numpy_api()) throw pybind11::error_already_set();
  m.attr("__version__") = CLAW_VERSION_STRING;
  claw_python::bind_status(m);
  claw_python::bind_jiminy(m);
  claw_python::bind_blocks(m);
  claw_python::bind_laws(m);
  claw_python::bind_actuator(m);
  claw_python::bind_solvers(m);
}
