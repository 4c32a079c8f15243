#include "common.hpp"
namespace claw_python {
void bind_laws(py::module_&) {}
}  // namespace claw_python
