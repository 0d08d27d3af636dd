/* CRC-32C (Castagnoli), the checksum of every stored chunk.
 *
 * Header-only, so SwiftPM and CMake need no C target.  x86-64 uses the SSE4.2
 * crc32 instruction, eight bytes at a time; other machines use the byte-wise
 * table.  Swift calls fief_crc32c(), fief_checksum() and fief_entry_seal();
 * nothing else here is API. */
#ifndef FIEF_CHECKSUM_H
#define FIEF_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

static const uint32_t fief_crc32c_table[256] = {
    0x00000000u, 0xf26b8303u, 0xe13b70f7u, 0x1350f3f4u, 0xc79a971fu, 0x35f1141cu,
    0x26a1e7e8u, 0xd4ca64ebu, 0x8ad958cfu, 0x78b2dbccu, 0x6be22838u, 0x9989ab3bu,
    0x4d43cfd0u, 0xbf284cd3u, 0xac78bf27u, 0x5e133c24u, 0x105ec76fu, 0xe235446cu,
    0xf165b798u, 0x030e349bu, 0xd7c45070u, 0x25afd373u, 0x36ff2087u, 0xc494a384u,
    0x9a879fa0u, 0x68ec1ca3u, 0x7bbcef57u, 0x89d76c54u, 0x5d1d08bfu, 0xaf768bbcu,
    0xbc267848u, 0x4e4dfb4bu, 0x20bd8edeu, 0xd2d60dddu, 0xc186fe29u, 0x33ed7d2au,
    0xe72719c1u, 0x154c9ac2u, 0x061c6936u, 0xf477ea35u, 0xaa64d611u, 0x580f5512u,
    0x4b5fa6e6u, 0xb93425e5u, 0x6dfe410eu, 0x9f95c20du, 0x8cc531f9u, 0x7eaeb2fau,
    0x30e349b1u, 0xc288cab2u, 0xd1d83946u, 0x23b3ba45u, 0xf779deaeu, 0x05125dadu,
    0x1642ae59u, 0xe4292d5au, 0xba3a117eu, 0x4851927du, 0x5b016189u, 0xa96ae28au,
    0x7da08661u, 0x8fcb0562u, 0x9c9bf696u, 0x6ef07595u, 0x417b1dbcu, 0xb3109ebfu,
    0xa0406d4bu, 0x522bee48u, 0x86e18aa3u, 0x748a09a0u, 0x67dafa54u, 0x95b17957u,
    0xcba24573u, 0x39c9c670u, 0x2a993584u, 0xd8f2b687u, 0x0c38d26cu, 0xfe53516fu,
    0xed03a29bu, 0x1f682198u, 0x5125dad3u, 0xa34e59d0u, 0xb01eaa24u, 0x42752927u,
    0x96bf4dccu, 0x64d4cecfu, 0x77843d3bu, 0x85efbe38u, 0xdbfc821cu, 0x2997011fu,
    0x3ac7f2ebu, 0xc8ac71e8u, 0x1c661503u, 0xee0d9600u, 0xfd5d65f4u, 0x0f36e6f7u,
    0x61c69362u, 0x93ad1061u, 0x80fde395u, 0x72966096u, 0xa65c047du, 0x5437877eu,
    0x4767748au, 0xb50cf789u, 0xeb1fcbadu, 0x197448aeu, 0x0a24bb5au, 0xf84f3859u,
    0x2c855cb2u, 0xdeeedfb1u, 0xcdbe2c45u, 0x3fd5af46u, 0x7198540du, 0x83f3d70eu,
    0x90a324fau, 0x62c8a7f9u, 0xb602c312u, 0x44694011u, 0x5739b3e5u, 0xa55230e6u,
    0xfb410cc2u, 0x092a8fc1u, 0x1a7a7c35u, 0xe811ff36u, 0x3cdb9bddu, 0xceb018deu,
    0xdde0eb2au, 0x2f8b6829u, 0x82f63b78u, 0x709db87bu, 0x63cd4b8fu, 0x91a6c88cu,
    0x456cac67u, 0xb7072f64u, 0xa457dc90u, 0x563c5f93u, 0x082f63b7u, 0xfa44e0b4u,
    0xe9141340u, 0x1b7f9043u, 0xcfb5f4a8u, 0x3dde77abu, 0x2e8e845fu, 0xdce5075cu,
    0x92a8fc17u, 0x60c37f14u, 0x73938ce0u, 0x81f80fe3u, 0x55326b08u, 0xa759e80bu,
    0xb4091bffu, 0x466298fcu, 0x1871a4d8u, 0xea1a27dbu, 0xf94ad42fu, 0x0b21572cu,
    0xdfeb33c7u, 0x2d80b0c4u, 0x3ed04330u, 0xccbbc033u, 0xa24bb5a6u, 0x502036a5u,
    0x4370c551u, 0xb11b4652u, 0x65d122b9u, 0x97baa1bau, 0x84ea524eu, 0x7681d14du,
    0x2892ed69u, 0xdaf96e6au, 0xc9a99d9eu, 0x3bc21e9du, 0xef087a76u, 0x1d63f975u,
    0x0e330a81u, 0xfc588982u, 0xb21572c9u, 0x407ef1cau, 0x532e023eu, 0xa145813du,
    0x758fe5d6u, 0x87e466d5u, 0x94b49521u, 0x66df1622u, 0x38cc2a06u, 0xcaa7a905u,
    0xd9f75af1u, 0x2b9cd9f2u, 0xff56bd19u, 0x0d3d3e1au, 0x1e6dcdeeu, 0xec064eedu,
    0xc38d26c4u, 0x31e6a5c7u, 0x22b65633u, 0xd0ddd530u, 0x0417b1dbu, 0xf67c32d8u,
    0xe52cc12cu, 0x1747422fu, 0x49547e0bu, 0xbb3ffd08u, 0xa86f0efcu, 0x5a048dffu,
    0x8ecee914u, 0x7ca56a17u, 0x6ff599e3u, 0x9d9e1ae0u, 0xd3d3e1abu, 0x21b862a8u,
    0x32e8915cu, 0xc083125fu, 0x144976b4u, 0xe622f5b7u, 0xf5720643u, 0x07198540u,
    0x590ab964u, 0xab613a67u, 0xb831c993u, 0x4a5a4a90u, 0x9e902e7bu, 0x6cfbad78u,
    0x7fab5e8cu, 0x8dc0dd8fu, 0xe330a81au, 0x115b2b19u, 0x020bd8edu, 0xf0605beeu,
    0x24aa3f05u, 0xd6c1bc06u, 0xc5914ff2u, 0x37faccf1u, 0x69e9f0d5u, 0x9b8273d6u,
    0x88d28022u, 0x7ab90321u, 0xae7367cau, 0x5c18e4c9u, 0x4f48173du, 0xbd23943eu,
    0xf36e6f75u, 0x0105ec76u, 0x12551f82u, 0xe03e9c81u, 0x34f4f86au, 0xc69f7b69u,
    0xd5cf889du, 0x27a40b9eu, 0x79b737bau, 0x8bdcb4b9u, 0x988c474du, 0x6ae7c44eu,
    0xbe2da0a5u, 0x4c4623a6u, 0x5f16d052u, 0xad7d5351u,
};

