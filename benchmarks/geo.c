/* Geospatial workload (op geo_box), #included by bench.c after run_graph.
 *
 * GEO_POINTS places, each at a deterministic pseudo-random point of a region
 * (longitudes -10..10, latitudes 35..55).  Fief stores each place's point as
 * Realm does: a `location` link to an embedded GeoJSON object Position
 * {type: "Point", coordinates: [lon, lat]}, and counts the places in a box
 * with fief_results_count on "location GEOWITHIN $0" (the box a
 * FIEF_TYPE_GEO_SHAPE argument).  SQLite keeps the points in an R*Tree
 * (CREATE VIRTUAL TABLE place_rtree USING rtree(id, minX, maxX, minY, maxY),
 * each point a degenerate rectangle) and counts the entries inside the box.
 * The timed op runs GEO_BOXES boxes of different selectivity (about 0.1%,
 * 1%, 10% and 40% of the places) and adds their times; each box is also
 * reported on its own.
 *
 * Equal answers.  A realm-core geoBox is the polygon of its four corners
 * with great-circle edges: its sides along meridians are exactly the
 * R*Tree's, but its "horizontal" edges bulge poleward between the corners
 * (up to atan(tan(lat) / cos(width / 2)) at mid-width), while the R*Tree's
 * rectangle is bounded by parallels.  R*Tree coordinates are also 32-bit
 * floats, rounded outward.  So no point is placed in the band between a
 * box's parallel and its great-circle edge (plus 0.001 degree each side),
 * nor within 0.001 degree of a box's longitudes: there the two definitions
 * agree on every point, and both engines must give exactly the count of a
 * plain rectangle test over the generated points (checked in --check mode
 * and in every timed round). */

#include <math.h>

#define GEO_POINTS 100000
#define GEO_BOXES 4
#define GEO_TARGET 0.5
#define GEO_MARGIN 0.001

typedef struct {
    double lon_lo, lat_lo, lon_hi, lat_hi;
    const char *label;
} GeoBoxSpec;

/* Boxes inside the region, selectivity about 0.1%, 1%, 10% and 40%. */
static const GeoBoxSpec GEO_BOX_SPECS[GEO_BOXES] = {
    {1.25, 44.15, 1.88, 44.78, "geo_box_0.1%"},
    {-3.3, 38.2, -1.3, 40.2, "geo_box_1%"},
    {-6.1, 41.05, 0.2, 47.4, "geo_box_10%"},
    {-7.7, 37.3, 4.95, 50.0, "geo_box_40%"},
};

typedef struct {
    double lon[GEO_POINTS], lat[GEO_POINTS];
    size_t expected[GEO_BOXES]; /* points inside each box (rectangle test) */
} GeoData;

/* The highest latitude the great-circle edge at `lat` between longitudes
 * `lo` and `hi` reaches (northern hemisphere). */
static double geo_edge_peak(double lat, double lo, double hi) {
    double half = (hi - lo) / 2 * M_PI / 180;
    return atan(tan(lat * M_PI / 180) / cos(half)) * 180 / M_PI;
}

/* Whether a point at (lon, lat) is near a box edge, where a rectangle and a
 * great-circle box may disagree (or float rounding may). */
static int geo_near_an_edge(double lon, double lat) {
    for (int b = 0; b < GEO_BOXES; b++) {
        const GeoBoxSpec *s = &GEO_BOX_SPECS[b];
        if (fabs(lon - s->lon_lo) < GEO_MARGIN || fabs(lon - s->lon_hi) < GEO_MARGIN) return 1;
        double edges[2] = {s->lat_lo, s->lat_hi};
        for (int e = 0; e < 2; e++) {
            double peak = geo_edge_peak(edges[e], s->lon_lo, s->lon_hi);
            if (lat > edges[e] - GEO_MARGIN && lat < peak + GEO_MARGIN) return 1;
        }
    }
    return 0;
}

