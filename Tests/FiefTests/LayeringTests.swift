import Foundation
import XCTest

/// The overlay (Sources/Fief) and the tool (Sources/FiefTool) see the engine
/// only through the C header (`import CFief`), and the storage layer
/// (Sources/FiefStorage) lies below the engine: a test, not a convention.
final class LayeringTests: XCTestCase {
    /// The repository's root, from this file's place in it.
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `file:line: text` of every line in Sources/`folder` importing `module`.
    private func engineImports(in folder: String, module: String = "FiefEngine") throws -> (files: Int, offenders: [String]) {
        let directory = root.appendingPathComponent("Sources").appendingPathComponent(folder)
        guard let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            XCTFail("cannot read \(directory.path)")
            return (0, [])
        }
        // `import FiefEngine`, `@testable import FiefEngine`, `import struct FiefEngine.X`, ...
        let pattern = try NSRegularExpression(pattern: #"^\s*(@\w+(\([^)]*\))?\s+)*import\s+(\w+\s+)?"# + module + #"\b"#)
        var files = 0
        var offenders: [String] = []
        for case let url as URL in walk where url.pathExtension == "swift" {
            files += 1
            let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            for (number, line) in lines.enumerated()
            where pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                offenders.append("Sources/\(folder)/\(url.lastPathComponent):\(number + 1): \(line)")
            }
        }
        return (files, offenders)
    }

    func testTheOverlayAndTheToolNeverImportTheEngine() throws {
        for folder in ["Fief", "FiefTool"] {
            let (files, offenders) = try engineImports(in: folder)
            XCTAssertGreaterThan(files, 3, "no Swift sources found under Sources/\(folder)")
            XCTAssertEqual(offenders, [], "Sources/\(folder) must see the engine through fief.h (import CFief) only")
        }
    }

    /// The storage target (LMDB, the file format, snapshots, write
    /// transactions) cannot see queries, collections or `Realm`: none of its
    /// files imports the engine or the C layer, and Package.swift gives it
    /// neither as a dependency (so the compiler refuses any use of them),
    /// while the engine depends on it.
    func testTheStorageLayerLiesBelowTheEngine() throws {
        for module in ["FiefEngine", "FiefC", "Fief"] {
            let (files, offenders) = try engineImports(in: "FiefStorage", module: module)
            XCTAssertGreaterThan(files, 10, "no Swift sources found under Sources/FiefStorage")
            XCTAssertEqual(offenders, [], "Sources/FiefStorage must not import \(module)")
        }
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let storage = try XCTUnwrap(dependencies(of: "FiefStorage", in: manifest), "Package.swift has no FiefStorage target")
        XCTAssertFalse(storage.isEmpty, "FiefStorage's dependencies were not read")
        for above in ["FiefEngine", "FiefC", "Fief", "FiefTool"] {
            XCTAssertFalse(storage.contains(above), "FiefStorage must not depend on \(above): \(storage)")
        }
        XCTAssertEqual(try XCTUnwrap(dependencies(of: "FiefEngine", in: manifest)).contains("FiefStorage"), true,
                       "FiefEngine is built on FiefStorage")
    }

    /// The names in the `dependencies: [...]` of target `name` in `manifest`
    /// (nil when there is no such target).
    private func dependencies(of name: String, in manifest: String) throws -> [String]? {
        let pattern = try NSRegularExpression(
            pattern: #"\.target\(\s*name:\s*""# + name + #""\s*,\s*dependencies:\s*\[([^\]]*)\]"#)
        guard let match = pattern.firstMatch(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)),
              let list = Range(match.range(at: 1), in: manifest) else { return nil }
        let names = try NSRegularExpression(pattern: #""([^"]+)""#)
        let text = String(manifest[list])
        return names.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// The manifest check reads what it must: a target's own list, not the next one's.
    func testTheDependencyReaderReadsOneTarget() throws {
        let manifest = #"""
            .target(name: "A", dependencies: ["X", "Y"]),
            .target(name: "AB", dependencies: ["Z", .product(name: "P", package: "q")]),
            .target(name: "C"),
            """#
        XCTAssertEqual(try dependencies(of: "A", in: manifest), ["X", "Y"])
        XCTAssertEqual(try dependencies(of: "AB", in: manifest), ["Z", "P", "q"])
        XCTAssertNil(try dependencies(of: "C", in: manifest))
        XCTAssertNil(try dependencies(of: "B", in: manifest))
    }

    /// The check is not vacuous: it finds each way of writing the import.
    func testTheCheckFindsAnImport() throws {
        let pattern = try NSRegularExpression(pattern: #"^\s*(@\w+(\([^)]*\))?\s+)*import\s+(\w+\s+)?FiefEngine\b"#)
        for line in ["import FiefEngine", "@testable import FiefEngine", "  import struct FiefEngine.FiefError",
                     "@_implementationOnly import FiefEngine"] {
            XCTAssertNotNil(pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), line)
        }
        for line in ["import CFief", "// import FiefEngine", "import FiefEngineX"] {
            XCTAssertNil(pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), line)
        }
    }
}
