/*
 * graph.c - issue 21's graph workload, Fief vs SQLite.  #included by bench.c
 * before run_graph, which runs its four ops after the map ops, on a fourth
 * pair of fresh databases per round (prefix `graph_` in the table: today's
 * ops of similar names measure other workloads).
 *
 * GW_DOGS dogs `Dog {name, age, owner: Person?}`, each `owner` one of
 * GW_PEOPLE people `Person {name (indexed), dogs: List<Dog>}`, made before
 * any timing (the lists empty).  Then, in this order:
 *
 *   graph_list_append     one transaction: 10 dogs appended to each person's
 *                         list (every dog in one list), commit included
 *   graph_backlink_count  for GW_COUNTS random people, the count of the dogs
 *                         linking to each through Dog.owner
 *   graph_link_follow     every dog in order, its owner's name read through
 *                         the link
 *   graph_delete_linked   one transaction: every person deleted (their lists
 *                         go, every dog's owner becomes null), commit included
 *
 * SQLite: the tables a user would write, `person(id, name)` with an index on
 * name, `dog(id, name, age, owner REFERENCES person(id))` with an index on
 * owner, and the join table `person_dogs(person, position, dog)` keyed by
 * (person, position) WITHOUT ROWID with an index on dog.
 */

#define GW_DOGS 100000
#define GW_PEOPLE (GW_DOGS / 10)
#define GW_LIST_LEN 10
#define GW_COUNTS 10000

typedef struct {
    int32_t dog_owner[GW_DOGS];                 /* a person's index */
    int32_t dog_age[GW_DOGS];
    int32_t list_dog[GW_PEOPLE * GW_LIST_LEN];  /* person p's list: [p * LEN, (p + 1) * LEN); a permutation */
    int32_t owned[GW_PEOPLE];                   /* dogs linking each person */
    int32_t count_people[GW_COUNTS];            /* graph_backlink_count's people (with repeats) */
    int64_t count_expected;                     /* the sum of their counts */
    char names[GW_PEOPLE][8];                   /* person p's name: "p" and 7 letters, distinct */
    uint64_t follow_expected;                   /* sum over dogs of (index + 1) * name_hash(owner's name) */
} GraphData;

static void make_graph_data(GraphData *gd) {
    uint64_t saved = g_rng;
    g_rng = 0x6772617068ull;
    for (int p = 0; p < GW_PEOPLE; p++) {
        /* a bijection of p (odd multiplier, coprime with 26^7): distinct names in no order */
        uint64_t x = ((uint64_t)p * 2654435761ull) % 8031810176ull;
        gd->names[p][0] = 'p';
        for (int k = 7; k >= 1; k--) { gd->names[p][k] = (char)('a' + x % 26); x /= 26; }
    }
    memset(gd->owned, 0, sizeof gd->owned);
    gd->follow_expected = 0;
    for (int i = 0; i < GW_DOGS; i++) {
        gd->dog_owner[i] = (int32_t)(splitmix64() % GW_PEOPLE);
        gd->dog_age[i] = (int32_t)(splitmix64() % 20);
        gd->owned[gd->dog_owner[i]]++;
        gd->follow_expected += (uint64_t)(i + 1) * name_hash(gd->names[gd->dog_owner[i]], 8);
    }
    for (int i = 0; i < GW_DOGS; i++) gd->list_dog[i] = i;
    for (int i = GW_DOGS - 1; i > 0; i--) {
        int j = (int)(splitmix64() % (uint64_t)(i + 1));
        int32_t t = gd->list_dog[i];
        gd->list_dog[i] = gd->list_dog[j];
        gd->list_dog[j] = t;
    }
    gd->count_expected = 0;
    for (int k = 0; k < GW_COUNTS; k++) {
        gd->count_people[k] = (int32_t)(splitmix64() % GW_PEOPLE);
        gd->count_expected += gd->owned[gd->count_people[k]];
    }
    g_rng = saved;
}

/* ---------------------------------- Fief -------------------------------- */

typedef struct {
    char path[8192];
    fief_realm_t *realm;
    fief_class_key_t person_cls, dog_cls;
    fief_property_key_t p_person_name, p_person_dogs, p_dog_name, p_dog_age, p_dog_owner;
    fief_object_key_t people[GW_PEOPLE];
    fief_object_key_t dogs[GW_DOGS];
} GraphWorkFief;

