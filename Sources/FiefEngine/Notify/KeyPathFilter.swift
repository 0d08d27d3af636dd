import FiefStorage

/// What a notifier watches of its objects (RealmSwift's `keyPaths:`):
/// per class reached, the columns whose writes count as a modification,
/// and the links (and linking objects) it follows to further objects.
///
/// * No key paths (`nil`): Realm's default, every column of the object and
///   of every object reached through its links, lists, sets and maps of
///   links, to a depth of 4 links.
/// * `"name"`: that column; `"dog.name"`: the link `dog` and, of the dog,
///   `name`; `"dogs"`: the list (or set, map) column itself (its elements'
///   own values are not watched); `"*"`: every column, links not followed;
///   `"dogs.*"`: the list and every column of each dog.  A linking-objects
///   property may be a step too (`"owners.name"`): the object gaining or
///   losing a linking object through it counts (the records'
///   `linkingObjects`), as does a watched write of an origin.
///
/// Resolved once, at registration, against the realm's schema: a name that
/// is not a property is `.noSuchProperty` in RealmSwift's words ("Invalid
/// property name: property 'x' not found in object of type 'C'"); an empty
/// step, a step past a property that is not a link, and `*` before the end
/// are `.invalidArgument`.  The one resolver of the results and object
/// notifiers: results ask `isModified` of each row's object, an object
/// notifier asks which of its own columns are watched (`observes`) and
/// which link columns lead to a watched modification (`modifiedThrough`).
public final class KeyPathFilter: @unchecked Sendable {
    /// One class reached: what of it is watched.
    final class Node {
        let table: UInt32
        /// Every column of the class counts (the default and `*`).
        var allColumns = false
        /// The columns that count, when not all do (ascending).
        var columns: [UInt32] = []
        /// Links followed: the link column (to-one, or a list, set or map
        /// of links) and what is watched of its targets.
        var links: [(column: UInt32, node: Node)] = []
        /// Linking objects followed: the origin class, its link property,
        /// and what is watched of the origins.
        var backlinks: [(origin: UInt32, property: UInt32, node: Node)] = []
        /// The linking-objects properties watched themselves
        /// (`ObjectChanges.linkingPair`): an object gaining or losing a
        /// linking object through one counts.
        var linkingPairs: [UInt64] = []
        /// Every class this node and the nodes below it watch.
        var classes: Set<UInt32> = []

        init(table: UInt32) { self.table = table }
    }

    /// Realm's default depth: links followed from the observed object.
    public static let defaultDepth = 4

    let root: Node
    /// Whether these are Realm's default key paths (none given).
    public let isDefault: Bool

    /// Every class whose writes may count as a modification.
    public var classes: Set<UInt32> { root.classes }

    /// How a node is reached from a node above it: through one of the
    /// parent's link columns, or through linking objects (the node's
    /// objects are origins linking to the parent's through `property`).
    enum Step {
        case link(column: UInt32)
        case linkingObjects(property: UInt32)
    }

    /// Every node of the tree (each shared node once; the root first), and
    /// per node (by its place there) the steps that lead to it from above:
    /// the parent's place, its class and the step.  What `modifiedRoots`
    /// walks up, by places (no reference counting in the walk).
    private let nodes: [Node]
    private let stepsUp: [[(parent: Int, parentTable: UInt32, step: Step)]]
    /// The default key paths' walk by distance (`rootsWithinDepth`): per
    /// class reached, the fewest links from the root class to it, and the
    /// links followed into it (origin class << 32 | link column).
    private let classDistance: [UInt32: Int]
    private let linksInto: [UInt32: [UInt64]]

