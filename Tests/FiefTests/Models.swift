// Test models: the CRUD-Read page's models (Dog, DogToy, Person with its
// list of dogs and inverse relationship to clubs, DogClub with lists of
// members and of embedded addresses, Address), plus one class with every
// scalar type.

import Fief
import Foundation

class DogToy: Object {
    @Persisted var id: ObjectId
    @Persisted var name = ""
    // Inverse relationship: the dogs whose favorite toy this is.
    @Persisted(originProperty: "favoriteToy") var dogs: LinkingObjects<Dog>
}

class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var currentCity = ""
    @Persisted var favoriteToy: DogToy?

    // Computed, not persisted.
    var firstLetter: String {
        return name.first.map(String.init(_:)) ?? ""
    }

    convenience init(name: String, age: Int, color: String = "") {
        self.init()
        self.name = name
        self.age = age
        self.color = color
    }
}

class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var city: String?
    // Embed a single object (embedded object properties are optional).
    @Persisted var address: Address?
    // To-many relationship - a person can have many dogs
    @Persisted var dogs: List<Dog>
    // Inverse relationship - a person can be a member of many clubs
    @Persisted(originProperty: "members") var clubs: LinkingObjects<DogClub>

    convenience init(id: Int, name: String) {
        self.init()
        self.id = id
        self.name = name
    }

    convenience init(name: String, address: Address) {
        self.init()
        self.name = name
        self.address = address
    }
}

class DogClub: Object {
    @Persisted var name = ""
    @Persisted var members: List<Person>
    // DogClub has an array of regional office addresses.
    // These are embedded objects.
    @Persisted var regionalOfficeAddresses: List<Address>
    convenience init(name: String, addresses: [Address]) {
        self.init()
        self.name = name
        self.regionalOfficeAddresses.append(objectsIn: addresses)
    }
}

/// Links to its own class (a buddy may be oneself).
class Buddy: Object {
    @Persisted var name = ""
    @Persisted var buddy: Buddy?
}

class AllTypes: Object {
    @Persisted(primaryKey: true) var pk: ObjectId = ObjectId.generate()
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var bool = false
    @Persisted var float: Float = 0
    @Persisted var double: Double = 0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var decimal: Decimal128 = 0
    @Persisted var objectId = ObjectId()
    @Persisted var uuid = UUID()

    @Persisted var optInt: Int?
    @Persisted var optInt8: Int8?
    @Persisted var optInt16: Int16?
    @Persisted var optInt32: Int32?
    @Persisted var optInt64: Int64?
    @Persisted var optBool: Bool?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optDecimal: Decimal128?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optUUID: UUID?
}

/// Properties declared without defaults read as the type's default.
class NoDefaults: Object {
    @Persisted var int: Int
    @Persisted var string: String
    @Persisted var date: Date
    @Persisted var uuid: UUID
    @Persisted var optional: String?
}

/// Flags and inheritance for schema discovery.
class Animal: Object {
    @Persisted(primaryKey: true) var tag: String = ""
    @Persisted(indexed: true) var species = ""
    var notPersisted = 5
}

class Cat: Animal {
    @Persisted var lives = 9
    @Persisted(indexed: true) var nickname: String?
}

class Address: EmbeddedObject {
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var country: String?
    @Persisted var postalCode: String?
}

/// Identifiable objects.
class Note: Object, ObjectKeyIdentifiable {
    @Persisted var text = ""
}

/// Stored under another name.
class RenamedThing: Object {
    override class func _realmObjectName() -> String? { "Thing" }
    @Persisted var value = 0
}

/// Only used in the automatic-registration test (never instantiated before it).
class LateComer: Object {
    @Persisted var label = ""
}

/// Only used in the first-use-inside-a-write test.
class FirstInWrite: Object {
    @Persisted var n = 0
}

/// Only used in the first-use-after-changes test.
class SecondInWrite: Object {
    @Persisted var n = 0
}
