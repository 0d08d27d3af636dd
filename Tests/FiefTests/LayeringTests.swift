import Foundation
import XCTest

/// The overlay (Sources/Fief) and the tool (Sources/FiefTool) see the engine
/// only through the C header (`import CFief`): a test, not a convention.
final class LayeringTests: XCTestCase {
    /// The repository's root, from this file's place in it.
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `file:line: text` of every line in Sources/`folder` importing FiefEngine.
    private func engineImports(in folder: String) throws -> (files: Int, offenders: [String]) {
        let directory = root.appendingPathComponent("Sources").appendingPathComponent(folder)
        guard let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            XCTFail("cannot read \(directory.path)")
            return (0, [])
        }
        // `import FiefEngine`, `@testable import FiefEngine`, `import struct FiefEngine.X`, ...
        let pattern = try NSRegularExpression(pattern: #"^\s*(@\w+(\([^)]*\))?\s+)*import\s+(\w+\s+)?FiefEngine\b"#)
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
