/* Geospatial queries through the C API: points stored as embedded GeoJSON
 * objects (Position {type, coordinates}), `location GEOWITHIN` with shapes
 * written in the predicate, coordinates as arguments, shapes as arguments
 * (FIEF_TYPE_GEO_SHAPE and strings), `IN $0` with a shape, ANY/ALL/NONE over
 * a list of points; invalid shapes, wrong argument types, a shape value
 * anywhere but a query argument, bad shape structs; the spatial index kept
 * exact by random writes (against a brute-force circle test), and by a
 * writer killed mid-write (fief_file_verify checks the index against the
 * data); descriptions writing shape arguments as literal shapes. */
#include "fief_test.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Restaurant(name, location -> Position, locations: list<Position>, other -> Restaurant);
 * Position embedded (type, coordinates: list<double>). */
static fief_schema_t *geo_schema(void) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Position";
    classes[0].num_properties = 2;
    classes[0].flags = FIEF_CLASS_EMBEDDED;
    classes[1].name = "Restaurant";
    classes[1].num_properties = 4;
    fief_property_info_t position[2] = {t_prop_info("type", FIEF_TYPE_STRING, 0), t_prop_info("coordinates", FIEF_TYPE_DOUBLE, 0)};
    position[1].collection_type = FIEF_COLLECTION_LIST;
    fief_property_info_t restaurant[4] = {t_prop_info("name", FIEF_TYPE_STRING, 0),
                                          t_prop_info("location", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
                                          t_prop_info("locations", FIEF_TYPE_LINK, 0),
                                          t_prop_info("other", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE)};
    restaurant[1].link_target = "Position";
    restaurant[2].link_target = "Position";
    restaurant[2].collection_type = FIEF_COLLECTION_LIST;
    restaurant[3].link_target = "Restaurant";
    const fief_property_info_t *props[2] = {position, restaurant};
    return fief_schema_new(classes, 2, props);
}

/* Fills `position` as a GeoJSON point of `type` with `n` coordinates. */
static void set_point(fief_realm_t *r, fief_object_t *position, const char *type, const double *coordinates, size_t n) {
    R(position != NULL);
    E(fief_object_set_value(position, t_prop(r, "Position", "type"), vs(type)));
    fief_list_t *list = fief_object_get_list(position, t_prop(r, "Position", "coordinates"));
    R(list != NULL);
    fief_value_t values[4];
    for (size_t i = 0; i < n; i++) values[i] = vd(coordinates[i]);
    E(fief_list_append(list, values, n));
    E(fief_release(list));
}

static fief_object_t *new_restaurant(fief_realm_t *r, const char *name);

/* A restaurant with a location at (lon, lat). */
static void restaurant(fief_realm_t *r, const char *name, double lon, double lat) {
    fief_object_t *o = new_restaurant(r, name);
    R(o != NULL);
    fief_object_t *position = fief_object_create_embedded(o, t_prop(r, "Restaurant", "location"));
    double coordinates[2] = {lon, lat};
    set_point(r, position, "Point", coordinates, 2);
    E(fief_release(position));
    E(fief_release(o));
}

/* The number of restaurants matching `predicate` with `args`, or -1 (an error). */
static long count(fief_results_t *all, const char *predicate, const fief_query_arg_t *args, size_t num_args) {
    fief_results_t *filtered = fief_results_filter(all, predicate, args, num_args);
    if (filtered == NULL) {
        fief_error_t e;
        memset(&e, 0, sizeof e);
        fief_get_last_error(&e);
        fprintf(stderr, "  %s: %s\n", predicate, e.message ? e.message : "(no message)");
        return -1;
    }
    size_t n = 0;
    bool ok = fief_results_count(filtered, &n);
    fief_release(filtered);
    return ok ? (long)n : -1;
}

static fief_query_arg_t arg1(const fief_value_t *value) {
    fief_query_arg_t a = {1, false, value};
    return a;
}

static fief_value_t vshape(const fief_geo_shape_t *shape) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_GEO_SHAPE;
    v.u.geo_shape = shape;
    return v;
}

