// Class projections (`Projection<Root>`, `@Projected`, `ProjectedCollection`)
// on realms in files: every kind of projected property, results of
// projections, live reads, writes through projections, frozen projections,
// equality, and the misuses that trap in RealmSwift.

import Fief
import Foundation
import XCTest

// MARK: - Models

/// A person with every kind of property a projection reads through.
class Citizen: Object {
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var birthday = Date(timeIntervalSince1970: 0)
    @Persisted var address: Residence?
    @Persisted var contact: ContactCard?
    @Persisted var friends: List<Citizen>
    @Persisted var allies: MutableSet<Citizen>
    @Persisted var reviews: List<String>
    /// A plain Swift property, not persisted.
    var nickname = ""
    /// Computed from two persisted properties.
    var fullName: String { "\(firstName) \(lastName)" }
}

class Residence: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var country = ""
}

/// Linked (not embedded) from Citizen, with an embedded phone line.
class ContactCard: Object {
    @Persisted var email: String?
    @Persisted var phone: PhoneLine?
}

class PhoneLine: EmbeddedObject {
    @Persisted var number = ""
}

/// One counter, without a primary key.
class Tally: Object {
    @Persisted var count = 0
}

// MARK: - Projections

/// Every way of projecting: passthrough, rename, computed from a property,
/// through embedded objects and links, computed properties of the root,
/// collection mapping over a list and a set, and whole collections.
class CitizenProjection: Projection<Citizen> {
    @Projected(\Citizen.firstName) var firstName
    @Projected(\Citizen.lastName) var surname
    @Projected(\Citizen.lastName.localizedUppercase) var lastNameCaps
    @Projected(\Citizen.birthday.timeIntervalSince1970) var birthdayAsEpochTime
    @Projected(\Citizen.fullName) var fullName
    @Projected(\Citizen.address) var address
    @Projected(\Citizen.address?.city) var homeCity
    @Projected(\Citizen.contact?.email) var email
    @Projected(\Citizen.contact?.phone?.number) var mobile
    @Projected(\Citizen.reviews) var reviews
    @Projected(\Citizen.friends.count) var friendCount
    @Projected(\Citizen.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
    @Projected(\Citizen.friends.projectTo.fullName) var friendsFullNames: ProjectedCollection<String>
    @Projected(\Citizen.allies.projectTo.firstName) var allyFirstNames: ProjectedCollection<String>
}

/// A few properties, for the description.
final class CitizenCard: Projection<Citizen> {
    @Projected(\Citizen.firstName) var firstName
    @Projected(\Citizen.lastName.localizedUppercase) var lastNameCaps
    @Projected(\Citizen.address?.city) var homeCity
    @Projected(\Citizen.contact?.phone?.number) var mobile
    @Projected(\Citizen.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
}

/// A subclass of a projection: its properties and its parent's.
final class CitizenCardWithEmail: Projection<Citizen> {
    @Projected(\Citizen.firstName) var firstName
    @Projected(\Citizen.contact?.email) var email
}

class TallyProjection: Projection<Tally> {
    @Projected(\Tally.count) var count
}

/// Three names for one property.
final class TallyAliases: TallyProjection {
    @Projected(\Tally.count) var first
    @Projected(\Tally.count) var second
}

/// A projection of an embedded object.
final class ResidenceProjection: Projection<Residence> {
    @Projected(\Residence.city) var town
    @Projected(\Residence.country.localizedUppercase) var countryCaps
}

/// Projects a property that is not persisted: making one traps.
final class NicknameProjection: Projection<Citizen> {
    @Projected(\Citizen.nickname) var nickname
}

// MARK: - Tests

final class ProjectionTests: FiefTestCase {
    /// A realm in a file with Jon Snow (Winterfell, a contact card with
    /// email and mobile, friend Daenerys, ally Samwell) and Daenerys
    /// Targaryen (King's Landing, no contact card, friend Jon).
    func populatedRealm() throws -> Realm {
        let realm = try Realm(configuration: fileConfiguration())
        try realm.write {
            let jon = realm.create(Citizen.self, value: [
                "firstName": "Jon", "lastName": "Snow", "birthday": Date(timeIntervalSince1970: 10),
                "address": ["city": "Winterfell", "country": "The North"],
                "contact": ["email": "jon@wall.org", "phone": ["number": "555-0100"]],
                "reviews": ["knows nothing"],
            ])
            let daenerys = realm.create(Citizen.self, value: [
                "firstName": "Daenerys", "lastName": "Targaryen", "birthday": Date(timeIntervalSince1970: 0),
                "address": ["King's Landing", "Westeros"],
            ])
            let samwell = realm.create(Citizen.self, value: ["firstName": "Samwell", "lastName": "Tarly"])
            jon.friends.append(daenerys)
            daenerys.friends.append(jon)
            jon.allies.insert(samwell)
        }
        return realm
    }

