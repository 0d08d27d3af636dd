/* Linking-objects properties through the C API (FIEF_COLLECTION_LINKING_OBJECTS):
 * declared in a schema and read back, bad declarations refused, queries
 * naming them as they name @links.Class.property, writes to them refused,
 * and never stored (a realm opened without them cannot name them). */
#include "fief_test.h"

#include <stdlib.h>

/* Person(name, age, <name>: linking objects of <origin_class>.<origin>);
 * DogClub(name, fee, members [Person], president -> Person, rivals {DogClub}).
 * `name` NULL: no linking objects. */
static fief_schema_t *club_schema_with(const char *name, const char *origin_class, const char *origin, uint32_t flags,
                                       fief_type_t type) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Person";
    classes[0].num_properties = name ? 3 : 2;
    classes[1].name = "DogClub";
    classes[1].num_properties = 5;
    fief_property_info_t person[3] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("age", FIEF_TYPE_INT, 0),
                                      t_prop_info(name, type, flags)};
    person[2].collection_type = FIEF_COLLECTION_LINKING_OBJECTS;
    person[2].link_target = origin_class;
    person[2].link_origin_property = origin;
    fief_property_info_t club[5] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("fee", FIEF_TYPE_DOUBLE, 0),
                                    t_prop_info("members", FIEF_TYPE_LINK, 0),
                                    t_prop_info("president", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
                                    t_prop_info("rivals", FIEF_TYPE_LINK, 0)};
    club[2].collection_type = FIEF_COLLECTION_LIST;
    club[2].link_target = "Person";
    club[3].link_target = "Person";
    club[4].collection_type = FIEF_COLLECTION_SET;
    club[4].link_target = "DogClub";
    const fief_property_info_t *props[2] = {person, club};
    return fief_schema_new(classes, 2, props);
}

/* `clubs` from DogClub.<origin>, or (origin NULL) no linking objects. */
static fief_schema_t *club_schema(const char *origin) {
    return club_schema_with(origin ? "clubs" : NULL, "DogClub", origin, 0, FIEF_TYPE_LINK);
}

TEST(declare_and_read_back) {
    fief_schema_t *s = club_schema("members");
    R(s != NULL);
    fief_class_info_t c;
    E(fief_schema_get_class(s, 0, &c));
    EQU(c.num_properties, 3);
    fief_property_info_t p;
    E(fief_schema_get_property(s, 0, 2, &p));
    E(strcmp(p.name, "clubs") == 0);
    EQI(p.collection_type, FIEF_COLLECTION_LINKING_OBJECTS);
    EQI(p.type, FIEF_TYPE_LINK);
    E(p.link_target && strcmp(p.link_target, "DogClub") == 0);
    E(p.link_origin_property && strcmp(p.link_origin_property, "members") == 0);
    EQU(p.flags, 0);
    EQU(p.key, 0);
    bool found = false;
    E(fief_schema_find_property(s, 0, "clubs", &p, &found) && found);
    E(p.link_origin_property && strcmp(p.link_origin_property, "members") == 0);
    E(fief_schema_find_property(s, 0, "name", &p, &found) && found);
    E(p.link_origin_property == NULL);
    EERR(fief_schema_get_property(s, 0, 3, &p), FIEF_ERR_INDEX_OUT_OF_BOUNDS);

    /* The realm's schema shows it (the stored properties first, with keys). */
    fief_realm_t *r = t_open(t_path("clubs.fief"), s, 0);
    R(r != NULL);
    fief_schema_t *got = fief_realm_get_schema(r);
    R(got != NULL);
    size_t index = 0;
    E(fief_schema_find_class(got, "Person", &c, &index, &found) && found);
    EQU(c.num_properties, 3);
    E(fief_schema_get_property(got, index, 2, &p));
    E(strcmp(p.name, "clubs") == 0 && p.collection_type == FIEF_COLLECTION_LINKING_OBJECTS && p.key == 0);
    E(fief_schema_get_property(got, index, 1, &p));
    E(strcmp(p.name, "age") == 0 && p.key != 0);
    /* Every origin kind realm-core allows: a to-one link, a list. */
    fief_schema_t *to_one = club_schema("president");
    E(to_one != NULL);
    E(fief_release(to_one));
    E(fief_release(got));
    E(fief_release(r));
    E(fief_release(s));
}

