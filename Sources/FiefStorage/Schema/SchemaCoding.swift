/// The schema as stored in the file's `meta` database: a small binary
/// encoding, little-endian, length-prefixed strings.
///
///     encoding 2 (file formats 4 and 5): u32 0xFFFFFFFF, u32 2, then as encoding 1
///       with, after each property's flags, str link target ("" for none),
///       u32 collection kind (0: none; lists, sets and maps take 1, 2, 3)
///       and str origin property (linking objects; "" for none)
///     encoding 1 (file formats 1 to 3):
///       u32 class count, then per class:
///       str name, u32 key, u32 flags (1 = embedded), u32 property count,
///       per property: str name, u32 key, i32 type, u32 flags
///
/// Decoding never trusts the bytes: a damaged schema is `.fileNotFief`.
public enum SchemaCoding {
    /// Where encoding 1 has its class count (never this large), encoding 2
    /// and later have this mark and then their number.
    public static let versionMark: UInt32 = 0xFFFF_FFFF

    public static func encode(_ schema: Schema) -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func str(_ s: String) { u32(UInt32(s.utf8.count)); out.append(contentsOf: s.utf8) }
        u32(SchemaCoding.versionMark)
        u32(2)
        u32(UInt32(schema.classes.count))
        for c in schema.classes {
            str(c.name)
            u32(c.key)
            u32(c.isEmbedded ? 1 : 0)
            u32(UInt32(c.properties.count))
            for p in c.properties {
                str(p.name)
                u32(p.key)
                u32(UInt32(bitPattern: p.type.rawValue))
                u32(p.flags.rawValue)
                str(p.linkTarget ?? "")
                u32(p.collection.rawValue)
                str("")     // origin property: none
            }
        }
        return out
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, path: String) throws(FiefError) -> Schema {
        var offset = 0
        let damaged = FiefError(.fileNotFief, "the schema stored in '\(path)' is damaged", path: path)
        func u32() throws(FiefError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw damaged }
            let v = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            offset += 4
            return v
        }
        func str() throws(FiefError) -> String {
            let n = Int(try u32())
            guard n <= bytes.count - offset else { throw damaged }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n])
            offset += n
            guard UTF8Check.isValid(slice) else { throw damaged }
            return String(decoding: slice, as: UTF8.self)
        }
        var classCount = try u32()
        var encoding: UInt32 = 1
        if classCount == SchemaCoding.versionMark {
            encoding = try u32()
            guard encoding == 2 else { throw damaged }
            classCount = try u32()
        }
        guard classCount < 100_000 else { throw damaged }
        var classes: [ObjectClass] = []
        for _ in 0..<classCount {
            let name = try str()
            let key = try u32()
            let flags = try u32()
            let propertyCount = try u32()
            guard propertyCount < 100_000 else { throw damaged }
            var properties: [Property] = []
            for _ in 0..<propertyCount {
                let pname = try str()
                let pkey = try u32()
                guard let type = PropertyType(rawValue: Int32(bitPattern: try u32())) else { throw damaged }
                let pflags = PropertyFlags(rawValue: try u32())
                let target = encoding >= 2 ? try str() : ""
                var collection = CollectionKind.none
                if encoding >= 2 {
                    // Linking objects are computed, not stored: a file that
                    // names an origin property was written by a newer library.
                    guard let kind = CollectionKind(rawValue: try u32()), try str().isEmpty else { throw damaged }
                    collection = kind
                }
                properties.append(Property(name: pname, type: type, flags: pflags, key: pkey, linkTarget: target.isEmpty ? nil : target,
                                           collection: collection))
            }
            classes.append(ObjectClass(name: name, properties: properties, isEmbedded: flags & 1 != 0, key: key))
        }
        return Schema(classes: classes)
    }
}
