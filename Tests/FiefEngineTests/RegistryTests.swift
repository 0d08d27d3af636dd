import Foundation
@testable import FiefStorage
import XCTest
@testable import FiefEngine

/// One LMDB environment per file and process: realms opened and released on
/// several threads at once must share it, and a new one may open only after
/// the last one closed (two environments of a file overlapping would drop
/// each other's fcntl locks when one closes).
final class RegistryTests: XCTestCase {
    func testOpeningAndClosingFromManyThreads() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("A", [prop("v", .int)])])
        do {
            let db = try DB.open(path, schema)
            try db.write { _ = try db.create("A", [("v", .int(7))]) }
        }
        let failures = Failures()
        let group = DispatchGroup()
        for t in 0..<4 {
            group.enter()
            Thread {
                for i in 0..<150 {
                    do {
                        let db = try DB.open(path, schema)
                        if try db.count("A") != 1 { failures.add("\(t)/\(i): wrong count") }
                        if i % 10 == 0 {
                            XCTAssertTrue(EnvironmentRegistry.isOpen(path: path))
                        }
                    } catch {
                        failures.add("\(t)/\(i): \(error)")
                    }
                }
                group.leave()
            }.start()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(failures.all, [])
        // Every realm is gone: the file is closed, and its files can be deleted.
        XCTAssertFalse(EnvironmentRegistry.isOpen(path: path))
        XCTAssertTrue(try Realm.deleteFiles(path: path))
    }
}
