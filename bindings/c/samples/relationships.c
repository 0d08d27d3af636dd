/* relationships.c - people, dogs and clubs: to-one links set, followed and
 * queried, a dog's owners found through its backlinks (linking objects), a
 * club's members in a list (and the clubs of a person through the list's
 * backlinks), a dog's tricks in a set, a club's roles in a map (key ->
 * person), and a deleted object leaving every link, list and set (a map
 * keeps the key, with null).  Writes relationships.fief in the current
 * directory (`fief dump relationships.fief Club` prints the lists and maps).
 *
 *   cc relationships.c $(pkg-config --cflags --libs fief) -o relationships */
#include <fief.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok, const char *what) {
    if (ok) return;
    fief_error_t e;
    if (fief_get_last_error(&e))
        fprintf(stderr, "%s failed: error %d: %s\n", what, (int)e.code, e.message);
    else
        fprintf(stderr, "%s failed\n", what);
    exit(1);
}

static fief_value_t string_value(const char *s) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_STRING;
    v.u.string.data = s;
    v.u.string.size = strlen(s);
    return v;
}

static fief_string_t key_string(const char *s) {
    fief_string_t k = {s, strlen(s)};
    return k;
}

static fief_value_t link_value(fief_class_key_t cls, fief_object_key_t key) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_LINK;
    v.u.link.class_key = cls;
    v.u.link.object_key = key;
    return v;
}

static fief_realm_t *realm;
static fief_class_key_t dog_class, person_class, club_class;
static fief_property_key_t dog_name, dog_tricks, person_name, person_dog, club_name, club_members, club_roles;

static fief_property_key_t key_of(fief_schema_t *schema, size_t class_index, const char *name) {
    fief_property_info_t p;
    bool found = false;
    check(fief_schema_find_property(schema, class_index, name, &p, &found) && found, name);
    return p.key;
}

static fief_object_key_t add(fief_class_key_t cls, const fief_property_key_t *props, const fief_value_t *values, size_t n) {
    fief_object_t *obj = fief_object_create(realm, cls, props, values, n, FIEF_UPDATE_POLICY_ERROR);
    check(obj != NULL, "fief_object_create");
    fief_object_key_t key;
    check(fief_object_get_key(obj, &key), "fief_object_get_key");
    fief_release(obj);
    return key;
}

static void print_string(fief_value_t v) {
    printf("%.*s", (int)v.u.string.size, v.u.string.data);
}

/* The name of the person a link leads to, or "nobody" for null. */
static void print_person(fief_value_t link) {
    if (link.type != FIEF_TYPE_LINK) {
        printf("nobody");
        return;
    }
    fief_object_t *person = fief_object_get(realm, link.u.link.class_key, link.u.link.object_key);
    check(person != NULL, "follow a link");
    fief_value_t name;
    check(fief_object_get_value(person, person_name, &name), "person name");
    print_string(name);
    fief_release(person);
}

/* Each person and the dog their link leads to. */
static void print_people(void) {
    fief_results_t *people = fief_realm_get_objects(realm, person_class);
    check(people != NULL, "fief_realm_get_objects");
    size_t n = 0;
    check(fief_results_count(people, &n), "fief_results_count");
    for (size_t i = 0; i < n; i++) {
        fief_value_t values[2];
        fief_property_key_t keys[2] = {person_name, person_dog};
        check(fief_results_get_values(people, i, keys, 2, values), "fief_results_get_values");
        printf("  ");
        print_string(values[0]);
        if (values[1].type == FIEF_TYPE_LINK) {
            fief_object_t *dog = fief_object_get(realm, values[1].u.link.class_key, values[1].u.link.object_key);
            check(dog != NULL, "follow the link");
            fief_value_t name;
            check(fief_object_get_value(dog, dog_name, &name), "fief_object_get_value");
            printf(" -> ");
            print_string(name);
            fief_release(dog);
        } else {
            printf(" (no dog)");
        }
        printf("\n");
    }
    fief_release(people);
}

