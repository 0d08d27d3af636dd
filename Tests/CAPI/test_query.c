/* Results and queries: all, filter (every documented operator, literals,
 * $n and %@ arguments), sort (multi-key, stable, byte order, nulls first),
 * count/get/index_of/get_values/delete_all, liveness. */
#include "fief_test.h"

#include <stdlib.h>

typedef struct person {
    int64_t id;
    const char *name;
    int64_t age;
    double score;
    bool active;
    const char *nick; /* NULL: null */
    int64_t born;
} person;

static const person people[] = {
    {1, "Alice", 30, 88.5, true, "al", 1000},
    {2, "bob", 25, 72.0, false, NULL, 2000},
    {3, "Carol", 35, 91.25, true, "caz", 3000},
    {4, "dave", 25, 60.0, true, NULL, 4000},
    {5, "Eve", 40, 95.0, false, "eve", 5000},
    {6, "Zo\xc3\xab", 30, 72.0, true, "zo", 6000},
    {7, "alice", 22, 50.5, false, "", 7000},
    {8, "\xc3\x89ric", 28, 80.0, true, NULL, 8000},
};
#define NPEOPLE 8

static fief_realm_t *R_;
static fief_class_key_t CK;
static fief_property_key_t P_ID, P_NAME, P_AGE, P_SCORE, P_ACTIVE, P_NICK, P_BORN;
static fief_results_t *ALL;

static void setup(void) {
    fief_property_info_t props[] = {
        t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
        t_prop_info("name", FIEF_TYPE_STRING, FIEF_PROPERTY_INDEXED),
        t_prop_info("age", FIEF_TYPE_INT, 0),
        t_prop_info("score", FIEF_TYPE_DOUBLE, 0),
        t_prop_info("active", FIEF_TYPE_BOOL, 0),
        t_prop_info("nick", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE),
        t_prop_info("born", FIEF_TYPE_TIMESTAMP, 0),
    };
    fief_property_info_t other[] = {t_prop_info("x", FIEF_TYPE_INT, 0)};
    fief_class_info_t c[2];
    memset(c, 0, sizeof c);
    c[0].name = "Person";
    c[0].num_properties = 7;
    c[1].name = "Other";
    c[1].num_properties = 1;
    const fief_property_info_t *pp[2] = {props, other};
    fief_schema_t *s = fief_schema_new(c, 2, pp);
    R(s);
    R_ = t_open(t_path("q.fief"), s, 0);
    fief_release(s);
    R(R_);
    CK = t_class(R_, "Person");
    P_ID = t_prop(R_, "Person", "id");
    P_NAME = t_prop(R_, "Person", "name");
    P_AGE = t_prop(R_, "Person", "age");
    P_SCORE = t_prop(R_, "Person", "score");
    P_ACTIVE = t_prop(R_, "Person", "active");
    P_NICK = t_prop(R_, "Person", "nick");
    P_BORN = t_prop(R_, "Person", "born");
    fief_property_key_t keys[7] = {P_ID, P_NAME, P_AGE, P_SCORE, P_ACTIVE, P_NICK, P_BORN};
    fief_value_t vals[NPEOPLE * 7];
    for (int i = 0; i < NPEOPLE; i++) {
        const person *p = &people[i];
        fief_value_t *v = vals + 7 * i;
        v[0] = vi(p->id);
        v[1] = vs(p->name);
        v[2] = vi(p->age);
        v[3] = vd(p->score);
        v[4] = vb(p->active);
        v[5] = p->nick ? vs(p->nick) : vnull();
        v[6] = vts(p->born, 0);
    }
    R(fief_realm_begin_write(R_));
    R(fief_object_create_many(R_, CK, keys, 7, vals, NPEOPLE, FIEF_UPDATE_POLICY_ERROR, NULL));
    R(fief_realm_commit(R_));
    ALL = fief_realm_get_objects(R_, CK);
    R(ALL);
}

static void teardown(void) {
    fief_release(ALL);
    fief_release(R_);
}

/* "1,3,5": the ids of `res` in order. */
static const char *ids(const fief_results_t *res) {
    static char buf[512];
    buf[0] = 0;
    size_t n = 0;
    if (!fief_results_count(res, &n)) return "<count failed>";
    size_t o = 0;
    for (size_t i = 0; i < n && o + 24 < sizeof buf; i++) {
        fief_value_t v;
        if (!fief_results_get_values(res, i, &P_ID, 1, &v) || v.type != FIEF_TYPE_INT) return "<get_values failed>";
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%lld", i ? "," : "", (long long)v.u.integer);
    }
    return buf;
}

static void check_ids(const char *file, int line, const fief_results_t *res, const char *expected, const char *what) {
    if (!res) {
        t_fail(file, line, what, "(no results)");
        return;
    }
    const char *got = ids(res);
    if (strcmp(got, expected) != 0) {
        char d[700];
        snprintf(d, sizeof d, "(ids [%s], expected [%s])", got, expected);
        t_fail(file, line, what, d);
    }
}

static void q(const char *file, int line, const char *pred, const fief_value_t *args, size_t nargs,
              const char *expected) {
    fief_query_arg_t qa[8];
    for (size_t i = 0; i < nargs; i++) {
        qa[i].count = 1;
        qa[i].is_list = false;
        qa[i].values = &args[i];
    }
    fief_results_t *res = fief_results_filter(ALL, pred, nargs ? qa : NULL, nargs);
    if (!res) {
        t_fail(file, line, pred, "(filter failed)");
        return;
    }
    check_ids(file, line, res, expected, pred);
    fief_release(res);
}
#define Q(pred, expected) q(__FILE__, __LINE__, pred, NULL, 0, expected)
#define QA(pred, expected, ...)                                                             \
    do {                                                                                     \
        const fief_value_t qargs_[] = {__VA_ARGS__};                                         \
        q(__FILE__, __LINE__, pred, qargs_, sizeof qargs_ / sizeof qargs_[0], expected);     \
    } while (0)
#define CHECK_IDS(res, expected) check_ids(__FILE__, __LINE__, res, expected, #res)


TEST(all_objects) {
    setup();
    EQU(t_count(ALL), NPEOPLE);
    CHECK_IDS(ALL, "1,2,3,4,5,6,7,8");
    fief_class_key_t ck = 0;
    E(fief_results_get_class_key(ALL, &ck));
    EQU(ck, CK);
    E(fief_results_is_valid(ALL));
    fief_realm_t *r = fief_results_get_realm(ALL);
    E(r != NULL);
    fief_release(r);
    EERR(fief_realm_get_objects(R_, 0x7fffff), FIEF_ERR_NO_SUCH_CLASS);
    fief_results_t *other = fief_realm_get_objects(R_, t_class(R_, "Other"));
    R(other);
    EQU(t_count(other), 0);
    fief_release(other);
    teardown();
}

TEST(filter_comparisons) {
    setup();
    Q("age == 30", "1,6");
    Q("age = 30", "1,6");
    Q("age != 30", "2,3,4,5,7,8");
    Q("age <> 30", "2,3,4,5,7,8");
    Q("age < 25", "7");
    Q("age <= 25", "2,4,7");
    Q("age =< 25", "2,4,7");
    Q("age > 35", "5");
    Q("age >= 35", "3,5");
    Q("age => 35", "3,5");
    Q("30 == age", "1,6");
    Q("age == -5", "");
    Q("score > 80.0", "1,3,5");
    Q("score >= 80", "1,3,5,8");
    Q("score < 60.5", "4,7");
    Q("score == 72", "2,6");
    Q("score > -1.5e1", "1,2,3,4,5,6,7,8");
    Q("active == true", "1,3,4,6,8");
    Q("active == false", "2,5,7");
    Q("active != true", "2,5,7");
    Q("nick == null", "2,4,8");
    Q("nick == nil", "2,4,8");
    Q("nick != null", "1,3,5,6,7");
    Q("nick == ''", "7");
    Q("name == 'Alice'", "1");
    Q("name == \"Alice\"", "1");
    Q("name != 'Alice'", "2,3,4,5,6,7,8");
    Q("name == 'Zo\xc3\xab'", "6");
    Q("id == 3", "3");
    teardown();
}

