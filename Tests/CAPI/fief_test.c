/* fief_test.c - the harness behind fief_test.h. */
#include "fief_test.h"

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <unistd.h>

int t_failures;
jmp_buf t_abort_jmp;
const char *t_current_test = "?";

static char t_dir_buf[4096];
#define T_MAX_PATHS 256
static char *t_paths[T_MAX_PATHS];
static size_t t_num_paths;

/* ---- checks ------------------------------------------------------------------ */

void t_fail(const char *file, int line, const char *expr, const char *detail) {
    fief_error_t err;
    memset(&err, 0, sizeof err);
    bool has = fief_get_last_error(&err);
    fprintf(stderr, "%s:%d: FAILED: %s%s%s\n", file, line, expr, detail ? " " : "",
            detail ? detail : "");
    if (has)
        fprintf(stderr, "    last error: %d %s (categories 0x%x): %s%s%s\n", (int)err.code,
                t_code_name(err.code), (unsigned)err.categories,
                err.message ? err.message : "(no message)", err.path ? " path=" : "",
                err.path ? err.path : "");
    else
        fprintf(stderr, "    last error: none\n");
    fflush(stderr);
    t_failures++;
}

uint32_t t_category_of(fief_error_code_t code) {
    switch (code / 1000) {
    case 1: return FIEF_ERR_CAT_LOGIC;
    case 2: return FIEF_ERR_CAT_INVALID_ARG;
    case 3: return FIEF_ERR_CAT_SCHEMA;
    case 4: return FIEF_ERR_CAT_QUERY;
    case 5: return FIEF_ERR_CAT_FILE;
    case 6: return FIEF_ERR_CAT_RUNTIME;
    default: return 0;
    }
}

const char *t_code_name(fief_error_code_t code) {
    switch (code) {
#define C(x) case x: return #x;
    C(FIEF_OK)
    C(FIEF_ERR_INVALID_HANDLE) C(FIEF_ERR_WRONG_HANDLE_TYPE) C(FIEF_ERR_NOT_IN_TRANSACTION)
    C(FIEF_ERR_ALREADY_IN_TRANSACTION) C(FIEF_ERR_WRONG_THREAD) C(FIEF_ERR_FROZEN)
    C(FIEF_ERR_READ_ONLY) C(FIEF_ERR_CLOSED) C(FIEF_ERR_INVALIDATED_OBJECT)
    C(FIEF_ERR_INVALIDATED_RESULTS) C(FIEF_ERR_TOO_MANY_VERSIONS) C(FIEF_ERR_INVALID_ARGUMENT) C(FIEF_ERR_NO_SUCH_CLASS)
    C(FIEF_ERR_NO_SUCH_PROPERTY) C(FIEF_ERR_NO_SUCH_OBJECT) C(FIEF_ERR_TYPE_MISMATCH)
    C(FIEF_ERR_NULL_NOT_ALLOWED) C(FIEF_ERR_INVALID_UTF8) C(FIEF_ERR_DUPLICATE_PRIMARY_KEY)
    C(FIEF_ERR_MISSING_PRIMARY_KEY) C(FIEF_ERR_PRIMARY_KEY_CHANGE)
    C(FIEF_ERR_INDEX_OUT_OF_BOUNDS) C(FIEF_ERR_INVALID_SCHEMA) C(FIEF_ERR_SCHEMA_MISMATCH)
    C(FIEF_ERR_SCHEMA_VERSION) C(FIEF_ERR_QUERY_SYNTAX) C(FIEF_ERR_QUERY_INVALID)
    C(FIEF_ERR_QUERY_ARGUMENT) C(FIEF_ERR_FILE_NOT_FOUND) C(FIEF_ERR_FILE_PERMISSION)
    C(FIEF_ERR_FILE_NOT_FIEF) C(FIEF_ERR_FILE_FORMAT) C(FIEF_ERR_FILE_LOCKED)
    C(FIEF_ERR_FILE_IO) C(FIEF_ERR_FILE_FULL) C(FIEF_ERR_OUT_OF_MEMORY) C(FIEF_ERR_INTERNAL)
#undef C
    default: return "?";
    }
}