    func jon(in realm: Realm) -> Citizen {
        realm.objects(Citizen.self).filter("firstName == 'Jon'").first!
    }

    // MARK: Reading

    func testEveryKindOfProjectedProperty() throws {
        let realm = try populatedRealm()
        let projection = CitizenProjection(projecting: jon(in: realm))
        XCTAssertEqual(projection.firstName, "Jon")
        XCTAssertEqual(projection.surname, "Snow")
        XCTAssertEqual(projection.lastNameCaps, "SNOW")
        XCTAssertEqual(projection.birthdayAsEpochTime, 10)
        XCTAssertEqual(projection.fullName, "Jon Snow")
        XCTAssertEqual(projection.address?.country, "The North")
        XCTAssertEqual(projection.homeCity, "Winterfell")
        XCTAssertEqual(projection.email, "jon@wall.org")
        XCTAssertEqual(projection.mobile, "555-0100")
        XCTAssertEqual(Array(projection.reviews), ["knows nothing"])
        XCTAssertEqual(projection.friendCount, 1)
        XCTAssertEqual(Array(projection.friendsFirstNames), ["Daenerys"])
        XCTAssertEqual(Array(projection.friendsFullNames), ["Daenerys Targaryen"])
        XCTAssertEqual(Array(projection.allyFirstNames), ["Samwell"])
        XCTAssertTrue(projection.rootObject.isSameObject(as: jon(in: realm)))
    }

    func testKeyPathsThroughMissingLinksReadNil() throws {
        let realm = try populatedRealm()
        let daenerys = CitizenProjection(projecting: realm.objects(Citizen.self).filter("firstName == 'Daenerys'").first!)
        XCTAssertEqual(daenerys.homeCity, "King's Landing")
        XCTAssertNil(daenerys.email, "no contact card")
        XCTAssertNil(daenerys.mobile)
        XCTAssertTrue(daenerys.allyFirstNames.isEmpty)
    }

    func testProjectionOfAnUnmanagedObject() {
        let citizen = Citizen(value: ["firstName": "Arya", "lastName": "Stark", "reviews": ["fierce"]])
        citizen.friends.append(Citizen(value: ["firstName": "Gendry"]))
        let projection = CitizenProjection(projecting: citizen)
        XCTAssertEqual(projection.lastNameCaps, "STARK")
        XCTAssertEqual(Array(projection.friendsFirstNames), ["Gendry"])
        XCTAssertNil(projection.realm)
        XCTAssertFalse(projection.isFrozen)
        XCTAssertFalse(projection.isInvalidated)
        projection.firstName = "No One"
        XCTAssertEqual(citizen.firstName, "No One", "unmanaged roots are written without a transaction")
    }

    func testProjectionOfAnEmbeddedObject() throws {
        let realm = try populatedRealm()
        let jon = jon(in: realm)
        let residence = ResidenceProjection(projecting: try XCTUnwrap(jon.address))
        XCTAssertEqual(residence.town, "Winterfell")
        XCTAssertEqual(residence.countryCaps, "THE NORTH")
        XCTAssertEqual(residence.realm, realm)
        try realm.write { residence.town = "Castle Black" }
        XCTAssertEqual(jon.address?.city, "Castle Black")
        XCTAssertEqual(_name(for: \ResidenceProjection.countryCaps), "country")
    }

    // MARK: Results of projections

