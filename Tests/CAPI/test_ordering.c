/* Sort, distinct and limit through the C API: key paths through to-one
 * links and embedded objects, stages applied left to right, distinct by
 * Realm's equality, filters before the stages, live results that follow
 * the linked objects, results of values, and every bad input refused with
 * an error code and a message. */
#include "fief_test.h"

#include <stdint.h>

/* Person(name?, age, address -> Address (embedded), tags: list<int>);
 * Address(city?) embedded; Dog(name, age, owner -> Person?, any: mixed);
 * Bag(ints: list<int?>). */
static fief_realm_t *open_ordering(void) {
    fief_property_info_t person[4] = {t_prop_info("name", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE),
                                      t_prop_info("age", FIEF_TYPE_INT, 0),
                                      t_prop_info("address", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
                                      t_prop_info("tags", FIEF_TYPE_INT, 0)};
    person[2].link_target = "Address";
    person[3].collection_type = FIEF_COLLECTION_LIST;
    fief_property_info_t address[1] = {t_prop_info("city", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE)};
    fief_property_info_t dog[4] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("age", FIEF_TYPE_INT, 0),
                                   t_prop_info("owner", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("any", FIEF_TYPE_MIXED, 0)};
    dog[2].link_target = "Person";
    fief_property_info_t bag[1] = {t_prop_info("ints", FIEF_TYPE_INT, FIEF_PROPERTY_NULLABLE)};
    bag[0].collection_type = FIEF_COLLECTION_LIST;
    fief_class_info_t classes[4];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Person";
    classes[0].num_properties = 4;
    classes[1].name = "Address";
    classes[1].num_properties = 1;
    classes[1].flags = FIEF_CLASS_EMBEDDED;
    classes[2].name = "Dog";
    classes[2].num_properties = 4;
    classes[3].name = "Bag";
    classes[3].num_properties = 1;
    const fief_property_info_t *props[4] = {person, address, dog, bag};
    fief_schema_t *s = fief_schema_new(classes, 4, props);
    if (!s) return NULL;
    fief_realm_t *r = t_open(t_path("ordering.fief"), s, 0);
    fief_release(s);
    return r;
}

/* A person named `name` (NULL: null) living in `city` (NULL: no address). */
static fief_object_key_t add_person(fief_realm_t *r, const char *name, int64_t age, const char *city) {
    fief_property_key_t props[2] = {t_prop(r, "Person", "name"), t_prop(r, "Person", "age")};
    fief_value_t values[2] = {name ? vs(name) : vnull(), vi(age)};
    fief_object_t *p = fief_object_create(r, t_class(r, "Person"), props, values, 2, FIEF_UPDATE_POLICY_ERROR);
    fief_object_key_t key = -1;
    E(p != NULL && fief_object_get_key(p, &key));
    if (p && city) {
        fief_object_t *address = fief_object_create_embedded(p, t_prop(r, "Person", "address"));
        E(address != NULL);
        E(fief_object_set_value(address, t_prop(r, "Address", "city"), vs(city)));
        fief_release(address);
    }
    fief_release(p);
    return key;
}

static fief_object_key_t add_dog(fief_realm_t *r, const char *name, int64_t age, fief_object_key_t owner, fief_value_t any) {
    fief_property_key_t props[4] = {t_prop(r, "Dog", "name"), t_prop(r, "Dog", "age"), t_prop(r, "Dog", "owner"),
                                    t_prop(r, "Dog", "any")};
    fief_value_t values[4] = {vs(name), vi(age), owner >= 0 ? vlink(t_class(r, "Person"), owner) : vnull(), any};
    fief_object_t *d = fief_object_create(r, t_class(r, "Dog"), props, values, 4, FIEF_UPDATE_POLICY_ERROR);
    fief_object_key_t key = -1;
    E(d != NULL && fief_object_get_key(d, &key));
    fief_release(d);
    return key;
}

/* The keys of `results` must be `expected`. */
static void expect_keys(const fief_results_t *results, const fief_object_key_t *expected, size_t n, int line) {
    size_t count = t_count(results);
    if (count != n) {
        char detail[64];
        snprintf(detail, sizeof detail, "count %zu, expected %zu", count, n);
        t_fail(__FILE__, line, "results count", detail);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        fief_object_key_t key = -1;
        if (!fief_results_get_key(results, i, &key) || key != expected[i]) {
            char detail[96];
            snprintf(detail, sizeof detail, "key %zu: %lld, expected %lld", i, (long long)key, (long long)expected[i]);
            t_fail(__FILE__, line, "results key", detail);
        }
    }
}
#define EXPECT_KEYS(results, ...)                                                                \
    do {                                                                                         \
        const fief_object_key_t expected_[] = {__VA_ARGS__};                                     \
        expect_keys((results), expected_, sizeof expected_ / sizeof expected_[0], __LINE__);     \
    } while (0)

static fief_results_t *sorted_by(const fief_results_t *results, const char *key_path, bool ascending) {
    fief_sort_descriptor_t key = {key_path, ascending};
    return fief_results_sort(results, &key, 1);
}

static fief_results_t *distinct_by(const fief_results_t *results, const char *key_path) {
    const char *paths[1] = {key_path};
    return fief_results_distinct(results, paths, 1);
}

TEST(sort_by_key_paths) {
    fief_realm_t *r = open_ordering();
    R(r != NULL);
    R(fief_realm_begin_write(r));
    fief_object_key_t ann = add_person(r, "Ann", 40, "Oslo"), nameless = add_person(r, NULL, 30, "Bergen");
    fief_object_key_t zed = add_person(r, "Zed", 20, NULL), emile = add_person(r, "\xc3\x89mile", 10, "Aden");
    fief_object_key_t d[6] = {add_dog(r, "d0", 1, zed, vnull()), add_dog(r, "d1", 2, -1, vnull()),
                              add_dog(r, "d2", 3, ann, vnull()), add_dog(r, "d3", 4, nameless, vnull()),
                              add_dog(r, "d4", 5, emile, vnull()), add_dog(r, "d5", 6, ann, vnull())};
    R(fief_realm_commit(r));
    fief_results_t *dogs = fief_realm_get_objects(r, t_class(r, "Dog"));
    R(dogs != NULL);

    /* A null name is a value (first ascending); a dog without an owner comes
     * after every value ascending, before every value descending (Realm). */
    fief_results_t *up = sorted_by(dogs, "owner.name", true);
    R(up != NULL);
    EXPECT_KEYS(up, d[3], d[2], d[5], d[0], d[4], d[1]);
    fief_results_t *down = sorted_by(dogs, "owner.name", false);
    R(down != NULL);
    EXPECT_KEYS(down, d[1], d[4], d[0], d[2], d[5], d[3]);
    /* Through an embedded object: Zed has no address, d1 no owner. */
    fief_results_t *by_city = sorted_by(dogs, "owner.address.city", true);
    R(by_city != NULL);
    EXPECT_KEYS(by_city, d[4], d[3], d[2], d[5], d[0], d[1]);
    /* Several keys, the first most significant. */
    fief_sort_descriptor_t two[2] = {{"owner.age", false}, {"age", false}};
    fief_results_t *by_two = fief_results_sort(dogs, two, 2);
    R(by_two != NULL);
    EXPECT_KEYS(by_two, d[1], d[5], d[2], d[3], d[0], d[4]);
    /* Sorting sorted results merges the sorts, the new keys first. */
    fief_results_t *resorted = sorted_by(by_city, "owner.age", true);
    R(resorted != NULL);
    EXPECT_KEYS(resorted, d[4], d[0], d[3], d[2], d[5], d[1]);
    /* No keys: the same objects, in the same order, as a new handle. */
    fief_results_t *same = fief_results_sort(by_city, NULL, 0);
    R(same != NULL && same != by_city);
    EXPECT_KEYS(same, d[4], d[3], d[2], d[5], d[0], d[1]);

    fief_release(same);
    fief_release(resorted);
    fief_release(by_two);
    fief_release(by_city);
    fief_release(down);
    fief_release(up);
    fief_release(dogs);
    E(fief_release(r));
}

TEST(stages_apply_left_to_right) {
    fief_realm_t *r = open_ordering();
    R(r != NULL);
    R(fief_realm_begin_write(r));
    fief_object_key_t d[5] = {add_dog(r, "e", 3, -1, vnull()), add_dog(r, "b", 1, -1, vnull()), add_dog(r, "d", 3, -1, vnull()),
                              add_dog(r, "a", 2, -1, vnull()), add_dog(r, "c", 1, -1, vnull())};
    R(fief_realm_commit(r));
    fief_results_t *dogs = fief_realm_get_objects(r, t_class(r, "Dog"));
    R(dogs != NULL);

    /* LIMIT(2) SORT(name): the first two, sorted.  SORT(name) LIMIT(2): the two first by name. */
    fief_results_t *two = fief_results_limit(dogs, 2);
    R(two != NULL);
    EXPECT_KEYS(two, d[0], d[1]);
    fief_results_t *two_sorted = sorted_by(two, "name", true);
    R(two_sorted != NULL);
    EXPECT_KEYS(two_sorted, d[1], d[0]);
    fief_results_t *by_name = sorted_by(dogs, "name", true);
    R(by_name != NULL);
    fief_results_t *first_two = fief_results_limit(by_name, 2);
    R(first_two != NULL);
    EXPECT_KEYS(first_two, d[3], d[1]);
    size_t n = 0;
    E(fief_results_count(first_two, &n));
    EQU(n, 2);
    /* A limit of 0 empties; SIZE_MAX is no limit. */
    fief_results_t *none = fief_results_limit(dogs, 0);
    R(none != NULL);
    EQU(t_count(none), 0);
    fief_results_t *all = fief_results_limit(by_name, SIZE_MAX);
    R(all != NULL);
    EXPECT_KEYS(all, d[3], d[1], d[4], d[2], d[0]);
    /* Distinct keeps the first object per value, in the current order. */
    fief_results_t *ages = distinct_by(dogs, "age");
    R(ages != NULL);
    EXPECT_KEYS(ages, d[0], d[1], d[3]);
    fief_results_t *ages_by_name = distinct_by(by_name, "age");
    R(ages_by_name != NULL);
    EXPECT_KEYS(ages_by_name, d[3], d[1], d[2]);
    const char *tuple[2] = {"age", "name"};
    fief_results_t *pairs = fief_results_distinct(dogs, tuple, 2);
    R(pairs != NULL);
    EQU(t_count(pairs), 5);
    fief_results_t *unchanged = fief_results_distinct(dogs, NULL, 0);
    R(unchanged != NULL);
    EQU(t_count(unchanged), 5);
    /* Aggregates, index_of and delete_all see what the stages leave. */
    fief_value_t sum;
    E(fief_results_aggregate(ages, t_prop(r, "Dog", "age"), FIEF_AGGREGATE_SUM, &sum));
    EQV(sum, vi(6));
    fief_object_t *a = fief_object_get(r, t_class(r, "Dog"), d[3]);
    fief_object_t *e = fief_object_get(r, t_class(r, "Dog"), d[0]);
    R(a != NULL && e != NULL);
    size_t index = 99;
    bool found = false;
    E(fief_results_index_of_object(first_two, a, &index, &found));
    E(found);
    EQU(index, 0);
    E(fief_results_index_of_object(first_two, e, &index, &found));
    E(!found);
    R(fief_realm_begin_write(r));
    E(fief_results_delete_all(first_two));
    R(fief_realm_commit(r));
    EXPECT_KEYS(dogs, d[0], d[2], d[4]);
    EXPECT_KEYS(first_two, d[4], d[2]);

    fief_release(a);
    fief_release(e);
    fief_release(unchanged);
    fief_release(pairs);
    fief_release(ages_by_name);
    fief_release(ages);
    fief_release(all);
    fief_release(none);
    fief_release(first_two);
    fief_release(by_name);
    fief_release(two_sorted);
    fief_release(two);
    fief_release(dogs);
    E(fief_release(r));
}

TEST(distinct_by_realm_equality) {
    fief_realm_t *r = open_ordering();
    R(r != NULL);
    R(fief_realm_begin_write(r));
    fief_object_key_t ann = add_person(r, "Ann", 1, NULL), ann2 = add_person(r, "Ann", 2, NULL), nameless = add_person(r, NULL, 3, NULL);
    /* Mixed values: int 1, double 1.0 and float 1 are one value; "1", true, "a" and "A" are others. */
    fief_object_key_t d[9] = {add_dog(r, "a", 0, ann, vi(1)),        add_dog(r, "b", 0, -1, vd(1.0)),
                              add_dog(r, "c", 0, ann2, vs("1")),     add_dog(r, "d", 0, nameless, vb(true)),
                              add_dog(r, "e", 0, nameless, vf(1.0f)), add_dog(r, "f", 0, -1, vnull()),
                              add_dog(r, "g", 0, ann, vs("a")),      add_dog(r, "h", 0, ann, vs("A")),
                              add_dog(r, "i", 0, ann, vnull())};
    R(fief_realm_commit(r));
    fief_results_t *dogs = fief_realm_get_objects(r, t_class(r, "Dog"));
    R(dogs != NULL);
    fief_results_t *by_any = distinct_by(dogs, "any");
    R(by_any != NULL);
    EXPECT_KEYS(by_any, d[0], d[2], d[3], d[5], d[6], d[7]);
    /* Through a link: dogs without an owner are left out; a null name is one value. */
    fief_results_t *by_owner_name = distinct_by(dogs, "owner.name");
    R(by_owner_name != NULL);
    EXPECT_KEYS(by_owner_name, d[0], d[3]);
    /* Filters apply before the stages: among the dogs named after 'b', the first per owner name. */
    fief_results_t *filtered = fief_results_filter(by_owner_name, "name > 'b'", NULL, 0);
    R(filtered != NULL);
    EXPECT_KEYS(filtered, d[2], d[3]);
    fief_release(filtered);
    fief_release(by_owner_name);
    fief_release(by_any);
    fief_release(dogs);
    E(fief_release(r));
}

TEST(filters_and_limits) {
    fief_realm_t *r = open_ordering();
    R(r != NULL);
    R(fief_realm_begin_write(r));
    fief_object_key_t d[4] = {add_dog(r, "x", 1, -1, vnull()), add_dog(r, "x", 5, -1, vnull()), add_dog(r, "y", 7, -1, vnull()),
                              add_dog(r, "a", 9, -1, vnull())};
    R(fief_realm_commit(r));
    fief_results_t *dogs = fief_realm_get_objects(r, t_class(r, "Dog"));
    R(dogs != NULL);
    /* Filtering sorted results keeps the sort. */
    fief_results_t *by_name = sorted_by(dogs, "name", true);
    R(by_name != NULL);
    fief_results_t *old = fief_results_filter(by_name, "age > 3", NULL, 0);
    R(old != NULL);
    EXPECT_KEYS(old, d[3], d[1], d[2]);
    /* Results with a limit cannot be filtered, as in Realm: filter first. */
    fief_results_t *limited = fief_results_limit(by_name, 2);
    R(limited != NULL);
    EERRM(fief_results_filter(limited, "age > 3", NULL, 0), FIEF_ERR_QUERY_INVALID, "cannot filter results that have a limit");
    fief_results_t *old_two = fief_results_limit(old, 2);
    R(old_two != NULL);
    EXPECT_KEYS(old_two, d[3], d[1]);
    fief_release(old_two);
    fief_release(limited);
    fief_release(old);
    fief_release(by_name);
    fief_release(dogs);
    E(fief_release(r));
}

TEST(key_path_results_are_live) {
    fief_realm_t *r = open_ordering();
    R(r != NULL);
    R(fief_realm_begin_write(r));
    fief_object_key_t ann = add_person(r, "Ann", 1, NULL), bob = add_person(r, "Bob", 2, NULL);
    fief_object_key_t d[3] = {add_dog(r, "a", 0, ann, vnull()), add_dog(r, "b", 0, bob, vnull()), add_dog(r, "c", 0, -1, vnull())};
    R(fief_realm_commit(r));
    fief_results_t *dogs = fief_realm_get_objects(r, t_class(r, "Dog"));
    R(dogs != NULL);
    fief_results_t *by_owner = sorted_by(dogs, "owner.name", true);
    R(by_owner != NULL);
    fief_results_t *owners = distinct_by(dogs, "owner.name");
    R(owners != NULL);
    EXPECT_KEYS(by_owner, d[0], d[1], d[2]);
    EQU(t_count(owners), 2);

    /* Renaming Ann reorders, in the write and after it. */
    R(fief_realm_begin_write(r));
    EXPECT_KEYS(by_owner, d[0], d[1], d[2]);
    fief_object_t *a = fief_object_get(r, t_class(r, "Person"), ann);
    R(a != NULL);
    E(fief_object_set_value(a, t_prop(r, "Person", "name"), vs("Zoe")));
    EXPECT_KEYS(by_owner, d[1], d[0], d[2]);
    R(fief_realm_commit(r));
    EXPECT_KEYS(by_owner, d[1], d[0], d[2]);
    /* Equal names make one distinct value. */
    R(fief_realm_begin_write(r));
    E(fief_object_set_value(a, t_prop(r, "Person", "name"), vs("Bob")));
    R(fief_realm_commit(r));
    EQU(t_count(owners), 1);
    /* Deleting an owner moves its dog among the dogs without one. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(a));
    R(fief_realm_commit(r));
    EXPECT_KEYS(by_owner, d[1], d[0], d[2]);
    EXPECT_KEYS(owners, d[1]);
    fief_release(a);
    fief_release(owners);
    fief_release(by_owner);
    fief_release(dogs);
    E(fief_release(r));
}

TEST(results_of_values) {
    fief_realm_t *r = open_ordering();
    R(r != NULL);
    R(fief_realm_begin_write(r));
    fief_object_t *bag = fief_object_create(r, t_class(r, "Bag"), NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(bag != NULL);
    fief_list_t *ints = fief_object_get_list(bag, t_prop(r, "Bag", "ints"));
    R(ints != NULL);
    fief_value_t values[7] = {vi(3), vnull(), vi(1), vi(3), vnull(), vi(2), vi(1)};
    E(fief_list_append(ints, values, 7));
    R(fief_realm_commit(r));
    fief_results_t *all = fief_list_to_results(ints);
    R(all != NULL);
    fief_results_t *distinct = distinct_by(all, "self");
    R(distinct != NULL);
    size_t n = 0;
    E(fief_results_count(distinct, &n));
    EQU(n, 4);
    fief_value_t v;
    E(fief_results_get_value(distinct, 1, &v));
    EQV(v, vnull());
    E(fief_results_get_value(distinct, 3, &v));
    EQV(v, vi(2));
    fief_results_t *descending = sorted_by(distinct, "self", false);
    R(descending != NULL);
    fief_results_t *top = fief_results_limit(descending, 2);
    R(top != NULL);
    EQU(t_count(top), 2);
    E(fief_results_get_value(top, 0, &v));
    EQV(v, vi(3));
    E(fief_results_get_value(top, 1, &v));
    EQV(v, vi(2));
    E(fief_results_aggregate(top, 0, FIEF_AGGREGATE_SUM, &v));
    EQV(v, vi(5));
    EERRM(distinct_by(all, "value"), FIEF_ERR_QUERY_INVALID, "values are distinct by 'self' alone");
    EERRM(fief_results_filter(top, "self > 1", NULL, 0), FIEF_ERR_QUERY_INVALID, "limit");
    fief_release(top);
    fief_release(descending);
    fief_release(distinct);
    fief_release(all);
    fief_release(ints);
    fief_release(bag);
    E(fief_release(r));
}

TEST(bad_input) {
    fief_realm_t *r = open_ordering();
    R(r != NULL);
    fief_results_t *dogs = fief_realm_get_objects(r, t_class(r, "Dog"));
    R(dogs != NULL);
    EERRM(sorted_by(dogs, "nope", true), FIEF_ERR_QUERY_INVALID, "cannot sort by 'nope': class 'Dog' has no property 'nope'");
    EERRM(sorted_by(dogs, "owner.nope", true), FIEF_ERR_QUERY_INVALID, "class 'Person' has no property 'nope'");
    EERRM(sorted_by(dogs, "owner", true), FIEF_ERR_QUERY_INVALID, "'Dog.owner' is a link");
    EERRM(sorted_by(dogs, "owner.tags", true), FIEF_ERR_QUERY_INVALID, "'Person.tags' is a list");
    EERRM(sorted_by(dogs, "age.x", true), FIEF_ERR_QUERY_INVALID, "'Dog.age' is an int, not a link");
    EERRM(sorted_by(dogs, "owner..name", true), FIEF_ERR_QUERY_INVALID, "one name is missing");
    EERRM(sorted_by(dogs, "", true), FIEF_ERR_QUERY_INVALID, "the key path is empty");
    EERRM(sorted_by(dogs, "\xff", true), FIEF_ERR_INVALID_UTF8, "keys[0].key_path");
    EERRM(sorted_by(dogs, NULL, true), FIEF_ERR_INVALID_ARGUMENT, "keys[0].key_path is NULL");
    EERRM(distinct_by(dogs, "owner.address"), FIEF_ERR_QUERY_INVALID, "cannot distinct by 'owner.address': 'Person.address' is a link");
    EERRM(distinct_by(dogs, NULL), FIEF_ERR_INVALID_ARGUMENT, "key_paths[0] is NULL");
    EERRM(fief_results_distinct(dogs, NULL, 1), FIEF_ERR_INVALID_ARGUMENT, "key_paths is NULL but num_key_paths is 1");
    const char *good_then_bad[2] = {"name", "nope"};
    EERRM(fief_results_distinct(dogs, good_then_bad, 2), FIEF_ERR_QUERY_INVALID, "'nope'");
    /* Handles: NULL, released, of another kind. */
    EERR(fief_results_distinct(NULL, good_then_bad, 1), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_results_limit(NULL, 1), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_results_limit((const fief_results_t *)r, 1), FIEF_ERR_WRONG_HANDLE_TYPE);
    fief_results_t *released = fief_results_limit(dogs, 1);
    R(released != NULL);
    E(fief_release(released));
    EERR(fief_results_limit(released, 1), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_results_distinct(released, good_then_bad, 1), FIEF_ERR_INVALID_HANDLE);
    /* A closed realm. */
    fief_realm_t *other = t_open(t_path("ordering.fief"), NULL, 0);
    R(other != NULL);
    fief_results_t *other_dogs = fief_realm_get_objects(other, t_class(other, "Dog"));
    R(other_dogs != NULL);
    E(fief_realm_close(other));
    EERR(fief_results_limit(other_dogs, 1), FIEF_ERR_CLOSED);
    EERR(distinct_by(other_dogs, "name"), FIEF_ERR_CLOSED);
    fief_release(other_dogs);
    fief_release(other);
    fief_release(dogs);
    E(fief_release(r));
}

/* SORT, DISTINCT and LIMIT written after a predicate are the same stages. */
TEST(query_suffixes) {
    fief_realm_t *r = open_ordering();
    R(r != NULL);
    R(fief_realm_begin_write(r));
    fief_object_key_t d[5] = {add_dog(r, "e", 3, -1, vnull()), add_dog(r, "b", 1, -1, vnull()), add_dog(r, "d", 3, -1, vnull()),
                              add_dog(r, "a", 2, -1, vnull()), add_dog(r, "c", 1, -1, vnull())};
    R(fief_realm_commit(r));
    fief_results_t *dogs = fief_realm_get_objects(r, t_class(r, "Dog"));
    R(dogs != NULL);
    fief_results_t *top = fief_results_filter(dogs, "age > 1 SORT(name DESC) LIMIT(2)", NULL, 0);
    R(top != NULL);
    EXPECT_KEYS(top, d[0], d[2]);
    fief_results_t *first_sorted = fief_results_filter(dogs, "TRUEPREDICATE LIMIT(2) SORT(name ASC)", NULL, 0);
    R(first_sorted != NULL);
    EXPECT_KEYS(first_sorted, d[1], d[0]);
    fief_results_t *ages = fief_results_filter(dogs, "TRUEPREDICATE SORT(name ASC) DISTINCT(age)", NULL, 0);
    R(ages != NULL);
    EXPECT_KEYS(ages, d[3], d[1], d[2]);
    EERR(fief_results_filter(dogs, "TRUEPREDICATE SORT(name)", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    EERR(fief_results_filter(dogs, "TRUEPREDICATE SORT(nope ASC)", NULL, 0), FIEF_ERR_QUERY_INVALID);
    EERR(fief_results_filter(top, "age > 0", NULL, 0), FIEF_ERR_QUERY_INVALID);
    fief_release(top);
    fief_release(first_sorted);
    fief_release(ages);
    fief_release(dogs);
    E(fief_release(r));
}

static const t_case cases[] = {T(sort_by_key_paths), T(stages_apply_left_to_right), T(distinct_by_realm_equality),
                               T(filters_and_limits), T(key_path_results_are_live), T(results_of_values), T(bad_input),
                               T(query_suffixes)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