void t_check_error(const char *file, int line, const char *expr, bool succeeded,
                   fief_error_code_t expected) {
    char detail[256];
    fief_error_t err;
    memset(&err, 0, sizeof err);
    if (succeeded) {
        snprintf(detail, sizeof detail, "(succeeded, but should fail with %s)",
                 t_code_name(expected));
        t_fail(file, line, expr, detail);
        return;
    }
    if (!fief_get_last_error(&err)) {
        snprintf(detail, sizeof detail, "(failed as expected, but no error was set; expected %s)",
                 t_code_name(expected));
        t_fail(file, line, expr, detail);
        return;
    }
    if (err.code != expected) {
        snprintf(detail, sizeof detail, "(failed with %d %s, expected %d %s)", (int)err.code,
                 t_code_name(err.code), (int)expected, t_code_name(expected));
        t_fail(file, line, expr, detail);
        return;
    }
    if (!(err.categories & t_category_of(expected))) {
        snprintf(detail, sizeof detail, "(code %s has categories 0x%x, missing 0x%x)",
                 t_code_name(expected), (unsigned)err.categories,
                 (unsigned)t_category_of(expected));
        t_fail(file, line, expr, detail);
        return;
    }
    if (err.message == NULL) t_fail(file, line, expr, "(error without a message)");
}

void t_eq_int(const char *file, int line, const char *expr, int64_t a, int64_t b) {
    if (a != b) {
        char d[128];
        snprintf(d, sizeof d, "(%" PRId64 " != %" PRId64 ")", a, b);
        t_fail(file, line, expr, d);
    }
}

void t_eq_uint(const char *file, int line, const char *expr, uint64_t a, uint64_t b) {
    if (a != b) {
        char d[128];
        snprintf(d, sizeof d, "(%" PRIu64 " != %" PRIu64 ")", a, b);
        t_fail(file, line, expr, d);
    }
}

void t_eq_double(const char *file, int line, const char *expr, double a, double b) {
    if (!(a == b || (isnan(a) && isnan(b)))) {
        char d[128];
        snprintf(d, sizeof d, "(%.17g != %.17g)", a, b);
        t_fail(file, line, expr, d);
    }
}

void t_eq_str(const char *file, int line, const char *expr, fief_string_t a, const char *b) {
    size_t n = strlen(b);
    if (a.size != n || (n && (a.data == NULL || memcmp(a.data, b, n) != 0))) {
        char d[512];
        snprintf(d, sizeof d, "(\"%.*s\" (%zu bytes) != \"%s\")", (int)(a.size > 200 ? 200 : a.size),
                 a.data ? a.data : "", a.size, b);
        t_fail(file, line, expr, d);
    }
}

void t_eq_value(const char *file, int line, const char *expr, fief_value_t a, fief_value_t b) {
    if (!t_value_eq(a, b)) {
        char ba[160], bb[160], d[400];
        snprintf(d, sizeof d, "(%s != %s)", t_value_str(a, ba, sizeof ba),
                 t_value_str(b, bb, sizeof bb));
        t_fail(file, line, expr, d);
    }
}

/* ---- scratch files ------------------------------------------------------------- */

const char *t_dir(void) {
    if (t_dir_buf[0]) return t_dir_buf;
    const char *base = getenv("FIEF_TEST_TMPDIR");
    if (!base || !*base) base = "/tmp";
    mkdir(base, 0755);
    snprintf(t_dir_buf, sizeof t_dir_buf, "%s/fief-%s-XXXXXX", base, t_current_test);
    if (!mkdtemp(t_dir_buf)) {
        perror("mkdtemp");
        abort();
    }
    return t_dir_buf;
}

const char *t_path(const char *name) {
    size_t n = strlen(t_dir()) + strlen(name) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", t_dir(), name);
    if (t_num_paths < T_MAX_PATHS) t_paths[t_num_paths++] = p;
    return p;
}

static int t_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (flag == FTW_DP || flag == FTW_D) rmdir(path);
    else unlink(path);
    return 0;
}

void t_rm_rf(const char *path) { nftw(path, t_rm_one, 16, FTW_DEPTH | FTW_PHYS); }

static void t_cleanup(void) {
    if (t_dir_buf[0] && !getenv("FIEF_TEST_KEEP")) t_rm_rf(t_dir_buf);
    t_dir_buf[0] = 0;
    for (size_t i = 0; i < t_num_paths; i++) free(t_paths[i]);
    t_num_paths = 0;
}