static void make_geo_data(GeoData *gd) {
    uint64_t saved = g_rng;
    g_rng = 0x67656f626f78ULL;
    for (int i = 0; i < GEO_POINTS; i++) {
        double lon, lat;
        do {
            /* 2^-53 steps: uniform doubles in [0, 1). */
            lon = -10 + 20 * (double)(splitmix64() >> 11) / 9007199254740992.0;
            lat = 35 + 20 * (double)(splitmix64() >> 11) / 9007199254740992.0;
        } while (geo_near_an_edge(lon, lat));
        gd->lon[i] = lon;
        gd->lat[i] = lat;
    }
    g_rng = saved;
    for (int b = 0; b < GEO_BOXES; b++) {
        const GeoBoxSpec *s = &GEO_BOX_SPECS[b];
        size_t n = 0;
        for (int i = 0; i < GEO_POINTS; i++)
            n += gd->lon[i] >= s->lon_lo && gd->lon[i] <= s->lon_hi && gd->lat[i] >= s->lat_lo && gd->lat[i] <= s->lat_hi;
        gd->expected[b] = n;
    }
}

typedef struct {
    char path[8192];
    fief_realm_t *realm;
    fief_class_key_t place_cls;
    fief_results_t *all;
} GeoFief;

static void geo_fief_open(GeoFief *g, const GeoData *gd, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    fief_property_info_t position_props[2], place_props[2];
    memset(position_props, 0, sizeof position_props);
    memset(place_props, 0, sizeof place_props);
    position_props[0].name = "type"; position_props[0].type = FIEF_TYPE_STRING;
    position_props[1].name = "coordinates"; position_props[1].type = FIEF_TYPE_DOUBLE;
    position_props[1].collection_type = FIEF_COLLECTION_LIST;
    place_props[0].name = "id"; place_props[0].type = FIEF_TYPE_INT;
    place_props[1].name = "location"; place_props[1].type = FIEF_TYPE_LINK;
    place_props[1].link_target = "Position"; place_props[1].flags = FIEF_PROPERTY_NULLABLE;
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Position"; classes[0].num_properties = 2; classes[0].flags = FIEF_CLASS_EMBEDDED;
    classes[1].name = "Place";    classes[1].num_properties = 2;
    const fief_property_info_t *const class_props[2] = {position_props, place_props};
    g->realm = bench_realm_open(path, classes, 2, class_props);
    const char *const position_names[2] = {"type", "coordinates"}, *const place_names[2] = {"id", "location"};
    fief_property_key_t position_keys[2], place_keys[2];
    bench_class_keys(g->realm, "Position", position_names, position_keys, 2);
    g->place_cls = bench_class_keys(g->realm, "Place", place_names, place_keys, 2);
    fief_property_key_t p_type = position_keys[0], p_coordinates = position_keys[1];
    fief_property_key_t p_id = place_keys[0], p_location = place_keys[1];

    /* The data, before any timing: each place, its embedded point, its
     * coordinates.  Its time (the spatial index's upkeep included) is
     * reported on stderr, apart from the op. */
    double load_start = now_ms();
    FB(fief_realm_begin_write(g->realm));
    fief_value_t point_type = value_string("Point", 5);
    for (int i = 0; i < GEO_POINTS; i++) {
        fief_value_t id = value_int(i);
        fief_object_t *place, *position;
        fief_list_t *coordinates;
        FH(place, fief_object_create(g->realm, g->place_cls, &p_id, &id, 1, FIEF_UPDATE_POLICY_ERROR));
        FH(position, fief_object_create_embedded(place, p_location));
        FB(fief_object_set_value(position, p_type, point_type));
        FH(coordinates, fief_object_get_list(position, p_coordinates));
        const fief_value_t lonlat[2] = {value_double(gd->lon[i]), value_double(gd->lat[i])};
        FB(fief_list_append(coordinates, lonlat, 2));
        FB(fief_release(coordinates));
        FB(fief_release(position));
        FB(fief_release(place));
    }
    FB(fief_realm_commit(g->realm));
    fprintf(stderr, "bench: geo load      fief %10.3f ms  (%d places with points, one transaction)\n", now_ms() - load_start, GEO_POINTS);
    FH(g->all, fief_realm_get_objects(g->realm, g->place_cls));
}

