/* Results of objects and results of values are one kind of fief_results_t:
 * the same calls (filter, sort, distinct, limit, count, aggregate,
 * description, freeze through fief_results_resolve_in, validity) give the
 * same answers for the ages of four objects and for a list holding the
 * same numbers; calls for one element kind refuse the other with
 * FIEF_ERR_INVALID_ARGUMENT and a message naming the call. */
#include "fief_test.h"

/* Player(age: int, scores: list<int>). */
static fief_realm_t *open_players(const char *name) {
    fief_class_info_t classes[1];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Player";
    classes[0].num_properties = 2;
    fief_property_info_t player[2] = {t_prop_info("age", FIEF_TYPE_INT, 0), t_prop_info("scores", FIEF_TYPE_INT, 0)};
    player[1].collection_type = FIEF_COLLECTION_LIST;
    const fief_property_info_t *props[1] = {player};
    fief_schema_t *s = fief_schema_new(classes, 1, props);
    R(s != NULL);
    fief_realm_t *r = t_open(t_path(name), s, 0);
    fief_release(s);
    return r;
}

static const int64_t numbers[4] = {5, 3, 9, 3};

/* Four players aged 5, 3, 9, 3; the first one's scores are 5, 3, 9, 3.
 * Returns the first player. */
static fief_object_t *fill(fief_realm_t *r) {
    fief_class_key_t cls = t_class(r, "Player");
    fief_property_key_t age = t_prop(r, "Player", "age");
    R(fief_realm_begin_write(r));
    fief_object_t *first = NULL;
    for (int i = 0; i < 4; i++) {
        fief_value_t v = vi(numbers[i]);
        fief_object_t *o = fief_object_create(r, cls, &age, &v, 1, FIEF_UPDATE_POLICY_ERROR);
        R(o != NULL);
        if (i == 0) first = o;
        else fief_release(o);
    }
    fief_list_t *scores = fief_object_get_list(first, t_prop(r, "Player", "scores"));
    R(scores != NULL);
    fief_value_t values[4] = {vi(5), vi(3), vi(9), vi(3)};
    E(fief_list_append(scores, values, 4));
    fief_release(scores);
    R(fief_realm_commit(r));
    return first;
}

/* The ints of `results`, in order: the ages of objects, or the values. */
static size_t ints(const fief_results_t *results, fief_property_key_t age, int64_t *out, size_t capacity) {
    size_t n = t_count(results);
    fief_type_t type = 0;
    E(fief_results_get_element_type(results, &type, NULL));
    for (size_t i = 0; i < n && i < capacity; i++) {
        fief_value_t v = vnull();
        if (type == FIEF_TYPE_LINK) E(fief_results_get_values(results, i, &age, 1, &v));
        else E(fief_results_get_value(results, i, &v));
        out[i] = v.u.integer;
    }
    return n;
}

static void expect_ints(const fief_results_t *results, fief_property_key_t age, const int64_t *expected, size_t n, int line) {
    int64_t got[8] = {0};
    size_t count = ints(results, age, got, 8);
    char where[32];
    snprintf(where, sizeof where, "line %d", line);
    if (count != n) t_fail(__FILE__, line, "count", where);
    for (size_t i = 0; i < n && i < count; i++) {
        if (got[i] != expected[i]) t_fail(__FILE__, line, "element", where);
    }
}

static const char *describe(const fief_results_t *results) {
    const char *text = fief_results_get_description(results);
    R(text != NULL);
    return text;
}

static void expect_description(const fief_results_t *results, const char *expected, int line) {
    const char *text = describe(results);
    if (strcmp(text, expected) != 0) t_fail(__FILE__, line, expected, text);
}