    private init(root: Node, isDefault: Bool) {
        self.root = root
        self.isDefault = isDefault
        var nodes: [Node] = []
        var place: [ObjectIdentifier: Int] = [ObjectIdentifier(root): 0]
        var pending = [root]
        while let node = pending.popLast() {
            nodes.append(node)
            for child in node.links.map(\.node) + node.backlinks.map(\.node) where place[ObjectIdentifier(child)] == nil {
                place[ObjectIdentifier(child)] = place.count
                pending.append(child)
            }
        }
        // Places in the order found (a node is found before it is visited).
        nodes.sort { place[ObjectIdentifier($0)]! < place[ObjectIdentifier($1)]! }
        var stepsUp = [[(parent: Int, parentTable: UInt32, step: Step)]](repeating: [], count: nodes.count)
        for (index, node) in nodes.enumerated() {
            var below: [(Node, Step)] = node.links.map { ($0.node, .link(column: $0.column)) }
            below += node.backlinks.map { ($0.node, .linkingObjects(property: $0.property)) }
            for (child, step) in below {
                stepsUp[place[ObjectIdentifier(child)]!].append((index, node.table, step))
            }
        }
        self.nodes = nodes
        self.stepsUp = stepsUp
        var classDistance: [UInt32: Int] = [root.table: 0]
        var linksInto: [UInt32: [UInt64]] = [:]
        var level = [root], distance = 0, reached: Set<ObjectIdentifier> = [ObjectIdentifier(root)]
        while !level.isEmpty {
            distance += 1
            var next: [Node] = []
            for node in level {
                for link in node.links {
                    let pair = ObjectChanges.linkingPair(originClass: node.table, property: link.column)
                    if !linksInto[link.node.table, default: []].contains(pair) { linksInto[link.node.table, default: []].append(pair) }
                    if classDistance[link.node.table] == nil { classDistance[link.node.table] = distance }
                    if reached.insert(ObjectIdentifier(link.node)).inserted { next.append(link.node) }
                }
            }
            level = next
        }
        self.classDistance = classDistance
        self.linksInto = linksInto
    }

    /// The filter `paths` name for objects of class `tableKey` (nil or
    /// empty: Realm's default).  Under the realm's lock.
    ///
    ///     let filter = try KeyPathFilter.resolve(["dog.name", "age"], table: person, in: realm)
    public static func resolve(_ paths: [String]?, table tableKey: UInt32, in realm: Realm) throws(FiefError) -> KeyPathFilter {
        let table = try realm.table(tableKey)
        guard let paths, !paths.isEmpty else {
            var made: [UInt64: Node] = [:]
            let root = try defaultNode(table, depth: defaultDepth, realm: realm, made: &made)
            return KeyPathFilter(root: root, isDefault: true)
        }
        let root = Node(table: tableKey)
        for path in paths {
            try add(path, to: root, table: table, realm: realm)
        }
        finish(root)
        return KeyPathFilter(root: root, isDefault: false)
    }

    /// Every column of `table`, and each link followed `depth` more times;
    /// nodes are shared per (class, depth), so a cycle costs nothing.
    private static func defaultNode(_ table: Table, depth: Int, realm: Realm, made: inout [UInt64: Node]) throws(FiefError) -> Node {
        let id = UInt64(table.key) << 8 | UInt64(depth)
        if let node = made[id] { return node }
        let node = Node(table: table.key)
        node.allColumns = true
        node.classes = [table.key]
        made[id] = node
        if depth > 0 {
            for property in table.objectClass.properties where property.type == .link {
                let column = try table.column(property.key)
                guard realm.hasTable(column.linkTarget) else { continue }
                let child = try defaultNode(try realm.table(column.linkTarget), depth: depth - 1, realm: realm, made: &made)
                node.links.append((property.key, child))
                node.classes.formUnion(child.classes)
            }
        }
        return node
    }