    func testResultsOfProjectionsFilterAndSortByTheRootsProperties() throws {
        let realm = try populatedRealm()
        let all: Results<CitizenProjection> = realm.objects(CitizenProjection.self)
        XCTAssertEqual(all.count, 3)
        XCTAssertEqual(all.map(\.firstName).sorted(), ["Daenerys", "Jon", "Samwell"])

        let snow = all.filter("lastName == 'Snow'").first!
        XCTAssertEqual(snow.homeCity, "Winterfell")
        XCTAssertEqual(snow.birthdayAsEpochTime, 10)
        XCTAssertEqual(snow.friendsFirstNames.first, "Daenerys")

        let byFirstName = all.sorted(byKeyPath: "firstName")
        XCTAssertEqual(byFirstName.map(\.firstName), ["Daenerys", "Jon", "Samwell"])
        XCTAssertEqual(byFirstName.first?.friendsFirstNames.first, "Jon")
        XCTAssertEqual(all.sorted(byKeyPath: "birthday", ascending: false).first?.firstName, "Jon")
        XCTAssertEqual(all.sorted(byKeyPath: "address.city").map(\.homeCity), ["King's Landing", "Winterfell", nil],
                       "a sort through the embedded address; Samwell has none")
        XCTAssertEqual(all.sorted(by: [SortDescriptor(keyPath: "lastName", ascending: false)]).last?.surname, "Snow")

        XCTAssertEqual(all.index(of: snow), all.map(\.firstName).firstIndex(of: "Jon"))
        XCTAssertNil(all.filter("firstName == 'Samwell'").index(of: snow))
        XCTAssertEqual(all.realm, realm)
        // (Samwell alone: Jon and Daenerys are each other's friends, and
        // describing a cycle of objects does not end yet.)
        let samwell = all.filter("firstName == 'Samwell'")
        XCTAssertTrue(samwell.description.hasPrefix("Results<Citizen>"), "results describe the root objects, as in RealmSwift")
        XCTAssertTrue(samwell.description.contains("firstName = Samwell;"))
    }

    func testEveryElementOfResultsIsAProjectionOfItsRow() throws {
        let realm = try populatedRealm()
        var names: [String] = []
        for projection in realm.objects(CitizenProjection.self).sorted(byKeyPath: "firstName") {
            names.append(projection.fullName)
            XCTAssertEqual(projection.rootObject.fullName, projection.fullName)
        }
        XCTAssertEqual(names, ["Daenerys Targaryen", "Jon Snow", "Samwell Tarly"])
        let anyCollection = AnyRealmCollection(realm.objects(CitizenCard.self))
        XCTAssertEqual(anyCollection.count, 3)
        XCTAssertEqual(anyCollection.filter("firstName BEGINSWITH 'S'").first?.firstName, "Samwell")
    }

    func testResultsOfProjectionsAreLive() throws {
        let realm = try populatedRealm()
        let snows = realm.objects(CitizenProjection.self).filter("lastName == 'Snow'")
        XCTAssertEqual(snows.count, 1)
        try realm.write {
            realm.create(Citizen.self, value: ["firstName": "Benjen", "lastName": "Snow"])
        }
        XCTAssertEqual(snows.count, 2)
        XCTAssertEqual(snows.map(\.firstName).sorted(), ["Benjen", "Jon"])
    }

    func testFrozenResultsOfProjections() throws {
        let realm = try populatedRealm()
        let frozen = realm.objects(CitizenProjection.self).freeze()
        try realm.write {
            realm.create(Citizen.self, value: ["firstName": "Benjen", "lastName": "Snow"])
        }
        XCTAssertEqual(frozen.count, 3)
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertTrue(frozen.first!.isFrozen, "projections of frozen results are frozen")
        XCTAssertEqual(frozen.thaw()?.count, 4)
    }

    // MARK: Live reads