static inline uint32_t fief_crc32c_bytewise(uint32_t crc, const unsigned char *p, size_t n) {
    while (n--) crc = fief_crc32c_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static inline uint32_t fief_crc32c_sse42(uint32_t crc, const unsigned char *p, size_t n) {
    uint64_t c = crc;
    while (n >= 32) {
        uint64_t a, b, d, e;
        memcpy(&a, p, 8); memcpy(&b, p + 8, 8); memcpy(&d, p + 16, 8); memcpy(&e, p + 24, 8);
        c = __builtin_ia32_crc32di(c, a);
        c = __builtin_ia32_crc32di(c, b);
        c = __builtin_ia32_crc32di(c, d);
        c = __builtin_ia32_crc32di(c, e);
        p += 32; n -= 32;
    }
    while (n >= 8) {
        uint64_t a;
        memcpy(&a, p, 8);
        c = __builtin_ia32_crc32di(c, a);
        p += 8; n -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}

static inline int fief_crc32c_hardware(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c >> 20) & 1;   /* SSE4.2 */
}
#else
static inline int fief_crc32c_hardware(void) { return 0; }
#endif

#if defined(__x86_64__)
/* The chunk checksum on SSE4.2: four lanes of 8-byte words, so four crc32
 * instructions are in flight at once (one lane alone waits on its own
 * result: three cycles for eight bytes). */
__attribute__((target("sse4.2")))
static inline uint32_t fief_checksum_sse42(uint32_t seed, const unsigned char *p, size_t n) {
    uint64_t a = (uint32_t)~seed, b = 0xffffffffu, c = 0xffffffffu, d = 0xffffffffu;
    while (n >= 32) {
        uint64_t w0, w1, w2, w3;
        memcpy(&w0, p, 8); memcpy(&w1, p + 8, 8); memcpy(&w2, p + 16, 8); memcpy(&w3, p + 24, 8);
        a = __builtin_ia32_crc32di(a, w0);
        b = __builtin_ia32_crc32di(b, w1);
        c = __builtin_ia32_crc32di(c, w2);
        d = __builtin_ia32_crc32di(d, w3);
        p += 32; n -= 32;
    }
    uint32_t r = (uint32_t)a;
    r = __builtin_ia32_crc32si(r, (uint32_t)b);
    r = __builtin_ia32_crc32si(r, (uint32_t)c);
    r = __builtin_ia32_crc32si(r, (uint32_t)d);
    uint64_t t = r;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        t = __builtin_ia32_crc32di(t, w);
        p += 8; n -= 8;
    }
    r = (uint32_t)t;
    while (n--) r = __builtin_ia32_crc32qi(r, *p++);
    return ~r;
}
#endif

