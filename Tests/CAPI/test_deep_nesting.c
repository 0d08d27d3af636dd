/*
 * Nested collections 100,000 levels deep through the C API (fief.h: "they
 * nest to any depth"): building them, reading to the bottom, a query path
 * to the bottom, deleting a linked object at the bottom, replacing the
 * mixed value, deleting the owner, clearing the collection around them,
 * fief_file_verify, fief_file_copy (and reading the copy) and a frozen
 * realm.  Every walk the library makes over nested collections must use a
 * worklist, not recursion: each test runs on the main thread (8 MB stack)
 * or on a thread with a 512 KB stack, as many hosts give threads.
 */
#include "fief_test.h"

#include <pthread.h>
#include <stdlib.h>

#define DEPTH 100000
#define SMALL_STACK (512 * 1024)

/* A check in a scenario that may run on another thread (R would longjmp
 * across threads): on failure the scenario stops. */
#define NEED(expr)                                                                 \
    do {                                                                           \
        if (!(expr)) {                                                             \
            t_fail(__FILE__, __LINE__, #expr, "(required; scenario stopped)");     \
            return false;                                                          \
        }                                                                          \
    } while (0)

/* Dog(name); Box(label: string, anyValue: mixed, items: list<mixed>). */
static fief_schema_t *deep_schema(void) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 1;
    classes[1].name = "Box";
    classes[1].num_properties = 3;
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t box[3] = {t_prop_info("label", FIEF_TYPE_STRING, 0),
                                   t_prop_info("anyValue", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("items", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    box[2].collection_type = FIEF_COLLECTION_LIST;
    const fief_property_info_t *props[2] = {dog, box};
    return fief_schema_new(classes, 2, props);
}

typedef struct deep_realm {
    fief_realm_t *realm;
    fief_class_key_t dog_class, box_class;
    fief_property_key_t label, any, items;
} deep_realm;

static bool open_deep(deep_realm *d, const char *path) {
    fief_schema_t *schema = deep_schema();
    NEED(schema != NULL);
    d->realm = t_open(path, schema, 0);
    fief_release(schema);
    NEED(d->realm != NULL);
    d->dog_class = t_class(d->realm, "Dog");
    d->box_class = t_class(d->realm, "Box");
    d->label = t_prop(d->realm, "Box", "label");
    d->any = t_prop(d->realm, "Box", "anyValue");
    d->items = t_prop(d->realm, "Box", "items");
    return true;
}

/* The Box labelled `label`, or NULL. */
static fief_object_t *box_labelled(deep_realm *d, const char *label) {
    fief_results_t *all = fief_realm_get_objects(d->realm, d->box_class);
    if (!all) return NULL;
    fief_value_t wanted = vs(label);
    fief_query_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.count = 1;
    arg.values = &wanted;
    fief_results_t *found = fief_results_filter(all, "label == $0", &arg, 1);
    fief_object_t *box = found ? fief_results_get_object(found, 0) : NULL;
    fief_release(found);
    fief_release(all);
    return box;
}

/* Below `top` (a nested list, released here), DEPTH - 1 more lists, each
 * the only element of the one above; the last gets `bottom` (n values).
 * Returns the deepest list (the caller releases it). */
static fief_list_t *build_list_chain(fief_list_t *top, const fief_value_t *bottom, size_t n) {
    fief_list_t *list = top;
    for (int level = 1; level < DEPTH && list; level++) {
        fief_list_t *below = NULL;
        if (fief_list_append(list, (fief_value_t[]){vtype(FIEF_TYPE_LIST)}, 1)) below = fief_list_get_list(list, 0);
        fief_release(list);
        list = below;
    }
    if (list && !fief_list_append(list, bottom, n)) {
        fief_release(list);
        list = NULL;
    }
    return list;
}

/* Alternating from the dictionary `top` (released here): "k" holds a list,
 * whose one element is a dictionary, and so on, DEPTH collections in all;
 * the last (a list) holds `bottom`. */
static bool build_alternating(fief_map_t *top, fief_value_t bottom) {
    fief_map_t *map = top;
    fief_list_t *list = NULL;
    for (int level = 1; level < DEPTH; level++) {
        bool to_list = level % 2 == 1;
        if (to_list) {
            if (!map || !fief_map_set(map, t_str("k"), vtype(FIEF_TYPE_LIST))) break;
            list = fief_map_get_list(map, t_str("k"));
            fief_release(map);
            map = NULL;
        } else {
            if (!list || !fief_list_append(list, (fief_value_t[]){vtype(FIEF_TYPE_MAP)}, 1)) break;
            map = fief_list_get_map(list, 0);
            fief_release(list);
            list = NULL;
        }
    }
    /* DEPTH is even: the deepest collection is a list. */
    bool ok = list != NULL && map == NULL && fief_list_append(list, &bottom, 1);
    fief_release(list);
    fief_release(map);
    return ok;
}

/* Read from `top` (a nested list, released here) down the one-element lists
 * to the deepest, DEPTH levels in all, and return it. */
static fief_list_t *read_list_chain(fief_list_t *top) {
    fief_list_t *list = top;
    for (int level = 1; level < DEPTH && list; level++) {
        fief_value_t v;
        size_t size = 0;
        fief_list_t *below = NULL;
        if (fief_list_count(list, &size) && size == 1 && fief_list_get(list, 0, &v) && v.type == FIEF_TYPE_LIST) {
            below = fief_list_get_list(list, 0);
        } else {
            char d[96];
            snprintf(d, sizeof d, "(level %d is not a list holding one list)", level);
            t_fail(__FILE__, __LINE__, "read_list_chain", d);
        }
        fief_release(list);
        list = below;
    }
    return list;
}

/* Read the alternating chain under box's mixed property to the bottom:
 * true when the deepest list holds exactly `bottom`. */
static bool read_alternating(deep_realm *d, fief_object_t *box, fief_value_t bottom) {
    fief_map_t *map = fief_object_get_map(box, d->any);
    fief_list_t *list = NULL;
    for (int level = 1; level < DEPTH; level++) {
        if (level % 2 == 1) {
            NEED(map != NULL);
            list = fief_map_get_list(map, t_str("k"));
            fief_release(map);
            map = NULL;
        } else {
            NEED(list != NULL);
            map = fief_list_get_map(list, 0);
            fief_release(list);
            list = NULL;
        }
    }
    NEED(list != NULL);
    size_t size = 0;
    fief_value_t v;
    bool ok = fief_list_count(list, &size) && size == 1 && fief_list_get(list, 0, &v) && t_value_eq(v, bottom);
    fief_release(list);
    NEED(ok);
    return true;
}

/* The deepest list of box's deep list chain holds 42 and then `dogs` links
 * (of `dog`). */
static bool bottom_holds(fief_list_t *bottom, fief_value_t dog, size_t dogs) {
    size_t size = 0;
    NEED(fief_list_count(bottom, &size));
    EQU(size, 1 + dogs);
    fief_value_t v;
    NEED(fief_list_get(bottom, 0, &v));
    EQV(v, vi(42));
    if (dogs) {
        NEED(fief_list_get(bottom, 1, &v));
        EQV(v, dog);
    }
    return true;
}

static bool read_box_to_bottom(deep_realm *d, fief_object_t *box, fief_value_t dog, size_t dogs) {
    fief_list_t *bottom = read_list_chain(fief_object_get_list(box, d->any));
    NEED(bottom != NULL);
    bool ok = bottom_holds(bottom, dog, dogs);
    fief_release(bottom);
    return ok;
}

/* The number of Boxes `predicate` matches. */
static size_t matching(deep_realm *d, const char *predicate) {
    fief_results_t *all = fief_realm_get_objects(d->realm, d->box_class);
    fief_results_t *found = all ? fief_results_filter(all, predicate, NULL, 0) : NULL;
    size_t count = SIZE_MAX;
    if (!found || !fief_results_count(found, &count)) {
        fief_error_t e;
        char detail[300];
        snprintf(detail, sizeof detail, "(filter failed: %.250s)", fief_get_last_error(&e) ? e.message : "?");
        t_fail(__FILE__, __LINE__, "matching", detail);
    }
    fief_release(found);
    fief_release(all);
    return count;
}

/* `predicate`'s description (as fief_results_get_description gives it)
 * filters the same Boxes again: true when it does. */
static bool description_filters_the_same(deep_realm *d, const char *predicate) {
    fief_results_t *all = fief_realm_get_objects(d->realm, d->box_class);
    NEED(all != NULL);
    fief_results_t *found = fief_results_filter(all, predicate, NULL, 0);
    NEED(found != NULL);
    const char *text = fief_results_get_description(found);
    NEED(text != NULL);
    fief_results_t *again = fief_results_filter(all, text, NULL, 0);
    NEED(again != NULL);
    size_t first = 0, second = 1;
    NEED(fief_results_count(found, &first) && fief_results_count(again, &second));
    EQU(first, second);
    fief_release(again);
    fief_release(found);
    fief_release(all);
    return first == second;
}

/* "anyValue" and `steps` times `step`, then `tail`. */
static char *deep_path(const char *step, int steps, const char *tail) {
    size_t step_length = strlen(step);
    char *text = malloc(strlen("anyValue") + step_length * (size_t)steps + strlen(tail) + 1);
    if (!text) return NULL;
    char *at = text;
    memcpy(at, "anyValue", 8);
    at += 8;
    for (int i = 0; i < steps; i++, at += step_length) memcpy(at, step, step_length);
    strcpy(at, tail);
    return text;
}

static void count_problems(void *userdata, fief_report_kind_t kind, const char *text) {
    (void)text;
    if (kind == FIEF_REPORT_PROBLEM) ++*(size_t *)userdata;
}

static bool file_is_sound(const char *path) {
    size_t problems = SIZE_MAX, reported = 0;
    NEED(fief_file_verify(path, count_problems, &reported, &problems));
    EQU(problems, 0);
    EQU(reported, 0);
    return problems == 0;
}

/* The whole story on the calling thread, in files named after `name`. */
static bool deep_story(const char *name) {
    char file[64], copy[64];
    snprintf(file, sizeof file, "%s.fief", name);
    snprintf(copy, sizeof copy, "%s-copy.fief", name);
    const char *path = t_path(file);
    const char *copy_path = t_path(copy);
    deep_realm d;
    NEED(open_deep(&d, path));
    fief_realm_t *r = d.realm;

    /* Build: lists in lists (with a linked Dog at the bottom) in "lists",
     * "replaced" and "owner"; dictionaries and lists alternating in
     * "alternating"; lists in lists in the list property of "cleared". */
    NEED(fief_realm_begin_write(r));
    fief_property_key_t dog_name = t_prop(r, "Dog", "name");
    fief_object_t *dog = fief_object_create(r, d.dog_class, &dog_name, (fief_value_t[]){vs("Rex")}, 1, FIEF_UPDATE_POLICY_ERROR);
    NEED(dog != NULL);
    fief_object_key_t dog_key = 0;
    NEED(fief_object_get_key(dog, &dog_key));
    fief_value_t dog_link = vlink(d.dog_class, dog_key);
    const char *chains[] = {"lists", "replaced", "owner"};
    for (size_t i = 0; i < 3; i++) {
        fief_property_key_t keys[2] = {d.label, d.any};
        fief_object_t *box = fief_object_create(r, d.box_class, keys, (fief_value_t[]){vs(chains[i]), vtype(FIEF_TYPE_LIST)}, 2,
                                                FIEF_UPDATE_POLICY_ERROR);
        NEED(box != NULL);
        fief_list_t *bottom = build_list_chain(fief_object_get_list(box, d.any), (fief_value_t[]){vi(42), dog_link}, 2);
        NEED(bottom != NULL);
        fief_release(bottom);
        fief_release(box);
    }
    {
        fief_property_key_t keys[2] = {d.label, d.any};
        fief_object_t *box = fief_object_create(r, d.box_class, keys, (fief_value_t[]){vs("alternating"), vtype(FIEF_TYPE_MAP)}, 2,
                                                FIEF_UPDATE_POLICY_ERROR);
        NEED(box != NULL);
        NEED(build_alternating(fief_object_get_map(box, d.any), vs("bottom")));
        fief_release(box);
    }
    {
        fief_object_t *box = fief_object_create(r, d.box_class, &d.label, (fief_value_t[]){vs("cleared")}, 1, FIEF_UPDATE_POLICY_ERROR);
        NEED(box != NULL);
        fief_list_t *items = fief_object_get_list(box, d.items);
        NEED(items != NULL);
        NEED(fief_list_append(items, (fief_value_t[]){vtype(FIEF_TYPE_LIST)}, 1));
        fief_list_t *bottom = build_list_chain(fief_list_get_list(items, 0), (fief_value_t[]){vi(42), dog_link}, 2);
        NEED(bottom != NULL);
        fief_release(bottom);
        fief_release(items);
        fief_release(box);
    }
    NEED(fief_realm_commit(r));

    /* Read back to the bottom. */
    fief_object_t *lists = box_labelled(&d, "lists");
    fief_object_t *replaced = box_labelled(&d, "replaced");
    fief_object_t *owner = box_labelled(&d, "owner");
    fief_object_t *alternating = box_labelled(&d, "alternating");
    fief_object_t *cleared = box_labelled(&d, "cleared");
    NEED(lists && replaced && owner && alternating && cleared);
    NEED(read_box_to_bottom(&d, lists, dog_link, 1));
    NEED(read_alternating(&d, alternating, vs("bottom")));

    /* Queries: a path to the bottom, and one into the top levels. */
    char *to_bottom = deep_path("[0]", DEPTH, " == 42");
    NEED(to_bottom != NULL);
    EQU(matching(&d, to_bottom), 3);
    E(description_filters_the_same(&d, to_bottom));
    free(to_bottom);
    char *alternating_bottom = malloc((size_t)DEPTH * 4 + 32);
    NEED(alternating_bottom != NULL);
    strcpy(alternating_bottom, "anyValue");
    char *at = alternating_bottom + strlen(alternating_bottom);
    for (int level = 1; level < DEPTH; level++) {
        const char *step = level % 2 == 1 ? ".k" : "[0]";
        strcpy(at, step);
        at += strlen(step);
    }
    strcpy(at, "[0] == 'bottom'");
    EQU(matching(&d, alternating_bottom), 1);
    free(alternating_bottom);
    EQU(matching(&d, "anyValue[0][0][0].@type == 'list' AND anyValue[0][0][0].@size == 1"), 3);
    EQU(matching(&d, "anyValue.k[0].k.@type == 'list' AND anyValue.k[0].k[0].@type == 'dictionary'"), 1);
    char *many = deep_path("[*]", DEPTH, " == 42");
    NEED(many != NULL);
    EQU(matching(&d, many), 3);
    free(many);

    /* Verify, copy and read the copy to the bottom. */
    NEED(file_is_sound(path));
    size_t problems = SIZE_MAX;
    NEED(fief_file_copy(path, copy_path, NULL, NULL, &problems));
    EQU(problems, 0);
    NEED(file_is_sound(copy_path));
    {
        deep_realm c;
        NEED(open_deep(&c, copy_path));
        fief_object_t *copied = box_labelled(&c, "replaced");
        NEED(copied != NULL);
        NEED(read_box_to_bottom(&c, copied, dog_link, 1));
        fief_object_t *copied_alternating = box_labelled(&c, "alternating");
        NEED(copied_alternating != NULL);
        NEED(read_alternating(&c, copied_alternating, vs("bottom")));
        fief_release(copied_alternating);
        fief_release(copied);
        NEED(fief_realm_close(c.realm));
        fief_release(c.realm);
    }

    /* A frozen realm reads to the bottom, and keeps reading after the
     * deletions below. */
    fief_realm_t *frozen = fief_realm_freeze(r);
    NEED(frozen != NULL);
    fief_object_t *frozen_owner = NULL;
    NEED(fief_object_resolve_in(owner, frozen, &frozen_owner) && frozen_owner != NULL);
    NEED(read_box_to_bottom(&d, frozen_owner, dog_link, 1));

    /* Handles to the deepest lists, to see them go. */
    fief_list_t *replaced_bottom = read_list_chain(fief_object_get_list(replaced, d.any));
    fief_list_t *owner_bottom = read_list_chain(fief_object_get_list(owner, d.any));
    fief_list_t *items = fief_object_get_list(cleared, d.items);
    NEED(items != NULL);
    fief_list_t *cleared_bottom = read_list_chain(fief_list_get_list(items, 0));
    NEED(replaced_bottom && owner_bottom && cleared_bottom);

    NEED(fief_realm_begin_write(r));
    /* Deleting the Dog takes it out of every deepest list. */
    NEED(fief_object_delete(dog));
    NEED(bottom_holds(replaced_bottom, dog_link, 0));
    NEED(bottom_holds(cleared_bottom, dog_link, 0));
    /* Replacing the mixed value frees every level. */
    NEED(fief_object_set_value(replaced, d.any, vi(1)));
    E(!fief_list_is_valid(replaced_bottom));
    /* Deleting the owner frees every level. */
    NEED(fief_object_delete(owner));
    E(!fief_list_is_valid(owner_bottom));
    /* Clearing the list around them frees every level. */
    NEED(fief_list_clear(items));
    E(!fief_list_is_valid(cleared_bottom));
    /* Deleting the object holding the alternating chain frees it too. */
    NEED(fief_object_delete(alternating));
    NEED(fief_realm_commit(r));

    EQU(matching(&d, "anyValue[0][0][0].@type == 'list'"), 1);
    NEED(read_box_to_bottom(&d, lists, dog_link, 0));
    NEED(file_is_sound(path));
    /* The frozen version still has everything. */
    NEED(read_box_to_bottom(&d, frozen_owner, dog_link, 1));

    fief_release(replaced_bottom);
    fief_release(owner_bottom);
    fief_release(cleared_bottom);
    fief_release(items);
    fief_release(frozen_owner);
    fief_release(frozen);
    fief_release(dog);
    fief_release(lists);
    fief_release(replaced);
    fief_release(owner);
    fief_release(alternating);
    fief_release(cleared);
    NEED(fief_realm_close(r));
    fief_release(r);
    return true;
}

TEST(deep_nesting_on_the_main_thread) {
    double start = t_now();
    E(deep_story("main"));
    printf("  %d levels on the main thread: %.1f s\n", DEPTH, t_now() - start);
}

static void *story_thread(void *arg) {
    (void)arg;
    (void)deep_story("small-stack");
    return NULL;
}

TEST(deep_nesting_on_a_512k_thread) {
    pthread_attr_t attr;
    R(pthread_attr_init(&attr) == 0);
    R(pthread_attr_setstacksize(&attr, SMALL_STACK) == 0);
    pthread_t thread;
    double start = t_now();
    R(pthread_create(&thread, &attr, story_thread, NULL) == 0);
    R(pthread_join(thread, NULL) == 0);
    pthread_attr_destroy(&attr);
    printf("  %d levels on a thread with a %d KB stack: %.1f s\n", DEPTH, SMALL_STACK / 1024, t_now() - start);
}

static const t_case cases[] = {T(deep_nesting_on_the_main_thread), T(deep_nesting_on_a_512k_thread)};
int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