/* Each club and its members, in list order. */
static void print_clubs(void) {
    fief_results_t *clubs = fief_realm_get_objects(realm, club_class);
    check(clubs != NULL, "fief_realm_get_objects");
    size_t n = 0;
    check(fief_results_count(clubs, &n), "fief_results_count");
    for (size_t i = 0; i < n; i++) {
        fief_object_t *club = fief_results_get_object(clubs, i);
        check(club != NULL, "fief_results_get_object");
        fief_value_t name;
        check(fief_object_get_value(club, club_name, &name), "club name");
        fief_list_t *members = fief_object_get_list(club, club_members);
        check(members != NULL, "fief_object_get_list");
        size_t size = 0;
        check(fief_list_count(members, &size), "fief_list_count");
        fief_value_t *links = calloc(size ? size : 1, sizeof *links);
        check(links != NULL, "calloc");
        check(fief_list_get_range(members, 0, size, links), "fief_list_get_range");
        printf("  ");
        print_string(name);
        printf(" (%zu):", size);
        for (size_t j = 0; j < size; j++) {
            printf(" ");
            print_person(links[j]);
        }
        printf("\n");
        free(links);
        fief_release(members);
        /* The club's roles, in key order: one call reads every entry. */
        fief_map_t *roles = fief_object_get_map(club, club_roles);
        check(roles != NULL && fief_map_count(roles, &size), "fief_map_count");
        for (size_t j = 0; j < size; j++) {
            fief_string_t role;
            fief_value_t holder;
            check(fief_map_get_entry(roles, j, &role, &holder), "fief_map_get_entry");
            printf("    %.*s: ", (int)role.size, role.data);
            print_person(holder);
            printf("\n");
        }
        fief_release(roles);
        fief_release(club);
    }
    fief_release(clubs);
}

