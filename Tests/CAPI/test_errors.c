/* Bad input never crashes and reports the documented error: NULL, released,
 * foreign and wrong-type handles; bad files and paths; the error slot. */
#include "fief_test.h"

#include <lmdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void bad_config_calls(const void *h, fief_error_code_t code) {
    fief_config_t *c = (fief_config_t *)(uintptr_t)h;
    EERR(fief_config_set_path(c, "/tmp/x.fief"), code);
    EERR(fief_config_set_in_memory_identifier(c, "x"), code);
    EERR(fief_config_set_read_only(c, true), code);
    EERR(fief_config_set_schema(c, NULL), code);
    EERR(fief_config_set_schema_version(c, 1), code);
    EERR(fief_config_set_delete_if_migration_needed(c, true), code);
    EERR(fief_realm_open(c), code);
}

static void bad_schema_calls(const void *h, fief_error_code_t code) {
    const fief_schema_t *s = h;
    size_t n, idx;
    bool found;
    fief_class_info_t ci;
    fief_property_info_t pi;
    EERR(fief_schema_get_class_count(s, &n), code);
    EERR(fief_schema_get_class(s, 0, &ci), code);
    EERR(fief_schema_get_property(s, 0, 0, &pi), code);
    EERR(fief_schema_find_class(s, "NoPk", &ci, &idx, &found), code);
    EERR(fief_schema_find_property(s, 0, "value", &pi, &found), code);
    if (s) { /* NULL is valid there: "use the file's schema" */
        fief_config_t *cfg = fief_config_new();
        EERR(fief_config_set_schema(cfg, s), code);
        fief_release(cfg);
    }
}

static void bad_realm_calls(const void *h, fief_error_code_t code, fief_class_key_t ck, fief_object_t *valid_obj,
                            fief_results_t *valid_res) {
    fief_realm_t *r = (fief_realm_t *)(uintptr_t)h;
    bool b;
    uint64_t v;
    fief_value_t val = vi(1);
    fief_property_key_t pk = 1;
    EERR(fief_realm_close(r), code);
    EERR(fief_realm_is_closed(r, &b), code);
    EERR(fief_realm_is_frozen(r, &b), code);
    EERR(fief_realm_is_read_only(r, &b), code);
    EERR(fief_realm_get_version(r, &v), code);
    EERR(fief_realm_get_path(r), code);
    EERR(fief_realm_get_schema(r), code);
    EERR(fief_realm_begin_write(r), code);
    EERR(fief_realm_commit(r), code);
    EERR(fief_realm_cancel(r), code);
    EERR(fief_realm_is_in_transaction(r, &b), code);
    EERR(fief_realm_refresh(r, &b), code);
    EERR(fief_realm_invalidate(r), code);
    EERR(fief_realm_freeze(r), code);
    EERR(fief_realm_thaw(r), code);
    EERR(fief_realm_delete_all(r), code);
    EERR(fief_realm_delete_all_of_class(r, ck), code);
    EERR(fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR), code);
    EERR(fief_object_create_many(r, ck, &pk, 1, &val, 1, FIEF_UPDATE_POLICY_ERROR, NULL), code);
    EERR(fief_object_find(r, ck, val, &b), code);
    EERR(fief_object_get(r, ck, 1), code);
    EERR(fief_realm_get_objects(r, ck), code);
    fief_object_t *out = NULL;
    if (valid_obj) EERR(fief_object_resolve_in(valid_obj, r, &out), code);
    if (valid_res) EERR(fief_results_resolve_in(valid_res, r), code);
}

static void bad_object_calls(const void *h, fief_error_code_t code, fief_realm_t *valid_realm,
                             fief_results_t *valid_res) {
    fief_object_t *o = (fief_object_t *)(uintptr_t)h;
    fief_object_key_t k;
    fief_class_key_t ck;
    fief_value_t v;
    fief_property_key_t p = 1;
    size_t idx;
    bool found;
    fief_clear_last_error();
    E(!fief_object_is_valid(o)); /* cannot fail: just false */
    EERR(fief_object_get_key(o, &k), code);
    EERR(fief_object_get_class_key(o, &ck), code);
    EERR(fief_object_get_realm(o), code);
    EERR(fief_object_get_value(o, 1, &v), code);
    EERR(fief_object_get_values(o, &p, 1, &v), code);
    EERR(fief_object_set_value(o, 1, vi(1)), code);
    v = vi(1);
    EERR(fief_object_set_values(o, &p, &v, 1), code);
    EERR(fief_object_delete(o), code);
    fief_object_t *out = NULL;
    EERR(fief_object_resolve_in(o, valid_realm, &out), code);
    EERR(fief_results_index_of(valid_res, o, &idx, &found), code);
}

