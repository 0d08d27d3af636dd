// Models for the MutableSet and Map tests: sets and maps of every scalar
// type (optional or not), of enums and custom persistable types, of links
// and of embedded objects; the CRUD-Read guide's Dog with its set and map
// (under the guide's names, stored as "GuideDog"); the Map page's
// `myObject.stringMap` / `mapOfDogs` and `students`.

import Fief
import Foundation

class ScalarSets: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: MutableSet<Int>
    @Persisted var int8s: MutableSet<Int8>
    @Persisted var int16s: MutableSet<Int16>
    @Persisted var int32s: MutableSet<Int32>
    @Persisted var int64s: MutableSet<Int64>
    @Persisted var bools: MutableSet<Bool>
    @Persisted var strings: MutableSet<String>
    @Persisted var datas: MutableSet<Data>
    @Persisted var dates: MutableSet<Date>
    @Persisted var floats: MutableSet<Float>
    @Persisted var doubles: MutableSet<Double>
    @Persisted var decimals: MutableSet<Decimal128>
    @Persisted var objectIds: MutableSet<ObjectId>
    @Persisted var uuids: MutableSet<UUID>

    @Persisted var optInts: MutableSet<Int?>
    @Persisted var optBools: MutableSet<Bool?>
    @Persisted var optStrings: MutableSet<String?>
    @Persisted var optDatas: MutableSet<Data?>
    @Persisted var optDates: MutableSet<Date?>
    @Persisted var optFloats: MutableSet<Float?>
    @Persisted var optDoubles: MutableSet<Double?>
    @Persisted var optDecimals: MutableSet<Decimal128?>
    @Persisted var optObjectIds: MutableSet<ObjectId?>
    @Persisted var optUUIDs: MutableSet<UUID?>

    @Persisted var moods: MutableSet<Mood>
    @Persisted var levels: MutableSet<Level?>
    @Persisted var temperatures: MutableSet<Celsius>
    @Persisted var links: MutableSet<URL>
}

class ScalarMaps: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: Map<String, Int>
    @Persisted var int8s: Map<String, Int8>
    @Persisted var int16s: Map<String, Int16>
    @Persisted var int32s: Map<String, Int32>
    @Persisted var int64s: Map<String, Int64>
    @Persisted var bools: Map<String, Bool>
    @Persisted var strings: Map<String, String>
    @Persisted var datas: Map<String, Data>
    @Persisted var dates: Map<String, Date>
    @Persisted var floats: Map<String, Float>
    @Persisted var doubles: Map<String, Double>
    @Persisted var decimals: Map<String, Decimal128>
    @Persisted var objectIds: Map<String, ObjectId>
    @Persisted var uuids: Map<String, UUID>

    @Persisted var optInts: Map<String, Int?>
    @Persisted var optBools: Map<String, Bool?>
    @Persisted var optStrings: Map<String, String?>
    @Persisted var optDatas: Map<String, Data?>
    @Persisted var optDates: Map<String, Date?>
    @Persisted var optFloats: Map<String, Float?>
    @Persisted var optDoubles: Map<String, Double?>
    @Persisted var optDecimals: Map<String, Decimal128?>
    @Persisted var optObjectIds: Map<String, ObjectId?>
    @Persisted var optUUIDs: Map<String, UUID?>

    @Persisted var moods: Map<String, Mood>
    @Persisted var levels: Map<String, Level?>
    @Persisted var temperatures: Map<String, Celsius>
    @Persisted var links: Map<String, URL>
}

/// A kennel: sets and maps of links (to Dog) and a map of embedded addresses.
class Kennel: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: MutableSet<Dog>
    @Persisted var dogsByName: Map<String, Dog?>
    @Persisted var offices: Map<String, Address?>
    @Persisted var tags: MutableSet<String>

    convenience init(id: Int, name: String) {
        self.init()
        self.id = id
        self.name = name
    }
}

/// Sets and maps in a Codable model.
class Itinerary: Object, Codable {
    @Persisted var title = ""
    @Persisted var cities: MutableSet<String>
    @Persisted var nights: Map<String, Int>
    @Persisted var notes: Map<String, String?>
}

/// The CRUD-Read guide's models, under the guide's own names (stored as
/// "Guide..." so that they do not clash with the other tests' Dog).
enum CRUDGuide {
    class DogToy: Object {
        override class func _realmObjectName() -> String? { "GuideDogToy" }
        @Persisted var id: ObjectId
        @Persisted var name = ""
    }

    class Dog: Object {
        override class func _realmObjectName() -> String? { "GuideDog" }
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var color = ""
        @Persisted var currentCity = ""
        @Persisted var citiesVisited: MutableSet<String>
        // To-one relationship
        @Persisted var favoriteToy: DogToy?
        // Map of city name -> favorite park in that city
        @Persisted var favoriteParksByCity: Map<String, String>
        // Computed variable that is not persisted, but only
        // used to section query results.
        var firstLetter: String {
            return name.first.map(String.init(_:)) ?? ""
        }
    }
}

/// The Map page's `myObject` with its `stringMap` and `mapOfDogs`.
class MapPageObject: Object {
    @Persisted var stringMap: Map<String, String>
    @Persisted var mapOfDogs: Map<String, MapPageDog?>
    @Persisted var students: Map<String, Student?>
}

/// The Map page's observed Dog (name, age, toys).
class MapPageDog: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var toys: List<MapPageToy>
}

class MapPageToy: Object {
    @Persisted var brand = ""
}

/// The Map page's sorting example: a map of students sorted by age.
class Student: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}
