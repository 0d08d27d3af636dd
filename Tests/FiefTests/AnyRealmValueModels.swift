// Models for the AnyRealmValue tests: a class with a mixed property of each
// kind (a `@Persisted` value, a legacy `RealmProperty`, a list, a set and a
// map of mixed values), objects that mixed values link to, a Codable model,
// and the CRUD-Read guide's Dog with its `companion` (stored as
// "CompanionDog").

import Fief
import Foundation

class MixedHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyRealmValue
    @Persisted var values: List<AnyRealmValue>
    @Persisted var distinct: MutableSet<AnyRealmValue>
    @Persisted var byKey: Map<String, AnyRealmValue>
    let legacy = RealmProperty<AnyRealmValue>()

    convenience init(id: Int, value: AnyRealmValue = .none) {
        self.init()
        self.id = id
        self.value = value
    }
}

/// A mixed property with a default value.
class MixedDefault: Object {
    @Persisted var note = ""
    @Persisted var value: AnyRealmValue = .string("default")
}

/// Objects mixed values link to, of two classes.
class MixedCat: Object, Codable {
    @Persisted var name = ""
    @Persisted var friend: AnyRealmValue

    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

class MixedBird: Object {
    @Persisted(primaryKey: true) var name = ""
}

/// A Codable model with mixed properties.
class CodableMixed: Object, Codable {
    @Persisted var name = ""
    @Persisted var value: AnyRealmValue
    @Persisted var values: List<AnyRealmValue>
    @Persisted var byKey: Map<String, AnyRealmValue>
}

/// An embedded class, which a mixed value can never hold.
class MixedAddress: EmbeddedObject {
    @Persisted var street = ""
}

class MixedOwner: Object {
    @Persisted var address: MixedAddress?
    @Persisted var value: AnyRealmValue
}

/// The CRUD-Read guide's models, as the guide declares them (under names
/// of their own in the schema).
enum MixedGuide {
    class Dog: Object {
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var companion: AnyRealmValue

        override class func _realmObjectName() -> String? { "CompanionDog" }
    }
}
