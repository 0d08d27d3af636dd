// Where the storage of each persisted property lies inside an instance of a
// model class, so that the overlay can reach a property by name: KVC on
// unmanaged objects (`setValue(_:forKey:)`, `init(value:)`) writes the
// wrapper in place, and an object that becomes managed has every wrapper
// bound to its row at once (`Persisted.Storage.managed(index:row:)`), which
// is what lets Codable tell a managed object's wrappers from unmanaged ones
// and read them.
//
// RealmSwift does the same with the Objective-C runtime's ivar offsets
// (ivar_getOffset).  On Linux the offsets come from the standard library's
// reflection SPI `_forEachField(of:options:)`, the metadata Mirror reads; the
// table of each class is checked once against Mirror on a throwaway
// instance (a probe written at each offset must show up in the field of the
// same name, and nowhere else) before it is used.  A class whose table does
// not check out is left without one: its properties can still be read and
// written through their declarations, but not by name while unmanaged.

@_spi(Reflection) import Swift

/// The offset-based operations of one kind of property storage (`Persisted`,
/// `RealmProperty`, `RealmOptional`).
protocol FiefFieldAccessor {
    /// Sets the unmanaged value at `address` from `any` (converted to the
    /// property's type); false if it does not convert.
    static func fiefAssign(_ any: Any?, at address: UnsafeMutableRawPointer) -> Bool
    /// Binds the storage at `address` to property number `index` of `row`.
    static func fiefBind(at address: UnsafeMutableRawPointer, index: Int, row: ManagedRow)
    /// Whether the storage at `address` is the field `label` of `object`
    /// (for the one-time check of a class's table).
    static func fiefProbe(at address: UnsafeMutableRawPointer, in object: ObjectBase, label: String) -> Bool
}

/// The storage of each persisted property inside instances of one class.
struct FieldTable {
    struct Field {
        let offset: Int
        let accessor: FiefFieldAccessor.Type
    }

    /// `fields[i]` is the storage of property number `i` of the class.
    let fields: [Field]

    /// The table of `info`'s class, checked against Mirror; nil when the
    /// class's fields cannot be located.
    static func make(for info: ObjectSchemaInfo) -> FieldTable? {
        var found: [Int: (field: Field, label: String)] = [:]
        var duplicate = false
        // 1 << 0 is `.classType` (a `static var`, which strict concurrency rejects).
        let listed = _forEachField(of: info.type, options: _EachFieldOptions(rawValue: 1 << 0)) { name, offset, fieldType, _ in
            guard let accessor = fieldType as? FiefFieldAccessor.Type else { return true }
            let label = String(cString: name)
            let propertyName = label.hasPrefix("_") ? String(label.dropFirst()) : label
            guard let index = info.propertyIndex[propertyName] else { return true }   // linking objects
            if found[index] != nil { duplicate = true }
            found[index] = (Field(offset: offset, accessor: accessor), label)
            return true
        }
        guard listed, !duplicate, found.count == info.properties.count else { return nil }
        let prototype = info.type.init()
        let checked = withExtendedLifetime(prototype) { () -> Bool in
            let base = Unmanaged.passUnretained(prototype).toOpaque()
            return found.values.allSatisfy { entry in
                entry.field.accessor.fiefProbe(at: base + entry.field.offset, in: prototype, label: entry.label)
            }
        }
        guard checked else { return nil }
        return FieldTable(fields: info.properties.indices.map { found[$0]!.field })
    }

    /// Binds every property storage of `object` to `row`.
    func bind(_ object: ObjectBase, to row: ManagedRow) {
        withExtendedLifetime(object) {
            let base = Unmanaged.passUnretained(object).toOpaque()
            for (index, field) in fields.enumerated() {
                field.accessor.fiefBind(at: base + field.offset, index: index, row: row)
            }
        }
    }

    /// Sets property number `index` of the unmanaged `object` from `any`;
    /// false if the value does not convert to the property's type.
    func assign(_ any: Any?, toProperty index: Int, of object: ObjectBase) -> Bool {
        withExtendedLifetime(object) {
            let base = Unmanaged.passUnretained(object).toOpaque()
            return fields[index].accessor.fiefAssign(any, at: base + fields[index].offset)
        }
    }
}
