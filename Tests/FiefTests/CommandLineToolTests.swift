import Foundation
import XCTest

/// The `fief` command-line tool (SwiftPM product `fief-cli`), run as a user
/// would: built next to this test bundle by `swift build --build-tests`.
final class CommandLineToolTests: XCTestCase {
    private var tool: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // The runner may sit inside the .xctest bundle.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "Contents" || directory.lastPathComponent == "MacOS" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("fief-cli")
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testDemoThenSchemaDumpAndInfo() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tool.path), "fief-cli not found at \(tool.path)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("demo.fief").path

        let demo = try run(["demo", path])
        XCTAssertEqual(demo.status, 0, demo.output)
        XCTAssertTrue(demo.output.contains("committed 6 dogs, 3 people, 1 toy"), demo.output)
        XCTAssertTrue(demo.output.contains("forPrimaryKey: 12345) -> Carla"), demo.output)
        XCTAssertTrue(demo.output.contains("live 5, frozen snapshot 6"), demo.output)

        let schema = try run(["schema", path])
        XCTAssertEqual(schema.status, 0, schema.output)
        XCTAssertTrue(schema.output.contains("class Person {"), schema.output)
        XCTAssertTrue(schema.output.contains("id: int  [primary key]"), schema.output)

        let dump = try run(["dump", path, "Dog"])
        XCTAssertEqual(dump.status, 0, dump.output)
        let lines = dump.output.split(separator: "\n")
        XCTAssertEqual(lines.count, 5, dump.output)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("{\"name\": ") }, dump.output)
        XCTAssertTrue(dump.output.contains("\"name\": \"Bella\", \"age\": 1"), dump.output)

        let info = try run(["info", path])
        XCTAssertEqual(info.status, 0, info.output)
        XCTAssertTrue(info.output.contains("class    Dog: 5 objects, 4 properties"), info.output)

        let missing = try run(["dump", path, "Cat"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.output.contains("has no class 'Cat'"), missing.output)

        let garbage = directory.appendingPathComponent("garbage.fief").path
        try Data((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: garbage))
        let bad = try run(["info", garbage])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.output.contains("not a Fief file"), bad.output)
    }
}