TEST(bad_declarations) {
    EERRM(club_schema_with("clubs", "Club", "members", 0, FIEF_TYPE_LINK) != NULL, FIEF_ERR_INVALID_SCHEMA,
          "linking-objects property 'Person.clubs' names origin class 'Club', which the schema does not have");
    EERRM(club_schema("players") != NULL, FIEF_ERR_INVALID_SCHEMA, "origin property 'DogClub.players', which does not exist");
    EERRM(club_schema("name") != NULL, FIEF_ERR_INVALID_SCHEMA, "'DogClub.name', which is string, not a link");
    EERRM(club_schema("rivals") != NULL, FIEF_ERR_INVALID_SCHEMA, "which links to class 'DogClub', not 'Person'");
    EERRM(club_schema_with("age", "DogClub", "members", 0, FIEF_TYPE_LINK) != NULL, FIEF_ERR_INVALID_SCHEMA,
          "property 'Person.age' is defined twice");
    EERRM(club_schema_with("clubs", NULL, "members", 0, FIEF_TYPE_LINK) != NULL, FIEF_ERR_INVALID_SCHEMA,
          "has no origin class (link_target)");
    EERRM(club_schema_with("clubs", "DogClub", NULL, 0, FIEF_TYPE_LINK) != NULL, FIEF_ERR_INVALID_SCHEMA,
          "has no origin property (link_origin_property)");
    EERRM(club_schema_with("clubs", "DogClub", "members", FIEF_PROPERTY_NULLABLE, FIEF_TYPE_LINK) != NULL,
          FIEF_ERR_INVALID_SCHEMA, "linking objects take none");
    EERRM(club_schema_with("clubs", "DogClub", "members", 0, FIEF_TYPE_INT) != NULL, FIEF_ERR_INVALID_SCHEMA,
          "linking objects have type FIEF_TYPE_LINK");
    EERRM(club_schema_with("clubs", "DogClub", "\xff", 0, FIEF_TYPE_LINK) != NULL, FIEF_ERR_INVALID_UTF8,
          "link_origin_property");

    /* Two of the same name. */
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Person";
    classes[0].num_properties = 2;
    classes[1].name = "Club";
    classes[1].num_properties = 2;
    fief_property_info_t person[2] = {t_prop_info("clubs", FIEF_TYPE_LINK, 0), t_prop_info("clubs", FIEF_TYPE_LINK, 0)};
    for (int i = 0; i < 2; i++) {
        person[i].collection_type = FIEF_COLLECTION_LINKING_OBJECTS;
        person[i].link_target = "Club";
    }
    person[0].link_origin_property = "members";
    person[1].link_origin_property = "boss";
    fief_property_info_t club[2] = {t_prop_info("members", FIEF_TYPE_LINK, 0), t_prop_info("boss", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE)};
    club[0].collection_type = FIEF_COLLECTION_LIST;
    club[0].link_target = "Person";
    club[1].link_target = "Person";
    const fief_property_info_t *props[2] = {person, club};
    EERRM(fief_schema_new(classes, 2, props) != NULL, FIEF_ERR_INVALID_SCHEMA, "property 'Person.clubs' is defined twice");
    /* An origin property named on anything else. */
    person[1].name = "nick";
    person[1].type = FIEF_TYPE_STRING;
    person[1].collection_type = FIEF_COLLECTION_NONE;
    person[1].link_target = NULL;
    EERRM(fief_schema_new(classes, 2, props) != NULL, FIEF_ERR_INVALID_SCHEMA, "only linking objects");
    person[1].link_origin_property = NULL;
    fief_schema_t *fine = fief_schema_new(classes, 2, props);
    E(fine != NULL);
    E(fief_release(fine));
    person[1].collection_type = 5;
    EERRM(fief_schema_new(classes, 2, props) != NULL, FIEF_ERR_INVALID_SCHEMA, "unknown collection_type 5");
}

/* Ann and Bob in Pooch Pals (fee 10), Ann in Barkers (fee 30), Cy in none. */
typedef struct club_world {
    fief_realm_t *realm;
    fief_class_key_t person_class, club_class;
    fief_property_key_t members, fee;
    fief_object_t *people[3];
    fief_object_t *clubs[2];
} club_world;

