/*
 * Five rules of Realm's query language as realm-core 14 has them, through
 * the C API (fief_results_filter and the SORT/DISTINCT stages): a property
 * named `self` starting a key path, SORT/DISTINCT by a map's key, B64"..."
 * as a string, two many-valued key paths compared element by element, and
 * `!=` against a list (lengths differ, or every position differs).
 */
#include "fief_test.h"

#include <stdlib.h>
#include <string.h>

static fief_realm_t *R_;
static fief_class_key_t C_ITEM, C_PERSON, C_BIN;
static fief_property_key_t I_NAME, P_NAME, B_S;
static fief_results_t *ITEMS, *PEOPLE, *BINS;

/* Item {name, price, self → Item}: milk 5.5, oranges 4.0, pizza 9.5, cereal 6.5, each `self` linking to
 * itself but cereal's (null).
 * Person {name, items, others (lists of Item), meta (map of int?)}:
 *   p0: items [milk, oranges, pizza, cereal], others the same, meta {age: 6}
 *   p1: items 10 x milk, others [milk], meta {age: 4}
 *   p2: items [pizza, pizza, cereal], others [cereal, pizza, pizza] (one position equal), meta {age: 6}
 *   p3: items [], others [], meta {}
 * Bin {s, b, m (mixed)}: ("Rex", bin "Rex", "Rex"), ("Bo", bin "Bo", bin "Rex"). */
