/* To-one links through the C API: schema definition and introspection, link
 * values set, read, cleared and queried, bad links refused without a change,
 * links to a deleted object nulled. */
#include "fief_test.h"

#include <stdlib.h>

/* Dog(name); Person(name, dog -> Dog, optional). */
static fief_schema_t *dog_schema(const char *target, uint32_t link_flags) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 1;
    classes[1].name = "Person";
    classes[1].num_properties = 2;
    fief_property_info_t dog[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t person[2] = {t_prop_info("name", FIEF_TYPE_STRING, 0),
                                      t_prop_info("dog", FIEF_TYPE_LINK, link_flags)};
    person[1].link_target = target;
    const fief_property_info_t *props[2] = {dog, person};
    return fief_schema_new(classes, 2, props);
}

TEST(link_schema) {
    fief_schema_t *s = dog_schema("Dog", FIEF_PROPERTY_NULLABLE);
    R(s != NULL);
    fief_property_info_t p;
    bool found = false;
    E(fief_schema_find_property(s, 1, "dog", &p, &found) && found);
    EQI(p.type, FIEF_TYPE_LINK);
    E(p.link_target != NULL && strcmp(p.link_target, "Dog") == 0);
    E(fief_schema_find_property(s, 1, "name", &p, &found) && found);
    E(p.link_target == NULL);
    E(fief_release(s));

    EERRM(dog_schema(NULL, FIEF_PROPERTY_NULLABLE) != NULL, FIEF_ERR_INVALID_SCHEMA, "has no target class");
    EERRM(dog_schema("Cat", FIEF_PROPERTY_NULLABLE) != NULL, FIEF_ERR_INVALID_SCHEMA, "which the schema does not have");
    EERRM(dog_schema("Dog", 0) != NULL, FIEF_ERR_INVALID_SCHEMA, "must be optional");
    EERRM(dog_schema("Dog", FIEF_PROPERTY_NULLABLE | FIEF_PROPERTY_INDEXED) != NULL, FIEF_ERR_INVALID_SCHEMA,
          "cannot be indexed");
    EERRM(dog_schema("\xff", FIEF_PROPERTY_NULLABLE) != NULL, FIEF_ERR_INVALID_UTF8, "link_target");
}