static void make_world(club_world *w, const char *file) {
    fief_schema_t *s = club_schema("members");
    R(s != NULL);
    w->realm = t_open(t_path(file), s, 0);
    E(fief_release(s));
    R(w->realm != NULL);
    fief_realm_t *r = w->realm;
    w->person_class = t_class(r, "Person");
    w->club_class = t_class(r, "DogClub");
    w->members = t_prop(r, "DogClub", "members");
    w->fee = t_prop(r, "DogClub", "fee");
    fief_property_key_t person_props[2] = {t_prop(r, "Person", "name"), t_prop(r, "Person", "age")};
    fief_property_key_t club_props[2] = {t_prop(r, "DogClub", "name"), w->fee};
    const char *names[3] = {"Ann", "Bob", "Cy"};
    R(fief_realm_begin_write(r));
    for (int i = 0; i < 3; i++) {
        fief_value_t values[2] = {vs(names[i]), vi(30 + 10 * i)};
        w->people[i] = fief_object_create(r, w->person_class, person_props, values, 2, FIEF_UPDATE_POLICY_ERROR);
        R(w->people[i] != NULL);
    }
    fief_value_t pals[2] = {vs("Pooch Pals"), vd(10)}, barkers[2] = {vs("Barkers"), vd(30)};
    w->clubs[0] = fief_object_create(r, w->club_class, club_props, pals, 2, FIEF_UPDATE_POLICY_ERROR);
    w->clubs[1] = fief_object_create(r, w->club_class, club_props, barkers, 2, FIEF_UPDATE_POLICY_ERROR);
    R(w->clubs[0] && w->clubs[1]);
    fief_object_key_t keys[3];
    for (int i = 0; i < 3; i++) E(fief_object_get_key(w->people[i], &keys[i]));
    fief_list_t *list = fief_object_get_list(w->clubs[0], w->members);
    R(list != NULL);
    fief_value_t two[2] = {vlink(w->person_class, keys[0]), vlink(w->person_class, keys[1])};
    E(fief_list_append(list, two, 2));
    E(fief_release(list));
    list = fief_object_get_list(w->clubs[1], w->members);
    R(list != NULL);
    E(fief_list_append(list, two, 1));
    E(fief_release(list));
    R(fief_realm_commit(r));
}

static void free_world(club_world *w) {
    for (int i = 0; i < 3; i++) E(fief_release(w->people[i]));
    for (int i = 0; i < 2; i++) E(fief_release(w->clubs[i]));
    E(fief_release(w->realm));
}

/* The number of persons `predicate` (with one string argument) matches. */
static size_t matches(fief_realm_t *r, fief_class_key_t cls, const char *predicate, const char *arg) {
    fief_results_t *all = fief_realm_get_objects(r, cls);
    if (!all) return (size_t)-1;
    fief_value_t value = vs(arg ? arg : "");
    fief_query_arg_t qa = {.count = 1, .is_list = false, .values = &value};
    fief_results_t *filtered = fief_results_filter(all, predicate, arg ? &qa : NULL, arg ? 1 : 0);
    size_t n = filtered ? t_count(filtered) : (size_t)-1;
    if (!filtered) t_fail(__FILE__, __LINE__, predicate, "filter failed");
    fief_release(filtered);
    fief_release(all);
    return n;
}

