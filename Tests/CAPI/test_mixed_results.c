/* Results and aggregates of mixed values through the C API: lists, sets and
 * maps of mixed values as live results (values read with their own type,
 * find, filters over self, sorts in Realm's mixed order) and min, max, sum
 * and average over them and over mixed properties, by realm-core's rules
 * (min/max over every value in the mixed order, sum/average of the numbers
 * as decimal128); bad input refused with an error code and message. */
#include "fief_test.h"

#include <math.h>

/* A decimal128 of coefficient * 10^exponent (|coefficient| < 2^63). */
static fief_value_t vdecimal(int64_t coefficient, int exponent) {
    uint64_t sign = coefficient < 0 ? (uint64_t)1 << 63 : 0;
    uint64_t magnitude = coefficient < 0 ? (uint64_t)(-coefficient) : (uint64_t)coefficient;
    return vdec(magnitude, sign | ((uint64_t)(exponent + 6176) << 49));
}

/* The value of a decimal128 with a coefficient below 2^49 * 2^64 that fits
 * 64 bits, as a double (NAN for anything else). */
static double decimal_value(fief_value_t v) {
    if (v.type != FIEF_TYPE_DECIMAL128) return NAN;
    uint64_t high = v.u.decimal128.w[1];
    if (((high >> 61) & 3) == 3 || (high >> 58 & 0x1F) >= 0x1E || (high & 0x1FFFFFFFFFFFFull) != 0) return NAN;
    int exponent = (int)((high >> 49) & 0x3FFF) - 6176;
    double value = (double)v.u.decimal128.w[0] * pow(10.0, exponent);
    return high >> 63 ? -value : value;
}

