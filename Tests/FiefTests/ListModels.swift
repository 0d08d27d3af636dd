// Models for the List tests: lists of every scalar type (optional or
// not), of enums and custom persistable types, self-referencing lists of
// links (cycles), and a Codable model with lists.

import Fief
import Foundation

class ScalarLists: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: List<Int>
    @Persisted var int8s: List<Int8>
    @Persisted var int16s: List<Int16>
    @Persisted var int32s: List<Int32>
    @Persisted var int64s: List<Int64>
    @Persisted var bools: List<Bool>
    @Persisted var strings: List<String>
    @Persisted var datas: List<Data>
    @Persisted var dates: List<Date>
    @Persisted var floats: List<Float>
    @Persisted var doubles: List<Double>
    @Persisted var decimals: List<Decimal128>
    @Persisted var objectIds: List<ObjectId>
    @Persisted var uuids: List<UUID>

    @Persisted var optInts: List<Int?>
    @Persisted var optBools: List<Bool?>
    @Persisted var optStrings: List<String?>
    @Persisted var optDatas: List<Data?>
    @Persisted var optDates: List<Date?>
    @Persisted var optFloats: List<Float?>
    @Persisted var optDoubles: List<Double?>
    @Persisted var optDecimals: List<Decimal128?>
    @Persisted var optObjectIds: List<ObjectId?>
    @Persisted var optUUIDs: List<UUID?>

    @Persisted var moods: List<Mood>
    @Persisted var levels: List<Level?>
    @Persisted var temperatures: List<Celsius>
    @Persisted var links: List<URL>
}

/// Friends of friends: lists of links to the own class (cycles).
class Friend: Object {
    @Persisted var name = ""
    @Persisted var friends: List<Friend>

    convenience init(_ name: String) {
        self.init()
        self.name = name
    }
}

/// Lists in a Codable model.
class Playlist: Object, Codable {
    @Persisted var name = ""
    @Persisted var trackNumbers: List<Int>
    @Persisted var notes: List<String?>
}
