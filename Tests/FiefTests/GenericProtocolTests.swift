// Generic helpers written against RealmSwift's public underscored protocols
// (`_RealmSchemaDiscoverable`, `_RealmCollectionValueInsideOptional`,
// `_PersistableInsideOptional`, `_DefaultConstructible`, `_HasPersistedType`,
// `_Persistable`, `_CustomPersistable`, `_MapKey`, `_Indexable`,
// `_PrimaryKey`): they must compile unchanged with `import Fief`, and the
// test runs them.

import Fief
import Foundation
import XCTest

/// A list of optionals of any element type that allows them.
func optionalList<T: _RealmCollectionValueInsideOptional>(_ values: [T?]) -> List<T?> {
    let list = List<T?>()
    list.append(objectsIn: values)
    return list
}

/// The value a type's empty initializer gives.
func emptyValue<T: _DefaultConstructible>(_: T.Type) -> T { T() }

/// How schema discovery sees a type.
func schemaKind<T: _RealmSchemaDiscoverable>(_: T.Type) -> (type: PropertyType, optional: Bool) {
    (T._rlmType, T._rlmOptional)
}

/// The type a value is stored as.
func storedType<T: _HasPersistedType>(_: T.Type) -> T.PersistedType.Type { T.PersistedType.self }

/// The stored type of a persistable type is persistable, and stores as itself.
func storedTypeIsPersistable<T: _Persistable>(_: T.Type) -> Bool
    where T.PersistedType.PersistedType == T.PersistedType {
    T.PersistedType.self is any _Persistable.Type
}

/// Sets an optional property of any persistable type, through a key path.
func setOptional<O: Object, V: _PersistableInsideOptional>(_ object: O, _ keyPath: ReferenceWritableKeyPath<O, V?>, _ value: V?) {
    object[keyPath: keyPath] = value
}

/// The persisted value of a custom type.
func persistedValue<T: _CustomPersistable>(of value: T) -> T.PersistedType { value.persistableValue }

/// A map of any key and value types.
func emptyMap<K: _MapKey, V: RealmCollectionValue>(_: K.Type, _: V.Type) -> Map<K, V> { Map<K, V>() }

/// Types that may be indexed or be the primary key.
func canBeIndexed<T: _Indexable>(_: T.Type) -> Bool { true }
func canBePrimaryKey<T: _PrimaryKey>(_: T.Type) -> Bool { true }

final class GenericProtocolTests: FiefTestCase {
    func testGenericHelpersOverTheUnderscoredProtocols() throws {
        XCTAssertEqual(Array(optionalList([1, nil, 3])), [1, nil, 3])
        XCTAssertEqual(Array(optionalList(["a", nil])), ["a", nil])
        XCTAssertEqual(optionalList([Celsius(degrees: 1), nil]).count, 2)
        XCTAssertEqual(optionalList([Mood.sad]).first, .sad)
        XCTAssertEqual(optionalList([Dog?.none]).count, 1)

        XCTAssertEqual(emptyValue(Int.self), 0)
        XCTAssertEqual(emptyValue(String.self), "")
        XCTAssertEqual(emptyValue(List<Int>.self).count, 0)
        XCTAssertEqual(emptyValue(Map<String, Int>.self).count, 0)
        XCTAssertFalse(emptyValue(Dog.self).isInvalidated)

        XCTAssertEqual(schemaKind(Int.self).type, .int)
        XCTAssertFalse(schemaKind(Int.self).optional)
        XCTAssertEqual(schemaKind(String?.self).type, .string)
        XCTAssertTrue(schemaKind(String?.self).optional)
        XCTAssertEqual(schemaKind(Dog?.self).type, .object)
        XCTAssertEqual(schemaKind(Mood.self).type, .string)
        XCTAssertEqual(schemaKind(List<Date>.self).type, .date)
        XCTAssertEqual(schemaKind(RealmProperty<Int?>.self).type, .int)
        XCTAssertTrue(schemaKind(RealmProperty<Int?>.self).optional)
        XCTAssertTrue(schemaKind(RealmOptional<Double>.self).optional)

        XCTAssertTrue(storedType(Mood.self) == String.self)
        XCTAssertTrue(storedType(Celsius.self) == Double.self)
        XCTAssertTrue(storedType(Int?.self) == Int?.self)
        XCTAssertTrue(storedTypeIsPersistable(Celsius.self))
        XCTAssertTrue(storedTypeIsPersistable(Int.self))

        let realm = try Realm()
        let profile = Profile()
        setOptional(profile, \.optMood, .sleepy)
        try realm.write { realm.add(profile) }
        try realm.write { setOptional(profile, \.optMood, nil) }
        XCTAssertNil(profile.optMood)

        XCTAssertEqual(persistedValue(of: Celsius(degrees: 21.5)), 21.5)
        XCTAssertEqual(emptyMap(String.self, Int?.self).count, 0)
        XCTAssertTrue(canBeIndexed(Date.self) && canBePrimaryKey(ObjectId.self) && canBePrimaryKey(Int?.self))
    }
}
