/* Mixed values through the C API: a FIEF_TYPE_MIXED property and mixed
 * list, set and map elements hold every type, links to objects of any
 * class (with backlinks, nulled when the target is deleted), and compare
 * numbers by value across types; bad input changes nothing. */
#include "fief_test.h"

/* Dog(name); Cat(name); Box(any: mixed, items: list<mixed>, bag: set<mixed>, props: map<mixed>). */
static fief_schema_t *mixed_schema(void) {
    fief_class_info_t classes[3];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 1;
    classes[1].name = "Cat";
    classes[1].num_properties = 1;
    classes[2].name = "Box";
    classes[2].num_properties = 4;
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t cat[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t box[4] = {t_prop_info("anyValue", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("items", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("bag", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
                                   t_prop_info("props", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    box[1].collection_type = FIEF_COLLECTION_LIST;
    box[2].collection_type = FIEF_COLLECTION_SET;
    box[3].collection_type = FIEF_COLLECTION_MAP;
    const fief_property_info_t *props[3] = {dog, cat, box};
    return fief_schema_new(classes, 3, props);
}

TEST(mixed_values) {
    fief_schema_t *s = mixed_schema();
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("mixed.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t box_class = t_class(r, "Box"), dog_class = t_class(r, "Dog"), cat_class = t_class(r, "Cat");
    fief_property_key_t any = t_prop(r, "Box", "anyValue"), dog_name = t_prop(r, "Dog", "name");

    R(fief_realm_begin_write(r));
    fief_object_t *box = fief_object_create(r, box_class, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    fief_value_t rex_name = vs("Rex");
    fief_object_t *rex = fief_object_create(r, dog_class, &dog_name, &rex_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(box != NULL && rex != NULL);
    fief_object_key_t rex_key;
    E(fief_object_get_key(rex, &rex_key));
    /* Every type in turn. */
    fief_value_t samples[] = {vi(42), vb(true), vs("text"), vbin("\0\1", 2), vts(-5, -3), vf(1.5f), vd(2.25), vnull()};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        fief_value_t got;
        E(fief_object_set_value(box, any, samples[i]));
        E(fief_object_get_value(box, any, &got));
        E(t_value_eq(got, samples[i]));
    }
    E(fief_object_set_value(box, any, vlink(dog_class, rex_key)));
    EERR(fief_object_set_value(box, any, vlink(cat_class, 77)), FIEF_ERR_NO_SUCH_OBJECT);
    EERR(fief_object_set_value(box, any, vlink(99, 0)), FIEF_ERR_NO_SUCH_CLASS);
    EERR(fief_object_set_value(box, any, vsn("\xff", 1)), FIEF_ERR_INVALID_UTF8);
    fief_value_t bad = vi(1);
    bad.type = FIEF_TYPE_MIXED; /* a value never has this type */
    EERR(fief_object_set_value(box, any, bad), FIEF_ERR_INVALID_ARGUMENT);
    R(fief_realm_commit(r));
    fief_value_t got;
    E(fief_object_get_value(box, any, &got));
    EQI(got.type, FIEF_TYPE_LINK);
    EQU(got.u.link.class_key, dog_class);
    fief_results_t *owners = fief_object_get_backlinks(rex, box_class, any);
    R(owners != NULL);
    EQU(t_count(owners), 1);
    fief_release(owners);
    /* Filters on the mixed property: a link by identity, numbers by value. */
    fief_results_t *boxes = fief_realm_get_objects(r, box_class);
    R(boxes != NULL);
    fief_value_t rex_link = vlink(dog_class, rex_key);
    fief_query_arg_t rex_arg = {1, false, &rex_link};
    fief_results_t *matches = fief_results_filter(boxes, "anyValue == $0", &rex_arg, 1);
    R(matches != NULL);
    EQU(t_count(matches), 1);
    fief_release(matches);
    matches = fief_results_filter(boxes, "anyValue == 1 OR anyValue == nil", NULL, 0);
    R(matches != NULL);
    EQU(t_count(matches), 0);
    fief_release(matches);
    EERRM(fief_results_filter(boxes, "anyValue > true", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID, "==");
    fief_release(boxes);

    /* Collections of mixed values. */
    fief_list_t *items = fief_object_get_list(box, t_prop(r, "Box", "items"));
    fief_set_t *bag = fief_object_get_set(box, t_prop(r, "Box", "bag"));
    fief_map_t *props = fief_object_get_map(box, t_prop(r, "Box", "props"));
    R(items != NULL && bag != NULL && props != NULL);
    R(fief_realm_begin_write(r));
    fief_value_t elements[4] = {vi(1), vs("1"), vlink(dog_class, rex_key), vnull()};
    E(fief_list_append(items, elements, 4));
    bool inserted = false;
    E(fief_set_insert(bag, vi(1), &inserted) && inserted);
    E(fief_set_insert(bag, vd(1.0), &inserted) && !inserted); /* 1 and 1.0 are one element */
    E(fief_set_insert(bag, vs("1"), &inserted) && inserted);
    E(fief_set_insert(bag, vlink(dog_class, rex_key), &inserted) && inserted);
    E(fief_map_set(props, t_str("pet"), vlink(dog_class, rex_key)));
    E(fief_map_set(props, t_str("n"), vd(0.5)));
    R(fief_realm_commit(r));
    size_t index = 9;
    bool found = false;
    E(fief_list_index_of(items, vd(1.0), &index, &found) && found);
    EQU(index, 0);
    size_t n = 0;
    E(fief_set_count(bag, &n));
    EQU(n, 3);

    /* Deleting the dog nulls the property and the map value, and leaves the list and set. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(rex));
    R(fief_realm_commit(r));
    E(fief_object_get_value(box, any, &got));
    EQI(got.type, FIEF_TYPE_NULL);
    E(fief_list_count(items, &n));
    EQU(n, 3);
    E(fief_set_count(bag, &n));
    EQU(n, 2);
    E(fief_map_get(props, t_str("pet"), &got, &found) && found);
    EQI(got.type, FIEF_TYPE_NULL);
    fief_release(items);
    fief_release(bag);
    fief_release(props);
    fief_release(rex);
    fief_release(box);
    fief_release(r);
}

/* An index on a mixed property (FIEF_PROPERTY_INDEXED, as realm-core
 * allows; never the primary key): read back in the schema, kept through
 * creates, sets and deletes, and `value == $0` / `value IN $0` count exactly as
 * on the same property without an index, numbers equal across types. */
TEST(indexed_mixed) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Tagged";
    classes[0].num_properties = 1;
    classes[1].name = "Plain";
    classes[1].num_properties = 1;
    fief_property_info_t tagged[1] = {t_prop_info("value", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE | FIEF_PROPERTY_INDEXED)};
    fief_property_info_t plain[1] = {t_prop_info("value", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    const fief_property_info_t *props[2] = {tagged, plain};
    /* A mixed primary key is refused. */
    fief_property_info_t pk[1] = {t_prop_info("value", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE | FIEF_PROPERTY_PRIMARY_KEY)};
    const fief_property_info_t *pk_props[1] = {pk};
    EERRM(fief_schema_new(classes, 1, pk_props) != NULL, FIEF_ERR_INVALID_SCHEMA, "primary key");

    fief_schema_t *s = fief_schema_new(classes, 2, props);
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("indexed_mixed.fief"), s, 0);
    R(r != NULL);
    fief_schema_t *rs = fief_realm_get_schema(r);
    R(rs != NULL);
    fief_class_info_t ci;
    size_t cidx = 0;
    bool found = false;
    fief_property_info_t pi;
    E(fief_schema_find_class(rs, "Tagged", &ci, &cidx, &found) && found);
    E(fief_schema_find_property(rs, cidx, "value", &pi, &found) && found);
    EQU(pi.flags & FIEF_PROPERTY_INDEXED, FIEF_PROPERTY_INDEXED);
    fief_release(rs);

    fief_class_key_t tc = t_class(r, "Tagged"), pc = t_class(r, "Plain");
    fief_property_key_t ta = t_prop(r, "Tagged", "value"), pa = t_prop(r, "Plain", "value");
    /* 1, 1.0, 1.0f and decimal 1.00 are one value; true and "1" are not. */
    const fief_value_t values[] = {vi(1), vd(1.0), vf(1.0f), vdec(100, (uint64_t)(6176 - 2) << 49), vd(2.5), vs("1"), vb(true),
                                   vnull(), vs("a"), vbin("a", 1), vi(-7), vts(3, 0)};
    const size_t nv = sizeof values / sizeof values[0];
    fief_object_key_t tk[60], pk_keys[60];
    uint64_t rng = 12345;
    R(fief_realm_begin_write(r));
    for (size_t i = 0; i < 60; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        fief_value_t v = values[(rng >> 33) % nv];
        fief_object_t *a = fief_object_create(r, tc, &ta, &v, 1, FIEF_UPDATE_POLICY_ERROR);
        fief_object_t *b = fief_object_create(r, pc, &pa, &v, 1, FIEF_UPDATE_POLICY_ERROR);
        R(a != NULL && b != NULL);
        E(fief_object_get_key(a, &tk[i]));
        E(fief_object_get_key(b, &pk_keys[i]));
        /* Every third object changes its value, every seventh goes. */
        if (i % 3 == 0) {
            fief_value_t w = values[(rng >> 40) % nv];
            E(fief_object_set_value(a, ta, w));
            E(fief_object_set_value(b, pa, w));
        }
        if (i % 7 == 0) {
            E(fief_object_delete(a));
            E(fief_object_delete(b));
        }
        fief_release(a);
        fief_release(b);
    }
    R(fief_realm_commit(r));
    fief_results_t *all_t = fief_realm_get_objects(r, tc), *all_p = fief_realm_get_objects(r, pc);
    R(all_t != NULL && all_p != NULL);
    size_t total = 0;
    for (size_t i = 0; i < nv; i++) {
        fief_query_arg_t arg = {1, false, &values[i]};
        fief_results_t *a = fief_results_filter(all_t, "value == $0", &arg, 1);
        fief_results_t *b = fief_results_filter(all_p, "value == $0", &arg, 1);
        R(a != NULL && b != NULL);
        EQU(t_count(a), t_count(b));
        total += t_count(a);
        fief_release(a);
        fief_release(b);
    }
    R(total > 0);
    /* The numbers 1 (four spellings) find the same objects. */
    fief_query_arg_t one = {1, false, &values[0]}, dec_one = {1, false, &values[3]};
    fief_results_t *a = fief_results_filter(all_t, "value == $0", &one, 1);
    fief_results_t *b = fief_results_filter(all_t, "value == $0", &dec_one, 1);
    R(a != NULL && b != NULL);
    R(t_count(a) > 0);
    EQU(t_count(a), t_count(b));
    fief_release(a);
    fief_release(b);
    /* IN a list argument. */
    fief_query_arg_t list = {3, true, &values[4]};
    a = fief_results_filter(all_t, "value IN $0", &list, 1);
    b = fief_results_filter(all_p, "value IN $0", &list, 1);
    R(a != NULL && b != NULL);
    EQU(t_count(a), t_count(b));
    fief_release(a);
    fief_release(b);
    fief_release(all_t);
    fief_release(all_p);
    fief_release(r);
}

static const t_case cases[] = {T(mixed_values), T(indexed_mixed)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