/* The checksum of a stored chunk: CRC-32C in four interleaved lanes of
 * 8-byte words (lane i takes words i, i + 4, ...; every 32 bytes), the lanes
 * folded into the first by CRC-32C of their 4-byte values, then the tail
 * of fewer than 32 bytes.  Every little-endian machine computes the same
 * value (the lanes are folded as little-endian words). */
static inline uint32_t fief_checksum(uint32_t seed, const void *data, size_t n, int hardware) {
    const unsigned char *p = (const unsigned char *)data;
#if defined(__x86_64__)
    if (hardware) return fief_checksum_sse42(seed, p, n);
#else
    (void)hardware;
#endif
    uint32_t a = ~seed, b = 0xffffffffu, c = 0xffffffffu, d = 0xffffffffu;
    while (n >= 32) {
        a = fief_crc32c_bytewise(a, p, 8);
        b = fief_crc32c_bytewise(b, p + 8, 8);
        c = fief_crc32c_bytewise(c, p + 16, 8);
        d = fief_crc32c_bytewise(d, p + 24, 8);
        p += 32; n -= 32;
    }
    unsigned char lane[4];
    memcpy(lane, &b, 4); a = fief_crc32c_bytewise(a, lane, 4);
    memcpy(lane, &c, 4); a = fief_crc32c_bytewise(a, lane, 4);
    memcpy(lane, &d, 4); a = fief_crc32c_bytewise(a, lane, 4);
    return ~fief_crc32c_bytewise(a, p, n);
}

/* The CRC-32C of n bytes at p, continuing from crc (start with 0).
 * hardware: the result of fief_crc32c_hardware(), looked up once by the caller. */
static inline uint32_t fief_crc32c(uint32_t crc, const void *p, size_t n, int hardware) {
    crc = ~crc;
#if defined(__x86_64__)
    if (hardware) return ~fief_crc32c_sse42(crc, (const unsigned char *)p, n);
#else
    (void)hardware;
#endif
    return ~fief_crc32c_bytewise(crc, (const unsigned char *)p, n);
}

/* The seal of a map or nested-collection entry (file format 7, Swift's
 * EntrySeal), in one call:
 *
 *     crc   = fief_crc32c(FIEF_ENTRY_SEAL_TAG, table || database, 8)  (both little-endian)
 *     crc   = fief_crc32c(crc, key, keylen)
 *     return fief_checksum(crc, value, valuelen)
 *
 * The three steps are one CRC register carried through: fief_crc32c and
 * fief_checksum each invert it on the way in and out, and those inversions
 * cancel between steps, so the register goes from one to the next as is.
 * The 8 bytes of (table, database) are one crc32 instruction on SSE4.2. */
#define FIEF_ENTRY_SEAL_TAG 0x656e7472u   /* "entr" */

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static inline uint32_t fief_entry_seal_sse42(uint64_t prefix, const unsigned char *key, size_t keylen,
                                             const unsigned char *value, size_t valuelen) {
    uint32_t crc = (uint32_t)__builtin_ia32_crc32di(~FIEF_ENTRY_SEAL_TAG, prefix);
    crc = fief_crc32c_sse42(crc, key, keylen);
    return fief_checksum_sse42(~crc, value, valuelen);   /* it inverts its seed back */
}
#endif

/* hardware: the result of fief_crc32c_hardware(), looked up once by the caller. */
static inline uint32_t fief_entry_seal(uint32_t table, uint32_t database, const void *key, size_t keylen,
                                       const void *value, size_t valuelen, int hardware) {
    unsigned char prefix[8] = {
        (unsigned char)table, (unsigned char)(table >> 8), (unsigned char)(table >> 16), (unsigned char)(table >> 24),
        (unsigned char)database, (unsigned char)(database >> 8), (unsigned char)(database >> 16), (unsigned char)(database >> 24),
    };
#if defined(__x86_64__)
    if (hardware) {
        uint64_t words;   /* x86-64 is little-endian: the 8 bytes as crc32 reads them */
        memcpy(&words, prefix, 8);
        return fief_entry_seal_sse42(words, (const unsigned char *)key, keylen, (const unsigned char *)value, valuelen);
    }
#else
    (void)hardware;
#endif
    uint32_t crc = fief_crc32c_bytewise(~FIEF_ENTRY_SEAL_TAG, prefix, 8);
    crc = fief_crc32c_bytewise(crc, (const unsigned char *)key, keylen);
    return fief_checksum(~crc, value, valuelen, 0);
}

#endif