TEST(link_values) {
    fief_schema_t *s = dog_schema("Dog", FIEF_PROPERTY_NULLABLE);
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("links.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t dog_class = t_class(r, "Dog"), person_class = t_class(r, "Person");
    fief_property_key_t dog_name = t_prop(r, "Dog", "name"), person_name = t_prop(r, "Person", "name");
    fief_property_key_t link = t_prop(r, "Person", "dog");

    R(fief_realm_begin_write(r));
    fief_value_t rex_name = vs("Rex");
    fief_object_t *rex = fief_object_create(r, dog_class, &dog_name, &rex_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(rex != NULL);
    fief_object_key_t rex_key = -1;
    E(fief_object_get_key(rex, &rex_key));
    fief_value_t ann_values[2] = {vs("Ann"), vlink(dog_class, rex_key)};
    fief_property_key_t ann_props[2] = {person_name, link};
    fief_object_t *ann = fief_object_create(r, person_class, ann_props, ann_values, 2, FIEF_UPDATE_POLICY_ERROR);
    R(ann != NULL);
    R(fief_realm_commit(r));

    /* Read back, then follow it. */
    fief_value_t got = t_get(ann, link);
    EQI(got.type, FIEF_TYPE_LINK);
    EQU(got.u.link.class_key, dog_class);
    EQI(got.u.link.object_key, rex_key);
    fief_object_t *followed = fief_object_get(r, got.u.link.class_key, got.u.link.object_key);
    R(followed != NULL);
    EQSTR(t_get(followed, dog_name).u.string, "Rex");
    E(fief_release(followed));
    /* Or without a handle, by the keys the link holds. */
    fief_value_t by_key;
    memset(&by_key, 0, sizeof by_key);
    E(fief_object_get_values_by_key(r, got.u.link.class_key, got.u.link.object_key, &dog_name, 1, &by_key));
    EQSTR(by_key.u.string, "Rex");
    fief_property_key_t two[2] = {person_name, link};
    fief_value_t ann_read[2];
    fief_object_key_t ann_key = -1;
    E(fief_object_get_key(ann, &ann_key));
    E(fief_object_get_values_by_key(r, person_class, ann_key, two, 2, ann_read));
    EQSTR(ann_read[0].u.string, "Ann");
    EQI(ann_read[1].u.link.object_key, rex_key);
    EERRM(fief_object_get_values_by_key(r, dog_class, 12345, &dog_name, 1, &by_key), FIEF_ERR_NO_SUCH_OBJECT, "no object with key 12345");
    EERR(fief_object_get_values_by_key(r, 999, rex_key, &dog_name, 1, &by_key), FIEF_ERR_NO_SUCH_CLASS);
    fief_property_key_t no_property = 99;
    EERR(fief_object_get_values_by_key(r, dog_class, rex_key, &no_property, 1, &by_key), FIEF_ERR_NO_SUCH_PROPERTY);
    EERR(fief_object_get_values_by_key(r, dog_class, rex_key, &dog_name, 1, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_get_values_by_key(NULL, dog_class, rex_key, &dog_name, 1, &by_key), FIEF_ERR_INVALID_HANDLE);
    E(fief_object_get_values_by_key(r, dog_class, rex_key, NULL, 0, NULL));

    /* A query on the link. */
    fief_results_t *people = fief_realm_get_objects(r, person_class);
    R(people != NULL);
    fief_value_t arg = vlink(dog_class, rex_key);
    fief_query_arg_t qa = {.count = 1, .is_list = false, .values = &arg};
    fief_results_t *with_rex = fief_results_filter(people, "dog == $0", &qa, 1);
    R(with_rex != NULL);
    EQU(t_count(with_rex), 1);
    fief_value_t person_arg = vlink(person_class, 0);
    fief_query_arg_t wrong = {.count = 1, .is_list = false, .values = &person_arg};
    EERRM(fief_results_filter(people, "dog == $0", &wrong, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT, "another class");

    /* Bad links change nothing. */
    R(fief_realm_begin_write(r));
    EERRM(fief_object_set_value(ann, link, vlink(person_class, 0)), FIEF_ERR_TYPE_MISMATCH, "links to 'Dog' objects");
    EERRM(fief_object_set_value(ann, link, vlink(dog_class, 12345)), FIEF_ERR_NO_SUCH_OBJECT, "does not exist");
    EERRM(fief_object_set_value(ann, link, vi(rex_key)), FIEF_ERR_TYPE_MISMATCH, "holds links to 'Dog' objects");
    EERR(fief_object_set_value(ann, person_name, vlink(dog_class, rex_key)), FIEF_ERR_TYPE_MISMATCH);
    fief_value_t both[2] = {vs("Changed"), vlink(dog_class, 999)};
    EERR(fief_object_set_values(ann, ann_props, both, 2), FIEF_ERR_NO_SUCH_OBJECT);
    R(fief_realm_commit(r));
    EQSTR(t_get(ann, person_name).u.string, "Ann");
    EQI(t_get(ann, link).u.link.object_key, rex_key);
    EERR(fief_object_set_value(ann, link, vnull()), FIEF_ERR_NOT_IN_TRANSACTION);

    /* The dog's linking objects: live results over its backlinks. */
    fief_results_t *owners = fief_object_get_backlinks(rex, person_class, link);
    R(owners != NULL);
    EQU(t_count(owners), 1);
    fief_results_t *named_ann = fief_results_filter(owners, "name == 'Ann'", NULL, 0);
    R(named_ann != NULL);
    EQU(t_count(named_ann), 1);
    R(fief_realm_begin_write(r));
    fief_value_t cy_values[2] = {vs("Cy"), vlink(dog_class, rex_key)};
    fief_object_t *cy = fief_object_create(r, person_class, ann_props, cy_values, 2, FIEF_UPDATE_POLICY_ERROR);
    R(cy != NULL);
    EQU(t_count(owners), 2); /* inside the write, too */
    R(fief_realm_commit(r));
    EQU(t_count(owners), 2);
    EQU(t_count(named_ann), 1);
    EERRM(fief_object_get_backlinks(rex, person_class, person_name) != NULL, FIEF_ERR_INVALID_ARGUMENT, "is not a link to class 'Dog'");
    EERR(fief_object_get_backlinks(rex, 999, link) != NULL, FIEF_ERR_NO_SUCH_CLASS);
    EERR(fief_object_get_backlinks(rex, person_class, 999) != NULL, FIEF_ERR_NO_SUCH_PROPERTY);
    E(fief_release(cy));

    /* Deleting the dog nulls the link, in the same transaction. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(rex));
    EQI(t_get(ann, link).type, FIEF_TYPE_NULL);
    EERR(fief_object_get_values_by_key(r, dog_class, rex_key, &dog_name, 1, &by_key), FIEF_ERR_NO_SUCH_OBJECT);
    R(fief_realm_commit(r));
    EERR(fief_object_get_values_by_key(r, dog_class, rex_key, &dog_name, 1, &by_key), FIEF_ERR_NO_SUCH_OBJECT);
    EQI(t_get(ann, link).type, FIEF_TYPE_NULL);
    EQU(t_count(with_rex), 0);
    EQU(t_count(owners), 0);
    E(fief_release(named_ann));
    E(fief_release(owners));

    E(fief_release(with_rex));
    E(fief_release(people));
    E(fief_release(rex));
    E(fief_release(ann));
    E(fief_release(r));
    E(fief_release(s));
}

/* Person(name, address -> Address, optional); Address embedded (street). */
static fief_schema_t *address_schema(bool address_pk) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Address";
    classes[0].num_properties = 1;
    classes[0].flags = FIEF_CLASS_EMBEDDED;
    classes[1].name = "Person";
    classes[1].num_properties = 2;
    fief_property_info_t address[1] = {t_prop_info("street", FIEF_TYPE_STRING, address_pk ? FIEF_PROPERTY_PRIMARY_KEY : 0)};
    fief_property_info_t person[2] = {t_prop_info("name", FIEF_TYPE_STRING, 0),
                                      t_prop_info("address", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE)};
    person[1].link_target = "Address";
    const fief_property_info_t *props[2] = {address, person};
    return fief_schema_new(classes, 2, props);
}

TEST(embedded_objects) {
    EERRM(address_schema(true) != NULL, FIEF_ERR_INVALID_SCHEMA, "cannot have a primary key");
    fief_schema_t *s = address_schema(false);
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("embedded.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t address_class = t_class(r, "Address"), person_class = t_class(r, "Person");
    fief_property_key_t street = t_prop(r, "Address", "street"), name = t_prop(r, "Person", "name");
    fief_property_key_t address = t_prop(r, "Person", "address");

    EERRM(fief_realm_get_objects(r, address_class) != NULL, FIEF_ERR_INVALID_ARGUMENT, "is embedded");
    R(fief_realm_begin_write(r));
    fief_value_t v = vs("Main St");
    EERRM(fief_object_create(r, address_class, &street, &v, 1, FIEF_UPDATE_POLICY_ERROR) != NULL,
          FIEF_ERR_INVALID_ARGUMENT, "created in place");
    fief_value_t ann_name = vs("Ann"), bob_name = vs("Bob");
    fief_object_t *ann = fief_object_create(r, person_class, &name, &ann_name, 1, FIEF_UPDATE_POLICY_ERROR);
    fief_object_t *bob = fief_object_create(r, person_class, &name, &bob_name, 1, FIEF_UPDATE_POLICY_ERROR);
    R(ann != NULL && bob != NULL);
    EERRM(fief_object_create_embedded(ann, name) != NULL, FIEF_ERR_INVALID_ARGUMENT, "not a link to an embedded class");
    fief_object_t *home = fief_object_create_embedded(ann, address);
    R(home != NULL);
    E(fief_object_set_value(home, street, vs("Main St")));
    fief_value_t link = t_get(ann, address);
    EQI(link.type, FIEF_TYPE_LINK);
    EQU(link.u.link.class_key, address_class);
    /* Owned by one parent: never linked from another. */
    EERRM(fief_object_set_value(bob, address, link), FIEF_ERR_INVALID_ARGUMENT, "create it in place");
    R(fief_realm_commit(r));
    fief_object_t *followed = fief_object_get(r, link.u.link.class_key, link.u.link.object_key);
    R(followed != NULL);
    EQSTR(t_get(followed, street).u.string, "Main St");

    /* Replaced: the old one goes. */
    R(fief_realm_begin_write(r));
    fief_object_t *second = fief_object_create_embedded(ann, address);
    R(second != NULL);
    E(!fief_object_is_valid(home));
    EQSTR(t_get(second, street).u.string, "");
    /* Cleared: deleted too. */
    E(fief_object_set_value(ann, address, vnull()));
    E(!fief_object_is_valid(second));
    fief_object_t *third = fief_object_create_embedded(bob, address);
    R(third != NULL);
    R(fief_realm_commit(r));
    /* Deleted with its parent. */
    R(fief_realm_begin_write(r));
    E(fief_object_delete(bob));
    E(!fief_object_is_valid(third));
    R(fief_realm_commit(r));
    EERR(fief_object_create_embedded(ann, address) != NULL, FIEF_ERR_NOT_IN_TRANSACTION);

    fief_release(third);
    fief_release(second);
    fief_release(followed);
    fief_release(home);
    fief_release(bob);
    fief_release(ann);
    fief_release(r);
    fief_release(s);
}

/* `self` over results of objects is the object itself (RealmSwift's
 * `SELF == %@`): compared with object arguments by identity. */
TEST(self_is_the_object) {
    fief_schema_t *s = dog_schema("Dog", FIEF_PROPERTY_NULLABLE);
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("self.fief"), s, 0);
    R(r != NULL);
    fief_class_key_t dog_class = t_class(r, "Dog"), person_class = t_class(r, "Person");
    fief_property_key_t dog_name = t_prop(r, "Dog", "name");
    fief_object_key_t keys[3];
    const char *names[3] = {"Rex", "Fido", "Max"};
    R(fief_realm_begin_write(r));
    for (int i = 0; i < 3; i++) {
        fief_value_t name = vs(names[i]);
        fief_object_t *dog = fief_object_create(r, dog_class, &dog_name, &name, 1, FIEF_UPDATE_POLICY_ERROR);
        R(dog != NULL);
        E(fief_object_get_key(dog, &keys[i]));
        E(fief_release(dog));
    }
    R(fief_realm_commit(r));
    fief_results_t *dogs = fief_realm_get_objects(r, dog_class);
    R(dogs != NULL);

    fief_value_t fido = vlink(dog_class, keys[1]);
    fief_query_arg_t one = {.count = 1, .is_list = false, .values = &fido};
    fief_results_t *same = fief_results_filter(dogs, "SELF == $0", &one, 1);
    R(same != NULL);
    EQU(t_count(same), 1);
    fief_object_key_t key = -1;
    E(fief_results_get_key(same, 0, &key));
    EQI(key, keys[1]);
    fief_results_t *others = fief_results_filter(dogs, "self != $0", &one, 1);
    R(others != NULL);
    EQU(t_count(others), 2);

    fief_value_t two[2] = {vlink(dog_class, keys[2]), vlink(dog_class, keys[0])};
    fief_query_arg_t list = {.count = 2, .is_list = true, .values = two};
    fief_results_t *in = fief_results_filter(dogs, "SELF IN $0", &list, 1);
    R(in != NULL);
    EQU(t_count(in), 2);
    E(fief_results_get_key(in, 0, &key));
    EQI(key, keys[0]);
    E(fief_results_get_key(in, 1, &key));
    EQI(key, keys[2]);

    fief_value_t person = vlink(person_class, 0);
    fief_query_arg_t wrong = {.count = 1, .is_list = false, .values = &person};
    EERRM(fief_results_filter(dogs, "SELF == $0", &wrong, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT, "an object of class 'Person'");
    EERRM(fief_results_filter(dogs, "SELF > $0", &one, 1) != NULL, FIEF_ERR_QUERY_INVALID, "compared with objects by == or !=");

    E(fief_release(in));
    E(fief_release(others));
    E(fief_release(same));
    E(fief_release(dogs));
    E(fief_release(r));
    E(fief_release(s));
}

static const t_case cases[] = {T(link_schema), T(link_values), T(embedded_objects), T(self_is_the_object)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
