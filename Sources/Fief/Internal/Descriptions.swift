import CFief
import Foundation

// Descriptions of objects and collections in RealmSwift's layout:
//
//     Dog {
//         name = Rex;
//         owner = Person {
//             name = Ann;
//         };
//         toys = List<DogToy> <0x600000c2c000> (
//             [0] DogToy {
//                 name = Ball;
//             },
//             [1] DogToy {
//                 name = Bone;
//             }
//         );
//     }
//
// (tabs, not spaces).  A description nested in another is indented one
// more level; elements are separated by commas; at most 100 elements of a
// collection are listed, then "... N objects skipped.".  Values print as
// RealmSwift's Objective-C layer prints them: booleans as 0/1, numbers as
// NSNumber does, nil as "(null)" for a property and "<null>" for an element,
// data as its first 24 bytes in hex and its length.  Collection headers name
// the element type as realm-core does: a class name, or "int", "string",
// "mixed", ...; a map names its key type too (`Map<string, Dog>`).
//
// Depth: each object and each collection is one level, and only five levels
// are described (RealmSwift's RLMDescriptionMaxDepth): below that a nested
// object or collection prints `<Maximum depth exceeded>`.  Nested
// collections of mixed values count the same way (a `.list` inside a `.list`
// is one more level), so describing a mixed value nested 100,000 levels
// deep prints five of them and never recurses deeper.

/// How deep descriptions nest, per thread: an object's or collection's
/// description holds those of what it contains, five levels at most.
enum FiefDescriptionDepth {
    static let maximum = 5
    static let exceeded = "<Maximum depth exceeded>"
    private static let key = "FiefDescriptionDepth"

    /// `describe()`, one level deeper; `<Maximum depth exceeded>` past the maximum.
    static func nested(_ describe: () -> String) -> String {
        let state = Thread.current.threadDictionary
        let depth = state[key] as? Int ?? 0
        if depth >= maximum { return exceeded }
        state[key] = depth + 1
        defer { state[key] = depth }
        return describe()
    }
}

/// Objects and collections: described one level deeper (see `FiefDescriptionDepth`).
protocol FiefNestedDescription: CustomStringConvertible {}

/// `text` with every line after the first indented one more tab.
func fiefIndented(_ text: String) -> String {
    text.contains("\n") ? text.replacingOccurrences(of: "\n", with: "\n\t") : text
}

/// A property's value as RealmSwift's object description prints it (nil as "(null)").
func fiefPropertyDescription(_ value: Any?) -> String {
    fiefValueDescription(value, nilText: "(null)")
}

/// A collection element as RealmSwift's collection descriptions print it (nil as "<null>").
func fiefElementDescription(_ value: Any?) -> String {
    fiefValueDescription(value, nilText: "<null>")
}

private func fiefValueDescription(_ value: Any?, nilText: String) -> String {
    guard let value = fiefUnwrap(value), !(value is NSNull) else { return nilText }
    switch value {
    case let nested as FiefNestedDescription: return nested.description
    case let mixed as AnyRealmValue:
        switch mixed {
        case .none: return nilText
        case .object(let object): return object.description
        case .list(let list): return list.description
        case .dictionary(let map): return map.description
        default: return fiefValueDescription(mixed._fiefStored, nilText: nilText)
        }
    case let bool as Bool: return bool ? "1" : "0"
    case let float as Float: return String(format: "%0.7g", Double(float))
    case let double as Double: return String(format: "%0.16g", double)
    case let string as String: return string
    case let data as Data: return fiefDataDescription(data)
    case let persistable as any _Persistable:
        // An enum or custom persistable type, as the value it stores.
        if let stored = persistable._fiefStored, ObjectIdentifier(type(of: stored)) != ObjectIdentifier(type(of: value)) {
            return fiefValueDescription(stored, nilText: nilText)
        }
        return String(describing: value)
    default: return String(describing: value)
    }
}

/// Data as RealmSwift prints it: its first 24 bytes in hex, in groups of four, and its length.
func fiefDataDescription(_ data: Data) -> String {
    var hex = ""
    for (offset, byte) in data.prefix(24).enumerated() {
        if offset > 0 && offset % 4 == 0 { hex += " " }
        hex += String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
    }
    return "<\(hex) — \(data.count) total bytes>"
}

/// The element type of a collection as realm-core names it: the class of
/// objects, else "int", "string", "mixed", ...
func fiefRealmTypeName(_ type: any _Persistable.Type) -> String {
    if let target = type._fiefLinkTarget { return target.className() }
    switch type._fiefType {
    case FIEF_TYPE_INT: return "int"
    case FIEF_TYPE_BOOL: return "bool"
    case FIEF_TYPE_STRING: return "string"
    case FIEF_TYPE_BINARY: return "data"
    case FIEF_TYPE_TIMESTAMP: return "date"
    case FIEF_TYPE_FLOAT: return "float"
    case FIEF_TYPE_DOUBLE: return "double"
    case FIEF_TYPE_DECIMAL128: return "decimal128"
    case FIEF_TYPE_OBJECT_ID: return "object id"
    case FIEF_TYPE_UUID: return "uuid"
    case FIEF_TYPE_MIXED: return "mixed"
    default: return "\(type)"
    }
}

/// The most elements a collection's description lists.
let fiefDescribedElementLimit = 100

/// A collection's description: `header` (`List<Dog> <0x...>`), then each
/// described entry on its own line (`[0] ...`, indented by `prefix`),
/// separated by commas, then how many were left out.
func fiefCollectionDescription(header: String, entries: [String], count: Int, prefix: String = "\t") -> String {
    var text = header + " (\n"
    text += entries.map { prefix + fiefIndented($0) }.joined(separator: ",\n")
    if count > entries.count { text += "\n\t... \(count - entries.count) objects skipped." }
    return text + "\n)"
}

/// The address RealmSwift's collection headers show (`<0x...>`).
func fiefAddress(_ object: AnyObject) -> String {
    "0x" + String(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()), radix: 16)
}

extension ObjectBase: FiefNestedDescription {}
extension AnyRealmCollection: FiefNestedDescription {}
