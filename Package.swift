// swift-tools-version:6.0
// Fief: an embedded live-object database.  SPDX-License-Identifier: Apache-2.0
// (LICENSE; README.md says the same).  Version: include/fief.h's FIEF_VERSION_*.
import PackageDescription

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
                publicHeadersPath: "include"),
        .systemLibrary(name: "CFief"),
        .systemLibrary(name: "CFiefSupport"),
        .target(name: "FiefEngine", dependencies: ["CLMDB", "CFiefSupport"]),
        .target(name: "FiefC", dependencies: ["FiefEngine", "CFief"]),
        .target(name: "Fief", dependencies: ["CFief", "FiefC"]),
        .executableTarget(name: "FiefTool", dependencies: ["Fief", "CFief", "FiefC",
                                                         .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "FiefEngineTests", dependencies: ["FiefEngine"]),
        .testTarget(name: "FiefTests", dependencies: ["Fief"]),
    ]
)
