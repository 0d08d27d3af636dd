import FiefEngine
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// What a handle names.  Stored in its slot so that a handle of one kind
/// passed where another is expected is an error, not a crash.
enum HandleKind: UInt8 {
    case config = 1
    case schema = 2
    case realm = 3
    case object = 4
    case results = 5
    case list = 6
    case set = 7
    case map = 8
    case notificationToken = 9
    case collectionChanges = 10
    case objectChanges = 11
    /// A results change set regrouped by section (fief_collection_changes_by_section).
    case sectionChanges = 40
    case mapChanges = 13

    var name: String {
        switch self {
        case .config: return "config"
        case .schema: return "schema"
        case .realm: return "realm"
        case .object: return "object"
        case .results: return "results"
        case .list: return "list"
        case .set: return "set"
        case .map: return "map"
        case .notificationToken: return "notification token"
        case .collectionChanges: return "collection changes"
        case .objectChanges: return "object changes"
        case .sectionChanges: return "section changes"
        case .mapChanges: return "map changes"
        }
    }
}

/// Every handle the C ABI gives out is an index into this table plus a
/// generation count, disguised as a pointer.  A released handle's slot gets
/// a new generation, so using the old value is detected (FIEF_ERR_INVALID_HANDLE)
/// instead of touching freed memory.  Segments never move, so lookups need
/// no lock; allocation and release take one.
enum HandleTable {
    struct Slot {
        var generation: UInt32 = 0
        var kind: UInt8 = 0
        /// The next free slot's index + 1 (0: none), while this one is free.
        var nextFree: UInt32 = 0
        var object: AnyObject? = nil
        /// `object` as a raw pointer, for borrowing it without reference counting.
        var opaque: UnsafeMutableRawPointer? = nil
        /// For object handles: the class and object key (`object` is the realm).
        var table: UInt32 = 0
        var key: Int64 = 0
        /// For collection handles: the rest of the `CollectionRef` (its
        /// kind is the handle's; `table` and `key` are its class and owner).
        var property: UInt32 = 0
        var nested: Int64 = 0
        /// Text handed out for the handle (a results' description), kept
        /// until the handle is released.
        var text: HandleText? = nil
    }

    static let segmentShift = 12
    static let segmentSize = 1 << segmentShift       // slots per segment
    static let maxSegments = 4096                      // 16 M live handles
    static let generationBits: UInt64 = 24
    static let generationMask: UInt64 = (1 << generationBits) - 1