    /// Add key path `path` below `node` (of `table`).
    private static func add(_ path: String, to root: Node, table rootTable: Table, realm: Realm) throws(FiefError) {
        let steps = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if path.isEmpty || steps.contains(where: \.isEmpty) {
            throw FiefError(.invalidArgument, "key path '\(path)' is empty or has an empty step")
        }
        var node = root
        var table = rootTable
        for (index, name) in steps.enumerated() {
            let last = index == steps.count - 1
            if name == "*" {
                node.allColumns = true
                if !last {
                    throw FiefError(.invalidArgument, "key path '\(path)': '*' may only end a key path")
                }
                return
            }
            if let property = table.property(named: name) {
                if !node.columns.contains(property.key) { node.columns.append(property.key) }
                if last { return }
                guard property.type == .link else {
                    throw FiefError(.invalidArgument, "key path '\(path)': property '\(table.objectClass.name).\(name)' is not a link, so nothing follows it")
                }
                let column = try table.column(property.key)
                let target = try realm.table(column.linkTarget)
                if let existing = node.links.first(where: { $0.column == property.key }) {
                    node = existing.node
                } else {
                    let child = Node(table: target.key)
                    node.links.append((property.key, child))
                    node = child
                }
                table = target
                continue
            }
            if let linking = realm.linkingObjects(named: name, of: table) {
                guard let originKey = realm.table(named: linking.originClass),
                      let origin = try? realm.table(originKey),
                      let originProperty = origin.property(named: linking.originProperty) else {
                    throw FiefError(.noSuchProperty, "key path '\(path)': linking-objects property '\(table.objectClass.name).\(name)' names an origin that does not exist")
                }
                // The linking objects themselves: a link to the object made
                // or removed (the records' `linkingObjects`).
                let pair = ObjectChanges.linkingPair(originClass: originKey, property: originProperty.key)
                if !node.linkingPairs.contains(pair) { node.linkingPairs.append(pair) }
                let child = Node(table: originKey)
                node.backlinks.append((originKey, originProperty.key, child))
                if last { return }
                node = child
                table = origin
                continue
            }
            throw FiefError(.noSuchProperty, "Invalid property name: property '\(name)' not found in object of type '\(table.objectClass.name)' (key path '\(path)')")
        }
    }

    /// Sort the columns and gather the classes, bottom up.
    @discardableResult
    private static func finish(_ node: Node) -> Set<UInt32> {
        node.columns.sort()
        var classes: Set<UInt32> = [node.table]
        for link in node.links { classes.formUnion(finish(link.node)) }
        for backlink in node.backlinks { classes.formUnion(finish(backlink.node)) }
        node.classes = classes
        return classes
    }

    // MARK: Checking

    /// Whether object `key` of the root class counts as modified by
    /// `changes` (merged records, per class), reading links as `realm`
    /// (at the new version) sees them.  Objects reached are checked once.
    public func isModified(_ key: Int64, changes: [UInt32: ObjectChanges], realm: Realm) throws(FiefError) -> Bool {
        var seen: Set<Visit> = []
        return try Self.isModified(key, root, changes, realm, &seen)
    }

    /// The objects of the root class that count as modified by `changes`,
    /// resolved the other way from `isModified` (the same answer for every
    /// object): from the objects with a watched write, up the links and
    /// linking objects that lead to them, to the root.  Its cost follows
    /// the writes, not the objects checked; nil when more than `limit`
    /// objects have a watched write (then asking `isModified` of the few
    /// objects concerned is the cheaper way).  Under `realm`'s lock.
    public func modifiedRoots(changes: [UInt32: ObjectChanges], realm: Realm, limit: Int = .max) throws(FiefError) -> KeySet? {
        isDefault ? try rootsWithinDepth(changes, realm, limit: limit) : try rootsByNodes(changes, realm, limit: limit)
    }