int main(void) {
    /* Dog { name, tricks: Set<string> }, Person { name, dog: Dog? },
     * Club { name, members: [Person], roles: [string: Person?] } */
    fief_property_info_t dog_props[2], person_props[2], club_props[3];
    memset(dog_props, 0, sizeof dog_props);
    memset(person_props, 0, sizeof person_props);
    memset(club_props, 0, sizeof club_props);
    club_props[0].name = "name";
    club_props[0].type = FIEF_TYPE_STRING;
    club_props[1].name = "members";
    club_props[1].type = FIEF_TYPE_LINK;
    club_props[1].collection_type = FIEF_COLLECTION_LIST;
    club_props[1].link_target = "Person";
    club_props[2].name = "roles";
    club_props[2].type = FIEF_TYPE_LINK;
    club_props[2].collection_type = FIEF_COLLECTION_MAP;
    club_props[2].link_target = "Person";
    club_props[2].flags = FIEF_PROPERTY_NULLABLE; /* a map of objects: a key may hold nobody */
    dog_props[0].name = "name";
    dog_props[0].type = FIEF_TYPE_STRING;
    dog_props[1].name = "tricks";
    dog_props[1].type = FIEF_TYPE_STRING;
    dog_props[1].collection_type = FIEF_COLLECTION_SET;
    person_props[0].name = "name";
    person_props[0].type = FIEF_TYPE_STRING;
    person_props[1].name = "dog";
    person_props[1].type = FIEF_TYPE_LINK;
    person_props[1].link_target = "Dog";
    person_props[1].flags = FIEF_PROPERTY_NULLABLE;
    fief_class_info_t classes[3];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 2;
    classes[1].name = "Person";
    classes[1].num_properties = 2;
    classes[2].name = "Club";
    classes[2].num_properties = 3;
    const fief_property_info_t *props[3] = {dog_props, person_props, club_props};
    fief_schema_t *schema = fief_schema_new(classes, 3, props);
    check(schema != NULL, "fief_schema_new");

    remove("relationships.fief");
    remove("relationships.fief-lock");
    fief_config_t *config = fief_config_new();
    check(config && fief_config_set_path(config, "relationships.fief") && fief_config_set_schema(config, schema),
          "configure");
    realm = fief_realm_open(config);
    check(realm != NULL, "fief_realm_open");

    fief_schema_t *rs = fief_realm_get_schema(realm);
    fief_class_info_t ci;
    size_t dog_index = 0, person_index = 0, club_index = 0;
    bool found = false;
    check(fief_schema_find_class(rs, "Dog", &ci, &dog_index, &found) && found, "Dog");
    dog_class = ci.key;
    check(fief_schema_find_class(rs, "Person", &ci, &person_index, &found) && found, "Person");
    person_class = ci.key;
    dog_name = key_of(rs, dog_index, "name");
    dog_tricks = key_of(rs, dog_index, "tricks");
    person_name = key_of(rs, person_index, "name");
    person_dog = key_of(rs, person_index, "dog");
    check(fief_schema_find_class(rs, "Club", &ci, &club_index, &found) && found, "Club");
    club_class = ci.key;
    club_name = key_of(rs, club_index, "name");
    club_members = key_of(rs, club_index, "members");
    club_roles = key_of(rs, club_index, "roles");
    fief_property_info_t link_info;
    check(fief_schema_find_property(rs, person_index, "dog", &link_info, &found) && found, "dog");
    printf("Person.dog links to %s\n", link_info.link_target);

    check(fief_realm_begin_write(realm), "begin_write");
    fief_value_t rex_name = string_value("Rex"), fido_name = string_value("Fido");
    fief_object_key_t rex = add(dog_class, &dog_name, &rex_name, 1);
    fief_object_key_t fido = add(dog_class, &dog_name, &fido_name, 1);
    fief_property_key_t person_props_keys[2] = {person_name, person_dog};
    fief_value_t ann[2] = {string_value("Ann"), link_value(dog_class, rex)};
    fief_value_t bob[2] = {string_value("Bob"), link_value(dog_class, rex)};
    fief_value_t cy[2] = {string_value("Cy"), link_value(dog_class, fido)};
    fief_object_key_t ann_key = add(person_class, person_props_keys, ann, 2);
    fief_object_key_t bob_key = add(person_class, person_props_keys, bob, 2);
    fief_object_key_t cy_key = add(person_class, person_props_keys, cy, 2);
    /* Two clubs; a list of members each (appended in one call). */
    fief_value_t walkers_name = string_value("Walkers"), runners_name = string_value("Runners");
    fief_object_key_t walkers = add(club_class, &club_name, &walkers_name, 1);
    fief_object_key_t runners = add(club_class, &club_name, &runners_name, 1);
    fief_value_t walking[3] = {link_value(person_class, cy_key), link_value(person_class, ann_key),
                               link_value(person_class, bob_key)};
    fief_object_t *club = fief_object_get(realm, club_class, walkers);
    fief_list_t *members = fief_object_get_list(club, club_members);
    check(members != NULL && fief_list_append(members, walking, 3), "fief_list_append");
    fief_release(members);
    fief_release(club);
    club = fief_object_get(realm, club_class, runners);
    members = fief_object_get_list(club, club_members);
    check(members != NULL && fief_list_append(members, walking + 1, 1), "fief_list_append");
    check(fief_list_insert(members, 0, link_value(person_class, bob_key)), "fief_list_insert");
    fief_release(members);
    fief_release(club);
    /* The Walkers' roles: a map from a role to a person (set adds or replaces a key). */
    club = fief_object_get(realm, club_class, walkers);
    fief_map_t *roles = fief_object_get_map(club, club_roles);
    check(roles != NULL, "fief_object_get_map");
    check(fief_map_set(roles, key_string("treasurer"), link_value(person_class, bob_key)) &&
          fief_map_set(roles, key_string("captain"), link_value(person_class, cy_key)) &&
          fief_map_set(roles, key_string("coach"), link_value(person_class, cy_key)) &&
          fief_map_set(roles, key_string("captain"), link_value(person_class, ann_key)), "fief_map_set");
    bool removed = false;
    check(fief_map_remove(roles, key_string("coach"), &removed) && removed, "fief_map_remove");
    fief_release(club);
    /* Fido's tricks: a set keeps each value once, in order. */
    fief_object_t *fido_obj = fief_object_get(realm, dog_class, fido);
    fief_set_t *tricks = fief_object_get_set(fido_obj, dog_tricks);
    check(tricks != NULL, "fief_object_get_set");
    const char *taught[] = {"sit", "roll over", "fetch", "sit"};
    for (size_t i = 0; i < 4; i++) {
        bool inserted = false;
        check(fief_set_insert(tricks, string_value(taught[i]), &inserted), "fief_set_insert");
        if (!inserted) printf("Fido already knows '%s'\n", taught[i]);
    }
    check(fief_set_remove(tricks, string_value("roll over"), &removed) && removed, "fief_set_remove");
    check(fief_realm_commit(realm), "commit");
    printf("people and their dogs:\n");
    print_people();
    printf("clubs, their members and roles:\n");
    print_clubs();

    fief_value_t captain;
    check(fief_map_get(roles, key_string("captain"), &captain, &found) && found, "fief_map_get");
    printf("the Walkers' captain: ");
    print_person(captain);
    printf("\n");
    size_t known = 0;
    check(fief_set_count(tricks, &known), "fief_set_count");
    printf("Fido knows %zu tricks:", known);
    for (size_t i = 0; i < known; i++) {
        fief_value_t trick;
        check(fief_set_get(tricks, i, &trick), "fief_set_get");
        printf(" '");
        print_string(trick);
        printf("'");
    }
    bool can_roll = true;
    check(fief_set_contains(tricks, string_value("roll over"), &can_roll), "fief_set_contains");
    printf("; rolls over: %s\n", can_roll ? "yes" : "no");
    fief_release(tricks);
    fief_release(fido_obj);

    /* Ann's clubs: the clubs whose members list holds her. */
    fief_object_t *ann_obj = fief_object_get(realm, person_class, ann_key);
    fief_results_t *ann_clubs = fief_object_get_backlinks(ann_obj, club_class, club_members);
    size_t count = 0;
    check(ann_clubs != NULL && fief_results_count(ann_clubs, &count), "fief_object_get_backlinks");
    printf("Ann is in %zu clubs\n", count);

    /* Rex's owners: the people whose link points at him. */
    fief_object_t *rex_obj = fief_object_get(realm, dog_class, rex);
    check(rex_obj != NULL, "fief_object_get");
    fief_results_t *owners = fief_object_get_backlinks(rex_obj, person_class, person_dog);
    check(owners != NULL, "fief_object_get_backlinks");
    size_t n = 0;
    check(fief_results_count(owners, &n), "count");
    printf("Rex has %zu owners:", n);
    for (size_t i = 0; i < n; i++) {
        fief_value_t name;
        check(fief_results_get_values(owners, i, &person_name, 1, &name), "owner");
        printf(" ");
        print_string(name);
    }
    printf("\n");

    /* A query on the link. */
    fief_value_t arg = link_value(dog_class, fido);
    fief_query_arg_t qa = {1, false, &arg};
    fief_results_t *all = fief_realm_get_objects(realm, person_class);
    fief_results_t *with_fido = fief_results_filter(all, "dog == $0", &qa, 1);
    check(with_fido != NULL && fief_results_count(with_fido, &n), "dog == $0");
    printf("people with Fido: %zu\n", n);

    /* Deleting Rex nulls the links to him, in the same transaction. */
    check(fief_realm_begin_write(realm), "begin_write");
    check(fief_object_delete(rex_obj), "fief_object_delete");
    check(fief_realm_commit(realm), "commit");
    check(fief_results_count(owners, &n), "count");
    printf("after Rex left (%zu owners):\n", n);
    print_people();

    /* Deleting Ann takes her out of both clubs' lists; her role stays, held by nobody. */
    check(fief_realm_begin_write(realm), "begin_write");
    check(fief_object_delete(ann_obj), "fief_object_delete");
    check(fief_realm_commit(realm), "commit");
    printf("after Ann left:\n");
    print_clubs();
    fief_release(roles);
    fief_release(ann_clubs);
    fief_release(ann_obj);

    fief_release(with_fido);
    fief_release(all);
    fief_release(owners);
    fief_release(rex_obj);
    fief_release(rs);
    fief_release(realm);
    fief_release(config);
    fief_release(schema);
    return 0;
}
