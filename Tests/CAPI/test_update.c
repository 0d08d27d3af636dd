/* Set-based update through the C API (fief_results_set_value): one property
 * of every object of class, filtered, list and backlink results in one call,
 * with conversions, indexes, links and their backlinks, and mixed values;
 * live results follow; and every bad input is refused with an error code
 * and message, changing nothing. */
#include "fief_test.h"

#include <pthread.h>
#include <stdlib.h>

/* Dog:    name string
 * Person: id int (primary key), age int, score double, name string,
 *         nick string?, tag string (indexed), dog Dog?, any mixed,
 *         tags list of string, dogs list of Dog */
enum { PERSON_PROPS = 10, PEOPLE = 1000 };

typedef struct fixture {
    fief_realm_t *r;
    fief_class_key_t dog, person;
    fief_property_key_t name, id, age, score, pname, nick, tag, link, any, tags, dogs;
    fief_object_key_t dog_keys[3];
} fixture;

static bool open_fixture(fixture *f) {
    memset(f, 0, sizeof *f);
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 1;
    classes[1].name = "Person";
    classes[1].primary_key = "id";
    classes[1].num_properties = PERSON_PROPS;
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t person[PERSON_PROPS] = {
        t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
        t_prop_info("age", FIEF_TYPE_INT, 0),
        t_prop_info("score", FIEF_TYPE_DOUBLE, 0),
        t_prop_info("name", FIEF_TYPE_STRING, 0),
        t_prop_info("nick", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE),
        t_prop_info("tag", FIEF_TYPE_STRING, FIEF_PROPERTY_INDEXED),
        t_prop_info("dog", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
        t_prop_info("any", FIEF_TYPE_MIXED, 0),
        t_prop_info("tags", FIEF_TYPE_STRING, 0),
        t_prop_info("dogs", FIEF_TYPE_LINK, 0)};
    person[6].link_target = "Dog";
    person[8].collection_type = FIEF_COLLECTION_LIST;
    person[9].link_target = "Dog";
    person[9].collection_type = FIEF_COLLECTION_LIST;
    const fief_property_info_t *props[2] = {dog, person};
    fief_schema_t *schema = fief_schema_new(classes, 2, props);
    if (!schema) return false;
    f->r = t_open(t_path("update.fief"), schema, 0);
    fief_release(schema);
    if (!f->r) return false;
    f->dog = t_class(f->r, "Dog");
    f->person = t_class(f->r, "Person");
    f->name = t_prop(f->r, "Dog", "name");
    f->id = t_prop(f->r, "Person", "id");
    f->age = t_prop(f->r, "Person", "age");
    f->score = t_prop(f->r, "Person", "score");
    f->pname = t_prop(f->r, "Person", "name");
    f->nick = t_prop(f->r, "Person", "nick");
    f->tag = t_prop(f->r, "Person", "tag");
    f->link = t_prop(f->r, "Person", "dog");
    f->any = t_prop(f->r, "Person", "any");
    f->tags = t_prop(f->r, "Person", "tags");
    f->dogs = t_prop(f->r, "Person", "dogs");

    /* PEOPLE people: id i + 1, age i % 20, name "p<i>", tag "t<i % 4>"; three dogs. */
    if (!fief_realm_begin_write(f->r)) return false;
    fief_property_key_t keys[4] = {f->id, f->age, f->pname, f->tag};
    fief_value_t *values = calloc(PEOPLE * 4, sizeof *values);
    char (*names)[16] = calloc(PEOPLE, sizeof *names);
    static const char *const tags[4] = {"t0", "t1", "t2", "t3"};
    for (int i = 0; i < PEOPLE; i++) {
        snprintf(names[i], sizeof names[i], "p%d", i);
        values[i * 4] = vi(i + 1);
        values[i * 4 + 1] = vi(i % 20);
        values[i * 4 + 2] = vs(names[i]);
        values[i * 4 + 3] = vs(tags[i % 4]);
    }
    bool ok = fief_object_create_many(f->r, f->person, keys, 4, values, PEOPLE, FIEF_UPDATE_POLICY_ERROR, NULL);
    free(values);
    free(names);
    fief_value_t dog_names[3] = {vs("Rex"), vs("Max"), vs("Bo")};
    ok = ok && fief_object_create_many(f->r, f->dog, &f->name, 1, dog_names, 3, FIEF_UPDATE_POLICY_ERROR, f->dog_keys);
    return ok && fief_realm_commit(f->r);
}

static void close_fixture(fixture *f) {
    if (f->r) {
        fief_realm_close(f->r);
        fief_release(f->r);
    }
}

static fief_results_t *people(fixture *f, const char *predicate) {
    fief_results_t *all = fief_realm_get_objects(f->r, f->person);
    if (!predicate || !all) return all;
    fief_results_t *filtered = fief_results_filter(all, predicate, NULL, 0);
    fief_release(all);
    return filtered;
}

static size_t count_where(fixture *f, const char *predicate) {
    fief_results_t *results = people(f, predicate);
    size_t n = results ? t_count(results) : (size_t)-1;
    fief_release(results);
    return n;
}

/* Property `property` of the person with key `key`. */
static fief_value_t value_of(fixture *f, fief_object_key_t key, fief_property_key_t property) {
    fief_value_t out = vnull();
    E(fief_object_get_values_by_key(f->r, f->person, key, &property, 1, &out));
    return out;
}

/* Whether every person's `property` equals `expected`. */
static bool all_equal(fixture *f, fief_property_key_t property, fief_value_t expected) {
    for (fief_object_key_t key = 0; key < PEOPLE; key++) {
        if (!t_value_eq(value_of(f, key, property), expected)) return false;
    }
    return true;
}

static size_t verify_problems(void) {
    size_t problems = (size_t)-1;
    E(fief_file_verify(t_path("update.fief"), NULL, NULL, &problems));
    return problems;
}

TEST(sets_every_object) {
    fixture f;
    R(open_fixture(&f));
    fief_results_t *all = people(&f, NULL);
    R(all);
    R(fief_realm_begin_write(f.r));
    E(fief_results_set_value(all, f.age, vi(7)));
    E(fief_results_set_value(all, f.score, vi(3)));        /* converted to 3.0 */
    E(fief_results_set_value(all, f.pname, vs("Anna")));   /* copied: the view may go */
    E(fief_results_set_value(all, f.nick, vs("A")));
    E(all_equal(&f, f.age, vi(7)));                        /* read in the transaction */
    EQI(count_where(&f, "age == 7"), PEOPLE);
    R(fief_realm_commit(f.r));
    E(all_equal(&f, f.age, vi(7)));
    E(all_equal(&f, f.score, vd(3.0)));
    E(all_equal(&f, f.pname, vs("Anna")));
    E(all_equal(&f, f.nick, vs("A")));
    EQI(value_of(&f, 999, f.id).u.integer, 1000);          /* the others untouched */
    R(fief_realm_begin_write(f.r));
    E(fief_results_set_value(all, f.nick, vnull()));
    E(fief_results_set_value(all, f.score, vf(0.5f)));
    R(fief_realm_commit(f.r));
    E(all_equal(&f, f.nick, vnull()));
    E(all_equal(&f, f.score, vd(0.5)));
    fief_release(all);
    close_fixture(&f);
    EQU(verify_problems(), 0);
}

TEST(filtered_results_and_live_results) {
    fixture f;
    R(open_fixture(&f));
    fief_results_t *young = people(&f, "age < 5");
    R(young);
    EQU(t_count(young), PEOPLE / 4);
    R(fief_realm_begin_write(f.r));
    /* Every object that matched is set, although none matches afterwards. */
    E(fief_results_set_value(young, f.age, vi(50)));
    EQU(t_count(young), 0);
    EQI(count_where(&f, "age == 50"), PEOPLE / 4);
    EQI(count_where(&f, "age >= 5 AND age < 20"), PEOPLE * 3 / 4);
    /* The index follows: tag "t1" becomes "blue". */
    fief_results_t *t1 = people(&f, "tag == 't1'");
    R(t1);
    E(fief_results_set_value(t1, f.tag, vs("blue")));
    EQU(t_count(t1), 0);
    EQI(count_where(&f, "tag == 'blue'"), PEOPLE / 4);
    R(fief_realm_commit(f.r));
    EQI(count_where(&f, "tag == 'blue'"), PEOPLE / 4);
    EQI(count_where(&f, "tag == 't1'"), 0);
    /* Empty results: nothing changes. */
    R(fief_realm_begin_write(f.r));
    E(fief_results_set_value(young, f.age, vi(1)));
    R(fief_realm_commit(f.r));
    EQI(count_where(&f, "age == 1"), 0);
    fief_release(t1);
    fief_release(young);
    close_fixture(&f);
    EQU(verify_problems(), 0);
}

TEST(links_and_backlinks) {
    fixture f;
    R(open_fixture(&f));
    fief_results_t *all = people(&f, NULL);
    R(all);
    R(fief_realm_begin_write(f.r));
    E(fief_results_set_value(all, f.link, vlink(f.dog, f.dog_keys[1])));
    R(fief_realm_commit(f.r));
    fief_object_t *max = fief_object_get(f.r, f.dog, f.dog_keys[1]);
    R(max);
    fief_results_t *owners = fief_object_get_backlinks(max, f.person, f.link);
    R(owners);
    EQU(t_count(owners), PEOPLE);
    E(all_equal(&f, f.link, vlink(f.dog, f.dog_keys[1])));
    /* Half of them to null: the backlinks follow. */
    fief_results_t *half = people(&f, "id > 500");
    R(half);
    R(fief_realm_begin_write(f.r));
    E(fief_results_set_value(half, f.link, vnull()));
    R(fief_realm_commit(f.r));
    EQU(t_count(owners), PEOPLE / 2);
    EQI(count_where(&f, "dog == nil"), PEOPLE / 2);
    /* Backlink results are results too: their objects get a new age. */
    R(fief_realm_begin_write(f.r));
    E(fief_results_set_value(owners, f.age, vi(99)));
    R(fief_realm_commit(f.r));
    EQI(count_where(&f, "age == 99"), PEOPLE / 2);
    fief_release(half);
    fief_release(owners);
    fief_release(max);
    fief_release(all);
    close_fixture(&f);
    EQU(verify_problems(), 0);
}

TEST(mixed_values) {
    fixture f;
    R(open_fixture(&f));
    fief_results_t *all = people(&f, NULL);
    R(all);
    R(fief_realm_begin_write(f.r));
    E(fief_results_set_value(all, f.any, vs("text")));
    E(all_equal(&f, f.any, vs("text")));
    E(fief_results_set_value(all, f.any, vlink(f.dog, f.dog_keys[0])));
    R(fief_realm_commit(f.r));
    fief_object_t *rex = fief_object_get(f.r, f.dog, f.dog_keys[0]);
    R(rex);
    fief_results_t *holders = fief_object_get_backlinks(rex, f.person, f.any);
    R(holders);
    EQU(t_count(holders), PEOPLE);
    /* A nested list each, empty: the links go. */
    R(fief_realm_begin_write(f.r));
    E(fief_results_set_value(all, f.any, vtype(FIEF_TYPE_LIST)));
    R(fief_realm_commit(f.r));
    EQU(t_count(holders), 0);
    fief_object_t *first = fief_results_get_object(all, 0);
    R(first);
    fief_list_t *nested = fief_object_get_list(first, f.any);
    R(nested);
    size_t size = 99;
    E(fief_list_count(nested, &size));
    EQU(size, 0);
    fief_release(nested);
    fief_release(first);
    R(fief_realm_begin_write(f.r));
    E(fief_results_set_value(all, f.any, vnull()));
    R(fief_realm_commit(f.r));
    E(all_equal(&f, f.any, vnull()));
    fief_release(holders);
    fief_release(rex);
    fief_release(all);
    close_fixture(&f);
    EQU(verify_problems(), 0);
}

TEST(list_results_set_each_object_once) {
    fixture f;
    R(open_fixture(&f));
    fief_object_t *p = fief_object_get(f.r, f.person, 0);
    R(p);
    R(fief_realm_begin_write(f.r));
    fief_list_t *dogs = fief_object_get_list(p, f.dogs);
    R(dogs);
    fief_value_t listed[3] = {vlink(f.dog, f.dog_keys[0]), vlink(f.dog, f.dog_keys[2]), vlink(f.dog, f.dog_keys[0])};
    E(fief_list_append(dogs, listed, 3));
    fief_results_t *results = fief_list_to_results(dogs);
    R(results);
    E(fief_results_set_value(results, f.name, vs("listed")));
    R(fief_realm_commit(f.r));
    fief_value_t out;
    for (int i = 0; i < 3; i++) {
        E(fief_object_get_values_by_key(f.r, f.dog, f.dog_keys[i], &f.name, 1, &out));
        EQSTR(out.u.string, i == 1 ? "Max" : "listed");
    }
    fief_release(results);
    fief_release(dogs);
    fief_release(p);
    close_fixture(&f);
    EQU(verify_problems(), 0);
}

typedef struct thread_call {
    fief_results_t *results;
    fief_property_key_t property;
    bool ok;
    fief_error_code_t code;
} thread_call;

static void *set_from_another_thread(void *arg) {
    thread_call *call = arg;
    fief_clear_last_error();
    call->ok = fief_results_set_value(call->results, call->property, vi(5));
    fief_error_t error;
    fief_get_last_error(&error);
    call->code = error.code;
    return NULL;
}

TEST(bad_input_changes_nothing) {
    fixture f;
    R(open_fixture(&f));
    fief_results_t *all = people(&f, NULL);
    R(all);
    /* Outside a write transaction. */
    EERRM(fief_results_set_value(all, f.age, vi(1)), FIEF_ERR_NOT_IN_TRANSACTION, "outside a write transaction");
    R(fief_realm_begin_write(f.r));
    EERRM(fief_results_set_value(all, f.age, vs("x")), FIEF_ERR_TYPE_MISMATCH, "holds int values, not string");
    EERR(fief_results_set_value(all, f.age, vd(1.5)), FIEF_ERR_TYPE_MISMATCH);
    EERR(fief_results_set_value(all, f.pname, vi(1)), FIEF_ERR_TYPE_MISMATCH);
    EERRM(fief_results_set_value(all, f.age, vnull()), FIEF_ERR_NULL_NOT_ALLOWED, "not optional");
    EERR(fief_results_set_value(all, f.pname, vnull()), FIEF_ERR_NULL_NOT_ALLOWED);
    EERR(fief_results_set_value(all, 0, vi(1)), FIEF_ERR_NO_SUCH_PROPERTY);
    EERR(fief_results_set_value(all, 0x7fffffff, vi(1)), FIEF_ERR_NO_SUCH_PROPERTY);
    EERRM(fief_results_set_value(all, f.id, vi(1)), FIEF_ERR_PRIMARY_KEY_CHANGE, "primary key");
    EERRM(fief_results_set_value(all, f.tags, vs("x")), FIEF_ERR_TYPE_MISMATCH, "is a list");
    EERR(fief_results_set_value(all, f.dogs, vnull()), FIEF_ERR_TYPE_MISMATCH);
    EERR(fief_results_set_value(all, f.pname, vsn("\xff\xfe", 2)), FIEF_ERR_INVALID_UTF8);
    EERR(fief_results_set_value(all, f.pname, vsn(NULL, 3)), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_set_value(all, f.age, vtype(99)), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_set_value(all, f.link, vlink(f.person, 0)), FIEF_ERR_TYPE_MISMATCH);
    EERRM(fief_results_set_value(all, f.link, vlink(f.dog, 12345)), FIEF_ERR_NO_SUCH_OBJECT, "does not exist");
    EERR(fief_results_set_value(all, f.link, vi(f.dog_keys[0])), FIEF_ERR_TYPE_MISMATCH);
    /* Handles: NULL, an object handle, results of values. */
    EERR(fief_results_set_value(NULL, f.age, vi(1)), FIEF_ERR_INVALID_HANDLE);
    fief_object_t *p = fief_object_get(f.r, f.person, 0);
    R(p);
    EERR(fief_results_set_value((fief_results_t *)(void *)p, f.age, vi(1)), FIEF_ERR_WRONG_HANDLE_TYPE);
    fief_list_t *tags = fief_object_get_list(p, f.tags);
    R(tags);
    fief_results_t *values = fief_list_to_results(tags);
    R(values);
    EERRM(fief_results_set_value(values, f.age, vi(1)), FIEF_ERR_INVALID_ARGUMENT, "results of objects");
    /* Another thread, while this one writes. */
    thread_call call = {all, f.age, true, 0};
    t_run_thread(set_from_another_thread, &call);
    E(!call.ok);
    EQI(call.code, FIEF_ERR_WRONG_THREAD);
    /* None of it wrote anything: the transaction goes on. */
    E(fief_results_set_value(all, f.score, vd(2)));
    R(fief_realm_commit(f.r));
    for (fief_object_key_t key = 0; key < PEOPLE; key++) {
        EQI(value_of(&f, key, f.age).u.integer, key % 20);
        EQI(value_of(&f, key, f.id).u.integer, key + 1);
    }
    E(all_equal(&f, f.link, vnull()));
    E(all_equal(&f, f.score, vd(2)));
    /* Frozen results. */
    fief_realm_t *frozen = fief_realm_freeze(f.r);
    R(frozen);
    fief_results_t *frozen_all = fief_results_resolve_in(all, frozen);
    R(frozen_all);
    EERRM(fief_results_set_value(frozen_all, f.age, vi(1)), FIEF_ERR_FROZEN, "frozen");
    R(fief_realm_begin_write(f.r));
    EERR(fief_results_set_value(frozen_all, f.age, vi(1)), FIEF_ERR_FROZEN);
    fief_realm_cancel(f.r);
    /* Released results. */
    fief_results_t *released = people(&f, NULL);
    R(released);
    E(fief_release(released));
    R(fief_realm_begin_write(f.r));
    EERR(fief_results_set_value(released, f.age, vi(1)), FIEF_ERR_INVALID_HANDLE);
    fief_realm_cancel(f.r);
    /* A closed realm. */
    fief_release(frozen_all);
    fief_release(frozen);
    fief_release(values);
    fief_release(tags);
    fief_release(p);
    E(fief_realm_close(f.r));
    EERR(fief_results_set_value(all, f.age, vi(1)), FIEF_ERR_CLOSED);
    fief_release(all);
    fief_release(f.r);
    f.r = NULL;
    EQU(verify_problems(), 0);
}

static const t_case cases[] = {
    T(sets_every_object),
    T(filtered_results_and_live_results),
    T(links_and_backlinks),
    T(mixed_values),
    T(list_results_set_each_object_once),
    T(bad_input_changes_nothing),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