    /// Realm's default key paths watch every column of every object within
    /// `defaultDepth` links of the root, so a root is modified exactly when
    /// a written object is that near: one walk up from the written objects
    /// by distance, each object once at its smallest distance, a level of
    /// a class at a time (its keys ascending, through one backlink scan),
    /// through the links the default follows into the class, only to
    /// classes near enough the root class to still reach a root.
    private func rootsWithinDepth(_ changes: [UInt32: ObjectChanges], _ realm: Realm, limit: Int) throws(FiefError) -> KeySet? {
        var reached: [UInt32: KeySet] = [:]
        var level: [(table: UInt32, keys: KeySet)] = []
        var total = 0
        for (table, change) in changes where change.hasModifications && classDistance[table] != nil {
            let keys = change.modifiedObjects
            if keys.isEmpty { continue }
            total += keys.count
            if total > limit { return nil }
            reached[table] = keys
            level.append((table, keys))
        }
        var distance = 0
        while !level.isEmpty && distance < Self.defaultDepth {
            distance += 1
            var found: [UInt32: [Int64]] = [:]
            for (table, keys) in level {
                // Only origins from which a root is still near enough.
                let pairs = (linksInto[table] ?? []).filter { classDistance[UInt32(truncatingIfNeeded: $0 >> 32)]! + distance <= Self.defaultDepth }
                try realm.forEachLinkingObject(to: keys.keys, of: table, through: pairs) { (index, origin) in
                    found[UInt32(truncatingIfNeeded: pairs[index] >> 32), default: []].append(origin)
                }
            }
            level = []
            for (table, origins) in found {
                var new = KeySet(origins.sorted())
                if let known = reached[table] { new.subtract(known) }
                if new.isEmpty { continue }
                reached[table, default: KeySet()].formUnion(new)
                level.append((table, new))
            }
        }
        return reached[root.table] ?? KeySet()
    }

    /// Any other key paths: the objects with a watched write per node of
    /// the tree (by place), walked up the steps that lead to each node, each
    /// (node, object) once; a node's objects a batch at a time (children
    /// before parents: their places are larger), its keys ascending.
    func rootsByNodes(_ changes: [UInt32: ObjectChanges], _ realm: Realm, limit: Int = .max) throws(FiefError) -> KeySet? {
        var seen = [KeySet](repeating: KeySet(), count: nodes.count)
        var pending = [KeySet](repeating: KeySet(), count: nodes.count)
        var total = 0
        for (place, node) in nodes.enumerated() {
            guard let change = changes[node.table], change.hasModifications else { continue }
            var keys = KeySet()
            if node.allColumns {
                keys = change.modifiedObjects
            } else {
                for column in node.columns { if let set = change.modified[column] { keys.formUnion(set) } }
            }
            for pair in node.linkingPairs { if let set = change.linkingObjects[pair] { keys.formUnion(set) } }
            if keys.isEmpty { continue }
            total += keys.count
            if total > limit { return nil }
            seen[place] = keys
            pending[place] = keys
        }
        var place = nodes.count - 1
        while place >= 0 {
            if pending[place].isEmpty { place -= 1; continue }
            let batch = pending[place].keys
            pending[place] = KeySet()
            let table = nodes[place].table
            var next = place
            for (parent, parentTable, step) in stepsUp[place] {
                var above: [Int64] = []
                switch step {
                case .link(let column):
                    let pair = ObjectChanges.linkingPair(originClass: parentTable, property: column)
                    try realm.forEachLinkingObject(to: batch, of: table, through: [pair]) { (_, origin) in above.append(origin) }
                case .linkingObjects(let property):
                    let origins = try realm.table(table)
                    for key in batch { above += try Self.linked(key, origins, property, realm) }
                }
                if above.isEmpty { continue }
                var new = KeySet(above.sorted())
                new.subtract(seen[parent])
                if new.isEmpty { continue }
                seen[parent].formUnion(new)
                pending[parent].formUnion(new)
                // A node shared by several parents (the default's) may be
                // placed below one of them: walk back up to it.
                next = max(next, parent)
            }
            place = next
        }
        // The root is the first node: its visits are the roots reached.
        return seen[0]
    }

