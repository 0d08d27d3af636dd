// Models for the RealmSwift surface tests: persistable enums, custom
// persistable types (the protocols page's URL example), legacy
// RealmProperty / RealmOptional members, Codable objects.

import Fief
import Foundation

enum Mood: String, PersistableEnum {
    case happy
    case sad = "SAD"
    case sleepy
}

enum Level: Int, PersistableEnum {
    case low = 1
    case medium = 5
    case high = 10
}

// The protocols page's example: not every string is a URL.  (Swift 6 wants
// the witnesses of a public type's conformance to a public protocol public.)
extension URL: FailableCustomPersistable {
    public typealias PersistedType = String
    public init?(persistedValue: String) {
        self.init(string: persistedValue)
    }
    public var persistableValue: PersistedType {
        self.absoluteString
    }
}

/// A non-failable mapping to Double.
struct Celsius: CustomPersistable, Hashable {
    typealias PersistedType = Double
    var degrees: Double
    init(degrees: Double) { self.degrees = degrees }
    init(persistedValue: Double) { degrees = persistedValue }
    var persistableValue: Double { degrees }
}

class Profile: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var mood: Mood
    @Persisted var optMood: Mood?
    @Persisted(indexed: true) var level: Level = .medium
    @Persisted var optLevel: Level?
    @Persisted var homepage = URL(string: "https://example.com")!
    @Persisted var optHomepage: URL?
    @Persisted var temperature: Celsius
    @Persisted var optTemperature: Celsius?
}

/// An enum as the primary key.
class LevelNote: Object {
    @Persisted(primaryKey: true) var level: Level
    @Persisted var text = ""
}

/// Enums and URLs, to be given values that do not convert through the
/// dynamic API (which sees the stored types).
class TypedHolder: Object {
    override class func _realmObjectName() -> String? { "Holder" }
    @Persisted var mood: Mood
    @Persisted var optMood: Mood?
    @Persisted var url = URL(string: "https://example.com")!
    @Persisted var optURL: URL?
}

/// A point stored as an embedded object (the protocols page's CGPoint example).
class PointObject: EmbeddedObject {
    @Persisted var x = 0.0
    @Persisted var y = 0.0
}

struct Point: CustomPersistable, Hashable {
    typealias PersistedType = PointObject
    var x: Double
    var y: Double
    init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
    init(persistedValue: PointObject) {
        self.init(x: persistedValue.x, y: persistedValue.y)
    }
    var persistableValue: PointObject {
        PointObject(value: [x, y])
    }
}

class Shape: Object {
    @Persisted var name = ""
    @Persisted var origin: Point?
}

/// Legacy `let` properties next to @Persisted ones.
class LegacyDog: Object {
    @Persisted var name = ""
    let age = RealmProperty<Int?>()
    let weight = RealmOptional<Double>()
    let vaccinated = RealmProperty<Bool?>()
    let nickname = RealmProperty<String?>()
}
