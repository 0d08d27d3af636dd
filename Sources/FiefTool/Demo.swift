import Fief
import Foundation

// The models of Realm's "CRUD - Read" guide, with the properties this
// version of Fief stores (scalars; links and collections come next).
final class DogToy: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var name = ""
}

final class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var currentCity = ""
}

final class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

/// `fief demo PATH`: write a small data set, read it back, print a tour.
func runDemo(path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: url))
    let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                            objectTypes: [DogToy.self, Dog.self, Person.self])
    let realm = try Realm(configuration: configuration)
    print("Fief \(fiefLibraryVersion) demo: \(path)")

    let dogs: [(String, Int, String, String)] = [
        ("Rex", 3, "brown", "Lisbon"), ("Bella", 1, "black", "Porto"), ("Max", 7, "white", "Lisbon"),
        ("Luna", 2, "golden", "Braga"), ("Buddy", 11, "brown", "Porto"), ("Benji", 5, "black", "Lisbon"),
    ]
    try realm.write {
        for (name, age, color, city) in dogs {
            let dog = Dog()
            dog.name = name
            dog.age = age
            dog.color = color
            dog.currentCity = city
            realm.add(dog)
        }
        for (id, name) in [(1, "Ana"), (2, "Bruno"), (12345, "Carla")] {
            realm.create(Person.self, value: ["id": id, "name": name])
        }
        let toy = DogToy()
        toy.name = "Tennis ball"
        realm.add(toy)
    }
    print("committed \(realm.objects(Dog.self).count) dogs, \(realm.objects(Person.self).count) people, \(realm.objects(DogToy.self).count) toy")

    let specificPerson = realm.object(ofType: Person.self, forPrimaryKey: 12345)
    print("object(ofType: Person.self, forPrimaryKey: 12345) -> \(specificPerson?.name ?? "nil")")

    let puppies = realm.objects(Dog.self).filter("age < %@", 2)
    print("dogs younger than 2: \(puppies.map(\.name))")

    let bNames = realm.objects(Dog.self).filter("name BEGINSWITH 'B' AND color != $0", "white")
        .sorted(byKeyPath: "age", ascending: false)
    print("names starting with B, oldest first: \(bNames.map { "\($0.name) (\($0.age))" })")

    let byCity = realm.objects(Dog.self).sorted(by: [SortDescriptor(keyPath: "currentCity"), SortDescriptor(keyPath: "name")])
    print("sorted by city then name: \(byCity.map { "\($0.currentCity)/\($0.name)" })")

    let lisbon = realm.objects(Dog.self).filter("currentCity == 'Lisbon'")
    print("live results: \(lisbon.count) dogs in Lisbon")
    try realm.write {
        lisbon.first?.currentCity = "Faro"
    }
    print("after moving one to Faro, the same results hold \(lisbon.count)")

    let frozen = realm.freeze()
    try realm.write { realm.delete(realm.objects(Dog.self).filter("age > 10")) }
    print("deleted the dogs older than 10: live \(realm.objects(Dog.self).count), frozen snapshot \(frozen.objects(Dog.self).count)")
}