bool t_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

bool t_file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

double t_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- runner -------------------------------------------------------------------- */

static int t_run_one(const t_case *c) {
    t_current_test = c->name;
    t_failures = 0;
    fief_clear_last_error();
    if (setjmp(t_abort_jmp) == 0) c->fn();
    t_cleanup();
    printf("%s %s%s\n", t_failures ? "FAIL" : "PASS", c->name,
           t_failures ? " (see failures above)" : "");
    fflush(stdout);
    return t_failures ? 1 : 0;
}

int t_main(int argc, char **argv, const t_case *cases, size_t num_cases) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1) {
        int rc = 0;
        for (int a = 1; a < argc; a++) {
            const t_case *found = NULL;
            for (size_t i = 0; i < num_cases; i++)
                if (strcmp(cases[i].name, argv[a]) == 0) found = &cases[i];
            if (!found) {
                fprintf(stderr, "unknown test: %s\n", argv[a]);
                return 2;
            }
            rc |= t_run_one(found);
        }
        return rc;
    }
    /* All tests, each in its own process. */
    int failed = 0;
    for (size_t i = 0; i < num_cases; i++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) _exit(t_run_one(&cases[i]));
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            failed++;
            if (WIFSIGNALED(status))
                printf("FAIL %s (killed by signal %d)\n", cases[i].name, WTERMSIG(status));
        }
    }
    printf("%zu tests, %d failed\n", num_cases, failed);
    return failed ? 1 : 0;
}

/* ---- values -------------------------------------------------------------------- */

fief_value_t vnull(void) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_NULL;
    return v;
}
fief_value_t vi(int64_t x) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_INT;
    v.u.integer = x;
    return v;
}
fief_value_t vb(bool x) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_BOOL;
    v.u.boolean = x;
    return v;
}
fief_value_t vsn(const char *data, size_t size) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_STRING;
    v.u.string.data = data;
    v.u.string.size = size;
    return v;
}
fief_value_t vs(const char *z) { return vsn(z, strlen(z)); }
fief_value_t vbin(const void *data, size_t size) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_BINARY;
    v.u.binary.data = data;
    v.u.binary.size = size;
    return v;
}
fief_value_t vts(int64_t seconds, int32_t nanoseconds) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_TIMESTAMP;
    v.u.timestamp.seconds = seconds;
    v.u.timestamp.nanoseconds = nanoseconds;
    return v;
}
fief_value_t vf(float x) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_FLOAT;
    v.u.float_value = x;
    return v;
}
fief_value_t vd(double x) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_DOUBLE;
    v.u.double_value = x;
    return v;
}
fief_value_t vdec(uint64_t low, uint64_t high) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_DECIMAL128;
    v.u.decimal128.w[0] = low;
    v.u.decimal128.w[1] = high;
    return v;
}
static void t_hex(const char *hex, uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned b = 0;
        sscanf(hex + 2 * i, "%2x", &b);
        out[i] = (uint8_t)b;
    }
}
fief_value_t void12(const char *hex24) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_OBJECT_ID;
    t_hex(hex24, v.u.object_id.bytes, 12);
    return v;
}
fief_value_t vuuid(const char *hex32) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_UUID;
    t_hex(hex32, v.u.uuid.bytes, 16);
    return v;
}
fief_value_t vlink(fief_class_key_t cls, fief_object_key_t key) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_LINK;
    v.u.link.class_key = cls;
    v.u.link.object_key = key;
    return v;
}
fief_value_t vtype(fief_type_t type) {
    fief_value_t v = vnull();
    v.type = type;
    return v;
}
fief_string_t t_str(const char *z) {
    fief_string_t s;
    s.data = z;
    s.size = strlen(z);
    return s;
}