TEST(same_operations_on_objects_and_values) {
    fief_realm_t *r = open_players("kinds-same.fief");
    fief_object_t *first = fill(r);
    fief_property_key_t age = t_prop(r, "Player", "age");
    fief_results_t *objects = fief_realm_get_objects(r, t_class(r, "Player"));
    R(objects != NULL);
    fief_list_t *scores = fief_object_get_list(first, t_prop(r, "Player", "scores"));
    R(scores != NULL);
    fief_results_t *values = fief_list_to_results(scores);
    R(values != NULL);

    const char *key_paths[2] = {"age", "self"};
    const char *greater[2] = {"age > 3", "self > 3"};
    fief_results_t *kinds[2] = {objects, values};
    for (int k = 0; k < 2; k++) {
        fief_results_t *all = kinds[k];
        expect_ints(all, age, numbers, 4, __LINE__);
        EQI(fief_results_is_valid(all), 1);

        fief_results_t *filtered = fief_results_filter(all, greater[k], NULL, 0);
        R(filtered != NULL);
        expect_ints(filtered, age, (int64_t[]){5, 9}, 2, __LINE__);

        fief_sort_descriptor_t descending = {key_paths[k], false};
        fief_results_t *sorted = fief_results_sort(all, &descending, 1);
        R(sorted != NULL);
        expect_ints(sorted, age, (int64_t[]){9, 5, 3, 3}, 4, __LINE__);
        /* A later sort replaces the one before it (same key). */
        fief_sort_descriptor_t ascending = {key_paths[k], true};
        fief_results_t *resorted = fief_results_sort(sorted, &ascending, 1);
        R(resorted != NULL);
        expect_ints(resorted, age, (int64_t[]){3, 3, 5, 9}, 4, __LINE__);

        fief_results_t *distinct = fief_results_distinct(all, &key_paths[k], 1);
        R(distinct != NULL);
        expect_ints(distinct, age, (int64_t[]){5, 3, 9}, 3, __LINE__);

        /* Stages in the order given: limit then sort, sort then limit. */
        fief_results_t *first_two = fief_results_limit(all, 2);
        R(first_two != NULL);
        fief_results_t *first_two_sorted = fief_results_sort(first_two, &ascending, 1);
        R(first_two_sorted != NULL);
        expect_ints(first_two_sorted, age, (int64_t[]){3, 5}, 2, __LINE__);
        fief_results_t *two_smallest = fief_results_limit(resorted, 2);
        R(two_smallest != NULL);
        expect_ints(two_smallest, age, (int64_t[]){3, 3}, 2, __LINE__);
        EERRM(fief_results_filter(first_two, greater[k], NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID,
              "cannot filter results that have a limit");

        /* Filter, then a stage in the predicate, then distinct and limit. */
        fief_results_t *staged = fief_results_filter(all, k == 0 ? "age >= 3 SORT(age DESC)" : "self >= 3 SORT(self DESC)", NULL, 0);
        R(staged != NULL);
        fief_results_t *staged_distinct = fief_results_distinct(staged, &key_paths[k], 1);
        R(staged_distinct != NULL);
        fief_results_t *staged_limited = fief_results_limit(staged_distinct, 2);
        R(staged_limited != NULL);
        expect_ints(staged_limited, age, (int64_t[]){9, 5}, 2, __LINE__);
        expect_description(staged_limited, k == 0 ? "age >= 3 SORT(age DESC) DISTINCT(age) LIMIT(2)"
                                                  : "self >= 3 SORT(self DESC) DISTINCT(self) LIMIT(2)", __LINE__);

        fief_value_t sum = vnull(), max = vnull();
        E(fief_results_aggregate(filtered, k == 0 ? age : 0, FIEF_AGGREGATE_SUM, &sum));
        EQV(sum, vi(14));
        E(fief_results_aggregate(sorted, k == 0 ? age : 0, FIEF_AGGREGATE_MAX, &max));
        EQV(max, vi(9));

        fief_results_t *limited[] = {filtered, sorted, resorted, distinct, first_two, first_two_sorted, two_smallest,
                                     staged, staged_distinct, staged_limited};
        for (size_t i = 0; i < sizeof limited / sizeof limited[0]; i++) fief_release(limited[i]);
    }
    fief_release(values);
    fief_release(scores);
    fief_release(objects);
    fief_release(first);
    fief_release(r);
}

TEST(freeze_objects_and_values) {
    fief_realm_t *r = open_players("kinds-freeze.fief");
    fief_object_t *first = fill(r);
    fief_property_key_t age = t_prop(r, "Player", "age");
    fief_results_t *objects = fief_realm_get_objects(r, t_class(r, "Player"));
    R(objects != NULL);
    fief_list_t *scores = fief_object_get_list(first, t_prop(r, "Player", "scores"));
    R(scores != NULL);
    fief_results_t *all_values = fief_list_to_results(scores);
    R(all_values != NULL);
    fief_results_t *objects_sorted = fief_results_filter(objects, "age > 3 SORT(age ASC)", NULL, 0);
    fief_results_t *values_sorted = fief_results_filter(all_values, "self > 3 SORT(self ASC)", NULL, 0);
    R(objects_sorted != NULL && values_sorted != NULL);

    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen != NULL);
    fief_results_t *frozen_objects = fief_results_resolve_in(objects_sorted, frozen);
    fief_results_t *frozen_values = fief_results_resolve_in(values_sorted, frozen);
    R(frozen_objects != NULL && frozen_values != NULL);
    expect_description(frozen_values, "self > 3 SORT(self ASC)", __LINE__);
    fief_type_t type = 0;
    E(fief_results_get_element_type(frozen_values, &type, NULL));
    EQI(type, FIEF_TYPE_INT);

    /* A 7 more: the live results see it, the frozen ones do not. */
    R(fief_realm_begin_write(r));
    fief_value_t seven = vi(7);
    fief_object_t *o = fief_object_create(r, t_class(r, "Player"), &age, &seven, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o != NULL);
    E(fief_list_append(scores, &seven, 1));
    R(fief_realm_commit(r));
    fief_results_t *kinds_live[2] = {objects_sorted, values_sorted};
    fief_results_t *kinds_frozen[2] = {frozen_objects, frozen_values};
    for (int k = 0; k < 2; k++) {
        expect_ints(kinds_live[k], age, (int64_t[]){5, 7, 9}, 3, __LINE__);
        expect_ints(kinds_frozen[k], age, (int64_t[]){5, 9}, 2, __LINE__);
        fief_realm_t *owner = fief_results_get_realm(kinds_frozen[k]);
        R(owner != NULL);
        bool is_frozen = false;
        E(fief_realm_is_frozen(owner, &is_frozen));
        EQI(is_frozen, 1);
        fief_release(owner);
    }

    /* Deleting the list's owner invalidates the live results of values only. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(first));
    R(fief_realm_commit(r));
    size_t n = 0;
    EERR(fief_results_count(values_sorted, &n), FIEF_ERR_INVALIDATED_OBJECT);
    expect_ints(frozen_values, age, (int64_t[]){5, 9}, 2, __LINE__);

    fief_release(o);
    fief_release(frozen_values);
    fief_release(frozen_objects);
    fief_release(frozen);
    fief_release(values_sorted);
    fief_release(objects_sorted);
    fief_release(all_values);
    fief_release(scores);
    fief_release(objects);
    fief_release(first);
    fief_release(r);
}

TEST(calls_for_one_kind_refuse_the_other) {
    fief_realm_t *r = open_players("kinds-refuse.fief");
    fief_object_t *first = fill(r);
    fief_property_key_t age = t_prop(r, "Player", "age");
    fief_results_t *objects = fief_realm_get_objects(r, t_class(r, "Player"));
    R(objects != NULL);
    fief_list_t *scores = fief_object_get_list(first, t_prop(r, "Player", "scores"));
    R(scores != NULL);
    fief_results_t *values = fief_list_to_results(scores);
    R(values != NULL);
    fief_results_t *filtered_values = fief_results_filter(values, "self > 3", NULL, 0);
    R(filtered_values != NULL);

    fief_results_t *value_kinds[2] = {values, filtered_values};
    for (int k = 0; k < 2; k++) {
        fief_results_t *v = value_kinds[k];
        fief_object_key_t key = 0;
        size_t got = 0;
        fief_value_t out = vnull();
        fief_class_key_t cls = 0;
        size_t index = 0;
        bool found = false;
        EERRM(fief_results_get_object(v, 0) != NULL, FIEF_ERR_INVALID_ARGUMENT,
              "fief_results_get_object needs results of objects, but these results hold values");
        EERRM(fief_results_get_key(v, 0, &key), FIEF_ERR_INVALID_ARGUMENT, "fief_results_get_key needs results of objects");
        EERRM(fief_results_get_keys(v, 0, 1, &key, &got), FIEF_ERR_INVALID_ARGUMENT, "fief_results_get_keys needs results of objects");
        EERRM(fief_results_get_values(v, 0, &age, 1, &out), FIEF_ERR_INVALID_ARGUMENT, "fief_results_get_values needs results of objects");
        EERRM(fief_results_index_of_object(v, first, &index, &found), FIEF_ERR_INVALID_ARGUMENT,
              "fief_results_index_of_object needs results of objects");
        EERRM(fief_results_get_class_key(v, &cls), FIEF_ERR_INVALID_ARGUMENT, "see fief_results_get_element_type");
        R(fief_realm_begin_write(r));
        EERRM(fief_results_delete_all(v), FIEF_ERR_INVALID_ARGUMENT, "fief_results_delete_all needs results of objects");
        EERRM(fief_results_set_value(v, age, vi(1)), FIEF_ERR_INVALID_ARGUMENT, "fief_results_set_value needs results of objects");
        R(fief_realm_cancel(r));
        /* Values by key path other than self: refused as a query error. */
        fief_sort_descriptor_t by_age = {"age", true};
        EERRM(fief_results_sort(v, &by_age, 1) != NULL, FIEF_ERR_QUERY_INVALID, "values sort by 'self' alone");
        const char *path = "age";
        EERRM(fief_results_distinct(v, &path, 1) != NULL, FIEF_ERR_QUERY_INVALID, "values are distinct by 'self' alone");
    }
    fief_value_t out = vnull();
    size_t index = 0;
    bool found = false;
    EERRM(fief_results_get_value(objects, 0, &out), FIEF_ERR_INVALID_ARGUMENT,
          "fief_results_get_value needs results of values (made from a list, set or map of values), but these results hold objects");
    EERRM(fief_results_index_of_value(objects, vi(3), &index, &found), FIEF_ERR_INVALID_ARGUMENT,
          "fief_results_index_of_value needs results of values");
    fief_sort_descriptor_t by_self = {"self", true};
    EERR(fief_results_sort(objects, &by_self, 1) != NULL, FIEF_ERR_QUERY_INVALID);

    /* What each kind reads, it reads: index of an object, of a value. */
    E(fief_results_index_of_object(objects, first, &index, &found));
    EQI(found, 1);
    EQU(index, 0);
    E(fief_results_index_of_value(filtered_values, vi(9), &index, &found));
    EQI(found, 1);
    EQU(index, 1);
    fief_class_key_t cls = 0;
    E(fief_results_get_class_key(objects, &cls));
    EQU(cls, t_class(r, "Player"));

    fief_release(filtered_values);
    fief_release(values);
    fief_release(scores);
    fief_release(objects);
    fief_release(first);
    fief_release(r);
}

static const t_case cases[] = {T(same_operations_on_objects_and_values), T(freeze_objects_and_values),
                               T(calls_for_one_kind_refuse_the_other)};
int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
