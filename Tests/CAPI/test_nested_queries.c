/* Queries into the lists and dictionaries nested in mixed values through
 * fief_results_filter: positions, keys (bracketed and dotted), [FIRST],
 * [LAST], [*], @keys, @size / @count / [SIZE], @type, ANY / ALL / NONE, IN
 * and lists, arguments as positions and keys, paths through lists and maps
 * of mixed values and through links; a path meeting a scalar or a missing
 * key reaches nothing (no match, no error); descriptions that parse back;
 * and the forms Realm refuses.  Then maps of links: '@count' after a key
 * (the map's entries, as realm-core counts them), element by element
 * against a list (null values included), and '@count' after a position of
 * a list of links, refused. */
#include "fief_test.h"

/* Box(name, mixed, items: list<mixed>, props: map<mixed>);
 * Dog(name); Person(name, box -> Box, boxes: list<Box>, dogs: list<Dog>, dogMap: map<Dog?>). */
static fief_realm_t *R_;
static fief_property_key_t BOX_NAME, PERSON_NAME;

static fief_schema_t *schema(void) {
    fief_class_info_t c[3];
    memset(c, 0, sizeof c);
    c[0].name = "Box";
    c[0].num_properties = 4;
    c[1].name = "Dog";
    c[1].num_properties = 1;
    c[2].name = "Person";
    c[2].num_properties = 5;
    fief_property_info_t box[4] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("mixed", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("items", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("props", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    box[2].collection_type = FIEF_COLLECTION_LIST;
    box[3].collection_type = FIEF_COLLECTION_MAP;
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t person[5] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("box", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
                                      t_prop_info("boxes", FIEF_TYPE_LINK, 0), t_prop_info("dogs", FIEF_TYPE_LINK, 0),
                                      t_prop_info("dogMap", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE)};
    person[1].link_target = "Box";
    person[2].link_target = "Box";
    person[2].collection_type = FIEF_COLLECTION_LIST;
    person[3].link_target = "Dog";
    person[3].collection_type = FIEF_COLLECTION_LIST;
    person[4].link_target = "Dog";
    person[4].collection_type = FIEF_COLLECTION_MAP;
    const fief_property_info_t *pp[3] = {box, dog, person};
    return fief_schema_new(c, 3, pp);
}

static fief_object_t *create_named(const char *cls, const char *name) {
    fief_property_key_t key = t_prop(R_, cls, "name");
    fief_value_t value = vs(name);
    return fief_object_create(R_, t_class(R_, cls), &key, &value, 1, FIEF_UPDATE_POLICY_ERROR);
}

/* The data:
 *   list:   mixed [5, 7, "x", [1, 2]], items [{"k": 1}, [1, 2, 3]]
 *   dict:   mixed {"key": "x", "n": 3, "inner": {"b": [1, 9, 2]}}, props {"a": {"x": 2}}
 *   scalar: mixed 5
 *   none:   mixed null
 *   ann: box list, boxes [list, scalar], dogs [rex], dogMap {"a": rex, "b": null}
 *   bob: box dict, boxes [dict], dogMap {"a": fido}
 *   cy:  nothing */
static void setup(void) {
    fief_schema_t *s = schema();
    R(s);
    R_ = t_open(t_path("nested_queries.fief"), s, 0);
    fief_release(s);
    R(R_);
    BOX_NAME = t_prop(R_, "Box", "name");
    PERSON_NAME = t_prop(R_, "Person", "name");
    fief_property_key_t mixed = t_prop(R_, "Box", "mixed"), items = t_prop(R_, "Box", "items"), props = t_prop(R_, "Box", "props");
    R(fief_realm_begin_write(R_));

    fief_object_t *list_box = create_named("Box", "list");
    R(list_box);
    E(fief_object_set_value(list_box, mixed, vtype(FIEF_TYPE_LIST)));
    fief_list_t *l = fief_object_get_list(list_box, mixed);
    R(l);
    E(fief_list_append(l, (fief_value_t[]){vi(5), vi(7), vs("x"), vtype(FIEF_TYPE_LIST)}, 4));
    fief_list_t *inner = fief_list_get_list(l, 3);
    R(inner);
    E(fief_list_append(inner, (fief_value_t[]){vi(1), vi(2)}, 2));
    fief_release(inner);
    fief_release(l);
    fief_list_t *its = fief_object_get_list(list_box, items);
    R(its);
    E(fief_list_append(its, (fief_value_t[]){vtype(FIEF_TYPE_MAP), vtype(FIEF_TYPE_LIST)}, 2));
    fief_map_t *k = fief_list_get_map(its, 0);
    R(k);
    E(fief_map_set(k, t_str("k"), vi(1)));
    fief_release(k);
    fief_list_t *three = fief_list_get_list(its, 1);
    R(three);
    E(fief_list_append(three, (fief_value_t[]){vi(1), vi(2), vi(3)}, 3));
    fief_release(three);
    fief_release(its);

    fief_object_t *dict_box = create_named("Box", "dict");
    R(dict_box);
    E(fief_object_set_value(dict_box, mixed, vtype(FIEF_TYPE_MAP)));
    fief_map_t *d = fief_object_get_map(dict_box, mixed);
    R(d);
    E(fief_map_set(d, t_str("key"), vs("x")));
    E(fief_map_set(d, t_str("n"), vi(3)));
    E(fief_map_set(d, t_str("inner"), vtype(FIEF_TYPE_MAP)));
    fief_map_t *in = fief_map_get_map(d, t_str("inner"));
    R(in);
    E(fief_map_set(in, t_str("b"), vtype(FIEF_TYPE_LIST)));
    fief_list_t *b = fief_map_get_list(in, t_str("b"));
    R(b);
    E(fief_list_append(b, (fief_value_t[]){vi(1), vi(9), vi(2)}, 3));
    fief_release(b);
    fief_release(in);
    fief_release(d);
    fief_map_t *p = fief_object_get_map(dict_box, props);
    R(p);
    E(fief_map_set(p, t_str("a"), vtype(FIEF_TYPE_MAP)));
    fief_map_t *a = fief_map_get_map(p, t_str("a"));
    R(a);
    E(fief_map_set(a, t_str("x"), vi(2)));
    fief_release(a);
    fief_release(p);

    fief_object_t *scalar_box = create_named("Box", "scalar");
    R(scalar_box);
    E(fief_object_set_value(scalar_box, mixed, vi(5)));
    fief_object_t *none_box = create_named("Box", "none");
    R(none_box);

    fief_object_key_t list_key, dict_key, scalar_key;
    E(fief_object_get_key(list_box, &list_key));
    E(fief_object_get_key(dict_box, &dict_key));
    E(fief_object_get_key(scalar_box, &scalar_key));
    fief_class_key_t box_class = t_class(R_, "Box"), dog_class = t_class(R_, "Dog");
    fief_object_t *rex = create_named("Dog", "rex"), *fido = create_named("Dog", "fido");
    R(rex && fido);
    fief_object_key_t rex_key, fido_key;
    E(fief_object_get_key(rex, &rex_key));
    E(fief_object_get_key(fido, &fido_key));
    fief_object_t *ann = create_named("Person", "ann"), *bob = create_named("Person", "bob"), *cy = create_named("Person", "cy");
    R(ann && bob && cy);
    E(fief_object_set_value(ann, t_prop(R_, "Person", "box"), vlink(box_class, list_key)));
    E(fief_object_set_value(bob, t_prop(R_, "Person", "box"), vlink(box_class, dict_key)));
    fief_list_t *ann_boxes = fief_object_get_list(ann, t_prop(R_, "Person", "boxes"));
    fief_list_t *bob_boxes = fief_object_get_list(bob, t_prop(R_, "Person", "boxes"));
    fief_list_t *ann_dogs = fief_object_get_list(ann, t_prop(R_, "Person", "dogs"));
    R(ann_boxes && bob_boxes && ann_dogs);
    E(fief_list_append(ann_boxes, (fief_value_t[]){vlink(box_class, list_key), vlink(box_class, scalar_key)}, 2));
    E(fief_list_append(bob_boxes, (fief_value_t[]){vlink(box_class, dict_key)}, 1));
    E(fief_list_append(ann_dogs, (fief_value_t[]){vlink(dog_class, rex_key)}, 1));
    fief_map_t *ann_map = fief_object_get_map(ann, t_prop(R_, "Person", "dogMap"));
    fief_map_t *bob_map = fief_object_get_map(bob, t_prop(R_, "Person", "dogMap"));
    R(ann_map && bob_map);
    E(fief_map_set(ann_map, t_str("a"), vlink(dog_class, rex_key)));
    E(fief_map_set(ann_map, t_str("b"), vnull()));
    E(fief_map_set(bob_map, t_str("a"), vlink(dog_class, fido_key)));
    R(fief_realm_commit(R_));

    fief_release(ann_map);
    fief_release(bob_map);
    fief_release(ann_boxes);
    fief_release(bob_boxes);
    fief_release(ann_dogs);
    fief_release(ann);
    fief_release(bob);
    fief_release(cy);
    fief_release(rex);
    fief_release(fido);
    fief_release(list_box);
    fief_release(dict_box);
    fief_release(scalar_box);
    fief_release(none_box);
}

static void teardown(void) {
    fief_release(R_);
    R_ = NULL;
}

/* The names of `res`'s objects, in order, joined by ','. */
static const char *names(const fief_results_t *res, fief_property_key_t name) { return t_result_strings(res, name); }

/* `pred` over class `cls` matches `expected` (names in key order); its
 * description filters the same objects. */
static void q(const char *file, int line, const char *cls, const char *pred, const fief_query_arg_t *args, size_t nargs, const char *expected) {
    fief_property_key_t name = strcmp(cls, "Box") == 0 ? BOX_NAME : PERSON_NAME;
    fief_results_t *all = fief_realm_get_objects(R_, t_class(R_, cls));
    fief_results_t *res = fief_results_filter(all, pred, args, nargs);
    if (!res) {
        fief_error_t e;
        char d[400];
        snprintf(d, sizeof d, "(filter failed: %s)", fief_get_last_error(&e) ? e.message : "?");
        t_fail(file, line, pred, d);
        fief_release(all);
        return;
    }
    char got[256];
    snprintf(got, sizeof got, "%s", names(res, name));
    if (strcmp(got, expected) != 0) {
        char d[600];
        snprintf(d, sizeof d, "(names [%s], expected [%s])", got, expected);
        t_fail(file, line, pred, d);
    }
    const char *text = fief_results_get_description(res);
    if (!text) {
        t_fail(file, line, pred, "(no description)");
    } else {
        fief_results_t *again = fief_results_filter(all, text, NULL, 0);
        if (!again || strcmp(names(again, name), got) != 0) t_fail(file, line, text, "(the description filters other objects)");
        fief_release(again);
    }
    fief_release(res);
    fief_release(all);
}
#define Q(cls, pred, expected) q(__FILE__, __LINE__, cls, pred, NULL, 0, expected)
#define QA(cls, pred, args, expected) q(__FILE__, __LINE__, cls, pred, args, sizeof args / sizeof args[0], expected)

static fief_results_t *filter(const char *cls, const char *pred, const fief_query_arg_t *args, size_t nargs) {
    fief_results_t *all = fief_realm_get_objects(R_, t_class(R_, cls));
    fief_results_t *res = fief_results_filter(all, pred, args, nargs);
    fief_release(all);
    return res;
}

TEST(steps_into_nested_values) {
    setup();
    Q("Box", "mixed[0] == 5", "list");
    Q("Box", "mixed[FIRST] == 5", "list");
    Q("Box", "mixed[LAST][1] == 2", "list");
    Q("Box", "mixed['key'] == 'x'", "dict");
    Q("Box", "mixed.key == 'x'", "dict");
    Q("Box", "mixed['inner']['b'][1] > 3", "dict");
    Q("Box", "mixed.inner.b[LAST] == 2", "dict");
    Q("Box", "mixed[*] == 'x'", "list,dict");
    Q("Box", "mixed.@keys == 'inner'", "dict");
    Q("Box", "mixed.@allKeys == 'inner'", "dict"); /* NSPredicate's name for @keys */
    /* A path meeting a scalar, null, a missing position: nothing, never an error; a missing key at the end: null. */
    Q("Box", "mixed[0][0] == 1", "");
    Q("Box", "mixed[9] == nil", "");
    Q("Box", "mixed['missing'] == nil", "dict");
    Q("Box", "mixed.missing.deeper == nil", "");
    /* Quantifiers, lists given with the query. */
    Q("Box", "ANY mixed[*] == 7", "list");
    Q("Box", "ALL mixed[*] == 5", "scalar,none");
    Q("Box", "NONE mixed[*] == 5", "dict,scalar,none");
    Q("Box", "mixed[0] IN {4, 5}", "list");
    Q("Box", "mixed[*] == {5, 7, 'x'}", "");
    Q("Box", "mixed['inner']['b'][*] == {1, 9, 2}", "dict");
    Q("Box", "mixed[*] BEGINSWITH[c] 'X'", "list,dict");
    Q("Box", "mixed[0] * 2 == 10", "list");
    Q("Box", "mixed[0] BETWEEN {4, 6}", "list");
    /* Sizes and types. */
    Q("Box", "mixed[SIZE] == 4", "list");
    Q("Box", "mixed.@size == 3", "dict");
    Q("Box", "mixed.@count == nil", "scalar,none");
    Q("Box", "mixed[3].@size == 2", "list");
    Q("Box", "mixed.@type == 'list'", "list");
    Q("Box", "mixed.@type == 'dictionary'", "dict");
    Q("Box", "mixed[3].@type == 'collection'", "list");
    Q("Box", "mixed.inner.@type == 'object'", "dict");
    /* Through a list and a map of mixed values. */
    Q("Box", "items[0].k == 1", "list");
    Q("Box", "items[1][*] == {1, 2, 3}", "list");
    Q("Box", "2 IN items[1][*]", "list");
    Q("Box", "props.a.x == 2", "dict");
    Q("Box", "props['a'][*] == 2", "dict");
    /* Through links. */
    Q("Person", "box.mixed[0] == 5", "ann");
    Q("Person", "boxes.mixed.key == 'x'", "bob");
    Q("Person", "ALL boxes.mixed[*] == 5", "ann,cy");
    /* Arguments: a position, a key, a value. */
    fief_value_t a1[2] = {vs("n"), vi(3)};
    fief_query_arg_t qa1[2] = {{1, false, &a1[0]}, {1, false, &a1[1]}};
    QA("Box", "mixed[$0] == $1", qa1, "dict");
    fief_value_t a2[2] = {vi(1), vi(7)};
    fief_query_arg_t qa2[2] = {{1, false, &a2[0]}, {1, false, &a2[1]}};
    QA("Box", "mixed[%@] == %@", qa2, "list");
    teardown();
}

TEST(descriptions_and_liveness) {
    setup();
    struct { const char *pred; const char *text; } cases[] = {
        {"mixed['a']['b'][1] > 3", "mixed['a']['b'][1] > 3"},
        {"mixed.key == 'x'", "mixed.key == 'x'"},
        {"ANY mixed[*] == 1", "ANY mixed[*] == 1"},
        {"mixed[FIRST] == mixed[LAST]", "mixed[FIRST] == mixed[LAST]"},
        {"mixed[SIZE] > 2", "mixed.@count > 2"},
        {"mixed.@size > 2", "mixed.@count > 2"},
        {"mixed[0].@type == 'list'", "mixed[0].@type == 'list'"},
        {"items[0]['k'] == 1", "items[0]['k'] == 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fief_results_t *res = filter("Box", cases[i].pred, NULL, 0);
        R(res);
        const char *text = fief_results_get_description(res);
        R(text);
        if (strcmp(text, cases[i].text) != 0) t_fail(__FILE__, __LINE__, cases[i].pred, text);
        fief_release(res);
    }
    fief_value_t a[2] = {vs("n"), vi(3)};
    fief_query_arg_t qa[2] = {{1, false, &a[0]}, {1, false, &a[1]}};
    fief_results_t *res = filter("Box", "mixed[$0] == $1", qa, 2);
    R(res);
    const char *text = fief_results_get_description(res);
    R(text);
    if (strcmp(text, "mixed['n'] == 3") != 0) t_fail(__FILE__, __LINE__, "mixed[$0] == $1", text);
    /* Live: a change deep inside a nested collection changes the results. */
    fief_results_t *deep = filter("Box", "mixed.inner.b[*] == 42", NULL, 0);
    R(deep);
    EQU(t_count(deep), 0);
    fief_results_t *dicts = filter("Box", "name == 'dict'", NULL, 0);
    R(dicts);
    fief_object_t *dict_box = fief_results_get_object(dicts, 0);
    R(dict_box);
    fief_map_t *d = fief_object_get_map(dict_box, t_prop(R_, "Box", "mixed"));
    R(d);
    fief_map_t *in = fief_map_get_map(d, t_str("inner"));
    R(in);
    fief_list_t *b = fief_map_get_list(in, t_str("b"));
    R(b);
    R(fief_realm_begin_write(R_));
    E(fief_list_append(b, (fief_value_t[]){vi(42)}, 1));
    R(fief_realm_commit(R_));
    EQU(t_count(deep), 1);
    fief_release(b);
    fief_release(in);
    fief_release(d);
    fief_release(dict_box);
    fief_release(dicts);
    fief_release(deep);
    fief_release(res);
    teardown();
}

TEST(nested_forms_refused) {
    setup();
    EERRM(filter("Box", "5 IN mixed[*]", NULL, 0), FIEF_ERR_QUERY_INVALID, "ANY mixed[*] == x");
    EERRM(filter("Box", "mixed['a'].@max > 1", NULL, 0), FIEF_ERR_QUERY_INVALID, "does not allow '@max'");
    EERRM(filter("Box", "mixed.@keys.x == 1", NULL, 0), FIEF_ERR_QUERY_INVALID, "nothing can follow '@keys'");
    EERRM(filter("Box", "name[0] == 'a'", NULL, 0), FIEF_ERR_QUERY_INVALID, "not a link or a mixed value");
    EERRM(filter("Box", "ALL mixed.@size > 1", NULL, 0), FIEF_ERR_QUERY_INVALID, "ALL applies to a key path");
    EERRM(filter("Box", "mixed[0].@type > 'int'", NULL, 0), FIEF_ERR_QUERY_INVALID, "== and != only");
    EERRM(filter("Box", "items[0][*] == props.a[*]", NULL, 0), FIEF_ERR_QUERY_INVALID, "two collections of values");
    fief_value_t bad = vb(true);
    fief_query_arg_t qbad = {1, false, &bad};
    EERRM(filter("Box", "mixed[$0] == 1", &qbad, 1), FIEF_ERR_QUERY_ARGUMENT, "argument 0 is a bool");
    teardown();
}

TEST(maps_and_lists_of_links) {
    setup();
    /* '@count' after a key of a map of links: the map's entries (the key does not narrow it), as realm-core counts. */
    Q("Person", "dogMap['a'].@count == 2", "ann");
    Q("Person", "dogMap.b.@count == 1", "bob");
    Q("Person", "dogMap['zz'].@size == 0", "cy");
    /* A map of links against a list, element by element: its values in key order, null ones included. */
    fief_results_t *rex_res = filter("Dog", "name == 'rex'", NULL, 0);
    fief_results_t *fido_res = filter("Dog", "name == 'fido'", NULL, 0);
    R(rex_res && fido_res);
    fief_object_t *rex = fief_results_get_object(rex_res, 0), *fido = fief_results_get_object(fido_res, 0);
    R(rex && fido);
    fief_object_key_t rex_key, fido_key;
    E(fief_object_get_key(rex, &rex_key));
    E(fief_object_get_key(fido, &fido_key));
    fief_class_key_t dog = t_class(R_, "Dog");
    fief_value_t one[1] = {vlink(dog, rex_key)};
    fief_query_arg_t qone = {1, false, one};
    QA("Person", "dogMap == {$0, nil}", (fief_query_arg_t[]){qone}, "ann");
    QA("Person", "dogMap == {nil, $0}", (fief_query_arg_t[]){qone}, "");
    fief_value_t list[1] = {vlink(dog, fido_key)};
    fief_query_arg_t qlist = {1, true, list};
    QA("Person", "dogMap == $0", (fief_query_arg_t[]){qlist}, "bob");
    QA("Person", "dogMap.@values != $0", (fief_query_arg_t[]){qlist}, "ann,cy");
    Q("Person", "dogMap == {}", "cy");
    /* '@count' after a position of a list of links: refused, as realm-core refuses the position. */
    EERRM(filter("Person", "dogs[0].@count == 1", NULL, 0), FIEF_ERR_QUERY_INVALID, "does not support index '[0]'");
    fief_release(rex);
    fief_release(fido);
    fief_release(rex_res);
    fief_release(fido_res);
    teardown();
}

/* A path into a mixed property against a list property: realm-core refuses
 * a comparison of two ColumnListBase expressions only (list, set and map
 * properties, paths into lists and maps of mixed values), so
 * "mixed[*] == ints" is accepted and compares as two lists: element by
 * element in order without a quantifier, ANY/ALL/NONE pairwise with one.
 * Box(name, mixed, ints: list<int>, items: list<mixed>, tags: set<int>). */
TEST(nested_path_against_a_list_property) {
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "Box";
    c.num_properties = 5;
    fief_property_info_t box[5] = {t_prop_info("name", FIEF_TYPE_STRING, 0),
                                   t_prop_info("mixed", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("ints", FIEF_TYPE_INT, 0),
                                   t_prop_info("items", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("tags", FIEF_TYPE_INT, 0)};
    box[2].collection_type = FIEF_COLLECTION_LIST;
    box[3].collection_type = FIEF_COLLECTION_LIST;
    box[4].collection_type = FIEF_COLLECTION_SET;
    const fief_property_info_t *pp[1] = {box};
    fief_schema_t *s = fief_schema_new(&c, 1, pp);
    R(s);
    R_ = t_open(t_path("against_lists.fief"), s, 0);
    fief_release(s);
    R(R_);
    BOX_NAME = t_prop(R_, "Box", "name");
    fief_property_key_t mixed = t_prop(R_, "Box", "mixed"), ints_key = t_prop(R_, "Box", "ints");
    /* a: mixed [1, 2, 3], ints [1, 2, 3]    b: mixed [1, 2, 3], ints [3, 2, 1]
     * c: mixed [4], ints [1, 2]             d: mixed 5, ints [5]
     * e: mixed [[1, 2], [7]], ints [7] */
    struct row { const char *name; int64_t mixed[3]; size_t num_mixed; int64_t ints[3]; size_t num_ints; };
    const struct row rows[4] = {{"a", {1, 2, 3}, 3, {1, 2, 3}, 3}, {"b", {1, 2, 3}, 3, {3, 2, 1}, 3},
                                {"c", {4}, 1, {1, 2}, 2}, {"d", {5}, 0, {5}, 1}};
    R(fief_realm_begin_write(R_));
    for (int i = 0; i < 5; i++) {
        fief_object_t *o = create_named("Box", i < 4 ? rows[i].name : "e");
        R(o);
        fief_list_t *ints = fief_object_get_list(o, ints_key);
        R(ints);
        if (i == 3) {
            E(fief_object_set_value(o, mixed, vi(5)));
        } else {
            E(fief_object_set_value(o, mixed, vtype(FIEF_TYPE_LIST)));
        }
        fief_list_t *l = i == 3 ? NULL : fief_object_get_list(o, mixed);
        if (i < 4) {
            for (size_t k = 0; k < rows[i].num_mixed; k++) E(fief_list_append(l, (fief_value_t[]){vi(rows[i].mixed[k])}, 1));
            for (size_t k = 0; k < rows[i].num_ints; k++) E(fief_list_append(ints, (fief_value_t[]){vi(rows[i].ints[k])}, 1));
        } else {
            E(fief_list_append(l, (fief_value_t[]){vtype(FIEF_TYPE_LIST), vtype(FIEF_TYPE_LIST)}, 2));
            fief_list_t *first = fief_list_get_list(l, 0), *second = fief_list_get_list(l, 1);
            R(first && second);
            E(fief_list_append(first, (fief_value_t[]){vi(1), vi(2)}, 2));
            E(fief_list_append(second, (fief_value_t[]){vi(7)}, 1));
            E(fief_list_append(ints, (fief_value_t[]){vi(7)}, 1));
            fief_release(first);
            fief_release(second);
        }
        fief_release(l);
        fief_release(ints);
        fief_release(o);
    }
    R(fief_realm_commit(R_));

    /* No quantifier: the same values in the same order (either side first). */
    Q("Box", "mixed[*] == ints", "a");
    Q("Box", "ints == mixed[*]", "a");
    /* Each inner list reached is compared on its own. */
    Q("Box", "mixed[*][*] == ints", "e");
    /* Quantified: pairwise, the left side's quantifier outside. */
    Q("Box", "ANY mixed[*] == ints", "a,b");
    Q("Box", "ALL mixed[*] == ints", "a,b,d"); /* d: mixed 5 reaches no element */
    Q("Box", "NONE mixed[*] == ints", "c,d,e");
    Q("Box", "ANY mixed[*] > ints", "a,b,c");
    /* Two collections of values (ColumnListBase in realm-core) stay refused. */
    EERRM(filter("Box", "ints == ints", NULL, 0), FIEF_ERR_QUERY_INVALID, "with each other");
    EERRM(filter("Box", "ints == tags", NULL, 0), FIEF_ERR_QUERY_INVALID, "with each other");
    EERRM(filter("Box", "items[*] == ints", NULL, 0), FIEF_ERR_QUERY_INVALID, "with each other");
    EERRM(filter("Box", "ANY items == ints", NULL, 0), FIEF_ERR_QUERY_INVALID, "with each other");
    teardown();
}

static const t_case cases[] = {T(steps_into_nested_values), T(descriptions_and_liveness), T(nested_forms_refused),
                               T(maps_and_lists_of_links), T(nested_path_against_a_list_property)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