/* Shapes for arguments (a polygon points at `rings`, which must outlive it). */
static fief_geo_shape_t geo_box(double lon0, double lat0, double lon1, double lat1) {
    fief_geo_shape_t box;
    memset(&box, 0, sizeof box);
    box.kind = FIEF_GEO_BOX;
    box.corners[0].longitude = lon0;
    box.corners[0].latitude = lat0;
    box.corners[1].longitude = lon1;
    box.corners[1].latitude = lat1;
    return box;
}

static fief_geo_shape_t geo_circle(double lon, double lat, double radians) {
    fief_geo_shape_t circle;
    memset(&circle, 0, sizeof circle);
    circle.kind = FIEF_GEO_CIRCLE;
    circle.center.longitude = lon;
    circle.center.latitude = lat;
    circle.radius = radians;
    return circle;
}

static fief_geo_shape_t geo_polygon(const fief_geo_ring_t *rings, size_t num_rings) {
    fief_geo_shape_t polygon;
    memset(&polygon, 0, sizeof polygon);
    polygon.kind = FIEF_GEO_POLYGON;
    polygon.rings = rings;
    polygon.num_rings = num_rings;
    return polygon;
}

/* A new restaurant called `name` (in a write transaction). */
static fief_object_t *new_restaurant(fief_realm_t *r, const char *name) {
    fief_property_key_t name_key = t_prop(r, "Restaurant", "name");
    fief_value_t v = vs(name);
    return fief_object_create(r, t_class(r, "Restaurant"), &name_key, &v, 1, FIEF_UPDATE_POLICY_ERROR);
}

static fief_results_t *all_restaurants(fief_realm_t *r) { return fief_realm_get_objects(r, t_class(r, "Restaurant")); }

/* realm-core's Parser_Geospatial restaurants. */
static fief_realm_t *open_restaurants(fief_schema_t **schema) {
    *schema = geo_schema();
    if (*schema == NULL) return NULL;
    fief_realm_t *r = t_open(t_path("geo.fief"), *schema, 0);
    if (r == NULL) return NULL;
    if (!fief_realm_begin_write(r)) return NULL;
    restaurant(r, "one", 0, 0);
    restaurant(r, "two", 0.5, 0.5);
    restaurant(r, "three", 1, 1);
    restaurant(r, "four", 2, 2);
    restaurant(r, "Red Fish Blue Fish", -123.37039, 48.42437);
    restaurant(r, "Foo", -123.36253, 48.42566);
    restaurant(r, "Superbaba", -123.3615, 48.4267);
    restaurant(r, "Sen Zushi", -123.3579, 48.42398);
    if (!fief_realm_commit(r)) return NULL;
    return r;
}

TEST(literal_shapes) {
    fief_schema_t *s = NULL;
    fief_realm_t *r = open_restaurants(&s);
    R(r != NULL);
    fief_results_t *all = all_restaurants(r);
    R(all != NULL);
    struct { const char *predicate; long expected; } table[] = {
        {"location geoWithin geoBox([0.2, 0.2], [0.7, 0.7])", 1},
        {"location geoWithin geoBox([0.2, 0.2, 0.2], [0.7, 0.7, 0.7])", 1},
        {"location geoWithin geoCircle([0.3, 0.3], 1)", 4},
        {"location geoWithin geoPolygon({[0.0, 0.0], [1.0, 0.0], [1, 1], [0, 1], [0.0, 0.0]})", 1},
        {"location geoWithin geoPolygon({[0.0, 0.0], [1.0, 0.0], [1, 1], [0, 1], [0.0, 0.0]}, "
         "{[0.25, 0.25], [0.75, 0.25], [0.75, 0.75], [0.25, 0.75], [0.25, 0.25]})", 0},
        {"location GEOWITHIN geoCircle([-123.36197, 48.42626], 0.000021950110534)", 2},
        {"NOT location GEOWITHIN geoCircle([0.3, 0.3], 1)", 4},
        {"location GEOWITHIN geoBox([-170, -5], [170, 5])", 0},  /* 20 degrees around the antimeridian */
        {"location GEOWITHIN geoBox([-5, -5], [5, 5])", 4},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        long n = count(all, table[i].predicate, NULL, 0);
        if (n != table[i].expected) fprintf(stderr, "  %s\n", table[i].predicate);
        EQI(n, table[i].expected);
    }
    /* Coordinates as arguments. */
    fief_value_t coordinates[3] = {vd(0.3), vi(0), vf(1)};
    fief_query_arg_t args[3] = {arg1(&coordinates[0]), arg1(&coordinates[0]), arg1(&coordinates[2])};
    EQI(count(all, "location GEOWITHIN geoCircle([$0, $1], $2)", args, 3), 4);
    args[1] = arg1(&coordinates[1]);
    EQI(count(all, "location GEOWITHIN geoCircle([$0, $1], $2)", args, 3), 4);
    E(fief_release(all));
    E(fief_release(r));
    E(fief_release(s));
}