bool t_value_eq(fief_value_t a, fief_value_t b) {
    if (a.type != b.type) return false;
    switch (a.type) {
    case FIEF_TYPE_NULL: return true;
    case FIEF_TYPE_INT: return a.u.integer == b.u.integer;
    case FIEF_TYPE_BOOL: return a.u.boolean == b.u.boolean;
    case FIEF_TYPE_STRING:
        return a.u.string.size == b.u.string.size &&
               (a.u.string.size == 0 || memcmp(a.u.string.data, b.u.string.data, a.u.string.size) == 0);
    case FIEF_TYPE_BINARY:
        return a.u.binary.size == b.u.binary.size &&
               (a.u.binary.size == 0 || memcmp(a.u.binary.data, b.u.binary.data, a.u.binary.size) == 0);
    case FIEF_TYPE_TIMESTAMP:
        return a.u.timestamp.seconds == b.u.timestamp.seconds &&
               a.u.timestamp.nanoseconds == b.u.timestamp.nanoseconds;
    case FIEF_TYPE_FLOAT:
        return memcmp(&a.u.float_value, &b.u.float_value, sizeof(float)) == 0 ||
               a.u.float_value == b.u.float_value;
    case FIEF_TYPE_DOUBLE:
        return memcmp(&a.u.double_value, &b.u.double_value, sizeof(double)) == 0 ||
               a.u.double_value == b.u.double_value;
    case FIEF_TYPE_DECIMAL128:
        return a.u.decimal128.w[0] == b.u.decimal128.w[0] && a.u.decimal128.w[1] == b.u.decimal128.w[1];
    case FIEF_TYPE_OBJECT_ID: return memcmp(a.u.object_id.bytes, b.u.object_id.bytes, 12) == 0;
    case FIEF_TYPE_UUID: return memcmp(a.u.uuid.bytes, b.u.uuid.bytes, 16) == 0;
    case FIEF_TYPE_LINK:
        return a.u.link.class_key == b.u.link.class_key && a.u.link.object_key == b.u.link.object_key;
    default: return false;
    }
}

const char *t_value_str(fief_value_t v, char *buf, size_t size) {
    switch (v.type) {
    case FIEF_TYPE_NULL: snprintf(buf, size, "null"); break;
    case FIEF_TYPE_INT: snprintf(buf, size, "int %" PRId64, v.u.integer); break;
    case FIEF_TYPE_BOOL: snprintf(buf, size, "bool %s", v.u.boolean ? "true" : "false"); break;
    case FIEF_TYPE_STRING:
        snprintf(buf, size, "string \"%.*s\" (%zu bytes)", (int)(v.u.string.size > 60 ? 60 : v.u.string.size),
                 v.u.string.data ? v.u.string.data : "", v.u.string.size);
        break;
    case FIEF_TYPE_BINARY: snprintf(buf, size, "binary (%zu bytes)", v.u.binary.size); break;
    case FIEF_TYPE_TIMESTAMP:
        snprintf(buf, size, "timestamp %" PRId64 "s %dns", v.u.timestamp.seconds,
                 (int)v.u.timestamp.nanoseconds);
        break;
    case FIEF_TYPE_FLOAT: snprintf(buf, size, "float %.9g", (double)v.u.float_value); break;
    case FIEF_TYPE_DOUBLE: snprintf(buf, size, "double %.17g", v.u.double_value); break;
    case FIEF_TYPE_DECIMAL128:
        snprintf(buf, size, "decimal128 %016" PRIx64 ":%016" PRIx64, v.u.decimal128.w[1],
                 v.u.decimal128.w[0]);
        break;
    case FIEF_TYPE_OBJECT_ID:
    case FIEF_TYPE_UUID: {
        const uint8_t *b = v.type == FIEF_TYPE_UUID ? v.u.uuid.bytes : v.u.object_id.bytes;
        size_t n = v.type == FIEF_TYPE_UUID ? 16 : 12, o = 0;
        o += (size_t)snprintf(buf, size, "%s ", v.type == FIEF_TYPE_UUID ? "uuid" : "oid");
        for (size_t i = 0; i < n && o + 3 < size; i++) o += (size_t)snprintf(buf + o, size - o, "%02x", b[i]);
        break;
    }
    case FIEF_TYPE_LINK:
        snprintf(buf, size, "link %u:%" PRId64, (unsigned)v.u.link.class_key, (int64_t)v.u.link.object_key);
        break;
    default: snprintf(buf, size, "type %d?", (int)v.type);
    }
    return buf;
}

/* ---- schema and realm helpers ------------------------------------------------------ */