TEST(queries_name_them) {
    club_world w;
    make_world(&w, "query.fief");
    fief_realm_t *r = w.realm;
    static const struct { const char *alias, *links; size_t expected; } cases[] = {
        {"ANY clubs.name == $0", "ANY @links.DogClub.members.name == $0", 2},
        {"clubs.name ==[c] 'barkers'", "@links.DogClub.members.name ==[c] 'barkers'", 1},
        {"ALL clubs.fee < 20", "ALL @links.DogClub.members.fee < 20", 2},
        {"NONE clubs.fee > 20", "NONE @links.DogClub.members.fee > 20", 2},
        {"clubs.@count > 1", "@links.DogClub.members.@count > 1", 1},
        {"clubs.@size == 0", "@links.DogClub.members.@size == 0", 1},
        {"clubs.@avg.fee == 20", "@links.DogClub.members.@avg.fee == 20", 1},
        {"clubs.@sum.fee >= 10", "@links.DogClub.members.@sum.fee >= 10", 2},
        {"SUBQUERY(clubs, $c, $c.name BEGINSWITH 'P').@count > 0", "SUBQUERY(@links.DogClub.members, $c, $c.name BEGINSWITH 'P').@count > 0", 2},
        {"clubs.members.name == 'Bob' AND name != 'Bob'", "@links.DogClub.members.members.name == 'Bob' AND name != 'Bob'", 1},
        {"$0 IN clubs.name", "$0 IN @links.DogClub.members.name", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        EQU(matches(r, w.person_class, cases[i].alias, "Pooch Pals"), cases[i].expected);
        EQU(matches(r, w.person_class, cases[i].links, "Pooch Pals"), cases[i].expected);
    }
    /* Live: a later write shows. */
    fief_results_t *all = fief_realm_get_objects(r, w.person_class);
    R(all != NULL);
    fief_results_t *in_two = fief_results_filter(all, "clubs.@count == 2", NULL, 0);
    R(in_two != NULL);
    EQU(t_count(in_two), 1);
    fief_object_key_t bob;
    E(fief_object_get_key(w.people[1], &bob));
    R(fief_realm_begin_write(r));
    fief_list_t *list = fief_object_get_list(w.clubs[1], w.members);
    R(list != NULL);
    fief_value_t link = vlink(w.person_class, bob);
    E(fief_list_append(list, &link, 1));
    E(fief_release(list));
    R(fief_realm_commit(r));
    EQU(t_count(in_two), 2);
    /* The objects themselves: fief_object_get_backlinks with the origin it names. */
    fief_results_t *ann_clubs = fief_object_get_backlinks(w.people[0], w.club_class, w.members);
    R(ann_clubs != NULL);
    EQU(t_count(ann_clubs), 2);
    fief_value_t avg;
    E(fief_results_aggregate(ann_clubs, w.fee, FIEF_AGGREGATE_AVERAGE, &avg));
    EQD(avg.u.double_value, 20);
    /* Sort and distinct refuse a step to many objects. */
    fief_sort_descriptor_t by_club = {.key_path = "clubs.name", .ascending = true};
    EERRM(fief_results_sort(all, &by_club, 1) != NULL, FIEF_ERR_QUERY_INVALID, "'Person.clubs' is linking objects");
    const char *paths[1] = {"clubs"};
    EERRM(fief_results_distinct(all, paths, 1) != NULL, FIEF_ERR_QUERY_INVALID, "cannot distinct by 'clubs'");
    EERRM(fief_results_filter(all, "clubs.nothing == 1", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID, "has no property 'nothing'");
    E(fief_release(ann_clubs));
    E(fief_release(in_two));
    E(fief_release(all));
    free_world(&w);
}

TEST(writes_refused) {
    club_world w;
    make_world(&w, "writes.fief");
    fief_realm_t *r = w.realm;
    /* The key a linking-objects property reads back with is 0: no write takes it. */
    R(fief_realm_begin_write(r));
    EERRM(fief_object_set_value(w.people[0], 0, vnull()), FIEF_ERR_NO_SUCH_PROPERTY, "linking-objects properties");
    fief_property_key_t zero = 0;
    fief_value_t value = vnull();
    EERRM(fief_object_create(r, w.person_class, &zero, &value, 1, FIEF_UPDATE_POLICY_ERROR) != NULL, FIEF_ERR_NO_SUCH_PROPERTY,
          "take no value");
    EERR(fief_object_get_list(w.people[0], 0) != NULL, FIEF_ERR_NO_SUCH_PROPERTY);
    fief_value_t got;
    EERR(fief_object_get_value(w.people[0], 0, &got), FIEF_ERR_NO_SUCH_PROPERTY);
    fief_realm_cancel(r);
    EQU(t_count_class(r, w.person_class), 3);
    free_world(&w);
}

TEST(not_stored) {
    club_world w;
    make_world(&w, "stored.fief");
    free_world(&w);
    const char *path = t_path("stored.fief");
    /* Opened without a schema (as the fief tool opens files): no clubs. */
    fief_realm_t *r = t_open(path, NULL, 0);
    R(r != NULL);
    fief_schema_t *s = fief_realm_get_schema(r);
    R(s != NULL);
    fief_class_info_t c;
    size_t index = 0;
    bool found = true;
    E(fief_schema_find_class(s, "Person", &c, &index, &found) && found);
    EQU(c.num_properties, 2);
    fief_property_info_t p;
    E(fief_schema_find_property(s, index, "clubs", &p, &found) && !found);
    fief_class_key_t person_class = t_class(r, "Person");
    fief_results_t *all = fief_realm_get_objects(r, person_class);
    R(all != NULL);
    EERRM(fief_results_filter(all, "clubs.@count > 0", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID, "no property 'clubs'");
    EQU(matches(r, person_class, "@links.DogClub.members.@count > 0", NULL), 2);
    E(fief_release(all));
    E(fief_release(s));
    E(fief_release(r));
    /* Dropped or declared again at the same schema version: no migration. */
    fief_schema_t *without = club_schema(NULL), *with = club_schema("members");
    R(without && with);
    r = t_open(path, without, 0);
    R(r != NULL);
    all = fief_realm_get_objects(r, person_class);
    R(all != NULL);
    EERRM(fief_results_filter(all, "clubs.@count > 0", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID, "no property 'clubs'");
    E(fief_release(all));
    /* fief_realm_update_schema declares them too. */
    E(fief_realm_update_schema(r, with));
    EQU(matches(r, person_class, "clubs.@count > 0", NULL), 2);
    E(fief_release(r));
    r = t_open(path, with, 0);
    R(r != NULL);
    EQU(matches(r, person_class, "clubs.@count > 0", NULL), 2);
    uint64_t version = 99;
    E(fief_realm_get_schema_version(r, &version));
    EQU(version, 0);
    E(fief_release(r));
    E(fief_release(without));
    E(fief_release(with));
}

static const t_case cases[] = {
    T(declare_and_read_back), T(bad_declarations), T(queries_name_them), T(writes_refused), T(not_stored),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