TEST(shape_arguments) {
    fief_schema_t *s = NULL;
    fief_realm_t *r = open_restaurants(&s);
    R(r != NULL);
    fief_results_t *all = all_restaurants(r);
    R(all != NULL);

    fief_geo_shape_t box = geo_box(0.7, 0.7, 0.2, 0.2);   /* corners in either order */
    fief_value_t v = vshape(&box);
    fief_query_arg_t a = arg1(&v);
    EQI(count(all, "location GEOWITHIN $0", &a, 1), 1);
    EQI(count(all, "location GEOWITHIN %@", &a, 1), 1);
    EQI(count(all, "location IN $0", &a, 1), 1);

    fief_geo_shape_t circle = geo_circle(0.3, 0.3, 1);
    v = vshape(&circle);
    EQI(count(all, "location GEOWITHIN $0", &a, 1), 4);

    fief_geo_point_t outer[5] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}};
    fief_geo_point_t hole[5] = {{0.25, 0.25}, {0.75, 0.25}, {0.75, 0.75}, {0.25, 0.75}, {0.25, 0.25}};
    fief_geo_ring_t rings[2] = {{outer, 5}, {hole, 5}};
    fief_geo_shape_t polygon = geo_polygon(rings, 1);
    v = vshape(&polygon);
    EQI(count(all, "location GEOWITHIN $0", &a, 1), 1);
    polygon.num_rings = 2;
    EQI(count(all, "location GEOWITHIN $0", &a, 1), 0);

    /* A shape as text, as realm-core accepts it. */
    v = vs("GeoCircle([0.3, 0.3], 1)");
    EQI(count(all, "location GEOWITHIN $0", &a, 1), 4);

    /* Results stay live: a new restaurant inside the circle is counted. */
    v = vshape(&circle);
    fief_results_t *inside = fief_results_filter(all, "location GEOWITHIN $0", &a, 1);
    R(inside != NULL);
    size_t n = 0;
    E(fief_results_count(inside, &n));
    EQU(n, 4);
    R(fief_realm_begin_write(r));
    restaurant(r, "new", 0.31, 0.29);
    R(fief_realm_commit(r));
    E(fief_results_count(inside, &n));
    EQU(n, 5);
    E(fief_release(inside));
    E(fief_release(all));
    E(fief_release(r));
    E(fief_release(s));
}

TEST(lists_of_points) {
    fief_schema_t *s = geo_schema();
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("geo_lists.fief"), s, 0);
    R(r != NULL);
    fief_property_key_t locations = t_prop(r, "Restaurant", "locations");
    double points[3][3][2] = {{{1, 1}, {2, 2}}, {{2, 2}, {3, 3}}, {{1, 1}, {1, 1}, {1, 1}}};
    size_t sizes[4] = {2, 2, 3, 0};
    R(fief_realm_begin_write(r));
    for (int i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "r%d", i);
        fief_object_t *o = new_restaurant(r, name);
        R(o != NULL);
        fief_list_t *list = fief_object_get_list(o, locations);
        R(list != NULL);
        for (size_t j = 0; j < sizes[i]; j++) {
            fief_object_t *position = fief_list_insert_embedded(list, j);
            set_point(r, position, "Point", points[i][j], 2);
            E(fief_release(position));
        }
        E(fief_release(list));
        E(fief_release(o));
    }
    R(fief_realm_commit(r));
    fief_results_t *all = all_restaurants(r);
    R(all != NULL);
    /* realm-core's Geospatial_ListOfPrimitives: ANY, ALL, NONE per center. */
    long expected[4][3] = {{2, 1, 2}, {2, 0, 2}, {1, 0, 3}, {0, 0, 4}};
    for (int c = 0; c < 4; c++) {
        char predicate[128];
        const char *quantifiers[3] = {"ANY", "ALL", "NONE"};
        for (int q = 0; q < 3; q++) {
            snprintf(predicate, sizeof predicate, "%s locations GEOWITHIN geoCircle([%d, %d], 0.00872665)", quantifiers[q], c + 1, c + 1);
            EQI(count(all, predicate, NULL, 0), expected[c][q]);
        }
    }
    E(fief_release(all));
    E(fief_release(r));
    E(fief_release(s));
}