static void gw_fief_open(GraphWorkFief *g, const GraphData *gd, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    fief_property_info_t person[2], dog[3];
    memset(person, 0, sizeof person);
    memset(dog, 0, sizeof dog);
    person[0].name = "name"; person[0].type = FIEF_TYPE_STRING; person[0].flags = FIEF_PROPERTY_INDEXED;
    person[1].name = "dogs"; person[1].type = FIEF_TYPE_LINK; person[1].link_target = "Dog";
    person[1].collection_type = FIEF_COLLECTION_LIST;
    dog[0].name = "name";  dog[0].type = FIEF_TYPE_STRING;
    dog[1].name = "age";   dog[1].type = FIEF_TYPE_INT;
    dog[2].name = "owner"; dog[2].type = FIEF_TYPE_LINK; dog[2].link_target = "Person";
    dog[2].flags = FIEF_PROPERTY_NULLABLE;
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Person"; classes[0].num_properties = 2;
    classes[1].name = "Dog";    classes[1].num_properties = 3;
    const fief_property_info_t *const class_props[2] = {person, dog};
    g->realm = bench_realm_open(path, classes, 2, class_props);
    const char *const pnames[2] = {"name", "dogs"}, *const dnames[3] = {"name", "age", "owner"};
    fief_property_key_t keys[3];
    g->person_cls = bench_class_keys(g->realm, "Person", pnames, keys, 2);
    g->p_person_name = keys[0];
    g->p_person_dogs = keys[1];
    g->dog_cls = bench_class_keys(g->realm, "Dog", dnames, keys, 3);
    g->p_dog_name = keys[0];
    g->p_dog_age = keys[1];
    g->p_dog_owner = keys[2];

    /* The people, then the dogs with their owners, before any timing; the lists stay empty. */
    fief_value_t *values = malloc((size_t)GW_DOGS * 3 * sizeof *values);
    CHECK(values, "out of memory");
    FB(fief_realm_begin_write(g->realm));
    for (int p = 0; p < GW_PEOPLE; p++) values[p] = value_string(gd->names[p], 8);
    FB(fief_object_create_many(g->realm, g->person_cls, &g->p_person_name, 1, values, GW_PEOPLE,
                               FIEF_UPDATE_POLICY_ERROR, g->people));
    for (int i = 0; i < GW_DOGS; i++) {
        values[3 * i] = value_string("dog", 3);
        values[3 * i + 1] = value_int(gd->dog_age[i]);
        memset(&values[3 * i + 2], 0, sizeof values[0]);
        values[3 * i + 2].type = FIEF_TYPE_LINK;
        values[3 * i + 2].u.link.class_key = g->person_cls;
        values[3 * i + 2].u.link.object_key = g->people[gd->dog_owner[i]];
    }
    const fief_property_key_t dk[3] = {g->p_dog_name, g->p_dog_age, g->p_dog_owner};
    FB(fief_object_create_many(g->realm, g->dog_cls, dk, 3, values, GW_DOGS, FIEF_UPDATE_POLICY_ERROR, g->dogs));
    FB(fief_realm_commit(g->realm));
    free(values);
}

static void gw_fief_close(GraphWorkFief *g) {
    bench_realm_close_and_delete(g->realm, g->path);
}

/* One transaction: for each person, its list, one fief_list_append of its 10 dogs. */
static NOINLINE double graph_fief_gw_list_append(GraphWorkFief *g, const GraphData *gd) {
    double t0 = now_ms();
    FB(fief_realm_begin_write(g->realm));
    for (int p = 0; p < GW_PEOPLE; p++) {
        fief_value_t elems[GW_LIST_LEN];
        memset(elems, 0, sizeof elems);
        for (int j = 0; j < GW_LIST_LEN; j++) {
            elems[j].type = FIEF_TYPE_LINK;
            elems[j].u.link.class_key = g->dog_cls;
            elems[j].u.link.object_key = g->dogs[gd->list_dog[p * GW_LIST_LEN + j]];
        }
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->person_cls, g->people[p]));
        fief_list_t *l;
        FH(l, fief_object_get_list(o, g->p_person_dogs));
        FB(fief_list_append(l, elems, GW_LIST_LEN));
        FB(fief_release(l));
        FB(fief_release(o));
    }
    FB(fief_realm_commit(g->realm));
    double t = now_ms() - t0;
    /* Every list holds its 10 dogs in order. */
    for (int p = 0; p < GW_PEOPLE; p++) {
        fief_value_t elems[GW_LIST_LEN + 1];
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->person_cls, g->people[p]));
        fief_list_t *l;
        FH(l, fief_object_get_list(o, g->p_person_dogs));
        size_t size = 0;
        FB(fief_list_count(l, &size));
        CHECK(size == GW_LIST_LEN, "fief graph_list_append: list %d has %zu elements", p, size);
        FB(fief_list_get_range(l, 0, size, elems));
        for (int j = 0; j < GW_LIST_LEN; j++)
            CHECK(elems[j].type == FIEF_TYPE_LINK && elems[j].u.link.object_key == g->dogs[gd->list_dog[p * GW_LIST_LEN + j]],
                  "fief graph_list_append: list %d, element %d is wrong", p, j);
        FB(fief_release(l));
        FB(fief_release(o));
    }
    return t;
}