static void geo_fief_close(GeoFief *g) {
    FB(fief_release(g->all));
    bench_realm_close_and_delete(g->realm, g->path);
}

/* Count the places in box `b`: a filter with the box as argument, then its count. */
static NOINLINE double geo_fief_box(GeoFief *g, const GeoData *gd, int b) {
    const GeoBoxSpec *s = &GEO_BOX_SPECS[b];
    fief_geo_shape_t box;
    memset(&box, 0, sizeof box);
    box.kind = FIEF_GEO_BOX;
    box.corners[0].longitude = s->lon_lo;
    box.corners[0].latitude = s->lat_lo;
    box.corners[1].longitude = s->lon_hi;
    box.corners[1].latitude = s->lat_hi;
    fief_value_t shape;
    memset(&shape, 0, sizeof shape);
    shape.type = FIEF_TYPE_GEO_SHAPE;
    shape.u.geo_shape = &box;
    fief_query_arg_t arg = {1, false, &shape};
    double t0 = now_ms();
    fief_results_t *inside;
    FH(inside, fief_results_filter(g->all, "location GEOWITHIN $0", &arg, 1));
    size_t n = 0;
    FB(fief_results_count(inside, &n));
    FB(fief_release(inside));
    double t = now_ms() - t0;
    CHECK(n == gd->expected[b], "fief %s: %zu places, expected %zu", s->label, n, gd->expected[b]);
    return t;
}

typedef struct {
    char path[8192];
    sqlite3 *db;
    sqlite3_stmt *count_in_box;
} GeoSql;

