/* Schema definition, introspection, evolution and mismatch. */
#include "fief_test.h"

#include <stdlib.h>

static fief_schema_t *one_class(const char *cls, const fief_property_info_t *props, size_t n) {
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = cls;
    c.num_properties = n;
    const fief_property_info_t *pp[1] = {props};
    return fief_schema_new(&c, 1, pp);
}

TEST(schema_new_and_introspect) {
    fief_schema_t *s = t_std_schema();
    R(s != NULL);
    size_t n = 0;
    E(fief_schema_get_class_count(s, &n));
    EQU(n, 5);
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    E(fief_schema_get_class(s, 0, &c));
    R(c.name != NULL);
    E(strcmp(c.name, "AllTypes") == 0);
    EQU(c.num_properties, 22);
    E(c.primary_key != NULL && strcmp(c.primary_key, "id") == 0);
    E(fief_schema_get_class(s, 4, &c));
    E(c.name && strcmp(c.name, "NoPk") == 0);
    E(c.primary_key == NULL);
    EERR(fief_schema_get_class(s, 5, &c), FIEF_ERR_INDEX_OUT_OF_BOUNDS);

    fief_property_info_t p;
    E(fief_schema_get_property(s, 0, 0, &p));
    E(p.name && strcmp(p.name, "id") == 0);
    EQI(p.type, FIEF_TYPE_INT);
    E(p.flags & FIEF_PROPERTY_PRIMARY_KEY);
    E(!(p.flags & FIEF_PROPERTY_NULLABLE));
    EQI(p.collection_type, FIEF_COLLECTION_NONE);
    E(fief_schema_get_property(s, 0, 13, &p)); /* "os" */
    E(p.name && strcmp(p.name, "os") == 0);
    EQI(p.type, FIEF_TYPE_STRING);
    E(p.flags & FIEF_PROPERTY_NULLABLE);
    E(fief_schema_get_property(s, 0, 21, &p));
    E(p.name && strcmp(p.name, "idx") == 0);
    E(p.flags & FIEF_PROPERTY_INDEXED);
    EERR(fief_schema_get_property(s, 0, 22, &p), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_schema_get_property(s, 9, 0, &p), FIEF_ERR_INDEX_OUT_OF_BOUNDS);

    bool found = false;
    size_t idx = 99;
    E(fief_schema_find_class(s, "UuidPk", &c, &idx, &found));
    E(found);
    EQU(idx, 3);
    E(c.primary_key && strcmp(c.primary_key, "uuid") == 0);
    E(fief_schema_find_class(s, "UuidPk", NULL, NULL, &found) && found);
    E(fief_schema_find_class(s, "Nope", &c, &idx, &found));
    E(!found);
    E(fief_schema_find_property(s, 3, "value", &p, &found) && found);
    EQI(p.type, FIEF_TYPE_INT);
    E(fief_schema_find_property(s, 3, "nope", &p, &found) && !found);
    EERR(fief_schema_find_property(s, 7, "value", &p, &found), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_schema_find_class(s, NULL, &c, &idx, &found), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_schema_find_class(s, "x", &c, &idx, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_schema_get_class_count(s, NULL), FIEF_ERR_INVALID_ARGUMENT);
    /* Strings read back are copies: the schema outlives its definition. */
    E(fief_release(s));
    EERR(fief_schema_get_class_count(s, &n), FIEF_ERR_INVALID_HANDLE);
}

TEST(schema_copies_arguments) {
    char name[16], pname[16];
    strcpy(name, "Thing");
    strcpy(pname, "weight");
    fief_property_info_t p = t_prop_info(pname, FIEF_TYPE_DOUBLE, 0);
    fief_schema_t *s = one_class(name, &p, 1);
    R(s != NULL);
    memset(name, 'x', sizeof name - 1);
    memset(pname, 'y', sizeof pname - 1);
    fief_class_info_t c;
    E(fief_schema_get_class(s, 0, &c));
    E(c.name && strcmp(c.name, "Thing") == 0);
    fief_property_info_t q;
    E(fief_schema_get_property(s, 0, 0, &q));
    E(q.name && strcmp(q.name, "weight") == 0);
    EQI(q.type, FIEF_TYPE_DOUBLE);
    fief_release(s);
}

TEST(schema_invalid) {
    fief_property_info_t ok = t_prop_info("a", FIEF_TYPE_INT, 0);
    /* NULL arrays */
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "C";
    c.num_properties = 1;
    EERR(fief_schema_new(NULL, 1, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_schema_new(&c, 1, NULL), FIEF_ERR_INVALID_ARGUMENT);
    const fief_property_info_t *nullprops[1] = {NULL};
    EERR(fief_schema_new(&c, 1, nullprops), FIEF_ERR_INVALID_ARGUMENT);
    /* empty names */
    EERR(one_class("", &ok, 1), FIEF_ERR_INVALID_SCHEMA);
    fief_property_info_t empty = t_prop_info("", FIEF_TYPE_INT, 0);
    EERR(one_class("C", &empty, 1), FIEF_ERR_INVALID_SCHEMA);
    /* duplicate property names */
    fief_property_info_t dup[2] = {t_prop_info("a", FIEF_TYPE_INT, 0), t_prop_info("a", FIEF_TYPE_STRING, 0)};
    EERR(one_class("C", dup, 2), FIEF_ERR_INVALID_SCHEMA);
    /* duplicate class names */
    fief_class_info_t two[2];
    memset(two, 0, sizeof two);
    two[0].name = two[1].name = "Same";
    two[0].num_properties = two[1].num_properties = 1;
    const fief_property_info_t *pp[2] = {&ok, &ok};
    EERR(fief_schema_new(two, 2, pp), FIEF_ERR_INVALID_SCHEMA);
    /* unknown types */
    fief_property_info_t bad = t_prop_info("a", 99, 0);
    EERR(one_class("C", &bad, 1), FIEF_ERR_INVALID_SCHEMA);
    bad = t_prop_info("a", FIEF_TYPE_NULL, 0);
    EERR(one_class("C", &bad, 1), FIEF_ERR_INVALID_SCHEMA);
    bad = t_prop_info("a", -1, 0);
    EERR(one_class("C", &bad, 1), FIEF_ERR_INVALID_SCHEMA);
    /* two primary keys */
    fief_property_info_t twopk[2] = {t_prop_info("a", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                     t_prop_info("b", FIEF_TYPE_STRING, FIEF_PROPERTY_PRIMARY_KEY)};
    EERR(one_class("C", twopk, 2), FIEF_ERR_INVALID_SCHEMA);
    /* primary keys of other types */
    const fief_type_t badpk[] = {FIEF_TYPE_BOOL, FIEF_TYPE_BINARY, FIEF_TYPE_TIMESTAMP, FIEF_TYPE_FLOAT,
                                 FIEF_TYPE_DOUBLE, FIEF_TYPE_DECIMAL128};
    for (size_t i = 0; i < sizeof badpk / sizeof badpk[0]; i++) {
        bad = t_prop_info("a", badpk[i], FIEF_PROPERTY_PRIMARY_KEY);
        EERR(one_class("C", &bad, 1), FIEF_ERR_INVALID_SCHEMA);
    }
    /* valid primary keys */
    const fief_type_t goodpk[] = {FIEF_TYPE_INT, FIEF_TYPE_STRING, FIEF_TYPE_OBJECT_ID, FIEF_TYPE_UUID};
    for (size_t i = 0; i < 4; i++) {
        fief_property_info_t g = t_prop_info("a", goodpk[i], FIEF_PROPERTY_PRIMARY_KEY);
        fief_schema_t *s = one_class("C", &g, 1);
        E(s != NULL);
        fief_release(s);
    }
    /* indexes on float/double/binary/decimal128 */
    const fief_type_t badidx[] = {FIEF_TYPE_FLOAT, FIEF_TYPE_DOUBLE, FIEF_TYPE_BINARY, FIEF_TYPE_DECIMAL128};
    for (size_t i = 0; i < 4; i++) {
        bad = t_prop_info("a", badidx[i], FIEF_PROPERTY_INDEXED);
        EERR(one_class("C", &bad, 1), FIEF_ERR_INVALID_SCHEMA);
    }
    const fief_type_t goodidx[] = {FIEF_TYPE_INT, FIEF_TYPE_BOOL, FIEF_TYPE_STRING, FIEF_TYPE_TIMESTAMP,
                                   FIEF_TYPE_OBJECT_ID, FIEF_TYPE_UUID};
    for (size_t i = 0; i < sizeof goodidx / sizeof goodidx[0]; i++) {
        fief_property_info_t g = t_prop_info("a", goodidx[i], FIEF_PROPERTY_INDEXED);
        fief_schema_t *s = one_class("C", &g, 1);
        E(s != NULL);
        fief_release(s);
    }
}

TEST(realm_schema_keys) {
    fief_realm_t *r = t_open_std();
    R(r != NULL);
    fief_schema_t *s = fief_realm_get_schema(r);
    R(s != NULL);
    size_t n = 0;
    E(fief_schema_get_class_count(s, &n));
    EQU(n, 5);
    fief_class_key_t keys[5] = {0};
    for (size_t i = 0; i < n && i < 5; i++) {
        fief_class_info_t c;
        E(fief_schema_get_class(s, i, &c));
        keys[i] = c.key;
        E(c.key != 0);
        for (size_t j = 0; j < i; j++) E(keys[j] != c.key);
        fief_property_key_t pk[32] = {0};
        for (size_t p = 0; p < c.num_properties && p < 32; p++) {
            fief_property_info_t info;
            E(fief_schema_get_property(s, i, p, &info));
            pk[p] = info.key;
            E(info.key != 0);
            E(info.link_target == NULL);
            for (size_t q = 0; q < p; q++) E(pk[q] != info.key);
        }
    }
    fief_class_info_t c;
    bool found;
    E(fief_schema_find_class(s, "StrPk", &c, NULL, &found) && found);
    E(c.primary_key && strcmp(c.primary_key, "name") == 0);
    fief_property_info_t p;
    E(fief_schema_find_property(s, 0, "ouuid", &p, &found) && found);
    EQI(p.type, FIEF_TYPE_UUID);
    E(p.flags & FIEF_PROPERTY_NULLABLE);
    E(fief_schema_find_property(s, 0, "idx", &p, &found) && found);
    E(p.flags & FIEF_PROPERTY_INDEXED);
    fief_property_key_t idx_key = p.key;
    fief_release(s);
    E(fief_realm_close(r));
    fief_release(r);

    /* Reopen without a schema: the file's schema, the same keys. */
    r = t_open(t_path("std.fief"), NULL, 0);
    R(r != NULL);
    s = fief_realm_get_schema(r);
    R(s != NULL);
    E(fief_schema_get_class_count(s, &n));
    EQU(n, 5);
    E(fief_schema_find_class(s, "AllTypes", &c, NULL, &found) && found);
    EQU(c.key, keys[0]);
    E(fief_schema_find_property(s, 0, "idx", &p, &found) && found);
    EQU(p.key, idx_key);
    EQU(t_class(r, "NoPk"), keys[4]);
    fief_release(s);
    fief_release(r);
}

static fief_schema_t *ab_schema(bool with_b, fief_type_t a_type, bool with_class2) {
    fief_property_info_t props[2] = {t_prop_info("a", a_type, 0), t_prop_info("b", FIEF_TYPE_STRING, 0)};
    fief_property_info_t props2[1] = {t_prop_info("z", FIEF_TYPE_INT, 0)};
    fief_class_info_t c[2];
    memset(c, 0, sizeof c);
    c[0].name = "Item";
    c[0].num_properties = with_b ? 2 : 1;
    c[1].name = "Other";
    c[1].num_properties = 1;
    const fief_property_info_t *pp[2] = {props, props2};
    return fief_schema_new(c, with_class2 ? 2 : 1, pp);
}

static void put_item(const char *path, const fief_schema_t *s, uint64_t version, fief_value_t v) {
    fief_realm_t *r = t_open(path, s, version);
    R(r != NULL);
    fief_class_key_t ck = t_class(r, "Item");
    fief_property_key_t pa = t_prop(r, "Item", "a");
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, ck, &pa, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    E(o != NULL);
    E(fief_realm_commit(r));
    fief_release(o);
    fief_release(r);
}

TEST(additive_schema_change) {
    const char *path = t_path("add.fief");
    fief_schema_t *s1 = ab_schema(false, FIEF_TYPE_INT, false);
    fief_schema_t *s2 = ab_schema(true, FIEF_TYPE_INT, true);
    R(s1 && s2);
    put_item(path, s1, 0, vi(7));
    fief_realm_t *r = t_open(path, s1, 0);
    R(r);
    fief_property_key_t old_a = t_prop(r, "Item", "a");
    fief_release(r);
    /* New property and new class at the same version: applied. */
    r = t_open(path, s2, 0);
    R(r != NULL);
    EQU(t_prop(r, "Item", "a"), old_a);
    fief_class_key_t ck = t_class(r, "Item");
    fief_property_key_t pb = t_prop(r, "Item", "b");
    E(t_class(r, "Other") != 0);
    fief_results_t *all = fief_realm_get_objects(r, ck);
    R(all);
    EQU(t_count(all), 1);
    fief_object_t *o = fief_results_get_object(all, 0);
    R(o);
    EQI(t_get_int(o, old_a), 7);
    EQV(t_get(o, pb), vs("")); /* the new non-optional string defaults to "" */
    fief_release(o);
    fief_release(all);
    fief_release(r);
    /* A subset of the file's classes is fine: "Other" is simply not asked
     * for, and Item keeps its keys and data. */
    fief_schema_t *s_items = ab_schema(true, FIEF_TYPE_INT, false);
    R(s_items);
    r = t_open(path, s_items, 0);
    R(r != NULL);
    EQU(t_prop(r, "Item", "a"), old_a);
    EQU(t_prop(r, "Item", "b"), pb);
    EQU(t_count_class(r, t_class(r, "Item")), 1);
    fief_release(r);
    fief_release(s_items);
    /* A subset of a class's properties (Item without "b") is not additive:
     * removing a property needs a higher schema version (as in Realm). */
    EERR(t_open(path, s1, 0), FIEF_ERR_SCHEMA_MISMATCH);
    fief_schema_t *s_no_b = ab_schema(false, FIEF_TYPE_INT, true);
    R(s_no_b);
    EERR(t_open(path, s_no_b, 0), FIEF_ERR_SCHEMA_MISMATCH);
    fief_release(s_no_b);
    /* The failed opens changed nothing. */
    r = t_open(path, s2, 0);
    R(r != NULL);
    EQU(t_prop(r, "Item", "b"), pb);
    EQU(t_count_class(r, t_class(r, "Item")), 1);
    fief_release(r);
    fief_release(s1);
    fief_release(s2);
}

/* Look a class / property up in the realm's current schema without failing
 * the test when it is missing (t_class / t_prop would). */
static bool has_class(fief_realm_t *r, const char *cls) {
    fief_schema_t *s = fief_realm_get_schema(r);
    if (!s) return false;
    bool found = false;
    if (!fief_schema_find_class(s, cls, NULL, NULL, &found)) found = false;
    fief_release(s);
    return found;
}

static bool schema_has_property(const fief_schema_t *s, const char *cls, const char *prop) {
    bool found = false;
    size_t idx = 0;
    if (!fief_schema_find_class(s, cls, NULL, &idx, &found) || !found) return false;
    found = false;
    fief_property_info_t p;
    if (!fief_schema_find_property(s, idx, prop, &p, &found)) return false;
    return found;
}

static bool has_property(fief_realm_t *r, const char *cls, const char *prop) {
    fief_schema_t *s = fief_realm_get_schema(r);
    if (!s) return false;
    bool found = schema_has_property(s, cls, prop);
    fief_release(s);
    return found;
}

TEST(update_schema) {
    const char *path = t_path("upd.fief");
    fief_schema_t *s1 = ab_schema(false, FIEF_TYPE_INT, false); /* Item { a } */
    fief_schema_t *s2 = ab_schema(true, FIEF_TYPE_INT, true);   /* Item { a, b }, Other { z } */
    R(s1 && s2);
    put_item(path, s1, 4, vi(7));
    fief_realm_t *r = t_open(path, s1, 4);
    R(r);
    fief_class_key_t ck = t_class(r, "Item");
    fief_property_key_t pa = t_prop(r, "Item", "a");
    fief_schema_t *before = fief_realm_get_schema(r);
    R(before);

    /* Inside a write transaction the change is part of it ... */
    R(fief_realm_begin_write(r));
    E(fief_realm_update_schema(r, s2));
    E(has_property(r, "Item", "b"));
    E(has_class(r, "Other"));
    E(!schema_has_property(before, "Item", "b")); /* an earlier schema handle keeps the old schema */
    fief_class_key_t other = t_class(r, "Other");
    fief_property_key_t pz = t_prop(r, "Other", "z");
    fief_value_t z = vi(5);
    fief_object_t *o = fief_object_create(r, other, &pz, &z, 1, FIEF_UPDATE_POLICY_ERROR);
    E(o != NULL);
    fief_release(o);
    EQU(t_count_class(r, other), 1);
    {
        /* Frozen in that write: the version it began from, with that version's schema. */
        fief_realm_t *frozen = fief_realm_freeze(r);
        R(frozen);
        E(!has_class(frozen, "Other"));
        E(!has_property(frozen, "Item", "b"));
        EQU(t_count_class(frozen, ck), 1);
        E(fief_release(frozen));
    }
    /* ... and fief_realm_cancel undoes it. */
    E(fief_realm_cancel(r));
    E(!has_property(r, "Item", "b"));
    E(!has_class(r, "Other"));
    EQU(t_prop(r, "Item", "a"), pa);
    EQU(t_count_class(r, ck), 1);

    /* Committed with its transaction. */
    R(fief_realm_begin_write(r));
    E(fief_realm_update_schema(r, s2));
    E(fief_realm_commit(r));
    E(has_property(r, "Item", "b"));
    E(has_class(r, "Other"));
    fief_release(r);
    /* The file keeps the new schema, at the same schema version. */
    r = t_open(path, NULL, 0);
    R(r);
    E(has_property(r, "Item", "b"));
    E(has_class(r, "Other"));
    EQU(t_prop(r, "Item", "a"), pa);
    EQU(t_count_class(r, t_class(r, "Item")), 1);
    fief_release(r);
    EERR(t_open(path, s2, 3), FIEF_ERR_SCHEMA_VERSION);
    r = t_open(path, s2, 4);
    R(r);

    /* Outside a write transaction it commits on its own; classes and
     * properties the schema does not mention are kept. */
    fief_property_info_t nprops[1] = {t_prop_info("n", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE)};
    fief_schema_t *s_new = one_class("New", nprops, 1);
    R(s_new);
    E(fief_realm_update_schema(r, s_new));
    bool in_tx = true;
    E(fief_realm_is_in_transaction(r, &in_tx) && !in_tx);
    E(has_class(r, "New"));
    E(has_class(r, "Other"));
    E(has_property(r, "Item", "b"));
    fief_realm_t *r2 = t_open(path, NULL, 0);
    R(r2);
    E(has_class(r2, "New"));
    fief_release(r2);
    /* A realm opened before the change sees it after a refresh. */
    fief_property_info_t mprops[1] = {t_prop_info("m", FIEF_TYPE_INT, 0)};
    fief_schema_t *s_more = one_class("More", mprops, 1);
    R(s_more);
    r2 = t_open(path, NULL, 0);
    R(r2);
    E(fief_realm_update_schema(r, s_more));
    E(fief_realm_refresh(r2, NULL));
    E(has_class(r2, "More"));
    fief_release(r2);
    fief_release(s_more);
    /* The same schema again changes nothing and succeeds. */
    E(fief_realm_update_schema(r, s_new));

    /* Non-additive changes fail, inside and outside a transaction, and
     * change nothing. */
    fief_schema_t *s_type = ab_schema(true, FIEF_TYPE_STRING, false); /* a: int -> string */
    R(s_type);
    EERR(fief_realm_update_schema(r, s_type), FIEF_ERR_SCHEMA_MISMATCH);
    fief_property_info_t nullable_a[2] = {t_prop_info("a", FIEF_TYPE_INT, FIEF_PROPERTY_NULLABLE),
                                          t_prop_info("b", FIEF_TYPE_STRING, 0)};
    fief_schema_t *s_null = one_class("Item", nullable_a, 2);
    R(s_null);
    R(fief_realm_begin_write(r));
    EERR(fief_realm_update_schema(r, s_null), FIEF_ERR_SCHEMA_MISMATCH);
    EERR(fief_realm_update_schema(r, s_type), FIEF_ERR_SCHEMA_MISMATCH);
    /* the transaction is still usable */
    fief_value_t a9 = vi(9);
    o = fief_object_create(r, ck, &pa, &a9, 1, FIEF_UPDATE_POLICY_ERROR);
    E(o != NULL);
    fief_release(o);
    E(fief_realm_commit(r));
    EQU(t_count_class(r, ck), 2);
    fief_schema_t *now = fief_realm_get_schema(r);
    R(now);
    fief_property_info_t p;
    bool found = false;
    size_t idx = 0;
    E(fief_schema_find_class(now, "Item", NULL, &idx, &found) && found);
    E(fief_schema_find_property(now, idx, "a", &p, &found) && found);
    EQI(p.type, FIEF_TYPE_INT);
    E(!(p.flags & FIEF_PROPERTY_NULLABLE));
    fief_release(now);

    /* Invalid schemas, bad handles, frozen and read-only realms. */
    EERR(fief_realm_update_schema(r, NULL), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_realm_update_schema(NULL, s2), FIEF_ERR_INVALID_HANDLE);
    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen);
    EERR(fief_realm_update_schema(frozen, s_new), FIEF_ERR_FROZEN);
    fief_release(frozen);
    fief_release(r);
    fief_config_t *cfg = fief_config_new();
    R(cfg);
    E(fief_config_set_path(cfg, path));
    E(fief_config_set_read_only(cfg, true));
    fief_realm_t *ro = fief_realm_open(cfg);
    R(ro);
    EERR(fief_realm_update_schema(ro, s_new), FIEF_ERR_READ_ONLY);
    fief_release(ro);
    fief_release(cfg);
    /* A closed realm. */
    r = t_open(path, NULL, 0);
    R(r);
    E(fief_realm_close(r));
    EERR(fief_realm_update_schema(r, s_new), FIEF_ERR_CLOSED);
    fief_release(r);

    fief_release(before);
    fief_release(s_null);
    fief_release(s_type);
    fief_release(s_new);
    fief_release(s1);
    fief_release(s2);
}

/* fief_realm_update_schema from another thread while a write transaction is
 * open on this one. */
static fief_realm_t *g_upd_realm;
static fief_schema_t *g_upd_schema;
static fief_error_code_t g_upd_code;
static void *update_from_thread(void *arg) {
    (void)arg;
    fief_clear_last_error();
    g_upd_code = FIEF_OK;
    if (!fief_realm_update_schema(g_upd_realm, g_upd_schema)) {
        fief_error_t e;
        if (fief_get_last_error(&e)) g_upd_code = e.code;
    }
    return NULL;
}

TEST(update_schema_wrong_thread) {
    fief_schema_t *s1 = ab_schema(false, FIEF_TYPE_INT, false);
    fief_schema_t *s2 = ab_schema(true, FIEF_TYPE_INT, true);
    R(s1 && s2);
    fief_realm_t *r = t_open(t_path("updt.fief"), s1, 0);
    R(r);
    R(fief_realm_begin_write(r));
    g_upd_realm = r;
    g_upd_schema = s2;
    t_run_thread(update_from_thread, NULL);
    EQI(g_upd_code, FIEF_ERR_WRONG_THREAD);
    E(!has_property(r, "Item", "b"));
    E(fief_realm_cancel(r));
    fief_release(r);
    fief_release(s1);
    fief_release(s2);
}

TEST(schema_mismatch_same_version) {
    const char *path = t_path("mm.fief");
    fief_schema_t *s1 = ab_schema(true, FIEF_TYPE_INT, false);
    fief_schema_t *s2 = ab_schema(true, FIEF_TYPE_STRING, false); /* a: int -> string */
    R(s1 && s2);
    put_item(path, s1, 3, vi(1));
    EERR(t_open(path, s2, 3), FIEF_ERR_SCHEMA_MISMATCH);
    fief_error_t err;
    if (fief_get_last_error(&err)) E(err.categories & FIEF_ERR_CAT_SCHEMA);
    /* A nullability change is not additive either. */
    fief_property_info_t props[2] = {t_prop_info("a", FIEF_TYPE_INT, FIEF_PROPERTY_NULLABLE),
                                     t_prop_info("b", FIEF_TYPE_STRING, 0)};
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "Item";
    c.num_properties = 2;
    const fief_property_info_t *pp[1] = {props};
    fief_schema_t *s3 = fief_schema_new(&c, 1, pp);
    R(s3);
    EERR(t_open(path, s3, 3), FIEF_ERR_SCHEMA_MISMATCH);
    /* The file is intact after the failed opens. */
    fief_realm_t *r = t_open(path, s1, 3);
    R(r);
    EQU(t_count_class(r, t_class(r, "Item")), 1);
    fief_release(r);
    fief_release(s1);
    fief_release(s2);
    fief_release(s3);
}

TEST(schema_version_lower_fails_higher_migrates) {
    const char *path = t_path("ver.fief");
    fief_schema_t *s1 = ab_schema(true, FIEF_TYPE_INT, false);
    fief_schema_t *s2 = ab_schema(true, FIEF_TYPE_STRING, false);
    R(s1 && s2);
    put_item(path, s1, 5, vi(42));
    EERR(t_open(path, s1, 4), FIEF_ERR_SCHEMA_VERSION);
    EERR(t_open(path, s1, 0), FIEF_ERR_SCHEMA_VERSION);
    fief_realm_t *r = t_open(path, s1, 5);
    E(r != NULL);
    fief_release(r);
    /* A higher version allows the type change; the changed property is reset. */
    r = t_open(path, s2, 6);
    R(r != NULL);
    fief_class_key_t ck = t_class(r, "Item");
    fief_property_key_t pa = t_prop(r, "Item", "a");
    fief_results_t *all = fief_realm_get_objects(r, ck);
    R(all);
    EQU(t_count(all), 1);
    fief_object_t *o = fief_results_get_object(all, 0);
    if (o) {
        fief_value_t v = t_get(o, pa);
        EQI(v.type, FIEF_TYPE_STRING);
        fief_release(o);
    }
    fief_release(all);
    fief_release(r);
    EERR(t_open(path, s2, 5), FIEF_ERR_SCHEMA_VERSION);
    /* Removing a property with a raised version drops it. */
    fief_schema_t *s3 = ab_schema(false, FIEF_TYPE_STRING, false);
    r = t_open(path, s3, 7);
    R(r);
    fief_schema_t *rs = fief_realm_get_schema(r);
    fief_class_info_t c;
    bool found = false;
    E(rs && fief_schema_find_class(rs, "Item", &c, NULL, &found) && found);
    EQU(c.num_properties, 1);
    fief_release(rs);
    fief_release(r);
    fief_release(s1);
    fief_release(s2);
    fief_release(s3);
}

TEST(delete_if_migration_needed) {
    const char *path = t_path("dimn.fief");
    fief_schema_t *s1 = ab_schema(true, FIEF_TYPE_INT, false);
    fief_schema_t *s2 = ab_schema(true, FIEF_TYPE_STRING, false);
    R(s1 && s2);
    put_item(path, s1, 0, vi(1));
    put_item(path, s1, 0, vi(2));
    fief_config_t *cfg = fief_config_new();
    R(cfg);
    E(fief_config_set_path(cfg, path));
    E(fief_config_set_schema(cfg, s2));
    E(fief_config_set_delete_if_migration_needed(cfg, true));
    fief_realm_t *r = fief_realm_open(cfg);
    R(r != NULL);
    fief_class_key_t ck = t_class(r, "Item");
    EQU(t_count_class(r, ck), 0);
    fief_schema_t *rs = fief_realm_get_schema(r);
    fief_property_info_t p;
    bool found = false;
    E(rs && fief_schema_find_property(rs, 0, "a", &p, &found) && found);
    EQI(p.type, FIEF_TYPE_STRING);
    fief_release(rs);
    fief_release(r);
    /* Without a mismatch the flag keeps the data. */
    put_item(path, s2, 0, vs("x"));
    r = fief_realm_open(cfg);
    R(r != NULL);
    EQU(t_count_class(r, t_class(r, "Item")), 1);
    fief_release(r);
    fief_release(cfg);
    fief_release(s1);
    fief_release(s2);
}

TEST(read_only_schema_change_fails) {
    const char *path = t_path("ro.fief");
    fief_schema_t *s1 = ab_schema(false, FIEF_TYPE_INT, false);
    fief_schema_t *s2 = ab_schema(true, FIEF_TYPE_INT, false);
    R(s1 && s2);
    put_item(path, s1, 0, vi(1));
    fief_config_t *cfg = fief_config_new();
    R(cfg);
    E(fief_config_set_path(cfg, path));
    E(fief_config_set_read_only(cfg, true));
    E(fief_config_set_schema(cfg, s2));
    EERR(fief_realm_open(cfg), FIEF_ERR_READ_ONLY);
    E(fief_config_set_schema(cfg, s1));
    fief_realm_t *r = fief_realm_open(cfg);
    E(r != NULL);
    fief_release(r);
    fief_release(cfg);
    fief_release(s1);
    fief_release(s2);
}



/* `unit` `n` times then `tail`, in a malloc'ed string. */
static char *name_of(const char *unit, int n, const char *tail) {
    char *s = malloc(strlen(unit) * (size_t)n + strlen(tail) + 1);
    if (!s) return NULL;
    s[0] = 0;
    for (int i = 0; i < n; i++) strcat(s, unit);
    strcat(s, tail);
    return s;
}

TEST(name_length_limit) {
    /* The documented limit: class and property names are 1 to 255 bytes of UTF-8. */
    char *c255 = name_of("C", 255, ""), *c256 = name_of("C", 256, "");
    char *p255 = name_of("\xc3\xa9", 127, "a"), *p256 = name_of("\xc3\xa9", 128, ""); /* bytes, not characters */
    R(c255 && c256 && p255 && p256);
    E(strlen(c255) == 255 && strlen(p255) == 255 && strlen(p256) == 256);
    fief_property_info_t ok = t_prop_info("a", FIEF_TYPE_INT, 0);
    fief_property_info_t long_ok = t_prop_info(p255, FIEF_TYPE_INT, 0);
    fief_property_info_t too_long = t_prop_info(p256, FIEF_TYPE_INT, 0);
    EERR(one_class(c256, &ok, 1), FIEF_ERR_INVALID_SCHEMA);
    EMSG("(256 bytes): names are 1 to 255 bytes of UTF-8");
    EERR(one_class("C", &too_long, 1), FIEF_ERR_INVALID_SCHEMA);
    EMSG("(256 bytes): names are 1 to 255 bytes of UTF-8");
    EERR(one_class("", &ok, 1), FIEF_ERR_INVALID_SCHEMA);
    EMSG("names are 1 to 255 bytes");
    /* 255 bytes work, through a realm and back */
    fief_schema_t *s = one_class(c255, &long_ok, 1);
    R(s);
    fief_realm_t *r = t_open(t_path("names.fief"), s, 0);
    fief_release(s);
    R(r);
    fief_property_key_t pk = t_prop(r, c255, p255);
    E(pk != 0);
    R(fief_realm_begin_write(r));
    fief_value_t v = vi(42);
    fief_object_t *o = fief_object_create(r, t_class(r, c255), &pk, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    E(o);
    fief_release(o);
    E(fief_realm_commit(r));
    fief_release(r);
    r = t_open(t_path("names.fief"), NULL, 0);
    R(r);
    fief_results_t *res = fief_realm_get_objects(r, t_class(r, c255));
    R(res);
    EQU(t_count(res), 1);
    fief_release(res);
    fief_release(r);
    free(c255);
    free(c256);
    free(p255);
    free(p256);
}

TEST(class_and_property_count_limits) {
    /* The documented limits: 99999 classes in a schema, 60000 properties in a class. */
    enum { NP = 60001, NC = 100000 };
    fief_property_info_t *props = calloc(NP, sizeof *props);
    char (*pnames)[8] = calloc(NP, sizeof *pnames);
    R(props && pnames);
    for (int i = 0; i < NP; i++) {
        snprintf(pnames[i], sizeof pnames[i], "p%d", i);
        props[i] = t_prop_info(pnames[i], FIEF_TYPE_INT, 0);
    }
    fief_schema_t *s = one_class("C", props, NP - 1);
    E(s != NULL);
    fief_release(s);
    EERR(one_class("C", props, NP), FIEF_ERR_INVALID_SCHEMA);
    EMSG("a class has at most 60000");
    fief_class_info_t *classes = calloc(NC, sizeof *classes);
    const fief_property_info_t **pp = calloc(NC, sizeof *pp);
    char (*cnames)[8] = calloc(NC, sizeof *cnames);
    R(classes && pp && cnames);
    for (int i = 0; i < NC; i++) {
        snprintf(cnames[i], sizeof cnames[i], "C%d", i);
        classes[i].name = cnames[i];
        classes[i].num_properties = 1;
        pp[i] = props;
    }
    s = fief_schema_new(classes, NC - 1, pp);
    E(s != NULL);
    fief_release(s);
    EERR(fief_schema_new(classes, NC, pp), FIEF_ERR_INVALID_SCHEMA);
    EMSG("a schema has at most 99999 classes");
    free(cnames);
    free(pp);
    free(classes);
    free(pnames);
    free(props);
}

static const t_case cases[] = {
    T(schema_new_and_introspect), T(schema_copies_arguments), T(schema_invalid),
    T(realm_schema_keys), T(additive_schema_change), T(schema_mismatch_same_version),
    T(schema_version_lower_fails_higher_migrates), T(delete_if_migration_needed),
    T(read_only_schema_change_fails), T(update_schema), T(update_schema_wrong_thread),
    T(name_length_limit), T(class_and_property_count_limits),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
