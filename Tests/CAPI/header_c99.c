/* Compile-only: fief.h is valid, warning-free C99. */
#include "fief.h"

#include <stddef.h>

/* The header's constants and types are usable in constant expressions. */
typedef char fief_version_number_is_consistent[(FIEF_VERSION_NUMBER == FIEF_VERSION_MAJOR * 10000 + FIEF_VERSION_MINOR * 100 + FIEF_VERSION_PATCH) ? 1 : -1];
typedef char fief_value_has_type[(offsetof(fief_value_t, type) == 0) ? 1 : -1];
typedef char fief_object_id_is_12[(sizeof(fief_object_id_t) == 12) ? 1 : -1];
typedef char fief_uuid_is_16[(sizeof(fief_uuid_t) == 16) ? 1 : -1];
typedef char fief_decimal_is_16[(sizeof(fief_decimal128_t) == 16) ? 1 : -1];

int use_header(void);
int use_header(void) {
    fief_value_t v;
    fief_error_t e;
    fief_query_arg_t arg;
    fief_sort_descriptor_t sort;
    bool (*f)(const fief_realm_t *, uint64_t *) = fief_realm_get_version;
    fief_object_t *(*g)(fief_realm_t *, fief_class_key_t, fief_value_t, bool *) = fief_object_find_by_primary_key;
    v.type = FIEF_TYPE_INT;
    v.u.integer = 1;
    arg.count = 1;
    arg.is_list = false;
    arg.values = &v;
    sort.key_path = "x";
    sort.ascending = true;
    e.code = FIEF_ERR_INVALID_HANDLE;
    e.categories = FIEF_ERR_CAT_LOGIC;
    (void)f;
    (void)g;
    (void)sort;
    return (int)(arg.count + (size_t)e.code) + (int)v.u.integer;
}
