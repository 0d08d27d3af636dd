import Fief
import Foundation
import XCTest

/// Realm notifications as RealmSwift's RealmTests check them (observe,
/// invalidate, autorefresh, refresh), with real threads and a real child
/// process (the `fief` tool importing into the file).  Timeouts are
/// liveness bounds.
final class NotificationTests: FiefTestCase {
    func testObserveIsCalledByOwnCommit() throws {
        let realm = try Realm()
        var calls = 0
        let token = realm.observe { notification, observed in
            XCTAssertEqual(notification, .didChange)
            XCTAssertEqual(observed, realm)
            calls += 1
        }
        XCTAssertEqual(calls, 0)
        try realm.write {}
        XCTAssertEqual(calls, 1) // at once, as RealmSwift's local notifications
        token.invalidate()
        try realm.write {}
        XCTAssertEqual(calls, 1)
        token.invalidate() // twice is fine
    }

    func testRemoveNotificationBeforeAnyWrite() throws {
        let realm = try Realm()
        var called = false
        let token = realm.observe { _, _ in called = true }
        token.invalidate()
        try realm.write {}
        XCTAssertFalse(called)
    }

    func testAutorefreshDeliversAnotherThreadsCommitOnTheMainQueue() throws {
        let configuration = fileConfiguration()
        let realm = try Realm(configuration: configuration)
        XCTAssertTrue(realm.autorefresh)
        realm.autorefresh = false
        XCTAssertFalse(realm.autorefresh)
        realm.autorefresh = true
        let fired = expectation(description: "didChange")
        let token = realm.observe { notification, _ in
            XCTAssertTrue(Thread.isMainThread)
            XCTAssertEqual(notification, .didChange)
            fired.fulfill()
        }
        let done = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.add(Dog(name: "Rex", age: 3, color: "tan")) }
            done.signal()
        }.start()
        done.wait()
        wait(for: [fired], timeout: 10)
        token.invalidate()
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testRefreshRequiredThenRefreshCallsDidChange() throws {
        let configuration = fileConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        let required = expectation(description: "refreshRequired")
        var seen: [Realm.Notification] = []
        let token = realm.observe { notification, _ in
            seen.append(notification)
            if notification == .refreshRequired { required.fulfill() }
        }
        let results = realm.objects(Dog.self)
        XCTAssertEqual(results.count, 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.add(Dog(name: "Rex", age: 3, color: "tan")) }
            done.signal()
        }.start()
        done.wait()
        wait(for: [required], timeout: 10)
        XCTAssertEqual(results.count, 0) // not refreshed by itself
        XCTAssertTrue(realm.refresh())
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(seen, [.refreshRequired, .didChange])
        token.invalidate()
    }

    func testBeginWriteDeliversFirst() throws {
        let configuration = fileConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        var seenInWrite: [Bool] = []
        let token = realm.observe { _, observed in seenInWrite.append(observed.isInWriteTransaction) }
        let done = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.add(Dog(name: "Rex", age: 3, color: "tan")) }
            done.signal()
        }.start()
        done.wait()
        realm.beginWrite()
        XCTAssertEqual(seenInWrite, [false]) // told before the write began
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
        realm.cancelWrite()
        token.invalidate()
    }

    func testObserverOnAnotherThreadGetsItsRunLoop() throws {
        let configuration = fileConfiguration()
        let registered = DispatchSemaphore(value: 0)
        let fired = expectation(description: "didChange on the observing thread")
        final class Flag: @unchecked Sendable { var stop = false; var thread: Thread? }
        let flag = Flag()
        let observer = Thread {
            let realm = try! Realm(configuration: configuration)
            let token = realm.observe { _, _ in
                XCTAssertTrue(Thread.current === flag.thread)
                XCTAssertEqual(realm.objects(Dog.self).count, 1)
                fired.fulfill()
                flag.stop = true
            }
            registered.signal()
            let deadline = Date().addingTimeInterval(10)
            while !flag.stop && Date() < deadline {
                _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05))
            }
            token.invalidate()
        }
        flag.thread = observer
        observer.start()
        registered.wait()
        let writer = try Realm(configuration: configuration)
        try writer.write { writer.add(Dog(name: "Rex", age: 3, color: "tan")) }
        wait(for: [fired], timeout: 15)
    }

    func testInvalidateInsideTheBlockAndFromAnotherThread() throws {
        let realm = try Realm()
        var calls = 0
        var token: NotificationToken!
        token = realm.observe { _, _ in
            calls += 1
            token.invalidate()
        }
        try realm.write {}
        try realm.write {}
        XCTAssertEqual(calls, 1)

        var others = 0
        let other = realm.observe { _, _ in others += 1 }
        let released = DispatchSemaphore(value: 0)
        Thread {
            other.invalidate()
            released.signal()
        }.start()
        released.wait()
        try realm.write {}
        XCTAssertEqual(others, 0)
    }

    func testAChildProcessCommitIsDelivered() throws {
        let path = directory.appendingPathComponent("child.realm")
        let configuration = Realm.Configuration(fileURL: path)
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Dog(name: "Rex", age: 3, color: "tan")) }
        // The tool dumps the dog; importing the line again adds one more (no primary key).
        let dump = try runTool(["dump", path.path, "Dog"])
        XCTAssertEqual(dump.status, 0, dump.output)
        let input = directory.appendingPathComponent("dog.jsonl")
        try dump.output.write(to: input, atomically: true, encoding: .utf8)
        let fired = expectation(description: "didChange from another process")
        let token = realm.observe { _, _ in fired.fulfill() }
        let imported = try runTool(["import", path.path], input: input.path)
        XCTAssertEqual(imported.status, 0, imported.output)
        wait(for: [fired], timeout: 10)
        XCTAssertEqual(realm.objects(Dog.self).count, 2)
        token.invalidate()
    }

    func testFrozenRealmsCannotBeObserved() throws {
        let realm = try Realm()
        let frozen = realm.freeze()
        XCTAssertFalse(frozen.autorefresh)
        frozen.autorefresh = false // allowed
        assertTraps("observeFrozenRealm", message: "Frozen Realms do not change and do not have change notifications.")
        assertTraps("autorefreshOnFrozenRealm", message: "Auto-refresh cannot be enabled for frozen Realms.")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "observeFrozenRealm": { _ in
            let frozen = try Realm().freeze()
            _ = frozen.observe { _, _ in }
        },
        "autorefreshOnFrozenRealm": { _ in
            let frozen = try Realm().freeze()
            frozen.autorefresh = true
        },
    ]

    /// Runs the `fief` tool built next to this test bundle.
    private func runTool(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        var tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while tool.pathExtension == "xctest" || tool.lastPathComponent == "Contents" || tool.lastPathComponent == "MacOS" {
            tool = tool.deletingLastPathComponent()
        }
        let process = Process()
        process.executableURL = tool.appendingPathComponent("fief")
        process.arguments = arguments
        if let input { process.standardInput = FileHandle(forReadingAtPath: input) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