    func testReadsReflectLaterWrites() throws {
        let realm = try populatedRealm()
        let jon = jon(in: realm)
        let projection = realm.objects(CitizenProjection.self).filter("firstName == 'Jon'").first!
        let friendsNames = projection.friendsFirstNames
        try realm.write {
            jon.lastName = "Targaryen"
            jon.address?.city = "Castle Black"
            jon.contact?.phone = nil
            jon.friends.append(realm.create(Citizen.self, value: ["firstName": "Tormund"]))
            jon.friends[0].firstName = "Dany"
        }
        XCTAssertEqual(projection.surname, "Targaryen")
        XCTAssertEqual(projection.lastNameCaps, "TARGARYEN")
        XCTAssertEqual(projection.fullName, "Jon Targaryen")
        XCTAssertEqual(projection.homeCity, "Castle Black")
        XCTAssertNil(projection.mobile)
        XCTAssertEqual(projection.friendCount, 2)
        XCTAssertEqual(Array(projection.friendsFirstNames), ["Dany", "Tormund"])
        XCTAssertEqual(Array(friendsNames), ["Dany", "Tormund"], "a projected collection read earlier is live too")
    }

    func testReadsReflectWritesFromAnotherRealmAfterRefresh() throws {
        let realm = try populatedRealm()
        let projection = CitizenProjection(projecting: jon(in: realm))
        let configuration = realm.configuration
        let finished = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: configuration)
            let jon = other.objects(Citizen.self).filter("firstName == 'Jon'").first!
            try! other.write { jon.firstName = "Aegon" }
            finished.signal()
        }.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        realm.refresh()
        XCTAssertEqual(projection.firstName, "Aegon")
    }

    // MARK: Writes

    func testWritesGoToTheRootInsideAWriteTransaction() throws {
        let realm = try populatedRealm()
        let jon = jon(in: realm)
        let projection = CitizenProjection(projecting: jon)
        let card = realm.objects(CitizenCard.self).filter("lastName == 'Snow'").first!
        try realm.write {
            projection.firstName = "Aegon"
            projection.surname = "Targaryen"
            projection.address = Residence(value: ["city": "Dragonstone", "country": "Westeros"])
            projection.reviews.append("the rightful heir")
        }
        XCTAssertEqual(jon.firstName, "Aegon")
        XCTAssertEqual(jon.lastName, "Targaryen")
        XCTAssertEqual(jon.address?.city, "Dragonstone")
        XCTAssertEqual(Array(jon.reviews), ["knows nothing", "the rightful heir"])
        XCTAssertEqual(card.firstName, "Aegon", "another projection of the same object sees the write")
        XCTAssertEqual(card.lastNameCaps, "TARGARYEN")
        XCTAssertEqual(card.homeCity, "Dragonstone")
        XCTAssertEqual(realm.objects(Citizen.self).filter("firstName == 'Aegon' AND lastName == 'Targaryen'").count, 1)
    }

    func testCancelledWritesThroughAProjectionAreUndone() throws {
        let realm = try populatedRealm()
        let projection = CitizenProjection(projecting: jon(in: realm))
        realm.beginWrite()
        projection.firstName = "Aegon"
        XCTAssertEqual(projection.firstName, "Aegon")
        realm.cancelWrite()
        XCTAssertEqual(projection.firstName, "Jon")
    }

    // MARK: Collection mapping

    func testProjectedCollections() throws {
        let realm = try populatedRealm()
        let jon = jon(in: realm)
        try realm.write {
            jon.friends.append(realm.create(Citizen.self, value: ["firstName": "Tormund", "lastName": "Giantsbane"]))
            jon.friends.append(jon.friends[0])
        }
        let projection = CitizenProjection(projecting: jon)
        let names = projection.friendsFirstNames
        XCTAssertEqual(names.count, 3)
        XCTAssertEqual(names.startIndex, 0)
        XCTAssertEqual(names.endIndex, 3)
        XCTAssertEqual(names[1], "Tormund")
        XCTAssertEqual(names.last, "Daenerys")
        XCTAssertEqual(Array(names.reversed()), ["Daenerys", "Tormund", "Daenerys"])
        XCTAssertEqual(names.index(of: "Tormund"), 1)
        XCTAssertNil(names.index(of: "Hodor"))
        XCTAssertEqual(names.index(matching: "lastName == %@", "Giantsbane"), 1)
        XCTAssertNil(names.index(matching: "lastName == 'Stark'"))
        XCTAssertEqual(Array(projection.friendsFullNames), ["Daenerys Targaryen", "Tormund Giantsbane", "Daenerys Targaryen"])
        XCTAssertEqual(names.realm, realm)
        XCTAssertFalse(names.isFrozen)
        XCTAssertFalse(names.isInvalidated)
        XCTAssertEqual(names.description, "ProjectedCollection<String> {\n\t[0] Daenerys\n\t[1] Tormund\n\t[2] Daenerys\n}")
    }

