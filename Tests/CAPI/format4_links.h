/* The data of Tests/CAPI/data/format4_links.fief, a file written by Fief
 * 0.1.0 in file format 4 (backlinks one LMDB entry per record), which
 * test_format_upgrade reads: FORMAT4_DOGS dogs `Dog {name}` and
 * FORMAT4_PEOPLE people `Person {name, dog: Dog?, dogs: [Dog], pals:
 * Set<Dog>, byName: [string: Dog?]}`, made in that order (object keys
 * 0, 1, ... in each class).  Person p links, by these functions, to dogs
 * given as indexes (-1: null). */
#ifndef FORMAT4_LINKS_H
#define FORMAT4_LINKS_H

#define FORMAT4_DOGS 300
#define FORMAT4_PEOPLE 300
#define FORMAT4_LIST_LEN 3
#define FORMAT4_SET_LEN 2
#define FORMAT4_MAP_LEN 2

static int format4_dog(int p) { return p % 5 == 0 ? -1 : (p * 7) % FORMAT4_DOGS; }
/* The list holds its first dog twice. */
static int format4_list(int p, int i) {
    static const int mul[FORMAT4_LIST_LEN] = {1, 3, 1};
    return (p * mul[i]) % FORMAT4_DOGS;
}
static int format4_set(int p, int i) { return (p + 1 + i) % FORMAT4_DOGS; }
static const char *const FORMAT4_MAP_KEYS[FORMAT4_MAP_LEN] = {"a", "b"};
static int format4_map(int p, int i) { return i == 0 ? (p * 11) % FORMAT4_DOGS : (p % 4 == 0 ? -1 : (p * 13) % FORMAT4_DOGS); }

#endif