static void geo_sql_open(GeoSql *g, const GeoData *gd, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    g->db = sql_open_wal(path);
    Sql s = sql_on(g->db);
    sqlite3_stmt *st;
    sql_exec(&s, "CREATE TABLE place(id INTEGER PRIMARY KEY)");
    sql_exec(&s, "CREATE VIRTUAL TABLE place_rtree USING rtree(id, minX, maxX, minY, maxY)");
    sql_exec(&s, "BEGIN");
    sqlite3_stmt *place = sql_prep(&s, "INSERT INTO place(id) VALUES (?)");
    st = sql_prep(&s, "INSERT INTO place_rtree(id, minX, maxX, minY, maxY) VALUES (?, ?, ?, ?, ?)");
    for (int i = 0; i < GEO_POINTS; i++) {
        SQ(g->db, sqlite3_bind_int64(place, 1, i + 1), SQLITE_OK);
        sql_step_done(&s, place);
        SQ(g->db, sqlite3_bind_int64(st, 1, i + 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_double(st, 2, gd->lon[i]), SQLITE_OK);
        SQ(g->db, sqlite3_bind_double(st, 3, gd->lon[i]), SQLITE_OK);
        SQ(g->db, sqlite3_bind_double(st, 4, gd->lat[i]), SQLITE_OK);
        SQ(g->db, sqlite3_bind_double(st, 5, gd->lat[i]), SQLITE_OK);
        sql_step_done(&s, st);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(place);
    sql_exec(&s, "COMMIT");
    g->count_in_box = sql_prep(&s, "SELECT count(*) FROM place_rtree WHERE minX >= ?1 AND maxX <= ?2 AND minY >= ?3 AND maxY <= ?4");
}

static void geo_sql_close(GeoSql *g) {
    sql_close_and_delete_db(g->db, g->path, &g->count_in_box, 1);
}

static NOINLINE double geo_sql_box(GeoSql *g, const GeoData *gd, int b) {
    const GeoBoxSpec *s = &GEO_BOX_SPECS[b];
    double t0 = now_ms();
    SQ(g->db, sqlite3_bind_double(g->count_in_box, 1, s->lon_lo), SQLITE_OK);
    SQ(g->db, sqlite3_bind_double(g->count_in_box, 2, s->lon_hi), SQLITE_OK);
    SQ(g->db, sqlite3_bind_double(g->count_in_box, 3, s->lat_lo), SQLITE_OK);
    SQ(g->db, sqlite3_bind_double(g->count_in_box, 4, s->lat_hi), SQLITE_OK);
    SQ(g->db, sqlite3_step(g->count_in_box), SQLITE_ROW);
    size_t n = (size_t)sqlite3_column_int64(g->count_in_box, 0);
    SQ(g->db, sqlite3_reset(g->count_in_box), SQLITE_OK);
    double t = now_ms() - t0;
    CHECK(n == gd->expected[b], "sqlite %s: %zu places, expected %zu", s->label, n, gd->expected[b]);
    return t;
}

/* The geo op: warm-up + ROUNDS rounds (one in check mode) on one pair of
 * databases (the op only reads), Fief and SQLite alternating first; prints
 * the boxes and their total in the graph table's format and a "geo targets"
 * line.  Runs when FIEF_BENCH_OPS is unset or names geo_box. */
static void run_geo(int check_only, const char *ops_env, int sqlite_only) {
    if (sqlite_only || !op_named(ops_env, "geo_box")) {
        if (check_only) printf("check %-14s skipped (FIEF_BENCH_OPS)\n", "geo_box");
        return;
    }
    static GeoData gd;
    static GeoFief gf;
    GeoSql gs;
    static double times[2][GEO_BOXES + 1][ROUNDS];
    char p[8192];
    make_geo_data(&gd);
    snprintf(p, sizeof p, "%s/geo-fief.realm", g_tmpdir);
    geo_fief_open(&gf, &gd, p);
    snprintf(p, sizeof p, "%s/geo-sqlite.db", g_tmpdir);
    geo_sql_open(&gs, &gd, p);
    int total = check_only ? 1 : ROUNDS + 1;
    for (int r = 0; r < total; r++) {
        double t[2][GEO_BOXES + 1] = {{0}};
        for (int side = 0; side < 2; side++) {
            int fief_side = (r % 2 == 0) ? side == 0 : side == 1;
            for (int b = 0; b < GEO_BOXES; b++) {
                double v = fief_side ? geo_fief_box(&gf, &gd, b) : geo_sql_box(&gs, &gd, b);
                t[fief_side ? 0 : 1][b] = v;
                t[fief_side ? 0 : 1][GEO_BOXES] += v;
            }
        }
        if (check_only) {
            for (int b = 0; b < GEO_BOXES; b++)
                printf("check %-14s ok  (%zu places; fief %.3f ms, sqlite %.3f ms)\n", GEO_BOX_SPECS[b].label,
                       gd.expected[b], t[0][b], t[1][b]);
        } else if (r > 0) {
            for (int b = 0; b <= GEO_BOXES; b++) {
                times[0][b][r - 1] = t[0][b];
                times[1][b][r - 1] = t[1][b];
            }
        } else {
            fprintf(stderr, "bench: warm-up %-14s fief %10.3f ms  sqlite %10.3f ms\n", "geo_box", t[0][GEO_BOXES], t[1][GEO_BOXES]);
        }
    }
    geo_fief_close(&gf);
    geo_sql_close(&gs);
    if (check_only) return;
    printf("%-14s %10s %14s %14s %10s\n", "geo op", "elements", "fief_ms", "sqlite_ms", "fief/sqlite");
    for (int b = 0; b <= GEO_BOXES; b++) {
        double mf = median(times[0][b], ROUNDS), ms = median(times[1][b], ROUNDS);
        printf("%-14s %10d %14.3f %14.3f %10.3f\n", b < GEO_BOXES ? GEO_BOX_SPECS[b].label : "geo_box", GEO_POINTS, mf, ms,
               ms > 0 ? mf / ms : 0);
    }
    double mf = median(times[0][GEO_BOXES], ROUNDS), ms = median(times[1][GEO_BOXES], ROUNDS);
    double ratio = ms > 0 ? mf / ms : 0;
    int ok = ratio <= GEO_TARGET;
    printf("geo targets: %d/1 met: geo_box %.3f%s%.2f %s\n", ok, ratio, ok ? "<=" : ">", GEO_TARGET, ok ? "MET" : "MISSED");
}