    func testSettingAProjectedCollectionElementWritesThatObject() throws {
        let realm = try populatedRealm()
        let jon = jon(in: realm)
        let projection = CitizenProjection(projecting: jon)
        try realm.write {
            projection.friendsFirstNames[0] = "Dany"
        }
        XCTAssertEqual(jon.friends[0].firstName, "Dany")
        XCTAssertEqual(realm.objects(Citizen.self).filter("firstName == 'Dany'").count, 1)
    }

    func testProjectedSetsMayRepeatValues() throws {
        let realm = try populatedRealm()
        let jon = jon(in: realm)
        try realm.write {
            jon.allies.insert(realm.create(Citizen.self, value: ["firstName": "Samwell", "lastName": "Other"]))
        }
        let allies = CitizenProjection(projecting: jon).allyFirstNames
        XCTAssertEqual(Array(allies), ["Samwell", "Samwell"])
    }

    func testFrozenProjectedCollections() throws {
        let realm = try populatedRealm()
        let jon = jon(in: realm)
        let names = CitizenProjection(projecting: jon).friendsFirstNames
        let frozen = names.freeze()
        try realm.write {
            jon.friends.append(realm.create(Citizen.self, value: ["firstName": "Tormund"]))
        }
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertEqual(Array(frozen), ["Daenerys"])
        XCTAssertEqual(Array(names), ["Daenerys", "Tormund"])
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(Array(thawed), ["Daenerys", "Tormund"])
        try realm.write { realm.delete(jon) }
        XCTAssertTrue(names.isInvalidated)
        XCTAssertNil(frozen.thaw(), "the list's object was deleted")
    }

    // MARK: Frozen projections

