import Fief
import Foundation

// Models of the copy rules of `add` and `create` (issue 20, items 9-11).

class CopyFlag: Object {
    @Persisted var flag = false
}

class CopyKeyed: Object {
    @Persisted(primaryKey: true) var key = ""
    @Persisted var count = 0
}

/// Links to objects with a primary key, one and many.
class CopyHolder: Object {
    @Persisted(primaryKey: true) var key = ""
    @Persisted var keyed: CopyKeyed?
    @Persisted var keyedList: List<CopyKeyed>
    @Persisted var keyedMap: Map<String, CopyKeyed?>
}

/// Links to objects without a primary key, in every kind of collection.
class CopyBag: Object {
    @Persisted var name = ""
    @Persisted var flag: CopyFlag?
    @Persisted var flags: List<CopyFlag>
    @Persisted var flagSet: MutableSet<CopyFlag>
    @Persisted var flagMap: Map<String, CopyFlag?>
    @Persisted var numbers: List<Int>
}

/// Link properties whose default value is an unmanaged object.
class CopyDefaults: Object {
    @Persisted var name = ""
    @Persisted var flag: CopyFlag? = CopyFlag(value: [true])
    @Persisted var leaf: CopyLeaf? = CopyLeaf(value: [5])
}

class CopyLeaf: EmbeddedObject {
    @Persisted var value = 0
}

class CopyNode: EmbeddedObject {
    @Persisted var value = 0
    @Persisted var leaf: CopyLeaf?
    @Persisted var leaves: List<CopyLeaf>
}

class CopyTree: Object {
    @Persisted var name = ""
    @Persisted var node: CopyNode?
    @Persisted var nodes: List<CopyNode>
    @Persisted var nodeMap: Map<String, CopyNode?>
}

class CopyKeyedMapTree: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var nodeMap: Map<String, CopyNode?>
}

class CopyKeyedTree: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var node: CopyNode?
    @Persisted var nodes: List<CopyNode>
}