static void setup(void) {
    fief_class_info_t c[3];
    memset(c, 0, sizeof c);
    c[0].name = "Item";
    c[0].num_properties = 3;
    c[1].name = "Person";
    c[1].num_properties = 4;
    c[2].name = "Bin";
    c[2].num_properties = 3;
    fief_property_info_t item[3] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("price", FIEF_TYPE_DOUBLE, 0),
                                    t_prop_info("self", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE)};
    item[2].link_target = "Item";
    fief_property_info_t person[4] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("items", FIEF_TYPE_LINK, 0),
                                      t_prop_info("others", FIEF_TYPE_LINK, 0), t_prop_info("meta", FIEF_TYPE_INT, FIEF_PROPERTY_NULLABLE)};
    person[1].collection_type = FIEF_COLLECTION_LIST;
    person[1].link_target = "Item";
    person[2].collection_type = FIEF_COLLECTION_LIST;
    person[2].link_target = "Item";
    person[3].collection_type = FIEF_COLLECTION_MAP;
    fief_property_info_t bin[3] = {t_prop_info("s", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("b", FIEF_TYPE_BINARY, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("m", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    const fief_property_info_t *pp[3] = {item, person, bin};
    fief_schema_t *s = fief_schema_new(c, 3, pp);
    R(s);
    R_ = t_open(t_path("rules.fief"), s, 0);
    fief_release(s);
    R(R_);
    C_ITEM = t_class(R_, "Item");
    C_PERSON = t_class(R_, "Person");
    C_BIN = t_class(R_, "Bin");
    I_NAME = t_prop(R_, "Item", "name");
    P_NAME = t_prop(R_, "Person", "name");
    B_S = t_prop(R_, "Bin", "s");
    fief_property_key_t i_price = t_prop(R_, "Item", "price"), i_self = t_prop(R_, "Item", "self");
    fief_property_key_t p_items = t_prop(R_, "Person", "items"), p_others = t_prop(R_, "Person", "others");
    fief_property_key_t p_meta = t_prop(R_, "Person", "meta");

    R(fief_realm_begin_write(R_));
    fief_object_key_t items[4], people[4], bins[2];
    fief_property_key_t ik[2] = {I_NAME, i_price};
    fief_value_t iv[8] = {vs("milk"), vd(5.5), vs("oranges"), vd(4.0), vs("pizza"), vd(9.5), vs("cereal"), vd(6.5)};
    R(fief_object_create_many(R_, C_ITEM, ik, 2, iv, 4, FIEF_UPDATE_POLICY_ERROR, items));
    for (int i = 0; i < 3; i++) {
        fief_object_t *o = fief_object_get(R_, C_ITEM, items[i]);
        R(o);
        E(fief_object_set_value(o, i_self, vlink(C_ITEM, items[i])));
        fief_release(o);
    }
    fief_value_t pv[4] = {vs("p0"), vs("p1"), vs("p2"), vs("p3")};
    R(fief_object_create_many(R_, C_PERSON, &P_NAME, 1, pv, 4, FIEF_UPDATE_POLICY_ERROR, people));
    static const int item_lists[4][11] = {{4, 0, 1, 2, 3}, {10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {3, 2, 2, 3}, {0}};
    static const int other_lists[4][5] = {{4, 0, 1, 2, 3}, {1, 0}, {3, 3, 2, 2}, {0}};
    static const int ages[4] = {6, 4, 6, -1};
    for (int p = 0; p < 4; p++) {
        fief_object_t *o = fief_object_get(R_, C_PERSON, people[p]);
        R(o);
        fief_list_t *a = fief_object_get_list(o, p_items), *b = fief_object_get_list(o, p_others);
        fief_map_t *m = fief_object_get_map(o, p_meta);
        R(a && b && m);
        fief_value_t v[10];
        for (int k = 0; k < item_lists[p][0]; k++) v[k] = vlink(C_ITEM, items[item_lists[p][k + 1]]);
        if (item_lists[p][0] > 0) E(fief_list_append(a, v, (size_t)item_lists[p][0]));
        for (int k = 0; k < other_lists[p][0]; k++) v[k] = vlink(C_ITEM, items[other_lists[p][k + 1]]);
        if (other_lists[p][0] > 0) E(fief_list_append(b, v, (size_t)other_lists[p][0]));
        if (ages[p] >= 0) E(fief_map_set(m, t_str("age"), vi(ages[p])));
        fief_release(a);
        fief_release(b);
        fief_release(m);
        fief_release(o);
    }
    fief_property_key_t bk[3] = {B_S, t_prop(R_, "Bin", "b"), t_prop(R_, "Bin", "m")};
    fief_value_t bv[6] = {vs("Rex"), vbin("Rex", 3), vs("Rex"), vs("Bo"), vbin("Bo", 2), vbin("Rex", 3)};
    R(fief_object_create_many(R_, C_BIN, bk, 3, bv, 2, FIEF_UPDATE_POLICY_ERROR, bins));
    R(fief_realm_commit(R_));
    ITEMS = fief_realm_get_objects(R_, C_ITEM);
    PEOPLE = fief_realm_get_objects(R_, C_PERSON);
    BINS = fief_realm_get_objects(R_, C_BIN);
    R(ITEMS && PEOPLE && BINS);
}

static void teardown(void) {
    fief_release(ITEMS);
    fief_release(PEOPLE);
    fief_release(BINS);
    fief_release(R_);
}

/* The names (property `name`) of the results of `query` on `all`, joined by ',', against `expected`. */
static void rq(const char *file, int line, fief_results_t *all, fief_property_key_t name, const char *query,
               const fief_query_arg_t *args, size_t nargs, const char *expected) {
    fief_results_t *res = fief_results_filter(all, query, args, nargs);
    if (!res) {
        t_fail(file, line, query, "(filter failed)");
        return;
    }
    const char *got = t_result_strings(res, name);
    if (strcmp(got, expected) != 0) {
        char d[600];
        snprintf(d, sizeof d, "(got [%s], expected [%s])", got, expected);
        t_fail(file, line, query, d);
    }
    fief_release(res);
}
#define RQ(all, name, query, expected) rq(__FILE__, __LINE__, all, name, query, NULL, 0, expected)

TEST(property_named_self_starts_a_key_path) {
    setup();
    /* realm-core: a class's property named `self` is usable as the first step of a key path. */
    RQ(ITEMS, I_NAME, "self.price > 5.0", "milk,pizza");
    RQ(ITEMS, I_NAME, "self.self.name == 'oranges'", "oranges");
    RQ(ITEMS, I_NAME, "self.@count == 0", "cereal");
    RQ(ITEMS, I_NAME, "@links.@count >= self.@count", "milk,oranges,pizza,cereal");
    RQ(ITEMS, I_NAME, "@links.Item.self.@count == 1", "milk,oranges,pizza");
    RQ(ITEMS, I_NAME, "self == nil", "cereal");
    /* SORT through it: a null link comes before every value descending. */
    RQ(ITEMS, I_NAME, "TRUEPREDICATE SORT(self.price DESC)", "cereal,pizza,milk,oranges");
    /* A class without such a property: FIEF_ERR_QUERY_INVALID naming it. */
    EERRM(fief_results_filter(PEOPLE, "self.name == 'p0'", NULL, 0), FIEF_ERR_QUERY_INVALID, "'self'");
    teardown();
}

TEST(sort_and_distinct_by_map_key) {
    setup();
    /* realm-core orders and dedups by the value at the key; a missing key is null. */
    RQ(PEOPLE, P_NAME, "TRUEPREDICATE SORT(meta['age'] ASC, name ASC)", "p3,p1,p0,p2");
    RQ(PEOPLE, P_NAME, "TRUEPREDICATE SORT(meta.age DESC) DISTINCT(meta[\"age\"])", "p0,p1,p3");
    RQ(PEOPLE, P_NAME, "TRUEPREDICATE DISTINCT(meta.age)", "p0,p1,p3");
    /* The same key paths through fief_results_sort and fief_results_distinct. */
    fief_sort_descriptor_t keys[2] = {{"meta.age", false}, {"name", false}};
    fief_results_t *sorted = fief_results_sort(PEOPLE, keys, 2);
    R(sorted);
    EQSTR(t_str(t_result_strings(sorted, P_NAME)), "p2,p0,p1,p3");
    const char *paths[1] = {"meta.age"};
    fief_results_t *distinct = fief_results_distinct(sorted, paths, 1);
    R(distinct);
    EQSTR(t_str(t_result_strings(distinct, P_NAME)), "p2,p1,p3");
    fief_release(distinct);
    fief_release(sorted);
    /* Still refused: the map itself, a list, a key with a '.'. */
    EERRM(fief_results_filter(PEOPLE, "TRUEPREDICATE SORT(meta ASC)", NULL, 0), FIEF_ERR_QUERY_INVALID, "is a map");
    EERRM(fief_results_filter(PEOPLE, "TRUEPREDICATE SORT(items ASC)", NULL, 0), FIEF_ERR_QUERY_INVALID, "is a list");
    EERRM(fief_results_filter(PEOPLE, "TRUEPREDICATE DISTINCT(meta['a.b'])", NULL, 0), FIEF_ERR_QUERY_INVALID, "'a.b'");
    teardown();
}

TEST(base64_alone_is_a_string) {
    setup();
    /* "UmV4" is base64 for "Rex": alone a string literal, in bin(...) a binary. */
    RQ(BINS, B_S, "s == B64\"UmV4\"", "Rex");
    RQ(BINS, B_S, "m == B64\"UmV4\"", "Rex");
    RQ(BINS, B_S, "m == bin(B64\"UmV4\")", "Bo");
    RQ(BINS, B_S, "m BEGINSWITH B64\"UmU=\"", "Rex");
    RQ(BINS, B_S, "b == bin(B64\"UmV4\")", "Rex");
    EERRM(fief_results_filter(BINS, "b == B64\"UmV4\"", NULL, 0), FIEF_ERR_QUERY_INVALID, "distinct types");
    EERRM(fief_results_filter(BINS, "s == B64\"/w==\"", NULL, 0), FIEF_ERR_QUERY_SYNTAX, "not UTF-8");
    /* The canonical text spells a binary constant bin(B64"...") and reads back as one. */
    fief_results_t *f = fief_results_filter(BINS, "b == bin('Rex')", NULL, 0);
    R(f);
    const char *text = fief_results_get_description(f);
    R(text);
    EQSTR(t_str(text), "b == bin(B64\"UmV4\")");
    RQ(BINS, B_S, text, "Rex");
    fief_release(f);
    teardown();
}

TEST(two_lists_compare_element_by_element) {
    setup();
    /* No ANY/ALL/NONE on either side: position by position; other lengths match only !=. */
    RQ(PEOPLE, P_NAME, "items.price == others.price", "p0,p3");
    RQ(PEOPLE, P_NAME, "items.name == others.name", "p0,p3");
    RQ(PEOPLE, P_NAME, "items.price != others.price", "p1,p3");
    RQ(PEOPLE, P_NAME, "items.price >= others.price", "p0,p3");
    RQ(PEOPLE, P_NAME, "items.price != items.price", "p3");
    RQ(PEOPLE, P_NAME, "items.price IN items.price", "p0,p1,p2,p3");
    /* A quantifier on either side: every pair. */
    RQ(PEOPLE, P_NAME, "ANY items.price == others.price", "p0,p1,p2");
    RQ(PEOPLE, P_NAME, "items.price == ANY others.price", "p0,p1,p2");
    teardown();
}

TEST(list_not_equal_to_list_literal) {
    setup();
    /* Lengths differ, or every position differs: p2's [pizza, pizza, cereal] shares position 1 with the list. */
    RQ(PEOPLE, P_NAME, "items.name != {'cereal', 'pizza', 'cereal'}", "p0,p1,p3");
    RQ(PEOPLE, P_NAME, "NOT items.name == {'cereal', 'pizza', 'cereal'}", "p0,p1,p2,p3");
    RQ(PEOPLE, P_NAME, "items.name != {'milk', 'milk', 'milk'}", "p0,p1,p2,p3");
    RQ(PEOPLE, P_NAME, "items.name != {'pizza', 'pizza', 'cereal'}", "p0,p1,p3");
    RQ(PEOPLE, P_NAME, "items.price != {}", "p0,p1,p2,p3");
    RQ(PEOPLE, P_NAME, "{9.5, 1.0, 6.5} != items.price", "p0,p1,p3");
    /* A list argument is the same list. */
    fief_value_t prices[3] = {vd(4.0), vd(9.5), vd(5.5)};
    fief_query_arg_t list[1] = {{3, true, prices}};
    rq(__FILE__, __LINE__, PEOPLE, P_NAME, "items.price != $0", list, 1, "p0,p1,p3");
    fief_value_t other[3] = {vd(4.0), vd(1.0), vd(1.0)};
    fief_query_arg_t list2[1] = {{3, true, other}};
    rq(__FILE__, __LINE__, PEOPLE, P_NAME, "items.price != $0", list2, 1, "p0,p1,p2,p3");
    teardown();
}

static const t_case cases[] = {
    T(property_named_self_starts_a_key_path), T(sort_and_distinct_by_map_key), T(base64_alone_is_a_string),
    T(two_lists_compare_element_by_element), T(list_not_equal_to_list_literal),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
