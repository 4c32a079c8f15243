#include "common.hpp"
namespace claw_python {
void bind_blocks(py::module_&) {}
}  // namespace claw_python
