import Fief
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

    /// verify and copy on a sound file, a damaged one and a format-1 one.
    /// `schema` shows a link's target; `dump` prints links as {"$link": [class, key]}.
    func testSchemaAndDumpShowLinks() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("links.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self, DogToy.self]))
            let toy = DogToy()
            toy.name = "Ball"
            let dog = Dog(name: "Rex", age: 2)
            dog.favoriteToy = toy
            try realm.write {
                realm.add(dog)
                realm.add(Dog(name: "Fido", age: 1))
            }
        }
        let schema = try run(["schema", url.path])
        XCTAssertEqual(schema.status, 0, schema.output)
        XCTAssertTrue(schema.output.contains("favoriteToy: DogToy?  [link]"), schema.output)
        let dump = try run(["dump", url.path, "Dog"])
        XCTAssertEqual(dump.status, 0, dump.output)
        XCTAssertTrue(dump.output.contains("\"favoriteToy\": {\"$link\": [\"DogToy\", 0]}"), dump.output)
        XCTAssertTrue(dump.output.contains("\"name\": \"Fido\", \"age\": 1, \"color\": \"\", \"currentCity\": \"\", \"favoriteToy\": null"), dump.output)
        let verify = try run(["verify", url.path])
        XCTAssertEqual(verify.status, 0, verify.output)
    }

    func testVerifyAndCopy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("demo.fief").path
        XCTAssertEqual(try run(["demo", path]).status, 0)

        let sound = try run(["verify", path])
        XCTAssertEqual(sound.status, 0, sound.output)
        XCTAssertTrue(sound.output.contains("no damage found"), sound.output)

        // A copy: sound, no larger, the same objects.
        let copy = directory.appendingPathComponent("copy.fief").path
        let copied = try run(["copy", path, copy])
        XCTAssertEqual(copied.status, 0, copied.output)
        XCTAssertTrue(copied.output.contains("class 'Dog': 5 objects copied"), copied.output)
        XCTAssertEqual(try run(["verify", copy]).status, 0)
        XCTAssertEqual(try run(["dump", copy, "Dog"]).output, try run(["dump", path, "Dog"]).output)
        let sizes = try [path, copy].map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as! Int }
        XCTAssertLessThanOrEqual(sizes[1], sizes[0])
        let again = try run(["copy", path, copy])
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.output.contains("already exists"), again.output)

        // Damage one byte of a dog's name: verify names class and property
        // (exit 3); copy keeps everything else (exit 3) and the copy is sound.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let needle = Data("Bella".utf8)
        let at = try XCTUnwrap(bytes.range(of: needle)).lowerBound
        bytes[at] ^= 0x20
        let damaged = directory.appendingPathComponent("damaged.fief").path
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let found = try run(["verify", damaged])
        XCTAssertEqual(found.status, 3, found.output)
        XCTAssertTrue(found.output.contains("class 'Dog': property 'name'") && found.output.contains("is damaged"), found.output)
        let read = try run(["dump", damaged, "Dog"])
        XCTAssertNotEqual(read.status, 0)
        XCTAssertTrue(read.output.contains("is damaged"), read.output)
        let salvaged = directory.appendingPathComponent("salvaged.fief").path
        let salvage = try run(["copy", damaged, salvaged])
        XCTAssertEqual(salvage.status, 3, salvage.output)
        XCTAssertTrue(salvage.output.contains("class 'Dog': 5 objects copied"), salvage.output)
        XCTAssertEqual(try run(["verify", salvaged]).status, 0)
        let people = try run(["dump", salvaged, "Person"])
        XCTAssertEqual(people.status, 0, people.output)
        XCTAssertEqual(people.output, try run(["dump", path, "Person"]).output)

        // Format 1: verify says so; copy converts it.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bindings/python/tests/data/format1.fief")
        let old = directory.appendingPathComponent("old.fief").path
        try FileManager.default.copyItem(atPath: fixture.path, toPath: old)
        let oldCheck = try run(["verify", old])
        XCTAssertEqual(oldCheck.status, 0, oldCheck.output)
        XCTAssertTrue(oldCheck.output.contains("file format 1"), oldCheck.output)
        let upgraded = directory.appendingPathComponent("upgraded.fief").path
        XCTAssertEqual(try run(["copy", old, upgraded]).status, 0)
        let info = try run(["info", upgraded])
        XCTAssertTrue(info.output.contains("class    Item: 600 objects"), info.output)
    }
}
