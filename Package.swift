// swift-tools-version:6.0
// Fief: an embedded live-object database.  SPDX-License-Identifier: Apache-2.0
// (LICENSE; README.md says the same).  Version: include/fief.h's FIEF_VERSION_*.
import PackageDescription

// LMDB's searches wait on memory: a lookup in a tree larger than the cache
// misses at every probe of its binary searches.  Clang turns a probe's "go
// left or right" into conditional moves, so the next probe's load waits for
// this one's comparison; GCC (Debian's liblmdb, what Fief linked before
// 0.2.0) keeps a branch, which the processor predicts and runs ahead of,
// overlapping the misses.  Clang's code takes about 1.7 times as long per
// random lookup (benchmarks/README.md, "LMDB's build").  The flag below
// keeps branches, but SwiftPM counts it unsafe and refuses a versioned
// dependency whose targets have one, so it is set only where Fief's own
// library is built (FIEF_LMDB_BRANCHES=1: CMake's cmake/FiefSwift.cmake and
// benchmarks/run), never for a package that depends on Fief.  LMDB's
// assertions stay on, as in Debian's build: a broken page aborts rather than
// being written through.
let lmdbSettings: [CSetting] = {
#if arch(x86_64)
    if Context.environment["FIEF_LMDB_BRANCHES"] == "1" {
        return [.unsafeFlags(["-mllvm", "-x86-cmov-converter-force-all=true"])]
    }
#endif
    return []
}()

let package = Package(
    name: "Fief",
    products: [
        // The C ABI declared in include/fief.h, as a shared library.  SwiftPM
        // names the file libfiefc.so; the CMake build installs it as
        // libfief.so.<version> with the SONAME libfief.so.<ABI major>.
        .library(name: "fiefc", type: .dynamic, targets: ["FiefC"]),
        // The RealmSwift-compatible Swift overlay.
        .library(name: "Fief", targets: ["Fief"]),
        // The command-line tool.
        .executable(name: "fief", targets: ["FiefTool"]),
    ],
    dependencies: [
        // The command-line tool's argument parsing (usage, help, errors).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // LMDB 0.9.24 as released by OpenLDAP (ThirdParty/lmdb/README.md),
        // compiled into the library so that it needs no liblmdb at run time.
        .target(name: "CLMDB", path: "ThirdParty/lmdb",
                exclude: ["LICENSE", "COPYRIGHT", "CHANGES", "README.md"],
                sources: ["mdb.c", "midl.c"],
                publicHeadersPath: "include",
                cSettings: lmdbSettings),
        .systemLibrary(name: "CFief"),
        .systemLibrary(name: "CFiefSupport"),
        // Decimal128 (IEEE 754-2008, BID): parse, format, compare, arithmetic,
        // conversions.  Below both the engine and the overlay, which each
        // import it (the overlay still never sees the engine).
        .target(name: "FiefDecimal"),
        // The storage layer: LMDB, the file format (chunks, collection
        // databases, keys, schema record), snapshots and write transactions.
        // It cannot see queries, collections or `Realm` (docs/design.md, "Layers").
        .target(name: "FiefStorage", dependencies: ["CLMDB", "CFiefSupport", "FiefDecimal"]),
        .target(name: "FiefEngine", dependencies: ["FiefStorage", "CLMDB", "CFiefSupport", "FiefDecimal"]),
        .target(name: "FiefC", dependencies: ["FiefEngine", "FiefStorage", "CFief"]),
        .target(name: "Fief", dependencies: ["CFief", "FiefC", "FiefDecimal"]),
        .executableTarget(name: "FiefTool", dependencies: ["Fief", "CFief", "FiefC", "FiefDecimal",
                                                         .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "FiefDecimalTests", dependencies: ["FiefDecimal"]),
        .testTarget(name: "FiefEngineTests", dependencies: ["FiefEngine", "FiefStorage"]),
        .testTarget(name: "FiefTests", dependencies: ["Fief"]),
    ]
)
