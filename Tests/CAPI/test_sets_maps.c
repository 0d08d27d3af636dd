/* Sets and maps through the C API: schema definition and introspection;
 * every operation on sets of ints, optional strings and links and on maps
 * of ints, links and embedded objects; set algebra; backlinks; deleted
 * targets; frozen and released handles; and every bad input refused with
 * an error code and message, changing nothing. */
#include "fief_test.h"

/* Dog(name); Address(city) embedded;
 * Person(name, ints: set<int>, tags: set<string?>, dogs: set<Dog>, more: set<Dog>,
 *        scores: map<int>, pets: map<Dog?>, addresses: map<Address?>). */
static fief_schema_t *collection_schema(void) {
    fief_class_info_t classes[3];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 1;
    classes[1].name = "Address";
    classes[1].num_properties = 1;
    classes[1].flags = FIEF_CLASS_EMBEDDED;
    classes[2].name = "Person";
    classes[2].num_properties = 8;
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t address[1] = {t_prop_info("city", FIEF_TYPE_STRING, 0)};
    fief_property_info_t person[8] = {
        t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("ints", FIEF_TYPE_INT, 0),
        t_prop_info("tags", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE), t_prop_info("dogs", FIEF_TYPE_LINK, 0),
        t_prop_info("more", FIEF_TYPE_LINK, 0), t_prop_info("scores", FIEF_TYPE_INT, 0),
        t_prop_info("pets", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE), t_prop_info("addresses", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE)};
    for (int i = 1; i <= 4; i++) person[i].collection_type = FIEF_COLLECTION_SET;
    for (int i = 5; i <= 7; i++) person[i].collection_type = FIEF_COLLECTION_MAP;
    person[3].link_target = "Dog";
    person[4].link_target = "Dog";
    person[6].link_target = "Dog";
    person[7].link_target = "Address";
    const fief_property_info_t *props[3] = {dog, address, person};
    return fief_schema_new(classes, 3, props);
}

static size_t set_count(const fief_set_t *set) {
    size_t n = (size_t)-1;
    E(fief_set_count(set, &n));
    return n;
}

static size_t map_count(const fief_map_t *map) {
    size_t n = (size_t)-1;
    E(fief_map_count(map, &n));
    return n;
}

static bool set_has(const fief_set_t *set, fief_value_t v) {
    bool has = false;
    E(fief_set_contains(set, v, &has));
    return has;
}

TEST(collection_schema) {
    fief_schema_t *s = collection_schema();
    R(s != NULL);
    fief_property_info_t p;
    bool found = false;
    E(fief_schema_find_property(s, 2, "dogs", &p, &found) && found);
    EQI(p.collection_type, FIEF_COLLECTION_SET);
    E(p.link_target != NULL && strcmp(p.link_target, "Dog") == 0);
    E(fief_schema_find_property(s, 2, "pets", &p, &found) && found);
    EQI(p.collection_type, FIEF_COLLECTION_MAP);
    EQU(p.flags, FIEF_PROPERTY_NULLABLE);
    E(fief_release(s));

    fief_class_info_t cls = {"A", NULL, 1, 0, 0};
    fief_property_info_t bad = t_prop_info("c", FIEF_TYPE_LINK, 0);
    const fief_property_info_t *one[1] = {&bad};
    bad.link_target = "A";
    bad.collection_type = FIEF_COLLECTION_MAP;
    EERRM(fief_schema_new(&cls, 1, one) != NULL, FIEF_ERR_INVALID_SCHEMA, "must have optional values");
    bad.collection_type = FIEF_COLLECTION_SET;
    bad.flags = FIEF_PROPERTY_NULLABLE;
    EERRM(fief_schema_new(&cls, 1, one) != NULL, FIEF_ERR_INVALID_SCHEMA, "cannot hold null");
    bad.type = FIEF_TYPE_INT;
    bad.link_target = NULL;
    bad.flags = FIEF_PROPERTY_PRIMARY_KEY;
    EERRM(fief_schema_new(&cls, 1, one) != NULL, FIEF_ERR_INVALID_SCHEMA, "cannot be a primary key");
}