TEST(filter_strings) {
    setup();
    Q("name BEGINSWITH 'A'", "1");
    Q("name BEGINSWITH[c] 'a'", "1,7");
    Q("name ENDSWITH 'e'", "1,4,5,7");
    Q("name ENDSWITH 'E'", "");
    Q("name ENDSWITH[c] 'E'", "1,4,5,7");
    Q("name CONTAINS 'ar'", "3");
    Q("name CONTAINS[c] 'AL'", "1,7");
    Q("name CONTAINS '\xc3\xab'", "6");
    Q("name LIKE 'a*'", "7");
    Q("name LIKE '?ob'", "2");
    Q("name LIKE[c] 'A*E'", "1,7");
    Q("name LIKE '*'", "1,2,3,4,5,6,7,8");
    Q("name LIKE 'Zo?'", "6"); /* ? is one character, not one byte */
    Q("nick BEGINSWITH 'e'", "5");
    teardown();
}

TEST(filter_logic) {
    setup();
    Q("age > 25 AND active == true", "1,3,6,8");
    Q("age > 25 && active == true", "1,3,6,8");
    Q("age < 25 OR age > 35", "5,7");
    Q("age < 25 || age > 35", "5,7");
    Q("NOT (age == 30)", "2,3,4,5,7,8");
    Q("!(age == 30)", "2,3,4,5,7,8");
    Q("NOT age == 30", "2,3,4,5,7,8");
    Q("age == 25 OR age == 30 AND active == false", "2,4");
    Q("(age == 25 OR age == 30) AND active == false", "2");
    Q("((age == 25)) AND (NOT (name == 'bob'))", "4");
    Q("age > 20 AND active == false OR id == 1", "1,2,5,7");
    Q("NOT (age > 20 AND NOT active == true)", "1,3,4,6,8");
    teardown();
}

TEST(filter_arguments) {
    setup();
    QA("age == $0", "1,6", vi(30));
    QA("age > $0 AND name BEGINSWITH $1", "3", vi(26), vs("C"));
    QA("name BEGINSWITH $1 AND age > $0", "3", vi(26), vs("C"));
    QA("age >= %@ AND age <= %@", "1,2,4,6,8", vi(25), vi(30));
    QA("nick == $0", "2,4,8", vnull());
    QA("born > $0", "5,6,7,8", vts(4500, 0));
    QA("born == $0", "2", vts(2000, 0));
    QA("score == $0", "2,6", vd(72.0));
    QA("score > $0", "1,3,5", vi(80));
    QA("active == $0", "1,3,4,6,8", vb(true));
    QA("name == $0", "6", vs("Zo\xc3\xab"));
    QA("name CONTAINS[c] $0", "1,7", vs("LIC"));
    QA("$0 == age", "5", vi(40));
    QA("age == $0 OR age == $0", "5", vi(40));
    teardown();
}

