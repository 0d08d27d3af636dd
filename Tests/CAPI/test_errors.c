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
    EERR(fief_config_set_max_active_versions(c, 3), code);
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
    EERR(fief_object_find_by_primary_key(r, ck, val, &b), code);
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
    EERR(fief_results_index_of_object(valid_res, o, &idx, &found), code);
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
    EERR(fief_results_index_of_object(res, o, NULL, &found), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_index_of_object(res, o, &idx, NULL), FIEF_ERR_INVALID_ARGUMENT);
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


/* Counts of 2^63 and more (a negative number cast to size_t): every count,
 * in every export that takes one, is refused with FIEF_ERR_INVALID_ARGUMENT
 * and a message naming the parameter.  Each value is one a size_t can hold
 * but no array can: SIZE_MAX, 2^63, SIZE_MAX - 1, and the first count just
 * over what an array of the element type can hold. */
#define NHUGE 4
static size_t huge_counts(size_t element_size, size_t i) {
    const size_t all[NHUGE] = {SIZE_MAX, (size_t)1 << 63, SIZE_MAX - 1, (SIZE_MAX >> 1) / element_size + 1};
    return all[i];
}

TEST(huge_counts_schema) {
    /* fief_schema_new crashed (SIGILL) on a num_classes or num_properties of 2^63 and more. */
    fief_property_info_t p = t_prop_info("a", FIEF_TYPE_INT, 0);
    const fief_property_info_t *pp[1] = {&p};
    fief_class_info_t ci;
    memset(&ci, 0, sizeof ci);
    ci.name = "C";
    ci.num_properties = 1;
    for (size_t i = 0; i < NHUGE; i++) {
        EERRM(fief_schema_new(&ci, huge_counts(sizeof(fief_class_info_t), i), pp), FIEF_ERR_INVALID_ARGUMENT,
              "num_classes is ");
        fief_class_info_t big = ci;
        big.num_properties = huge_counts(sizeof(fief_property_info_t), i);
        EERRM(fief_schema_new(&big, 1, pp), FIEF_ERR_INVALID_ARGUMENT, "classes[0].num_properties is ");
    }
    /* the exact value is in the message, as the unsigned number it is */
    EERRM(fief_schema_new(&ci, SIZE_MAX, pp), FIEF_ERR_INVALID_ARGUMENT, "num_classes is 18446744073709551615");
    /* a NULL array with a count */
    EERRM(fief_schema_new(NULL, 1, pp), FIEF_ERR_INVALID_ARGUMENT, "classes is NULL but num_classes is 1");
    EERRM(fief_schema_new(&ci, 1, NULL), FIEF_ERR_INVALID_ARGUMENT, "class_properties is NULL but num_classes is 1");
    const fief_property_info_t *none[1] = {NULL};
    EERRM(fief_schema_new(&ci, 1, none), FIEF_ERR_INVALID_ARGUMENT,
          "class_properties[0] is NULL but classes[0].num_properties is 1");
    /* nothing is wrong with the arguments themselves */
    fief_schema_t *s = fief_schema_new(&ci, 1, pp);
    E(s != NULL);
    /* indices of 2^63 and more are out of bounds, and say so as unsigned numbers */
    fief_class_info_t out_class;
    fief_property_info_t out_prop;
    bool found;
    EERRM(fief_schema_get_class(s, SIZE_MAX, &out_class), FIEF_ERR_INDEX_OUT_OF_BOUNDS,
          "class_index 18446744073709551615");
    EERRM(fief_schema_get_property(s, (size_t)1 << 63, 0, &out_prop), FIEF_ERR_INDEX_OUT_OF_BOUNDS,
          "class_index 9223372036854775808");
    EERRM(fief_schema_get_property(s, 0, SIZE_MAX, &out_prop), FIEF_ERR_INDEX_OUT_OF_BOUNDS,
          "property_index 18446744073709551615");
    EERRM(fief_schema_find_property(s, SIZE_MAX, "a", &out_prop, &found), FIEF_ERR_INDEX_OUT_OF_BOUNDS,
          "class_index 18446744073709551615");
    fief_release(s);
}

