// What the gatehouse helper is built on: the standard library, OpenSSL 3 (CSPRNG, SHA-256, RSA) and nlohmann::json
// (Debian's nlohmann-json3-dev). The module includes this file in its global module fragment; the header fallback
// includes it from each header. The include guard makes the second inclusion inside the module purview a no-op.
#ifndef GATEHOUSE_DEPENDENCIES_HPP
#define GATEHOUSE_DEPENDENCIES_HPP

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// `export` when compiled as the module interface (src/gatehouse.cppm), nothing for the header fallback.
#ifndef GATEHOUSE_EXPORT
#define GATEHOUSE_EXPORT
#endif

#endif
