/* Nested collections through the C API: FIEF_TYPE_LIST and
 * FIEF_TYPE_MAP values written to a mixed property, a list of mixed
 * values or a map of mixed values make new, empty collections; list and map
 * handles reach them (fief_object_get_list/_map, fief_list_get_list/_map,
 * fief_map_get_list/_map) and every list and map function works on them;
 * replacing the value invalidates the old handles; links inside are
 * recorded and nulled; bad input changes nothing. */
#include "fief_test.h"

/* Dog(name); Box(anyValue: mixed, items: list<mixed>, bag: set<mixed>, props: map<mixed>, label: string). */
static fief_schema_t *nested_schema(void) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 1;
    classes[1].name = "Box";
    classes[1].num_properties = 5;
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t box[5] = {t_prop_info("anyValue", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("items", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("bag", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("props", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("label", FIEF_TYPE_STRING, 0)};
    box[1].collection_type = FIEF_COLLECTION_LIST;
    box[2].collection_type = FIEF_COLLECTION_SET;
    box[3].collection_type = FIEF_COLLECTION_MAP;
    const fief_property_info_t *props[2] = {dog, box};
    return fief_schema_new(classes, 2, props);
}

TEST(nested_in_a_property) {
    fief_schema_t *s = nested_schema();
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("nested.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t box_class = t_class(r, "Box");
    fief_property_key_t any = t_prop(r, "Box", "anyValue"), label = t_prop(r, "Box", "label");

    R(fief_realm_begin_write(r));
    fief_object_t *box = fief_object_create(r, box_class, &any, (fief_value_t[]){vtype(FIEF_TYPE_LIST)}, 1, FIEF_UPDATE_POLICY_ERROR);
    R(box != NULL);
    fief_value_t got = t_get(box, any);
    EQI(got.type, FIEF_TYPE_LIST);
    /* The property holds a list, not a dictionary. */
    EERRM(fief_object_get_map(box, any) != NULL, FIEF_ERR_INVALID_ARGUMENT, "list");
    fief_list_t *list = fief_object_get_list(box, any);
    R(list != NULL);
    fief_value_t items[] = {vi(1), vs("two"), vtype(FIEF_TYPE_MAP), vtype(FIEF_TYPE_LIST), vd(2.5)};
    E(fief_list_append(list, items, 5));
    fief_map_t *dict = fief_list_get_map(list, 2);
    R(dict != NULL);
    EERRM(fief_list_get_map(list, 0) != NULL, FIEF_ERR_INVALID_ARGUMENT, "int");
    EERR(fief_list_get_list(list, 9) != NULL, FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    E(fief_map_set(dict, t_str("b"), vb(true)));
    E(fief_map_set(dict, t_str("a"), vtype(FIEF_TYPE_LIST)));
    fief_list_t *deep = fief_map_get_list(dict, t_str("a"));
    R(deep != NULL);
    EERRM(fief_map_get_list(dict, t_str("zz")) != NULL, FIEF_ERR_INVALID_ARGUMENT, "no key");
    E(fief_list_insert(deep, 0, vi(7)));
    E(fief_list_insert(deep, 0, vi(6)));
    E(fief_list_append(deep, (fief_value_t[]){vi(8)}, 1));
    E(fief_list_move(deep, 0, 2));
    E(fief_list_swap(deep, 0, 1));
    R(fief_realm_commit(r));

    /* Read back: sizes, ranges, entries in key order. */
    size_t n = 0;
    E(fief_list_count(list, &n));
    EQU(n, 5);
    fief_value_t range[5];
    E(fief_list_get_range(list, 0, 5, range));
    EQV(range[0], vi(1));
    EQI(range[2].type, FIEF_TYPE_MAP);
    EQI(range[3].type, FIEF_TYPE_LIST);
    fief_value_t deep_values[3];
    E(fief_list_get_range(deep, 0, 3, deep_values));
    EQV(deep_values[0], vi(8));
    EQV(deep_values[1], vi(7));
    EQV(deep_values[2], vi(6));
    size_t index = 0;
    bool found = false;
    E(fief_list_index_of(deep, vd(7.0), &index, &found) && found); /* numbers equal by value */
    EQU(index, 1);
    fief_string_t keys[2];
    fief_value_t values[2];
    E(fief_map_get_entries(dict, 0, 2, keys, values));
    EQSTR(keys[0], "a");
    EQI(values[0].type, FIEF_TYPE_LIST);
    EQSTR(keys[1], "b");
    EQV(values[1], vb(true));
    E(fief_map_index_of_key(dict, t_str("b"), &index, &found) && found);
    EQU(index, 1);

    /* Nested collections become results of their values: filtered, aggregated. */
    fief_results_t *deep_results = fief_list_to_results(deep);
    R(deep_results != NULL);
    EQU(t_count(deep_results), 3);
    fief_results_t *above = fief_results_filter(deep_results, "self > 6", NULL, 0);
    R(above != NULL);
    EQU(t_count(above), 2);
    fief_value_t max;
    E(fief_results_aggregate(deep_results, 0, FIEF_AGGREGATE_MAX, &max));
    EQV(max, vi(8));
    E(fief_list_aggregate(deep, 0, FIEF_AGGREGATE_MIN, &max));
    EQV(max, vi(6));
    fief_results_t *dict_results = fief_map_to_results(dict);
    R(dict_results != NULL);
    fief_results_t *truths = fief_results_filter(dict_results, "self == true", NULL, 0);
    R(truths != NULL);
    EQU(t_count(truths), 1);
    fief_release(truths);
    fief_release(dict_results);
    fief_release(above);

    /* A frozen realm resolves the handles; they stay on their version. */
    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen != NULL);
    fief_list_t *frozen_deep = NULL;
    E(fief_list_resolve_in(deep, frozen, &frozen_deep));
    R(frozen_deep != NULL);

    /* Bad input changes nothing. */
    EERR(fief_list_append(deep, (fief_value_t[]){vi(1)}, 1), FIEF_ERR_NOT_IN_TRANSACTION);
    R(fief_realm_begin_write(r));
    EERR(fief_map_set(dict, t_str("x.y"), vtype(FIEF_TYPE_LIST)), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_map_set(dict, t_str("$x"), vi(1)), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_set_value(box, label, vtype(FIEF_TYPE_LIST)), FIEF_ERR_TYPE_MISMATCH);
    EERR(fief_list_insert_embedded(deep, 0) != NULL, FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_map_insert_embedded(dict, t_str("e")) != NULL, FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_list_delete_all_objects(deep), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_list_set(deep, 3, vi(1)), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    E(fief_list_count(deep, &n));
    EQU(n, 3);
    E(fief_map_count(dict, &n));
    EQU(n, 2);

    /* Replacing the property's value deletes the tree: the handles say so. */
    E(fief_object_set_value(box, any, vtype(FIEF_TYPE_MAP)));
    R(!fief_list_is_valid(list));
    R(!fief_map_is_valid(dict));
    R(!fief_list_is_valid(deep));
    EERR(fief_list_count(deep, &n), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_map_get(dict, t_str("b"), &got, &found), FIEF_ERR_INVALIDATED_OBJECT);
    fief_map_t *fresh = fief_object_get_map(box, any);
    R(fresh != NULL);
    E(fief_map_count(fresh, &n));
    EQU(n, 0);
    R(fief_realm_commit(r));
    /* Results of a deleted nested collection fail; the frozen version still has the old tree. */
    EERR(fief_results_count(deep_results, &n), FIEF_ERR_INVALIDATED_OBJECT);
    fief_release(deep_results);
    E(fief_list_count(frozen_deep, &n));
    EQU(n, 3);
    EERR(fief_list_set(frozen_deep, 0, vi(1)), FIEF_ERR_FROZEN);

    fief_release(frozen_deep);
    fief_release(frozen);
    fief_release(fresh);
    fief_release(deep);
    fief_release(dict);
    fief_release(list);
    fief_release(box);
    fief_release(r);
    fief_release(s);
}

TEST(nested_in_collections_with_links) {
    fief_schema_t *s = nested_schema();
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("nested_links.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t box_class = t_class(r, "Box"), dog_class = t_class(r, "Dog");
    fief_property_key_t items_key = t_prop(r, "Box", "items"), bag_key = t_prop(r, "Box", "bag"),
                        props_key = t_prop(r, "Box", "props"), dog_name = t_prop(r, "Dog", "name");

    R(fief_realm_begin_write(r));
    fief_object_t *box = fief_object_create(r, box_class, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    fief_value_t rex_name = vs("Rex");
    fief_object_t *rex = fief_object_create(r, dog_class, &dog_name, &rex_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(box != NULL && rex != NULL);
    fief_object_key_t rex_key;
    E(fief_object_get_key(rex, &rex_key));
    fief_list_t *items = fief_object_get_list(box, items_key);
    fief_set_t *bag = fief_object_get_set(box, bag_key);
    fief_map_t *props = fief_object_get_map(box, props_key);
    R(items != NULL && bag != NULL && props != NULL);
    /* Sets never hold nested collections. */
    bool inserted = false;
    EERR(fief_set_insert(bag, vtype(FIEF_TYPE_LIST), &inserted), FIEF_ERR_TYPE_MISMATCH);
    E(fief_list_append(items, (fief_value_t[]){vtype(FIEF_TYPE_LIST)}, 1));
    E(fief_map_set(props, t_str("pets"), vtype(FIEF_TYPE_MAP)));
    fief_list_t *inner = fief_list_get_list(items, 0);
    fief_map_t *pets = fief_map_get_map(props, t_str("pets"));
    R(inner != NULL && pets != NULL);
    E(fief_list_append(inner, (fief_value_t[]){vlink(dog_class, rex_key), vi(1), vlink(dog_class, rex_key)}, 3));
    E(fief_map_set(pets, t_str("rex"), vlink(dog_class, rex_key)));
    EERR(fief_map_set(pets, t_str("ghost"), vlink(dog_class, 12345)), FIEF_ERR_NO_SUCH_OBJECT);
    R(fief_realm_commit(r));

    /* Backlinks: the box, through each property. */
    fief_results_t *via_items = fief_object_get_backlinks(rex, box_class, items_key);
    fief_results_t *via_props = fief_object_get_backlinks(rex, box_class, props_key);
    R(via_items != NULL && via_props != NULL);
    EQU(t_count(via_items), 1);
    EQU(t_count(via_props), 1);

    /* Deleting the dog: out of the nested list, null in the nested dictionary. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(rex));
    R(fief_realm_commit(r));
    size_t n = 0;
    E(fief_list_count(inner, &n));
    EQU(n, 1);
    fief_value_t got;
    bool found = false;
    E(fief_map_get(pets, t_str("rex"), &got, &found) && found);
    EQI(got.type, FIEF_TYPE_NULL);

    /* Removing the element that holds a nested list invalidates it. */
    R(fief_realm_begin_write(r));
    E(fief_list_remove(items, 0));
    E(fief_map_clear(props));
    R(fief_realm_commit(r));
    R(!fief_list_is_valid(inner));
    R(!fief_map_is_valid(pets));
    E(fief_list_count(items, &n));
    EQU(n, 0);

    fief_release(via_items);
    fief_release(via_props);
    fief_release(inner);
    fief_release(pets);
    fief_release(items);
    fief_release(bag);
    fief_release(props);
    fief_release(rex);
    fief_release(box);
    fief_release(r);
    fief_release(s);
}

static const t_case cases[] = {T(nested_in_a_property), T(nested_in_collections_with_links)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
