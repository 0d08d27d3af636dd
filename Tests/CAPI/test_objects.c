/* Objects: every scalar type, optionals and defaults, create / create_many /
 * find / get / set / delete / delete_all, primary keys and update policies. */
#include "fief_test.h"

#include <math.h>
#include <stdlib.h>

static const char *const base_names[] = {"i", "b", "s", "bin", "ts", "f", "d", "dec", "oid", "uuid"};
static const char *const opt_names[] = {"oi", "ob", "os", "obin", "ots", "of", "od", "odec", "ooid", "ouuid"};

typedef struct std_keys {
    fief_class_key_t all, strpk, oidpk, uuidpk, nopk;
    fief_property_key_t id, base[10], opt[10], idx;
    fief_property_key_t str_name, str_value, oid_oid, oid_value, uuid_uuid, uuid_value, no_value, no_label;
} std_keys;

static std_keys keys_of(fief_realm_t *r) {
    std_keys k;
    memset(&k, 0, sizeof k);
    k.all = t_class(r, "AllTypes");
    k.strpk = t_class(r, "StrPk");
    k.oidpk = t_class(r, "OidPk");
    k.uuidpk = t_class(r, "UuidPk");
    k.nopk = t_class(r, "NoPk");
    k.id = t_prop(r, "AllTypes", "id");
    for (int i = 0; i < 10; i++) {
        k.base[i] = t_prop(r, "AllTypes", base_names[i]);
        k.opt[i] = t_prop(r, "AllTypes", opt_names[i]);
    }
    k.idx = t_prop(r, "AllTypes", "idx");
    k.str_name = t_prop(r, "StrPk", "name");
    k.str_value = t_prop(r, "StrPk", "value");
    k.oid_oid = t_prop(r, "OidPk", "oid");
    k.oid_value = t_prop(r, "OidPk", "value");
    k.uuid_uuid = t_prop(r, "UuidPk", "uuid");
    k.uuid_value = t_prop(r, "UuidPk", "value");
    k.no_value = t_prop(r, "NoPk", "value");
    k.no_label = t_prop(r, "NoPk", "label");
    R(k.all && k.id && k.nopk && k.no_value);
    return k;
}

static const uint8_t blob[] = {0, 1, 2, 0xff, 0xfe, 0, 42};

/* One value of every base type (i = 0..9), distinct from the defaults. */
static fief_value_t sample(int i) {
    switch (i) {
    case 0: return vi(-1234567890123LL);
    case 1: return vb(true);
    case 2: return vsn("h\xc3\xa9llo\0w\xf0\x9f\x98\x80rld", 15); /* embedded NUL, 2- and 4-byte UTF-8 */
    case 3: return vbin(blob, sizeof blob);
    case 4: return vts(-86401, -500000000); /* before 1970: both negative */
    case 5: return vf(3.5f);
    case 6: return vd(-2.25e300);
    case 7: return vdec(0x0123456789abcdefULL, 0x3040000000000000ULL);
    case 8: return void12("5f1d7c3a0102030405060708");
    default: return vuuid("123e4567e89b12d3a456426614174000");
    }
}

static fief_value_t default_of(int i) {
    switch (i) {
    case 0: return vi(0);
    case 1: return vb(false);
    case 2: return vs("");
    case 3: return vbin(NULL, 0);
    case 4: return vts(0, 0);
    case 5: return vf(0.0f);
    case 6: return vd(0.0);
    case 7: return vdec(0, 0);
    case 8: return void12("000000000000000000000000");
    default: return vuuid("00000000000000000000000000000000");
    }
}

