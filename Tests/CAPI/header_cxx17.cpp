// Compile-only: fief.h is valid, warning-free C++17 with C linkage.
#include "fief.h"

#include <cstddef>
#include <type_traits>

static_assert(FIEF_VERSION_NUMBER == FIEF_VERSION_MAJOR * 10000 + FIEF_VERSION_MINOR * 100 + FIEF_VERSION_PATCH, "version");
static_assert(std::is_standard_layout<fief_value_t>::value, "fief_value_t is standard layout");
static_assert(std::is_trivially_copyable<fief_value_t>::value, "fief_value_t is trivially copyable");
static_assert(sizeof(fief_object_id_t) == 12 && sizeof(fief_uuid_t) == 16, "id sizes");
static_assert(std::is_same<decltype(&fief_release), bool (*)(const void *)>::value, "fief_release");

extern "C" int fief_cxx_use_header();
int fief_cxx_use_header() {
    fief_value_t v{};
    v.type = FIEF_TYPE_STRING;
    v.u.string = fief_string_t{"abc", 3};
    fief_error_t e{};
    bool (*f)(const fief_realm_t *, uint64_t *) = fief_realm_get_version;
    (void)f;
    return static_cast<int>(v.u.string.size) + static_cast<int>(e.code);
}
