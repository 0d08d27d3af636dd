/* Lists through the C API: schema definition and introspection; every
 * operation on lists of ints, optional strings and links; backlinks through
 * lists; deleted targets leaving lists; embedded elements; frozen lists; and
 * every bad input refused without a change. */
#include "fief_test.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

/* Dog(name); Toy(label) embedded when `embedded_toys`;
 * Person(name, dogs: list of Dog, scores: list of int, tags: list of optional string, toys: list of Toy). */
static fief_schema_t *list_schema(bool embedded_toys) {
    fief_class_info_t classes[3];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 1;
    classes[1].name = "Toy";
    classes[1].num_properties = 1;
    classes[1].flags = embedded_toys ? FIEF_CLASS_EMBEDDED : 0;
    classes[2].name = "Person";
    classes[2].num_properties = 5;
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t toy[1] = {t_prop_info("label", FIEF_TYPE_STRING, 0)};
    fief_property_info_t person[5] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("dogs", FIEF_TYPE_LINK, 0),
                                      t_prop_info("scores", FIEF_TYPE_INT, 0),
                                      t_prop_info("tags", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE),
                                      t_prop_info("toys", FIEF_TYPE_LINK, 0)};
    for (int i = 1; i < 5; i++) person[i].collection_type = FIEF_COLLECTION_LIST;
    person[1].link_target = "Dog";
    person[4].link_target = "Toy";
    const fief_property_info_t *props[3] = {dog, toy, person};
    return fief_schema_new(classes, 3, props);
}

static size_t list_count(const fief_list_t *list) {
    size_t n = (size_t)-1;
    E(fief_list_count(list, &n));
    return n;
}

static int64_t list_int(const fief_list_t *list, size_t i) {
    fief_value_t v = vnull();
    E(fief_list_get(list, i, &v));
    EQI(v.type, FIEF_TYPE_INT);
    return v.u.integer;
}

TEST(list_schema) {
    fief_schema_t *s = list_schema(false);
    R(s != NULL);
    fief_property_info_t p;
    bool found = false;
    E(fief_schema_find_property(s, 2, "dogs", &p, &found) && found);
    EQI(p.collection_type, FIEF_COLLECTION_LIST);
    EQI(p.type, FIEF_TYPE_LINK);
    E(p.link_target != NULL && strcmp(p.link_target, "Dog") == 0);
    E(fief_schema_find_property(s, 2, "tags", &p, &found) && found);
    EQI(p.collection_type, FIEF_COLLECTION_LIST);
    EQU(p.flags, FIEF_PROPERTY_NULLABLE);
    E(fief_schema_find_property(s, 2, "name", &p, &found) && found);
    EQI(p.collection_type, FIEF_COLLECTION_NONE);
    E(fief_release(s));

    /* Refused: unknown kinds, nullable lists of links, indexed lists. */
    fief_class_info_t cls = {"A", NULL, 1, 0, 0};
    fief_property_info_t bad = t_prop_info("l", FIEF_TYPE_INT, 0);
    const fief_property_info_t *one[1] = {&bad};
    bad.collection_type = 7;
    EERRM(fief_schema_new(&cls, 1, one) != NULL, FIEF_ERR_INVALID_SCHEMA, "unknown collection_type 7");
    bad.collection_type = FIEF_COLLECTION_LIST;
    bad.flags = FIEF_PROPERTY_INDEXED;
    EERRM(fief_schema_new(&cls, 1, one) != NULL, FIEF_ERR_INVALID_SCHEMA, "cannot be indexed");
    bad.type = FIEF_TYPE_LINK;
    bad.flags = FIEF_PROPERTY_NULLABLE;
    bad.link_target = "A";
    EERRM(fief_schema_new(&cls, 1, one) != NULL, FIEF_ERR_INVALID_SCHEMA, "cannot hold null");
}