static void bad_results_calls(const void *h, fief_error_code_t code, fief_realm_t *valid_realm) {
    fief_results_t *r = (fief_results_t *)(uintptr_t)h;
    size_t n;
    fief_class_key_t ck;
    fief_object_key_t k;
    fief_value_t v;
    fief_property_key_t p = 1;
    fief_sort_descriptor_t sd = {"value", true};
    fief_clear_last_error();
    E(!fief_results_is_valid(r));
    EERR(fief_results_filter(r, "value == 1", NULL, 0), code);
    EERR(fief_results_sort(r, &sd, 1), code);
    EERR(fief_results_count(r, &n), code);
    EERR(fief_results_get_class_key(r, &ck), code);
    EERR(fief_results_get_object(r, 0), code);
    EERR(fief_results_get_key(r, 0, &k), code);
    EERR(fief_results_get_values(r, 0, &p, 1, &v), code);
    EERR(fief_results_delete_all(r), code);
    EERR(fief_results_get_realm(r), code);
    EERR(fief_results_resolve_in(r, valid_realm), code);
}

TEST(null_handles) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    E(fief_realm_commit(r));
    fief_results_t *res = fief_realm_get_objects(r, ck);
    R(res);
    bad_config_calls(NULL, FIEF_ERR_INVALID_HANDLE);
    bad_schema_calls(NULL, FIEF_ERR_INVALID_HANDLE);
    bad_realm_calls(NULL, FIEF_ERR_INVALID_HANDLE, ck, o, res);
    bad_object_calls(NULL, FIEF_ERR_INVALID_HANDLE, r, res);
    bad_results_calls(NULL, FIEF_ERR_INVALID_HANDLE, r);
    fief_clear_last_error();
    E(fief_release(NULL)); /* accepted, does nothing */
    fief_release(res);
    fief_release(o);
    fief_release(r);
}

TEST(released_handles) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    E(fief_realm_commit(r));
    fief_results_t *res = fief_realm_get_objects(r, ck);
    R(res);
    /* dead handles of each kind */
    fief_config_t *dc = fief_config_new();
    fief_schema_t *ds = t_std_schema();
    fief_realm_t *dr = t_open_std();
    fief_object_t *dobj = fief_object_get(r, ck, 0);
    if (!dobj) {
        fief_object_key_t k = 0;
        fief_object_get_key(o, &k);
        dobj = fief_object_get(r, ck, k);
    }
    fief_results_t *dres = fief_realm_get_objects(r, ck);
    R(dc && ds && dr && dobj && dres);
    E(fief_release(dc));
    E(fief_release(ds));
    E(fief_release(dr));
    E(fief_release(dobj));
    E(fief_release(dres));
    EERR(fief_release(dc), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_release(ds), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_release(dr), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_release(dobj), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_release(dres), FIEF_ERR_INVALID_HANDLE);
    bad_config_calls(dc, FIEF_ERR_INVALID_HANDLE);
    bad_schema_calls(ds, FIEF_ERR_INVALID_HANDLE);
    bad_realm_calls(dr, FIEF_ERR_INVALID_HANDLE, ck, o, res);
    bad_object_calls(dobj, FIEF_ERR_INVALID_HANDLE, r, res);
    bad_results_calls(dres, FIEF_ERR_INVALID_HANDLE, r);
    /* New handles reuse slots but not the generation: the old ones stay dead. */
    fief_config_t *c2[8];
    for (int i = 0; i < 8; i++) c2[i] = fief_config_new();
    EERR(fief_config_set_path(dc, "/tmp/x"), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_realm_begin_write(dr), FIEF_ERR_INVALID_HANDLE);
    for (int i = 0; i < 8; i++) E(fief_release(c2[i]));
    /* The valid handles are unaffected. */
    E(fief_object_is_valid(o));
    EQU(t_count(res), 1);
    fief_release(res);
    fief_release(o);
    fief_release(r);
}

