import CFief
import Fief
import Foundation
import XCTest

/// The `fief` command-line tool (SwiftPM product `fief`), run as a user
/// would: built next to this test bundle by `swift build --build-tests`.
final class CommandLineToolTests: XCTestCase {
    private var tool: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // The runner may sit inside the .xctest bundle.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "Contents" || directory.lastPathComponent == "MacOS" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("fief")
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testDemoThenSchemaDumpAndInfo() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tool.path), "fief not found at \(tool.path)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("demo.fief").path

        let demo = try run(["demo", path])
        XCTAssertEqual(demo.status, 0, demo.output)
        XCTAssertTrue(demo.output.contains("committed 6 dogs, 3 people, 1 toy"), demo.output)
        XCTAssertTrue(demo.output.contains("forPrimaryKey: 12345) -> Carla"), demo.output)
        XCTAssertTrue(demo.output.contains("live 5, frozen snapshot 6"), demo.output)

        let schema = try run(["schema", path])
        XCTAssertEqual(schema.status, 0, schema.output)
        XCTAssertTrue(schema.output.contains("class Person {"), schema.output)
        XCTAssertTrue(schema.output.contains("id: int  [primary key]"), schema.output)

        let dump = try run(["dump", path, "Dog"])
        XCTAssertEqual(dump.status, 0, dump.output)
        let lines = dump.output.split(separator: "\n")
        XCTAssertEqual(lines.count, 5, dump.output)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("{\"name\": ") }, dump.output)
        XCTAssertTrue(dump.output.contains("\"name\": \"Bella\", \"age\": 1"), dump.output)

        let info = try run(["info", path])
        XCTAssertEqual(info.status, 0, info.output)
        XCTAssertTrue(info.output.contains("class    Dog: 5 objects, 4 properties"), info.output)

        let missing = try run(["dump", path, "Cat"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.output.contains("has no class 'Cat'"), missing.output)

        let garbage = directory.appendingPathComponent("garbage.fief").path
        try Data((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: garbage))
        let bad = try run(["info", garbage])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.output.contains("not a Fief file"), bad.output)
    }

    /// verify and copy on a sound file, a damaged one and a format-1 one.
    /// `schema` shows a link's target; `dump` prints links as {"$link": [class, key]}.
    func testSchemaAndDumpShowLinks() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("links.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self, DogToy.self]))
            let toy = DogToy()
            toy.name = "Ball"
            let dog = Dog(name: "Rex", age: 2)
            dog.favoriteToy = toy
            try realm.write {
                realm.add(dog)
                realm.add(Dog(name: "Fido", age: 1))
            }
        }
        let schema = try run(["schema", url.path])
        XCTAssertEqual(schema.status, 0, schema.output)
        XCTAssertTrue(schema.output.contains("favoriteToy: DogToy?  [link]"), schema.output)
        let dump = try run(["dump", url.path, "Dog"])
        XCTAssertEqual(dump.status, 0, dump.output)
        XCTAssertTrue(dump.output.contains("\"favoriteToy\": {\"$link\": [\"DogToy\", 0]}"), dump.output)
        XCTAssertTrue(dump.output.contains("\"name\": \"Fido\", \"age\": 1, \"color\": \"\", \"currentCity\": \"\", \"favoriteToy\": null"), dump.output)
        let verify = try run(["verify", url.path])
        XCTAssertEqual(verify.status, 0, verify.output)
    }

    /// `schema` shows a full-text index; `verify` checks it, `copy` rebuilds it.
    func testSchemaVerifyAndCopyKnowFullTextIndexes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("notes.realm"), copy = directory.appendingPathComponent("copy.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [FTSNote.self, FTSReader.self]))
            try realm.write { realm.add(FTSNote(1, "The quick brown fox", "Fox", stars: 1)) }
        }
        let schema = try run(["schema", url.path])
        XCTAssertEqual(schema.status, 0, schema.output)
        XCTAssertTrue(schema.output.contains("body: string  [full-text indexed]"), schema.output)
        XCTAssertTrue(schema.output.contains("title: string?  [full-text indexed]"), schema.output)
        let verify = try run(["verify", url.path])
        XCTAssertEqual(verify.status, 0, verify.output)
        let copied = try run(["copy", url.path, copy.path])
        XCTAssertEqual(copied.status, 0, copied.output)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: copy, objectTypes: [FTSNote.self, FTSReader.self]))
        XCTAssertEqual(realm.objects(FTSNote.self).filter("body TEXT 'FOX quick'").count, 1)
    }

    func testVerifyAndCopy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("demo.fief").path
        XCTAssertEqual(try run(["demo", path]).status, 0)

        let sound = try run(["verify", path])
        XCTAssertEqual(sound.status, 0, sound.output)
        XCTAssertTrue(sound.output.contains("no damage found"), sound.output)

        // A copy: sound, no larger, the same objects.
        let copy = directory.appendingPathComponent("copy.fief").path
        let copied = try run(["copy", path, copy])
        XCTAssertEqual(copied.status, 0, copied.output)
        XCTAssertTrue(copied.output.contains("class 'Dog': 5 objects copied"), copied.output)
        XCTAssertEqual(try run(["verify", copy]).status, 0)
        XCTAssertEqual(try run(["dump", copy, "Dog"]).output, try run(["dump", path, "Dog"]).output)
        let sizes = try [path, copy].map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as! Int }
        XCTAssertLessThanOrEqual(sizes[1], sizes[0])
        let again = try run(["copy", path, copy])
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.output.contains("already exists"), again.output)

        // Damage one byte of a dog's name: verify names class and property
        // (exit 3); copy keeps everything else (exit 3) and the copy is sound.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let needle = Data("Bella".utf8)
        let at = try XCTUnwrap(bytes.range(of: needle)).lowerBound
        bytes[at] ^= 0x20
        let damaged = directory.appendingPathComponent("damaged.fief").path
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let found = try run(["verify", damaged])
        XCTAssertEqual(found.status, 3, found.output)
        XCTAssertTrue(found.output.contains("class 'Dog': property 'name'") && found.output.contains("is damaged"), found.output)
        let read = try run(["dump", damaged, "Dog"])
        XCTAssertNotEqual(read.status, 0)
        XCTAssertTrue(read.output.contains("is damaged"), read.output)
        let salvaged = directory.appendingPathComponent("salvaged.fief").path
        let salvage = try run(["copy", damaged, salvaged])
        XCTAssertEqual(salvage.status, 3, salvage.output)
        XCTAssertTrue(salvage.output.contains("class 'Dog': 5 objects copied"), salvage.output)
        XCTAssertEqual(try run(["verify", salvaged]).status, 0)
        let people = try run(["dump", salvaged, "Person"])
        XCTAssertEqual(people.status, 0, people.output)
        XCTAssertEqual(people.output, try run(["dump", path, "Person"]).output)

        // Format 1: verify says so; copy converts it.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bindings/python/tests/data/format1.fief")
        let old = directory.appendingPathComponent("old.fief").path
        try FileManager.default.copyItem(atPath: fixture.path, toPath: old)
        let oldCheck = try run(["verify", old])
        XCTAssertEqual(oldCheck.status, 0, oldCheck.output)
        XCTAssertTrue(oldCheck.output.contains("file format 1"), oldCheck.output)
        let upgraded = directory.appendingPathComponent("upgraded.fief").path
        XCTAssertEqual(try run(["copy", old, upgraded]).status, 0)
        let info = try run(["info", upgraded])
        XCTAssertTrue(info.output.contains("class    Item: 600 objects"), info.output)
    }

    /// Sets and maps of every kind, written through the C ABI: `schema`
    /// spells them as Swift does, `dump` prints sets as arrays in their
    /// order and maps as objects in key order, links as {"$link": ...} and
    /// embedded values inline; verify and copy keep them.
    func testSchemaAndDumpShowSetsAndMaps() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("collections.fief").path
        let strings = CStrings()
        func property(_ name: String, _ type: fief_type_t, _ collection: fief_collection_type_t = FIEF_COLLECTION_NONE,
                      target: String? = nil, nullable: Bool = false) -> fief_property_info_t {
            strings.property(name, type, collection, target: target, nullable: nullable)
        }
        let classes: [(String, Bool, [fief_property_info_t])] = [
            ("Place", true, [property("city", FIEF_TYPE_STRING)]),
            ("Dog", false, [property("name", FIEF_TYPE_STRING)]),
            ("Person", false, [property("name", FIEF_TYPE_STRING),
                               property("scores", FIEF_TYPE_DOUBLE, FIEF_COLLECTION_SET),
                               property("tags", FIEF_TYPE_STRING, FIEF_COLLECTION_SET, nullable: true),
                               property("dogs", FIEF_TYPE_LINK, FIEF_COLLECTION_SET, target: "Dog"),
                               property("ages", FIEF_TYPE_INT, FIEF_COLLECTION_MAP),
                               property("pets", FIEF_TYPE_LINK, FIEF_COLLECTION_MAP, target: "Dog", nullable: true),
                               property("places", FIEF_TYPE_LINK, FIEF_COLLECTION_MAP, target: "Place", nullable: true)])]
        try withNewRealm(path, strings, classes) { realm, key in
            func text(_ s: String, _ body: (fief_value_t) -> Void) {
                s.withCString { cs in
                    var v = fief_value_t()
                    v.type = FIEF_TYPE_STRING
                    v.u.string = fief_string_t(data: cs, size: strlen(cs))
                    body(v)
                }
            }
            func mapKey(_ s: String, _ body: (fief_string_t) -> Void) { s.withCString { body(fief_string_t(data: $0, size: strlen($0))) } }
            func create(_ className: String, _ name: String) -> (OpaquePointer, fief_value_t) {
                let (cls, prop) = key(className, "name")
                var object: OpaquePointer?
                text(name) { v in
                    var v = v, p = prop
                    object = fief_object_create(realm, cls, &p, &v, 1, FIEF_UPDATE_POLICY_ERROR)
                }
                var link = fief_value_t()
                link.type = FIEF_TYPE_LINK
                link.u.link.class_key = cls
                XCTAssertTrue(fief_object_get_key(object, &link.u.link.object_key))
                return (object!, link)
            }
            XCTAssertTrue(fief_realm_begin_write(realm))
            let (rex, rexLink) = create("Dog", "Rex")
            let (fido, fidoLink) = create("Dog", "Fido")
            let (ann, _) = create("Person", "Ann")
            let scores = fief_object_get_set(ann, key("Person", "scores").1)
            for d in [2.5, -1, 2.5, 10] {
                var v = fief_value_t()
                v.type = FIEF_TYPE_DOUBLE
                v.u.double_value = d
                XCTAssertTrue(fief_set_insert(scores, v, nil))
            }
            let tags = fief_object_get_set(ann, key("Person", "tags").1)
            for t in ["b", "a"] { text(t) { XCTAssertTrue(fief_set_insert(tags, $0, nil)) } }
            XCTAssertTrue(fief_set_insert(tags, fief_value_t(), nil))
            let dogs = fief_object_get_set(ann, key("Person", "dogs").1)
            XCTAssertTrue(fief_set_insert(dogs, fidoLink, nil) && fief_set_insert(dogs, rexLink, nil))
            let ages = fief_object_get_map(ann, key("Person", "ages").1)
            for (k, a) in [("zed", 3), ("al", 40)] as [(String, Int64)] {
                var v = fief_value_t()
                v.type = FIEF_TYPE_INT
                v.u.integer = a
                mapKey(k) { XCTAssertTrue(fief_map_set(ages, $0, v)) }
            }
            let pets = fief_object_get_map(ann, key("Person", "pets").1)
            mapKey("best") { XCTAssertTrue(fief_map_set(pets, $0, fidoLink)) }
            mapKey("old") { XCTAssertTrue(fief_map_set(pets, $0, rexLink)) }
            let places = fief_object_get_map(ann, key("Person", "places").1)
            mapKey("home") { k in
                let home = fief_map_insert_embedded(places, k)
                text("Oslo") { XCTAssertTrue(fief_object_set_value(home, key("Place", "city").1, $0)) }
                _ = fief_release(UnsafeRawPointer(home))
            }
            mapKey("away") { XCTAssertTrue(fief_map_set(places, $0, fief_value_t())) }
            XCTAssertTrue(fief_object_delete(rex))
            XCTAssertTrue(fief_realm_commit(realm))
            for handle in [rex, fido, ann] as [OpaquePointer?] { _ = fief_release(UnsafeRawPointer(handle)) }
            for handle in [scores, tags, dogs, ages, pets, places] as [OpaquePointer?] { _ = fief_release(UnsafeRawPointer(handle)) }
        }
        let schemaOut = try run(["schema", path])
        XCTAssertEqual(schemaOut.status, 0, schemaOut.output)
        for line in ["scores: Set<double>  [set]", "tags: Set<string?>  [set]", "dogs: Set<Dog>  [set]", "ages: [string: int]  [map]",
                     "pets: [string: Dog?]  [map]", "places: [string: Place?]  [map]", "embedded class Place {"] {
            XCTAssertTrue(schemaOut.output.contains(line), "\(line) in\n\(schemaOut.output)")
        }
        let dump = try run(["dump", path, "Person"])
        XCTAssertEqual(dump.status, 0, dump.output)
        let expected = #"{"name": "Ann", "scores": [-1.0, 2.5, 10.0], "tags": [null, "a", "b"], "dogs": [{"$link": ["Dog", 1]}], "#
            + #""ages": {"al": 40, "zed": 3}, "pets": {"best": {"$link": ["Dog", 1]}, "old": null}, "places": {"away": null, "home": {"city": "Oslo"}}}"#
        XCTAssertEqual(dump.output, expected + "\n")
        XCTAssertEqual(try run(["verify", path]).status, 0)
        let copy = directory.appendingPathComponent("copy.fief").path
        let copied = try run(["copy", path, copy])
        XCTAssertEqual(copied.status, 0, copied.output)
        XCTAssertTrue(copied.output.contains("class 'Person': map 'places': 1 maps, 2 entries copied"), copied.output)
        XCTAssertEqual(try run(["verify", copy]).status, 0)
        XCTAssertEqual(try run(["dump", copy, "Person"]).output, dump.output)
    }

    /// Mixed values, written through the C ABI: `schema` shows mixed
    /// properties and collections of mixed values; `dump` prints every
    /// value as JSON with its own type (links as {"$link": ...}, decimals,
    /// object ids, uuids, timestamps and binaries as for typed properties).
    func testSchemaAndDumpShowMixedValues() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("mixed.fief").path
        let strings = CStrings()
        func property(_ name: String, _ type: fief_type_t, _ collection: fief_collection_type_t = FIEF_COLLECTION_NONE) -> fief_property_info_t {
            strings.property(name, type, collection, nullable: type == FIEF_TYPE_MIXED)
        }
        let classes: [(String, Bool, [fief_property_info_t])] = [
            ("Dog", false, [property("name", FIEF_TYPE_STRING)]),
            ("Box", false, [property("label", FIEF_TYPE_STRING), property("any", FIEF_TYPE_MIXED),
                            property("items", FIEF_TYPE_MIXED, FIEF_COLLECTION_LIST), property("bag", FIEF_TYPE_MIXED, FIEF_COLLECTION_SET),
                            property("props", FIEF_TYPE_MIXED, FIEF_COLLECTION_MAP)])]
        try withNewRealm(path, strings, classes) { realm, key in
            // Values; strings and binaries point into `strings` (kept until the end).
            func int(_ i: Int64) -> fief_value_t { var v = fief_value_t(); v.type = FIEF_TYPE_INT; v.u.integer = i; return v }
            func double(_ d: Double) -> fief_value_t { var v = fief_value_t(); v.type = FIEF_TYPE_DOUBLE; v.u.double_value = d; return v }
            func bool(_ b: Bool) -> fief_value_t { var v = fief_value_t(); v.type = FIEF_TYPE_BOOL; v.u.boolean = b; return v }
            func text(_ s: String) -> fief_value_t {
                var v = fief_value_t()
                v.type = FIEF_TYPE_STRING
                let p = strings.c(s)
                v.u.string = fief_string_t(data: p, size: strlen(p))
                return v
            }
            let hi: [UInt8] = [0x68, 0x69]
            let hiBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 2)
            defer { hiBytes.deallocate() }
            hiBytes.initialize(from: hi, count: 2)
            var binary = fief_value_t()
            binary.type = FIEF_TYPE_BINARY
            binary.u.binary = fief_binary_t(data: UnsafePointer(hiBytes), size: 2)
            var decimal = fief_value_t()
            decimal.type = FIEF_TYPE_DECIMAL128
            decimal.u.decimal128.w = (25, UInt64(6176 - 1) << 49)
            var timestamp = fief_value_t()
            timestamp.type = FIEF_TYPE_TIMESTAMP
            timestamp.u.timestamp.seconds = 5
            timestamp.u.timestamp.nanoseconds = 6
            var oid = fief_value_t()
            oid.type = FIEF_TYPE_OBJECT_ID
            oid.u.object_id.bytes = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
            var uuid = fief_value_t()
            uuid.type = FIEF_TYPE_UUID
            uuid.u.uuid.bytes = (0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE, 0xAF)

            XCTAssertTrue(fief_realm_begin_write(realm))
            let (dogClass, dogName) = key("Dog", "name")
            var rexName = text("Rex"), dogNameKey = dogName
            let rex = try XCTUnwrap(fief_object_create(realm, dogClass, &dogNameKey, &rexName, 1, FIEF_UPDATE_POLICY_ERROR))
            var rexLink = fief_value_t()
            rexLink.type = FIEF_TYPE_LINK
            rexLink.u.link.class_key = dogClass
            XCTAssertTrue(fief_object_get_key(rex, &rexLink.u.link.object_key))
            let (boxClass, label) = key("Box", "label")
            let any = key("Box", "any").1
            var keys = [label, any]
            var first = [text("first"), rexLink]
            let box = try XCTUnwrap(fief_object_create(realm, boxClass, &keys, &first, 2, FIEF_UPDATE_POLICY_ERROR))
            let items = fief_object_get_list(box, key("Box", "items").1)
            var elements = [int(1), text("two"), double(3.5), bool(true), fief_value_t(), decimal, timestamp, oid, uuid, binary, rexLink]
            XCTAssertTrue(fief_list_append(items, &elements, elements.count))
            let bag = fief_object_get_set(box, key("Box", "bag").1)
            for v in [text("x"), int(2), double(2.0), bool(false)] { XCTAssertTrue(fief_set_insert(bag, v, nil)) }
            let props = fief_object_get_map(box, key("Box", "props").1)
            let mapValues = [rexLink, double(-0.25), fief_value_t()]
            for (i, k) in ["b", "a", "c"].enumerated() {
                k.withCString { XCTAssertTrue(fief_map_set(props, fief_string_t(data: $0, size: strlen($0)), mapValues[i])) }
            }
            var second = [text("second"), text("just text")]
            let other = fief_object_create(realm, boxClass, &keys, &second, 2, FIEF_UPDATE_POLICY_ERROR)
            // Nested lists and dictionaries, in the property, the list and the map.
            var newList = fief_value_t(), newDictionary = fief_value_t()
            newList.type = FIEF_TYPE_LIST
            newDictionary.type = FIEF_TYPE_DICTIONARY
            var third = [text("third"), newList]
            let nesting = try XCTUnwrap(fief_object_create(realm, boxClass, &keys, &third, 2, FIEF_UPDATE_POLICY_ERROR))
            var handles: [OpaquePointer?] = []
            func set(_ map: OpaquePointer?, _ key: String, _ value: fief_value_t) {
                key.withCString { XCTAssertTrue(fief_map_set(map, fief_string_t(data: $0, size: strlen($0)), value)) }
            }
            func inMap(_ map: OpaquePointer?, _ key: String, list: Bool) -> OpaquePointer? {
                let handle = key.withCString { k -> OpaquePointer? in
                    let name = fief_string_t(data: k, size: strlen(k))
                    return list ? fief_map_get_list(map, name) : fief_map_get_map(map, name)
                }
                XCTAssertNotNil(handle)
                handles.append(handle)
                return handle
            }
            let top = fief_object_get_list(nesting, any)   // any: [1, {"k": [true], "z": "s"}, []]
            handles.append(top)
            var topValues = [int(1), newDictionary, newList]
            XCTAssertTrue(fief_list_append(top, &topValues, topValues.count))
            let inner = fief_list_get_map(top, 1)
            handles.append(inner)
            set(inner, "z", text("s"))
            set(inner, "k", newList)
            var yes = bool(true)
            XCTAssertTrue(fief_list_append(inMap(inner, "k", list: true), &yes, 1))
            let nestingItems = fief_object_get_list(nesting, key("Box", "items").1)   // items: [{"a": 1}, [null, "x"]]
            handles.append(nestingItems)
            var itemValues = [newDictionary, newList]
            XCTAssertTrue(fief_list_append(nestingItems, &itemValues, itemValues.count))
            let firstItem = fief_list_get_map(nestingItems, 0)
            handles.append(firstItem)
            set(firstItem, "a", int(1))
            let secondItem = fief_list_get_list(nestingItems, 1)
            handles.append(secondItem)
            var secondValues = [fief_value_t(), text("x")]
            XCTAssertTrue(fief_list_append(secondItem, &secondValues, secondValues.count))
            let nestingProps = fief_object_get_map(nesting, key("Box", "props").1)   // props: {"m": [2.5], "n": {}}
            handles.append(nestingProps)
            set(nestingProps, "m", newList)
            set(nestingProps, "n", newDictionary)
            var twoAndAHalf = double(2.5)
            XCTAssertTrue(fief_list_append(inMap(nestingProps, "m", list: true), &twoAndAHalf, 1))
            XCTAssertTrue(fief_realm_commit(realm))
            for handle in [rex, box, other, items, bag, props, nesting] + handles { _ = fief_release(UnsafeRawPointer(handle)) }
        }
        let schemaOut = try run(["schema", path])
        XCTAssertEqual(schemaOut.status, 0, schemaOut.output)
        for line in ["any: mixed\n", "items: [mixed]  [list]", "bag: Set<mixed>  [set]", "props: [string: mixed]  [map]"] {
            XCTAssertTrue(schemaOut.output.contains(line), "\(line) in\n\(schemaOut.output)")
        }
        let dump = try run(["dump", path, "Box"])
        XCTAssertEqual(dump.status, 0, dump.output)
        let expected = #"{"label": "first", "any": {"$link": ["Dog", 0]}, "#
            + #""items": [1, "two", 3.5, true, null, "decimal128:19000000000000000000000000003e30", {"seconds": 5, "nanoseconds": 6}, "#
            + #""0102030405060708090a0b0c", "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf", "aGk=", {"$link": ["Dog", 0]}], "#
            + #""bag": [false, 2, "x"], "props": {"a": -0.25, "b": {"$link": ["Dog", 0]}, "c": null}}"#
            + "\n" + #"{"label": "second", "any": "just text", "items": [], "bag": [], "props": {}}"#
            + "\n" + #"{"label": "third", "any": [1, {"k": [true], "z": "s"}, []], "items": [{"a": 1}, [null, "x"]], "bag": [], "#
            + #""props": {"m": [2.5], "n": {}}}"# + "\n"
        XCTAssertEqual(dump.output, expected)
        XCTAssertEqual(try run(["verify", path]).status, 0)
        let copy = directory.appendingPathComponent("copy.fief").path
        let copied = try run(["copy", path, copy])
        XCTAssertEqual(copied.status, 0, copied.output)
        XCTAssertEqual(try run(["dump", copy, "Box"]).output, dump.output)
    }

    /// C strings that live as long as this object (for schema descriptions and values).
    private final class CStrings {
        private var all: [UnsafeMutablePointer<CChar>] = []

        func c(_ s: String) -> UnsafePointer<CChar> {
            let p = strdup(s)!
            all.append(p)
            return UnsafePointer(p)
        }

        func property(_ name: String, _ type: fief_type_t, _ collection: fief_collection_type_t = FIEF_COLLECTION_NONE,
                      target: String? = nil, nullable: Bool = false) -> fief_property_info_t {
            var p = fief_property_info_t()
            p.name = c(name)
            p.type = type
            p.collection_type = collection
            p.link_target = target.map(c)
            p.flags = nullable ? UInt32(FIEF_PROPERTY_NULLABLE) : 0
            return p
        }

        deinit { all.forEach { free($0) } }
    }

    /// A new realm file at `path` with `classes` (name, embedded, properties),
    /// open through the C ABI during `body`, which gets the realm and the
    /// keys of a class and one of its properties by name.
    private func withNewRealm(_ path: String, _ strings: CStrings, _ classes: [(String, Bool, [fief_property_info_t])],
                              _ body: (OpaquePointer, (String, String) -> (fief_class_key_t, fief_property_key_t)) throws -> Void) throws {
        var infos = classes.map { (name, embedded, properties) -> fief_class_info_t in
            var info = fief_class_info_t()
            info.name = strings.c(name)
            info.num_properties = properties.count
            info.flags = embedded ? UInt32(FIEF_CLASS_EMBEDDED) : 0
            return info
        }
        let propertyArrays = classes.map { (_, _, properties) -> UnsafeMutablePointer<fief_property_info_t> in
            let p = UnsafeMutablePointer<fief_property_info_t>.allocate(capacity: properties.count)
            p.initialize(from: properties, count: properties.count)
            return p
        }
        defer { propertyArrays.forEach { $0.deallocate() } }
        var pointers: [UnsafePointer<fief_property_info_t>?] = propertyArrays.map { UnsafePointer($0) }
        let schema = try XCTUnwrap(fief_schema_new(&infos, infos.count, &pointers))
        defer { _ = fief_release(UnsafeRawPointer(schema)) }
        let config = try XCTUnwrap(fief_config_new())
        defer { _ = fief_release(UnsafeRawPointer(config)) }
        XCTAssertTrue(fief_config_set_path(config, path) && fief_config_set_schema(config, schema))
        let realm = try XCTUnwrap(fief_realm_open(config))
        defer { _ = fief_release(UnsafeRawPointer(realm)) }
        let read = try XCTUnwrap(fief_realm_get_schema(realm))
        defer { _ = fief_release(UnsafeRawPointer(read)) }
        try body(realm) { className, name in
            var info = fief_class_info_t(), index = 0, found = false
            XCTAssertTrue(fief_schema_find_class(read, className, &info, &index, &found) && found)
            var p = fief_property_info_t()
            XCTAssertTrue(fief_schema_find_property(read, index, name, &p, &found) && found)
            return (info.key, p.key)
        }
    }

    /// `fief query`: the matching objects as `dump` prints them (SORT,
    /// DISTINCT and LIMIT applied), `--count`, `--describe`, and clear
    /// errors with a non-zero exit for bad queries, classes, files, options.
    func testQuery() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("query.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self, DogToy.self]))
            let ball = DogToy()
            ball.name = "Ball"
            try realm.write {
                for (name, age) in [("Rex", 2), ("Fido", 7), ("Bella", 1), ("Luna", 4), ("Max", 9), ("Ace", 4)] {
                    let dog = Dog(name: name, age: age)
                    if name == "Luna" { dog.favoriteToy = ball }
                    realm.add(dog)
                }
            }
        }
        let dump = try run(["dump", url.path, "Dog"])
        XCTAssertEqual(dump.status, 0, dump.output)
        let lines = dump.output.split(separator: "\n").map(String.init)
        func line(_ name: String) -> String { lines.first { $0.hasPrefix("{\"name\": \"\(name)\"") }! }

        // Objects exactly as dump prints them, in the query's order.
        let sorted = try run(["query", url.path, "Dog", "age < 5 SORT(name ASC) LIMIT(3)"])
        XCTAssertEqual(sorted.status, 0, sorted.output)
        XCTAssertEqual(sorted.output, [line("Ace"), line("Bella"), line("Luna")].joined(separator: "\n") + "\n")
        let descending = try run(["query", url.path, "Dog", "age >= 4 SORT(age DESC, name ASC)"])
        XCTAssertEqual(descending.output, [line("Max"), line("Fido"), line("Ace"), line("Luna")].joined(separator: "\n") + "\n")
        let distinct = try run(["query", url.path, "Dog", "TRUEPREDICATE DISTINCT(age)"])
        XCTAssertEqual(distinct.output.split(separator: "\n").count, 5, distinct.output)
        // Through a link, written with %-free syntax.
        let linked = try run(["query", url.path, "Dog", "favoriteToy.name == 'Ball'"])
        XCTAssertEqual(linked.output, line("Luna") + "\n")
        let none = try run(["query", url.path, "Dog", "name == 'Nobody'"])
        XCTAssertEqual(none.status, 0)
        XCTAssertEqual(none.output, "")

        let count = try run(["query", url.path, "Dog", "age > 3 OR name BEGINSWITH[c] 'r'", "--count"])
        XCTAssertEqual(count.status, 0, count.output)
        XCTAssertEqual(count.output, "5\n")
        let limitedCount = try run(["query", url.path, "Dog", "TRUEPREDICATE LIMIT(2)", "--count"])
        XCTAssertEqual(limitedCount.output, "2\n")

        let describe = try run(["query", url.path, "Dog", "age<5&&name beginswith \"B\" sort(name desc) limit(2)", "--describe"])
        XCTAssertEqual(describe.status, 0, describe.output)
        XCTAssertEqual(describe.output, "age < 5 AND name BEGINSWITH 'B' SORT(name DESC) LIMIT(2)\n")
        // The description runs as the same query.
        let again = try run(["query", url.path, "Dog", "age < 5 AND name BEGINSWITH 'B' SORT(name DESC) LIMIT(2)"])
        XCTAssertEqual(again.output, line("Bella") + "\n")

        // Errors: a message naming the problem, a non-zero exit, nothing on stdout but the message.
        let syntax = try run(["query", url.path, "Dog", "age < < 5"])
        XCTAssertEqual(syntax.status, 1)
        XCTAssertTrue(syntax.output.contains("syntax error in the query 'age < < 5'"), syntax.output)
        XCTAssertTrue(syntax.output.contains("at offset 6 (near 'age < < 5')"), syntax.output)
        let unknownProperty = try run(["query", url.path, "Dog", "weight > 5"])
        XCTAssertEqual(unknownProperty.status, 1)
        XCTAssertTrue(unknownProperty.output.contains("invalid query 'weight > 5': class 'Dog' has no property 'weight'"), unknownProperty.output)
        let wrongType = try run(["query", url.path, "Dog", "name > 5"])
        XCTAssertEqual(wrongType.status, 1)
        XCTAssertTrue(wrongType.output.contains("invalid query 'name > 5'"), wrongType.output)
        let unknownClass = try run(["query", url.path, "Cat", "age > 5"])
        XCTAssertEqual(unknownClass.status, 1)
        XCTAssertTrue(unknownClass.output.contains("has no class 'Cat'"), unknownClass.output)
        let missingFile = try run(["query", directory.appendingPathComponent("missing.realm").path, "Dog", "age > 5"])
        XCTAssertEqual(missingFile.status, 1)
        XCTAssertTrue(missingFile.output.contains("does not exist"), missingFile.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("missing.realm").path))
        let badOption = try run(["query", url.path, "Dog", "age > 5", "--json"])
        XCTAssertEqual(badOption.status, 2)
        XCTAssertTrue(badOption.output.contains("unknown option '--json'"), badOption.output)
        let tooFew = try run(["query", url.path, "Dog"])
        XCTAssertEqual(tooFew.status, 2)
        XCTAssertTrue(tooFew.output.contains("fief query FILE CLASS"), tooFew.output)

        // Read-only: the file is unchanged (same version) after queries.
        let info = try run(["info", url.path])
        XCTAssertEqual(try run(["info", url.path]).output, info.output)
        XCTAssertEqual(try run(["dump", url.path, "Dog"]).output, dump.output)
    }
}