fief_property_info_t t_prop_info(const char *name, fief_type_t type, uint32_t flags) {
    fief_property_info_t p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.type = type;
    p.collection_type = FIEF_COLLECTION_NONE;
    p.flags = flags;
    return p;
}

fief_schema_t *t_std_schema(void) {
    static const char *const base[] = {"i", "b", "s", "bin", "ts", "f", "d", "dec", "oid", "uuid"};
    static const char *const opt[] = {"oi", "ob", "os", "obin", "ots", "of", "od", "odec", "ooid", "ouuid"};
    static const fief_type_t types[] = {FIEF_TYPE_INT, FIEF_TYPE_BOOL, FIEF_TYPE_STRING,
                                        FIEF_TYPE_BINARY, FIEF_TYPE_TIMESTAMP, FIEF_TYPE_FLOAT,
                                        FIEF_TYPE_DOUBLE, FIEF_TYPE_DECIMAL128,
                                        FIEF_TYPE_OBJECT_ID, FIEF_TYPE_UUID};
    fief_property_info_t all[22];
    size_t n = 0;
    all[n++] = t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY);
    for (size_t i = 0; i < 10; i++) all[n++] = t_prop_info(base[i], types[i], 0);
    for (size_t i = 0; i < 10; i++) all[n++] = t_prop_info(opt[i], types[i], FIEF_PROPERTY_NULLABLE);
    all[n++] = t_prop_info("idx", FIEF_TYPE_INT, FIEF_PROPERTY_INDEXED);

    fief_property_info_t strpk[] = {t_prop_info("name", FIEF_TYPE_STRING, FIEF_PROPERTY_PRIMARY_KEY),
                                    t_prop_info("value", FIEF_TYPE_INT, 0)};
    fief_property_info_t oidpk[] = {t_prop_info("oid", FIEF_TYPE_OBJECT_ID, FIEF_PROPERTY_PRIMARY_KEY),
                                    t_prop_info("value", FIEF_TYPE_INT, 0)};
    fief_property_info_t uuidpk[] = {t_prop_info("uuid", FIEF_TYPE_UUID, FIEF_PROPERTY_PRIMARY_KEY),
                                     t_prop_info("value", FIEF_TYPE_INT, 0)};
    fief_property_info_t nopk[] = {t_prop_info("value", FIEF_TYPE_INT, 0),
                                   t_prop_info("label", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE)};
    fief_class_info_t classes[5];
    memset(classes, 0, sizeof classes);
    classes[0].name = "AllTypes";
    classes[0].num_properties = n;
    classes[1].name = "StrPk";
    classes[1].num_properties = 2;
    classes[2].name = "OidPk";
    classes[2].num_properties = 2;
    classes[3].name = "UuidPk";
    classes[3].num_properties = 2;
    classes[4].name = "NoPk";
    classes[4].num_properties = 2;
    const fief_property_info_t *props[5] = {all, strpk, oidpk, uuidpk, nopk};
    return fief_schema_new(classes, 5, props);
}

fief_realm_t *t_open(const char *path, const fief_schema_t *schema, uint64_t version) {
    fief_config_t *c = fief_config_new();
    if (!c) return NULL;
    fief_realm_t *r = NULL;
    if (fief_config_set_path(c, path) && (!schema || fief_config_set_schema(c, schema)) &&
        fief_config_set_schema_version(c, version))
        r = fief_realm_open(c);
    fief_error_t saved;
    bool had = r == NULL && fief_get_last_error(&saved);
    fief_release(c);
    (void)had; /* fief_release of a valid handle does not touch the error slot */
    return r;
}

fief_realm_t *t_open_std(void) {
    fief_schema_t *s = t_std_schema();
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("std.fief"), s, 0);
    fief_release(s);
    return r;
}

fief_class_key_t t_class(fief_realm_t *realm, const char *cls) {
    fief_schema_t *s = fief_realm_get_schema(realm);
    if (!s) {
        t_fail(__FILE__, __LINE__, "fief_realm_get_schema(realm)", cls);
        return 0;
    }
    fief_class_info_t info;
    bool found = false;
    fief_class_key_t key = 0;
    if (fief_schema_find_class(s, cls, &info, NULL, &found) && found) key = info.key;
    else t_fail(__FILE__, __LINE__, "fief_schema_find_class", cls);
    fief_release(s);
    return key;
}

