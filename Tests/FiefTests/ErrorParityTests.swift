// Where RealmSwift traps with a documented reason, Fief's message names the
// same thing (realm-swift's PrimitiveListTests, RealmCollectionTypeTests,
// GeospatialTests, ObjectTests), and `Realm.Error` carries the codes
// realm-swift's RealmTests and MigrationTests expect.

import Fief
import Foundation
import XCTest

final class ErrorParityTests: FiefTestCase {
    // MARK: Negative indexes: "Cannot pass a negative value"

    func testNegativeIndexesTrapAsRealmSwiftDoes() {
        for name in ["unmanagedSubscript", "unmanagedReplace", "unmanagedMove", "unmanagedSwap", "unmanagedRemove", "unmanagedInsert",
                     "managedSubscript", "managedReplace", "managedMoveTo", "managedSwap", "managedRemove", "managedInsert",
                     "resultsSubscript", "linkingObjectsSubscript"] {
            assertTraps("ErrorParity.negative.\(name)", message: "Cannot pass a negative value")
        }
    }

    // MARK: Sorting by a key path that does not exist

    func testSortByMissingKeyPathNamesTheProperty() {
        assertTraps("ErrorParity.sortMissing", message: "Cannot sort on key path 'noSuchCol': property 'Dog.noSuchCol' does not exist")
        assertTraps("ErrorParity.sortMissingThroughLink", message: "Cannot sort on key path 'favoriteToy.noSuchCol': property 'DogToy.noSuchCol' does not exist")
        assertTraps("ErrorParity.sortMissingList", message: "Cannot sort on key path 'noSuchCol': property 'Dog.noSuchCol' does not exist")
    }

    // MARK: GEOWITHIN with a region that is not valid

    // The shape named as RealmSwift names it (realm-swift's GeospatialTests:
    // realm-core's notation, longitude first, altitude 0), through `filter`
    // (`GEOWITHIN %@`, `IN %@`) and `where`; the reason after it is the
    // library's (the hole's is realm-core's wording, the crossing edges'
    // names the same edges).
    func testInvalidRegionNamesTheParameterAsRealmSwiftDoes() {
        let crossing = "Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[-50, 50, 0], [55, 55, 0], [50, -50, 0], [-25, 70, 0], [-50, 50, 0]})': '"
        assertTraps("ErrorParity.geoSelfIntersecting", message: crossing)
        assertTraps("ErrorParity.geoSelfIntersectingWhere", message: crossing)
        assertTraps("ErrorParity.geoSelfIntersecting", message: "Edges 0 and 2 cross")
        assertTraps("ErrorParity.geoHoleOutside", message: "Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 0]}, {[2, 2, 0], [3, 2, 0], [3, 3, 0], [2, 3, 0], [2, 2, 0]})': 'Secondary ring 1 not contained by first exterior ring - secondary rings must be holes in the first ring'")
        assertTraps("ErrorParity.geoHoleInIn", message: "Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[-80, 50, 0], [20, 60, 0], [20, 20, 0], [-80, -80, 0], [-80, 50, 0]}, {[-75.5176, 40.0096, 0], [20, 60, 0], [20, 20, 0], [-75.5176, -75.5176, 0], [-75.5176, 40.0096, 0]})': '")
        assertTraps("ErrorParity.geoFlatBox", message: "Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[1.5, 2], [1.5, 2], [1.5, 2], [1.5, 2], [1.5, 2]})': '")
    }

    // MARK: SELF on results of objects

    // RealmSwift's query builder takes key paths and constants only: `SELF`
    // (NSPredicate's evaluated object) in a query of managed objects raises
    // "Predicate expressions must compare a keypath and another keypath or a
    // constant value"; so does Fief's library (the query language's `self`
    // is the element of a collection of values).  Unmanaged lists answer it
    // in memory (UnmanagedIndexMatchingTests).
    // MARK: Freezing what is not managed

    func testFreezingUnmanagedCollectionsTraps() {
        assertTraps("ErrorParity.freezeList", message: "This method may only be called on RLMArray instances retrieved from an RLMRealm")
        assertTraps("ErrorParity.freezeSet", message: "This method may only be called on RLMSet instances retrieved from an RLMRealm")
        assertTraps("ErrorParity.freezeMap", message: "This method may only be called on RLMDictionary instances retrieved from an RLMRealm")
        assertTraps("ErrorParity.freezeObject", message: "Unmanaged objects cannot be frozen.")
    }

    // MARK: Realm.Error codes