TEST(foreign_handles) {
    /* Pointers that were never handles: decoded, never dereferenced. */
    int local = 0;
    const void *foreign[] = {(void *)(uintptr_t)1, (void *)(uintptr_t)0x12345, &local,
                             (void *)(uintptr_t)0xdeadbeefcafe, (void *)(uintptr_t)UINTPTR_MAX,
                             (void *)(uintptr_t)(UINTPTR_MAX - 7)};
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_results_t *res = fief_realm_get_objects(r, ck);
    R(res);
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        EERR(fief_release(foreign[i]), FIEF_ERR_INVALID_HANDLE);
        bad_config_calls(foreign[i], FIEF_ERR_INVALID_HANDLE);
        bad_schema_calls(foreign[i], FIEF_ERR_INVALID_HANDLE);
        bad_realm_calls(foreign[i], FIEF_ERR_INVALID_HANDLE, ck, NULL, res);
        bad_object_calls(foreign[i], FIEF_ERR_INVALID_HANDLE, r, res);
        bad_results_calls(foreign[i], FIEF_ERR_INVALID_HANDLE, r);
    }
    fief_release(res);
    fief_release(r);
}

TEST(wrong_handle_types) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    E(fief_realm_commit(r));
    fief_results_t *res = fief_realm_get_objects(r, ck);
    R(res);
    fief_config_t *c = fief_config_new();
    fief_schema_t *s = t_std_schema();
    R(c && s);
    bad_config_calls(r, FIEF_ERR_WRONG_HANDLE_TYPE);
    bad_config_calls(s, FIEF_ERR_WRONG_HANDLE_TYPE);
    bad_schema_calls(c, FIEF_ERR_WRONG_HANDLE_TYPE);
    bad_schema_calls(o, FIEF_ERR_WRONG_HANDLE_TYPE);
    bad_realm_calls(o, FIEF_ERR_WRONG_HANDLE_TYPE, ck, o, res);
    bad_realm_calls(res, FIEF_ERR_WRONG_HANDLE_TYPE, ck, o, res);
    bad_realm_calls(c, FIEF_ERR_WRONG_HANDLE_TYPE, ck, o, res);
    bad_object_calls(res, FIEF_ERR_WRONG_HANDLE_TYPE, r, res);
    bad_object_calls(r, FIEF_ERR_WRONG_HANDLE_TYPE, r, res);
    bad_results_calls(o, FIEF_ERR_WRONG_HANDLE_TYPE, r);
    bad_results_calls(s, FIEF_ERR_WRONG_HANDLE_TYPE, r);
    /* everything still works afterwards */
    E(fief_object_is_valid(o));
    EQU(t_count(res), 1);
    E(fief_release(c));
    E(fief_release(s));
    fief_release(res);
    fief_release(o);
    fief_release(r);
}

