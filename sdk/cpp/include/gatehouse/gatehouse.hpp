// The Gatehouse C++ helper as a header, for compilers without C++ modules; with module support,
// `import gatehouse;` (src/gatehouse.cppm) gives the same API. See sdk/cpp/README.md.
#ifndef GATEHOUSE_HPP
#define GATEHOUSE_HPP
#include "dependencies.hpp"
#include "errors.hpp"
#include "encoding.hpp"
#include "requests.hpp"
#include "id_token.hpp"
#endif