    func testAFileThatIsNoRealmIsAnInvalidDatabase() throws {
        let url = directory.appendingPathComponent("garbage.realm")
        try Data("a".utf8).write(to: url)
        XCTAssertThrowsError(try Realm(configuration: Realm.Configuration(fileURL: url))) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidDatabase, "\(error)")
            XCTAssertTrue(Realm.Error.invalidDatabase ~= error)
            XCTAssertTrue((error as? Realm.Error)?.message.contains(url.path) ?? false, "\(error)")
        }
        try Data(repeating: 0x5A, count: 65536).write(to: url)
        XCTAssertThrowsError(try Realm(configuration: Realm.Configuration(fileURL: url))) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidDatabase, "\(error)")
        }
    }

    func testAMissingReadOnlyFileIsFileNotFound() {
        let url = directory.appendingPathComponent("missing.realm")
        XCTAssertThrowsError(try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .fileNotFound, "\(error)")
            XCTAssertTrue(Realm.Error.fileNotFound ~= error)
        }
        do {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
            XCTFail("opened a missing file read-only")
        } catch Realm.Error.fileNotFound {
            // RealmSwift's RealmTests catch it by code, as here.
        } catch {
            XCTFail("unexpected \(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path), "a read-only open creates nothing")
    }

    func testSchemaVersionOfAMissingFileIsAnUninitializedRealm() throws {
        let url = directory.appendingPathComponent("never.realm")
        XCTAssertThrowsError(try schemaVersionAtURL(url)) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidDatabase, "\(error)")
            XCTAssertEqual((error as? Realm.Error)?.message, "Realm at path '\(url.path)' has not been initialized.")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
        _ = try Realm(configuration: Realm.Configuration(fileURL: url))
        XCTAssertEqual(try schemaVersionAtURL(url), 0)
    }

    func testOpeningAFileOpenReadOnlyWithoutReadOnlyTraps() {
        assertTraps("ErrorParity.readOnlyMismatch", message: "already opened with different read permissions")
        assertTraps("ErrorParity.readWriteThenReadOnly", message: "already opened with different read permissions")
    }

    /// What opening `configuration` on a thread of its own gives: nil, or
    /// the error it throws.
    private func openError(onAnotherThread configuration: Realm.Configuration) -> Error? {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: Error?
        let thread = Thread {
            do { _ = try Realm(configuration: configuration) } catch { failure = error }
            done.signal()
        }
        thread.start()
        done.wait()
        return failure
    }

    /// realm-core's coordinator holds every live realm of a file in the
    /// process (realm-swift's testCannotHaveReadOnlyAndReadWriteRealmsAtSamePathAtSameTime):
    /// with one open on another thread, an open with the other `readOnly`
    /// setting throws `.fail` with RealmSwift's message, either way round;
    /// once those realms are gone, the file opens.
    func testAFileOpenOnAnotherThreadWithOtherReadPermissionsThrows() throws {
        let url = directory.appendingPathComponent("threads.realm")
        let message = "Realm at path '\(url.path)' already opened with different read permissions."
        func assertRefused(_ configuration: Realm.Configuration, line: UInt = #line) {
            let error = openError(onAnotherThread: configuration)
            XCTAssertEqual((error as? Realm.Error)?.code, .fail, "\(String(describing: error))", line: line)
            XCTAssertEqual((error as? Realm.Error)?.message, message, line: line)
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            try realm.write { realm.add(Dog(name: "Rex", age: 1, color: "")) }
            assertRefused(Realm.Configuration(fileURL: url, readOnly: true))
            XCTAssertNil(openError(onAnotherThread: Realm.Configuration(fileURL: url)), "the same permissions open")
        }
        do {
            let readOnly = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
            assertRefused(Realm.Configuration(fileURL: url))
            XCTAssertNil(openError(onAnotherThread: Realm.Configuration(fileURL: url, readOnly: true)))
            XCTAssertEqual(readOnly.objects(Dog.self).count, 1)
        }
        // Nothing open any more: either opens.
        XCTAssertNil(openError(onAnotherThread: Realm.Configuration(fileURL: url)))
        XCTAssertNil(openError(onAnotherThread: Realm.Configuration(fileURL: url, readOnly: true)))
        // A frozen realm counts, as realm-core's coordinator holds it too.
        let frozen = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true)).freeze()
        assertRefused(Realm.Configuration(fileURL: url))
        XCTAssertEqual(frozen.objects(Dog.self).count, 1)
    }

    func testReadOnlyThenReadOnlyAgainIsFine() throws {
        let url = directory.appendingPathComponent("shared.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            try realm.write { realm.add(Dog(name: "Rex", age: 1, color: "")) }
        }
        let first = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
        let second = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
        XCTAssertEqual(first.objects(Dog.self).count, 1)
        XCTAssertEqual(second.objects(Dog.self).count, 1)
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = {
        func unmanaged() -> List<Int> {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            return list
        }
        func managed() throws -> (Realm, List<Dog>) {
            let realm = try Realm()
            let person = Person()
            person.id = 1
            try realm.write {
                realm.add(person)
                person.dogs.append(Dog(name: "Rex", age: 1, color: ""))
                person.dogs.append(Dog(name: "Fido", age: 2, color: ""))
            }
            realm.beginWrite()
            return (realm, person.dogs)
        }
        let polygon = GeoPolygon(outerRing: [(50, -50), (55, 55), (-50, 50), (70, -25), (50, -50)])!
        let holeOutside = GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)],
                                     holes: [[(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)]])!
        return [
            "ErrorParity.negative.unmanagedSubscript": { _ in _ = unmanaged()[-1] },
            "ErrorParity.negative.unmanagedReplace": { _ in unmanaged().replace(index: -1, object: 4) },
            "ErrorParity.negative.unmanagedMove": { _ in unmanaged().move(from: -1, to: 0) },
            "ErrorParity.negative.unmanagedSwap": { _ in unmanaged().swapAt(0, -1) },
            "ErrorParity.negative.unmanagedRemove": { _ in unmanaged().remove(at: -1) },
            "ErrorParity.negative.unmanagedInsert": { _ in unmanaged().insert(4, at: -1) },
            "ErrorParity.negative.managedSubscript": { _ in _ = try managed().1[-1] },
            "ErrorParity.negative.managedReplace": { _ in try managed().1.replace(index: -1, object: Dog()) },
            "ErrorParity.negative.managedMoveTo": { _ in try managed().1.move(from: 0, to: -1) },
            "ErrorParity.negative.managedSwap": { _ in try managed().1.swapAt(-1, 0) },
            "ErrorParity.negative.managedRemove": { _ in try managed().1.remove(at: -1) },
            "ErrorParity.negative.managedInsert": { _ in try managed().1.insert(Dog(), at: -1) },
            "ErrorParity.negative.resultsSubscript": { _ in
                let (realm, _) = try managed()
                _ = realm.objects(Dog.self)[-1]
            },
            "ErrorParity.negative.linkingObjectsSubscript": { _ in
                let (realm, _) = try managed()
                let toy = DogToy()
                realm.add(toy)
                realm.objects(Dog.self)[0].favoriteToy = toy
                _ = toy.dogs[-1]
            },
            "ErrorParity.sortMissing": { _ in _ = try Realm().objects(Dog.self).sorted(byKeyPath: "noSuchCol") },
            "ErrorParity.sortMissingThroughLink": { _ in _ = try Realm().objects(Dog.self).sorted(byKeyPath: "favoriteToy.noSuchCol") },
            "ErrorParity.sortMissingList": { _ in _ = try managed().1.sorted(byKeyPath: "noSuchCol") },
            "ErrorParity.geoSelfIntersecting": { _ in _ = try Realm().objects(GeoPerson.self).filter("location GEOWITHIN %@", polygon) },
            "ErrorParity.geoHoleOutside": { _ in _ = try Realm().objects(GeoPerson.self).where { $0.location.geoWithin(holeOutside) } },
            "ErrorParity.geoSelfIntersectingWhere": { _ in _ = try Realm().objects(GeoPerson.self).where { $0.location.geoWithin(polygon) } },
            "ErrorParity.geoHoleInIn": { _ in
                let shape = GeoPolygon(outerRing: [(50, -80), (60, 20), (20, 20), (-80, -80), (50, -80)],
                                       holes: [[(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)]])!
                _ = try Realm().objects(GeoPerson.self).filter("location IN %@", shape)
            },
            "ErrorParity.geoFlatBox": { _ in
                _ = try Realm().objects(GeoPerson.self).filter("location GEOWITHIN %@", GeoBox(bottomLeft: (2, 1.5), topRight: (2, 1.5))!)
            },
            "ErrorParity.freezeList": { _ in _ = List<Int>().freeze() },
            "ErrorParity.freezeSet": { _ in _ = MutableSet<Int>().freeze() },
            "ErrorParity.freezeMap": { _ in _ = Map<String, Int>().freeze() },
            "ErrorParity.freezeObject": { _ in _ = Dog().freeze() },
            "ErrorParity.readWriteThenReadOnly": { test in
                let url = test.directory.appendingPathComponent("rw.realm")
                let readWrite = try Realm(configuration: Realm.Configuration(fileURL: url))
                _ = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
                withExtendedLifetime(readWrite) {}
            },
            "ErrorParity.readOnlyMismatch": { test in
                let url = test.directory.appendingPathComponent("ro.realm")
                do { _ = try Realm(configuration: Realm.Configuration(fileURL: url)) }
                let readOnly = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
                _ = try Realm(configuration: Realm.Configuration(fileURL: url))
                withExtendedLifetime(readOnly) {}
            },
        ]
    }()
}
