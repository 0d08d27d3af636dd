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

    /// Runs the tool; `input` (a file) becomes its standard input, `directory` its working directory.
    private func run(_ arguments: [String], input: String? = nil, directory: URL? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        if let input { process.standardInput = FileHandle(forReadingAtPath: input) }
        if let directory { process.currentDirectoryURL = directory }
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
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("{\"$class\": \"Dog\", \"$key\": ") }, dump.output)
        XCTAssertTrue(dump.output.contains("\"name\": \"Bella\", \"age\": {\"$numberLong\": \"1\"}"), dump.output)
        try assertDumpImportRoundTrip(path, in: directory)

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
        XCTAssertTrue(dump.output.contains("\"favoriteToy\": {\"$ref\": \"DogToy\", \"$id\": 0}"), dump.output)
        XCTAssertTrue(dump.output.contains("\"name\": \"Fido\", \"age\": {\"$numberLong\": \"1\"}, \"color\": \"\", \"currentCity\": \"\", \"favoriteToy\": null"), dump.output)
        try assertDumpImportRoundTrip(url.path, in: directory)
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
        let expected = #"{"$class": "Person", "$key": 0, "name": "Ann", "#
            + #""scores": [{"$numberDouble": "-1.0"}, {"$numberDouble": "2.5"}, {"$numberDouble": "10.0"}], "tags": [null, "a", "b"], "#
            + #""dogs": [{"$ref": "Dog", "$id": 1}], "ages": {"al": {"$numberLong": "40"}, "zed": {"$numberLong": "3"}}, "#
            + #""pets": {"best": {"$ref": "Dog", "$id": 1}, "old": null}, "places": {"away": null, "home": {"city": "Oslo"}}}"#
        XCTAssertEqual(dump.output, expected + "\n")
        XCTAssertEqual(try run(["verify", path]).status, 0)
        try assertDumpImportRoundTrip(path, in: directory)
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
            newDictionary.type = FIEF_TYPE_MAP
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
        let expected = #"{"$class": "Box", "$key": 0, "label": "first", "any": {"$ref": "Dog", "$id": 0}, "#
            + #""items": [{"$numberLong": "1"}, "two", {"$numberDouble": "3.5"}, true, null, {"$numberDecimal": "2.5"}, "#
            + #"{"$date": {"$numberLong": "5000"}, "$nanos": 6}, {"$oid": "0102030405060708090a0b0c"}, "#
            + #"{"$uuid": "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf"}, {"$binary": {"base64": "aGk=", "subType": "00"}}, {"$ref": "Dog", "$id": 0}], "#
            + #""bag": [false, {"$numberLong": "2"}, "x"], "props": {"a": {"$numberDouble": "-0.25"}, "b": {"$ref": "Dog", "$id": 0}, "c": null}}"#
            + "\n" + #"{"$class": "Box", "$key": 1, "label": "second", "any": "just text", "items": [], "bag": [], "props": {}}"#
            + "\n" + #"{"$class": "Box", "$key": 2, "label": "third", "any": [{"$numberLong": "1"}, {"k": [true], "z": "s"}, []], "#
            + #""items": [{"a": {"$numberLong": "1"}}, [null, "x"]], "bag": [], "props": {"m": [{"$numberDouble": "2.5"}], "n": {}}}"# + "\n"
        XCTAssertEqual(dump.output, expected)
        XCTAssertEqual(try run(["verify", path]).status, 0)
        try assertDumpImportRoundTrip(path, in: directory)
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
    /// `fief watch`: the initial line, then one line per delivery after a
    /// commit of another process (here this test's), with the objects.
    func testWatchPrintsChangeSetsAsCommitsArrive() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("watch.realm")
        let configuration = Realm.Configuration(fileURL: url, objectTypes: [Dog.self, DogToy.self])
        let realm = try Realm(configuration: configuration)
        try realm.write {
            realm.add(Dog(name: "Rex", age: 2))
            realm.add(Dog(name: "Fido", age: 7))
        }

        let process = Process()
        process.executableURL = tool
        process.arguments = ["watch", url.path, "Dog", "age > 3 SORT(name ASC)", "--limit", "2"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // A liveness bound: a watch that never prints is ended, and fails below.
        let guardTimer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: guardTimer)
        defer { guardTimer.cancel() }

        var output = Data()
        while !output.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
        }
        let initial = String(decoding: output, as: UTF8.self)
        XCTAssertTrue(initial.hasPrefix("{\"version\": "), initial)
        XCTAssertTrue(initial.contains("\"initial\": true, \"count\": 1, \"deletions\": []"), initial)

        try realm.write {
            realm.add(Dog(name: "Ace", age: 9))   // sorts first
            realm.add(Dog(name: "Bella", age: 1)) // outside the filter
            realm.objects(Dog.self).filter("name == 'Fido'").first!.age = 8
        }
        output.append(pipe.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, lines.joined(separator: "\n"))
        let update = lines.last ?? ""
        XCTAssertTrue(update.contains("\"initial\": false, \"count\": 2, \"deletions\": [], \"insertions\": [0], "
                                      + "\"modifications\": [0], \"modifications_new\": [1], \"moves\": []"), update)
        XCTAssertTrue(update.contains("\"inserted\": [{\"$class\": \"Dog\""), update)
        XCTAssertTrue(update.contains("\"name\": \"Ace\""), update)
        XCTAssertTrue(update.contains("\"modified\": [{\"$class\": \"Dog\""), update)
        XCTAssertTrue(update.contains("\"name\": \"Fido\", \"age\": {\"$numberLong\": \"8\"}"), update)

        let bad = try run(["watch", url.path, "Cat"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.output.contains("has no class 'Cat'"), bad.output)
        let badQuery = try run(["watch", url.path, "Dog", "age >"])
        XCTAssertEqual(badQuery.status, 1)
        XCTAssertTrue(badQuery.output.contains("syntax error in the query"), badQuery.output)
    }

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
        func line(_ name: String) -> String { lines.first { $0.contains("\"name\": \"\(name)\"") }! }

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
        XCTAssertTrue(badOption.output.contains("Unknown option '--json'"), badOption.output)
        let tooFew = try run(["query", url.path, "Dog"])
        XCTAssertEqual(tooFew.status, 2)
        XCTAssertTrue(tooFew.output.contains("Usage: fief query <file> <class-name> <predicate> [--count] [--describe]"), tooFew.output)

        // Read-only: the file is unchanged (same version) after queries.
        let info = try run(["info", url.path])
        XCTAssertEqual(try run(["info", url.path]).output, info.output)
        XCTAssertEqual(try run(["dump", url.path, "Dog"]).output, dump.output)
    }

    // MARK: JSON export and import

    /// A dump with each class's object keys replaced by their order in the
    /// dump (and links by their target's order): what an import into a new
    /// file must give back, whose objects get new keys.
    private func normalizedDump(_ text: String) throws -> [String] {
        let lines = text.split(separator: "\n").map(String.init)
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8), options: [.fragmentsAllowed]) as! [String: Any] }
        var ordinals: [String: [Int64: Int]] = [:]
        for object in objects {
            guard let className = object["$class"] as? String, let key = (object["$key"] as? NSNumber)?.int64Value else { continue }
            ordinals[className, default: [:]][key] = ordinals[className, default: [:]].count
        }
        func normalize(_ value: Any) -> Any {
            if let array = value as? [Any] { return array.map(normalize) }
            guard var dictionary = value as? [String: Any] else { return value }
            if let target = dictionary["$ref"] as? String, let id = (dictionary["$id"] as? NSNumber)?.int64Value {
                dictionary["$id"] = ordinals[target]?[id] ?? -1
                return dictionary
            }
            for (key, member) in dictionary { dictionary[key] = normalize(member) }
            if let className = dictionary["$class"] as? String, let key = (dictionary["$key"] as? NSNumber)?.int64Value {
                dictionary["$key"] = ordinals[className]![key]!
            }
            return dictionary
        }
        return try objects.map { object in
            let data = try JSONSerialization.data(withJSONObject: normalize(object), options: [.sortedKeys])
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// `fief dump FILE | fief import NEW` gives a file whose dump holds the
    /// same classes and the same values in every object (keys mapped).
    private func assertDumpImportRoundTrip(_ path: String, in directory: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let first = try run(["dump", path])
        XCTAssertEqual(first.status, 0, first.output, file: file, line: line)
        let dumpFile = directory.appendingPathComponent("roundtrip-\(UUID().uuidString).jsonl").path
        try first.output.write(toFile: dumpFile, atomically: true, encoding: .utf8)
        let imported = directory.appendingPathComponent("roundtrip-\(UUID().uuidString).fief").path
        let result = try run(["import", imported], input: dumpFile)
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
        let second = try run(["dump", imported])
        XCTAssertEqual(second.status, 0, second.output, file: file, line: line)
        XCTAssertEqual(try normalizedDump(second.output), try normalizedDump(first.output), file: file, line: line)
        XCTAssertEqual(try run(["verify", imported]).status, 0, file: file, line: line)
    }

    /// Every scalar type (NaN and infinite doubles, decimals at the ends of
    /// their range, nanosecond timestamps before and after 1970, data,
    /// object ids, uuids, nulls), links, embedded objects, lists, sets,
    /// maps and mixed values with nested collections: imported into a new
    /// file, dumped back line for line.
    func testImportThenDumpGivesEveryValueBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = [
            #"{"$schema": "Address", "embedded": true, "properties": [{"name": "city", "type": "string"}, {"name": "zip", "type": "string", "optional": true}]}"#,
            #"{"$schema": "Owner", "primaryKey": "id", "properties": [{"name": "id", "type": "uuid", "primaryKey": true}, {"name": "name", "type": "string"}]}"#,
            #"{"$schema": "Thing", "primaryKey": "name", "properties": [{"name": "name", "type": "string", "primaryKey": true}, "#
                + #"{"name": "count", "type": "int"}, {"name": "maybeCount", "type": "int", "optional": true}, {"name": "flag", "type": "bool"}, "#
                + #"{"name": "ratio", "type": "double"}, {"name": "small", "type": "float"}, {"name": "price", "type": "decimal128"}, "#
                + #"{"name": "when", "type": "date"}, {"name": "oid", "type": "objectId"}, {"name": "uid", "type": "uuid", "optional": true}, "#
                + #"{"name": "blob", "type": "data"}, {"name": "owner", "type": "link", "target": "Owner", "optional": true}, "#
                + #"{"name": "home", "type": "link", "target": "Address", "optional": true}, {"name": "doubles", "type": "double", "collection": "list"}, "#
                + #"{"name": "tags", "type": "string", "collection": "set"}, {"name": "owners", "type": "link", "collection": "list", "target": "Owner"}, "#
                + #"{"name": "places", "type": "link", "collection": "list", "target": "Address"}, "#
                + #"{"name": "prices", "type": "decimal128", "collection": "map", "optional": true}, {"name": "any", "type": "mixed", "optional": true}, "#
                + #"{"name": "anys", "type": "mixed", "collection": "list", "optional": true}]}"#,
            #"{"$class": "Owner", "$key": 0, "id": {"$uuid": "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf"}, "name": "Ann \"the\" \u00e9\ud83d\ude00\n"}"#,
            #"{"$class": "Owner", "$key": 1, "id": {"$uuid": "00000000-0000-0000-0000-000000000001"}, "name": "Bob"}"#,
            #"{"$class": "Thing", "$key": 0, "name": "all", "count": {"$numberLong": "-9223372036854775808"}, "maybeCount": null, "flag": true, "#
                + #""ratio": {"$numberDouble": "NaN"}, "small": {"$numberDouble": "0.10000000149011612"}, "price": {"$numberDecimal": "1.50"}, "#
                + #""when": {"$date": {"$numberLong": "1700000000123"}, "$nanos": 456789}, "oid": {"$oid": "0102030405060708090a0b0c"}, "uid": null, "#
                + #""blob": {"$binary": {"base64": "AAECAw==", "subType": "00"}}, "owner": {"$ref": "Owner", "$id": 1}, "home": {"city": "Oslo", "zip": null}, "#
                + #""doubles": [{"$numberDouble": "Infinity"}, {"$numberDouble": "-Infinity"}, {"$numberDouble": "-0.0"}, {"$numberDouble": "1e-300"}], "#
                + #""tags": ["a", "b"], "owners": [{"$ref": "Owner", "$id": 1}, {"$ref": "Owner", "$id": 0}, {"$ref": "Owner", "$id": 1}], "#
                + #""places": [{"city": "Rome", "zip": "00100"}], "#
                + #""prices": {"big": {"$numberDecimal": "-1.234567890123456789012345678901234E+6000"}, "none": null, "small": {"$numberDecimal": "1E-6176"}}, "#
                + #""any": {"$numberLong": "7"}, "anys": [{"$numberDouble": "7.0"}, {"$numberDouble": "0.5", "$float": true}, {"$ref": "Owner", "$id": 0}, "#
                + #"[{"$numberLong": "1"}, {"k": [true, null]}], {"d": {"$numberDecimal": "0.1"}, "t": {"$date": {"$numberLong": "-1"}, "$nanos": 999999}}, "#
                + #""text", {"$oid": "ffffffffffffffffffffffff"}, {"$uuid": "00000000-0000-0000-0000-000000000000"}, {"$binary": {"base64": "", "subType": "00"}}, "#
                + #"{"$numberDecimal": "NaN"}, {"$numberDecimal": "-Infinity"}, {"$date": {"$numberLong": "-62135596800000"}}, false]}"#,
            #"{"$class": "Thing", "$key": 1, "name": "defaults", "count": {"$numberLong": "9223372036854775807"}, "maybeCount": {"$numberLong": "0"}, "#
                + #""flag": false, "ratio": {"$numberDouble": "-1.7976931348623157e+308"}, "small": {"$numberDouble": "-Infinity"}, "#
                + #""price": {"$numberDecimal": "-0"}, "when": {"$date": {"$numberLong": "-1"}, "$nanos": 1}, "oid": {"$oid": "000000000000000000000000"}, "#
                + #""uid": {"$uuid": "00000000-0000-0000-0000-000000000002"}, "blob": {"$binary": {"base64": "", "subType": "00"}}, "owner": null, "#
                + #""home": null, "doubles": [], "tags": [], "owners": [], "places": [], "prices": {}, "any": {"a": {"b": [[], {}]}}, "anys": []}"#,
        ]
        let input = directory.appendingPathComponent("input.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let path = directory.appendingPathComponent("everything.fief").path
        let imported = try run(["import", path], input: input)
        XCTAssertEqual(imported.status, 0, imported.output)
        XCTAssertTrue(imported.output.contains("class 'Thing': 2 objects imported"), imported.output)
        let dump = try run(["dump", path])
        XCTAssertEqual(dump.status, 0, dump.output)
        let dumped = dump.output.split(separator: "\n").map(String.init)
        // The same lines, but for the \u escapes of the input, written back as the characters.
        let expected = lines.map { $0.replacingOccurrences(of: #"\u00e9\ud83d\ude00"#, with: "é😀") }
        XCTAssertEqual(dumped.sorted(), expected.sorted(), dump.output)
        // Read through the query engine, not the tool's own conversions.
        XCTAssertEqual(try run(["query", path, "Thing", "price == 1.5 AND ratio != 0 AND count < 0", "--count"]).output, "1\n")
        XCTAssertEqual(try run(["query", path, "Thing", "prices['small'] > 0 AND prices['big'] < -1e6000", "--count"]).output, "1\n")
        XCTAssertEqual(try run(["query", path, "Thing", "owner.name == 'Bob' AND ANY owners.name == 'Bob'", "--count"]).output, "1\n")
        // Imported again into the same file, the primary keys already there refuse it, and nothing changes.
        let again = try run(["import", path], input: input)
        XCTAssertEqual(again.status, 1, again.output)
        XCTAssertTrue(again.output.hasPrefix("fief: line 4: class 'Owner'"), again.output)
        XCTAssertEqual(try run(["dump", path]).output, dump.output)
        try assertDumpImportRoundTrip(path, in: directory)
    }

    /// The first bad line stops an import: its line number and what is
    /// wrong, exit status 1, and nothing written (a new file removed).
    func testImportRefusesBadInputAndWritesNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = directory.appendingPathComponent("demo.fief").path
        XCTAssertEqual(try run(["demo", demo]).status, 0)
        let whole = try run(["dump", demo]).output
        let wholeLines = whole.split(separator: "\n").map(String.init)

        func importing(_ lines: [String], into path: String, className: String? = nil) throws -> (status: Int32, output: String) {
            let input = directory.appendingPathComponent("bad-\(UUID().uuidString).jsonl").path
            try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
            return try run(["import", path] + (className.map { [$0] } ?? []), input: input)
        }
        let fresh = directory.appendingPathComponent("fresh.fief").path
        func assertNoNewFile(_ line: UInt = #line) {
            XCTAssertFalse(FileManager.default.fileExists(atPath: fresh), line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: fresh + "-lock"), line: line)
        }

        // Malformed JSON at line 3 of a whole-file dump: no new file.
        var malformed = wholeLines
        malformed[2] = #"{"$schema": "Person", "properties": [}"#
        let syntax = try importing(malformed, into: fresh)
        XCTAssertEqual(syntax.status, 1, syntax.output)
        XCTAssertEqual(syntax.output, "fief: line 3: JSON syntax error at column 38: unexpected character '}'\n")
        assertNoNewFile()

        // A wrong type on the last line: everything before it is undone and the new file removed.
        var wrongType = wholeLines
        wrongType[wrongType.count - 1] = #"{"$class": "Person", "$key": 9, "id": {"$numberLong": "7"}, "name": 42}"#
        let typeError = try importing(wrongType, into: fresh)
        XCTAssertEqual(typeError.status, 1, typeError.output)
        XCTAssertEqual(typeError.output, "fief: line \(wrongType.count): property 'name' of class 'Person': expected string, got 42\n")
        assertNoNewFile()

        // Into an existing file: a wrong type, an unknown property, an unknown class, a dangling link.
        let before = try run(["dump", demo]).output
        let good = #"{"$class": "Dog", "$key": 0, "name": "Kept?", "age": {"$numberLong": "1"}}"#
        let cases: [([String], String)] = [
            ([good, #"{"$class": "Dog", "$key": 1, "name": "Old", "age": "old"}"#],
             "fief: line 2: property 'age' of class 'Dog': expected int, got \"old\"\n"),
            ([good, #"{"$class": "Dog", "$key": 1, "name": "Heavy", "weight": {"$numberLong": "1"}}"#],
             "fief: line 2: class 'Dog' has no property 'weight'\n"),
            ([good, #"{"$class": "Cat", "$key": 1, "name": "Tom"}"#],
             "fief: line 2: unknown class 'Cat' ('\(demo)' has no such class)\n"),
            ([good, #"{"$class": "Dog", "$key": 1, "name": "Rex", "age": {"$numberDouble": "1.5"}}"#],
             "fief: line 2: property 'age' of class 'Dog': expected int, got {\"$numberDouble\": \"1.5\"}\n"),
            ([good, #"{"$class": "Person", "$key": 1, "id": {"$numberLong": "1"}, "name": "Ana again"}"#],
             "fief: line 2: class 'Person': "),
        ]
        for (input, message) in cases {
            let result = try importing(input, into: demo)
            XCTAssertEqual(result.status, 1, result.output)
            XCTAssertTrue(result.output.hasPrefix(message), "\(result.output) should start with \(message)")
            XCTAssertEqual(try run(["dump", demo]).output, before)
        }

        // A dangling link, in a file with links.
        let links = directory.appendingPathComponent("links.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: links, objectTypes: [Dog.self, DogToy.self]))
            try realm.write { realm.add(Dog(name: "Rex", age: 2)) }
        }
        let linksBefore = try run(["dump", links.path]).output
        let dangling = try importing([#"{"$class": "Dog", "$key": 5, "name": "Fido", "favoriteToy": {"$ref": "DogToy", "$id": 99}}"#], into: links.path)
        XCTAssertEqual(dangling.status, 1, dangling.output)
        XCTAssertEqual(dangling.output, "fief: line 1: property 'favoriteToy' of class 'Dog': a link to DogToy 99, which the input does not hold\n")
        XCTAssertEqual(try run(["dump", links.path]).output, linksBefore)

        // A new file needs schema lines; one class's lines with CLASS and no "$class".
        let noSchema = try importing([#"{"name": "Rex"}"#], into: fresh, className: "Dog")
        XCTAssertEqual(noSchema.status, 1, noSchema.output)
        XCTAssertTrue(noSchema.output.contains("the input has no schema lines"), noSchema.output)
        assertNoNewFile()
        let oneClass = try importing([#"{"name": "Solo", "age": 3}"#], into: demo, className: "Dog")
        XCTAssertEqual(oneClass.status, 0, oneClass.output)
        XCTAssertEqual(try run(["query", demo, "Dog", "name == 'Solo' AND age == 3", "--count"]).output, "1\n")
    }

    /// Arguments: help, the version, usage errors (exit 2), and demo's care for existing files.
    func testArgumentsHelpAndExitStatus() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let version = try run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertEqual(version.output, "fief 0.2.0 (libfief \(String(cString: fief_version_string())), Apache-2.0)\n")
        let overview = try run([])
        XCTAssertEqual(overview.status, 0)
        for text in ["USAGE: fief <subcommand>", "demo", "import", "{\"$numberLong\": \"3\"}"] {
            XCTAssertTrue(overview.output.contains(text), overview.output)
        }
        for arguments in [["help", "dump"], ["dump", "--help"]] {
            let help = try run(arguments)
            XCTAssertEqual(help.status, 0, help.output)
            XCTAssertTrue(help.output.contains("USAGE: fief dump <file> [<class-name>]"), help.output)
        }
        for arguments in [["schema"], ["schema", "a", "b"], ["info", "--bogus", "x"], ["query", "f", "Dog", "age > 1", "--count", "--describe"],
                          ["copy", "only-one"], ["nosuch"], ["dump"]] {
            let bad = try run(arguments, directory: directory)
            XCTAssertEqual(bad.status, 2, "\(arguments): \(bad.output)")
            XCTAssertTrue(bad.output.contains("Usage: fief"), bad.output)
        }

        // demo: refuses an existing file unless --force; --help makes no file; the default path is demo.fief here.
        let help = try run(["demo", "--help"], directory: directory)
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.output.contains("USAGE: fief demo [<path>] [--force]"), help.output)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
        XCTAssertEqual(try run(["demo"], directory: directory).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("demo.fief").path))
        let refused = try run(["demo"], directory: directory)
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.output, "fief: 'demo.fief' already exists (use --force to replace it)\n")
        let forced = try run(["demo", "--force"], directory: directory)
        XCTAssertEqual(forced.status, 0, forced.output)
        XCTAssertTrue(forced.output.contains("live 5, frozen snapshot 6"), forced.output)
    }

    /// Collections nested in mixed values: `dump` writes them as deep as
    /// `import` reads them back (512 levels, the JSON form's limit), and a
    /// file nested deeper (100,000 levels) is refused with a clear error,
    /// never a crash.
    func testDumpOfDeeplyNestedValues() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fief-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func nested(_ depth: Int) -> AnyRealmValue {
            var value: AnyRealmValue = .fromArray([.string("bottom")])
            for level in 1..<depth { value = level % 2 == 1 ? .fromDictionary(["k": value]) : .fromArray([value]) }
            return value
        }
        func write(_ path: String, depth: Int) throws {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [MixedHolder.self]))
            try realm.write { realm.add(MixedHolder(id: 1, value: nested(depth))) }
        }
        // 500 levels inside a property's value (the object and its property make it 502 in JSON).
        let shallow = directory.appendingPathComponent("shallow.fief").path
        try write(shallow, depth: 500)
        let dumped = try run(["dump", shallow])
        XCTAssertEqual(dumped.status, 0, dumped.output)
        XCTAssertTrue(dumped.output.contains("[\"bottom\"]"), dumped.output)
        let copy = directory.appendingPathComponent("copy.fief").path
        let dumpFile = directory.appendingPathComponent("shallow.jsonl")
        try dumped.output.write(to: dumpFile, atomically: true, encoding: .utf8)
        let imported = try run(["import", copy], input: dumpFile.path)
        XCTAssertEqual(imported.status, 0, imported.output)
        let again = try run(["dump", copy])
        XCTAssertEqual(again.output, dumped.output)

        let deep = directory.appendingPathComponent("deep.fief").path
        try write(deep, depth: 100_000)
        let refused = try run(["dump", deep, "MixedHolder"])
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.output.contains("nested more than 512 levels deep, deeper than the JSON form goes"), refused.output)
        XCTAssertEqual(try run(["verify", deep]).status, 0)
    }
}
