/* fief_ffi_demo.c - use libfief.so the way a dynamic-language binding does:
 * dlopen() the library, look functions up with dlsym(), and call them only
 * through libffi (ffi_prep_cif + ffi_call), including the by-value
 * fief_value_t argument of fief_object_find_by_primary_key and fief_object_set_value.
 *
 *   fief_ffi_demo /path/to/libfief.so /tmp/demo.fief
 *
 * fief.h is included for its types and constants only; no fief_* symbol is
 * linked. */
#include "fief.h"

#include <dlfcn.h>
#include <ffi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *lib;
static int failures;

#define FAIL(...)                                                                  \
    do {                                                                           \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
        fprintf(stderr, __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                       \
        failures++;                                                                \
    } while (0)

/* ---- the libffi description of fief_value_t ---------------------------------
 * struct fief_value { int32_t type; union { ... } u; }: the int32 tag, 4
 * bytes of padding, then a 16-byte union with 8-byte alignment: 24 bytes,
 * 8-aligned.  libffi has no unions; the union is described as a struct of
 * two uint64 (same size, same alignment, and -- at 24 bytes the whole value
 * is passed in memory on x86-64 and by reference on AArch64 -- the same
 * passing).  Both ffi_types are built once, in static storage, with
 * NULL-terminated static element arrays; main() checks the layout libffi
 * computes against the compiler's (sizeof, _Alignof, offsetof). */
static ffi_type *union_elements[3] = {&ffi_type_uint64, &ffi_type_uint64, NULL};
static ffi_type union_type = {0, 0, FFI_TYPE_STRUCT, union_elements};
static ffi_type *value_elements[3] = {&ffi_type_sint32, &union_type, NULL};
static ffi_type value_type = {0, 0, FFI_TYPE_STRUCT, value_elements};
#define T_VALUE (&value_type)

static ffi_type *size_type(void) { return sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32; }

/* C bool is an unsigned char in the ABI: described as uint8.  libffi widens
 * integer results narrower than a register to a full ffi_arg, so every
 * integer or pointer result is read from an ffi_arg. */
#define T_BOOL (&ffi_type_uint8)
#define T_PTR (&ffi_type_pointer)
#define T_U32 (&ffi_type_uint32)
#define T_I32 (&ffi_type_sint32)
#define T_I64 (&ffi_type_sint64)
#define T_U64 (&ffi_type_uint64)

/* Call `name` with `nargs` arguments of `types` (pointers to the values in
 * `args`); the result goes to `ret` (an ffi_arg for integer and pointer
 * results).  Each function's cif is prepared once and cached (in static
 * storage: a cif keeps pointing at its argument type array).
 *
 * ffi_call gets a private copy of `args`: libffi 3.4.x on x86-64 makes a
 * copy of every struct argument larger than 16 bytes (fief_value_t is 24)
 * in ffi_call's own stack frame and writes the copy's address INTO the
 * caller's avalue array.  After the call that slot points at a dead stack
 * frame, so reusing the same args array for a second call passed garbage
 * (seen with gdb: avalue[2] no longer pointed at the key variable, and the
 * engine refused "unknown value type 160").  Later libffi versions copy the
 * array themselves; copying it here works with every version. */
typedef struct cached_fn {
    const char *name;
    void *fn;
    ffi_cif cif;
    ffi_type *types[8];
} cached_fn;
static cached_fn cache[64];
static size_t cache_len;

#define MAX_ARGS 8

static void call(const char *name, ffi_type *rtype, void *ret, unsigned nargs, ffi_type **types, void **args) {
    cached_fn *c = NULL;
    if (nargs > MAX_ARGS) exit(1);
    for (size_t i = 0; i < cache_len; i++)
        if (strcmp(cache[i].name, name) == 0) c = &cache[i];
    if (!c) {
        if (cache_len == sizeof cache / sizeof cache[0]) exit(1);
        c = &cache[cache_len++];
        c->name = name;
        c->fn = dlsym(lib, name);
        if (!c->fn) {
            FAIL("dlsym(%s): %s", name, dlerror());
            exit(1);
        }
        for (unsigned i = 0; i < nargs; i++) c->types[i] = types[i];
        ffi_status st = ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, nargs, rtype, c->types);
        if (st != FFI_OK) {
            FAIL("ffi_prep_cif(%s) = %d", name, (int)st);
            exit(1);
        }
    } else {
        /* The same function must be called with the same signature. */
        bool same = c->cif.nargs == nargs && c->cif.rtype == rtype;
        for (unsigned i = 0; same && i < nargs; i++) same = c->types[i] == types[i];
        if (!same) {
            FAIL("%s called with another signature", name);
            exit(1);
        }
    }
    void *avalue[MAX_ARGS] = {NULL};
    for (unsigned i = 0; i < nargs; i++) avalue[i] = args[i];
    ffi_call(&c->cif, FFI_FN(c->fn), ret, nargs ? avalue : NULL);
}

