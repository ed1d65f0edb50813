// The Gatehouse C++ helper as a C++ module: `import gatehouse;`. The library headers go into the global module
// fragment; the helper's own headers are then read again inside the module purview with GATEHOUSE_EXPORT set to
// `export`, so the public API is exported and gatehouse::detail stays module-internal.
module;
#define GATEHOUSE_EXPORT export
#include "gatehouse/dependencies.hpp"
export module gatehouse;
#include "gatehouse/gatehouse.hpp"