/* Objects that are no points match nothing, without an error. */
TEST(objects_that_are_no_points) {
    fief_schema_t *s = geo_schema();
    R(s != NULL);
    fief_realm_t *r = t_open(t_path("geo_nopoints.fief"), s, 0);
    R(r != NULL);
    fief_property_key_t location = t_prop(r, "Restaurant", "location");
    struct { const char *type; double coordinates[3]; size_t n; } cases[] = {
        {"Point", {0.5, 0.5}, 2}, {"POINT", {0.5, 0.5, 7}, 3}, {"Polygon", {0.5, 0.5}, 2}, {"Point", {0.5}, 1},
        {"Point", {0.5, 91}, 2}, {"", {0}, 0},
    };
    R(fief_realm_begin_write(r));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fief_object_t *o = new_restaurant(r, "x");
        R(o != NULL);
        fief_object_t *position = fief_object_create_embedded(o, location);
        set_point(r, position, cases[i].type, cases[i].coordinates, cases[i].n);
        E(fief_release(position));
        E(fief_release(o));
    }
    R(fief_realm_commit(r));
    fief_results_t *all = all_restaurants(r);
    R(all != NULL);
    EQI(count(all, "location GEOWITHIN geoBox([0, 0], [1, 1])", NULL, 0), 2);
    EQI(count(all, "location GEOWITHIN geoCircle([0, 0], 3.2)", NULL, 0), 2);
    E(fief_release(all));
    E(fief_release(r));
    E(fief_release(s));
}

