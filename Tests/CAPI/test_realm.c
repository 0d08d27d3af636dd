/* Configuration, open/close, transactions, versions, refresh and liveness,
 * freeze/thaw/resolve_in, in-memory realms, read-only realms, threads. */
#include "fief_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Create one NoPk object with `value` in a write transaction of its own. */
static fief_object_key_t add_nopk(fief_realm_t *r, int64_t value) {
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    fief_object_key_t key = -1;
    R(fief_realm_begin_write(r));
    fief_value_t v = vi(value);
    fief_object_t *o = fief_object_create(r, ck, &pv, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    E(o != NULL);
    E(fief_object_get_key(o, &key));
    E(fief_realm_commit(r));
    fief_release(o);
    return key;
}

TEST(version_functions) {
    EQI(fief_version_number(), FIEF_VERSION_NUMBER);
    E(fief_version_string() != NULL && strcmp(fief_version_string(), FIEF_VERSION_STRING) == 0);
    EQI(FIEF_VERSION_NUMBER, FIEF_VERSION_MAJOR * 10000 + FIEF_VERSION_MINOR * 100 + FIEF_VERSION_PATCH);
}

TEST(config_options) {
    fief_config_t *c = fief_config_new();
    R(c != NULL);
    EERR(fief_realm_open(c), FIEF_ERR_INVALID_ARGUMENT); /* no path nor identifier */
    EERR(fief_config_set_path(c, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_config_set_in_memory_identifier(c, NULL), FIEF_ERR_INVALID_ARGUMENT);
    E(fief_config_set_path(c, t_path("cfg.fief")));
    E(fief_config_set_read_only(c, false));
    E(fief_config_set_schema_version(c, 9));
    E(fief_config_set_delete_if_migration_needed(c, false));
    EERR(fief_config_set_durability(c, 7), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_config_set_durability(NULL, FIEF_DURABILITY_FULL), FIEF_ERR_INVALID_HANDLE);
    E(fief_config_set_durability(c, FIEF_DURABILITY_NORMAL));
    E(fief_config_set_schema(c, NULL));
    fief_schema_t *s = t_std_schema();
    R(s);
    E(fief_config_set_schema(c, s));
    E(fief_release(s)); /* the config keeps its own reference */
    fief_realm_t *r = fief_realm_open(c);
    R(r != NULL);
    const char *p = fief_realm_get_path(r);
    E(p != NULL && strcmp(p, t_path("cfg.fief")) == 0);
    E(t_file_exists(t_path("cfg.fief")));
    bool b = true;
    E(fief_realm_is_read_only(r, &b) && !b);
    E(fief_realm_is_frozen(r, &b) && !b);
    E(fief_realm_is_closed(r, &b) && !b);
    E(fief_realm_is_in_transaction(r, &b) && !b);
    E(t_class(r, "AllTypes") != 0);
    fief_release(r);
    /* The file's schema version is 9 now. */
    s = t_std_schema();
    r = t_open(t_path("cfg.fief"), s, 9);
    E(r != NULL);
    uint64_t schema_version = 0;
    E(fief_realm_get_schema_version(r, &schema_version));
    EQU(schema_version, 9);
    EERR(fief_realm_get_schema_version(r, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_realm_get_schema_version(NULL, &schema_version), FIEF_ERR_INVALID_HANDLE);
    fief_release(r);
    EERR(t_open(t_path("cfg.fief"), s, 8), FIEF_ERR_SCHEMA_VERSION);
    fief_release(s);
    /* The config can open several realms. */
    fief_realm_t *r1 = fief_realm_open(c), *r2 = fief_realm_open(c);
    E(r1 && r2);
    fief_release(r1);
    fief_release(r2);
    fief_release(c);
}

TEST(open_close) {
    fief_realm_t *r = t_open_std();
    R(r != NULL);
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    add_nopk(r, 1);
    fief_results_t *res = fief_realm_get_objects(r, ck);
    R(res);
    fief_object_t *o = fief_results_get_object(res, 0);
    R(o);
    E(fief_results_is_valid(res));
    E(fief_object_is_valid(o));
    E(fief_realm_close(r));
    bool closed = false;
    E(fief_realm_is_closed(r, &closed) && closed);
    E(fief_realm_close(r)); /* closing a closed realm succeeds */
    EERR(fief_realm_begin_write(r), FIEF_ERR_CLOSED);
    EERR(fief_realm_refresh(r, NULL), FIEF_ERR_CLOSED);
    EERR(fief_realm_get_objects(r, ck), FIEF_ERR_CLOSED);
    EERR(fief_realm_freeze(r), FIEF_ERR_CLOSED);
    size_t n;
    EERR(fief_results_count(res, &n), FIEF_ERR_CLOSED);
    fief_value_t v;
    EERR(fief_object_get_value(o, pv, &v), FIEF_ERR_CLOSED);
    E(!fief_object_is_valid(o));
    E(!fief_results_is_valid(res));
    E(fief_release(o));
    E(fief_release(res));
    E(fief_release(r));
    EERR(fief_release(r), FIEF_ERR_INVALID_HANDLE);
    /* Handles keep the realm open: release the realm first, then use an object. */
    r = t_open_std();
    R(r);
    ck = t_class(r, "NoPk");
    pv = t_prop(r, "NoPk", "value");
    res = fief_realm_get_objects(r, ck);
    R(res);
    o = fief_results_get_object(res, 0);
    R(o);
    E(fief_release(r));
    EQI(t_get_int(o, pv), 1);
    EQU(t_count(res), 1);
    fief_realm_t *back = fief_object_get_realm(o);
    E(back != NULL);
    fief_release(back);
    back = fief_results_get_realm(res);
    E(back != NULL);
    fief_release(back);
    E(fief_release(res));
    E(fief_release(o));
}

TEST(close_cancels_transaction) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    E(o);
    E(fief_realm_close(r));
    fief_release(o);
    fief_release(r);
    r = t_open_std();
    R(r);
    EQU(t_count_class(r, ck), 0);
    fief_release(r);
}

TEST(file_delete) {
    const char *path = t_path("del.fief");
    bool deleted = true;
    E(fief_file_delete(path, &deleted));
    E(!deleted);
    fief_schema_t *s = t_std_schema();
    fief_realm_t *r = t_open(path, s, 0);
    R(r);
    EERR(fief_file_delete(path, &deleted), FIEF_ERR_FILE_LOCKED);
    E(t_file_exists(path));
    fief_release(r);
    E(fief_file_delete(path, &deleted));
    E(deleted);
    E(!t_file_exists(path));
    char lock[4096];
    snprintf(lock, sizeof lock, "%s-lock", path);
    E(!t_file_exists(lock));
    E(fief_file_delete(path, NULL));
    EERR(fief_file_delete(NULL, &deleted), FIEF_ERR_INVALID_ARGUMENT);
    /* A fresh file after deletion. */
    r = t_open(path, s, 0);
    R(r);
    EQU(t_count_class(r, t_class(r, "NoPk")), 0);
    fief_release(r);
    fief_release(s);
}

TEST(transactions) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    bool in = true;
    E(fief_realm_is_in_transaction(r, &in) && !in);
    EERR(fief_realm_commit(r), FIEF_ERR_NOT_IN_TRANSACTION);
    EERR(fief_realm_cancel(r), FIEF_ERR_NOT_IN_TRANSACTION);
    EERR(fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_NOT_IN_TRANSACTION);
    EERR(fief_realm_delete_all(r), FIEF_ERR_NOT_IN_TRANSACTION);
    EERR(fief_realm_delete_all_of_class(r, ck), FIEF_ERR_NOT_IN_TRANSACTION);

    /* commit */
    R(fief_realm_begin_write(r));
    E(fief_realm_is_in_transaction(r, &in) && in);
    EERR(fief_realm_begin_write(r), FIEF_ERR_ALREADY_IN_TRANSACTION);
    EERR(fief_realm_refresh(r, NULL), FIEF_ERR_ALREADY_IN_TRANSACTION);
    EERR(fief_realm_invalidate(r), FIEF_ERR_ALREADY_IN_TRANSACTION);
    fief_value_t v = vi(10);
    fief_object_t *o = fief_object_create(r, ck, &pv, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    EQU(t_count_class(r, ck), 1); /* visible inside the transaction */
    {
        /* Frozen inside a write: the version the write began from. */
        fief_realm_t *before = fief_realm_freeze(r);
        R(before);
        EQU(t_count_class(before, ck), 0);
        fief_object_t *resolved = (fief_object_t *)1;
        E(fief_object_resolve_in(o, before, &resolved) && resolved == NULL);
        E(fief_release(before));
    }
    E(fief_realm_commit(r));
    E(fief_realm_is_in_transaction(r, &in) && !in);
    EQU(t_count_class(r, ck), 1);
    EQI(t_get_int(o, pv), 10);
    EERR(fief_object_set_value(o, pv, vi(11)), FIEF_ERR_NOT_IN_TRANSACTION);

    /* cancel: nothing kept, created objects invalid, changes reverted */
    R(fief_realm_begin_write(r));
    fief_object_t *o2 = fief_object_create(r, ck, &pv, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o2);
    E(fief_object_set_value(o, pv, vi(99)));
    EQI(t_get_int(o, pv), 99);
    E(fief_realm_cancel(r));
    E(!fief_object_is_valid(o2));
    EERR(fief_object_get_value(o2, pv, &v), FIEF_ERR_INVALIDATED_OBJECT);
    EQI(t_get_int(o, pv), 10);
    EQU(t_count_class(r, ck), 1);
    fief_release(o2);

    /* nesting across realms of the same file on one thread */
    fief_realm_t *r2 = t_open_std();
    R(r2);
    R(fief_realm_begin_write(r));
    EERR(fief_realm_begin_write(r2), FIEF_ERR_ALREADY_IN_TRANSACTION);
    E(fief_realm_commit(r));
    E(fief_realm_begin_write(r2));
    E(fief_realm_cancel(r2));
    fief_release(r2);
    fief_release(o);
    fief_release(r);
}

TEST(version_numbers) {
    fief_realm_t *r = t_open_std();
    R(r);
    uint64_t v0 = 0, v = 0;
    E(fief_realm_get_version(r, &v0));
    R(fief_realm_begin_write(r));
    E(fief_realm_get_version(r, &v));
    EQU(v, v0 + 1);
    E(fief_realm_commit(r));
    E(fief_realm_get_version(r, &v));
    EQU(v, v0 + 1);
    R(fief_realm_begin_write(r));
    E(fief_realm_cancel(r));
    E(fief_realm_get_version(r, &v));
    EQU(v, v0 + 1);
    for (int i = 0; i < 5; i++) add_nopk(r, i);
    E(fief_realm_get_version(r, &v));
    EQU(v, v0 + 6);
    /* Another handle sees the same version; after a commit elsewhere it
     * stays behind until refreshed. */
    fief_realm_t *r2 = t_open_std();
    R(r2);
    uint64_t w = 0;
    E(fief_realm_get_version(r2, &w));
    EQU(w, v0 + 6);
    add_nopk(r, 100);
    E(fief_realm_get_version(r2, &w));
    EQU(w, v0 + 6);
    bool did = false;
    E(fief_realm_refresh(r2, &did));
    E(did);
    E(fief_realm_get_version(r2, &w));
    EQU(w, v0 + 7);
    E(fief_realm_refresh(r2, &did));
    E(!did);
    fief_release(r2);
    fief_release(r);
    /* The version persists across reopen. */
    r = t_open_std();
    R(r);
    E(fief_realm_get_version(r, &v));
    EQU(v, v0 + 7);
    fief_release(r);
}

TEST(refresh_and_liveness) {
    fief_realm_t *a = t_open_std(), *b = t_open_std();
    R(a && b);
    fief_class_key_t ck = t_class(a, "NoPk");
    fief_property_key_t pv = t_prop(a, "NoPk", "value");
    fief_object_key_t k1 = add_nopk(a, 1);
    E(fief_realm_refresh(b, NULL));
    fief_results_t *rb = fief_realm_get_objects(b, ck);
    R(rb);
    fief_results_t *rbf = fief_results_filter(rb, "value > 5", NULL, 0);
    R(rbf);
    EQU(t_count(rb), 1);
    EQU(t_count(rbf), 0);
    fief_object_t *ob = fief_object_get(b, ck, k1);
    R(ob);
    fief_object_t *oa = fief_object_get(a, ck, k1);
    R(oa);

    /* A writes: B keeps its snapshot until it refreshes. */
    R(fief_realm_begin_write(a));
    E(fief_object_set_value(oa, pv, vi(10)));
    fief_value_t v = vi(20);
    fief_object_t *tmp = fief_object_create(a, ck, &pv, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    E(tmp);
    fief_release(tmp);
    E(fief_realm_commit(a));
    EQI(t_get_int(ob, pv), 1);
    EQU(t_count(rb), 1);
    EQU(t_count(rbf), 0);
    bool did = false;
    E(fief_realm_refresh(b, &did));
    E(did);
    EQI(t_get_int(ob, pv), 10);
    EQU(t_count(rb), 2);
    EQU(t_count(rbf), 2);

    /* A deletes: B's object becomes invalid after refresh. */
    R(fief_realm_begin_write(a));
    E(fief_object_delete(oa));
    E(fief_realm_commit(a));
    E(fief_object_is_valid(ob));
    E(fief_realm_refresh(b, &did) && did);
    E(!fief_object_is_valid(ob));
    EERR(fief_object_get_value(ob, pv, &v), FIEF_ERR_INVALIDATED_OBJECT);
    fief_object_key_t k = -1;
    E(fief_object_get_key(ob, &k));
    EQI(k, k1);
    EQU(t_count(rb), 1);
    EQU(t_count(rbf), 1);

    /* begin_write moves to the newest version. */
    add_nopk(a, 30);
    R(fief_realm_begin_write(b));
    EQU(t_count(rb), 2);
    E(fief_realm_cancel(b));

    /* invalidate: objects read the newest version on next use */
    fief_object_t *ob2 = fief_results_get_object(rb, 0);
    R(ob2);
    fief_object_key_t k2 = -1;
    E(fief_object_get_key(ob2, &k2));
    add_nopk(a, 40);
    R(fief_realm_begin_write(a));
    fief_object_t *oa2 = fief_object_get(a, ck, k2);
    E(oa2 && fief_object_set_value(oa2, pv, vi(77)));
    E(fief_realm_commit(a));
    fief_release(oa2);
    EQI(t_get_int(ob2, pv), 20);
    E(fief_realm_invalidate(b));
    EQU(t_count(rb), 3); /* 20, 30, 40: the first one was deleted */
    EQI(t_get_int(ob2, pv), 77);

    fief_release(ob2);
    fief_release(rbf);
    fief_release(rb);
    fief_release(ob);
    fief_release(oa);
    fief_release(a);
    fief_release(b);
}

TEST(freeze_thaw_resolve) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    fief_object_key_t k1 = add_nopk(r, 1);
    add_nopk(r, 2);
    uint64_t vlive = 0, vfrozen = 0;
    E(fief_realm_get_version(r, &vlive));
    fief_realm_t *f = fief_realm_freeze(r);
    R(f);
    bool b = false;
    E(fief_realm_is_frozen(f, &b) && b);
    E(fief_realm_is_frozen(r, &b) && !b);
    E(fief_realm_get_version(f, &vfrozen));
    EQU(vfrozen, vlive);
    EERR(fief_realm_begin_write(f), FIEF_ERR_FROZEN);
    EERR(fief_realm_delete_all(f), FIEF_ERR_FROZEN);
    bool did = true;
    E(fief_realm_refresh(f, &did)); /* a no-op */
    E(!did);
    fief_realm_t *f2 = fief_realm_freeze(f);
    E(f2 != NULL);
    if (f2) {
        E(fief_realm_is_frozen(f2, &b) && b);
        fief_release(f2);
    }

    fief_object_t *lo = fief_object_get(r, ck, k1);
    R(lo);
    fief_object_t *fo = NULL;
    E(fief_object_resolve_in(lo, f, &fo));
    R(fo);
    EQI(t_get_int(fo, pv), 1);
    EERR(fief_object_set_value(fo, pv, vi(5)), FIEF_ERR_FROZEN);
    fief_results_t *lres = fief_realm_get_objects(r, ck);
    R(lres);
    fief_results_t *lfilt = fief_results_filter(lres, "value >= 1", NULL, 0);
    R(lfilt);
    fief_results_t *fres = fief_results_resolve_in(lfilt, f);
    R(fres);
    EQU(t_count(fres), 2);
    fief_results_t *fall = fief_realm_get_objects(f, ck);
    R(fall);
    EERR(fief_results_delete_all(fall), FIEF_ERR_FROZEN);

    /* Live changes do not reach the frozen snapshot. */
    R(fief_realm_begin_write(r));
    E(fief_object_set_value(lo, pv, vi(100)));
    fief_value_t v = vi(3);
    fief_object_t *o3 = fief_object_create(r, ck, &pv, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    E(o3);
    E(fief_realm_commit(r));
    EQI(t_get_int(fo, pv), 1);
    EQU(t_count(fres), 2);
    EQU(t_count(fall), 2);
    EQU(t_count(lfilt), 3);
    E(fief_realm_get_version(f, &vfrozen));
    EQU(vfrozen, vlive);

    /* An object created after the freeze does not exist in the frozen realm. */
    fief_object_t *none = (fief_object_t *)1;
    E(fief_object_resolve_in(o3, f, &none));
    E(none == NULL);

    /* thaw: a live realm at the newest version */
    fief_realm_t *t = fief_realm_thaw(f);
    R(t);
    E(fief_realm_is_frozen(t, &b) && !b);
    uint64_t vt = 0;
    E(fief_realm_get_version(t, &vt));
    EQU(vt, vlive + 1);
    fief_object_t *to = NULL;
    E(fief_object_resolve_in(fo, t, &to));
    R(to);
    EQI(t_get_int(to, pv), 100);
    fief_results_t *tres = fief_results_resolve_in(fres, t);
    R(tres);
    EQU(t_count(tres), 3);
    /* thaw of a live realm: a new reference to it */
    fief_realm_t *same = fief_realm_thaw(r);
    E(same != NULL);
    if (same) {
        E(fief_realm_is_frozen(same, &b) && !b);
        fief_release(same);
    }
    /* An object deleted later is not found when resolving its frozen self. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(lo));
    E(fief_realm_commit(r));
    E(fief_realm_refresh(t, NULL));
    fief_object_t *gone = (fief_object_t *)1;
    E(fief_object_resolve_in(fo, t, &gone));
    E(gone == NULL);
    EQI(t_get_int(fo, pv), 1); /* the frozen one still reads its snapshot */

    fief_release(o3);
    fief_release(to);
    fief_release(tres);
    fief_release(t);
    fief_release(fall);
    fief_release(fres);
    fief_release(lfilt);
    fief_release(lres);
    fief_release(fo);
    fief_release(lo);
    /* Release the frozen realm's handle first: objects keep it alive. */
    fief_object_t *fo2 = fief_object_get(f, ck, k1);
    R(fo2);
    fief_release(f);
    EQI(t_get_int(fo2, pv), 1);
    fief_release(fo2);
    fief_release(r);
}

struct frozen_reader { fief_results_t *res; fief_property_key_t pv; int64_t sum; bool ok; };
static void *read_frozen(void *arg) {
    struct frozen_reader *fr = arg;
    size_t n = 0;
    fr->ok = fief_results_count(fr->res, &n);
    for (size_t i = 0; i < n && fr->ok; i++) {
        fief_value_t v;
        fr->ok = fief_results_get_values(fr->res, i, &fr->pv, 1, &v) && v.type == FIEF_TYPE_INT;
        fr->sum += v.u.integer;
    }
    return NULL;
}

TEST(frozen_from_other_thread) {
    fief_realm_t *r = t_open_std();
    R(r);
    for (int i = 1; i <= 10; i++) add_nopk(r, i);
    fief_realm_t *f = fief_realm_freeze(r);
    R(f);
    fief_results_t *res = fief_realm_get_objects(f, t_class(f, "NoPk"));
    R(res);
    /* The live realm is in a write transaction on this thread meanwhile. */
    R(fief_realm_begin_write(r));
    struct frozen_reader fr = {res, t_prop(f, "NoPk", "value"), 0, false};
    t_run_thread(read_frozen, &fr);
    E(fr.ok);
    EQI(fr.sum, 55);
    E(fief_realm_cancel(r));
    fief_release(res);
    fief_release(f);
    fief_release(r);
}

struct other_thread { fief_realm_t *r; fief_object_t *o; fief_property_key_t pv; fief_error_code_t get, set, commit, begin; };
static fief_error_code_t last_code(bool ok) {
    fief_error_t e;
    if (ok) return FIEF_OK;
    return fief_get_last_error(&e) ? e.code : -1;
}
static void *other_thread_calls(void *arg) {
    struct other_thread *ot = arg;
    fief_value_t v;
    ot->get = last_code(fief_object_get_value(ot->o, ot->pv, &v));
    ot->set = last_code(fief_object_set_value(ot->o, ot->pv, vi(5)));
    ot->commit = last_code(fief_realm_commit(ot->r));
    return NULL;
}

TEST(wrong_thread) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_object_key_t k = add_nopk(r, 1);
    fief_object_t *o = fief_object_get(r, t_class(r, "NoPk"), k);
    R(o);
    R(fief_realm_begin_write(r));
    struct other_thread ot = {r, o, t_prop(r, "NoPk", "value"), 0, 0, 0, 0};
    t_run_thread(other_thread_calls, &ot);
    EQI(ot.get, FIEF_ERR_WRONG_THREAD);
    EQI(ot.set, FIEF_ERR_WRONG_THREAD);
    EQI(ot.commit, FIEF_ERR_WRONG_THREAD);
    bool in = false;
    E(fief_realm_is_in_transaction(r, &in) && in);
    E(fief_realm_commit(r));
    /* Without a transaction, a live realm may be used from any thread. */
    t_run_thread(other_thread_calls, &ot);
    EQI(ot.get, FIEF_OK);
    EQI(ot.set, FIEF_ERR_NOT_IN_TRANSACTION);
    fief_release(o);
    fief_release(r);
}

TEST(in_memory) {
    fief_schema_t *s = t_std_schema();
    R(s);
    fief_config_t *c = fief_config_new();
    R(c);
    E(fief_config_set_path(c, t_path("will-be-cleared.fief")));
    E(fief_config_set_in_memory_identifier(c, "fief-test-mem"));
    E(fief_config_set_schema(c, s));
    fief_realm_t *a = fief_realm_open(c);
    R(a);
    E(!t_file_exists(t_path("will-be-cleared.fief")));
    E(fief_realm_get_path(a) != NULL);
    fief_realm_t *b = fief_realm_open(c);
    R(b);
    add_nopk(a, 7);
    E(fief_realm_refresh(b, NULL));
    EQU(t_count_class(b, t_class(b, "NoPk")), 1);
    /* Another identifier is another realm. */
    fief_config_t *c2 = fief_config_new();
    E(fief_config_set_in_memory_identifier(c2, "fief-test-mem-2"));
    E(fief_config_set_schema(c2, s));
    fief_realm_t *other = fief_realm_open(c2);
    R(other);
    EQU(t_count_class(other, t_class(other, "NoPk")), 0);
    fief_release(other);
    /* Still shared while one handle lives. */
    fief_release(a);
    fief_realm_t *a2 = fief_realm_open(c);
    R(a2);
    EQU(t_count_class(a2, t_class(a2, "NoPk")), 1);
    fief_release(a2);
    fief_release(b);
    /* Gone once the last handle is released. */
    fief_realm_t *fresh = fief_realm_open(c);
    R(fresh);
    EQU(t_count_class(fresh, t_class(fresh, "NoPk")), 0);
    fief_release(fresh);
    /* Setting a path clears the identifier. */
    E(fief_config_set_path(c, t_path("file.fief")));
    fief_realm_t *filed = fief_realm_open(c);
    R(filed);
    E(t_file_exists(t_path("file.fief")));
    fief_release(filed);
    fief_release(c2);
    fief_release(c);
    fief_release(s);
}

TEST(read_only) {
    const char *path = t_path("std.fief");
    fief_config_t *c = fief_config_new();
    R(c);
    E(fief_config_set_path(c, path));
    E(fief_config_set_read_only(c, true));
    EERR(fief_realm_open(c), FIEF_ERR_FILE_NOT_FOUND);
    fief_realm_t *w = t_open_std();
    R(w);
    fief_object_key_t k = add_nopk(w, 5);
    fief_realm_t *r = fief_realm_open(c);
    R(r);
    bool ro = false;
    E(fief_realm_is_read_only(r, &ro) && ro);
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    EQU(t_count_class(r, ck), 1);
    EERR(fief_realm_begin_write(r), FIEF_ERR_READ_ONLY);
    fief_object_t *o = fief_object_get(r, ck, k);
    R(o);
    EQI(t_get_int(o, pv), 5);
    EERR(fief_object_set_value(o, pv, vi(6)), FIEF_ERR_READ_ONLY);
    EERR(fief_object_delete(o), FIEF_ERR_READ_ONLY);
    EERR(fief_object_create(r, ck, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_READ_ONLY);
    EERR(fief_realm_delete_all(r), FIEF_ERR_READ_ONLY);
    /* It still sees other writers' commits after refresh. */
    add_nopk(w, 6);
    bool did = false;
    E(fief_realm_refresh(r, &did) && did);
    EQU(t_count_class(r, ck), 2);
    fief_realm_t *f = fief_realm_freeze(r);
    E(f != NULL);
    fief_release(f);
    fief_release(o);
    fief_release(r);
    fief_release(w);
    fief_release(c);
}

TEST(release_order_and_refcounts) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    add_nopk(r, 1);
    fief_results_t *res = fief_realm_get_objects(r, ck);
    R(res);
    fief_results_t *sorted = NULL;
    fief_sort_descriptor_t sd = {"value", false};
    sorted = fief_results_sort(res, &sd, 1);
    R(sorted);
    fief_release(res);
    fief_release(r);
    EQU(t_count(sorted), 1);
    fief_object_t *o = fief_results_get_object(sorted, 0);
    R(o);
    fief_release(sorted);
    E(fief_object_is_valid(o));
    fief_realm_t *rr = fief_object_get_realm(o);
    R(rr);
    fief_release(o);
    bool closed = true;
    E(fief_realm_is_closed(rr, &closed) && !closed);
    fief_release(rr);
    /* Everything released: the file can be deleted now. */
    bool deleted = false;
    E(fief_file_delete(t_path("std.fief"), &deleted) && deleted);
}

/* Owner(value: int, ints: list<int>, tags: set<int>, dict: map<int>). */
static fief_realm_t *open_owners(const char *name) {
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "Owner";
    c.num_properties = 4;
    fief_property_info_t p[4] = {t_prop_info("value", FIEF_TYPE_INT, 0), t_prop_info("ints", FIEF_TYPE_INT, 0),
                                 t_prop_info("tags", FIEF_TYPE_INT, 0), t_prop_info("dict", FIEF_TYPE_INT, 0)};
    p[1].collection_type = FIEF_COLLECTION_LIST;
    p[2].collection_type = FIEF_COLLECTION_SET;
    p[3].collection_type = FIEF_COLLECTION_MAP;
    const fief_property_info_t *pp[1] = {p};
    fief_schema_t *s = fief_schema_new(&c, 1, pp);
    fief_realm_t *r = t_open(t_path(name), s, 0);
    fief_release(s);
    return r;
}

/* Every *_resolve_in of handles made from `from` into `to`, after closing
 * `closing` (one of them): each fails with FIEF_ERR_CLOSED. */
static void expect_resolve_in_closed(fief_realm_t *from, fief_realm_t *to, fief_realm_t *closing, const char *which) {
    fprintf(stderr, "  %s closed\n", which);
    fief_class_key_t ck = t_class(from, "Owner");
    fief_object_t *o = fief_object_get(from, ck, 0);
    R(o);
    fief_list_t *l = fief_object_get_list(o, t_prop(from, "Owner", "ints"));
    fief_set_t *st = fief_object_get_set(o, t_prop(from, "Owner", "tags"));
    fief_map_t *m = fief_object_get_map(o, t_prop(from, "Owner", "dict"));
    fief_results_t *objects = fief_realm_get_objects(from, ck);
    fief_results_t *values = l ? fief_list_to_results(l) : NULL;
    R(l && st && m && objects && values);
    /* before the close, each resolves */
    fief_object_t *o2 = NULL;
    E(fief_object_resolve_in(o, to, &o2) && o2 != NULL);
    fief_release(o2);
    R(fief_realm_close(closing));
    fief_object_t *out_object = (fief_object_t *)1;
    fief_list_t *out_list = (fief_list_t *)1;
    fief_set_t *out_set = (fief_set_t *)1;
    fief_map_t *out_map = (fief_map_t *)1;
    EERR(fief_object_resolve_in(o, to, &out_object), FIEF_ERR_CLOSED);
    EERR(fief_list_resolve_in(l, to, &out_list), FIEF_ERR_CLOSED);
    EERR(fief_set_resolve_in(st, to, &out_set), FIEF_ERR_CLOSED);
    EERR(fief_map_resolve_in(m, to, &out_map), FIEF_ERR_CLOSED);
    EERR(fief_results_resolve_in(objects, to) != NULL, FIEF_ERR_CLOSED);
    EERR(fief_results_resolve_in(values, to) != NULL, FIEF_ERR_CLOSED);
    fief_release(values);
    fief_release(objects);
    fief_release(m);
    fief_release(st);
    fief_release(l);
    fief_release(o);
}

TEST(resolve_in_with_a_closed_realm) {
    /* The *_resolve_in calls succeeded on handles of a closed realm. */
    for (int closing_source = 0; closing_source < 2; closing_source++) {
        for (int from_frozen = 0; from_frozen < 2; from_frozen++) {
            char name[32];
            snprintf(name, sizeof name, "owners%d%d.fief", closing_source, from_frozen);
            fief_realm_t *r = open_owners(name);
            R(r);
            R(fief_realm_begin_write(r));
            fief_value_t one = vi(1);
            fief_property_key_t pv = t_prop(r, "Owner", "value");
            fief_object_t *o = fief_object_create(r, t_class(r, "Owner"), &pv, &one, 1, FIEF_UPDATE_POLICY_ERROR);
            R(o);
            fief_release(o);
            R(fief_realm_commit(r));
            fief_realm_t *f = fief_realm_freeze(r);
            R(f);
            fief_realm_t *from = from_frozen ? f : r, *to = from_frozen ? r : f;
            char which[64];
            snprintf(which, sizeof which, "%s (%s)", closing_source ? "source" : "target", from_frozen ? "frozen to live" : "live to frozen");
            expect_resolve_in_closed(from, to, closing_source ? from : to, which);
            fief_release(f);
            fief_release(r);
        }
    }
}

struct freezer { fief_realm_t *live; fief_object_t *live_object; fief_class_key_t ck; fief_property_key_t pv; size_t frozen_count; bool frozen_ok; fief_error_code_t live_read; fief_realm_t *frozen; };
static void *freeze_during_write(void *arg) {
    struct freezer *fz = arg;
    fz->frozen = fief_realm_freeze(fz->live);
    fz->frozen_ok = fz->frozen != NULL;
    if (fz->frozen) {
        fief_results_t *all = fief_realm_get_objects(fz->frozen, fz->ck);
        if (!all || !fief_results_count(all, &fz->frozen_count)) fz->frozen_ok = false;
        fief_release(all);
    }
    fief_value_t v;
    fz->live_read = last_code(fief_object_get_value(fz->live_object, fz->pv, &v));
    return NULL;
}

TEST(freeze_from_another_thread_during_a_write) {
    /* THREADS said calls from another thread during a write fail; freezing
     * succeeds, and is meant to: it gives the version the write began from. */
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_object_key_t k = add_nopk(r, 1);
    add_nopk(r, 2);
    uint64_t before = 0;
    E(fief_realm_get_version(r, &before));
    fief_object_t *o = fief_object_get(r, ck, k);
    R(o);
    R(fief_realm_begin_write(r));
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    fief_value_t v = vi(3);
    fief_object_t *o3 = fief_object_create(r, ck, &pv, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o3);
    struct freezer fz = {r, o, ck, pv, 0, false, FIEF_OK, NULL};
    t_run_thread(freeze_during_write, &fz);
    E(fz.frozen_ok);
    EQU(fz.frozen_count, 2);                       /* the write's object is not there */
    EQI(fz.live_read, FIEF_ERR_WRONG_THREAD);      /* the live realm's data stays the writer's */
    uint64_t frozen_version = 0;
    E(fz.frozen && fief_realm_get_version(fz.frozen, &frozen_version));
    EQU(frozen_version, before);
    E(fief_realm_commit(r));
    if (fz.frozen) EQU(t_count_class(fz.frozen, ck), 2);
    /* inside the write, on its own thread, too; and ALREADY_IN_TRANSACTION is not freeze's */
    R(fief_realm_begin_write(r));
    fief_realm_t *f2 = fief_realm_freeze(r);
    E(f2 != NULL);
    if (f2) EQU(t_count_class(f2, ck), 3);
    EERR(fief_realm_refresh(r, NULL), FIEF_ERR_ALREADY_IN_TRANSACTION);
    EERR(fief_realm_invalidate(r), FIEF_ERR_ALREADY_IN_TRANSACTION);
    E(fief_realm_cancel(r));
    fief_release(f2);
    fief_release(fz.frozen);
    fief_release(o3);
    fief_release(o);
    fief_release(r);
}

static const t_case cases[] = {
    T(version_functions), T(config_options), T(open_close), T(close_cancels_transaction),
    T(file_delete), T(transactions), T(version_numbers), T(refresh_and_liveness),
    T(freeze_thaw_resolve), T(frozen_from_other_thread), T(wrong_thread), T(in_memory),
    T(read_only), T(release_order_and_refcounts), T(resolve_in_with_a_closed_realm),
    T(freeze_from_another_thread_during_a_write),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