TEST(set_operations) {
    fief_schema_t *s = collection_schema();
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("sets.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t person_class = t_class(r, "Person");
    fief_property_key_t name = t_prop(r, "Person", "name");

    R(fief_realm_begin_write(r));
    fief_value_t ann_name = vs("Ann"), bob_name = vs("Bob");
    fief_object_t *ann = fief_object_create(r, person_class, &name, &ann_name, 1, FIEF_UPDATE_POLICY_ERROR);
    fief_object_t *bob = fief_object_create(r, person_class, &name, &bob_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(ann != NULL && bob != NULL);
    fief_set_t *a = fief_object_get_set(ann, t_prop(r, "Person", "ints"));
    fief_set_t *b = fief_object_get_set(bob, t_prop(r, "Person", "ints"));
    R(a != NULL && b != NULL);
    bool inserted = false;
    int64_t avals[] = {30, -5, 10, 20};
    for (int i = 0; i < 4; i++) {
        E(fief_set_insert(a, vi(avals[i]), &inserted));
        E(inserted);
    }
    E(fief_set_insert(a, vi(10), &inserted));
    E(!inserted);
    E(fief_set_insert(a, vi(10), NULL));
    E(fief_set_insert(b, vi(20), NULL));
    E(fief_set_insert(b, vi(40), NULL));
    bool removed = false;
    E(fief_set_remove(a, vi(-5), &removed));
    E(removed);
    E(fief_set_remove(a, vi(-5), &removed));
    E(!removed);
    E(fief_set_remove(a, vs("x"), &removed)); /* another type: not there */
    E(!removed);
    R(fief_realm_commit(r));

    /* In order, by index and by range. */
    EQU(set_count(a), 3);
    fief_value_t got[3];
    E(fief_set_get_range(a, 0, 3, got));
    EQI(got[0].u.integer, 10);
    EQI(got[1].u.integer, 20);
    EQI(got[2].u.integer, 30);
    fief_value_t one = vnull();
    E(fief_set_get(a, 2, &one));
    EQI(one.u.integer, 30);
    size_t index = 99;
    bool found = false;
    E(fief_set_index_of(a, vi(20), &index, &found) && found);
    EQU(index, 1);
    E(fief_set_index_of(a, vi(21), &index, &found) && !found);
    E(set_has(a, vi(30)) && !set_has(a, vi(31)) && !set_has(a, vs("30")));
    E(!set_has(a, vd(30.0))); /* a double is not written to an int set, so it is not found in one */

    /* Algebra. */
    bool answer = false;
    E(fief_set_intersects(a, b, &answer) && answer);
    E(fief_set_is_subset_of(a, b, &answer) && !answer);
    E(fief_set_is_superset_of(a, a, &answer) && answer);
    R(fief_realm_begin_write(r));
    E(fief_set_form_union(a, b));          /* 10 20 30 40 */
    EQU(set_count(a), 4);
    E(fief_set_subtract(a, b));            /* 10 30 */
    EQU(set_count(a), 2);
    E(fief_set_form_union(a, b));
    E(fief_set_form_intersection(a, b));   /* 20 40 */
    E(fief_set_is_subset_of(b, a, &answer) && answer);
    fief_set_t *tags = fief_object_get_set(ann, t_prop(r, "Person", "tags"));
    R(tags != NULL);
    EERRM(fief_set_form_union(a, tags), FIEF_ERR_TYPE_MISMATCH, "hold different types");
    EERR(fief_set_form_union(a, NULL), FIEF_ERR_INVALID_HANDLE);
    E(fief_set_insert(tags, vnull(), NULL));
    E(fief_set_insert(tags, vs("b"), NULL));
    E(fief_set_insert(tags, vs("a"), NULL));
    /* Bad input changes nothing. */
    EERR(fief_set_insert(a, vs("x"), NULL), FIEF_ERR_TYPE_MISMATCH);
    EERR(fief_set_insert(a, vnull(), NULL), FIEF_ERR_NULL_NOT_ALLOWED);
    EERR(fief_set_insert(tags, vsn("\xff", 1), NULL), FIEF_ERR_INVALID_UTF8);
    EERR(fief_set_insert(tags, vsn(NULL, 3), NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_set_get(a, 2, &one), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_set_get_range(a, 1, 2, got), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_set_get_range(a, 0, 1, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_set_count(a, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERRM(fief_object_get_set(ann, name) != NULL, FIEF_ERR_INVALID_ARGUMENT, "is not a set");
    EERRM(fief_object_get_list(ann, t_prop(r, "Person", "ints")) != NULL, FIEF_ERR_INVALID_ARGUMENT, "is not a list");
    EERRM(fief_object_get_value(ann, t_prop(r, "Person", "ints"), &one), FIEF_ERR_TYPE_MISMATCH, "is a set");
    EERR(fief_set_count((fief_set_t *)ann, &index), FIEF_ERR_WRONG_HANDLE_TYPE);
    R(fief_realm_commit(r));
    EQU(set_count(a), 2);
    EQU(set_count(tags), 3);
    E(fief_set_get(tags, 0, &one));
    EQI(one.type, FIEF_TYPE_NULL);
    E(fief_set_get(tags, 1, &one));
    EQSTR(one.u.string, "a");
    EERR(fief_set_insert(a, vi(1), NULL), FIEF_ERR_NOT_IN_TRANSACTION);
    EERR(fief_set_clear(a), FIEF_ERR_NOT_IN_TRANSACTION);

    /* Frozen: readable, not writable. */
    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen != NULL);
    fief_set_t *frozen_a = NULL;
    E(fief_set_resolve_in(a, frozen, &frozen_a) && frozen_a != NULL);
    EQU(set_count(frozen_a), 2);
    R(fief_realm_begin_write(r));
    E(fief_set_clear(a));
    EERR(fief_set_insert(frozen_a, vi(1), NULL), FIEF_ERR_FROZEN);
    EERRM(fief_set_intersects(a, frozen_a, &answer), FIEF_ERR_INVALID_ARGUMENT, "another realm");
    R(fief_realm_commit(r));
    EQU(set_count(frozen_a), 2);
    EQU(set_count(a), 0);
    fief_release(frozen_a);
    fief_release(frozen);

    /* Deleted owner, released handle. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(ann));
    R(fief_realm_commit(r));
    E(!fief_set_is_valid(a));
    EERR(fief_set_count(a, &index), FIEF_ERR_INVALIDATED_OBJECT);
    fief_release(a);
    EERR(fief_set_count(a, &index), FIEF_ERR_INVALID_HANDLE);
    E(!fief_set_is_valid(a));
    fief_release(b);
    fief_release(tags);
    fief_release(ann);
    fief_release(bob);
    fief_release(r);
}

TEST(set_links) {
    fief_schema_t *s = collection_schema();
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("setlinks.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t person_class = t_class(r, "Person"), dog_class = t_class(r, "Dog");
    fief_property_key_t name = t_prop(r, "Person", "name"), dog_name = t_prop(r, "Dog", "name");
    fief_property_key_t dogs_key = t_prop(r, "Person", "dogs");

    R(fief_realm_begin_write(r));
    fief_value_t ann_name = vs("Ann");
    fief_object_t *ann = fief_object_create(r, person_class, &name, &ann_name, 1, FIEF_UPDATE_POLICY_ERROR);
    fief_object_key_t dogs[3];
    const char *names[3] = {"Rex", "Fido", "Max"};
    for (int i = 0; i < 3; i++) {
        fief_value_t n = vs(names[i]);
        fief_object_t *d = fief_object_create(r, dog_class, &dog_name, &n, 1, FIEF_UPDATE_POLICY_ERROR);
        R(d != NULL);
        E(fief_object_get_key(d, &dogs[i]));
        fief_release(d);
    }
    fief_set_t *set = fief_object_get_set(ann, dogs_key);
    R(set != NULL);
    for (int i = 0; i < 3; i++) E(fief_set_insert(set, vlink(dog_class, dogs[i]), NULL));
    EERRM(fief_set_insert(set, vlink(person_class, 0), NULL), FIEF_ERR_TYPE_MISMATCH, "links to 'Dog'");
    EERR(fief_set_insert(set, vlink(dog_class, 999), NULL), FIEF_ERR_NO_SUCH_OBJECT);
    EERR(fief_set_insert(set, vnull(), NULL), FIEF_ERR_NULL_NOT_ALLOWED);
    R(fief_realm_commit(r));
    EQU(set_count(set), 3);

    /* The owner through the set's backlinks. */
    fief_object_t *rex = fief_object_get(r, dog_class, dogs[0]);
    R(rex != NULL);
    fief_results_t *owners = fief_object_get_backlinks(rex, person_class, dogs_key);
    R(owners != NULL);
    EQU(t_count(owners), 1);
    fief_release(owners);

    /* The set as live results, filtered. */
    fief_results_t *as_results = fief_set_to_results(set);
    R(as_results != NULL);
    EQU(t_count(as_results), 3);
    fief_results_t *rexes = fief_results_filter(as_results, "name BEGINSWITH 'R'", NULL, 0);
    R(rexes != NULL);
    EQU(t_count(rexes), 1);
    fief_release(rexes);
    fief_value_t agg = vnull();
    EERRM(fief_set_aggregate(set, t_prop(r, "Dog", "name"), FIEF_AGGREGATE_SUM, &agg), FIEF_ERR_TYPE_MISMATCH, "string");
    fief_set_t *ints = fief_object_get_set(ann, t_prop(r, "Person", "ints"));
    R(ints != NULL);
    R(fief_realm_begin_write(r));
    int64_t some[] = {5, -2, 9};
    for (int i = 0; i < 3; i++) E(fief_set_insert(ints, vi(some[i]), NULL));
    R(fief_realm_commit(r));
    /* A set of values as results of values, filtered and sorted; aggregates. */
    fief_results_t *values = fief_set_to_results(ints);
    R(values != NULL);
    EQU(t_count(values), 3);
    fief_value_t first = vnull();
    E(fief_results_get_value(values, 0, &first));
    EQI(first.u.integer, -2);
    fief_results_t *big = fief_results_filter(values, "self > 0", NULL, 0);
    R(big != NULL);
    EQU(t_count(big), 2);
    fief_release(big);
    E(fief_set_aggregate(ints, 0, FIEF_AGGREGATE_SUM, &agg));
    EQI(agg.u.integer, 12);
    E(fief_set_aggregate(ints, 0, FIEF_AGGREGATE_MAX, &agg));
    EQI(agg.u.integer, 9);
    E(fief_set_aggregate(ints, 0, FIEF_AGGREGATE_AVERAGE, &agg));
    EQD(agg.u.double_value, 4.0);
    fief_release(values);
    fief_release(ints);

    /* Deleting a dog takes it out of the set. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(rex));
    R(fief_realm_commit(r));
    EQU(set_count(set), 2);
    EQU(t_count(as_results), 2);
    fief_release(as_results);
    E(!set_has(set, vlink(dog_class, dogs[0])));
    E(set_has(set, vlink(dog_class, dogs[1])));
    fief_release(rex);
    fief_release(set);
    fief_release(ann);
    fief_release(r);
}

TEST(map_operations) {
    fief_schema_t *s = collection_schema();
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("maps.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t person_class = t_class(r, "Person"), dog_class = t_class(r, "Dog");
    fief_property_key_t name = t_prop(r, "Person", "name"), dog_name = t_prop(r, "Dog", "name");

    R(fief_realm_begin_write(r));
    fief_value_t ann_name = vs("Ann");
    fief_object_t *ann = fief_object_create(r, person_class, &name, &ann_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(ann != NULL);
    fief_map_t *scores = fief_object_get_map(ann, t_prop(r, "Person", "scores"));
    R(scores != NULL);
    E(fief_map_set(scores, t_str("b"), vi(2)));
    E(fief_map_set(scores, t_str("a"), vi(1)));
    E(fief_map_set(scores, t_str("c"), vi(3)));
    E(fief_map_set(scores, t_str("b"), vi(20))); /* update */
    bool removed = false;
    E(fief_map_remove(scores, t_str("c"), &removed) && removed);
    E(fief_map_remove(scores, t_str("c"), &removed) && !removed);
    /* Refused keys and values write nothing. */
    EERRM(fief_map_set(scores, t_str("a.b"), vi(1)), FIEF_ERR_INVALID_ARGUMENT, "cannot contain '.'");
    EERRM(fief_map_set(scores, t_str("$a"), vi(1)), FIEF_ERR_INVALID_ARGUMENT, "cannot start with '$'");
    fief_string_t bad_utf8 = {"\xff", 1};
    EERR(fief_map_set(scores, bad_utf8, vi(1)), FIEF_ERR_INVALID_UTF8);
    fief_string_t null_key = {NULL, 4};
    EERR(fief_map_set(scores, null_key, vi(1)), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_map_set(scores, t_str("d"), vs("x")), FIEF_ERR_TYPE_MISMATCH);
    EERR(fief_map_set(scores, t_str("d"), vnull()), FIEF_ERR_NULL_NOT_ALLOWED);
    R(fief_realm_commit(r));

    EQU(map_count(scores), 2);
    fief_value_t v = vnull();
    bool found = false;
    E(fief_map_get(scores, t_str("b"), &v, &found) && found);
    EQI(v.u.integer, 20);
    E(fief_map_get(scores, t_str("zz"), &v, &found) && !found);
    EQI(v.type, FIEF_TYPE_NULL);
    E(fief_map_get(scores, t_str("a.b"), &v, &found) && !found);
    E(fief_map_contains_key(scores, t_str("a"), &found) && found);
    size_t index = 9;
    E(fief_map_index_of_key(scores, t_str("b"), &index, &found) && found);
    EQU(index, 1);
    fief_string_t key;
    E(fief_map_get_entry(scores, 0, &key, &v));
    EQSTR(key, "a");
    EQI(v.u.integer, 1);
    fief_string_t keys[2];
    fief_value_t values[2];
    E(fief_map_get_entries(scores, 0, 2, keys, values));
    EQSTR(keys[1], "b");
    EQI(values[1].u.integer, 20);
    E(fief_map_get_entries(scores, 1, 1, keys, NULL));
    EQSTR(keys[0], "b");
    EERR(fief_map_get_entries(scores, 1, 2, keys, values), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_map_get_entries(scores, 0, 1, NULL, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_map_get_entry(scores, 2, &key, &v), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_map_set(scores, t_str("x"), vi(1)), FIEF_ERR_NOT_IN_TRANSACTION);

    /* Links: a deleted target leaves its key with null. */
    fief_map_t *pets = fief_object_get_map(ann, t_prop(r, "Person", "pets"));
    R(pets != NULL);
    R(fief_realm_begin_write(r));
    fief_value_t rex_name = vs("Rex");
    fief_object_t *rex = fief_object_create(r, dog_class, &dog_name, &rex_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(rex != NULL);
    fief_object_key_t rex_key;
    E(fief_object_get_key(rex, &rex_key));
    E(fief_map_set(pets, t_str("best"), vlink(dog_class, rex_key)));
    E(fief_map_set(pets, t_str("none"), vnull()));
    EERRM(fief_map_set(pets, t_str("x"), vlink(person_class, 0)), FIEF_ERR_TYPE_MISMATCH, "links to 'Dog'");
    R(fief_realm_commit(r));
    fief_results_t *owners = fief_object_get_backlinks(rex, person_class, t_prop(r, "Person", "pets"));
    R(owners != NULL);
    EQU(t_count(owners), 1);
    fief_release(owners);
    fief_results_t *pet_results = fief_map_to_results(pets);
    R(pet_results != NULL);
    EQU(t_count(pet_results), 1);
    fief_results_t *score_values = fief_map_to_results(scores);
    R(score_values != NULL);
    EQU(t_count(score_values), 2);
    E(fief_results_get_value(score_values, 1, &v));
    EQI(v.u.integer, 20);
    fief_release(score_values);
    E(fief_map_aggregate(scores, 0, FIEF_AGGREGATE_MIN, &v));
    EQI(v.u.integer, 1);
    E(fief_map_aggregate(scores, 0, FIEF_AGGREGATE_SUM, &v));
    EQI(v.u.integer, 21);
    R(fief_realm_begin_write(r));
    E(fief_object_delete(rex));
    R(fief_realm_commit(r));
    EQU(map_count(pets), 2);
    EQU(t_count(pet_results), 0);
    fief_release(pet_results);
    E(fief_map_get(pets, t_str("best"), &v, &found) && found);
    EQI(v.type, FIEF_TYPE_NULL);
    fief_release(rex);

    /* Embedded values: created in place, deleted when replaced. */
    fief_map_t *addresses = fief_object_get_map(ann, t_prop(r, "Person", "addresses"));
    R(addresses != NULL);
    R(fief_realm_begin_write(r));
    fief_object_t *home = fief_map_insert_embedded(addresses, t_str("home"));
    R(home != NULL);
    E(fief_object_set_value(home, t_prop(r, "Address", "city"), vs("Oslo")));
    EERR(fief_map_insert_embedded(addresses, t_str("a.b")) != NULL, FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_map_insert_embedded(pets, t_str("k")) != NULL, FIEF_ERR_INVALID_ARGUMENT);
    fief_object_key_t home_key;
    E(fief_object_get_key(home, &home_key));
    EERR(fief_map_set(addresses, t_str("work"), vlink(t_class(r, "Address"), home_key)), FIEF_ERR_INVALID_ARGUMENT);
    fief_object_t *again = fief_map_insert_embedded(addresses, t_str("home"));
    R(again != NULL);
    E(!fief_object_is_valid(home));
    R(fief_realm_commit(r));
    EQU(map_count(addresses), 1);
    fief_release(again);
    fief_release(home);

    /* Frozen maps read their version. */
    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen != NULL);
    fief_map_t *frozen_scores = NULL;
    E(fief_map_resolve_in(scores, frozen, &frozen_scores) && frozen_scores != NULL);
    R(fief_realm_begin_write(r));
    E(fief_map_clear(scores));
    EERR(fief_map_set(frozen_scores, t_str("a"), vi(1)), FIEF_ERR_FROZEN);
    R(fief_realm_commit(r));
    EQU(map_count(scores), 0);
    EQU(map_count(frozen_scores), 2);
    fief_release(frozen_scores);
    fief_release(frozen);

    fief_release(scores);
    EERR(fief_map_count(scores, &index), FIEF_ERR_INVALID_HANDLE);
    fief_release(pets);
    fief_release(addresses);
    fief_release(ann);
    fief_release(r);
}

static const t_case cases[] = {T(collection_schema), T(set_operations), T(set_links), T(map_operations)};
int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
