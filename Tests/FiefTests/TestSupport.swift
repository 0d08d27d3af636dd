import Fief
import Foundation
import XCTest

/// Every test runs with its own in-memory default realm and its own scratch directory.
class FiefTestCase: XCTestCase {
    var directory: URL!

    override func setUp() {
        super.setUp()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("fief-overlay-tests")
            .appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        Realm.Configuration.defaultConfiguration = Realm.Configuration(inMemoryIdentifier: "\(name)-\(UUID().uuidString)")
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
        super.tearDown()
    }

    /// A configuration for a file in this test's scratch directory.
    func fileConfiguration(_ name: String = "test.realm", objectTypes: [ObjectBase.Type]? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.appendingPathComponent(name), objectTypes: objectTypes)
    }

    /// Adds dogs Rex (10, tan), Fido (1, black), Spot (3, tan), Bella (1, brown), Wolfie (7, grey).
    @discardableResult
    func addDogs(_ realm: Realm) throws -> [Dog] {
        let dogs = [
            Dog(name: "Rex", age: 10, color: "tan"),
            Dog(name: "Fido", age: 1, color: "black"),
            Dog(name: "Spot", age: 3, color: "tan"),
            Dog(name: "Bella", age: 1, color: "brown"),
            Dog(name: "Wolfie", age: 7, color: "grey"),
        ]
        try realm.write {
            realm.add(dogs)
        }
        return dogs
    }
}

extension XCTestCase {
    /// Runs `body` on a thread with a 512 KB stack and waits for it (deep
    /// values must not need a deep stack).
    func onSmallStack(_ body: @escaping () throws -> Void) throws {
        // The body runs on the thread alone, then this one reads the outcome.
        final class Outcome: @unchecked Sendable {
            let body: () throws -> Void
            var error: Error?
            init(_ body: @escaping () throws -> Void) { self.body = body }
        }
        let outcome = Outcome(body)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do { try outcome.body() } catch { outcome.error = error }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        if let error = outcome.error { throw error }
    }
}