fief_property_key_t t_prop(fief_realm_t *realm, const char *cls, const char *prop) {
    fief_schema_t *s = fief_realm_get_schema(realm);
    if (!s) {
        t_fail(__FILE__, __LINE__, "fief_realm_get_schema(realm)", prop);
        return 0;
    }
    size_t index = 0;
    bool found = false;
    fief_property_info_t info;
    fief_property_key_t key = 0;
    if (fief_schema_find_class(s, cls, NULL, &index, &found) && found &&
        fief_schema_find_property(s, index, prop, &info, &found) && found)
        key = info.key;
    else
        t_fail(__FILE__, __LINE__, "fief_schema_find_property", prop);
    fief_release(s);
    return key;
}

fief_value_t t_get(const fief_object_t *obj, fief_property_key_t prop) {
    fief_value_t v = vnull();
    v.type = -1;
    if (!fief_object_get_value(obj, prop, &v)) {
        t_fail(__FILE__, __LINE__, "fief_object_get_value(obj, prop, &v)", NULL);
        return vnull();
    }
    return v;
}

int64_t t_get_int(const fief_object_t *obj, fief_property_key_t prop) {
    fief_value_t v = t_get(obj, prop);
    if (v.type != FIEF_TYPE_INT) {
        t_fail(__FILE__, __LINE__, "t_get_int: value is an int", NULL);
        return INT64_MIN;
    }
    return v.u.integer;
}

size_t t_count(const fief_results_t *results) {
    size_t n = (size_t)-1;
    if (!fief_results_count(results, &n)) t_fail(__FILE__, __LINE__, "fief_results_count", NULL);
    return n;
}

size_t t_count_class(fief_realm_t *realm, fief_class_key_t cls) {
    fief_results_t *r = fief_realm_get_objects(realm, cls);
    if (!r) {
        t_fail(__FILE__, __LINE__, "fief_realm_get_objects", NULL);
        return (size_t)-1;
    }
    size_t n = t_count(r);
    fief_release(r);
    return n;
}

void t_run_thread(void *(*fn)(void *), void *arg) {
    pthread_t th;
    if (pthread_create(&th, NULL, fn, arg) != 0) {
        t_fail(__FILE__, __LINE__, "pthread_create", NULL);
        return;
    }
    pthread_join(th, NULL);
}

bool t_fd_readable(int fd, int ms) {
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

void t_deliver_until(fief_realm_t *realm, const int *calls, int target) {
    int fd = -1;
    E(fief_realm_get_notification_fd(realm, &fd));
    double deadline = t_now() + 60;
    while (*(const volatile int *)calls < target && t_now() < deadline) {
        t_fd_readable(fd, 1000);
        E(fief_realm_deliver_notifications(realm, NULL));
    }
    EQI(*calls, target);
}

uint64_t t_version(fief_realm_t *realm) {
    uint64_t v = 0;
    if (!fief_realm_get_version(realm, &v)) t_fail(__FILE__, __LINE__, "fief_realm_get_version", NULL);
    return v;
}

int t_run_self(const char *a, const char *b, const char *c) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return -1;
    self[n] = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execl(self, self, a, b, c, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

void t_expect_message(const char *file, int line, const char *expr, const char *needle) {
    fief_error_t e;
    memset(&e, 0, sizeof e);
    if (!fief_get_last_error(&e) || e.message == NULL || strstr(e.message, needle) == NULL) {
        char d[768];
        snprintf(d, sizeof d, "(message \"%.600s\" does not contain \"%s\")", e.message ? e.message : "(none)", needle);
        t_fail(file, line, expr, d);
    }
}

const char *t_result_strings(const fief_results_t *res, fief_property_key_t property) {
    static char buf[256];
    buf[0] = 0;
    size_t n = 0, o = 0;
    if (!res || !fief_results_count(res, &n)) return "<count failed>";
    for (size_t i = 0; i < n && o + 40 < sizeof buf; i++) {
        fief_value_t v;
        if (!fief_results_get_values(res, i, &property, 1, &v) || v.type != FIEF_TYPE_STRING) return "<get_values failed>";
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%.*s", i ? "," : "", (int)v.u.string.size, v.u.string.data);
    }
    return buf;
}