/* For GW_COUNTS random people: fief_object_get, fief_object_get_backlinks(Dog.owner), fief_results_count. */
static NOINLINE double graph_fief_gw_backlink_count(GraphWorkFief *g, const GraphData *gd) {
    int64_t sum = 0;
    double t0 = now_ms();
    for (int k = 0; k < GW_COUNTS; k++) {
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->person_cls, g->people[gd->count_people[k]]));
        fief_results_t *r;
        FH(r, fief_object_get_backlinks(o, g->dog_cls, g->p_dog_owner));
        size_t c = 0;
        FB(fief_results_count(r, &c));
        sum += (int64_t)c;
        FB(fief_release(r));
        FB(fief_release(o));
    }
    double t = now_ms() - t0;
    CHECK(sum == gd->count_expected, "fief graph_backlink_count: %lld dogs counted, expected %lld", (long long)sum,
          (long long)gd->count_expected);
    return t;
}

/* Every dog in order: its owner link (fief_results_get_values), then the
 * owner's name by the keys the link holds (no object handle). */
static NOINLINE double graph_fief_gw_link_follow(GraphWorkFief *g, const GraphData *gd) {
    double t0 = now_ms();
    fief_results_t *all;
    FH(all, fief_realm_get_objects(g->realm, g->dog_cls));
    size_t n = 0;
    FB(fief_results_count(all, &n));
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        fief_value_t link;
        FB(fief_results_get_values(all, i, &g->p_dog_owner, 1, &link));
        CHECK(link.type == FIEF_TYPE_LINK, "fief graph_link_follow: dog %zu has no owner", i);
        fief_value_t name;
        FB(fief_object_get_values_by_key(g->realm, link.u.link.class_key, link.u.link.object_key, &g->p_person_name, 1,
                                         &name));
        sum += (uint64_t)(i + 1) * name_hash(name.u.string.data, name.u.string.size);
    }
    FB(fief_release(all));
    double t = now_ms() - t0;
    CHECK(n == GW_DOGS, "fief graph_link_follow: %zu dogs", n);
    CHECK(sum == gd->follow_expected, "fief graph_link_follow: wrong owners' names (checksum)");
    return t;
}

/* One transaction: every person deleted (fief_realm_delete_all_of_class). */
static NOINLINE double graph_fief_gw_delete_linked(GraphWorkFief *g, const GraphData *gd) {
    (void)gd;
    double t0 = now_ms();
    FB(fief_realm_begin_write(g->realm));
    FB(fief_realm_delete_all_of_class(g->realm, g->person_cls));
    FB(fief_realm_commit(g->realm));
    double t = now_ms() - t0;
    /* No person left; every dog kept, its owner null. */
    fief_results_t *all;
    size_t n = 0;
    FH(all, fief_realm_get_objects(g->realm, g->person_cls));
    FB(fief_results_count(all, &n));
    FB(fief_release(all));
    CHECK(n == 0, "fief graph_delete_linked: %zu people left", n);
    FH(all, fief_realm_get_objects(g->realm, g->dog_cls));
    FB(fief_results_count(all, &n));
    CHECK(n == GW_DOGS, "fief graph_delete_linked: %zu dogs left", n);
    for (size_t i = 0; i < n; i++) {
        fief_value_t link;
        FB(fief_results_get_values(all, i, &g->p_dog_owner, 1, &link));
        CHECK(link.type == FIEF_TYPE_NULL, "fief graph_delete_linked: dog %zu still has an owner", i);
    }
    FB(fief_release(all));
    return t;
}

/* --------------------------------- SQLite ------------------------------- */