    func testFreezeAndThaw() throws {
        let realm = try populatedRealm()
        let projection = CitizenProjection(projecting: jon(in: realm))
        let frozen = projection.freeze()
        XCTAssertFalse(projection.isFrozen)
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertTrue(frozen.rootObject.isFrozen)
        XCTAssertTrue(frozen.realm?.isFrozen ?? false)
        XCTAssertEqual(frozen.freeze(), frozen)

        try realm.write { projection.firstName = "Aegon" }
        XCTAssertEqual(frozen.firstName, "Jon", "a frozen projection keeps its version")
        XCTAssertEqual(Array(frozen.friendsFirstNames), ["Daenerys"])
        XCTAssertTrue(frozen.friendsFirstNames.isFrozen)

        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.firstName, "Aegon", "the live object shows every write since")
        XCTAssertEqual(thawed, projection)
        XCTAssertTrue(projection.thaw() == projection, "a live projection thaws to itself")
    }

    func testThawOfADeletedObjectIsNil() throws {
        let realm = try populatedRealm()
        let projection = CitizenProjection(projecting: jon(in: realm))
        let frozen = projection.freeze()
        try realm.write { realm.delete(projection.rootObject) }
        XCTAssertNil(frozen.thaw())
        XCTAssertEqual(frozen.firstName, "Jon", "the frozen version still has it")
        XCTAssertTrue(projection.isInvalidated)
        XCTAssertFalse(frozen.isInvalidated)
    }

    func testFrozenProjectionsAreReadFromAnotherThread() throws {
        let realm = try populatedRealm()
        nonisolated(unsafe) let frozen = CitizenProjection(projecting: jon(in: realm)).freeze()
        final class Box: @unchecked Sendable { var read: [String] = [] }
        let box = Box()
        let done = expectation(description: "reader")
        Thread {
            box.read = [frozen.fullName, frozen.homeCity ?? "-"] + Array(frozen.friendsFirstNames)
            done.fulfill()
        }.start()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(box.read, ["Jon Snow", "Winterfell", "Daenerys"])
    }

    // MARK: Identity

    func testEqualityAndHashing() throws {
        let realm = try populatedRealm()
        let fromObject = CitizenProjection(projecting: jon(in: realm))
        let fromResults = realm.objects(CitizenProjection.self).filter("lastName == 'Snow'").first!
        let daenerys = realm.objects(CitizenProjection.self).filter("lastName != 'Snow'").first!
        XCTAssertFalse(fromObject.rootObject === fromResults.rootObject)
        XCTAssertEqual(fromObject, fromResults, "the same row, without a primary key")
        XCTAssertEqual(fromObject.hashValue, fromResults.hashValue)
        XCTAssertNotEqual(fromObject, daenerys)
        XCTAssertEqual(Set([fromObject, fromResults, daenerys]).count, 2)

        let frozenA = fromObject.freeze()
        let frozenB = fromResults.freeze()
        XCTAssertEqual(frozenA, frozenB, "frozen at the same version")
        XCTAssertNotEqual(frozenA, fromObject, "a frozen projection is not its live object")
        try realm.write { fromObject.firstName = "Aegon" }
        XCTAssertNotEqual(fromObject.freeze(), frozenA, "frozen at another version")

        let unmanaged = Citizen()
        XCTAssertEqual(CitizenProjection(projecting: unmanaged), CitizenProjection(projecting: unmanaged))
        XCTAssertNotEqual(CitizenProjection(projecting: unmanaged), CitizenProjection(projecting: Citizen()))
    }

    func testRealmAndInvalidation() throws {
        let realm = try populatedRealm()
        let projection = realm.objects(CitizenCard.self).first!
        XCTAssertEqual(projection.realm, realm)
        XCTAssertFalse(projection.isInvalidated)
        try realm.write { realm.delete(projection.rootObject) }
        XCTAssertTrue(projection.isInvalidated)
        XCTAssertEqual(projection.description, "[invalid object]")
    }

    // MARK: Description and names

    func testDescription() throws {
        let realm = try populatedRealm()
        let card = realm.objects(CitizenCard.self).filter("lastName == 'Snow'").first!
        let address = "\(Unmanaged.passUnretained(card.rootObject).toOpaque())"
        XCTAssertEqual(card.description, """
            CitizenCard<Citizen> <\(address)> {
            \tfirstName(\\.firstName) = Jon;
            \tlastNameCaps(\\.lastName) = SNOW;
            \thomeCity(\\.address.city) = Optional("Winterfell");
            \tmobile(\\.contact.phone.number) = Optional("555-0100");
            \tfriendsFirstNames(\\.friends) = ProjectedCollection<String> {
            \t[0] Daenerys
            };
            }
            """)
        XCTAssertEqual(String(describing: card), card.description)
    }

    func testSubclassedProjectionsHaveTheirParentsProperties() throws {
        let realm = try populatedRealm()
        try realm.write { realm.create(Tally.self, value: ["count": 7]) }
        let aliases = realm.objects(TallyAliases.self).first!
        XCTAssertEqual([aliases.count, aliases.first, aliases.second], [7, 7, 7])
        XCTAssertEqual(aliases.description.components(separatedBy: "\n").dropFirst().dropLast(),
                       ["\tcount(\\.count) = 7;", "\tfirst(\\.count) = 7;", "\tsecond(\\.count) = 7;"])
        try realm.write { aliases.second = 8 }
        XCTAssertEqual([aliases.count, aliases.first, aliases.second], [8, 8, 8])
    }

    func testNamesOfProjectionKeyPaths() {
        XCTAssertEqual(_name(for: \CitizenProjection.firstName), "firstName")
        XCTAssertEqual(_name(for: \CitizenProjection.surname), "lastName")
        XCTAssertEqual(_name(for: \CitizenProjection.lastNameCaps), "lastName")
        XCTAssertEqual(_name(for: \CitizenProjection.homeCity), "address.city")
        XCTAssertEqual(_name(for: \CitizenProjection.mobile), "contact.phone.number")
        XCTAssertEqual(_name(for: \CitizenProjection.friendsFirstNames), "friends")
        XCTAssertEqual(_name(for: \CitizenCardWithEmail.email), "contact.email")
    }

    // MARK: Traps

    func testProjectingAPropertyThatIsNotPersistedTraps() {
        assertTraps("projectionNotPersistedKeyPath", message: "reads no persisted property")
    }

    func testResultsOfAProjectionOfAPropertyThatIsNotPersistedTrapOnRead() throws {
        // Counting makes no projection: only reading an element traps.
        let realm = try ProjectionTests.trapRealm(self)
        XCTAssertEqual(realm.objects(NicknameProjection.self).count, 1)
        assertTraps("projectionNotPersistedKeyPathFromResults", message: "reads no persisted property")
    }

    func testWritingOutsideAWriteTransactionTraps() {
        assertTraps("projectionWriteOutsideTransaction", message: "outside of a write transaction")
    }

    func testWritingThroughAReadOnlyKeyPathTraps() {
        assertTraps("projectionWriteComputedKeyPath", message: "Cannot set 'lastNameCaps' of 'CitizenProjection'")
        assertTraps("projectionWriteOptionalChainKeyPath", message: "Cannot set 'homeCity' of 'CitizenProjection'")
    }

    func testWritingAFrozenProjectionTraps() {
        assertTraps("projectionWriteFrozen", message: "Attempting to modify a frozen object")
    }

    func testFreezingAnUnmanagedOrDeletedRootTraps() {
        assertTraps("projectionFreezeUnmanaged", message: "Unmanaged objects cannot be frozen")
        assertTraps("projectionFreezeDeleted", message: "deleted or invalidated")
    }

    func testResultsOfProjectionsOfAnEmbeddedClassTrap() {
        assertTraps("projectionObjectsOfEmbeddedProjection", message: "is embedded")
    }

    func testSettingAComputedProjectedCollectionElementTraps() {
        assertTraps("projectionSetComputedCollectionElement", message: "is not writable")
    }

    /// Scenario name → code that must trap (run by TrapScenarioRunner).
    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "projectionNotPersistedKeyPath": { test in
            _ = NicknameProjection(projecting: Citizen())
        },
        "projectionNotPersistedKeyPathFromResults": { test in
            let realm = try ProjectionTests.trapRealm(test)
            let projections = realm.objects(NicknameProjection.self)
            _ = projections.count
            _ = projections.first
        },
        "projectionWriteOutsideTransaction": { test in
            let realm = try ProjectionTests.trapRealm(test)
            realm.objects(CitizenProjection.self).first!.firstName = "Aegon"
        },
        "projectionWriteComputedKeyPath": { test in
            let realm = try ProjectionTests.trapRealm(test)
            let projection = realm.objects(CitizenProjection.self).first!
            try realm.write { projection.lastNameCaps = "STARK" }
        },
        "projectionWriteOptionalChainKeyPath": { test in
            let realm = try ProjectionTests.trapRealm(test)
            let projection = realm.objects(CitizenProjection.self).first!
            try realm.write { projection.homeCity = "Winterfell" }
        },
        "projectionWriteFrozen": { test in
            let realm = try ProjectionTests.trapRealm(test)
            let frozen = realm.objects(CitizenProjection.self).first!.freeze()
            try realm.write { frozen.firstName = "Aegon" }
        },
        "projectionFreezeUnmanaged": { test in
            _ = CitizenProjection(projecting: Citizen()).freeze()
        },
        "projectionFreezeDeleted": { test in
            let realm = try ProjectionTests.trapRealm(test)
            let projection = realm.objects(CitizenProjection.self).first!
            try realm.write { realm.delete(projection.rootObject) }
            _ = projection.freeze()
        },
        "projectionObjectsOfEmbeddedProjection": { test in
            let realm = try ProjectionTests.trapRealm(test)
            _ = realm.objects(ResidenceProjection.self)
        },
        "projectionSetComputedCollectionElement": { test in
            let realm = try ProjectionTests.trapRealm(test)
            let projection = realm.objects(CitizenProjection.self).first!
            try realm.write {
                projection.rootObject.friends.append(realm.create(Citizen.self))
                projection.friendsFullNames[0] = "Someone Else"
            }
        },
    ]

    /// A realm in the scenario's directory with one citizen.
    static func trapRealm(_ test: FiefTestCase) throws -> Realm {
        let realm = try Realm(configuration: test.fileConfiguration())
        try realm.write { realm.create(Citizen.self, value: ["firstName": "Jon", "lastName": "Snow"]) }
        return realm
    }
}