TEST(huge_counts_objects) {
    /* fief_object_get_values crashed (SIGILL), fief_object_create took a huge num_values for 0. */
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    fief_property_key_t props[1] = {pv};
    fief_value_t vals[1] = {vi(1)};
    fief_value_t out[1];
    fief_object_key_t keys[1];
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, props, vals, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    for (size_t i = 0; i < NHUGE; i++) {
        size_t n = huge_counts(sizeof(fief_value_t), i);
        EERRM(fief_object_create(r, ck, props, vals, n, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_ARGUMENT,
              "num_values is ");
        EERRM(fief_object_create_many(r, ck, props, huge_counts(sizeof(fief_property_key_t), i), vals, 1,
                                      FIEF_UPDATE_POLICY_ERROR, keys),
              FIEF_ERR_INVALID_ARGUMENT, "num_properties is ");
        EERRM(fief_object_create_many(r, ck, props, 1, vals, huge_counts(sizeof(fief_object_key_t), i),
                                      FIEF_UPDATE_POLICY_ERROR, keys),
              FIEF_ERR_INVALID_ARGUMENT, "num_objects is ");
        EERRM(fief_object_get_values(o, props, n, out), FIEF_ERR_INVALID_ARGUMENT, "num_values is ");
        EERRM(fief_object_set_values(o, props, vals, n), FIEF_ERR_INVALID_ARGUMENT, "num_values is ");
    }
    /* a product that no array can hold, though each factor could */
    EERRM(fief_object_create_many(r, ck, props, 2, vals, (size_t)1 << 59, FIEF_UPDATE_POLICY_ERROR, NULL),
          FIEF_ERR_INVALID_ARGUMENT, "num_objects x num_properties");
    EERRM(fief_object_create_many(r, ck, props, 1 << 20, vals, (size_t)1 << 50, FIEF_UPDATE_POLICY_ERROR, NULL),
          FIEF_ERR_INVALID_ARGUMENT, "num_objects x num_properties");
    /* NULL arrays with a count */
    EERRM(fief_object_create(r, ck, NULL, vals, 1, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_ARGUMENT,
          "properties is NULL but num_values is 1");
    EERRM(fief_object_create(r, ck, props, NULL, 1, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_ARGUMENT,
          "values is NULL but num_values is 1");
    EERRM(fief_object_create_many(r, ck, props, 1, NULL, 1, FIEF_UPDATE_POLICY_ERROR, NULL),
          FIEF_ERR_INVALID_ARGUMENT, "values is NULL");
    EERRM(fief_object_get_values(o, props, 1, NULL), FIEF_ERR_INVALID_ARGUMENT, "out_values is NULL but num_values is 1");
    EERRM(fief_object_get_values(o, NULL, 1, out), FIEF_ERR_INVALID_ARGUMENT, "properties is NULL but num_values is 1");
    EERRM(fief_object_set_values(o, props, NULL, 1), FIEF_ERR_INVALID_ARGUMENT, "values is NULL but num_values is 1");
    /* string and binary sizes inside fief_value_t, wherever a value goes in */
    fief_class_key_t cs = t_class(r, "StrPk");
    fief_property_key_t pname = t_prop(r, "StrPk", "name");
    fief_class_key_t ca = t_class(r, "AllTypes");
    fief_property_key_t pbin = t_prop(r, "AllTypes", "bin"), pid = t_prop(r, "AllTypes", "id");
    fief_object_t *a = NULL;
    {
        fief_property_key_t ap[1] = {pid};
        fief_value_t av[1] = {vi(1)};
        a = fief_object_create(r, ca, ap, av, 1, FIEF_UPDATE_POLICY_ERROR);
        R(a);
    }
    for (size_t i = 0; i < NHUGE; i++) {
        size_t n = huge_counts(1, i);
        fief_value_t big_s = vsn("x", n), big_b = vbin("x", n);
        fief_property_key_t sp[1] = {pname};
        EERRM(fief_object_create(r, cs, sp, &big_s, 1, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_ARGUMENT,
              "values[0].u.string.size is ");
        EERRM(fief_object_create_many(r, cs, sp, 1, &big_s, 1, FIEF_UPDATE_POLICY_ERROR, NULL),
              FIEF_ERR_INVALID_ARGUMENT, "values[0].u.string.size is ");
        bool found = false;
        EERRM(fief_object_find_by_primary_key(r, cs, big_s, &found), FIEF_ERR_INVALID_ARGUMENT, "primary_key.u.string.size is ");
        E(found); /* "found" tells that the call failed */
        EERRM(fief_object_set_value(a, pbin, big_b), FIEF_ERR_INVALID_ARGUMENT, "value.u.binary.size is ");
        fief_property_key_t bp[1] = {pbin};
        EERRM(fief_object_set_values(a, bp, &big_b, 1), FIEF_ERR_INVALID_ARGUMENT, "values[0].u.binary.size is ");
    }
    fief_value_t null_s = vsn(NULL, 3);
    EERRM(fief_object_set_value(a, pbin, null_s), FIEF_ERR_INVALID_ARGUMENT,
          "value.u.string.data is NULL but value.u.string.size is 3");
    /* nothing was created or changed by any of it */
    E(fief_realm_commit(r));
    EQU(t_count_class(r, ck), 1);
    EQU(t_count_class(r, cs), 0);
    fief_release(a);
    fief_release(o);
    fief_release(r);
}

TEST(huge_counts_results) {
    /* fief_results_filter reported a num_args of 2^63 and more as "args is NULL". */
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    fief_property_key_t props[1] = {pv};
    fief_value_t vals[1] = {vi(7)};
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, props, vals, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    R(fief_realm_commit(r));
    fief_results_t *all = fief_realm_get_objects(r, ck);
    R(all);
    fief_value_t out[1];
    fief_object_key_t key;
    fief_query_arg_t qa = {1, false, vals};
    fief_sort_descriptor_t sd = {"value", true};
    for (size_t i = 0; i < NHUGE; i++) {
        EERRM(fief_results_filter(all, "value == $0", &qa, huge_counts(sizeof(fief_query_arg_t), i)),
              FIEF_ERR_INVALID_ARGUMENT, "num_args is ");
        fief_query_arg_t big = {huge_counts(sizeof(fief_value_t), i), true, vals};
        EERRM(fief_results_filter(all, "value == $0", &big, 1), FIEF_ERR_INVALID_ARGUMENT, "args[0].count is ");
        fief_value_t big_s = vsn("x", huge_counts(1, i));
        fief_query_arg_t qs = {1, false, &big_s};
        EERRM(fief_results_filter(all, "TRUEPREDICATE", &qs, 1), FIEF_ERR_INVALID_ARGUMENT,
              "args[0].values[0].u.string.size is ");
        EERRM(fief_results_sort(all, &sd, huge_counts(sizeof(fief_sort_descriptor_t), i)), FIEF_ERR_INVALID_ARGUMENT,
              "num_keys is ");
        EERRM(fief_results_get_values(all, 0, props, huge_counts(sizeof(fief_value_t), i), out),
              FIEF_ERR_INVALID_ARGUMENT, "num_values is ");
    }
    EERRM(fief_results_filter(all, "value == $0", NULL, 1), FIEF_ERR_INVALID_ARGUMENT, "args is NULL but num_args is 1");
    fief_query_arg_t nulls = {2, true, NULL};
    EERRM(fief_results_filter(all, "value == $0", &nulls, 1), FIEF_ERR_INVALID_ARGUMENT,
          "args[0].values is NULL but args[0].count is 2");
    EERRM(fief_results_sort(all, NULL, 1), FIEF_ERR_INVALID_ARGUMENT, "keys is NULL but num_keys is 1");
    EERRM(fief_results_get_values(all, 0, props, 1, NULL), FIEF_ERR_INVALID_ARGUMENT,
          "out_values is NULL but num_values is 1");
    /* indices of 2^63 and more are out of bounds, named and printed unsigned */
    EERRM(fief_results_get_object(all, SIZE_MAX), FIEF_ERR_INDEX_OUT_OF_BOUNDS, "index 18446744073709551615");
    EERRM(fief_results_get_key(all, (size_t)1 << 63, &key), FIEF_ERR_INDEX_OUT_OF_BOUNDS,
          "index 9223372036854775808");
    EERRM(fief_results_get_values(all, SIZE_MAX, props, 1, out), FIEF_ERR_INDEX_OUT_OF_BOUNDS,
          "index 18446744073709551615");
    /* and the same calls with sound arguments work */
    fief_results_t *f = fief_results_filter(all, "value == $0", &qa, 1);
    E(f && t_count(f) == 1);
    fief_release(f);
    E(fief_results_get_values(all, 0, props, 1, out) && out[0].type == FIEF_TYPE_INT && out[0].u.integer == 7);
    fief_release(all);
    fief_release(o);
    fief_release(r);
}

/* Box(items: list of mixed, bag: set of mixed, props: map of mixed, any: mixed). */
static fief_schema_t *collections_schema(void) {
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "Box";
    c.num_properties = 4;
    fief_property_info_t box[4] = {t_prop_info("items", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("bag", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("props", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("any", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    box[0].collection_type = FIEF_COLLECTION_LIST;
    box[1].collection_type = FIEF_COLLECTION_SET;
    box[2].collection_type = FIEF_COLLECTION_MAP;
    const fief_property_info_t *pp[1] = {box};
    return fief_schema_new(&c, 1, pp);
}

/* Every range read of a collection of 2 elements, with (start, count) that
 * do not lie within it, fails with FIEF_ERR_INDEX_OUT_OF_BOUNDS and writes
 * nothing. */
#define NRANGES 8
static const size_t bad_ranges[NRANGES][2] = {
    {(size_t)INT64_MAX, 2},     /* start + count overflows a signed size */
    {(size_t)INT64_MAX - 1, 5}, /* likewise */
    {(size_t)INT64_MAX, 1},
    {SIZE_MAX, 1},              /* start of 2^63 and more */
    {(size_t)1 << 63, 1},
    {0, (SIZE_MAX >> 1) / sizeof(fief_value_t)}, /* a count an array can hold, not the collection */
    {1, 2},
    {3, 0},
};

static bool untouched(const fief_value_t *out, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (out[i].type != FIEF_TYPE_BOOL || out[i].u.boolean != true) return false;
    return true;
}

static void expect_ranges_refused(const char *what, const fief_list_t *list, const fief_set_t *set, const fief_map_t *map) {
    for (size_t i = 0; i < NRANGES; i++) {
        size_t start = bad_ranges[i][0], count = bad_ranges[i][1];
        fprintf(stderr, "  %s: start %zu, count %zu\n", what, start, count);
        fief_value_t out[4] = {vb(true), vb(true), vb(true), vb(true)};
        fief_string_t keys[4];
        if (list) EERR(fief_list_get_range(list, start, count, out), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
        if (set) EERR(fief_set_get_range(set, start, count, out), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
        if (map) {
            EERR(fief_map_get_entries(map, start, count, keys, out), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
            EERR(fief_map_get_entries(map, start, count, NULL, out), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
            EERR(fief_map_get_entries(map, start, count, keys, NULL), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
        }
        E(untouched(out, 4));
    }
    /* The whole collection and an empty range at its end are fine. */
    fief_value_t out[2];
    fief_string_t keys[2];
    if (list) E(fief_list_get_range(list, 0, 2, out) && fief_list_get_range(list, 2, 0, out));
    if (set) E(fief_set_get_range(set, 0, 2, out) && fief_set_get_range(set, 2, 0, out));
    if (map) E(fief_map_get_entries(map, 0, 2, keys, out) && fief_map_get_entries(map, 2, 0, keys, out));
}

TEST(huge_ranges_collections) {
    /* A start near 2^63 with a small count trapped (SIGILL) on start + count in
     * fief_list_get_range, fief_set_get_range and fief_map_get_entries; a count
     * an array could hold but the collection does not was allocated first. */
    fief_schema_t *s = collections_schema();
    R(s);
    fief_realm_t *r = t_open(t_path("ranges.fief"), s, 0);
    fief_release(s);
    R(r);
    fief_class_key_t ck = t_class(r, "Box");
    fief_property_key_t items = t_prop(r, "Box", "items"), bag = t_prop(r, "Box", "bag"), props = t_prop(r, "Box", "props"),
                        any = t_prop(r, "Box", "any");
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    fief_list_t *list = fief_object_get_list(o, items);
    fief_set_t *set = fief_object_get_set(o, bag);
    fief_map_t *map = fief_object_get_map(o, props);
    R(list && set && map);
    /* the list holds a nested list and a nested dictionary, of two elements each */
    fief_value_t two[2] = {vtype(FIEF_TYPE_LIST), vtype(FIEF_TYPE_MAP)};
    E(fief_list_append(list, two, 2));
    fief_list_t *nested_list = fief_list_get_list(list, 0);
    fief_map_t *nested_map = fief_list_get_map(list, 1);
    R(nested_list && nested_map);
    fief_value_t ints[2] = {vi(1), vi(2)};
    E(fief_list_append(nested_list, ints, 2));
    E(fief_map_set(nested_map, t_str("a"), vi(1)) && fief_map_set(nested_map, t_str("b"), vi(2)));
    bool inserted = false;
    E(fief_set_insert(set, vi(1), &inserted) && fief_set_insert(set, vi(2), &inserted));
    E(fief_map_set(map, t_str("a"), vi(1)) && fief_map_set(map, t_str("b"), vi(2)));
    E(fief_object_set_value(o, any, vtype(FIEF_TYPE_LIST)));
    R(fief_realm_commit(r));

    expect_ranges_refused("list", list, NULL, NULL);
    expect_ranges_refused("set", NULL, set, NULL);
    expect_ranges_refused("map", NULL, NULL, map);
    expect_ranges_refused("nested list", nested_list, NULL, NULL);
    expect_ranges_refused("nested dictionary", NULL, NULL, nested_map);
    /* the message gives the range as it can: no end past Int64 max */
    EERRM(fief_list_get_range(list, (size_t)INT64_MAX, 2, ints), FIEF_ERR_INDEX_OUT_OF_BOUNDS,
          "2 elements from 9223372036854775807 are out of range: the list has 2");
    EERRM(fief_map_get_entries(map, 1, 2, NULL, ints), FIEF_ERR_INDEX_OUT_OF_BOUNDS,
          "entries 1..<3 are out of range: the map has 2");
    /* an empty list: any start but 0 is out of range */
    fief_list_t *empty = fief_object_get_list(o, any);
    R(empty);
    EERR(fief_list_get_range(empty, (size_t)INT64_MAX, 1, ints), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    E(fief_list_get_range(empty, 0, 0, ints));
    /* inside a write transaction too (the lists are read from the write) */
    R(fief_realm_begin_write(r));
    expect_ranges_refused("list in a write", list, NULL, NULL);
    expect_ranges_refused("map in a write", NULL, NULL, map);
    expect_ranges_refused("set in a write", NULL, set, NULL);
    R(fief_realm_cancel(r));
    fief_release(empty);
    fief_release(nested_list);
    fief_release(nested_map);
    fief_release(list);
    fief_release(set);
    fief_release(map);
    fief_release(o);
    fief_release(r);
}

/* Expect opening `path` (read-write and read-only) to fail with
 * FIEF_ERR_FILE_NOT_FIEF, a message containing `what`, and `path` as the
 * error's path; never a hang (alarm) nor a crash. */
static void expect_not_regular(const char *file, int line, const char *path, const char *what) {
    for (int read_only = 0; read_only < 2; read_only++) {
        fief_schema_t *s = t_std_schema();
        fief_config_t *c = fief_config_new();
        E(fief_config_set_path(c, path));
        if (read_only) E(fief_config_set_read_only(c, true));
        else E(fief_config_set_schema(c, s));
        fief_release(s);
        alarm(20); /* a FIFO once blocked the open forever: fail instead of hanging */
        fief_clear_last_error();
        fief_realm_t *r = fief_realm_open(c);
        alarm(0);
        fief_release(c);
        char d[768];
        fief_error_t e;
        memset(&e, 0, sizeof e);
        if (r) {
            t_fail(file, line, path, read_only ? "(opened read-only)" : "(opened)");
            fief_release(r);
            continue;
        }
        fief_get_last_error(&e);
        if (e.code != FIEF_ERR_FILE_NOT_FIEF || !(e.categories & FIEF_ERR_CAT_FILE) || e.message == NULL ||
            strstr(e.message, what) == NULL || strstr(e.message, "not a regular file") == NULL || e.path == NULL ||
            strcmp(e.path, path) != 0) {
            snprintf(d, sizeof d, "(%s: code %d %s, message \"%s\", path %s; expected FIEF_ERR_FILE_NOT_FIEF, \"%s\")",
                     read_only ? "read-only" : "read-write", (int)e.code, t_code_name(e.code),
                     e.message ? e.message : "(none)", e.path ? e.path : "NULL", what);
            t_fail(file, line, path, d);
        }
    }
}
#define EXPECT_NOT_REGULAR(path, what) expect_not_regular(__FILE__, __LINE__, (path), (what))

TEST(paths_that_are_not_regular_files) {
    /* A FIFO hung fief_realm_open (read-only) and a directory was FIEF_ERR_FILE_PERMISSION. */
    R(mkdir(t_path("adir"), 0755) == 0);
    EXPECT_NOT_REGULAR(t_path("adir"), "is a directory");
    R(symlink(t_path("adir"), t_path("dirlink.fief")) == 0);
    EXPECT_NOT_REGULAR(t_path("dirlink.fief"), "is a symbolic link to a directory");
    R(mkfifo(t_path("fifo.fief"), 0644) == 0);
    EXPECT_NOT_REGULAR(t_path("fifo.fief"), "is a FIFO");
    R(symlink("/dev/null", t_path("null.fief")) == 0);
    EXPECT_NOT_REGULAR(t_path("null.fief"), "is a symbolic link to a character device");
    EXPECT_NOT_REGULAR("/dev/null", "is a character device");
    /* nothing was created next to them */
    E(!t_file_exists(t_path("adir-lock")));
    E(!t_file_exists(t_path("fifo.fief-lock")));
    E(!t_file_exists(t_path("null.fief-lock")));
    E(!t_file_exists("/dev/null-lock"));
    /* the lock file must be a regular file too: the message names it */
    R(mkdir(t_path("x.fief-lock"), 0755) == 0);
    EXPECT_NOT_REGULAR(t_path("x.fief"), "x.fief-lock' (the realm's lock file) is a directory");
    E(!t_file_exists(t_path("x.fief")));
    /* a symbolic link to a regular file is fine */
    fief_realm_t *r = t_open(t_path("real.fief"), NULL, 0);
    R(r);
    fief_release(r);
    R(symlink(t_path("real.fief"), t_path("link.fief")) == 0);
    r = t_open(t_path("link.fief"), NULL, 0);
    E(r != NULL);
    fief_release(r);
}

/* Expect fief_file_verify and fief_file_copy of `path` to fail as an open
 * does (expect_not_regular): FIEF_ERR_FILE_NOT_FIEF, "not a regular file"
 * and `what` in the message, `path` as the error's path; never a hang. */
static void expect_files_refuse(const char *file, int line, const char *path, const char *what) {
    for (int copy = 0; copy < 2; copy++) {
        size_t problems = 99;
        alarm(20); /* a FIFO blocked verify and copy forever: fail instead of hanging */
        fief_clear_last_error();
        bool ok = copy ? fief_file_copy(path, t_path("copy-of-it.fief"), NULL, NULL, &problems)
                       : fief_file_verify(path, NULL, NULL, &problems);
        alarm(0);
        const char *call = copy ? "fief_file_copy" : "fief_file_verify";
        char d[768];
        if (ok) {
            snprintf(d, sizeof d, "(%s succeeded, %zu problems)", call, problems);
            t_fail(file, line, path, d);
            continue;
        }
        fief_error_t e;
        memset(&e, 0, sizeof e);
        fief_get_last_error(&e);
        if (e.code != FIEF_ERR_FILE_NOT_FIEF || !(e.categories & FIEF_ERR_CAT_FILE) || e.message == NULL ||
            strstr(e.message, what) == NULL || strstr(e.message, "not a regular file") == NULL || e.path == NULL ||
            strcmp(e.path, path) != 0) {
            snprintf(d, sizeof d, "(%s: code %d %s, message \"%s\", path %s; expected FIEF_ERR_FILE_NOT_FIEF, \"%s\")",
                     call, (int)e.code, t_code_name(e.code), e.message ? e.message : "(none)", e.path ? e.path : "NULL",
                     what);
            t_fail(file, line, path, d);
        }
        E(!t_file_exists(t_path("copy-of-it.fief")));
    }
}
#define EXPECT_FILES_REFUSE(path, what) expect_files_refuse(__FILE__, __LINE__, (path), (what))

TEST(verify_and_copy_refuse_what_is_not_a_regular_file) {
    /* fief_file_verify and fief_file_copy blocked forever on a FIFO, and
     * reported a directory as FIEF_ERR_FILE_PERMISSION. */
    R(mkfifo(t_path("fifo.fief"), 0644) == 0);
    EXPECT_FILES_REFUSE(t_path("fifo.fief"), "is a FIFO");
    R(mkdir(t_path("adir"), 0755) == 0);
    EXPECT_FILES_REFUSE(t_path("adir"), "is a directory");
    R(symlink(t_path("adir"), t_path("dirlink.fief")) == 0);
    EXPECT_FILES_REFUSE(t_path("dirlink.fief"), "is a symbolic link to a directory");
    EXPECT_FILES_REFUSE("/dev/null", "is a character device");
    /* the lock file must be a regular file too */
    fief_realm_t *r = t_open(t_path("x.fief"), NULL, 0);
    R(r);
    fief_release(r);
    unlink(t_path("x.fief-lock"));
    R(mkfifo(t_path("x.fief-lock"), 0644) == 0);
    EXPECT_FILES_REFUSE(t_path("x.fief"), "x.fief-lock' (the realm's lock file) is a FIFO");
    E(!t_file_exists(t_path("fifo.fief-lock")));
    E(!t_file_exists(t_path("adir-lock")));
}

TEST(proc_files_are_not_realms) {
    /* /proc/self/status (a file the kernel makes up as it is read) was
     * reported as "does not exist" by fief_file_verify and fief_realm_open. */
    EXPECT_FILES_REFUSE("/proc/self/status", "is a file of the kernel's proc file system");
    EXPECT_NOT_REGULAR("/proc/self/status", "is a file of the kernel's proc file system");
    E(!t_file_exists("/proc/self/status-lock"));
}

/* fief_error_name gives each code's name as fief.h spells it, from the
 * library's own table of the engine's codes: so every FIEF_ERR_* value of
 * the header is the engine's code of that name, and the engine has no code
 * the header lacks (the Python binding's test_header.py checks this list
 * against the header's #defines). */
TEST(error_names_are_the_headers) {
    static const struct { fief_error_code_t code; const char *name; } codes[] = {
#define CODE(x) {x, #x},
        CODE(FIEF_OK)
        CODE(FIEF_ERR_INVALID_HANDLE) CODE(FIEF_ERR_WRONG_HANDLE_TYPE) CODE(FIEF_ERR_NOT_IN_TRANSACTION)
        CODE(FIEF_ERR_ALREADY_IN_TRANSACTION) CODE(FIEF_ERR_WRONG_THREAD) CODE(FIEF_ERR_FROZEN)
        CODE(FIEF_ERR_READ_ONLY) CODE(FIEF_ERR_CLOSED) CODE(FIEF_ERR_INVALIDATED_OBJECT)
        CODE(FIEF_ERR_INVALIDATED_RESULTS) CODE(FIEF_ERR_TOO_MANY_VERSIONS)
        CODE(FIEF_ERR_INVALID_ARGUMENT) CODE(FIEF_ERR_NO_SUCH_CLASS) CODE(FIEF_ERR_NO_SUCH_PROPERTY)
        CODE(FIEF_ERR_NO_SUCH_OBJECT) CODE(FIEF_ERR_TYPE_MISMATCH) CODE(FIEF_ERR_NULL_NOT_ALLOWED)
        CODE(FIEF_ERR_INVALID_UTF8) CODE(FIEF_ERR_DUPLICATE_PRIMARY_KEY) CODE(FIEF_ERR_MISSING_PRIMARY_KEY)
        CODE(FIEF_ERR_PRIMARY_KEY_CHANGE) CODE(FIEF_ERR_INDEX_OUT_OF_BOUNDS)
        CODE(FIEF_ERR_INVALID_SCHEMA) CODE(FIEF_ERR_SCHEMA_MISMATCH) CODE(FIEF_ERR_SCHEMA_VERSION)
        CODE(FIEF_ERR_QUERY_SYNTAX) CODE(FIEF_ERR_QUERY_INVALID) CODE(FIEF_ERR_QUERY_ARGUMENT)
        CODE(FIEF_ERR_FILE_NOT_FOUND) CODE(FIEF_ERR_FILE_PERMISSION) CODE(FIEF_ERR_FILE_NOT_FIEF)
        CODE(FIEF_ERR_FILE_FORMAT) CODE(FIEF_ERR_FILE_LOCKED) CODE(FIEF_ERR_FILE_IO)
        CODE(FIEF_ERR_FILE_FULL) CODE(FIEF_ERR_FILE_CORRUPT)
        CODE(FIEF_ERR_OUT_OF_MEMORY) CODE(FIEF_ERR_INTERNAL)
#undef CODE
    };
    size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        const char *name = fief_error_name(codes[i].code);
        if (!name || strcmp(name, codes[i].name) != 0) {
            char d[160];
            snprintf(d, sizeof d, "(code %d: fief_error_name gives %s, fief.h says %s)", (int)codes[i].code,
                     name ? name : "NULL", codes[i].name);
            t_fail(__FILE__, __LINE__, "fief_error_name(code) == its FIEF_ERR_* name", d);
        }
    }
    /* no other number is a code */
    size_t named = 0;
    for (fief_error_code_t code = -1000; code < 100000; code++) named += fief_error_name(code) != NULL;
    EQU(named, n);
    E(fief_error_name(INT32_MIN) == NULL);
    E(fief_error_name(INT32_MAX) == NULL);
    /* it names the code a failure reports */
    EERR(fief_release((void *)(uintptr_t)0x12345), FIEF_ERR_INVALID_HANDLE);
    fief_error_t err;
    R(fief_get_last_error(&err));
    E(strcmp(fief_error_name(err.code), "FIEF_ERR_INVALID_HANDLE") == 0);
}

static const t_case cases[] = {
    T(error_names_are_the_headers), T(null_handles), T(released_handles), T(foreign_handles), T(wrong_handle_types),
    T(null_out_pointers), T(not_a_fief_file), T(plain_lmdb_file_is_not_fief), T(bad_paths),
    T(invalid_utf8_names), T(error_slot), T(many_handles_and_churn), T(huge_counts_schema),
    T(huge_counts_objects), T(huge_counts_results), T(huge_ranges_collections), T(paths_that_are_not_regular_files),
    T(verify_and_copy_refuse_what_is_not_a_regular_file), T(proc_files_are_not_realms),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