typedef struct {
    char path[8192];
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *insert_element, *count_owned, *follow, *delete_elements, *null_owners,
        *delete_people, *list_sel, *count_people, *count_owners;
} GraphWorkSql;

/* SQLite's people and dogs, as graph.c and query.c both model them: person
 * (name indexed), dog with its owner (indexed), and the join table
 * person_dogs for a person's list of dogs, keyed by (person, position),
 * with an index on dog for the way back. */
static void sql_create_people_and_dogs(Sql *s) {
    sql_exec(s, "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
    sql_exec(s, "CREATE INDEX person_name ON person(name)");
    sql_exec(s, "CREATE TABLE dog(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, "
                "owner INTEGER REFERENCES person(id))");
    sql_exec(s, "CREATE INDEX dog_owner ON dog(owner)");
    sql_exec(s, "CREATE TABLE person_dogs(person INTEGER NOT NULL REFERENCES person(id), position INTEGER NOT NULL, "
                "dog INTEGER NOT NULL REFERENCES dog(id), PRIMARY KEY(person, position)) WITHOUT ROWID");
    sql_exec(s, "CREATE INDEX person_dogs_dog ON person_dogs(dog)");
}

static void gw_sql_open(GraphWorkSql *g, const GraphData *gd, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    g->db = sql_open_wal(path);
    Sql s = sql_on(g->db);
    sql_create_people_and_dogs(&s);
    /* Ids are indexes + 1. */
    sql_exec(&s, "BEGIN");
    sqlite3_stmt *st = sql_prep(&s, "INSERT INTO person(id, name) VALUES (?, ?)");
    for (int p = 0; p < GW_PEOPLE; p++) {
        SQ(g->db, sqlite3_bind_int64(st, 1, p + 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_text(st, 2, gd->names[p], 8, SQLITE_STATIC), SQLITE_OK);
        sql_step_done(&s, st);
    }
    sqlite3_finalize(st);
    st = sql_prep(&s, "INSERT INTO dog(id, name, age, owner) VALUES (?, 'dog', ?, ?)");
    for (int i = 0; i < GW_DOGS; i++) {
        SQ(g->db, sqlite3_bind_int64(st, 1, i + 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(st, 2, gd->dog_age[i]), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(st, 3, gd->dog_owner[i] + 1), SQLITE_OK);
        sql_step_done(&s, st);
    }
    sqlite3_finalize(st);
    sql_exec(&s, "COMMIT");
    g->begin = sql_prep(&s, "BEGIN");
    g->commit = sql_prep(&s, "COMMIT");
    g->insert_element = sql_prep(&s, "INSERT INTO person_dogs(person, position, dog) VALUES (?, ?, ?)");
    g->count_owned = sql_prep(&s, "SELECT count(*) FROM dog WHERE owner = ?");
    g->follow = sql_prep(&s, "SELECT person.name FROM dog LEFT JOIN person ON person.id = dog.owner ORDER BY dog.id");
    g->delete_elements = sql_prep(&s, "DELETE FROM person_dogs");
    g->null_owners = sql_prep(&s, "UPDATE dog SET owner = NULL WHERE owner IS NOT NULL");
    g->delete_people = sql_prep(&s, "DELETE FROM person");
    g->list_sel = sql_prep(&s, "SELECT dog FROM person_dogs WHERE person = ? ORDER BY position");
    g->count_people = sql_prep(&s, "SELECT count(*) FROM person");
    g->count_owners = sql_prep(&s, "SELECT count(*), count(owner) FROM dog");
}

static void gw_sql_close(GraphWorkSql *g) {
    sqlite3_stmt *const all[] = {g->begin, g->commit, g->insert_element, g->count_owned, g->follow,
                                 g->delete_elements, g->null_owners, g->delete_people, g->list_sel,
                                 g->count_people, g->count_owners};
    sql_close_and_delete_db(g->db, g->path, all, sizeof all / sizeof all[0]);
}

/* One transaction: 100,000 rows (person, position, dog) into the join table. */
static NOINLINE double graph_sql_gw_list_append(GraphWorkSql *g, const GraphData *gd) {
    Sql s = sql_on(g->db);
    double t0 = now_ms();
    sql_step_done(&s, g->begin);
    for (int p = 0; p < GW_PEOPLE; p++) {
        for (int j = 0; j < GW_LIST_LEN; j++) {
            SQ(g->db, sqlite3_bind_int64(g->insert_element, 1, p + 1), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(g->insert_element, 2, j), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(g->insert_element, 3, gd->list_dog[p * GW_LIST_LEN + j] + 1), SQLITE_OK);
            sql_step_done(&s, g->insert_element);
        }
    }
    sql_step_done(&s, g->commit);
    double t = now_ms() - t0;
    for (int p = 0; p < GW_PEOPLE; p++) {
        SQ(g->db, sqlite3_bind_int64(g->list_sel, 1, p + 1), SQLITE_OK);
        int j = 0, rc;
        while ((rc = sqlite3_step(g->list_sel)) == SQLITE_ROW) {
            CHECK(j < GW_LIST_LEN && sqlite3_column_int64(g->list_sel, 0) == gd->list_dog[p * GW_LIST_LEN + j] + 1,
                  "sqlite graph_list_append: list %d, element %d is wrong", p, j);
            j++;
        }
        CHECK(rc == SQLITE_DONE, "sqlite graph_list_append: %s", sqlite3_errmsg(g->db));
        SQ(g->db, sqlite3_reset(g->list_sel), SQLITE_OK);
        CHECK(j == GW_LIST_LEN, "sqlite graph_list_append: list %d has %d elements", p, j);
    }
    return t;
}

static NOINLINE double graph_sql_gw_backlink_count(GraphWorkSql *g, const GraphData *gd) {
    Sql s = sql_on(g->db);
    int64_t sum = 0;
    double t0 = now_ms();
    for (int k = 0; k < GW_COUNTS; k++) {
        SQ(g->db, sqlite3_bind_int64(g->count_owned, 1, gd->count_people[k] + 1), SQLITE_OK);
        sum += sql_scalar(&s, g->count_owned);
    }
    double t = now_ms() - t0;
    CHECK(sum == gd->count_expected, "sqlite graph_backlink_count: %lld dogs counted, expected %lld",
          (long long)sum, (long long)gd->count_expected);
    return t;
}

static NOINLINE double graph_sql_gw_link_follow(GraphWorkSql *g, const GraphData *gd) {
    double t0 = now_ms();
    uint64_t sum = 0;
    int64_t i = 0;
    int rc;
    while ((rc = sqlite3_step(g->follow)) == SQLITE_ROW) {
        i++;
        const char *name = (const char *)sqlite3_column_text(g->follow, 0);
        CHECK(name, "sqlite graph_link_follow: dog %lld has no owner", (long long)i);
        sum += (uint64_t)i * name_hash(name, (size_t)sqlite3_column_bytes(g->follow, 0));
    }
    CHECK(rc == SQLITE_DONE, "sqlite graph_link_follow: %s", sqlite3_errmsg(g->db));
    SQ(g->db, sqlite3_reset(g->follow), SQLITE_OK);
    double t = now_ms() - t0;
    CHECK(i == GW_DOGS, "sqlite graph_link_follow: %lld dogs", (long long)i);
    CHECK(sum == gd->follow_expected, "sqlite graph_link_follow: wrong owners' names (checksum)");
    return t;
}

/* One transaction: the join table's rows, the owners, the people (the three
 * set-based statements: SQLite's fastest form; a foreign key's ON DELETE
 * actions would run one lookup per person). */
static NOINLINE double graph_sql_gw_delete_linked(GraphWorkSql *g, const GraphData *gd) {
    (void)gd;
    Sql s = sql_on(g->db);
    double t0 = now_ms();
    sql_step_done(&s, g->begin);
    sql_step_done(&s, g->delete_elements);
    sql_step_done(&s, g->null_owners);
    sql_step_done(&s, g->delete_people);
    sql_step_done(&s, g->commit);
    double t = now_ms() - t0;
    int64_t people = sql_scalar(&s, g->count_people);
    CHECK(people == 0, "sqlite graph_delete_linked: %lld people left", (long long)people);
    SQ(g->db, sqlite3_step(g->count_owners), SQLITE_ROW);
    int64_t dogs = sqlite3_column_int64(g->count_owners, 0), owners = sqlite3_column_int64(g->count_owners, 1);
    SQ(g->db, sqlite3_step(g->count_owners), SQLITE_DONE);
    SQ(g->db, sqlite3_reset(g->count_owners), SQLITE_OK);
    CHECK(dogs == GW_DOGS && owners == 0, "sqlite graph_delete_linked: %lld dogs, %lld with an owner",
          (long long)dogs, (long long)owners);
    return t;
}