TEST(defaults) {
    fief_realm_t *r = t_open_std();
    R(r);
    std_keys k = keys_of(r);
    R(fief_realm_begin_write(r));
    fief_value_t id = vi(1);
    fief_object_t *o = fief_object_create(r, k.all, &k.id, &id, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    E(fief_realm_commit(r));
    EQV(t_get(o, k.id), vi(1));
    for (int i = 0; i < 10; i++) {
        fief_value_t v = t_get(o, k.base[i]);
        if (i == 4 || i == 7 || i == 3) {
            EQI(v.type, default_of(i).type);
        }
        if (i == 7 && v.type == FIEF_TYPE_DECIMAL128 && v.u.decimal128.w[0] == 0 &&
            (v.u.decimal128.w[1] & 0x7fffffffffffffffULL) >> 49 == 0x3040000000000000ULL >> 49)
            ; /* "0" in BID with exponent 0 (0E+0): also zero; the header does not fix the encoding */
        else
            EQV(v, default_of(i));
        EQV(t_get(o, k.opt[i]), vnull());
    }
    EQV(t_get(o, k.idx), vi(0));
    /* NoPk with no values at all */
    R(fief_realm_begin_write(r));
    fief_object_t *n = fief_object_create(r, k.nopk, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(n);
    E(fief_realm_commit(r));
    EQV(t_get(n, k.no_value), vi(0));
    EQV(t_get(n, k.no_label), vnull());
    fief_release(n);
    fief_release(o);
    fief_release(r);
}

TEST(every_type_roundtrip) {
    fief_realm_t *r = t_open_std();
    R(r);
    std_keys k = keys_of(r);
    fief_property_key_t props[21];
    fief_value_t vals[21];
    props[0] = k.id;
    vals[0] = vi(7);
    for (int i = 0; i < 10; i++) {
        props[1 + i] = k.base[i];
        vals[1 + i] = sample(i);
        props[11 + i] = k.opt[i];
        vals[11 + i] = sample(i);
    }
    R(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, k.all, props, vals, 21, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    /* readable inside the transaction */
    for (int i = 0; i < 10; i++) EQV(t_get(o, k.base[i]), sample(i));
    E(fief_realm_commit(r));
    for (int i = 0; i < 10; i++) {
        EQV(t_get(o, k.base[i]), sample(i));
        EQV(t_get(o, k.opt[i]), sample(i));
    }
    /* get_values: one crossing */
    fief_value_t out[21];
    E(fief_object_get_values(o, props, 21, out));
    for (int i = 0; i < 21; i++) EQV(out[i], vals[i]);
    /* set optionals to null and back, base values to others */
    R(fief_realm_begin_write(r));
    for (int i = 0; i < 10; i++) {
        E(fief_object_set_value(o, k.opt[i], vnull()));
        E(fief_object_set_value(o, k.base[i], default_of(i)));
    }
    E(fief_realm_commit(r));
    for (int i = 0; i < 10; i++) {
        EQV(t_get(o, k.opt[i]), vnull());
        EQV(t_get(o, k.base[i]), default_of(i));
    }
    /* Survives reopen. */
    R(fief_realm_begin_write(r));
    E(fief_object_set_values(o, props + 1, vals + 1, 20));
    E(fief_realm_commit(r));
    fief_object_key_t key = 0;
    E(fief_object_get_key(o, &key));
    fief_release(o);
    fief_release(r);
    r = t_open_std();
    R(r);
    o = fief_object_get(r, k.all, key);
    R(o);
    E(fief_object_get_values(o, props, 21, out));
    for (int i = 0; i < 21; i++) EQV(out[i], vals[i]);
    fief_release(o);
    fief_release(r);
}

TEST(special_values) {
    fief_realm_t *r = t_open_std();
    R(r);
    std_keys k = keys_of(r);
    R(fief_realm_begin_write(r));
    fief_value_t id = vi(1);
    fief_object_t *o = fief_object_create(r, k.all, &k.id, &id, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    E(fief_object_set_value(o, k.base[0], vi(INT64_MIN)));
    EQV(t_get(o, k.base[0]), vi(INT64_MIN));
    E(fief_object_set_value(o, k.base[0], vi(INT64_MAX)));
    EQV(t_get(o, k.base[0]), vi(INT64_MAX));
    E(fief_object_set_value(o, k.base[6], vi(3)));
    EQV(t_get(o, k.base[6]), vd(3.0));
    E(fief_object_set_value(o, k.base[6], vf(1.5f)));
    EQV(t_get(o, k.base[6]), vd(1.5));
    E(fief_object_set_value(o, k.base[5], vd(2.5)));
    EQV(t_get(o, k.base[5]), vf(2.5f));
    E(fief_object_set_value(o, k.base[5], vi(-4)));
    EQV(t_get(o, k.base[5]), vf(-4.0f));
    E(fief_object_set_value(o, k.opt[6], vi(8)));
    EQV(t_get(o, k.opt[6]), vd(8.0));
    E(fief_object_set_value(o, k.base[6], vd(INFINITY)));
    EQV(t_get(o, k.base[6]), vd(INFINITY));
    E(fief_object_set_value(o, k.base[6], vd(-0.0)));
    fief_value_t nz = t_get(o, k.base[6]);
    E(nz.type == FIEF_TYPE_DOUBLE && nz.u.double_value == 0.0 && signbit(nz.u.double_value));
    E(fief_object_set_value(o, k.base[6], vd(NAN)));
    fief_value_t nan = t_get(o, k.base[6]);
    E(nan.type == FIEF_TYPE_DOUBLE && isnan(nan.u.double_value));
    E(fief_object_set_value(o, k.base[4], vts(1700000000, 999999999)));
    EQV(t_get(o, k.base[4]), vts(1700000000, 999999999));
    /* empty string vs null string in an optional */
    E(fief_object_set_value(o, k.opt[2], vs("")));
    EQV(t_get(o, k.opt[2]), vs(""));
    E(fief_object_set_value(o, k.opt[2], vsn(NULL, 0)));
    EQV(t_get(o, k.opt[2]), vs(""));
    E(fief_object_set_value(o, k.opt[3], vbin(NULL, 0)));
    EQV(t_get(o, k.opt[3]), vbin(NULL, 0));
    /* big values */
    size_t big = 1 << 20;
    uint8_t *buf = malloc(big);
    R(buf);
    for (size_t i = 0; i < big; i++) buf[i] = (uint8_t)(i * 131 + 7);
    E(fief_object_set_value(o, k.base[3], vbin(buf, big)));
    char *text = malloc(100001);
    for (size_t i = 0; i < 100000; i++) text[i] = (char)('a' + i % 26);
    text[100000] = 0;
    E(fief_object_set_value(o, k.base[2], vs(text)));
    E(fief_realm_commit(r));
    EQV(t_get(o, k.base[3]), vbin(buf, big));
    EQV(t_get(o, k.base[2]), vs(text));
    /* Input views are copied: changing the caller's buffer changes nothing. */
    memset(buf, 0, big);
    fief_value_t b = t_get(o, k.base[3]);
    E(b.type == FIEF_TYPE_BINARY && b.u.binary.size == big && b.u.binary.data[1] == (uint8_t)(131 + 7));
    free(buf);
    free(text);
    fief_release(o);
    fief_release(r);
}

TEST(value_errors) {
    fief_realm_t *r = t_open_std();
    R(r);
    std_keys k = keys_of(r);
    R(fief_realm_begin_write(r));
    fief_value_t id = vi(1);
    fief_object_t *o = fief_object_create(r, k.all, &k.id, &id, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    /* wrong types for every base type */
    for (int i = 0; i < 10; i++) {
        fief_value_t wrong = (i == 2) ? vi(1) : vs("x");
        EERR(fief_object_set_value(o, k.base[i], wrong), FIEF_ERR_TYPE_MISMATCH);
        EERR(fief_object_set_value(o, k.opt[i], wrong), FIEF_ERR_TYPE_MISMATCH);
        EERR(fief_object_set_value(o, k.base[i], vnull()), FIEF_ERR_NULL_NOT_ALLOWED);
    }
    EERR(fief_object_set_value(o, k.base[0], vd(1.0)), FIEF_ERR_TYPE_MISMATCH); /* no double -> int */
    EERR(fief_object_set_value(o, k.base[0], vb(true)), FIEF_ERR_TYPE_MISMATCH);
    EERR(fief_object_set_value(o, k.base[8], vuuid("00000000000000000000000000000001")), FIEF_ERR_TYPE_MISMATCH);
    fief_value_t weird = vi(1);
    /* a type tag outside FIEF_TYPE_NULL ... FIEF_TYPE_LINK is a bad argument */
    weird.type = 77;
    EERR(fief_object_set_value(o, k.base[0], weird), FIEF_ERR_INVALID_ARGUMENT);
    weird.type = -1;
    EERR(fief_object_set_value(o, k.opt[0], weird), FIEF_ERR_INVALID_ARGUMENT);
    weird.type = FIEF_TYPE_LINK + 1;
    EERR(fief_object_set_values(o, &k.base[0], &weird, 1), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_create(r, k.nopk, &k.no_value, &weird, 1, FIEF_UPDATE_POLICY_ERROR),
         FIEF_ERR_INVALID_ARGUMENT);
    /* invalid UTF-8 */
    EERR(fief_object_set_value(o, k.base[2], vsn("\xff\xfe", 2)), FIEF_ERR_INVALID_UTF8);
    EERR(fief_object_set_value(o, k.base[2], vsn("ab\xc3", 3)), FIEF_ERR_INVALID_UTF8);       /* truncated */
    EERR(fief_object_set_value(o, k.base[2], vsn("\xc0\xaf", 2)), FIEF_ERR_INVALID_UTF8);     /* overlong */
    EERR(fief_object_set_value(o, k.base[2], vsn("\xed\xa0\x80", 3)), FIEF_ERR_INVALID_UTF8); /* surrogate */
    EERR(fief_object_set_value(o, k.opt[2], vsn("\x80", 1)), FIEF_ERR_INVALID_UTF8);
    /* a NULL data pointer with a size */
    EERR(fief_object_set_value(o, k.base[2], vsn(NULL, 3)), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_set_value(o, k.base[3], vbin(NULL, 3)), FIEF_ERR_INVALID_ARGUMENT);
    /* unknown property keys (including another class's) */
    EERR(fief_object_set_value(o, 0, vi(1)), FIEF_ERR_NO_SUCH_PROPERTY);
    EERR(fief_object_set_value(o, 0x7fffffff, vi(1)), FIEF_ERR_NO_SUCH_PROPERTY);
    fief_value_t out;
    EERR(fief_object_get_value(o, 0x7fffffff, &out), FIEF_ERR_NO_SUCH_PROPERTY);
    EERR(fief_object_get_value(o, k.id, NULL), FIEF_ERR_INVALID_ARGUMENT);
    /* primary key changes */
    EERR(fief_object_set_value(o, k.id, vi(2)), FIEF_ERR_PRIMARY_KEY_CHANGE);
    E(fief_object_set_value(o, k.id, vi(1))); /* the same value is fine */
    /* set_values is all or nothing */
    fief_property_key_t ps[3] = {k.base[0], k.base[2], k.base[1]};
    fief_value_t vs3[3] = {vi(555), vs("changed"), vs("not a bool")};
    EERR(fief_object_set_values(o, ps, vs3, 3), FIEF_ERR_TYPE_MISMATCH);
    EQV(t_get(o, k.base[0]), vi(0));
    EQV(t_get(o, k.base[2]), vs(""));
    vs3[2] = vb(true);
    E(fief_object_set_values(o, ps, vs3, 3));
    EQV(t_get(o, k.base[0]), vi(555));
    E(fief_object_set_values(o, ps, vs3, 0));
    EERR(fief_object_set_values(o, NULL, vs3, 2), FIEF_ERR_INVALID_ARGUMENT);

    /* create errors */
    EERR(fief_object_create(r, 0, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_NO_SUCH_CLASS);
    EERR(fief_object_create(r, 0x7fffff, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_NO_SUCH_CLASS);
    EERR(fief_object_create(r, k.all, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_MISSING_PRIMARY_KEY);
    fief_property_key_t cp[2] = {k.id, k.base[0]};
    fief_value_t cv[2] = {vi(50), vs("bad")};
    EERR(fief_object_create(r, k.all, cp, cv, 2, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_TYPE_MISMATCH);
    cv[1] = vnull();
    EERR(fief_object_create(r, k.all, cp, cv, 2, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_NULL_NOT_ALLOWED);
    cp[1] = k.base[2];
    cv[1] = vsn("\xfe", 1);
    EERR(fief_object_create(r, k.all, cp, cv, 2, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_UTF8);
    cp[1] = 0x7ffffff;
    cv[1] = vi(1);
    EERR(fief_object_create(r, k.all, cp, cv, 2, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_NO_SUCH_PROPERTY);
    cp[1] = k.id;
    EERR(fief_object_create(r, k.all, cp, cv, 2, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_ARGUMENT); /* twice */
    cv[0] = vi(51);
    EERR(fief_object_create(r, k.all, cp, cv, 1, 7), FIEF_ERR_INVALID_ARGUMENT);   /* bad policy */
    EERR(fief_object_create(r, k.all, cp, cv, 1, -1), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_create(r, k.all, NULL, cv, 1, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_create(r, k.all, cp, NULL, 1, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_ARGUMENT);
    cv[0] = vs("1");
    EERR(fief_object_create(r, k.all, cp, cv, 1, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_TYPE_MISMATCH);
    cv[0] = vnull();
    EERR(fief_object_create(r, k.all, cp, cv, 1, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_NULL_NOT_ALLOWED);
    /* nothing was created by the failures */
    EQU(t_count_class(r, k.all), 1);
    E(fief_realm_commit(r));
    EQU(t_count_class(r, k.all), 1);
    fief_release(o);
    fief_release(r);
}

TEST(create_many) {
    fief_realm_t *r = t_open_std();
    R(r);
    std_keys k = keys_of(r);
    fief_property_key_t props[2] = {k.str_name, k.str_value};
    enum { N = 100 };
    static char names[N][16];
    fief_value_t vals[N * 2];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "n%03d", i);
        vals[2 * i] = vs(names[i]);
        vals[2 * i + 1] = vi(i * 10);
    }
    fief_object_key_t out[N];
    R(fief_realm_begin_write(r));
    E(fief_object_create_many(r, k.strpk, props, 2, vals, N, FIEF_UPDATE_POLICY_ERROR, out));
    E(fief_realm_commit(r));
    EQU(t_count_class(r, k.strpk), N);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < i; j++)
            if (out[j] == out[i]) {
                E(out[j] != out[i]);
                break;
            }
        fief_object_t *o = fief_object_get(r, k.strpk, out[i]);
        E(o != NULL);
        if (o) {
            EQV(t_get(o, k.str_name), vs(names[i]));
            EQV(t_get(o, k.str_value), vi(i * 10));
            fief_release(o);
        }
    }
    /* All or nothing: a bad row (index 2) keeps nothing, and the message names it. */
    static char more[5][16];
    fief_value_t mv[10];
    for (int i = 0; i < 5; i++) {
        snprintf(more[i], sizeof more[i], "m%d", i);
        mv[2 * i] = vs(more[i]);
        mv[2 * i + 1] = vi(i);
    }
    mv[2 * 2 + 1] = vs("not an int");
    R(fief_realm_begin_write(r));
    EERR(fief_object_create_many(r, k.strpk, props, 2, mv, 5, FIEF_UPDATE_POLICY_ERROR, NULL),
         FIEF_ERR_TYPE_MISMATCH);
    fief_error_t err;
    if (fief_get_last_error(&err) && err.message) {
        bool names_row = strstr(err.message, "2") != NULL || strstr(err.message, "3") != NULL;
        if (!names_row) t_fail(__FILE__, __LINE__, "create_many error names the failing row", err.message);
    }
    EQU(t_count_class(r, k.strpk), N);
    /* a duplicate within the batch */
    mv[2 * 2 + 1] = vi(2);
    mv[2 * 4] = vs("m0");
    EERR(fief_object_create_many(r, k.strpk, props, 2, mv, 5, FIEF_UPDATE_POLICY_ERROR, NULL),
         FIEF_ERR_DUPLICATE_PRIMARY_KEY);
    EQU(t_count_class(r, k.strpk), N);
    /* a duplicate of an existing object */
    mv[2 * 4] = vs("n050");
    EERR(fief_object_create_many(r, k.strpk, props, 2, mv, 5, FIEF_UPDATE_POLICY_ERROR, NULL),
         FIEF_ERR_DUPLICATE_PRIMARY_KEY);
    EQU(t_count_class(r, k.strpk), N);
    /* upsert in bulk: the existing one is updated, the others created */
    E(fief_object_create_many(r, k.strpk, props, 2, mv, 5, FIEF_UPDATE_POLICY_MODIFIED, out));
    EQU(t_count_class(r, k.strpk), N + 4);
    bool found = false;
    fief_object_t *o = fief_object_find_by_primary_key(r, k.strpk, vs("n050"), &found);
    R(o);
    EQV(t_get(o, k.str_value), vi(4));
    fief_object_key_t ok = 0;
    E(fief_object_get_key(o, &ok));
    EQI(out[4], ok);
    fief_release(o);
    /* zero rows */
    E(fief_object_create_many(r, k.strpk, props, 2, mv, 0, FIEF_UPDATE_POLICY_ERROR, NULL));
    EERR(fief_object_create_many(r, k.strpk, props, 2, NULL, 3, FIEF_UPDATE_POLICY_ERROR, NULL),
         FIEF_ERR_INVALID_ARGUMENT);
    E(fief_realm_commit(r));
    /* NoPk rows without properties */
    R(fief_realm_begin_write(r));
    E(fief_object_create_many(r, k.nopk, NULL, 0, NULL, 3, FIEF_UPDATE_POLICY_ERROR, out));
    E(out[0] != out[1] && out[1] != out[2]);
    E(fief_realm_commit(r));
    EQU(t_count_class(r, k.nopk), 3);
    fief_release(r);
}

TEST(get_find_delete) {
    fief_realm_t *r = t_open_std();
    R(r);
    std_keys k = keys_of(r);
    R(fief_realm_begin_write(r));
    fief_object_t *objs[5];
    for (int i = 0; i < 5; i++) {
        fief_property_key_t p[2] = {k.id, k.base[0]};
        fief_value_t v[2] = {vi(i + 1), vi(100 + i)};
        objs[i] = fief_object_create(r, k.all, p, v, 2, FIEF_UPDATE_POLICY_ERROR);
        R(objs[i]);
    }
    E(fief_realm_commit(r));
    fief_object_key_t key = 0;
    fief_class_key_t ck = 0;
    E(fief_object_get_key(objs[2], &key));
    E(fief_object_get_class_key(objs[2], &ck));
    EQU(ck, k.all);
    fief_object_t *g = fief_object_get(r, k.all, key);
    R(g);
    EQV(t_get(g, k.base[0]), vi(102));
    fief_realm_t *owner = fief_object_get_realm(g);
    E(owner != NULL);
    fief_release(owner);
    fief_release(g);
    EERR(fief_object_get(r, k.all, 987654321), FIEF_ERR_NO_SUCH_OBJECT);
    EERR(fief_object_get(r, k.all, -5), FIEF_ERR_NO_SUCH_OBJECT);
    EERR(fief_object_get(r, 0x7ffff, key), FIEF_ERR_NO_SUCH_CLASS);

    bool found = false;
    fief_object_t *f = fief_object_find_by_primary_key(r, k.all, vi(4), &found);
    R(f);
    E(found);
    EQV(t_get(f, k.base[0]), vi(103));
    fief_release(f);
    /* not found: NULL, found=false, no error */
    fief_clear_last_error();
    found = true;
    E(fief_object_find_by_primary_key(r, k.all, vi(99), &found) == NULL);
    E(!found);
    fief_error_t err;
    E(!fief_get_last_error(&err));
    EQI(err.code, FIEF_OK);
    E(fief_object_find_by_primary_key(r, k.all, vi(99), NULL) == NULL);
    /* find errors */
    found = false;
    EERR(fief_object_find_by_primary_key(r, k.all, vs("4"), &found), FIEF_ERR_TYPE_MISMATCH);
    E(found);
    EERR(fief_object_find_by_primary_key(r, k.nopk, vi(1), &found), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_find_by_primary_key(r, 0x7ffff, vi(1), &found), FIEF_ERR_NO_SUCH_CLASS);

    /* delete */
    EERR(fief_object_delete(objs[0]), FIEF_ERR_NOT_IN_TRANSACTION);
    R(fief_realm_begin_write(r));
    E(fief_object_delete(objs[0]));
    E(!fief_object_is_valid(objs[0]));
    fief_value_t v;
    EERR(fief_object_get_value(objs[0], k.base[0], &v), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_object_set_value(objs[0], k.base[0], vi(1)), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_object_delete(objs[0]), FIEF_ERR_INVALIDATED_OBJECT);
    fief_object_key_t dk = 0;
    E(fief_object_get_key(objs[0], &dk));
    E(fief_realm_commit(r));
    EQU(t_count_class(r, k.all), 4);
    E(fief_object_find_by_primary_key(r, k.all, vi(1), &found) == NULL && !found);
    EERR(fief_object_get(r, k.all, dk), FIEF_ERR_NO_SUCH_OBJECT);
    /* the deleted object's primary key can be used again, but its key is not reused */
    R(fief_realm_begin_write(r));
    fief_value_t id1 = vi(1);
    fief_object_t *again = fief_object_create(r, k.all, &k.id, &id1, 1, FIEF_UPDATE_POLICY_ERROR);
    R(again);
    fief_object_key_t nk = 0;
    E(fief_object_get_key(again, &nk));
    E(nk != dk);
    E(!fief_object_is_valid(objs[0]));
    /* delete_all_of_class and delete_all */
    fief_object_t *n = fief_object_create(r, k.nopk, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    E(n);
    E(fief_realm_delete_all_of_class(r, k.all));
    EQU(t_count_class(r, k.all), 0);
    EQU(t_count_class(r, k.nopk), 1);
    for (int i = 1; i < 5; i++) E(!fief_object_is_valid(objs[i]));
    EERR(fief_realm_delete_all_of_class(r, 0x7ffff), FIEF_ERR_NO_SUCH_CLASS);
    E(fief_realm_delete_all(r));
    EQU(t_count_class(r, k.nopk), 0);
    E(!fief_object_is_valid(n));
    E(fief_realm_commit(r));
    EQU(t_count_class(r, k.nopk), 0);
    fief_release(n);
    fief_release(again);
    for (int i = 0; i < 5; i++) fief_release(objs[i]);
    fief_release(r);
}

/* Each primary-key class: create, find, duplicate, wrong type, upsert. */
static void pk_case(fief_realm_t *r, fief_class_key_t ck, fief_property_key_t pk, fief_property_key_t pval,
                    fief_value_t key1, fief_value_t key2, fief_value_t wrong) {
    R(fief_realm_begin_write(r));
    fief_property_key_t props[2] = {pk, pval};
    fief_value_t v[2] = {key1, vi(1)};
    fief_object_t *a = fief_object_create(r, ck, props, v, 2, FIEF_UPDATE_POLICY_ERROR);
    R(a);
    v[0] = key2;
    v[1] = vi(2);
    fief_object_t *b = fief_object_create(r, ck, props, v, 2, FIEF_UPDATE_POLICY_ERROR);
    R(b);
    v[0] = key1;
    v[1] = vi(3);
    EERR(fief_object_create(r, ck, props, v, 2, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_DUPLICATE_PRIMARY_KEY);
    EQV(t_get(a, pval), vi(1));
    EERR(fief_object_set_value(b, pk, key1), FIEF_ERR_PRIMARY_KEY_CHANGE);
    EERR(fief_object_create(r, ck, &pval, v + 1, 1, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_MISSING_PRIMARY_KEY);
    /* upsert: the existing object, updated */
    fief_object_t *up = fief_object_create(r, ck, props, v, 2, FIEF_UPDATE_POLICY_MODIFIED);
    R(up);
    fief_object_key_t ka = 0, ku = 1;
    E(fief_object_get_key(a, &ka));
    E(fief_object_get_key(up, &ku));
    EQI(ka, ku);
    EQV(t_get(a, pval), vi(3));
    v[1] = vi(4);
    fief_object_t *up2 = fief_object_create(r, ck, props, v, 2, FIEF_UPDATE_POLICY_ALL);
    R(up2);
    E(fief_object_get_key(up2, &ku));
    EQI(ka, ku);
    EQV(t_get(a, pval), vi(4));
    /* upsert of a new key creates */
    fief_object_t *c = fief_object_create(r, ck, props, v, 0, FIEF_UPDATE_POLICY_ALL);
    E(c == NULL); /* no primary key given */
    E(fief_realm_commit(r));
    EQU(t_count_class(r, ck), 2);
    bool found = false;
    fief_object_t *f = fief_object_find_by_primary_key(r, ck, key2, &found);
    R(f);
    E(found);
    EQV(t_get(f, pval), vi(2));
    EQV(t_get(f, pk), key2);
    fief_release(f);
    EERR(fief_object_find_by_primary_key(r, ck, wrong, &found), FIEF_ERR_TYPE_MISMATCH);
    E(found); /* a failed find reports found = true, with the error set */
    /* null for a primary key that is not optional */
    found = false;
    EERR(fief_object_find_by_primary_key(r, ck, vnull(), &found), FIEF_ERR_NULL_NOT_ALLOWED);
    E(found);
    fief_release(a);
    fief_release(b);
    fief_release(up);
    fief_release(up2);
}

TEST(primary_keys) {
    fief_realm_t *r = t_open_std();
    R(r);
    std_keys k = keys_of(r);
    pk_case(r, k.all, k.id, k.base[0], vi(-7), vi(1LL << 40), vs("x"));
    pk_case(r, k.strpk, k.str_name, k.str_value, vs("alpha"), vs("\xc3\xa9t\xc3\xa9"), vi(1));
    pk_case(r, k.oidpk, k.oid_oid, k.oid_value, void12("5f1d7c3a0102030405060708"),
            void12("5f1d7c3a0102030405060709"), vuuid("5f1d7c3a010203040506070800000000"));
    pk_case(r, k.uuidpk, k.uuid_uuid, k.uuid_value, vuuid("123e4567e89b12d3a456426614174000"),
            vuuid("00000000000000000000000000000000"), void12("5f1d7c3a0102030405060708"));
    /* String keys differ by case and by embedded bytes. */
    R(fief_realm_begin_write(r));
    fief_property_key_t props[1] = {k.str_name};
    fief_value_t v1 = vs("Alpha");
    fief_object_t *o = fief_object_create(r, k.strpk, props, &v1, 1, FIEF_UPDATE_POLICY_ERROR);
    E(o);
    fief_release(o);
    fief_value_t v2 = vsn("alpha\0", 6);
    o = fief_object_create(r, k.strpk, props, &v2, 1, FIEF_UPDATE_POLICY_ERROR);
    E(o);
    fief_release(o);
    fief_value_t v3 = vsn("\xff", 1);
    EERR(fief_object_create(r, k.strpk, props, &v3, 1, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_UTF8);
    EERR(fief_object_find_by_primary_key(r, k.strpk, v3, NULL), FIEF_ERR_INVALID_UTF8);
    E(fief_realm_commit(r));
    EQU(t_count_class(r, k.strpk), 4);
    /* primary keys persist and are found after reopen */
    fief_release(r);
    r = t_open_std();
    R(r);
    bool found = false;
    o = fief_object_find_by_primary_key(r, k.uuidpk, vuuid("00000000000000000000000000000000"), &found);
    E(o != NULL && found);
    fief_release(o);
    o = fief_object_find_by_primary_key(r, k.all, vi(1LL << 40), &found);
    E(o != NULL && found);
    fief_release(o);
    fief_release(r);
}

TEST(views_stay_valid_until_change) {
    fief_realm_t *r = t_open_std();
    R(r);
    std_keys k = keys_of(r);
    R(fief_realm_begin_write(r));
    fief_property_key_t p[2] = {k.str_name, k.str_value};
    fief_value_t v[2] = {vs("key"), vi(1)};
    fief_object_t *o = fief_object_create(r, k.strpk, p, v, 2, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    E(fief_realm_commit(r));
    fief_value_t a = t_get(o, k.str_name), b = t_get(o, k.str_name);
    /* Two reads of the same snapshot both stay readable. */
    EQSTR(a.u.string, "key");
    EQSTR(b.u.string, "key");
    fief_value_t vv[2];
    E(fief_object_get_values(o, p, 2, vv));
    EQSTR(vv[0].u.string, "key");
    EQV(vv[1], vi(1));
    fief_release(o);
    fief_release(r);
}

static const t_case cases[] = {
    T(defaults), T(every_type_roundtrip), T(special_values), T(value_errors), T(create_many),
    T(get_find_delete), T(primary_keys), T(views_stay_valid_until_change),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