TEST(filter_errors) {
    setup();
    const fief_value_t one = vi(1), str = vs("x");
    fief_query_arg_t a1 = {1, false, &one}, as = {1, false, &str};
    EERR(fief_results_filter(ALL, "age >", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    EERR(fief_results_filter(ALL, "(age == 1", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    EERR(fief_results_filter(ALL, "age == 1)", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    EERR(fief_results_filter(ALL, "age == 'unterminated", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    EERR(fief_results_filter(ALL, "age === 1", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    EERR(fief_results_filter(ALL, "age == 1 AND", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    EERR(fief_results_filter(ALL, "", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    EERR(fief_results_filter(ALL, "nosuch == 1", NULL, 0), FIEF_ERR_QUERY_INVALID);
    EERR(fief_results_filter(ALL, "age == 'x'", NULL, 0), FIEF_ERR_QUERY_INVALID);
    EERR(fief_results_filter(ALL, "name BEGINSWITH 5", NULL, 0), FIEF_ERR_QUERY_INVALID);
    EERR(fief_results_filter(ALL, "age BEGINSWITH 'a'", NULL, 0), FIEF_ERR_QUERY_INVALID);
    EERR(fief_results_filter(ALL, "active > true", NULL, 0), FIEF_ERR_QUERY_INVALID);
    EERR(fief_results_filter(ALL, "age == $0", NULL, 0), FIEF_ERR_QUERY_ARGUMENT);
    EERR(fief_results_filter(ALL, "age == $1", &a1, 1), FIEF_ERR_QUERY_ARGUMENT);
    EERR(fief_results_filter(ALL, "age == %@ AND age == %@", &a1, 1), FIEF_ERR_QUERY_ARGUMENT);
    EERR(fief_results_filter(ALL, "age == $0", &as, 1), FIEF_ERR_QUERY_ARGUMENT);
    EERR(fief_results_filter(ALL, NULL, NULL, 0), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_filter(ALL, "age == $0", NULL, 1), FIEF_ERR_INVALID_ARGUMENT);
    fief_error_t e;
    EERR(fief_results_filter(ALL, "age >", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    if (fief_get_last_error(&e)) E(e.categories & FIEF_ERR_CAT_QUERY);
    teardown();
}

static fief_results_t *sorted(const fief_results_t *res, const char *k1, bool a1, const char *k2, bool a2) {
    fief_sort_descriptor_t sd[2] = {{k1, a1}, {k2, a2}};
    return fief_results_sort(res, sd, k2 ? 2 : 1);
}

TEST(sort) {
    setup();
    fief_results_t *s;
    s = sorted(ALL, "age", true, NULL, false);
    CHECK_IDS(s, "7,2,4,8,1,6,3,5");
    fief_release(s);
    s = sorted(ALL, "age", false, NULL, false);
    CHECK_IDS(s, "5,3,1,6,8,2,4,7");
    fief_release(s);
    s = sorted(ALL, "age", true, "name", false);
    CHECK_IDS(s, "7,4,2,8,6,1,3,5");
    fief_release(s);
    s = sorted(ALL, "name", true, NULL, false);
    CHECK_IDS(s, "1,3,5,6,7,2,4,8");
    fief_release(s);
    s = sorted(ALL, "nick", true, NULL, false);
    CHECK_IDS(s, "2,4,8,7,1,3,5,6");
    fief_release(s);
    s = sorted(ALL, "nick", false, NULL, false);
    CHECK_IDS(s, "6,5,3,1,7,2,4,8");
    fief_release(s);
    s = sorted(ALL, "score", false, "id", true);
    CHECK_IDS(s, "5,3,1,8,2,6,4,7");
    fief_release(s);
    s = sorted(ALL, "active", true, "born", false);
    CHECK_IDS(s, "7,5,2,8,6,4,3,1");
    fief_release(s);
    /* filter then sort, sort then filter */
    fief_results_t *f = fief_results_filter(ALL, "active == true", NULL, 0);
    R(f);
    s = sorted(f, "age", false, NULL, false);
    CHECK_IDS(s, "3,1,6,8,4");
    fief_results_t *sf = fief_results_filter(s, "age < 35", NULL, 0);
    CHECK_IDS(sf, "1,6,8,4");
    fief_release(sf);
    fief_release(s);
    fief_release(f);
    /* sorting a sorted result: the new keys win, ties keep the old order */
    fief_results_t *s1 = sorted(ALL, "name", false, NULL, false);
    R(s1);
    s = sorted(s1, "age", true, NULL, false);
    CHECK_IDS(s, "7,4,2,8,6,1,3,5");
    fief_release(s);
    fief_release(s1);
    EERR(sorted(ALL, "nosuch", true, NULL, false), FIEF_ERR_QUERY_INVALID);
    EERR(fief_results_sort(ALL, NULL, 1), FIEF_ERR_INVALID_ARGUMENT);
    teardown();
}

TEST(results_access) {
    setup();
    fief_results_t *f = fief_results_filter(ALL, "age >= 30", NULL, 0);
    R(f);
    fief_results_t *s = sorted(f, "age", false, NULL, false);
    R(s);
    CHECK_IDS(s, "5,3,1,6");
    EQU(t_count(s), 4);
    fief_object_t *o = fief_results_get_object(s, 1);
    R(o);
    EQV(t_get(o, P_ID), vi(3));
    fief_object_key_t k = 0, k2 = 1;
    E(fief_results_get_key(s, 1, &k));
    E(fief_object_get_key(o, &k2));
    EQI(k, k2);
    fief_value_t vals[3];
    fief_property_key_t props[3] = {P_NAME, P_AGE, P_NICK};
    E(fief_results_get_values(s, 1, props, 3, vals));
    EQV(vals[0], vs("Carol"));
    EQV(vals[1], vi(35));
    EQV(vals[2], vs("caz"));
    size_t idx = 99;
    bool found = false;
    E(fief_results_index_of_object(s, o, &idx, &found));
    E(found);
    EQU(idx, 1);
    E(fief_results_index_of_object(ALL, o, &idx, &found));
    E(found);
    EQU(idx, 2);
    fief_object_t *young = fief_results_get_object(ALL, 6); /* id 7, age 22 */
    R(young);
    found = true;
    E(fief_results_index_of_object(s, young, &idx, &found));
    E(!found);
    EERR(fief_results_get_object(s, 4), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_results_get_object(s, (size_t)-1), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_results_get_key(s, 4, &k), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_results_get_values(s, 4, props, 3, vals), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_results_get_values(s, 0, props, 3, NULL), FIEF_ERR_INVALID_ARGUMENT);
    props[2] = 0x7fffffff;
    EERR(fief_results_get_values(s, 0, props, 3, vals), FIEF_ERR_NO_SUCH_PROPERTY);
    EERR(fief_results_count(s, NULL), FIEF_ERR_INVALID_ARGUMENT);
    fief_release(young);
    fief_release(o);
    fief_release(s);
    fief_release(f);
    teardown();
}

TEST(results_live_and_delete_all) {
    setup();
    fief_results_t *old = fief_results_filter(ALL, "age > 30", NULL, 0);
    R(old);
    fief_results_t *s = sorted(old, "age", true, NULL, false);
    R(s);
    CHECK_IDS(s, "3,5");
    R(fief_realm_begin_write(R_));
    fief_property_key_t p[2] = {P_ID, P_AGE};
    fief_value_t v[2] = {vi(9), vi(33)};
    fief_object_t *o = fief_object_create(R_, CK, p, v, 2, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    /* Results are live inside the write transaction too: id 9 (age 33)
     * already sorts first. */
    CHECK_IDS(s, "9,3,5");
    bool found = false;
    fief_object_t *carol = fief_object_find_by_primary_key(R_, CK, vi(3), &found);
    R(carol);
    E(fief_object_set_value(carol, P_AGE, vi(20)));
    CHECK_IDS(s, "9,5");
    E(fief_realm_commit(R_));
    CHECK_IDS(s, "9,5");
    EQU(t_count(ALL), 9);
    /* delete_all on a filtered view deletes only its objects */
    EERR(fief_results_delete_all(old), FIEF_ERR_NOT_IN_TRANSACTION);
    R(fief_realm_begin_write(R_));
    E(fief_results_delete_all(old));
    EQU(t_count(old), 0);
    E(fief_realm_commit(R_));
    EQU(t_count(old), 0);
    EQU(t_count(s), 0);
    CHECK_IDS(ALL, "1,2,3,4,6,7,8");
    E(!fief_object_is_valid(o));
    E(fief_object_is_valid(carol));
    /* results over a deleted-from class stay valid */
    E(fief_results_is_valid(s));
    R(fief_realm_begin_write(R_));
    E(fief_results_delete_all(ALL));
    E(fief_realm_commit(R_));
    EQU(t_count(ALL), 0);
    fief_release(carol);
    fief_release(o);
    fief_release(s);
    fief_release(old);
    teardown();
}

TEST(query_other_types) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ck = t_class(r, "UuidPk");
    fief_property_key_t pu = t_prop(r, "UuidPk", "uuid"), pv = t_prop(r, "UuidPk", "value");
    fief_class_key_t ca = t_class(r, "AllTypes");
    fief_property_key_t pid = t_prop(r, "AllTypes", "id"), poid = t_prop(r, "AllTypes", "ooid"),
                        pdec = t_prop(r, "AllTypes", "dec"), pf = t_prop(r, "AllTypes", "f"),
                        pbin = t_prop(r, "AllTypes", "obin");
    R(fief_realm_begin_write(r));
    const char *uu[3] = {"00000000000000000000000000000001", "00000000000000000000000000000002",
                         "ffffffffffffffffffffffffffffffff"};
    for (int i = 0; i < 3; i++) {
        fief_property_key_t p[2] = {pu, pv};
        fief_value_t v[2] = {vuuid(uu[i]), vi(i)};
        fief_object_t *o = fief_object_create(r, ck, p, v, 2, FIEF_UPDATE_POLICY_ERROR);
        E(o);
        fief_release(o);
    }
    for (int i = 0; i < 3; i++) {
        fief_property_key_t p[5] = {pid, poid, pdec, pf, pbin};
        uint8_t bytes[2] = {(uint8_t)i, 7};
        fief_value_t v[5] = {vi(i), i ? void12("5f1d7c3a0102030405060708") : vnull(), vdec((uint64_t)i, 0x3040000000000000ULL),
                             vf((float)i + 0.5f), vbin(bytes, 2)};
        fief_object_t *o = fief_object_create(r, ca, p, v, 5, FIEF_UPDATE_POLICY_ERROR);
        E(o);
        fief_release(o);
    }
    E(fief_realm_commit(r));
    fief_results_t *all = fief_realm_get_objects(r, ck);
    R(all);
    fief_value_t arg = vuuid(uu[1]);
    fief_query_arg_t qa = {1, false, &arg};
    fief_results_t *f = fief_results_filter(all, "uuid == $0", &qa, 1);
    R(f);
    EQU(t_count(f), 1);
    fief_release(f);
    f = fief_results_filter(all, "uuid != $0", &qa, 1);
    E(f && t_count(f) == 2);
    fief_release(f);
    fief_results_t *aall = fief_realm_get_objects(r, ca);
    R(aall);
    arg = void12("5f1d7c3a0102030405060708");
    f = fief_results_filter(aall, "ooid == $0", &qa, 1);
    E(f && t_count(f) == 2);
    fief_release(f);
    f = fief_results_filter(aall, "ooid == nil", NULL, 0);
    E(f && t_count(f) == 1);
    fief_release(f);
    f = fief_results_filter(aall, "f > 1", NULL, 0);
    E(f && t_count(f) == 2);
    fief_release(f);
    arg = vdec(1, 0x3040000000000000ULL);
    f = fief_results_filter(aall, "dec == $0", &qa, 1);
    E(f && t_count(f) == 1);
    fief_release(f);
    uint8_t b1[2] = {1, 7};
    arg = vbin(b1, 2);
    f = fief_results_filter(aall, "obin == $0", &qa, 1);
    E(f && t_count(f) == 1);
    fief_release(f);
    fief_release(aall);
    fief_release(all);
    fief_release(r);
}


TEST(strings_and_binaries_are_distinct) {
    /* `bin == $0` accepted a string argument while `s == $0` refused a binary one. */
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ca = t_class(r, "AllTypes");
    fief_property_key_t p[3] = {t_prop(r, "AllTypes", "id"), t_prop(r, "AllTypes", "s"), t_prop(r, "AllTypes", "bin")};
    fief_value_t v[6] = {vi(1), vs("ab"), vbin("ab", 2), vi(2), vs("cd"), vbin("cd", 2)};
    R(fief_realm_begin_write(r));
    R(fief_object_create_many(r, ca, p, 3, v, 2, FIEF_UPDATE_POLICY_ERROR, NULL));
    R(fief_realm_commit(r));
    fief_results_t *all = fief_realm_get_objects(r, ca);
    R(all);
    fief_value_t str = vs("ab"), bin = vbin("ab", 2), a_str = vs("a"), a_bin = vbin("a", 1);
    fief_query_arg_t qs = {1, false, &str}, qb = {1, false, &bin}, qas = {1, false, &a_str}, qab = {1, false, &a_bin};
    /* each type takes values of its own type, as arguments and literals */
    fief_results_t *f = fief_results_filter(all, "s == $0", &qs, 1);
    E(f && t_count(f) == 1);
    fief_release(f);
    f = fief_results_filter(all, "bin == $0", &qb, 1);
    E(f && t_count(f) == 1);
    fief_release(f);
    f = fief_results_filter(all, "bin BEGINSWITH $0", &qab, 1);
    E(f && t_count(f) == 1);
    fief_release(f);
    f = fief_results_filter(all, "s BEGINSWITH $0", &qas, 1);
    E(f && t_count(f) == 1);
    fief_release(f);
    f = fief_results_filter(all, "bin == bin(B64\"YWI=\")", NULL, 0);
    E(f && t_count(f) == 1);
    fief_release(f);
    /* B64"..." alone is a string (realm-core's grammar) */
    f = fief_results_filter(all, "s == B64\"YWI=\"", NULL, 0);
    E(f && t_count(f) == 1);
    fief_release(f);
    /* never the other type, both ways, with every operator that takes them */
    const char *ops[6] = {"==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"};
    char pred[64];
    for (int i = 0; i < 6; i++) {
        snprintf(pred, sizeof pred, "s %s $0", ops[i]);
        EERRM(fief_results_filter(all, pred, &qb, 1), FIEF_ERR_QUERY_ARGUMENT, "distinct types");
        snprintf(pred, sizeof pred, "bin %s $0", ops[i]);
        EERRM(fief_results_filter(all, pred, &qs, 1), FIEF_ERR_QUERY_ARGUMENT, "distinct types");
        snprintf(pred, sizeof pred, "bin %s 'ab'", ops[i]);
        EERRM(fief_results_filter(all, pred, NULL, 0), FIEF_ERR_QUERY_INVALID, "distinct types");
        snprintf(pred, sizeof pred, "s %s bin(B64\"YWI=\")", ops[i]);
        EERRM(fief_results_filter(all, pred, NULL, 0), FIEF_ERR_QUERY_INVALID, "distinct types");
        snprintf(pred, sizeof pred, "bin %s B64\"YWI=\"", ops[i]);
        EERRM(fief_results_filter(all, pred, NULL, 0), FIEF_ERR_QUERY_INVALID, "distinct types");
    }
    EERRM(fief_results_filter(all, "$0 == bin", &qs, 1), FIEF_ERR_QUERY_ARGUMENT, "argument 0");
    EERRM(fief_results_filter(all, "%@ != s", &qb, 1), FIEF_ERR_QUERY_ARGUMENT, "argument 0");
    EERR(fief_results_filter(all, "s == bin", NULL, 0), FIEF_ERR_QUERY_INVALID);
    EERR(fief_results_filter(all, "bin == s", NULL, 0), FIEF_ERR_QUERY_INVALID);
    fief_release(all);
    fief_release(r);
}

TEST(invalid_timestamps_refused_everywhere) {
    /* An invalid timestamp was accepted as a query argument, though refused when written. */
    setup();
    const fief_timestamp_t bad[7] = {{1, -1}, {-1, 1}, {0, 1000000000}, {0, -1000000000},
                                     {5, INT32_MAX}, {-5, INT32_MIN}, {INT64_MAX, 1000000000}};
    fief_value_t one = vi(1);
    for (int i = 0; i < 7; i++) {
        fief_value_t ts = vts(bad[i].seconds, bad[i].nanoseconds);
        fief_query_arg_t qa = {1, false, &ts};
        EERRM(fief_results_filter(ALL, "born == $0", &qa, 1), FIEF_ERR_INVALID_ARGUMENT,
              "args[0].values[0]: invalid timestamp");
        EERRM(fief_results_filter(ALL, "born > %@", &qa, 1), FIEF_ERR_INVALID_ARGUMENT, "invalid timestamp");
        /* an argument the predicate does not use is refused all the same */
        EERRM(fief_results_filter(ALL, "TRUEPREDICATE", &qa, 1), FIEF_ERR_INVALID_ARGUMENT, "invalid timestamp");
        fief_value_t list[2] = {vts(1, 0), ts};
        fief_query_arg_t ql[2] = {{1, false, &one}, {2, true, list}};
        EERRM(fief_results_filter(ALL, "age == $0", ql, 2), FIEF_ERR_INVALID_ARGUMENT, "args[1].values[1]");
        /* and the same code wherever else a timestamp goes in */
        R(fief_realm_begin_write(R_));
        fief_object_t *o = fief_results_get_object(ALL, 0);
        R(o);
        EERRM(fief_object_set_value(o, P_BORN, ts), FIEF_ERR_INVALID_ARGUMENT, "value: invalid timestamp");
        fief_property_key_t pk[2] = {P_ID, P_BORN};
        fief_value_t row[2] = {vi(100), ts};
        EERRM(fief_object_set_values(o, &pk[1], &row[1], 1), FIEF_ERR_INVALID_ARGUMENT, "values[0]: invalid timestamp");
        EERRM(fief_object_create(R_, CK, pk, row, 2, FIEF_UPDATE_POLICY_ERROR), FIEF_ERR_INVALID_ARGUMENT,
              "values[1]: invalid timestamp");
        EERRM(fief_object_create_many(R_, CK, pk, 2, row, 1, FIEF_UPDATE_POLICY_ALL, NULL), FIEF_ERR_INVALID_ARGUMENT,
              "values[1]: invalid timestamp");
        bool found = false;
        EERRM(fief_object_find_by_primary_key(R_, CK, ts, &found), FIEF_ERR_INVALID_ARGUMENT, "primary_key: invalid timestamp");
        fief_release(o);
        E(fief_realm_cancel(R_));
    }
    /* the extremes of valid timestamps are accepted */
    QA("born > $0", "1,2,3,4,5,6,7,8", vts(-1, -999999999));
    QA("born > $0", "1,2,3,4,5,6,7,8", vts(0, -999999999));
    QA("born > $0", "1,2,3,4,5,6,7,8", vts(999, 999999999));
    QA("born >= $0", "", vts(INT64_MAX, 999999999));
    QA("born > $0", "1,2,3,4,5,6,7,8", vts(INT64_MIN, -999999999));
    /* literals are checked by the parser */
    EERR(fief_results_filter(ALL, "born > T1:-1", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    teardown();
}

/* `prefix` x n, then `middle`, then `suffix` x n, in a malloc'ed string. */
static char *repeat(const char *prefix, int n, const char *middle, const char *suffix) {
    size_t size = (strlen(prefix) + strlen(suffix)) * (size_t)n + strlen(middle) + 1;
    char *s = malloc(size);
    if (!s) return NULL;
    s[0] = 0;
    for (int i = 0; i < n; i++) strcat(s, prefix);
    strcat(s, middle);
    for (int i = 0; i < n; i++) strcat(s, suffix);
    return s;
}

TEST(nesting_limits) {
    /* The documented limits: 100 levels of '(' and NOT, 1000 terms in an AND/OR chain. */
    setup();
    struct { const char *open; int n; const char *close; bool ok; const char *expected; } cases[] = {
        {"(", 100, ")", true, "1,6"},
        {"(", 101, ")", false, NULL},
        {"NOT ", 100, "", true, "1,6"},
        {"NOT ", 101, "", false, NULL},
        {"!", 99, "", true, "2,3,4,5,7,8"},
        {"(NOT ", 50, ")", true, "1,6"},
        {"(NOT ", 51, ")", false, NULL},
        {"NOT (", 50, ")", true, "1,6"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *pred = repeat(cases[i].open, cases[i].n, "age == 30", cases[i].close);
        R(pred);
        if (cases[i].ok) {
            fief_results_t *f = fief_results_filter(ALL, pred, NULL, 0);
            check_ids(__FILE__, __LINE__, f, cases[i].expected, pred);
            fief_release(f);
        } else {
            EERRM(fief_results_filter(ALL, pred, NULL, 0), FIEF_ERR_QUERY_SYNTAX,
                  "nested too deeply (more than 100 levels of '(' and NOT)");
        }
        free(pred);
    }
    /* AND/OR chains: 1000 terms, not 1001 */
    char *chain = repeat("age == 30 OR ", 999, "age == 25", "");
    R(chain);
    fief_results_t *f = fief_results_filter(ALL, chain, NULL, 0);
    check_ids(__FILE__, __LINE__, f, "1,2,4,6", "a chain of 1000 terms");
    fief_release(f);
    free(chain);
    chain = repeat("age == 30 AND ", 1000, "age == 30", "");
    R(chain);
    EERRM(fief_results_filter(ALL, chain, NULL, 0), FIEF_ERR_QUERY_SYNTAX, "too complex (more than 1000");
    free(chain);
    teardown();
}

/* Paths through links, lists and backlinks, lists of values, IN and BETWEEN:
 * Person(name, age, scores: list of int, dogs: list of Dog), Dog(name, age,
 * owner -> Person).  Ann has Rex (10) and Spot (3), Bob has Fido (1), Cy none;
 * Rex and Fido are Ann's, Spot is Bob's. */
static fief_property_key_t G_NAME;

static const char *graph_names(const fief_results_t *res) { return t_result_strings(res, G_NAME); }

static void graph_q(const char *file, int line, fief_results_t *all, fief_property_key_t name, const char *pred,
                    const fief_query_arg_t *args, size_t nargs, const char *expected) {
    G_NAME = name;
    fief_results_t *res = fief_results_filter(all, pred, args, nargs);
    if (!res) {
        t_fail(file, line, pred, "(filter failed)");
        return;
    }
    const char *got = graph_names(res);
    if (strcmp(got, expected) != 0) {
        char d[600];
        snprintf(d, sizeof d, "(names [%s], expected [%s])", got, expected);
        t_fail(file, line, pred, d);
    }
    fief_release(res);
}
#define GQ(all, name, pred, expected) graph_q(__FILE__, __LINE__, all, name, pred, NULL, 0, expected)
#define GQA(all, name, pred, args, expected) graph_q(__FILE__, __LINE__, all, name, pred, args, sizeof args / sizeof args[0], expected)

TEST(paths_through_links_and_collections) {
    fief_class_info_t c[2];
    memset(c, 0, sizeof c);
    c[0].name = "Person";
    c[0].num_properties = 4;
    c[1].name = "Dog";
    c[1].num_properties = 3;
    fief_property_info_t person[4] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("age", FIEF_TYPE_INT, 0),
                                      t_prop_info("scores", FIEF_TYPE_INT, 0), t_prop_info("dogs", FIEF_TYPE_LINK, 0)};
    person[2].collection_type = FIEF_COLLECTION_LIST;
    person[3].collection_type = FIEF_COLLECTION_LIST;
    person[3].link_target = "Dog";
    fief_property_info_t dog[3] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("age", FIEF_TYPE_INT, 0),
                                   t_prop_info("owner", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE)};
    dog[2].link_target = "Person";
    const fief_property_info_t *pp[2] = {person, dog};
    fief_schema_t *s = fief_schema_new(c, 2, pp);
    R(s);
    fief_realm_t *r = t_open(t_path("graph.fief"), s, 0);
    fief_release(s);
    R(r);
    fief_class_key_t pc = t_class(r, "Person"), dc = t_class(r, "Dog");
    fief_property_key_t p_name = t_prop(r, "Person", "name"), p_age = t_prop(r, "Person", "age");
    fief_property_key_t p_scores = t_prop(r, "Person", "scores"), p_dogs = t_prop(r, "Person", "dogs");
    fief_property_key_t d_name = t_prop(r, "Dog", "name"), d_age = t_prop(r, "Dog", "age"), d_owner = t_prop(r, "Dog", "owner");

    fief_object_key_t people[3], dogs[3];
    fief_property_key_t pk[2] = {p_name, p_age}, dk[2] = {d_name, d_age};
    fief_value_t pv[6] = {vs("Ann"), vi(30), vs("Bob"), vi(40), vs("Cy"), vi(50)};
    fief_value_t dv[6] = {vs("Rex"), vi(10), vs("Spot"), vi(3), vs("Fido"), vi(1)};
    R(fief_realm_begin_write(r));
    R(fief_object_create_many(r, pc, pk, 2, pv, 3, FIEF_UPDATE_POLICY_ERROR, people));
    R(fief_object_create_many(r, dc, dk, 2, dv, 3, FIEF_UPDATE_POLICY_ERROR, dogs));
    fief_object_t *ann = fief_object_get(r, pc, people[0]), *bob = fief_object_get(r, pc, people[1]);
    R(ann && bob);
    fief_list_t *ann_dogs = fief_object_get_list(ann, p_dogs), *bob_dogs = fief_object_get_list(bob, p_dogs);
    fief_list_t *ann_scores = fief_object_get_list(ann, p_scores);
    R(ann_dogs && bob_dogs && ann_scores);
    fief_value_t ad[2] = {vlink(dc, dogs[0]), vlink(dc, dogs[1])}, bd[1] = {vlink(dc, dogs[2])}, sc[3] = {vi(7), vi(9), vi(2)};
    E(fief_list_append(ann_dogs, ad, 2));
    E(fief_list_append(bob_dogs, bd, 1));
    E(fief_list_append(ann_scores, sc, 3));
    for (int i = 0; i < 3; i++) {
        fief_object_t *d = fief_object_get(r, dc, dogs[i]);
        R(d);
        E(fief_object_set_value(d, d_owner, vlink(pc, people[i == 1 ? 1 : 0])));
        fief_release(d);
    }
    R(fief_realm_commit(r));

    fief_results_t *all_people = fief_realm_get_objects(r, pc), *all_dogs = fief_realm_get_objects(r, dc);
    R(all_people && all_dogs);
    /* Through a to-one link (backward through the owners' backlinks), and forward between two paths. */
    GQ(all_dogs, d_name, "owner.name == 'Ann'", "Rex,Fido");
    GQ(all_dogs, d_name, "owner.name BEGINSWITH 'B' OR owner == nil", "Spot");
    GQ(all_dogs, d_name, "age < owner.age", "Rex,Spot,Fido");
    /* Through a list of links: implicit ANY, ALL and NONE (an empty list matches both), counts, aggregates. */
    GQ(all_people, p_name, "dogs.age > 5", "Ann");
    GQ(all_people, p_name, "ALL dogs.age > 2", "Ann,Cy");
    GQ(all_people, p_name, "NONE dogs.name == 'Fido'", "Ann,Cy");
    GQ(all_people, p_name, "dogs.@count == 0", "Cy");
    GQ(all_people, p_name, "dogs.@sum.age > 5", "Ann");
    GQ(all_people, p_name, "scores.@max > 8 AND 2 IN scores", "Ann");
    GQ(all_people, p_name, "@links.Dog.owner.@count == 2", "Ann");
    GQ(all_people, p_name, "@links.Dog.owner.name == 'Spot'", "Bob");
    GQ(all_people, p_name, "name IN {'Cy', 'Ann'} AND age BETWEEN {25, 45}", "Ann");
    /* Arguments: an object, a list. */
    fief_value_t rex = vlink(dc, dogs[0]);
    fief_query_arg_t one[1] = {{1, false, &rex}};
    GQA(all_people, p_name, "$0 IN dogs", one, "Ann");
    fief_value_t ages[2] = {vi(40), vi(50)};
    fief_query_arg_t list[1] = {{2, true, ages}};
    GQA(all_people, p_name, "age IN $0", list, "Bob,Cy");
    GQA(all_people, p_name, "age != ALL $0", list, "Ann");
    /* Live: renaming an owner changes the dogs found through the link. */
    fief_results_t *anns = fief_results_filter(all_dogs, "owner.name == 'Ann'", NULL, 0);
    R(anns);
    size_t n = 0;
    E(fief_results_count(anns, &n));
    EQU(n, 2);
    R(fief_realm_begin_write(r));
    E(fief_object_set_value(bob, p_name, vs("Ann")));
    R(fief_realm_commit(r));
    E(fief_results_count(anns, &n));
    EQU(n, 3);
    /* Errors name what is wrong. */
    EERRM(fief_results_filter(all_people, "dogs.nope > 1", NULL, 0), FIEF_ERR_QUERY_INVALID, "class 'Dog' has no property 'nope'");
    EERRM(fief_results_filter(all_people, "ANY age > 1", NULL, 0), FIEF_ERR_QUERY_INVALID, "ANY applies to a key path through a list");
    EERRM(fief_results_filter(all_people, "age IN 3", NULL, 0), FIEF_ERR_QUERY_INVALID, "IN takes a list on its right");

    fief_release(anns);
    fief_release(all_people);
    fief_release(all_dogs);
    fief_release(ann_dogs);
    fief_release(bob_dogs);
    fief_release(ann_scores);
    fief_release(ann);
    fief_release(bob);
    fief_release(r);
}

/* One element's size (`tags[0].@size`), each element's length (`.length`),
 * arithmetic on a list of values, and null among the values of a map of
 * links: Owner(name, tags: list of string, scores: list of int, pets: map of
 * Dog, walks: list of Dog), Dog(name).  Ann: tags abc, de; scores 2, 4; pets
 * {a: Rex, b: null}.  Bob: tags fghij; scores 1; pets {a: Fido}.  Cy: none. */
TEST(element_operations_list_arithmetic_and_map_nulls) {
    fief_class_info_t c[2];
    memset(c, 0, sizeof c);
    c[0].name = "Owner";
    c[0].num_properties = 5;
    c[1].name = "Dog";
    c[1].num_properties = 1;
    fief_property_info_t owner[5] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("tags", FIEF_TYPE_STRING, 0),
                                     t_prop_info("scores", FIEF_TYPE_INT, 0), t_prop_info("pets", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
                                     t_prop_info("walks", FIEF_TYPE_LINK, 0)};
    owner[1].collection_type = FIEF_COLLECTION_LIST;
    owner[2].collection_type = FIEF_COLLECTION_LIST;
    owner[3].collection_type = FIEF_COLLECTION_MAP;
    owner[3].link_target = "Dog";
    owner[4].collection_type = FIEF_COLLECTION_LIST;
    owner[4].link_target = "Dog";
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    const fief_property_info_t *pp[2] = {owner, dog};
    fief_schema_t *s = fief_schema_new(c, 2, pp);
    R(s);
    fief_realm_t *r = t_open(t_path("elements.fief"), s, 0);
    fief_release(s);
    R(r);
    fief_class_key_t oc = t_class(r, "Owner"), dc = t_class(r, "Dog");
    fief_property_key_t o_name = t_prop(r, "Owner", "name"), o_tags = t_prop(r, "Owner", "tags"), o_scores = t_prop(r, "Owner", "scores");
    fief_property_key_t o_pets = t_prop(r, "Owner", "pets"), d_name = t_prop(r, "Dog", "name");
    fief_object_key_t owners[3], dogs[2];
    fief_value_t ov[3] = {vs("Ann"), vs("Bob"), vs("Cy")}, dv[2] = {vs("Rex"), vs("Fido")};
    R(fief_realm_begin_write(r));
    R(fief_object_create_many(r, oc, &o_name, 1, ov, 3, FIEF_UPDATE_POLICY_ERROR, owners));
    R(fief_object_create_many(r, dc, &d_name, 1, dv, 2, FIEF_UPDATE_POLICY_ERROR, dogs));
    fief_object_t *ann = fief_object_get(r, oc, owners[0]), *bob = fief_object_get(r, oc, owners[1]);
    R(ann && bob);
    fief_list_t *ann_tags = fief_object_get_list(ann, o_tags), *bob_tags = fief_object_get_list(bob, o_tags);
    fief_list_t *ann_scores = fief_object_get_list(ann, o_scores), *bob_scores = fief_object_get_list(bob, o_scores);
    fief_map_t *ann_pets = fief_object_get_map(ann, o_pets), *bob_pets = fief_object_get_map(bob, o_pets);
    R(ann_tags && bob_tags && ann_scores && bob_scores && ann_pets && bob_pets);
    fief_value_t at[2] = {vs("abc"), vs("de")}, bt[1] = {vs("fghij")}, as[2] = {vi(2), vi(4)}, bs[1] = {vi(1)};
    E(fief_list_append(ann_tags, at, 2));
    E(fief_list_append(bob_tags, bt, 1));
    E(fief_list_append(ann_scores, as, 2));
    E(fief_list_append(bob_scores, bs, 1));
    E(fief_map_set(ann_pets, t_str("a"), vlink(dc, dogs[0])));
    E(fief_map_set(ann_pets, t_str("b"), vnull()));
    E(fief_map_set(bob_pets, t_str("a"), vlink(dc, dogs[1])));
    R(fief_realm_commit(r));

    fief_results_t *all = fief_realm_get_objects(r, oc);
    R(all);
    /* One element's size: a string's length; null past the end. */
    GQ(all, o_name, "tags[0].@size == 3", "Ann");
    GQ(all, o_name, "tags[LAST].@count == 5", "Bob");
    GQ(all, o_name, "tags[FIRST].@size == nil", "Cy");
    /* Each element's length, quantified. */
    GQ(all, o_name, "ANY tags.length == 2", "Ann");
    GQ(all, o_name, "ALL tags.length > 2", "Bob,Cy");
    /* Arithmetic on a list: each element's result, the list's quantifier kept. */
    GQ(all, o_name, "{1, 2} * 2 == scores", "Ann");
    GQ(all, o_name, "ALL {4, 8} / 2 >= ANY scores", "Ann,Bob");
    fief_value_t odd[2] = {vi(3), vi(5)};
    fief_query_arg_t odd_list[1] = {{2, true, odd}};
    GQA(all, o_name, "ANY scores IN $0 - 1", odd_list, "Ann");
    /* A map of links holds null values. */
    GQ(all, o_name, "pets.@values == nil", "Ann");
    GQ(all, o_name, "ALL pets.@values != nil", "Bob,Cy");
    /* NSPredicate's (RealmSwift's) names for @keys and @values. */
    GQ(all, o_name, "pets.@allValues == nil", "Ann");
    GQ(all, o_name, "ALL pets.@allValues != nil", "Bob,Cy");
    fief_value_t fido_or_null[2] = {vlink(dc, dogs[1]), vnull()};
    fief_query_arg_t fido_list[1] = {{2, true, fido_or_null}};
    GQA(all, o_name, "pets.@values == ANY $0", fido_list, "Ann,Bob");
    GQA(all, o_name, "walks == ANY $0", fido_list, "");
    /* Descriptions parse back. */
    fief_results_t *sized = fief_results_filter(all, "tags[0].@size == 3 AND ALL {4, 8} / 2 >= ANY scores", NULL, 0);
    R(sized);
    const char *text = fief_results_get_description(sized);
    R(text);
    if (strcmp(text, "tags[0].@count == 3 AND ALL {4, 8} / 2 >= ANY scores") != 0) t_fail(__FILE__, __LINE__, "description", text);
    GQ(all, o_name, text, "Ann");
    fief_release(sized);
    /* Errors. */
    EERRM(fief_results_filter(all, "scores[0].@size == 1", NULL, 0), FIEF_ERR_QUERY_INVALID, "'Owner.scores' holds int values");
    EERRM(fief_results_filter(all, "{1, 2} * {3} == scores", NULL, 0), FIEF_ERR_QUERY_INVALID, "does not allow arithmetic combining two lists of values");
    EERRM(fief_results_filter(all, "walks == nil", NULL, 0), FIEF_ERR_QUERY_INVALID, "holds no null");

    fief_release(all);
    fief_release(ann_tags);
    fief_release(bob_tags);
    fief_release(ann_scores);
    fief_release(bob_scores);
    fief_release(ann_pets);
    fief_release(bob_pets);
    fief_release(ann);
    fief_release(bob);
    fief_release(r);
}

/* fief_results_get_description: `res`'s description must be `expected`, and
 * filtering ALL with it (no arguments) must give the same ids in the same order. */
static void described(const char *file, int line, fief_results_t *res, const char *expected) {
    if (!res) {
        t_fail(file, line, expected, "(no results)");
        return;
    }
    const char *text = fief_results_get_description(res);
    if (!text) {
        t_fail(file, line, expected, "(fief_results_get_description failed)");
        fief_release(res);
        return;
    }
    if (strcmp(text, expected) != 0) {
        char d[700];
        snprintf(d, sizeof d, "(described as [%s])", text);
        t_fail(file, line, expected, d);
    }
    /* The same pointer again: the text lives with the handle. */
    if (fief_results_get_description(res) != text) t_fail(file, line, expected, "(a second call gave another pointer)");
    char want[512];
    snprintf(want, sizeof want, "%s", ids(res));
    fief_results_t *again = fief_results_filter(ALL, text, NULL, 0);
    check_ids(file, line, again, want, text);
    fief_release(again);
    fief_release(res);
}
#define DESCRIBED(res, expected) described(__FILE__, __LINE__, (res), (expected))

TEST(description) {
    setup();
    DESCRIBED(fief_results_filter(ALL, "TRUEPREDICATE", NULL, 0), "TRUEPREDICATE");
    DESCRIBED(fief_realm_get_objects(R_, CK), "TRUEPREDICATE");
    DESCRIBED(fief_results_filter(ALL, "age>25&&name beginswith[c] \"a\" || nick = nil", NULL, 0),
              "age > 25 AND name BEGINSWITH[c] 'a' OR nick == null");
    /* Arguments become literals: $n, %@, a list. */
    fief_value_t args[3] = {vi(30), vs("it's"), vd(80.5)};
    fief_query_arg_t qa[3] = {{1, false, &args[0]}, {1, false, &args[1]}, {1, false, &args[2]}};
    DESCRIBED(fief_results_filter(ALL, "age == %@ OR name == $1 OR score > $2", qa, 3),
              "age == 30 OR name == 'it\\'s' OR score > 80.5");
    fief_value_t ages[3] = {vi(25), vi(40), vs("x")};
    fief_query_arg_t list = {3, true, ages};
    DESCRIBED(fief_results_filter(ALL, "age IN $0", &list, 1), "age IN {25, 40, 'x'}");
    fief_value_t born = vts(3000, 0);
    fief_query_arg_t qborn = {1, false, &born};
    DESCRIBED(fief_results_filter(ALL, "born >= $0", &qborn, 1), "born >= T3000:0");
    /* Stages, and filters joined by AND. */
    fief_sort_descriptor_t by_age[2] = {{"age", false}, {"name", true}};
    fief_results_t *f = fief_results_filter(ALL, "active == true OR age < 25", NULL, 0);
    R(f);
    fief_results_t *s = fief_results_sort(f, by_age, 2);
    R(s);
    fief_results_t *f2 = fief_results_filter(s, "score > 55", NULL, 0);
    R(f2);
    DESCRIBED(fief_results_limit(f2, 4), "(active == true OR age < 25) AND score > 55 SORT(age DESC, name ASC) LIMIT(4)");
    const char *by_name[1] = {"nick"};
    DESCRIBED(fief_results_distinct(f2, by_name, 1), "(active == true OR age < 25) AND score > 55 SORT(age DESC, name ASC) DISTINCT(nick)");
    DESCRIBED(fief_results_filter(ALL, "age > 20 SORT(name DESC) LIMIT(3)", NULL, 0), "age > 20 SORT(name DESC) LIMIT(3)");
    fief_release(f2);
    fief_release(s);
    fief_release(f);
    /* Errors: a bad handle. */
    fief_clear_last_error();
    E(fief_results_get_description(NULL) == NULL);
    fief_error_t e;
    E(fief_get_last_error(&e) && e.code == FIEF_ERR_INVALID_HANDLE);
    fief_results_t *gone = fief_results_filter(ALL, "age > 1", NULL, 0);
    R(gone);
    fief_release(gone);
    EERR(fief_results_get_description(gone), FIEF_ERR_INVALID_HANDLE);
    teardown();
}

TEST(key_path_arguments) {
    setup();
    /* $Kn and %K take a string argument holding a key path; %K and %@ each take the next argument. */
    fief_value_t a[4] = {vs("age"), vi(30), vs("name"), vs("A")};
    fief_query_arg_t qa[4] = {{1, false, &a[0]}, {1, false, &a[1]}, {1, false, &a[2]}, {1, false, &a[3]}};
    fief_results_t *res = fief_results_filter(ALL, "%K == %@", qa, 2);
    CHECK_IDS(res, "1,6");
    fief_release(res);
    res = fief_results_filter(ALL, "%K >= %@ AND %K BEGINSWITH[c] %@", qa, 4);
    CHECK_IDS(res, "1");
    fief_release(res);
    res = fief_results_filter(ALL, "$K2 == 'bob' OR $K0 == $1", qa, 3);
    CHECK_IDS(res, "1,2,6");
    DESCRIBED(res, "name == 'bob' OR age == 30");
    /* Bad key-path arguments: FIEF_ERR_QUERY_ARGUMENT, naming the argument. */
    EERRM(fief_results_filter(ALL, "%K == 1", &qa[1], 1), FIEF_ERR_QUERY_ARGUMENT, "argument 0 (a key-path argument, $K0 or the matching %K) is an int; it must be a string");
    fief_value_t nope = vs("nope"), empty = vs(""), nul = vnull();
    fief_query_arg_t qn = {1, false, &nope}, qe = {1, false, &empty}, qnull = {1, false, &nul}, qlist = {1, true, &a[0]};
    EERRM(fief_results_filter(ALL, "%K == 1", &qn, 1), FIEF_ERR_QUERY_ARGUMENT, "is 'nope': class 'Person' has no property 'nope'");
    EERRM(fief_results_filter(ALL, "%K == 1", &qe, 1), FIEF_ERR_QUERY_ARGUMENT, "which is no key path");
    EERRM(fief_results_filter(ALL, "$K0 == 1", &qnull, 1), FIEF_ERR_QUERY_ARGUMENT, "is null");
    EERRM(fief_results_filter(ALL, "$K0 == 1", &qlist, 1), FIEF_ERR_QUERY_ARGUMENT, "is a list");
    EERRM(fief_results_filter(ALL, "$K1 == 1", qa, 1), FIEF_ERR_QUERY_ARGUMENT, "but 1 argument was given");
    teardown();
}

/* Decimal128 multiplication and division (IEEE 754-2008 decimal128, as
 * realm-core computes them) and a list of values applied to a property,
 * through fief_results_filter: dec is 10, 0.1 and -7.5. */
TEST(decimal_arithmetic) {
    fief_realm_t *r = t_open_std();
    R(r);
    fief_class_key_t ca = t_class(r, "AllTypes");
    fief_property_key_t pid = t_prop(r, "AllTypes", "id"), pdec = t_prop(r, "AllTypes", "dec");
    R(fief_realm_begin_write(r));
    fief_value_t decs[3] = {vdec(10, 0x3040000000000000ULL), vdec(1, 0x303E000000000000ULL), vdec(75, 0xB03E000000000000ULL)};
    for (int i = 0; i < 3; i++) {
        fief_property_key_t p[2] = {pid, pdec};
        fief_value_t v[2] = {vi(i), decs[i]};
        fief_object_t *o = fief_object_create(r, ca, p, v, 2, FIEF_UPDATE_POLICY_ERROR);
        E(o);
        fief_release(o);
    }
    E(fief_realm_commit(r));
    fief_results_t *all = fief_realm_get_objects(r, ca);
    R(all);
    /* 10 / 3 is 3.333333333333333333333333333333333 (34 digits, rounded down). */
    fief_value_t third = vdec(0x67d9da2155555555ULL, 0x2ffea45894e48295ULL), list[2] = {vi(1), vi(2)};
    fief_query_arg_t qthird = {1, false, &third}, qlist = {2, true, list};
    struct { const char *pred; const fief_query_arg_t *arg; uint64_t count; const char *first; } cases[] = {
        {"dec * 1.2 > 10", NULL, 1, "dec * 1.2 > 10 AND id == 0"},
        {"dec / 3 == $0", &qthird, 1, "dec / 3 == $0 AND id == 0"},
        {"dec / 0 < 0", NULL, 1, "dec / 0 < 0 AND id == 2"},
        {"dec / 0 > 0", NULL, 2, "dec / 0 > 0 AND id != 2"},
        {"dec * dec == 100", NULL, 1, "dec * dec == 100 AND id == 0"},
        {"dec * 3 == 0.3", NULL, 1, "dec * 3 == 0.3 AND id == 1"},
        {"-dec / id == 3.75", NULL, 1, "-dec / id == 3.75 AND id == 2"},
        {"{1, 2} * dec == 20", NULL, 1, "{1, 2} * dec == 20 AND id == 0"},
        {"ALL $0 * dec > 0", &qlist, 2, "ALL $0 * dec > 0 AND id != 2"},
        {"NONE {1, 2} * dec > 0", NULL, 1, "NONE {1, 2} * dec > 0 AND id == 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fief_results_t *f = fief_results_filter(all, cases[i].pred, cases[i].arg, cases[i].arg ? 1 : 0);
        R(f);
        EQU(t_count(f), cases[i].count);
        fief_release(f);
        f = fief_results_filter(all, cases[i].first, cases[i].arg, cases[i].arg ? 1 : 0);
        R(f);
        EQU(t_count(f), cases[i].count);
        fief_release(f);
    }
    /* Realm's rule: one list or collection per arithmetic expression. */
    EERRM(fief_results_filter(all, "{1, 2} * dec * {3, 4} == 1", NULL, 0), FIEF_ERR_QUERY_INVALID,
          "Realm's query language does not allow arithmetic combining two lists of values");
    EERRM(fief_results_filter(all, "dec * {1, 'x'} == 1", NULL, 0), FIEF_ERR_QUERY_INVALID, "arithmetic takes numbers");
    fief_release(all);
    fief_release(r);
}

/* NSPredicate's printf-style number specifiers: each takes the next
 * argument as %@ does; %d, %i, %ld, %lld, %u, %x ... an integer (a double
 * truncated toward zero, a bool 0 or 1), %f, %lf, %g ... a double. */
TEST(printf_number_arguments) {
    setup();
    QA("age >= %d AND age <= %ld", "1,2,4,6,8", vi(25), vi(30));
    QA("age == %lld OR age == %u", "1,2,4,6", vi(30), vi(25));
    QA("age == %i", "1,6", vd(30.9));
    QA("age == %d", "1,6", vd(30.0));
    QA("score == %f", "2,6", vi(72));
    QA("score == %lf", "2,6", vd(72.0));
    QA("score > %g", "1,3,5", vi(80));
    QA("score > %.1f AND age == %d", "1", vi(80), vd(30.2));
    QA("%K == %d", "1,6", vs("age"), vi(30));
    QA("age == $1 OR age == %d", "1,2,4,6", vi(30), vi(25));
    fief_value_t a = vd(30.5);
    fief_query_arg_t qa = {1, false, &a};
    fief_results_t *res = fief_results_filter(ALL, "age == %d", &qa, 1);
    CHECK_IDS(res, "1,6");
    DESCRIBED(res, "age == 30");
    fief_release(res);
    /* Wrong arguments: FIEF_ERR_QUERY_ARGUMENT naming the specifier. */
    fief_value_t str = vs("30"), nul = vnull(), big = vd(1e300), list[2] = {vi(1), vi(2)};
    fief_query_arg_t qs = {1, false, &str}, qn = {1, false, &nul}, qb = {1, false, &big}, ql = {2, true, list};
    EERRM(fief_results_filter(ALL, "age == %d", &qs, 1), FIEF_ERR_QUERY_ARGUMENT, "argument 0 (for '%d') is a string; '%d' takes a whole number");
    EERRM(fief_results_filter(ALL, "score == %lf", &qn, 1), FIEF_ERR_QUERY_ARGUMENT, "argument 0 (for '%lf') is null; '%lf' takes a number");
    EERRM(fief_results_filter(ALL, "age == %d", &qb, 1), FIEF_ERR_QUERY_ARGUMENT, "which is no 64-bit integer");
    EERRM(fief_results_filter(ALL, "age IN %d", &ql, 1), FIEF_ERR_QUERY_ARGUMENT, "is a list or a shape");
    EERRM(fief_results_filter(ALL, "age == %d", NULL, 0), FIEF_ERR_QUERY_ARGUMENT, "argument");
    /* Specifiers with no meaning in a predicate: FIEF_ERR_QUERY_SYNTAX. */
    EERRM(fief_results_filter(ALL, "name == %s", &qs, 1), FIEF_ERR_QUERY_SYNTAX, "format specifier '%s' is not supported in a predicate");
    EERRM(fief_results_filter(ALL, "age %% 2 == 0", NULL, 0), FIEF_ERR_QUERY_SYNTAX, "'%%' (a literal percent) has no meaning outside a quoted string");
    EERRM(fief_results_filter(ALL, "age == %y", &qs, 1), FIEF_ERR_QUERY_SYNTAX, "a format specifier is %@, %K, or a number");
    /* Quoted, a specifier is text. */
    Q("name == '%d'", "");
    teardown();
}

/* fief_results_get_keys: the keys of a range in one call, the same keys
 * fief_results_get_key gives one at a time. */
TEST(results_get_keys) {
    setup();
    fief_results_t *f = fief_results_filter(ALL, "age >= 30", NULL, 0);
    R(f);
    fief_results_t *s = sorted(f, "age", false, NULL, false);
    R(s);
    CHECK_IDS(s, "5,3,1,6");
    fief_object_key_t one[4], all[4] = {-1, -1, -1, -1};
    for (size_t i = 0; i < 4; i++) R(fief_results_get_key(s, i, &one[i]));
    size_t got = 99;
    E(fief_results_get_keys(s, 0, 4, all, &got));
    EQU(got, 4);
    for (size_t i = 0; i < 4; i++) EQI(all[i], one[i]);
    /* a batch larger than what is left: fewer keys, their number */
    fief_object_key_t batch[8];
    memset(batch, 0xff, sizeof batch);
    E(fief_results_get_keys(s, 2, 8, batch, &got));
    EQU(got, 2);
    EQI(batch[0], one[2]);
    EQI(batch[1], one[3]);
    EQI(batch[2], -1); /* nothing written past them */
    E(fief_results_get_keys(s, 4, 8, batch, &got));
    EQU(got, 0);
    /* without out_count the range must lie within the results */
    E(fief_results_get_keys(s, 1, 3, batch, NULL));
    EQI(batch[0], one[1]);
    EQI(batch[2], one[3]);
    memset(batch, 0xff, sizeof batch);
    EERR(fief_results_get_keys(s, 1, 4, batch, NULL), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EQI(batch[0], -1);
    E(fief_results_get_keys(s, 4, 0, NULL, NULL));
    EERR(fief_results_get_keys(s, 5, 1, batch, &got), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_results_get_keys(s, (size_t)-1, 1, batch, &got), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_results_get_keys(s, 0, 2, NULL, &got), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_get_keys(s, 0, (size_t)-1, batch, &got), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_get_keys(NULL, 0, 1, batch, &got), FIEF_ERR_INVALID_HANDLE);
    /* the keys follow the results: after a change, the new evaluation */
    R(fief_realm_begin_write(R_));
    fief_object_t *carol = fief_results_get_object(s, 1);
    R(carol);
    R(fief_object_delete(carol));
    E(fief_results_get_keys(s, 0, 8, batch, &got));
    EQU(got, 3);
    EQI(batch[0], one[0]);
    EQI(batch[1], one[2]);
    EQI(batch[2], one[3]);
    R(fief_realm_cancel(R_));
    fief_release(carol);
    fief_release(s);
    fief_release(f);
    teardown();
}

static const t_case cases[] = {
    T(results_get_keys), T(all_objects), T(filter_comparisons), T(filter_strings), T(filter_logic), T(filter_arguments),
    T(filter_errors), T(sort), T(results_access), T(results_live_and_delete_all), T(query_other_types),
    T(strings_and_binaries_are_distinct), T(invalid_timestamps_refused_everywhere), T(nesting_limits),
    T(paths_through_links_and_collections), T(element_operations_list_arithmetic_and_map_nulls), T(description),
    T(key_path_arguments), T(decimal_arithmetic), T(printf_number_arguments),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