    /// The columns of `key` (an object of the root class) the filter
    /// watches that `changes` wrote (the root's own only), ascending.
    public func modifiedColumns(of key: Int64, changes: ObjectChanges) -> [UInt32] {
        let written = changes.modifiedColumns(of: key)
        return root.allColumns ? written : written.filter { root.columns.contains($0) }
    }

    /// Whether the root class's column `column` is watched itself (a
    /// column a key path goes through is: `dog` for `dog.name`).
    public func observes(_ column: UInt32) -> Bool {
        root.allColumns || root.columns.contains(column)
    }

    /// Whether some key path starts with a linking-objects property (it
    /// names no column of the root class).
    public var startsWithLinkingObjects: Bool { !root.backlinks.isEmpty }

    /// The root's link columns (ascending) through which object `key`
    /// reaches an object with a watched write in `changes`, as `realm`
    /// (the new version) links them: what an object notifier reports for
    /// `dogs.name` when a dog's name changed.  Under `realm`'s lock.
    public func modifiedThrough(_ key: Int64, changes: [UInt32: ObjectChanges], realm: Realm) throws(FiefError) -> [UInt32] {
        if root.links.isEmpty { return [] }
        let table = try realm.table(root.table)
        var columns: [UInt32] = []
        for link in root.links where Self.reaches(link.node, changes) {
            var seen: Set<Visit> = []
            for target in try Self.linked(key, table, link.column, realm) {
                if !seen.insert(Visit(node: ObjectIdentifier(link.node), key: target)).inserted { continue }
                if try Self.isModified(target, link.node, changes, realm, &seen) {
                    columns.append(link.column)
                    break
                }
            }
        }
        return columns.sorted()
    }

    /// Whether `changes` may hold a modification this filter counts (a
    /// write to some class it watches).
    public func mayCount(_ changes: [UInt32: ObjectChanges]) -> Bool {
        for (table, change) in changes where change.hasModifications && root.classes.contains(table) { return true }
        return false
    }

    private static func isModified(_ key: Int64, _ node: Node, _ changes: [UInt32: ObjectChanges], _ realm: Realm, _ seen: inout Set<Visit>) throws(FiefError) -> Bool {
        if let change = changes[node.table] {
            if node.allColumns {
                for set in change.modified.values where set.contains(key) { return true }
            } else {
                for column in node.columns where change.modified[column]?.contains(key) == true { return true }
            }
            for pair in node.linkingPairs where change.linkingObjects[pair]?.contains(key) == true { return true }
        }
        if node.links.isEmpty && node.backlinks.isEmpty { return false }
        let table = try realm.table(node.table)
        for link in node.links where reaches(link.node, changes) {
            for target in try linked(key, table, link.column, realm) {
                if !seen.insert(Visit(node: ObjectIdentifier(link.node), key: target)).inserted { continue }
                if try isModified(target, link.node, changes, realm, &seen) { return true }
            }
        }
        for backlink in node.backlinks where reaches(backlink.node, changes) {
            for origin in try realm.linkingObjects(to: key, of: node.table, originClass: backlink.origin, property: backlink.property) {
                if try isModified(origin, backlink.node, changes, realm, &seen) { return true }
            }
        }
        return false
    }

    /// An object reached through a node (checked once per check).
    private struct Visit: Hashable {
        let node: ObjectIdentifier
        let key: Int64
    }

    /// Whether some class below `node` was written.
    private static func reaches(_ node: Node, _ changes: [UInt32: ObjectChanges]) -> Bool {
        for (table, change) in changes where change.hasModifications && node.classes.contains(table) { return true }
        return false
    }

    /// The objects link column `column` of object `key` points to.
    private static func linked(_ key: Int64, _ table: Table, _ column: UInt32, _ realm: Realm) throws(FiefError) -> [Int64] {
        let column = try table.column(column)
        if column.collection == .none {
            if case .link(_, let target) = try realm.slotValue(table, column, key) { return [target] }
            return []
        }
        return try realm.linkedKeys(ListID(table: table.key, column: column.key, owner: key))
    }
}
