// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Fief",
    products: [
        // libfief.so: the C ABI declared in include/fief.h.
        .library(name: "fief", type: .dynamic, targets: ["FiefC"]),
        // The RealmSwift-compatible Swift overlay.
        .library(name: "Fief", targets: ["Fief"]),
        // The command-line tool.
        .executable(name: "fief-cli", targets: ["FiefTool"]),
    ],
    targets: [
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CFief"),
        .systemLibrary(name: "CFiefSupport"),
        .target(name: "FiefEngine", dependencies: ["CLMDB", "CFiefSupport"]),
        .target(name: "FiefC", dependencies: ["FiefEngine", "CFief"]),
        .target(name: "Fief", dependencies: ["CFief", "FiefC"]),
        .executableTarget(name: "FiefTool", dependencies: ["Fief", "CFief", "FiefC"]),
        .testTarget(name: "FiefEngineTests", dependencies: ["FiefEngine"]),
        .testTarget(name: "FiefTests", dependencies: ["Fief"]),
    ]
)