TEST(null_out_pointers) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    E(fief_realm_commit(r));
    fief_results_t *res = fief_realm_get_objects(r, ck);
    R(res);
    EERR(fief_realm_is_closed(r, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_realm_is_frozen(r, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_realm_is_read_only(r, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_realm_get_version(r, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_realm_is_in_transaction(r, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_get_key(o, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_get_class_key(o, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_resolve_in(o, r, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_get_class_key(res, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_get_key(res, 0, NULL), FIEF_ERR_INVALID_ARGUMENT);
    size_t idx;
    bool found;
    EERR(fief_results_index_of(res, o, NULL, &found), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_index_of(res, o, &idx, NULL), FIEF_ERR_INVALID_ARGUMENT);
    fief_release(res);
    fief_release(o);
    fief_release(r);
}

static void expect_file_error(const char *path, fief_error_code_t code, uint32_t category) {
    fief_schema_t *s = t_std_schema();
    fief_clear_last_error();
    fief_realm_t *r = t_open(path, s, 0);
    fief_release(s);
    fief_error_t e;
    memset(&e, 0, sizeof e);
    if (r) {
        t_fail(__FILE__, __LINE__, path, "(opened, should have failed)");
        fief_release(r);
        return;
    }
    if (!fief_get_last_error(&e)) {
        t_fail(__FILE__, __LINE__, path, "(no error set)");
        return;
    }
    char d[256];
    if (code ? e.code != code : !(e.categories & category)) {
        snprintf(d, sizeof d, "(failed with %d %s, expected %s)", (int)e.code, t_code_name(e.code),
                 code ? t_code_name(code) : "a FIEF_ERR_CAT_FILE error");
        t_fail(__FILE__, __LINE__, path, d);
        return;
    }
    if (!(e.categories & FIEF_ERR_CAT_FILE)) t_fail(__FILE__, __LINE__, path, "(not in FIEF_ERR_CAT_FILE)");
    if (e.path == NULL || strcmp(e.path, path) != 0) {
        snprintf(d, sizeof d, "(error path %s, expected %s)", e.path ? e.path : "NULL", path);
        t_fail(__FILE__, __LINE__, "fief_error_t.path names the file", d);
    }
}

TEST(not_a_fief_file) {
    /* random bytes */
    size_t n = 64 * 1024;
    uint8_t *junk = malloc(n);
    R(junk);
    srand(1234);
    for (size_t i = 0; i < n; i++) junk[i] = (uint8_t)rand();
    R(t_write_file(t_path("junk.fief"), junk, n));
    expect_file_error(t_path("junk.fief"), FIEF_ERR_FILE_NOT_FIEF, 0);
    /* text */
    const char *text = "This is not a database.\n";
    R(t_write_file(t_path("text.fief"), text, strlen(text)));
    expect_file_error(t_path("text.fief"), FIEF_ERR_FILE_NOT_FIEF, 0);
    /* the failed opens left the files alone */
    FILE *f = fopen(t_path("text.fief"), "rb");
    char buf[64] = {0};
    E(f && fread(buf, 1, sizeof buf, f) == strlen(text));
    if (f) fclose(f);
    E(strcmp(buf, text) == 0);
    /* garbage read-only */
    fief_config_t *c = fief_config_new();
    E(fief_config_set_path(c, t_path("junk.fief")));
    E(fief_config_set_read_only(c, true));
    EERR(fief_realm_open(c), FIEF_ERR_FILE_NOT_FIEF);
    fief_release(c);
    free(junk);
}

TEST(plain_lmdb_file_is_not_fief) {
    /* A valid LMDB file (single-file layout) that Fief did not write. */
    const char *path = t_path("plain.mdb");
    MDB_env *env;
    R(mdb_env_create(&env) == 0);
    R(mdb_env_open(env, path, MDB_NOSUBDIR, 0644) == 0);
    MDB_txn *txn;
    MDB_dbi dbi;
    R(mdb_txn_begin(env, NULL, 0, &txn) == 0);
    R(mdb_dbi_open(txn, NULL, 0, &dbi) == 0);
    MDB_val k = {5, "hello"}, v = {5, "world"};
    R(mdb_put(txn, dbi, &k, &v, 0) == 0);
    R(mdb_txn_commit(txn) == 0);
    mdb_env_close(env);
    expect_file_error(path, FIEF_ERR_FILE_NOT_FIEF, 0);
}

TEST(bad_paths) {
    /* a directory */
    mkdir(t_path("adir"), 0755);
    expect_file_error(t_path("adir"), 0, FIEF_ERR_CAT_FILE);
    /* a path under a regular file (ENOTDIR) */
    R(t_write_file(t_path("plainfile"), "x", 1));
    expect_file_error(t_path("plainfile/sub.fief"), 0, FIEF_ERR_CAT_FILE);
    /* a missing directory */
    expect_file_error(t_path("missing-dir/sub.fief"), 0, FIEF_ERR_CAT_FILE);
    /* unwritable even for root: sysfs refuses new files with EACCES */
    expect_file_error("/sys/fief-test.fief", FIEF_ERR_FILE_PERMISSION, 0);
    /* procfs refuses new files too */
    expect_file_error("/proc/fief-test.fief", 0, FIEF_ERR_CAT_FILE);
    /* empty path */
    fief_config_t *c = fief_config_new();
    R(c);
    /* fief_config_set_path refuses the empty path itself; the config keeps
     * no path, so opening it is refused as well (no path nor identifier). */
    EERR(fief_config_set_path(c, ""), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_realm_open(c), FIEF_ERR_INVALID_ARGUMENT);
    /* invalid UTF-8 in a path or identifier is still a path: not a crash */
    fief_clear_last_error();
    E(fief_config_set_path(c, t_path("\xff\xfe.fief")) || true);
    fief_release(c);
}

TEST(invalid_utf8_names) {
    fief_property_info_t p = t_prop_info("a", FIEF_TYPE_INT, 0);
    fief_class_info_t ci;
    memset(&ci, 0, sizeof ci);
    ci.name = "Bad\xff";
    ci.num_properties = 1;
    const fief_property_info_t *pp[1] = {&p};
    fief_clear_last_error();
    fief_schema_t *s = fief_schema_new(&ci, 1, pp);
    if (s) {
        t_fail(__FILE__, __LINE__, "schema with an invalid UTF-8 class name", "(accepted)");
        fief_release(s);
    } else {
        fief_error_t e;
        E(fief_get_last_error(&e));
        E(e.code == FIEF_ERR_INVALID_SCHEMA || e.code == FIEF_ERR_INVALID_UTF8);
    }
    /* a find by invalid UTF-8 name simply fails or finds nothing */
    s = t_std_schema();
    R(s);
    bool found = true;
    fief_clear_last_error();
    if (fief_schema_find_class(s, "\xff", NULL, NULL, &found)) E(!found);
    fief_realm_t *r = t_open_std();
    R(r);
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "NoPk"));
    R(all);
    fief_clear_last_error();
    fief_results_t *bad = fief_results_filter(all, "label == '\xff'", NULL, 0);
    fief_error_t e;
    if (bad) {
        t_fail(__FILE__, __LINE__, "filter with invalid UTF-8", "(accepted)");
        fief_release(bad);
    } else if (!fief_get_last_error(&e) || (e.code != FIEF_ERR_INVALID_UTF8 && e.code != FIEF_ERR_QUERY_SYNTAX)) {
        t_fail(__FILE__, __LINE__, "filter with invalid UTF-8", "(expected INVALID_UTF8 or QUERY_SYNTAX)");
    }
    fief_release(all);
    fief_release(r);
    fief_release(s);
}

static fief_error_code_t thread_code;
static bool thread_has;
static void *read_error(void *arg) {
    (void)arg;
    fief_error_t e;
    thread_has = fief_get_last_error(&e);
    thread_code = e.code;
    return NULL;
}

TEST(error_slot) {
    fief_error_t e;
    fief_clear_last_error();
    memset(&e, 0x5a, sizeof e);
    E(!fief_get_last_error(&e));
    EQI(e.code, FIEF_OK);
    E(!fief_config_set_path(NULL, "x"));
    E(fief_get_last_error(&e));
    EQI(e.code, FIEF_ERR_INVALID_HANDLE);
    E(e.categories & FIEF_ERR_CAT_LOGIC);
    E(e.message != NULL && e.message[0] != 0);
    /* a success does not clear it */
    fief_config_t *c = fief_config_new();
    E(fief_config_set_path(c, t_path("a.fief")));
    E(fief_get_last_error(&e));
    EQI(e.code, FIEF_ERR_INVALID_HANDLE);
    /* per thread */
    t_run_thread(read_error, NULL);
    E(!thread_has);
    EQI(thread_code, FIEF_OK);
    /* the next failure replaces it */
    EERR(fief_config_set_path(c, NULL), FIEF_ERR_INVALID_ARGUMENT);
    E(fief_get_last_error(&e) && (e.categories & FIEF_ERR_CAT_INVALID_ARG));
    fief_clear_last_error();
    E(!fief_get_last_error(&e));
    fief_release(c);
}

TEST(many_handles_and_churn) {
    /* Lots of allocations and releases; no leaks of slots visible as failures. */
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    E(fief_realm_commit(r));
    fief_object_key_t k = 0;
    E(fief_object_get_key(o, &k));
    enum { N = 5000 };
    fief_object_t **hs = malloc(N * sizeof *hs);
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < N; i++) {
            hs[i] = fief_object_get(r, ck, k);
            if (!hs[i]) {
                E(hs[i] != NULL);
                break;
            }
        }
        for (int i = 0; i < N; i++)
            if (hs[i]) E(fief_release(hs[i]));
    }
    free(hs);
    fief_release(o);
    fief_release(r);
}

static const t_case cases[] = {
    T(null_handles), T(released_handles), T(foreign_handles), T(wrong_handle_types),
    T(null_out_pointers), T(not_a_fief_file), T(plain_lmdb_file_is_not_fief), T(bad_paths),
    T(invalid_utf8_names), T(error_slot), T(many_handles_and_churn),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
