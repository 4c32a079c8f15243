#include "common.hpp"
namespace claw_python {
void bind_solvers(py::module_&) {}
}  // namespace claw_python