    nonisolated(unsafe) static let segments: UnsafeMutablePointer<UnsafeMutablePointer<Slot>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<Slot>?>.allocate(capacity: maxSegments)
        table.initialize(repeating: nil, count: maxSegments)
        return table
    }()
    /// The first free slot's index + 1 (0: none): a list threaded through the slots.
    nonisolated(unsafe) static var freeHead: UInt32 = 0
    nonisolated(unsafe) static var slotCount: UInt32 = 0
    static let lock = Lock()

    /// A new object handle: the realm, the class and the object key live in
    /// the slot itself, so an object handle costs no allocation.
    static func makeObject(_ realm: Realm, table: UInt32, key: Int64) -> OpaquePointer? {
        make(realm, .object) { slot in
            slot.pointee.table = table
            slot.pointee.key = key
        }
    }

    /// A new handle to collection `ref` (a list, set or map handle, as its
    /// kind): the realm and the address live in the slot.
    static func makeCollection(_ realm: Realm, _ ref: CollectionRef) -> OpaquePointer? {
        let kind: HandleKind = switch ref.kind { case .list: .list; case .set: .set; case .map: .map }
        return make(realm, kind) { slot in
            slot.pointee.table = ref.table
            slot.pointee.key = ref.owner
            slot.pointee.property = ref.property
            slot.pointee.nested = ref.nested
        }
    }

    /// The collection a list, set or map handle names.
    @inline(__always)
    private static func collectionRef(_ slot: UnsafeMutablePointer<Slot>, _ kind: HandleKind) -> CollectionRef {
        CollectionRef(kind == .list ? .list : kind == .set ? .set : .map, table: slot.pointee.table, owner: slot.pointee.key,
                      property: slot.pointee.property, nested: slot.pointee.nested)
    }

    /// The accessor of a list handle's list, valid for the current call
    /// (it borrows the realm).
    @inline(__always)
    static func list(_ handle: UnsafeRawPointer?) throws(FiefError) -> ListAccess {
        try borrow(handle, .list, as: Realm.self) { (realm) throws(FiefError) -> ListAccess in realm.list(collectionRef(slot(handle)!, .list)) }
    }

    /// The accessor of a set handle's set, valid for the current call.
    @inline(__always)
    static func set(_ handle: UnsafeRawPointer?) throws(FiefError) -> SetAccess {
        try borrow(handle, .set, as: Realm.self) { (realm) throws(FiefError) -> SetAccess in realm.set(collectionRef(slot(handle)!, .set)) }
    }

    /// The accessor of a map handle's map, valid for the current call.
    @inline(__always)
    static func map(_ handle: UnsafeRawPointer?) throws(FiefError) -> MapAccess {
        try borrow(handle, .map, as: Realm.self) { (realm) throws(FiefError) -> MapAccess in realm.map(collectionRef(slot(handle)!, .map)) }
    }

    /// `body` run with the accessor of a list handle's list; the realm is
    /// borrowed for the call, so the accessor (made and used inside) costs
    /// no reference counting.
    @inline(__always)
    static func withList<R>(_ handle: UnsafeRawPointer?, _ body: (ListAccess) throws(FiefError) -> R) throws(FiefError) -> R {
        try borrow(handle, .list, as: Realm.self) { (realm) throws(FiefError) -> R in try body(realm.list(collectionRef(slot(handle)!, .list))) }
    }

    /// `body` run with the accessor of a set handle's set (see `withList`).
    @inline(__always)
    static func withSet<R>(_ handle: UnsafeRawPointer?, _ body: (SetAccess) throws(FiefError) -> R) throws(FiefError) -> R {
        try borrow(handle, .set, as: Realm.self) { (realm) throws(FiefError) -> R in try body(realm.set(collectionRef(slot(handle)!, .set))) }
    }

    /// `body` run with the accessor of a map handle's map (see `withList`).
    @inline(__always)
    static func withMap<R>(_ handle: UnsafeRawPointer?, _ body: (MapAccess) throws(FiefError) -> R) throws(FiefError) -> R {
        try borrow(handle, .map, as: Realm.self) { (realm) throws(FiefError) -> R in try body(realm.map(collectionRef(slot(handle)!, .map))) }
    }

    /// `body` run with the object behind an object handle, made inside the
    /// handle's borrow (its realm taken without reference counting).
    @inline(__always)
    static func withObject<R>(_ handle: UnsafeRawPointer?, _ body: (ObjectBox) throws(FiefError) -> R) throws(FiefError) -> R {
        try borrow(handle, .object, as: Realm.self) { (realm) throws(FiefError) -> R in
            let slot = slot(handle)!
            return try body(ObjectBox(realm: realm, table: slot.pointee.table, key: slot.pointee.key))
        }
    }

    /// The object behind an object handle (its realm retained).
    @inline(__always)
    static func object(_ handle: UnsafeRawPointer?) throws(FiefError) -> ObjectBox {
        try borrow(handle, .object, as: Realm.self) { (realm) throws(FiefError) -> ObjectBox in
            let slot = slot(handle)!
            return ObjectBox(realm: realm, table: slot.pointee.table, key: slot.pointee.key)
        }
    }

    /// A new handle for `object`.
    static func make(_ object: AnyObject, _ kind: HandleKind, _ fill: (UnsafeMutablePointer<Slot>) -> Void = { _ in }) -> OpaquePointer? {
        let made: OpaquePointer? = try? lock.withLock { () throws(FiefError) -> OpaquePointer? in
            var index: UInt32
            if freeHead != 0 {
                index = freeHead - 1
                freeHead = (segments[Int(index) >> segmentShift]! + (Int(index) & (segmentSize - 1))).pointee.nextFree
            } else {
                index = slotCount
                let segment = Int(index) >> segmentShift
                guard segment < maxSegments else { return nil }
                if segments[segment] == nil {
                    let fresh = UnsafeMutablePointer<Slot>.allocate(capacity: segmentSize)
                    fresh.initialize(repeating: Slot(), count: segmentSize)
                    segments[segment] = fresh
                }
                slotCount += 1
            }
            let slot = segments[Int(index) >> segmentShift]! + (Int(index) & (segmentSize - 1))
            slot.pointee.kind = kind.rawValue
            slot.pointee.object = object
            slot.pointee.opaque = Unmanaged.passUnretained(object).toOpaque()
            fill(slot)
            let value = (UInt64(index) + 1) << generationBits | UInt64(slot.pointee.generation)
            return OpaquePointer(bitPattern: UInt(value))
        }
        if made == nil {
            setLastError(FiefError(.outOfMemory, "too many live handles"))
        }
        return made
    }

    @inline(__always)
    private static func slot(_ handle: UnsafeRawPointer?) -> UnsafeMutablePointer<Slot>? {
        guard let handle else { return nil }
        let value = UInt64(UInt(bitPattern: handle))
        let indexPlusOne = value >> generationBits
        guard indexPlusOne > 0, indexPlusOne <= UInt64(maxSegments * segmentSize) else { return nil }
        let index = Int(indexPlusOne - 1)
        guard let segment = segments[index >> segmentShift] else { return nil }
        let slot = segment + (index & (segmentSize - 1))
        guard UInt64(slot.pointee.generation) == value & generationMask, slot.pointee.object != nil else { return nil }
        return slot
    }

    /// Run `body` with the object behind `handle` (of `kind`) borrowed from
    /// the table: no reference counting on the way.
    @inline(__always)
    static func borrow<T: AnyObject, R>(_ handle: UnsafeRawPointer?, _ kind: HandleKind, as type: T.Type, _ body: (T) throws(FiefError) -> R) throws(FiefError) -> R {
        guard let handle else {
            throw FiefError(.invalidHandle, "the \(kind.name) handle is NULL")
        }
        guard let slot = slot(handle) else {
            throw FiefError(.invalidHandle, "the \(kind.name) handle is not valid (released, or not made by this library)")
        }
        guard slot.pointee.kind == kind.rawValue, slot.pointee.object != nil else {
            let actual = HandleKind(rawValue: slot.pointee.kind)?.name ?? "unknown"
            throw FiefError(.wrongHandleType, "expected a \(kind.name) handle but got a \(actual) handle")
        }
        let unmanaged = Unmanaged<T>.fromOpaque(slot.pointee.opaque!)
        return try typed { try unmanaged._withUnsafeGuaranteedRef { try body($0) } }
    }

    /// The object behind `handle`, which must be of `kind`.
    @inline(__always)
    static func resolve<T: AnyObject>(_ handle: UnsafeRawPointer?, _ kind: HandleKind, as type: T.Type) throws(FiefError) -> T {
        guard let handle else {
            throw FiefError(.invalidHandle, "the \(kind.name) handle is NULL")
        }
        guard let slot = slot(handle) else {
            throw FiefError(.invalidHandle, "the \(kind.name) handle is not valid (released, or not made by this library)")
        }
        // The kind decides the class: every handle of a kind is made from one class.
        guard slot.pointee.kind == kind.rawValue, let object = slot.pointee.object else {
            let actual = HandleKind(rawValue: slot.pointee.kind)?.name ?? "unknown"
            throw FiefError(.wrongHandleType, "expected a \(kind.name) handle but got a \(actual) handle")
        }
        return unsafeDowncast(object, to: T.self)
    }

    /// The kind of a live handle, if it is one.
    static func kind(of handle: UnsafeRawPointer?) -> HandleKind? {
        slot(handle).flatMap { HandleKind(rawValue: $0.pointee.kind) }
    }

    /// Give a handle back; false if it was not a live handle.
    static func release(_ handle: UnsafeRawPointer?) -> Bool {
        var object: AnyObject?
        let ok: Bool = (try? lock.withLock { () throws(FiefError) -> Bool in
            guard let slot = slot(handle) else { return false }
            swap(&object, &slot.pointee.object)
            slot.pointee.text = nil
            slot.pointee.opaque = nil
            slot.pointee.kind = 0
            slot.pointee.generation = UInt32((UInt64(slot.pointee.generation) + 1) & generationMask)
            let value = UInt64(UInt(bitPattern: handle!))
            slot.pointee.nextFree = freeHead
            freeHead = UInt32((value >> generationBits) - 1) + 1
            return true
        }) ?? false
        // The object's deinit (closing a realm, aborting a snapshot) runs outside the lock.
        object = nil
        return ok
    }

    /// The zero-terminated copy of `text` kept with `handle` until it is
    /// released; the text kept first when there is one already (what a
    /// handle describes does not change, and a pointer handed out must stay
    /// valid).  NULL (with the last error set) for a stale handle.
    static func keepText(_ text: String, with handle: UnsafeRawPointer?) throws(FiefError) -> UnsafePointer<CChar> {
        let made = HandleText(text)
        return try lock.withLock { () throws(FiefError) -> UnsafePointer<CChar> in
            guard let slot = slot(handle) else {
                throw FiefError(.invalidHandle, "the handle is not valid (released, or not made by this library)")
            }
            if let kept = slot.pointee.text { return UnsafePointer(kept.pointer) }
            slot.pointee.text = made
            return UnsafePointer(made.pointer)
        }
    }
}

/// A zero-terminated UTF-8 copy of a string, freed with its last reference.
final class HandleText {
    let pointer: UnsafeMutablePointer<CChar>

    init(_ text: String) {
        pointer = strdup(text)!
    }

    deinit { free(pointer) }
}