/* Dog(name); Cat(name); Box(label, anyValue: mixed, items: list<mixed>, bag: set<mixed>, props: map<mixed>). */
static fief_schema_t *mixed_schema(void) {
    fief_class_info_t classes[3];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 1;
    classes[1].name = "Cat";
    classes[1].num_properties = 1;
    classes[2].name = "Box";
    classes[2].num_properties = 5;
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t cat[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t box[5] = {t_prop_info("label", FIEF_TYPE_STRING, 0),
                                   t_prop_info("anyValue", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("items", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("bag", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("props", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    box[2].collection_type = FIEF_COLLECTION_LIST;
    box[3].collection_type = FIEF_COLLECTION_SET;
    box[4].collection_type = FIEF_COLLECTION_MAP;
    const fief_property_info_t *props[3] = {dog, cat, box};
    return fief_schema_new(classes, 3, props);
}

static fief_realm_t *open_mixed(void) {
    fief_schema_t *s = mixed_schema();
    if (!s) return NULL;
    fief_realm_t *r = t_open(t_path("mixed-results.fief"), s, 0);
    fief_release(s);
    return r;
}

static fief_value_t at(const fief_results_t *results, size_t index) {
    fief_value_t v = vs("untouched");
    E(fief_results_get_value(results, index, &v));
    return v;
}

static fief_value_t agg(bool ok, fief_value_t v) {
    E(ok);
    return v;
}

static fief_value_t results_agg(const fief_results_t *results, fief_aggregate_t op) {
    fief_value_t v = vs("untouched");
    return agg(fief_results_aggregate(results, 0, op, &v), v);
}

/* results filtered by `predicate` with one argument (or none: arg NULL). */
static fief_results_t *where(const fief_results_t *results, const char *predicate, const fief_value_t *arg) {
    fief_query_arg_t a = {1, false, arg};
    return fief_results_filter(results, predicate, arg ? &a : NULL, arg ? 1 : 0);
}

/* The values of `results` must be `expected`. */
static void expect_values(const fief_results_t *results, const fief_value_t *expected, size_t n, int line) {
    size_t count = t_count(results);
    if (count != n) {
        char detail[64];
        snprintf(detail, sizeof detail, "count %zu, expected %zu", count, n);
        t_fail(__FILE__, line, "results count", detail);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        fief_value_t got = at(results, i);
        if (!t_value_eq(got, expected[i])) {
            char a[128], b[128], detail[300];
            snprintf(detail, sizeof detail, "value %zu: %s, expected %s", i, t_value_str(got, a, sizeof a),
                     t_value_str(expected[i], b, sizeof b));
            t_fail(__FILE__, line, "results value", detail);
        }
    }
}
#define EXPECT_VALUES(results, ...)                                                              \
    do {                                                                                         \
        const fief_value_t expected_[] = {__VA_ARGS__};                                          \
        expect_values((results), expected_, sizeof expected_ / sizeof expected_[0], __LINE__);   \
    } while (0)

static size_t count_where(const fief_results_t *results, const char *predicate, const fief_value_t *arg) {
    fief_results_t *f = where(results, predicate, arg);
    E(f != NULL);
    size_t n = f ? t_count(f) : (size_t)-1;
    fief_release(f);
    return n;
}

TEST(list_of_mixed_values_as_results) {
    fief_realm_t *r = open_mixed();
    R(r != NULL);
    fief_class_key_t box_class = t_class(r, "Box"), dog_class = t_class(r, "Dog");
    fief_property_key_t dog_name = t_prop(r, "Dog", "name");
    R(fief_realm_begin_write(r));
    fief_object_t *box = fief_object_create(r, box_class, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    fief_value_t rex_name = vs("Rex");
    fief_object_t *rex = fief_object_create(r, dog_class, &dog_name, &rex_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(box != NULL && rex != NULL);
    fief_object_key_t rex_key;
    E(fief_object_get_key(rex, &rex_key));
    fief_list_t *items = fief_object_get_list(box, t_prop(r, "Box", "items"));
    R(items != NULL);
    const fief_value_t rex_link = vlink(dog_class, rex_key);
    const fief_value_t values[] = {vi(3),       vs("b"),           vd(1.0),   vb(true),         vnull(),
                                   vdecimal(1, 0), vs("Apple"),   vbin("\1\2", 2), vi(1),       vf(2.5f),
                                   vts(5, 0),  rex_link,          vs("apple"), vd(-0.5),       vi(-7),
                                   vdecimal(25, -1), vs("1")};
    const size_t n = sizeof values / sizeof values[0];
    E(fief_list_append(items, values, n));
    R(fief_realm_commit(r));

    fief_results_t *all = fief_list_to_results(items);
    R(all != NULL);
    expect_values(all, values, n, __LINE__);

    /* find: numbers by value across types, nothing else across types. */
    size_t index = 99;
    bool found = false;
    E(fief_results_index_of_value(all, vi(1), &index, &found) && found);
    EQU(index, 2); /* the double 1.0 */
    E(fief_results_index_of_value(all, vdecimal(10, -1), &index, &found) && found);
    EQU(index, 2);
    E(fief_results_index_of_value(all, vdecimal(25, -1), &index, &found) && found);
    EQU(index, 9); /* the float 2.5 */
    E(fief_results_index_of_value(all, vb(true), &index, &found) && found);
    EQU(index, 3); /* true is not 1 */
    E(fief_results_index_of_value(all, vs("1"), &index, &found) && found);
    EQU(index, 16); /* "1" is not 1 */
    E(fief_results_index_of_value(all, vnull(), &index, &found) && found);
    EQU(index, 4);
    E(fief_results_index_of_value(all, rex_link, &index, &found) && found);
    EQU(index, 11);
    E(fief_results_index_of_value(all, vi(100), &index, &found) && !found);
    E(fief_results_index_of_value(all, vs("3"), &index, &found) && !found);
    EERR(fief_results_index_of_value(all, vi(1), NULL, &found), FIEF_ERR_INVALID_ARGUMENT);

    /* Filters over self. */
    fief_results_t *ones = where(all, "self == 1", NULL);
    R(ones != NULL);
    EXPECT_VALUES(ones, vd(1.0), vdecimal(1, 0), vi(1));
    fief_results_t *big = where(all, "self > 2", NULL);
    R(big != NULL);
    EXPECT_VALUES(big, vi(3), vf(2.5f), vdecimal(25, -1));
    fief_value_t arg = vdecimal(-5, -1);
    EQU(count_where(all, "self == $0", &arg), 1);
    EQU(count_where(all, "self < 0", NULL), 2);
    EQU(count_where(all, "self == nil", NULL), 1);
    EQU(count_where(all, "self != nil", NULL), n - 1);
    EQU(count_where(all, "self != 1", NULL), n - 3);
    EQU(count_where(all, "self == true", NULL), 1);
    EQU(count_where(all, "self == '1'", NULL), 1);
    EQU(count_where(all, "self > 'a'", NULL), 2); /* "apple", "b": strings with strings only */
    EQU(count_where(all, "self BEGINSWITH[c] 'a'", NULL), 2);
    EQU(count_where(all, "self LIKE 'a*e'", NULL), 1);
    arg = vbin("\1", 1);
    EQU(count_where(all, "self BEGINSWITH $0", &arg), 1);
    arg = vts(0, 0);
    EQU(count_where(all, "self > $0", &arg), 1);
    EQU(count_where(all, "self == $0", &rex_link), 1);
    /* Null against an ordering: null equals null, so <= and >= find the
     * nulls, < and > nothing. */
    EQU(count_where(all, "self < nil", NULL), 0);
    EQU(count_where(all, "self <= nil", NULL), count_where(all, "self == nil", NULL));
    EQU(count_where(all, "nil >= self", NULL), count_where(all, "self == nil", NULL));
    /* Predicates that make no sense: errors, no results. */
    EERRM(where(all, "self BEGINSWITH 1", NULL), FIEF_ERR_QUERY_INVALID, "string or binary");
    EERRM(where(all, "self > true", NULL), FIEF_ERR_QUERY_INVALID, "==");
    arg = vb(false);
    EERR(where(all, "self < $0", &arg), FIEF_ERR_QUERY_ARGUMENT);
    EERR(where(all, "self ==[c] 1", NULL), FIEF_ERR_QUERY_INVALID);
    EERR(where(all, "label == 'x'", NULL), FIEF_ERR_QUERY_INVALID);
    EERR(where(all, "self ==", NULL), FIEF_ERR_QUERY_SYNTAX);
    EERR(where(all, "self == $1", &arg), FIEF_ERR_QUERY_ARGUMENT);

    /* Sorted in Realm's mixed order; equal values keep the list's order. */
    fief_sort_descriptor_t up = {"self", true}, down = {"self", false};
    fief_results_t *sorted = fief_results_sort(all, &up, 1);
    R(sorted != NULL);
    EXPECT_VALUES(sorted, vnull(), vb(true), vi(-7), vd(-0.5), vd(1.0), vdecimal(1, 0), vi(1), vf(2.5f), vdecimal(25, -1),
                  vi(3), vs("1"), vs("Apple"), vs("apple"), vs("b"), vbin("\1\2", 2), vts(5, 0), rex_link);
    fief_results_t *reversed = fief_results_sort(big, &down, 1);
    R(reversed != NULL);
    EXPECT_VALUES(reversed, vi(3), vf(2.5f), vdecimal(25, -1));
    fief_results_t *last_first = fief_results_sort(all, &down, 1);
    R(last_first != NULL);
    EQV(at(last_first, 0), rex_link);
    EQV(at(last_first, n - 1), vnull());
    fief_sort_descriptor_t wrong = {"label", true};
    EERR(fief_results_sort(all, &wrong, 1), FIEF_ERR_QUERY_INVALID);

    /* Aggregates: min and max over every value in the mixed order, sum and
     * average of the numbers as decimal128. */
    EQV(results_agg(all, FIEF_AGGREGATE_MIN), vb(true));
    EQV(results_agg(all, FIEF_AGGREGATE_MAX), rex_link);
    fief_value_t sum = results_agg(all, FIEF_AGGREGATE_SUM);
    EQI(sum.type, FIEF_TYPE_DECIMAL128);
    EQD(decimal_value(sum), 3.5); /* 3 + 1 + 1 + 1 + 2.5 - 0.5 - 7 + 2.5 */
    EQD(decimal_value(results_agg(all, FIEF_AGGREGATE_AVERAGE)), 3.5 / 8);
    EQV(results_agg(big, FIEF_AGGREGATE_MIN), vf(2.5f)); /* the first of equal values */
    EQV(results_agg(ones, FIEF_AGGREGATE_MAX), vd(1.0));
    EQV(results_agg(sorted, FIEF_AGGREGATE_MAX), rex_link);
    fief_value_t v = vs("untouched");
    E(fief_list_aggregate(items, 0, FIEF_AGGREGATE_MAX, &v));
    EQV(v, rex_link);
    E(fief_list_aggregate(items, 0, FIEF_AGGREGATE_SUM, &v));
    EQD(decimal_value(v), 3.5);
    E(fief_list_aggregate(items, 0, FIEF_AGGREGATE_AVERAGE, &v));
    EQD(decimal_value(v), 3.5 / 8);
    v = vs("untouched");
    EERR(fief_list_aggregate(items, 0, 9, &v), FIEF_ERR_INVALID_ARGUMENT);
    EQI(v.type, FIEF_TYPE_STRING);
    EERR(fief_list_aggregate(items, 0, FIEF_AGGREGATE_MIN, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_aggregate(all, 0, 0, &v), FIEF_ERR_INVALID_ARGUMENT);

    /* Live: deleting the dog takes its link out of the list and the results. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(rex));
    R(fief_realm_commit(r));
    EQU(t_count(all), n - 1);
    EQV(results_agg(sorted, FIEF_AGGREGATE_MAX), vts(5, 0));
    EQV(at(last_first, 0), vts(5, 0));
    /* The owner goes: every call fails cleanly. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(box));
    R(fief_realm_commit(r));
    size_t count = 0;
    EERR(fief_results_count(sorted, &count), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_results_aggregate(all, 0, FIEF_AGGREGATE_SUM, &v), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_results_get_value(all, 0, &v), FIEF_ERR_INVALIDATED_OBJECT);

    fief_release(last_first);
    fief_release(reversed);
    fief_release(sorted);
    fief_release(big);
    fief_release(ones);
    fief_release(all);
    fief_release(items);
    fief_release(rex);
    fief_release(box);
    fief_release(r);
}

TEST(sets_and_maps_of_mixed_values_as_results) {
    fief_realm_t *r = open_mixed();
    R(r != NULL);
    fief_class_key_t box_class = t_class(r, "Box");
    R(fief_realm_begin_write(r));
    fief_object_t *box = fief_object_create(r, box_class, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(box != NULL);
    fief_set_t *bag = fief_object_get_set(box, t_prop(r, "Box", "bag"));
    fief_map_t *props = fief_object_get_map(box, t_prop(r, "Box", "props"));
    R(bag != NULL && props != NULL);
    const fief_value_t elements[] = {vs("x"), vi(2), vd(0.5), vb(false), vnull(), vdecimal(15, -1), vts(1, 0)};
    for (size_t i = 0; i < sizeof elements / sizeof elements[0]; i++) E(fief_set_insert(bag, elements[i], NULL));
    E(fief_map_set(props, t_str("a"), vi(10)));
    E(fief_map_set(props, t_str("b"), vs("ten")));
    E(fief_map_set(props, t_str("c"), vd(0.1)));
    E(fief_map_set(props, t_str("d"), vnull()));
    E(fief_map_set(props, t_str("e"), vd(0.2)));
    R(fief_realm_commit(r));

    fief_results_t *set_values = fief_set_to_results(bag);
    R(set_values != NULL);
    EQU(t_count(set_values), 7);
    fief_sort_descriptor_t up = {"self", true};
    fief_results_t *sorted = fief_results_sort(set_values, &up, 1);
    R(sorted != NULL);
    EXPECT_VALUES(sorted, vnull(), vb(false), vd(0.5), vdecimal(15, -1), vi(2), vs("x"), vts(1, 0));
    fief_results_t *numbers = where(set_values, "self >= 0.5", NULL);
    R(numbers != NULL);
    EQU(t_count(numbers), 3);
    size_t index = 0;
    bool found = false;
    E(fief_results_index_of_value(set_values, vf(2.0f), &index, &found) && found);
    EQV(at(set_values, index), vi(2));
    fief_value_t v = vs("untouched");
    E(fief_set_aggregate(bag, 0, FIEF_AGGREGATE_SUM, &v));
    EQD(decimal_value(v), 4.0);
    E(fief_set_aggregate(bag, 0, FIEF_AGGREGATE_MIN, &v));
    EQV(v, vb(false));
    E(fief_set_aggregate(bag, 0, FIEF_AGGREGATE_MAX, &v));
    EQV(v, vts(1, 0));

    fief_results_t *map_values = fief_map_to_results(props);
    R(map_values != NULL);
    EXPECT_VALUES(map_values, vi(10), vs("ten"), vd(0.1), vnull(), vd(0.2));
    EQU(count_where(map_values, "self < 1", NULL), 2);
    EQU(count_where(map_values, "self CONTAINS 'e'", NULL), 1);
    /* Each double is added as realm-core converts it (15 significant
     * digits): 10 + 0.1 + 0.2 is exactly 10.3. */
    E(fief_map_aggregate(props, 0, FIEF_AGGREGATE_SUM, &v));
    EQV(v, vdecimal(103, -1));
    fief_results_t *small = where(map_values, "self < 1", NULL);
    R(small != NULL);
    EQV(results_agg(small, FIEF_AGGREGATE_SUM), vdecimal(3, -1));
    EQV(results_agg(small, FIEF_AGGREGATE_AVERAGE), vdecimal(15, -2));
    E(fief_map_aggregate(props, 0, FIEF_AGGREGATE_MAX, &v));
    EQSTR(v.u.string, "ten");
    fief_results_t *none = where(map_values, "self == 'nothing'", NULL);
    R(none != NULL);
    EQV(results_agg(none, FIEF_AGGREGATE_SUM), vdecimal(0, 0));
    EQV(results_agg(none, FIEF_AGGREGATE_MIN), vnull());
    EQV(results_agg(none, FIEF_AGGREGATE_AVERAGE), vnull());

    fief_release(none);
    fief_release(small);
    fief_release(map_values);
    fief_release(numbers);
    fief_release(sorted);
    fief_release(set_values);
    fief_release(bag);
    fief_release(props);
    fief_release(box);
    fief_release(r);
}

TEST(aggregates_of_a_mixed_property) {
    fief_realm_t *r = open_mixed();
    R(r != NULL);
    fief_class_key_t box_class = t_class(r, "Box");
    fief_property_key_t any = t_prop(r, "Box", "anyValue");
    const fief_value_t values[] = {vi(7), vs("seven"), vd(-0.5), vnull(), vb(true), vdecimal(1, 1)};
    R(fief_realm_begin_write(r));
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        fief_object_t *box = fief_object_create(r, box_class, &any, &values[i], 1, FIEF_UPDATE_POLICY_ERROR);
        E(box != NULL);
        fief_release(box);
    }
    R(fief_realm_commit(r));
    fief_results_t *boxes = fief_realm_get_objects(r, box_class);
    R(boxes != NULL);
    fief_value_t v = vs("untouched");
    E(fief_results_aggregate(boxes, any, FIEF_AGGREGATE_MIN, &v));
    EQV(v, vb(true));
    E(fief_results_aggregate(boxes, any, FIEF_AGGREGATE_MAX, &v));
    EQV(v, vs("seven"));
    E(fief_results_aggregate(boxes, any, FIEF_AGGREGATE_SUM, &v));
    EQD(decimal_value(v), 16.5);
    E(fief_results_aggregate(boxes, any, FIEF_AGGREGATE_AVERAGE, &v));
    EQD(decimal_value(v), 5.5);
    /* Bad input: an unknown property, a collection. */
    v = vs("untouched");
    EERR(fief_results_aggregate(boxes, 999, FIEF_AGGREGATE_MIN, &v), FIEF_ERR_NO_SUCH_PROPERTY);
    EERRM(fief_results_aggregate(boxes, t_prop(r, "Box", "items"), FIEF_AGGREGATE_SUM, &v), FIEF_ERR_INVALID_ARGUMENT, "list");
    EQI(v.type, FIEF_TYPE_STRING);
    fief_release(boxes);
    fief_release(r);
}

TEST(nested_collections_in_results) {
    fief_realm_t *r = open_mixed();
    R(r != NULL);
    fief_class_key_t box_class = t_class(r, "Box");
    fief_value_t list_value = vtype(FIEF_TYPE_LIST), dictionary_value = vtype(FIEF_TYPE_MAP);
    R(fief_realm_begin_write(r));
    fief_object_t *box = fief_object_create(r, box_class, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(box != NULL);
    fief_list_t *items = fief_object_get_list(box, t_prop(r, "Box", "items"));
    R(items != NULL);
    const fief_value_t values[] = {dictionary_value, vi(2), list_value, vs("a")};
    E(fief_list_append(items, values, 4));
    R(fief_realm_commit(r));
    fief_results_t *all = fief_list_to_results(items);
    R(all != NULL);
    EQI(at(all, 0).type, FIEF_TYPE_MAP);
    EQI(at(all, 2).type, FIEF_TYPE_LIST);
    /* Sorted after every other type: lists, then dictionaries. */
    fief_sort_descriptor_t up = {"self", true};
    fief_results_t *sorted = fief_results_sort(all, &up, 1);
    R(sorted != NULL);
    EQV(at(sorted, 0), vi(2));
    EQV(at(sorted, 1), vs("a"));
    EQI(at(sorted, 2).type, FIEF_TYPE_LIST);
    EQI(at(sorted, 3).type, FIEF_TYPE_MAP);
    /* Never found, equal to no constant, skipped by aggregates. */
    size_t index = 0;
    bool found = true;
    E(fief_results_index_of_value(all, list_value, &index, &found) && !found);
    EQU(count_where(all, "self != 2", NULL), 3);
    EQU(count_where(all, "self == nil", NULL), 0);
    EQV(results_agg(all, FIEF_AGGREGATE_MAX), vs("a"));
    EQV(results_agg(all, FIEF_AGGREGATE_MIN), vi(2));
    EQV(results_agg(all, FIEF_AGGREGATE_SUM), vdecimal(2, 0));
    EERR(where(all, "self == $0", &list_value), FIEF_ERR_QUERY_ARGUMENT);
    fief_release(sorted);
    fief_release(all);
    fief_release(items);
    fief_release(box);
    fief_release(r);
}

static const t_case cases[] = {T(list_of_mixed_values_as_results), T(sets_and_maps_of_mixed_values_as_results),
                               T(aggregates_of_a_mixed_property), T(nested_collections_in_results)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