TEST(errors) {
    fief_schema_t *s = NULL;
    fief_realm_t *r = open_restaurants(&s);
    R(r != NULL);
    fief_results_t *all = all_restaurants(r);
    R(all != NULL);

    /* Left sides that are no links to GeoJSON points. */
    EERRM(fief_results_filter(all, "name GEOWITHIN geoBox([0, 0], [1, 1])", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID,
          "must be a link to geoJSON formatted data. But the provided type is 'string'");
    EERRM(fief_results_filter(all, "other GEOWITHIN geoBox([0, 0], [1, 1])", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID,
          "links to data in the wrong format for a geoWithin query");
    /* Invalid literal shapes. */
    EERRM(fief_results_filter(all, "location GEOWITHIN geoCircle([0, 0], -1)", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID,
          "The radius of a circle must be a non-negative number");
    EERRM(fief_results_filter(all, "location GEOWITHIN geoBox([0, 0], [200, 1])", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID,
          "Longitude/latitude is out of bounds");
    EERRM(fief_results_filter(all, "location GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1], [0, 1]})", NULL, 0) != NULL,
          FIEF_ERR_QUERY_INVALID, "Ring is not closed");
    EERRM(fief_results_filter(all, "location GEOWITHIN geoPolygon({[0, 0], [0, 1], [2, 1], [2, 2], [0, 0]})", NULL, 0) != NULL,
          FIEF_ERR_QUERY_INVALID, "cross");
    EERR(fief_results_filter(all, "location GEOWITHIN 1.2", NULL, 0) != NULL, FIEF_ERR_QUERY_SYNTAX);

    /* Arguments of the wrong type. */
    fief_value_t v = vd(1.2);
    fief_query_arg_t a = arg1(&v);
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT, "But the provided type is 'double'");
    v = vnull();
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT, "But the provided type is 'null'");
    v = vs("GeoPoint([0, 0])");
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT,
          "Invalid syntax in serialized geospatial object at argument 0");
    EERRM(fief_results_filter(all, "location GEOWITHIN geoCircle([$0, 0], 1)", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT,
          "Invalid parameter 'string' used in coordinate at argument '$0'");
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", NULL, 0) != NULL, FIEF_ERR_QUERY_ARGUMENT, "uses argument 0");

    /* Invalid shape arguments. */
    fief_geo_shape_t circle = geo_circle(0, 0, -0.5);
    v = vshape(&circle);
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT,
          "Invalid region in GEOWITHIN query for parameter '");
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT,
          "(argument 0): 'The radius of a circle must be a non-negative number'");
    circle.radius = 0.5;
    circle.center.latitude = -100;
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT, "Longitude/latitude is out of bounds");
    fief_geo_point_t open_ring[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    fief_geo_ring_t ring = {open_ring, 4};
    fief_geo_shape_t polygon = geo_polygon(&ring, 1);
    v = vshape(&polygon);
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT, "Ring is not closed");
    polygon.num_rings = 0;
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT, "Polygon has no rings");
    /* Malformed structs. */
    polygon.num_rings = 2;
    polygon.rings = NULL;
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_INVALID_ARGUMENT, "rings is NULL");
    ring.points = NULL;
    polygon.rings = &ring;
    polygon.num_rings = 1;
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_INVALID_ARGUMENT, "points is NULL");
    polygon.kind = 42;
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_INVALID_ARGUMENT, "kind is 42");
    v.u.geo_shape = NULL;
    EERRM(fief_results_filter(all, "location GEOWITHIN $0", &a, 1) != NULL, FIEF_ERR_INVALID_ARGUMENT, "geo_shape is NULL");

    /* A shape where a value belongs, in a list argument, or outside queries. */
    circle.center.latitude = 0;
    v = vshape(&circle);
    EERRM(fief_results_filter(all, "name == $0", &a, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT, "argument 0 is a geospatial shape");
    fief_value_t list[2] = {vs("x"), vshape(&circle)};
    fief_query_arg_t list_arg = {2, true, list};
    EERRM(fief_results_filter(all, "name IN $0", &list_arg, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT, "a shape is an argument of its own");
    R(fief_realm_begin_write(r));
    fief_property_key_t name_key = t_prop(r, "Restaurant", "name");
    EERRM(fief_object_create(r, t_class(r, "Restaurant"), &name_key, &v, 1, FIEF_UPDATE_POLICY_ERROR) != NULL,
          FIEF_ERR_INVALID_ARGUMENT, "geospatial shape");
    fief_results_t *one = fief_results_filter(all, "name == 'one'", NULL, 0);
    R(one != NULL);
    fief_object_t *first = fief_results_get_object(one, 0);
    R(first != NULL);
    EERRM(fief_object_set_value(first, name_key, v), FIEF_ERR_INVALID_ARGUMENT, "geospatial shape");
    fief_value_t link = t_get(first, t_prop(r, "Restaurant", "location"));
    R(link.type == FIEF_TYPE_LINK);
    fief_object_t *position = fief_object_get(r, link.u.link.class_key, link.u.link.object_key);
    R(position != NULL);
    fief_list_t *coordinates = fief_object_get_list(position, t_prop(r, "Position", "coordinates"));
    R(coordinates != NULL);
    EERRM(fief_list_append(coordinates, &v, 1), FIEF_ERR_INVALID_ARGUMENT, "geospatial shape");
    size_t n = 0;
    E(fief_list_count(coordinates, &n));
    EQU(n, 2);
    E(fief_realm_cancel(r));
    E(fief_release(coordinates));
    E(fief_release(position));
    E(fief_release(first));
    E(fief_release(one));
    E(fief_release(all));
    E(fief_release(r));
    E(fief_release(s));
}

/* ---- The spatial index under random writes ---- */

#define GEO_PLACES 160

/* What each restaurant's location holds, as the test wrote it. */
typedef struct {
    fief_object_key_t key;
    bool live;
    bool point;   /* type "Point" and two coordinates in range */
    double lon, lat;
} geo_model_t;

static double random_in(double low, double high) { return low + (high - low) * ((double)rand() / RAND_MAX); }

/* A random point: anywhere, often at a pole, on the antimeridian or near
 * (0, 0); sometimes out of range. */
static void random_point(double *lon, double *lat) {
    *lon = random_in(-180, 180);
    *lat = random_in(-90, 90);
    switch (rand() % 8) {
    case 0: *lat = rand() % 2 ? 90 : -90; break;
    case 1: *lon = rand() % 2 ? 180 : -180; break;
    case 2: *lon = random_in(-1, 1); *lat = random_in(-1, 1); break;
    case 3: *lat = 90.5; break;
    default: break;
    }
}

/* Write the location of `m` afresh (a new embedded object). */
static void write_location(fief_realm_t *r, fief_object_t *o, geo_model_t *m) {
    fief_object_t *position = fief_object_create_embedded(o, t_prop(r, "Restaurant", "location"));
    double c[2];
    random_point(&c[0], &c[1]);
    const char *type = rand() % 6 == 0 ? "Polygon" : "Point";
    set_point(r, position, type, c, 2);
    E(fief_release(position));
    m->point = strcmp(type, "Point") == 0 && fabs(c[0]) <= 180 && fabs(c[1]) <= 90;
    m->lon = c[0];
    m->lat = c[1];
}

/* The angle between two points (radians). */
static double angle(double lon0, double lat0, double lon1, double lat1) {
    const double k = 3.14159265358979323846 / 180;
    double x0 = cos(lat0 * k) * cos(lon0 * k), y0 = cos(lat0 * k) * sin(lon0 * k), z0 = sin(lat0 * k);
    double x1 = cos(lat1 * k) * cos(lon1 * k), y1 = cos(lat1 * k) * sin(lon1 * k), z1 = sin(lat1 * k);
    double dot = x0 * x1 + y0 * y1 + z0 * z1;
    return acos(dot > 1 ? 1 : (dot < -1 ? -1 : dot));
}

/* Every circle's count through the index against the model's points (a
 * circle with a point within 1e-7 radian of its edge is skipped). */
static void check_circles(fief_realm_t *r, const geo_model_t *model) {
    static const double circles[][3] = {{0, 0, 0.05},  {0, 90, 0.3},   {180, 0, 0.2},  {-179.9, 10, 0.5},
                                        {30, 40, 1.0}, {0, -90, 0.01}, {-60, -30, 0.8}, {90, 0, 1.6}};
    fief_results_t *all = all_restaurants(r);
    R(all != NULL);
    for (size_t c = 0; c < sizeof circles / sizeof circles[0]; c++) {
        long expected = 0;
        bool borderline = false;
        for (int i = 0; i < GEO_PLACES; i++) {
            if (!model[i].live || !model[i].point) continue;
            double d = angle(circles[c][0], circles[c][1], model[i].lon, model[i].lat);
            if (fabs(d - circles[c][2]) < 1e-7) borderline = true;
            if (d <= circles[c][2]) expected++;
        }
        if (borderline) continue;
        fief_geo_shape_t circle = geo_circle(circles[c][0], circles[c][1], circles[c][2]);
        fief_value_t v = vshape(&circle);
        fief_query_arg_t a = arg1(&v);
        long n = count(all, "location GEOWITHIN $0", &a, 1);
        if (n != expected) fprintf(stderr, "  circle %zu\n", c);
        EQI(n, expected);
    }
    E(fief_release(all));
}

TEST(index_follows_random_writes) {
    fief_schema_t *s = geo_schema();
    R(s != NULL);
    const char *path = t_path("geo_random.fief");
    fief_realm_t *r = t_open(path, s, 0);
    R(r != NULL);
    srand(1234);
    geo_model_t model[GEO_PLACES];
    memset(model, 0, sizeof model);
    fief_class_key_t restaurant_class = t_class(r, "Restaurant");
    for (int round = 0; round < 40; round++) {
        bool cancel = round % 6 == 5;
        geo_model_t saved[GEO_PLACES];
        memcpy(saved, model, sizeof model);
        R(fief_realm_begin_write(r));
        for (int op = 0; op < 20; op++) {
            int i = rand() % GEO_PLACES;
            geo_model_t *m = &model[i];
            if (!m->live) {
                fief_object_t *o = new_restaurant(r, "r");
                R(o != NULL);
                E(fief_object_get_key(o, &m->key));
                m->live = true;
                write_location(r, o, m);
                E(fief_release(o));
                continue;
            }
            fief_object_t *o = fief_object_get(r, restaurant_class, m->key);
            R(o != NULL);
            switch (rand() % 5) {
            case 0:
                E(fief_object_delete(o));
                m->live = false;
                break;
            case 1:
                write_location(r, o, m);
                break;
            case 2:
                E(fief_object_set_value(o, t_prop(r, "Restaurant", "location"), vnull()));
                m->point = false;
                break;
            default: {
                /* The coordinates edited in place: cleared and refilled. */
                fief_value_t link = t_get(o, t_prop(r, "Restaurant", "location"));
                if (link.type != FIEF_TYPE_LINK) break;
                fief_object_t *position = fief_object_get(r, link.u.link.class_key, link.u.link.object_key);
                R(position != NULL);
                fief_list_t *list = fief_object_get_list(position, t_prop(r, "Position", "coordinates"));
                R(list != NULL);
                E(fief_list_clear(list));
                double c[2];
                random_point(&c[0], &c[1]);
                fief_value_t values[2] = {vd(c[0]), vd(c[1])};
                E(fief_list_append(list, values, 2));
                fief_value_t type = t_get(position, t_prop(r, "Position", "type"));
                bool typed = type.type == FIEF_TYPE_STRING && type.u.string.size == 5;   /* "Point", not "Polygon" */
                m->point = typed && fabs(c[0]) <= 180 && fabs(c[1]) <= 90;
                m->lon = c[0];
                m->lat = c[1];
                E(fief_release(list));
                E(fief_release(position));
                break;
            }
            }
            E(fief_release(o));
        }
        if (round % 4 == 0) check_circles(r, model);   /* inside the transaction */
        if (cancel) {
            E(fief_realm_cancel(r));
            memcpy(model, saved, sizeof model);
        } else {
            R(fief_realm_commit(r));
        }
        check_circles(r, model);
    }
    E(fief_release(r));
    E(fief_release(s));
    size_t problems = 99;
    E(fief_file_verify(path, NULL, NULL, &problems));
    EQU(problems, 0);
}

/* ---- A writer killed mid-write ---- */

/* In a child process: transactions of random geo writes, forever. */
static void geo_writer(const char *path, unsigned seed) {
    srand(seed);
    fief_schema_t *s = geo_schema();
    fief_realm_t *r = s ? t_open(path, s, 0) : NULL;
    if (r == NULL) _exit(2);
    geo_model_t model[GEO_PLACES];
    memset(model, 0, sizeof model);
    fief_class_key_t restaurant_class = t_class(r, "Restaurant");
    /* Start from what is there: every restaurant's key. */
    fief_results_t *all = all_restaurants(r);
    size_t n = 0;
    if (all == NULL || !fief_results_count(all, &n)) _exit(3);
    for (size_t i = 0; i < n && i < GEO_PLACES; i++) {
        fief_object_t *o = fief_results_get_object(all, i);
        if (o == NULL || !fief_object_get_key(o, &model[i].key)) _exit(4);
        model[i].live = true;
        fief_release(o);
    }
    fief_release(all);
    for (;;) {
        if (!fief_realm_begin_write(r)) _exit(5);
        for (int op = 0; op < 30; op++) {
            geo_model_t *m = &model[rand() % GEO_PLACES];
            if (!m->live) {
                fief_object_t *o = new_restaurant(r, "w");
                if (o == NULL || !fief_object_get_key(o, &m->key)) _exit(6);
                m->live = true;
                write_location(r, o, m);
                fief_release(o);
                continue;
            }
            fief_object_t *o = fief_object_get(r, restaurant_class, m->key);
            if (o == NULL) _exit(7);
            if (rand() % 3 == 0) {
                if (!fief_object_delete(o)) _exit(8);
                m->live = false;
            } else {
                write_location(r, o, m);
            }
            fief_release(o);
        }
        if (!fief_realm_commit(r)) _exit(9);
    }
}

/* In a child process: the file verifies (the spatial index against the
 * data), a query through the index runs, and (`written`) the writers
 * committed something; exit status 0 if so. */
static void geo_verifier(const char *path, bool written) {
    size_t problems = 99;
    if (!fief_file_verify(path, NULL, NULL, &problems) || problems != 0) _exit(1);
    fief_schema_t *s = geo_schema();
    fief_realm_t *r = s ? t_open(path, s, 0) : NULL;
    if (r == NULL) _exit(2);
    fief_results_t *all = all_restaurants(r);
    fief_results_t *near = all ? fief_results_filter(all, "location GEOWITHIN geoCircle([0, 0], 1.5)", NULL, 0) : NULL;
    size_t n = 0;
    if (near == NULL || !fief_results_count(near, &n)) _exit(3);
    if (written && (!fief_results_count(all, &n) || n == 0)) _exit(4);
    _exit(0);
}

TEST(index_survives_killed_writer) {
    const char *path = t_path("geo_crash.fief");
    srand(77);
    for (int it = 0; it < 8; it++) {
        pid_t pid = fork();
        R(pid >= 0);
        if (pid == 0) {
            alarm(30);
            geo_writer(path, (unsigned)rand() + (unsigned)it);
        }
        int ms = it == 0 ? 300 : 5 + rand() % 80;
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
            fprintf(stderr, "  writer exited by itself (status 0x%x)\n", status);
            t_fail(__FILE__, __LINE__, "writer killed by SIGKILL", NULL);
        }
        pid_t v = fork();
        R(v >= 0);
        if (v == 0) {
            alarm(30);
            geo_verifier(path, it > 0);
        }
        waitpid(v, &status, 0);
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) fprintf(stderr, "  iteration %d: verifier status 0x%x\n", it, status);
        R(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
}

/* ---- Descriptions ---- */

/* Shape arguments are written in as literal shapes. */
TEST(descriptions_write_shapes) {
    fief_schema_t *s = NULL;
    fief_realm_t *r = open_restaurants(&s);
    R(r != NULL);
    fief_results_t *all = all_restaurants(r);
    R(all != NULL);
    fief_geo_shape_t box = geo_box(0.2, 0.2, 0.7, 0.7);
    fief_value_t v = vshape(&box);
    fief_query_arg_t a = arg1(&v);
    fief_results_t *inside = fief_results_filter(all, "location IN $0", &a, 1);
    R(inside != NULL);
    const char *description = fief_results_get_description(inside);
    R(description != NULL);
    R(strcmp(description, "location GEOWITHIN geoBox([0.2, 0.2], [0.7, 0.7])") == 0);
    EQI(count(all, description, NULL, 0), 1);
    fief_geo_shape_t circle = geo_circle(0.3, 0.3, 1);
    v = vshape(&circle);
    fief_results_t *near = fief_results_filter(all, "location GEOWITHIN $0", &a, 1);
    R(near != NULL);
    description = fief_results_get_description(near);
    R(description != NULL);
    if (strcmp(description, "location GEOWITHIN geoCircle([0.3, 0.3], 1.0)") != 0) fprintf(stderr, "  %s\n", description);
    R(strcmp(description, "location GEOWITHIN geoCircle([0.3, 0.3], 1.0)") == 0);
    EQI(count(all, description, NULL, 0), 4);
    E(fief_release(near));
    E(fief_release(inside));
    E(fief_release(all));
    E(fief_release(r));
    E(fief_release(s));
}

static const t_case cases[] = {T(literal_shapes), T(shape_arguments), T(lists_of_points), T(objects_that_are_no_points), T(errors),
                               T(index_follows_random_writes), T(index_survives_killed_writer), T(descriptions_write_shapes)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