/* Convenience wrappers for the result kinds. */
static bool call_bool(const char *name, unsigned nargs, ffi_type **types, void **args) {
    ffi_arg r = 0;
    call(name, T_BOOL, &r, nargs, types, args);
    return (uint8_t)r != 0;
}
static void *call_ptr(const char *name, unsigned nargs, ffi_type **types, void **args) {
    void *r = NULL;
    ffi_arg raw = 0;
    call(name, T_PTR, &raw, nargs, types, args);
    memcpy(&r, &raw, sizeof r);
    return r;
}

static void report_error(const char *what) {
    fief_error_t e;
    memset(&e, 0, sizeof e);
    fief_error_t *pe = &e;
    ffi_type *t[1] = {T_PTR};
    void *a[1] = {&pe};
    if (call_bool("fief_get_last_error", 1, t, a))
        FAIL("%s: error %d: %s", what, (int)e.code, e.message ? e.message : "");
    else
        FAIL("%s failed (no error set)", what);
}

static void release(void *handle) {
    ffi_type *t[1] = {T_PTR};
    void *a[1] = {&handle};
    if (!call_bool("fief_release", 1, t, a)) report_error("fief_release");
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s libfief.so realm-path\n", argv[0]);
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        FAIL("dlopen: %s", dlerror());
        return 1;
    }

    /* Check the struct description against the compiler's layout. */
    {
        size_t offsets[2] = {0, 0};
        if (ffi_get_struct_offsets(FFI_DEFAULT_ABI, &value_type, offsets) != FFI_OK) FAIL("lay out fief_value_t");
        if (value_type.size != sizeof(fief_value_t) || value_type.alignment != _Alignof(fief_value_t))
            FAIL("fief_value_t: ffi size %zu align %u, C size %zu align %zu", value_type.size,
                 (unsigned)value_type.alignment, sizeof(fief_value_t), (size_t)_Alignof(fief_value_t));
        if (offsets[0] != offsetof(fief_value_t, type) || offsets[1] != offsetof(fief_value_t, u))
            FAIL("fief_value_t: ffi offsets %zu %zu, C %zu %zu", offsets[0], offsets[1],
                 offsetof(fief_value_t, type), offsetof(fief_value_t, u));
        if (union_type.size != sizeof(((fief_value_t *)0)->u) ||
            union_type.alignment != _Alignof(fief_decimal128_t))
            FAIL("fief_value_t.u: ffi size %zu align %u", union_type.size, (unsigned)union_type.alignment);
    }

    /* fief_version_string(void) -> const char * */
    const char *version = call_ptr("fief_version_string", 0, NULL, NULL);
    ffi_arg vn = 0;
    call("fief_version_number", T_I32, &vn, 0, NULL, NULL);
    printf("library %s (%d)\n", version ? version : "?", (int)(int32_t)vn);
    if ((int32_t)vn != FIEF_VERSION_NUMBER) FAIL("version number %d", (int)(int32_t)vn);

    /* Schema: Note { id: int (primary key), text: string, score: double } */
    fief_property_info_t props[3];
    memset(props, 0, sizeof props);
    props[0].name = "id";
    props[0].type = FIEF_TYPE_INT;
    props[0].flags = FIEF_PROPERTY_PRIMARY_KEY;
    props[1].name = "text";
    props[1].type = FIEF_TYPE_STRING;
    props[2].name = "score";
    props[2].type = FIEF_TYPE_DOUBLE;
    fief_class_info_t cls;
    memset(&cls, 0, sizeof cls);
    cls.name = "Note";
    cls.num_properties = 3;
    const fief_property_info_t *class_props[1] = {props};
    const fief_class_info_t *pcls = &cls;
    size_t ncls = 1;
    const fief_property_info_t *const *pprops = class_props;
    ffi_type *t_schema_new[3] = {T_PTR, size_type(), T_PTR};
    void *a_schema_new[3] = {&pcls, &ncls, &pprops};
    void *schema = call_ptr("fief_schema_new", 3, t_schema_new, a_schema_new);
    if (!schema) {
        report_error("fief_schema_new");
        return 1;
    }

    /* Config and open. */
    const char *path = argv[2];
    {
        bool deleted = false;
        bool *pdel = &deleted;
        ffi_type *t[2] = {T_PTR, T_PTR};
        void *a[2] = {&path, &pdel};
        if (!call_bool("fief_file_delete", 2, t, a)) report_error("fief_file_delete");
    }
    void *config = call_ptr("fief_config_new", 0, NULL, NULL);
    ffi_type *t_pp[2] = {T_PTR, T_PTR};
    void *a_path[2] = {&config, &path};
    if (!call_bool("fief_config_set_path", 2, t_pp, a_path)) report_error("set_path");
    void *a_schema[2] = {&config, &schema};
    if (!call_bool("fief_config_set_schema", 2, t_pp, a_schema)) report_error("set_schema");
    uint64_t schema_version = 1;
    ffi_type *t_pu64[2] = {T_PTR, T_U64};
    void *a_ver[2] = {&config, &schema_version};
    if (!call_bool("fief_config_set_schema_version", 2, t_pu64, a_ver)) report_error("set_schema_version");
    ffi_type *t_p[1] = {T_PTR};
    void *a_cfg[1] = {&config};
    void *realm = call_ptr("fief_realm_open", 1, t_p, a_cfg);
    if (!realm) {
        report_error("fief_realm_open");
        return 1;
    }

    /* Keys: fief_realm_get_schema + fief_schema_find_class / _find_property. */
    void *a_realm[1] = {&realm};
    void *rschema = call_ptr("fief_realm_get_schema", 1, t_p, a_realm);
    if (!rschema) report_error("fief_realm_get_schema");
    fief_class_info_t ci;
    memset(&ci, 0, sizeof ci);
    size_t class_index = 0;
    bool found = false;
    {
        const char *name = "Note";
        fief_class_info_t *pci = &ci;
        size_t *pidx = &class_index;
        bool *pfound = &found;
        ffi_type *t[5] = {T_PTR, T_PTR, T_PTR, T_PTR, T_PTR};
        void *a[5] = {&rschema, &name, &pci, &pidx, &pfound};
        if (!call_bool("fief_schema_find_class", 5, t, a) || !found) report_error("find_class");
    }
    fief_property_key_t pkeys[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        fief_property_info_t pi;
        memset(&pi, 0, sizeof pi);
        const char *name = props[i].name;
        fief_property_info_t *ppi = &pi;
        bool *pfound = &found;
        ffi_type *t[5] = {T_PTR, size_type(), T_PTR, T_PTR, T_PTR};
        void *a[5] = {&rschema, &class_index, &name, &ppi, &pfound};
        if (!call_bool("fief_schema_find_property", 5, t, a) || !found) report_error("find_property");
        pkeys[i] = pi.key;
    }
    release(rschema);

    /* Write: create Note{id: 7, text: "from libffi", score: 0.5}. */
    if (!call_bool("fief_realm_begin_write", 1, t_p, a_realm)) report_error("begin_write");
    fief_value_t values[3];
    memset(values, 0, sizeof values);
    values[0].type = FIEF_TYPE_INT;
    values[0].u.integer = 7;
    values[1].type = FIEF_TYPE_STRING;
    values[1].u.string.data = "from libffi";
    values[1].u.string.size = strlen("from libffi");
    values[2].type = FIEF_TYPE_DOUBLE;
    values[2].u.double_value = 0.5;
    fief_class_key_t class_key = ci.key;
    const fief_property_key_t *pk = pkeys;
    const fief_value_t *pv = values;
    size_t nvalues = 3;
    fief_update_policy_t policy = FIEF_UPDATE_POLICY_ERROR;
    ffi_type *t_create[6] = {T_PTR, T_U32, T_PTR, T_PTR, size_type(), T_I32};
    void *a_create[6] = {&realm, &class_key, &pk, &pv, &nvalues, &policy};
    void *obj = call_ptr("fief_object_create", 6, t_create, a_create);
    if (!obj) report_error("fief_object_create");
    /* A by-value fief_value_t: set_value(score = 2.75). */
    fief_value_t score;
    memset(&score, 0, sizeof score);
    score.type = FIEF_TYPE_DOUBLE;
    score.u.double_value = 2.75;
    fief_property_key_t score_key = pkeys[2];
    ffi_type *t_set[3] = {T_PTR, T_U32, T_VALUE};
    void *a_set[3] = {&obj, &score_key, &score};
    if (!call_bool("fief_object_set_value", 3, t_set, a_set)) report_error("fief_object_set_value");
    /* A by-value string: text = "set through ffi". */
    fief_value_t text;
    memset(&text, 0, sizeof text);
    text.type = FIEF_TYPE_STRING;
    text.u.string.data = "set through ffi";
    text.u.string.size = strlen("set through ffi");
    fief_property_key_t text_key = pkeys[1];
    void *a_set2[3] = {&obj, &text_key, &text};
    if (!call_bool("fief_object_set_value", 3, t_set, a_set2)) report_error("fief_object_set_value(text)");
    if (!call_bool("fief_realm_commit", 1, t_p, a_realm)) report_error("commit");
    if (obj) release(obj);

    /* Read: fief_object_find_by_primary_key(realm, class, fief_value_t by value, bool *). */
    fief_value_t key;
    memset(&key, 0, sizeof key);
    key.type = FIEF_TYPE_INT;
    key.u.integer = 7;
    bool failed = true;
    bool *pfailed = &failed;
    ffi_type *t_find[4] = {T_PTR, T_U32, T_VALUE, T_PTR};
    void *a_find[4] = {&realm, &class_key, &key, &pfailed};
    void *found_obj = call_ptr("fief_object_find_by_primary_key", 4, t_find, a_find);
    if (!found_obj) {
        report_error("fief_object_find_by_primary_key(7)");
    } else {
        fief_value_t out[3];
        memset(out, 0, sizeof out);
        fief_value_t *pout = out;
        ffi_type *t_get[4] = {T_PTR, T_PTR, size_type(), T_PTR};
        void *a_get[4] = {&found_obj, &pk, &nvalues, &pout};
        if (!call_bool("fief_object_get_values", 4, t_get, a_get)) report_error("get_values");
        printf("found Note %lld: text=\"%.*s\" score=%g\n", (long long)out[0].u.integer,
               (int)out[1].u.string.size, out[1].u.string.data ? out[1].u.string.data : "",
               out[2].u.double_value);
        if (out[0].type != FIEF_TYPE_INT || out[0].u.integer != 7) FAIL("id read back");
        if (out[1].type != FIEF_TYPE_STRING || out[1].u.string.size != 15 ||
            memcmp(out[1].u.string.data, "set through ffi", 15) != 0)
            FAIL("text read back");
        if (out[2].type != FIEF_TYPE_DOUBLE || out[2].u.double_value != 2.75) FAIL("score read back");
        /* one property by out-pointer */
        fief_value_t one;
        fief_value_t *pone = &one;
        ffi_type *t_get1[3] = {T_PTR, T_U32, T_PTR};
        void *a_get1[3] = {&found_obj, &score_key, &pone};
        if (!call_bool("fief_object_get_value", 3, t_get1, a_get1) || one.u.double_value != 2.75)
            FAIL("get_value(score)");
        release(found_obj);
    }
    /* A key that does not exist: NULL with *out_found == false (no error).
     * The same args array (a_find) is used again on purpose: call() must not
     * let libffi leave it pointing at a dead copy (see call()). */
    memset(&key, 0, sizeof key);
    key.type = FIEF_TYPE_INT;
    key.u.integer = 8;
    failed = true;
    void *missing = call_ptr("fief_object_find_by_primary_key", 4, t_find, a_find);
    if (failed) report_error("fief_object_find_by_primary_key(8)");
    if (missing || failed) FAIL("find(8) should find nothing without an error (handle %p, out_found %d)", missing, (int)failed);
    /* A wrongly typed key: NULL with *out_found == true and TYPE_MISMATCH. */
    fief_value_t bad = text;
    void *a_find_bad[4] = {&realm, &class_key, &bad, &pfailed};
    failed = false;
    void *none = call_ptr("fief_object_find_by_primary_key", 4, t_find, a_find_bad);
    {
        fief_error_t e;
        memset(&e, 0, sizeof e);
        fief_error_t *pe = &e;
        ffi_type *t[1] = {T_PTR};
        void *a[1] = {&pe};
        bool has = call_bool("fief_get_last_error", 1, t, a);
        if (none || !failed || !has || e.code != FIEF_ERR_TYPE_MISMATCH)
            FAIL("find with a string key: expected TYPE_MISMATCH, got %d", (int)e.code);
        else
            printf("find with a string key: error %d as documented\n", (int)e.code);
    }

    release(realm);
    release(config);
    release(schema);
    {
        bool deleted = false;
        bool *pdel = &deleted;
        ffi_type *t[2] = {T_PTR, T_PTR};
        void *a[2] = {&path, &pdel};
        if (!call_bool("fief_file_delete", 2, t, a) || !deleted) report_error("fief_file_delete");
    }
    if (failures) {
        printf("ffi round trip FAILED (%d failures)\n", failures);
        return 1;
    }
    printf("ffi round trip OK\n");
    return 0;
}
