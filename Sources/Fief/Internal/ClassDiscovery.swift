// Class discovery: every model class the program declares, found in the
// Swift runtime's type metadata sections (docs/design.md, "The overlay's
// default schema: class discovery").  RealmSwift lists the Objective-C
// runtime's classes for its default schema; Linux has no such list, so this
// walks what the compiler emitted for every nominal type instead.
//
// THIS FILE DEPENDS ON THE SWIFT RUNTIME'S ABI, not on any public API:
// - `swift_enumerateAllMetadataSections`, exported by the runtime on ELF
//   platforms (Swift 5.9 and later), calls a C function with a
//   `MetadataSections` record for every loaded image;
// - the layout of that record (checked by its `version` field), of the
//   `swift5_type_metadata` section (32-bit relative pointers to context
//   descriptors, the low two bits saying direct or indirect), and of a class
//   context descriptor (flags, parent, name, metadata accessor, fields,
//   superclass, all 32-bit).
// Anything that does not look as expected (an unknown record version, a
// section range that is not a whole number of records, a descriptor that is
// not aligned) makes discovery yield nothing: the overlay then falls back to
// the classes the process has used (`SchemaRegistry.noteUsed`), as it did
// before discovery.

/// The ranges of one image's metadata sections (the runtime's
/// `MetadataSectionRange`).
private struct MetadataSectionRange {
    var start: UInt
    var length: Int
}

/// The leading fields of the runtime's `MetadataSections` record, unchanged
/// from version 1 to version 5 (Swift 6.3): later fields are not read.
private struct MetadataSectionsPrefix {
    var version: UInt
    var baseAddress: UnsafeRawPointer?
    var unused0: UnsafeRawPointer?
    var unused1: UnsafeRawPointer?
    var protocols: MetadataSectionRange
    var protocolConformances: MetadataSectionRange
    var typeMetadata: MetadataSectionRange
}

/// The record versions whose prefix is laid out as `MetadataSectionsPrefix`.
private let knownSectionVersions: ClosedRange<UInt> = 1...5

private typealias SectionsVisitor = @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?) -> Bool

@_silgen_name("swift_enumerateAllMetadataSections")
private func swiftEnumerateAllMetadataSections(_ body: SectionsVisitor, _ context: UnsafeMutableRawPointer?)

/// A metadata accessor called with request 0 (complete metadata, blocking):
/// the first word it returns is the class's metadata.
private typealias MetadataAccessor = @convention(c) (Int) -> UnsafeRawPointer?

/// Context descriptor kinds and flags (the runtime's `ContextDescriptorFlags`).
private let descriptorKindMask: UInt32 = 0x1F
private let classDescriptorKind: UInt32 = 16
private let genericDescriptorFlag: UInt32 = 0x80
/// Field offsets in a class context descriptor.
private let accessorOffset = 12
private let superclassOffset = 20

/// What one enumeration collects: the classes found, or that something was
/// not as expected.
private final class DiscoveryState {
    var classes: [AnyClass] = []
    var failed = false
}

enum ClassDiscovery {
    /// Every non-generic `ObjectBase` subclass of every loaded image, other
    /// than the overlay's own bases, in section order; empty if the runtime's
    /// sections could not be read safely.
    static func modelClasses() -> [ObjectBase.Type] {
        let state = DiscoveryState()
        let context = Unmanaged.passRetained(state)
        swiftEnumerateAllMetadataSections({ sections, context in
            let state = Unmanaged<DiscoveryState>.fromOpaque(context!).takeUnretainedValue()
            return ClassDiscovery.visit(sections, state)
        }, context.toOpaque())
        context.release()
        guard !state.failed else { return [] }
        return state.classes.compactMap { cls in
            guard let type = cls as? ObjectBase.Type, !isOverlayBase(type), !type._realmIgnoreClass() else { return nil }
            return type
        }
    }

    private static func isOverlayBase(_ type: ObjectBase.Type) -> Bool {
        type == ObjectBase.self || type == Object.self || type == EmbeddedObject.self || type == DynamicObject.self
    }

    /// Reads one image's type metadata section into `state`; false (stop)
    /// when the record is not one this code understands.
    private static func visit(_ rawSections: UnsafeRawPointer, _ state: DiscoveryState) -> Bool {
        let version = rawSections.load(as: UInt.self)
        guard knownSectionVersions.contains(version) else {
            state.failed = true
            return false
        }
        let range = rawSections.load(as: MetadataSectionsPrefix.self).typeMetadata
        guard range.length > 0 else { return true }
        guard range.length % 4 == 0, range.start % 4 == 0, let start = UnsafeRawPointer(bitPattern: range.start) else {
            state.failed = true
            return false
        }
        var record = start
        let end = start + range.length
        while record < end {
            defer { record += 4 }
            if let cls = modelCandidate(record: record) { state.classes.append(cls) }
        }
        return true
    }

    /// The class a type metadata record names, if it is a non-generic class
    /// with a superclass (every model class is one); nil for anything else.
    private static func modelCandidate(record: UnsafeRawPointer) -> AnyClass? {
        let offset = record.load(as: Int32.self)
        let target = record + Int(offset & ~3)
        let descriptor: UnsafeRawPointer
        switch offset & 3 {
        case 0: descriptor = target                                      // direct
        case 1:                                                          // indirect
            guard let pointee = target.load(as: UnsafeRawPointer?.self) else { return nil }
            descriptor = pointee
        default: return nil                                              // Objective-C names, not on Linux
        }
        guard UInt(bitPattern: descriptor) % 4 == 0 else { return nil }
        let flags = descriptor.load(as: UInt32.self)
        guard flags & descriptorKindMask == classDescriptorKind, flags & genericDescriptorFlag == 0 else { return nil }
        guard descriptor.load(fromByteOffset: superclassOffset, as: Int32.self) != 0 else { return nil }
        let accessorField = descriptor + accessorOffset
        let accessorOffsetValue = accessorField.load(as: Int32.self)
        guard accessorOffsetValue != 0 else { return nil }
        let accessor = unsafeBitCast(accessorField + Int(accessorOffsetValue), to: MetadataAccessor.self)
        guard let metadata = accessor(0) else { return nil }
        return unsafeBitCast(metadata, to: AnyClass.self)
    }
}