TEST(list_operations) {
    fief_schema_t *s = list_schema(false);
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("lists.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t person_class = t_class(r, "Person");
    fief_property_key_t name = t_prop(r, "Person", "name"), scores_key = t_prop(r, "Person", "scores");
    fief_property_key_t tags_key = t_prop(r, "Person", "tags");

    R(fief_realm_begin_write(r));
    fief_value_t ann_name = vs("Ann");
    fief_object_t *ann = fief_object_create(r, person_class, &name, &ann_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(ann != NULL);
    fief_list_t *scores = fief_object_get_list(ann, scores_key);
    R(scores != NULL);
    EQU(list_count(scores), 0);
    fief_value_t many[5] = {vi(10), vi(20), vi(30), vi(40), vi(50)};
    E(fief_list_append(scores, many, 5));
    E(fief_list_insert(scores, 0, vi(5)));           /* 5 10 20 30 40 50 */
    E(fief_list_set(scores, 2, vi(21)));             /* 5 10 21 30 40 50 */
    E(fief_list_remove(scores, 3));                  /* 5 10 21 40 50 */
    E(fief_list_move(scores, 0, 4));                 /* 10 21 40 50 5 */
    E(fief_list_swap(scores, 0, 1));                 /* 21 10 40 50 5 */
    R(fief_realm_commit(r));

    EQU(list_count(scores), 5);
    int64_t expected[5] = {21, 10, 40, 50, 5};
    fief_value_t range[5];
    E(fief_list_get_range(scores, 0, 5, range));
    for (int i = 0; i < 5; i++) {
        EQI(range[i].u.integer, expected[i]);
        EQI(list_int(scores, (size_t)i), expected[i]);
    }
    size_t index = 99;
    bool found = false;
    E(fief_list_index_of(scores, vi(50), &index, &found) && found);
    EQU(index, 3);
    E(fief_list_index_of(scores, vi(77), &index, &found) && !found);
    E(fief_list_index_of(scores, vs("50"), &index, &found) && !found);

    /* Optional strings: nulls, views, long values. */
    fief_list_t *tags = fief_object_get_list(ann, tags_key);
    R(tags != NULL);
    R(fief_realm_begin_write(r));
    char *big = malloc(5000);
    R(big != NULL);
    memset(big, 'z', 4999);
    big[4999] = 0;
    fief_value_t tv[3] = {vs("red"), vnull(), vs(big)};
    E(fief_list_append(tags, tv, 3));
    R(fief_realm_commit(r));
    fief_value_t got = vnull();
    E(fief_list_get(tags, 0, &got));
    EQSTR(got.u.string, "red");
    E(fief_list_get(tags, 1, &got));
    EQI(got.type, FIEF_TYPE_NULL);
    E(fief_list_get(tags, 2, &got));
    EQU(got.u.string.size, 4999);
    free(big);

    /* Clear; a list of values has nothing to delete. */
    R(fief_realm_begin_write(r));
    EERRM(fief_list_delete_all_objects(tags), FIEF_ERR_INVALID_ARGUMENT, "holds values");
    E(fief_list_clear(tags));
    R(fief_realm_commit(r));
    EQU(list_count(tags), 0);

    /* Reopened, the list is there. */
    fief_release(tags);
    fief_release(scores);
    fief_release(ann);
    fief_release(r);
    r = t_open(t_path("lists.fief"), NULL, 0);
    R(r != NULL);
    fief_object_t *again = fief_object_get(r, person_class, 0);
    R(again != NULL);
    scores = fief_object_get_list(again, scores_key);
    R(scores != NULL);
    EQU(list_count(scores), 5);
    EQI(list_int(scores, 4), 5);

    /* Frozen: the list as it was, while the live one changes. */
    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen != NULL);
    fief_list_t *frozen_scores = NULL;
    E(fief_list_resolve_in(scores, frozen, &frozen_scores));
    R(frozen_scores != NULL);
    R(fief_realm_begin_write(r));
    E(fief_list_append(scores, many, 1));
    EERR(fief_list_append(frozen_scores, many, 1), FIEF_ERR_FROZEN);
    R(fief_realm_commit(r));
    EQU(list_count(scores), 6);
    EQU(list_count(frozen_scores), 5);

    fief_release(frozen_scores);
    fief_release(frozen);
    fief_release(scores);
    fief_release(again);
    fief_release(r);
    fief_release(s);
}

TEST(list_links_and_backlinks) {
    fief_schema_t *s = list_schema(false);
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("links.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t dog_class = t_class(r, "Dog"), person_class = t_class(r, "Person");
    fief_class_key_t toy_class = t_class(r, "Toy");
    fief_property_key_t dog_name = t_prop(r, "Dog", "name"), name = t_prop(r, "Person", "name");
    fief_property_key_t dogs_key = t_prop(r, "Person", "dogs");

    R(fief_realm_begin_write(r));
    fief_object_key_t dogs[3];
    for (int i = 0; i < 3; i++) {
        fief_value_t n = vs(i == 0 ? "Rex" : i == 1 ? "Max" : "Bo");
        fief_object_t *d = fief_object_create(r, dog_class, &dog_name, &n, 1, FIEF_UPDATE_POLICY_ERROR);
        R(d != NULL);
        E(fief_object_get_key(d, &dogs[i]));
        fief_release(d);
    }
    fief_value_t toy_label = vs("ball");
    fief_property_key_t label = t_prop(r, "Toy", "label");
    fief_object_t *ball = fief_object_create(r, toy_class, &label, &toy_label, 1, FIEF_UPDATE_POLICY_ERROR);
    R(ball != NULL);
    fief_object_key_t ball_key = -1;
    E(fief_object_get_key(ball, &ball_key));
    fief_value_t ann_name = vs("Ann");
    fief_object_t *ann = fief_object_create(r, person_class, &name, &ann_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(ann != NULL);
    fief_list_t *list = fief_object_get_list(ann, dogs_key);
    R(list != NULL);
    fief_value_t links[4] = {vlink(dog_class, dogs[0]), vlink(dog_class, dogs[1]), vlink(dog_class, dogs[0]),
                             vlink(dog_class, dogs[2])};
    E(fief_list_append(list, links, 4));
    R(fief_realm_commit(r));

    /* The list as live results: filtered, in list order. */
    fief_results_t *as_results = fief_list_to_results(list);
    R(as_results != NULL);
    EQU(t_count(as_results), 4);
    fief_results_t *rexes = fief_results_filter(as_results, "name == 'Rex'", NULL, 0);
    R(rexes != NULL);
    EQU(t_count(rexes), 2);
    fief_object_key_t second = -1;
    E(fief_results_get_key(as_results, 1, &second));
    EQI(second, dogs[1]);
    fief_release(rexes);
    fief_release(as_results);
    fief_list_t *scores = fief_object_get_list(ann, t_prop(r, "Person", "scores"));
    R(scores != NULL);
    /* A list of values gives results of values (see test_aggregates.c). */
    fief_results_t *values = fief_list_to_results(scores);
    R(values != NULL);
    fief_type_t element_type = 0;
    E(fief_results_get_element_type(values, &element_type, NULL));
    EQI(element_type, FIEF_TYPE_INT);
    EERRM(fief_results_get_object(values, 0) != NULL, FIEF_ERR_INVALID_ARGUMENT, "hold values");
    fief_release(values);
    fief_release(scores);

    /* Backlinks through the list: Ann once for Rex (listed twice). */
    fief_object_t *rex = fief_object_get(r, dog_class, dogs[0]);
    R(rex != NULL);
    fief_results_t *owners = fief_object_get_backlinks(rex, person_class, dogs_key);
    R(owners != NULL);
    EQU(t_count(owners), 1);

    /* Bad input: nothing changes. */
    R(fief_realm_begin_write(r));
    EERRM(fief_list_append(list, (fief_value_t[]){vlink(toy_class, ball_key)}, 1), FIEF_ERR_TYPE_MISMATCH, "links to 'Dog'");
    EERR(fief_list_append(list, (fief_value_t[]){vlink(dog_class, 999)}, 1), FIEF_ERR_NO_SUCH_OBJECT);
    EERR(fief_list_append(list, (fief_value_t[]){vnull()}, 1), FIEF_ERR_NULL_NOT_ALLOWED);
    EERR(fief_list_append(list, (fief_value_t[]){vlink(dog_class, dogs[1]), vi(3)}, 2), FIEF_ERR_TYPE_MISMATCH);
    EERR(fief_list_set(list, 4, vlink(dog_class, dogs[1])), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_list_insert(list, 5, vlink(dog_class, dogs[1])), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_list_remove(list, (size_t)-1), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_list_move(list, 0, 4), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_list_insert_embedded(list, 0) != NULL, FIEF_ERR_INVALID_ARGUMENT);
    fief_value_t dummy;
    EERR(fief_list_get_range(list, 2, 3, &dummy), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    /* A list is not a value, and a value is not a list. */
    EERRM(fief_object_get_value(ann, dogs_key, &dummy), FIEF_ERR_TYPE_MISMATCH, "is a list");
    EERR(fief_object_set_value(ann, dogs_key, vi(1)), FIEF_ERR_TYPE_MISMATCH);
    EERRM(fief_object_get_list(ann, name) != NULL, FIEF_ERR_INVALID_ARGUMENT, "is not a list");
    EERR(fief_object_get_list(ann, 99) != NULL, FIEF_ERR_NO_SUCH_PROPERTY);
    /* A list handle is not an object handle. */
    EERR(fief_object_get_value((fief_object_t *)list, name, &dummy), FIEF_ERR_WRONG_HANDLE_TYPE);
    R(fief_realm_commit(r));
    EQU(list_count(list), 4);
    /* Outside a transaction. */
    EERR(fief_list_append(list, links, 1), FIEF_ERR_NOT_IN_TRANSACTION);
    EERR(fief_list_clear(list), FIEF_ERR_NOT_IN_TRANSACTION);

    /* Deleting Rex removes both of its elements. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(rex));
    R(fief_realm_commit(r));
    EQU(list_count(list), 2);
    fief_value_t left[2];
    E(fief_list_get_range(list, 0, 2, left));
    EQI(left[0].u.link.object_key, dogs[1]);
    EQI(left[1].u.link.object_key, dogs[2]);

    /* fief_list_delete_all_objects deletes the dogs. */
    R(fief_realm_begin_write(r));
    E(fief_list_delete_all_objects(list));
    R(fief_realm_commit(r));
    EQU(list_count(list), 0);
    EQU(t_count_class(r, dog_class), 0);

    /* Deleting the owner invalidates the list handle. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(ann));
    R(fief_realm_commit(r));
    E(!fief_list_is_valid(list));
    size_t n;
    EERR(fief_list_count(list, &n), FIEF_ERR_INVALIDATED_OBJECT);
    fief_release(list);
    EERR(fief_list_count(list, &n), FIEF_ERR_INVALID_HANDLE);

    fief_release(owners);
    fief_release(rex);
    fief_release(ball);
    fief_release(ann);
    fief_release(r);
    fief_release(s);
}

TEST(list_embedded) {
    fief_schema_t *s = list_schema(true);
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("embedded.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t person_class = t_class(r, "Person"), toy_class = t_class(r, "Toy");
    fief_property_key_t name = t_prop(r, "Person", "name"), toys_key = t_prop(r, "Person", "toys");
    fief_property_key_t label = t_prop(r, "Toy", "label");

    R(fief_realm_begin_write(r));
    fief_value_t ann_name = vs("Ann");
    fief_object_t *ann = fief_object_create(r, person_class, &name, &ann_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(ann != NULL);
    fief_list_t *toys = fief_object_get_list(ann, toys_key);
    R(toys != NULL);
    fief_object_t *first = fief_list_insert_embedded(toys, 0);
    R(first != NULL);
    E(fief_object_set_value(first, label, vs("ball")));
    fief_object_t *second = fief_list_insert_embedded(toys, 0);
    R(second != NULL);
    E(fief_object_set_value(second, label, vs("rope")));
    fief_object_key_t first_key = -1;
    E(fief_object_get_key(first, &first_key));
    /* Never linked on its own. */
    EERR(fief_list_append(toys, (fief_value_t[]){vlink(toy_class, first_key)}, 1), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_list_insert_embedded(toys, 3) != NULL, FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    R(fief_realm_commit(r));
    EQU(list_count(toys), 2);
    fief_value_t v;
    E(fief_list_get(toys, 1, &v));
    EQI(v.u.link.object_key, first_key);

    /* Removed from the list, it is deleted. */
    R(fief_realm_begin_write(r));
    E(fief_list_remove(toys, 1));
    R(fief_realm_commit(r));
    E(!fief_object_is_valid(first));
    E(fief_object_is_valid(second));
    /* Deleted with the owner. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(ann));
    R(fief_realm_commit(r));
    E(!fief_object_is_valid(second));

    fief_release(second);
    fief_release(first);
    fief_release(toys);
    fief_release(ann);
    fief_release(r);
    fief_release(s);
}

/* ---- reads of a realm behind the newest commit, and of its frozen copy ------ */

/* A hang is the failure these tests look for: the alarm ends it. */
static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "timed out: a list read never returned (deadlock)\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(2);
}

enum list_read { READ_GET, READ_RANGE, READ_FIND, READ_RESULTS_COUNT, NUM_LIST_READS };
static const char *const list_read_names[NUM_LIST_READS] = {"fief_list_get", "fief_list_get_range", "fief_list_index_of",
                                                           "fief_results_count of fief_list_to_results"};

/* Read `list` (of two elements, `first` first) the way `how` says. */
static void read_two_element_list(const fief_list_t *list, enum list_read how, fief_value_t first) {
    fprintf(stderr, "  %s\n", list_read_names[how]);
    switch (how) {
    case READ_GET: {
        fief_value_t got = vnull();
        E(fief_list_get(list, 0, &got));
        EQV(got, first);
        break;
    }
    case READ_RANGE: {
        fief_value_t got[2];
        E(fief_list_get_range(list, 0, 2, got));
        EQV(got[0], first);
        break;
    }
    case READ_FIND: {
        size_t index = 9;
        bool found = false;
        E(fief_list_index_of(list, first, &index, &found) && found);
        EQU(index, 0);
        break;
    }
    case READ_RESULTS_COUNT: {
        fief_results_t *res = fief_list_to_results(list);
        E(res != NULL);
        if (res) EQU(t_count(res), 2);
        fief_release(res);
        break;
    }
    default: break;
    }
}

/* A realm another realm committed after, frozen (the frozen realm shares the
 * live one's snapshot): every read of a list of links and of a list of
 * values, through the frozen realm and through the live one, returns. */
TEST(list_reads_of_a_realm_behind_the_newest_commit) {
    signal(SIGALRM, on_alarm);
    alarm(30);
    fief_schema_t *s = list_schema(false);
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("behind.fief"), s, 0);
    fief_realm_t *other = t_open(t_path("behind.fief"), s, 0);
    R(r != NULL && other != NULL);
    fief_class_key_t dog_class = t_class(r, "Dog"), person_class = t_class(r, "Person");
    fief_property_key_t dogs_key = t_prop(r, "Person", "dogs"), scores_key = t_prop(r, "Person", "scores");
    fief_property_key_t name = t_prop(r, "Person", "name"), dog_name = t_prop(r, "Dog", "name");

    R(fief_realm_begin_write(r));
    fief_value_t names[2] = {vs("Rex"), vs("Bo")};
    fief_object_key_t dog_keys[2];
    E(fief_object_create_many(r, dog_class, &dog_name, 1, names, 2, FIEF_UPDATE_POLICY_ERROR, dog_keys));
    fief_value_t ann_name = vs("Ann");
    fief_object_t *ann = fief_object_create(r, person_class, &name, &ann_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(ann != NULL);
    fief_list_t *lists[2] = {fief_object_get_list(ann, dogs_key), fief_object_get_list(ann, scores_key)};
    R(lists[0] != NULL && lists[1] != NULL);
    fief_value_t dogs[2] = {vlink(dog_class, dog_keys[0]), vlink(dog_class, dog_keys[1])};
    fief_value_t scores[2] = {vi(7), vi(8)};
    E(fief_list_append(lists[0], dogs, 2));
    E(fief_list_append(lists[1], scores, 2));
    R(fief_realm_commit(r));
    fief_value_t firsts[2] = {dogs[0], scores[0]};

    for (int kind = 0; kind < 2; kind++) {
        for (int through_frozen = 0; through_frozen < 2; through_frozen++) {
            for (int how = 0; how < NUM_LIST_READS; how++) {
                fprintf(stderr, "%s, through the %s realm:\n", kind == 0 ? "list of links" : "list of ints",
                        through_frozen ? "frozen" : "live");
                /* r reads a new snapshot, the other realm commits after it, r freezes. */
                R(fief_realm_refresh(r, NULL));
                EQU(t_count_class(r, dog_class), 2);
                R(fief_realm_begin_write(other));
                fief_object_t *unrelated = fief_object_create(other, person_class, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
                E(unrelated != NULL);
                fief_release(unrelated);
                R(fief_realm_commit(other));
                fief_realm_t *frozen = fief_realm_freeze(r);
                R(frozen != NULL);
                fief_list_t *frozen_list = NULL;
                E(fief_list_resolve_in(lists[kind], frozen, &frozen_list));
                R(frozen_list != NULL);
                read_two_element_list(through_frozen ? frozen_list : lists[kind], (enum list_read)how, firsts[kind]);
                /* And the other one after it, from the list state the first read left. */
                read_two_element_list(through_frozen ? lists[kind] : frozen_list, (enum list_read)how, firsts[kind]);
                fief_release(frozen_list);
                fief_release(frozen);
            }
        }
    }
    alarm(0);
    fief_release(lists[0]);
    fief_release(lists[1]);
    fief_release(ann);
    fief_release(other);
    fief_release(r);
    fief_release(s);
}

static const t_case cases[] = {T(list_schema), T(list_operations), T(list_links_and_backlinks), T(list_embedded),
                               T(list_reads_of_a_realm_behind_the_newest_commit)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
